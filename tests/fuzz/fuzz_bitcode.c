/* Fuzzes the bitcode readers: the bitstream walk, abbreviation definitions
 * and records, the irsymtab header and symbols, and the module walk
 * (section names, global values, CONSTANTS blocks, initializers), asked
 * for ".llvm.offloading" and for the first section the input names.  Every
 * symbol and global name must lie inside the input, every section name end
 * in a NUL at its length. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_limits.h"
#include "offlink/bitcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* room for walks whose cost could grow faster than the input */
OFL_FUZZ_LIMITS(1 << 20)

static void check_symtab(const uint8_t *data, size_t size)
{
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_bitcode_symtab(data, size, &t, &e))
		return;
	const char *lo = (const char *)data, *hi = lo + size;
	for (size_t i = 0; i < t.n; i++)
		if (t.syms[i].name < lo || t.syms[i].name + t.syms[i].len > hi)
			abort();
	if (t.producer < lo || t.producer + t.producer_len > hi)
		abort();
	(void)ofl_bitcode_llvm_major(&t);
	ofl_bitcode_symtab_release(&t);
}

static void check_result(const struct ofl_bcglobals *g, const uint8_t *data, size_t size)
{
	const char *lo = (const char *)data, *hi = lo + size;
	for (size_t i = 0; i < g->n; i++) {
		const struct ofl_bcglobal *o = &g->globals[i];
		if (o->name < lo || o->name + o->name_len > hi || !o->data || o->size > 8 * size ||
		    o->module >= g->nmodules)
			abort();
	}
	for (size_t i = 0; i < g->nsections; i++) {
		const struct ofl_bcsection *s = &g->sections[i];
		if (s->name[s->len] || s->module >= g->nmodules)
			abort();
		if (strlen(s->name) == s->len && !ofl_bcglobals_has_section(g, s->name))
			abort();
	}
}

/* The globals of `section`; the first section name found, for another run. */
static char *check_globals(const uint8_t *data, size_t size, const char *section)
{
	struct ofl_bcglobals g;
	struct ofl_error e = OFL_ERROR_INIT;
	char *first = NULL;
	if (ofl_bitcode_section_globals(data, size, section, &g, &e)) {
		if (!e.code || !e.msg[0] || g.n || g.nsections || g.names)
			abort();
		return NULL;
	}
	check_result(&g, data, size);
	if (g.nsections)
		first = strdup(g.sections[0].name);
	ofl_bcglobals_release(&g);
	return first;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_symtab(data, size);
	char *first = check_globals(data, size, ".llvm.offloading");
	if (first)
		free(check_globals(data, size, first));
	free(first);
	return 0;
}
