/* Fuzzes the object handler's writers on any host object: the fat object
 * (the host's sections and symbols read, its string tables rebuilt, its
 * groups rewritten) and the host copy without bundle sections.  Each
 * either fails saying why, or writes an object whose bundle sections are
 * the entries given, in order, with their bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "offlink/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file fd holds, mapped (NULL: empty or unreadable); *n its size. */
static uint8_t *map_fd(int fd, size_t *n)
{
	off_t end = lseek(fd, 0, SEEK_END);
	*n = end > 0 ? (size_t)end : 0;
	void *p = *n ? mmap(NULL, *n, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	return p == MAP_FAILED ? NULL : p;
}

static void check_fat(int fd)
{
	static const char *const ids[] = {"host-x86_64-unknown-linux-gnu-",
	                                  "hipv4-amdgcn-amd-amdhsa--gfx90a"};
	size_t n;
	uint8_t *fat = map_fd(fd, &n);
	struct ofl_bundle b = OFL_BUNDLE_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (!fat || ofl_bundle_object_scan(&b, fat, n, &err) != 0 || b.n < 2)
		abort();
	/* the new sections come last */
	for (size_t i = 0; i < 2; i++)
		if (strcmp(b.entries[b.n - 2 + i].id, ids[i]) ||
		    b.entries[b.n - 2 + i].size != (i ? 3 : 1))
			abort();
	ofl_bundle_release(&b);
	int out = memfd_create("stripped", 0);
	if (out < 0)
		abort();
	ofl_error_clear(&err);
	if (ofl_bundle_object_strip(out, fat, n, &err) != 0 && !err.msg[0])
		abort();
	close(out);
	munmap(fat, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = {"host-x86_64-unknown-linux-gnu-",
	                                  "hipv4-amdgcn-amd-amdhsa--gfx90a"};
	static const uint8_t host_stub[1] = {0}, dev[3] = {1, 2, 3};
	const uint8_t *datas[] = {host_stub, dev};
	const uint64_t sizes[] = {1, 3};
	struct ofl_error err = OFL_ERROR_INIT;
	int fd = memfd_create("fat", 0), out = memfd_create("host", 0);
	if (fd < 0 || out < 0)
		abort();
	if (ofl_bundle_object_write(fd, data, size, ids, datas, sizes, 2, &err) == 0)
		check_fat(fd);
	else if (!err.msg[0])
		abort();
	ofl_error_clear(&err);
	if (ofl_bundle_object_strip(out, data, size, &err) != 0 && !err.msg[0])
		abort();
	close(fd);
	close(out);
	return 0;
}
