/* Fuzzes the text bundle reader with every comment style. */
#include <stdint.h>
#include <stdlib.h>

#include "offlink/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = {"ll", "s", "i"};
	for (size_t t = 0; t < 3; t++) {
		struct ofl_bundle b;
		struct ofl_error err = OFL_ERROR_INIT;
		if (ofl_bundle_read(&b, data, size, ofl_file_type_find(types[t]), &err) == 0) {
			for (size_t i = 0; i < b.n; i++)
				if (b.entries[i].offset + b.entries[i].size > size)
					abort();
		} else if (!err.msg[0]) {
			abort();
		}
		ofl_bundle_release(&b);
	}
	ofl_file_type_guess(data, size, "fuzz.ll");
	return 0;
}
