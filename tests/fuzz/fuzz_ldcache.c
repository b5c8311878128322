/* Fuzzes the reading of glibc's loader cache (linkwrap/base/loads.c,
 * ofl_ldcache_read and ofl_ldcache_lookup): every path a lookup gives lies
 * inside the input and ends there; no entry is read past the end (ASan),
 * however many it claims. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lookup(const struct ofl_ldcache *c, const uint8_t *data, size_t size, const char *name)
{
	const char *path = NULL;
	int rc = ofl_ldcache_lookup(c, name, &path);
	if (rc < 0 || rc > 2 || (rc == 0) != (path != NULL))
		abort();
	const uint8_t *p = (const uint8_t *)path;
	if (path && (p < data || p >= data + size || !memchr(p, 0, size - (size_t)(p - data))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy at an odd address: the cache's records need not be aligned */
	uint8_t *odd = malloc(size + 1);
	if (!odd)
		return 0;
	memcpy(odd + 1, data, size);
	struct ofl_ldcache c;
	if (!ofl_ldcache_read(odd + 1, size, ofl_ldcache_abi(), &c)) {
		lookup(&c, odd + 1, size, "libc.so.6");
		lookup(&c, odd + 1, size, "libz.so.1");
		lookup(&c, odd + 1, size, "");
	}
	free(odd);
	return 0;
}
