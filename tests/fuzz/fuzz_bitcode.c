/* Fuzzes the bitcode symbol-table reader: the bitstream walk, abbreviation
 * definitions, blob records and the irsymtab header and symbols; every name
 * it returns must lie inside the input. */
#include <stdlib.h>

#include "offlink/bitcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_bcsymtab t;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_bitcode_symtab(data, size, &t, &e))
		return 0;
	const char *lo = (const char *)data, *hi = lo + size;
	for (size_t i = 0; i < t.n; i++)
		if (t.syms[i].name < lo || t.syms[i].name + t.syms[i].len > hi)
			abort();
	if (t.producer < lo || t.producer + t.producer_len > hi)
		abort();
	(void)ofl_bitcode_llvm_major(&t);
	ofl_bitcode_symtab_release(&t);
	return 0;
}
