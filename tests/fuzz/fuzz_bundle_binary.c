/* Fuzzes the bundle reader on binary bundles, compressed bundles and fat
 * objects: any input must be rejected cleanly or parsed into entries that
 * lie inside the data. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	/* the header-only reader of compressed bundles agrees with the full one
	 * (it cannot see damage past the header, as -list of an uncompressed
	 * bundle does not read entry bytes either) */
	struct ofl_bundle h, f;
	struct ofl_error e1 = OFL_ERROR_INIT, e2 = OFL_ERROR_INIT;
	bool complete = false;
	int hr = ofl_bundle_read_header_only(&h, data, size, &complete, &e1);
	int fr = ofl_bundle_read(&f, data, size, ofl_file_type_find("bc"), &e2);
	if (hr == 0 && complete && fr == 0 && f.n != h.n)
		abort();
	/* streamed unbundling writes the header-only reader's ranges */
	for (size_t i = 0; hr == 0 && complete && fr == 0 && i < h.n; i++)
		if (h.entries[i].offset != f.entries[i].offset ||
		    h.entries[i].size != f.entries[i].size ||
		    strcmp(h.entries[i].id, f.entries[i].id))
			abort();
	ofl_bundle_release(&h);
	ofl_bundle_release(&f);
	return 0;
}
