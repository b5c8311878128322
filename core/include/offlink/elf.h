/* Small ELF helpers shared by the modules that read objects with libelf. */
#ifndef OFFLINK_ELF_H
#define OFFLINK_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* True when data starts with an ELF header of a known class (32 or 64). */
bool ofl_is_elf(const uint8_t *data, size_t size);

/* Whether LLVM takes an ELF file data for an object to read offloading
 * sections from: a relocatable object, an executable or a shared object,
 * e_type read in the byte order EI_DATA names when it is big-endian and
 * little-endian otherwise (llvm::identify_magic). */
bool ofl_elf_llvm_object(const uint8_t *data);

/* What LLVM's ELF object reader (ELFFile::create and its section table,
 * read whenever LLVM opens an ELF object) refuses in an ELF file data (one
 * ofl_is_elf accepts): 0, or OFL_EFORMAT with LLVM's own words as the
 * message and the offset of the field at fault (docs/formats.md §5.9). */
int ofl_elf_llvm_check(const uint8_t *data, size_t size, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
