/* Fuzzes the CUDA fatbinary parser: every entry it returns lies inside the
 * fatbinary, which lies inside the input. */
#include <stdlib.h>

#include "offlink/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_fatbin f;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_fatbin_parse(data, size, &f, &err) != 0)
		return 0;
	if (f.size > size)
		abort();
	for (size_t i = 0; i < f.n; i++) {
		const struct ofl_fatbin_entry *e = &f.entries[i];
		if (e->payload_offset > f.size || e->payload_size > f.size - e->payload_offset ||
		    e->offset + OFL_FATBIN_ENTRY_MIN > e->payload_offset)
			abort();
	}
	ofl_fatbin_release(&f);
	return 0;
}
