/* LLVM bitcode's symbol table (irsymtab): the SYMTAB and STRTAB blocks
 * clang writes after the module (docs/design.md, "Bitcode symbols"), read
 * with a small bitstream walker, without parsing the IR.  The link pipeline
 * resolves device symbols of bitcode images with it, and device archives
 * get the symbol index llvm-ar writes for bitcode members. */
#ifndef OFFLINK_BITCODE_H
#define OFFLINK_BITCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_BITCODE_MAGIC "BC\xc0\xde"
#define OFL_BITCODE_WRAPPER 0x0b17c0deu /* the wrapper header's, little-endian */

/* Raw bitcode, or a wrapper header whose bitcode lies within size. */
bool ofl_bitcode_is(const uint8_t *data, size_t size);

/* irsymtab symbol flags (bit positions as LLVM stores them). */
enum {
	OFL_BCSYM_UNDEFINED = 1u << 3,
	OFL_BCSYM_WEAK = 1u << 4,
	OFL_BCSYM_COMMON = 1u << 5,
	OFL_BCSYM_INDIRECT = 1u << 6,
	OFL_BCSYM_USED = 1u << 7,
	OFL_BCSYM_TLS = 1u << 8,
	OFL_BCSYM_MAY_OMIT = 1u << 9,
	OFL_BCSYM_GLOBAL = 1u << 10,
	OFL_BCSYM_FORMAT_SPECIFIC = 1u << 11,
	OFL_BCSYM_UNNAMED_ADDR = 1u << 12,
	OFL_BCSYM_EXECUTABLE = 1u << 13,
};

struct ofl_bcsym {
	const char *name; /* not NUL-terminated: name[0..len) */
	size_t len;
	uint32_t flags;      /* OFL_BCSYM_* */
	unsigned visibility; /* 0 default, 1 hidden, 2 protected */
};

/* The symbol table: views into the file's STRTAB blob. */
struct ofl_bcsymtab {
	unsigned version;     /* irsymtab format version */
	const char *producer; /* "22.1.8" ...; producer[0..producer_len) */
	size_t producer_len;
	const char *triple;
	size_t triple_len;
	size_t n;
	struct ofl_bcsym *syms; /* owned */
};

#define OFL_BCSYMTAB_INIT                                                                          \
	{                                                                                          \
		0, NULL, 0, NULL, 0, 0, NULL                                                       \
	}

/* Reads the symbol table of the bitcode in data[0..size).  No symbol table
 * (bitcode from before LLVM 5, or a file without one): OFL_ENOTFOUND.
 * Malformed bitstream or table: OFL_EFORMAT with the byte offset.  Work is
 * linear in size. */
int ofl_bitcode_symtab(const uint8_t *data, size_t size, struct ofl_bcsymtab *out,
                       struct ofl_error *err);
void ofl_bitcode_symtab_release(struct ofl_bcsymtab *t);

/* The LLVM major version of the producer string, 0 when unknown. */
unsigned ofl_bitcode_llvm_major(const struct ofl_bcsymtab *t);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
