/* Fuzzes the OffloadBinary readers; whatever v1 parses must survive a
 * write/parse round trip with the same metadata and image. */
#include <stdlib.h>
#include <string.h>

#include "offlink/offload_binary.h"

static void round_trip(const struct ofl_obin *b)
{
	const char **k = calloc(b->nstrings + 1, sizeof *k),
	           **v = calloc(b->nstrings + 1, sizeof *v);
	if (!k || !v)
		abort();
	for (size_t i = 0; i < b->nstrings; i++) {
		k[i] = b->strings[i].key;
		v[i] = b->strings[i].value;
	}
	struct ofl_obin_image img = {b->image_kind, b->offload_kind, b->flags, b->image,
	                             b->image_size, b->nstrings,     k,        v};
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_obin_write(&img, &out, &err) == 0) {
		struct ofl_obin again;
		if (ofl_obin_parse(out.data, out.len, &again, &err) != 0)
			abort();
		if (again.nstrings != b->nstrings || again.image_size != b->image_size ||
		    (b->image_size && memcmp(again.image, b->image, (size_t)b->image_size)))
			abort();
		for (size_t i = 0; i < b->nstrings; i++)
			if (strcmp(again.strings[i].key, k[i]) ||
			    strcmp(again.strings[i].value, v[i]))
				abort();
		ofl_obin_release(&again);
	}
	ofl_buf_release(&out);
	free(k);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_obin b;
	if (ofl_obin_parse(data, size, &b, &err) == 0) {
		round_trip(&b);
		ofl_obin_release(&b);
	}
	(void)ofl_obin_llvm_diag(data, size);
	struct ofl_obin_set s;
	ofl_error_clear(&err);
	if (ofl_obin_parse_set(data, size, &s, &err) == 0) {
		volatile size_t sum = 0;
		for (size_t i = 0; i < s.nentries; i++) {
			for (size_t j = 0; j < s.entries[i].nstrings; j++)
				sum += strlen(s.entries[i].strings[j].key) +
				       s.entries[i].strings[j].value_size;
			if (s.entries[i].image_size)
				sum += s.entries[i].image[s.entries[i].image_size - 1];
		}
		ofl_obin_set_release(&s);
	}
	return 0;
}
