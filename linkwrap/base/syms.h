/* Symbols of the link's inputs (syms.c): ELF symbol tables, LLVM bitcode
 * irsymtabs, archive indexes; who made an object and what it registers. */
#ifndef OFL_SYMS_H
#define OFL_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/error.h"

/* The walkers' callbacks return 0 to go on or OFL_ENOMEM; the walkers
 * return an OFL_E code with err filled, for the caller to name the file. */
typedef int (*ofl_sym_fn)(void *ctx, const char *name, bool defined);
/* Global and weak symbols of a relocatable object (.symtab) or shared
 * object (.dynsym: what it defines, and what it leaves to the program,
 * which pulls archive members as an object's references do, in GNU ld,
 * gold and lld alike); weak undefined symbols are skipped since they never
 * pull an archive member. */
int ofl_elf_global_symbols(const uint8_t *data, size_t size, ofl_sym_fn fn, void *ctx,
                           struct ofl_error *err);
/* The same for a device image or object: ELF, or LLVM bitcode by its
 * irsymtab.  1 when the bytes are neither, or hold no symbol table. */
int ofl_image_symbols(const uint8_t *data, size_t size, ofl_sym_fn fn, void *ctx,
                      struct ofl_error *err);
/* The LLVM major version of bitcode's producer, 0 when unknown. */
unsigned ofl_bitcode_producer(const uint8_t *data, size_t size);
/* Calls fn(ctx, name, member header offset) for each archive index entry;
 * returns 1 when the archive has no index. */
typedef int (*ofl_arsym_fn)(void *ctx, const char *name, uint64_t member_offset);
int ofl_archive_index(const uint8_t *data, size_t size, ofl_arsym_fn fn, void *ctx,
                      struct ofl_error *err);
/* The LLVM major version in an ELF object's .comment ("clang version 22."),
 * 0 when none. */
unsigned ofl_elf_clang_version(const uint8_t *data, size_t size);
/* Whether offlink's wrapper writer made (or was merged into) an ELF
 * object: its .comment (OFL_WRAP_COMMENT). */
bool ofl_elf_by_offlink(const uint8_t *data, size_t size);
/* A CUDA or HIP fat binary an ELF object registers (an allocated
 * .nv_fatbin or .hip_fatbin), and whose: a wrapper object's (its
 * .cuda.fatbin_reg/.hip.fatbin_reg), the object clang's old HIP driver
 * makes when it links the device code (--hip-link: __hip_fatbin_<cuid>
 * defined in the section), or none of these (an object compiled without
 * -fgpu-rdc registers its own). */
enum ofl_fatbin_reg { OFL_FATBIN_NONE, OFL_FATBIN_WRAPPER, OFL_FATBIN_HIP_LINKED };
enum ofl_fatbin_reg ofl_elf_fatbin_registration(const uint8_t *data, size_t size);

#endif
