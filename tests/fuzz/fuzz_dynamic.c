/* Fuzzes the reading of what an ELF file tells the loader (a device tool's
 * interpreter, DT_NEEDED, DT_RPATH, DT_RUNPATH; linkwrap/base/loads.c):
 * every name it hands out lies inside the input and ends there; no header
 * is read unaligned (UBSan) or past the end (ASan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const uint8_t *data, size_t size, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	if (s && (p < data || p >= data + size || !memchr(p, 0, size - (size_t)(p - data))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy at an odd address: the file's headers need not be aligned */
	uint8_t *odd = malloc(size + 1);
	if (!odd)
		return 0;
	memcpy(odd + 1, data, size);
	struct ofl_dynamic d;
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_dynamic_read(odd + 1, size, &d, &err);
	if (rc != 0 && rc != 1 && rc != OFL_ENOMEM)
		abort();
	inside(odd + 1, size, d.interp);
	inside(odd + 1, size, d.rpath);
	inside(odd + 1, size, d.runpath);
	inside(odd + 1, size, d.soname);
	for (size_t i = 0; i < d.nneeded; i++) {
		if (!d.needed[i])
			abort();
		inside(odd + 1, size, d.needed[i]);
	}
	ofl_dynamic_release(&d);
	free(odd);
	return 0;
}
