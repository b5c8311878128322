/* Tail-merged string tables (internal.h), shared by the offload binary
 * and COFF writers, whose bytes must be LLVM's. */
#include <stdlib.h>

#include "internal.h"

/* Descending order of the reversed bytes; a proper suffix sorts after the
 * longer string (StringTableBuilder's tail-merge order). */
static int cmp_reversed_desc(const void *pa, const void *pb)
{
	const struct ofl_strtab_ref *a = *(struct ofl_strtab_ref *const *)pa,
	                            *b = *(struct ofl_strtab_ref *const *)pb;
	size_t i = a->len, j = b->len;
	while (i > 0 && j > 0) {
		uint8_t ca = (uint8_t)a->s[--i], cb = (uint8_t)b->s[--j];
		if (ca != cb)
			return ca < cb ? 1 : -1;
	}
	return i == j ? 0 : (i > 0 ? -1 : 1);
}

int ofl_strtab_layout(struct ofl_strtab_ref *refs, size_t n, uint64_t start, uint64_t *size)
{
	struct ofl_strtab_ref **sorted = ofl_calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted)
		return OFL_ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		refs[i].off = 0;
		if (refs[i].len)
			sorted[m++] = &refs[i];
	}
	qsort(sorted, m, sizeof(*sorted), cmp_reversed_desc);
	uint64_t end = start;
	const struct ofl_strtab_ref *prev = NULL;
	for (size_t i = 0; i < m; i++) {
		struct ofl_strtab_ref *r = sorted[i];
		if (prev && prev->len >= r->len &&
		    !memcmp(prev->s + prev->len - r->len, r->s, r->len)) {
			r->off = prev->off + prev->len - r->len;
			continue;
		}
		r->off = end;
		end += r->len + 1;
		prev = r;
	}
	free(sorted);
	*size = end;
	return 0;
}

void ofl_strtab_fill(const struct ofl_strtab_ref *refs, size_t n, uint8_t *table)
{
	for (size_t i = 0; i < n; i++)
		if (refs[i].len)
			memcpy(table + refs[i].off, refs[i].s, refs[i].len);
}
