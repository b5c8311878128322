/* The offload entry tables of host objects (entries.c): their sections,
 * and the suffix relocatable mode gives them to make them private. */
#ifndef OFL_ENTRIES_H
#define OFL_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

/* The four entry sections: LLVM 20's, then LLVM 19's (OpenMP, CUDA,
 * HIP). */
#define OFL_NENTRY_SECTIONS 4
const char *const *ofl_entry_sections(void);
/* The symbol an offload entry names, from the name of the entry's own
 * symbol in a host object (".offloading.entry.<name>" from LLVM 19 on,
 * ".omp_offloading.entry.<name>" before), or NULL for another symbol. */
const char *ofl_entry_symbol(const char *entry);
/* The suffix of the sections made private in an object of these bytes:
 * the low half of its MD5 in hex without leading zeros (LLVM's
 * utohexstr). */
void ofl_entry_hash(const uint8_t *data, size_t size, char out[17]);

#endif
