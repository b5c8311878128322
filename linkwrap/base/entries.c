/* The offload entry tables of host objects (entries.h). */
#include "entries.h"

#include <stdio.h>

#include "offlink/ccob.h"

static const char *const entry_sections[OFL_NENTRY_SECTIONS] = {
    "llvm_offload_entries", "omp_offloading_entries", "cuda_offloading_entries",
    "hip_offloading_entries"};

const char *const *ofl_entry_sections(void)
{
	return entry_sections;
}

void ofl_entry_hash(const uint8_t *data, size_t size, char out[17])
{
	/* LLVM's MD5 low() of the bytes, as a CCOB's hash */
	snprintf(out, 17, "%llx", (unsigned long long)ofl_ccob_hash(data, size));
}
