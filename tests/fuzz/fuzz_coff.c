/* Fuzzes the COFF section reader (core/coff.c): every section it returns
 * has its name and data inside the input, numbered in table order, and a
 * prefix selects a subset of the whole table. */
#include <stdlib.h>
#include <string.h>

#include "offlink/coff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size, const struct ofl_coff_sections *s,
                  const char *prefix)
{
	unsigned last = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct ofl_coff_section *c = &s->v[i];
		const uint8_t *name = (const uint8_t *)c->name;
		if (name < data || name + c->name_len > data + size ||
		    memchr(c->name, 0, c->name_len))
			abort();
		if (c->offset > size || c->size > size - c->offset || c->index <= last)
			abort();
		if (c->name_len < strlen(prefix) || memcmp(c->name, prefix, strlen(prefix)))
			abort();
		last = c->index;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_coff_sections all = OFL_COFF_SECTIONS_INIT, some = OFL_COFF_SECTIONS_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	(void)ofl_coff_is(data, size);
	int rc = ofl_coff_sections(data, size, "", &all, &err);
	if (rc && (all.v || all.n || err.code != OFL_EFORMAT))
		abort();
	ofl_error_clear(&err);
	int rc2 = ofl_coff_sections(data, size, ".llvm.offloading", &some, &err);
	if (!rc) {
		check(data, size, &all, "");
		/* every name is read whatever the prefix: the subset fails
		 * exactly when the whole table does */
		if (rc2 || some.n > all.n)
			abort();
		check(data, size, &some, ".llvm.offloading");
	}
	ofl_coff_sections_release(&all);
	ofl_coff_sections_release(&some);
	return 0;
}
