/* Fuzzes the link pipeline's readers: an input given as a plugin gives it
 * (descriptor, offset, size), gathered as object, archive or OffloadBinary,
 * then the host and device symbol rules, grouping and wrapping in a dry run
 * (no process is started).  The first byte picks --whole-archive and
 * whether the host linker already chose the input. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_limits.h"
#include "offlink/link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* room for tens of thousands of images (grouping was once quadratic) */
OFL_FUZZ_LIMITS(4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int fd = memfd_create("fuzz_link", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	struct ofl_link_opts o = {0};
	o.jobserver_rfd = o.jobserver_wfd = -1;
	o.dry_run = true;
	struct ofl_link *l = NULL;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_link_input in = {"input", fd, 0, size - 1, data[0] & 1, 0, (data[0] & 2) != 0};
	struct ofl_link_plan plan;
	if (ofl_link_new(&l, &o, &err))
		abort();
	if (!ofl_link_add(l, &in, &err) && ofl_link_has_device_code(l))
		(void)(ofl_link_plan(l, &plan, &err) || ofl_link_execute(l, &plan, &err));
	ofl_link_free(l);
	close(fd);
	return 0;
}
