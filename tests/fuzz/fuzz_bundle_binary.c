/* Fuzzes the bundle reader on binary bundles, compressed bundles and fat
 * objects: any input must be rejected cleanly or parsed into entries that
 * lie inside the data. */
#include <stdint.h>
#include <stdlib.h>

#include "offlink/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = {"bc", "o"};
	for (size_t t = 0; t < 2; t++) {
		struct ofl_bundle b;
		struct ofl_error err = OFL_ERROR_INIT;
		if (ofl_bundle_read(&b, data, size, ofl_file_type_find(types[t]), &err) == 0) {
			for (size_t i = 0; i < b.n; i++)
				if (b.entries[i].offset > b.size ||
				    b.entries[i].size > b.size - b.entries[i].offset)
					abort();
		} else if (!err.msg[0]) {
			abort(); /* every failure must say why */
		}
		ofl_bundle_release(&b);
	}
	return 0;
}
