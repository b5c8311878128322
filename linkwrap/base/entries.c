/* The offload entry tables of host objects (entries.h). */
#include "entries.h"

#include <stdio.h>
#include <string.h>

#include "offlink/ccob.h"

static const char *const entry_sections[OFL_NENTRY_SECTIONS] = {
    "llvm_offload_entries", "omp_offloading_entries", "cuda_offloading_entries",
    "hip_offloading_entries"};

const char *const *ofl_entry_sections(void)
{
	return entry_sections;
}

const char *ofl_entry_symbol(const char *entry)
{
	static const char *const prefixes[] = {".offloading.entry.", ".omp_offloading.entry."};
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(prefixes[i]);
		if (!strncmp(entry, prefixes[i], n) && entry[n])
			return entry + n;
	}
	return NULL;
}

void ofl_entry_hash(const uint8_t *data, size_t size, char out[17])
{
	/* LLVM's MD5 low() of the bytes, as a CCOB's hash */
	snprintf(out, 17, "%llx", (unsigned long long)ofl_ccob_hash(data, size));
}
