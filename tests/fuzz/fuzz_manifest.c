/* Fuzzes the device-link cache's manifest (cache_manifest.c): the bytes
 * as a stored entry's trailer (a length inside the entry or -1, in work
 * bounded by the bytes) and as a dependency file, whose manifest, when
 * one is made, is itself well formed. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../linkwrap/cache/cache_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void as_depfile(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/ofl-fuzz-manifest-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		unlink(path);
		return;
	}
	struct ofl_ptrs keyed = OFL_PTRS_INIT;
	struct ofl_buf m = OFL_BUF_INIT;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (!ofl_manifest_from_depfile(path, "/tmp/ofl-fuzz-skip", &keyed, &now, &m) &&
	    (m.len < 24 || ofl_manifest_check(m.data, m.len) > 0))
		abort(); /* a manifest made holds no image */
	ofl_buf_release(&m);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t image = ofl_manifest_check(data, size);
	if (image < -1 || (image >= 0 && (size < 24 || (uint64_t)image > size - 24)))
		abort();
	as_depfile(data, size);
	return 0;
}
