/* Fuzzes the OffloadBinary readers; whatever v1 parses must survive a
 * write/parse round trip with the same metadata and image, and so must a
 * set's entries through the version-2 writer. */
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

/* The set's entries, each kept on its own (ofl_obin_set_entry), written
 * again as one v2 binary: the same strings and images come back. */
static void round_trip_v2(const struct ofl_obin_set *s)
{
	size_t n = s->nentries;
	struct ofl_obin *own = calloc(n + 1, sizeof *own);
	struct ofl_obin_image *img = calloc(n + 1, sizeof *img);
	const char ***kv = calloc(2 * n + 1, sizeof *kv);
	struct ofl_error err = OFL_ERROR_INIT;
	if (!own || !img || !kv)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (ofl_obin_set_entry(s, i, &own[i], &err))
			abort();
		(void)ofl_obin_check_known(&own[i], &err);
		kv[2 * i] = calloc(own[i].nstrings + 1, sizeof(char *));
		kv[2 * i + 1] = calloc(own[i].nstrings + 1, sizeof(char *));
		if (!kv[2 * i] || !kv[2 * i + 1])
			abort();
		for (size_t k = 0; k < own[i].nstrings; k++) {
			kv[2 * i][k] = own[i].strings[k].key;
			kv[2 * i + 1][k] = own[i].strings[k].value;
		}
		img[i] = (struct ofl_obin_image){
		    own[i].image_kind, own[i].offload_kind,
		    own[i].flags,      own[i].image ? own[i].image : (const uint8_t *)"",
		    own[i].image_size, own[i].nstrings,
		    kv[2 * i],         kv[2 * i + 1]};
	}
	struct ofl_buf out = OFL_BUF_INIT;
	uint64_t total = 0;
	struct ofl_obin_set again;
	if (ofl_obin_write_v2(img, n, &out, &total, &err) == 0 && n &&
	    ofl_obin_parse_set(out.data, out.len, &again, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			const struct ofl_obin *a = &again.entries[i];
			if (a->nstrings != own[i].nstrings || a->image_size != own[i].image_size ||
			    (a->image_size &&
			     memcmp(a->image, own[i].image, (size_t)a->image_size)))
				abort();
			for (size_t k = 0; k < a->nstrings; k++)
				if (strcmp(a->strings[k].key, own[i].strings[k].key))
					abort();
		}
		ofl_obin_set_release(&again);
	}
	for (size_t i = 0; i < n; i++) {
		ofl_obin_release(&own[i]);
		free(kv[2 * i]);
		free(kv[2 * i + 1]);
	}
	ofl_buf_release(&out);
	free(kv);
	free(img);
	free(own);
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
	(void)ofl_obin_llvm_diag(data, size, OFL_LLVM_22);
	(void)ofl_obin_llvm_diag(data, size, OFL_LLVM_23);
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
		round_trip_v2(&s);
		ofl_obin_set_release(&s);
	}
	return 0;
}
