/* LLVM bitcode read with a small bitstream walker, without libLLVM
 * (docs/design.md, "Bitcode symbols"):
 * - the symbol table (irsymtab), the SYMTAB and STRTAB blocks clang writes
 *   after the modules: the link pipeline resolves device symbols of bitcode
 *   images with it, and device archives get the symbol index llvm-ar writes
 *   for bitcode members;
 * - per module, its section names and the globals of one section with
 *   their initializers' bytes: a host LTO object keeps its device code as
 *   globals in section ".llvm.offloading", and its entry tables say which
 *   registration ABI it needs by their section's name. */
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
/* The same walk, but only the table's header is read: version, producer
 * and triple, no symbol (n 0, nothing allocated, nothing to release).
 * Errors as above, less those of the symbols. */
int ofl_bitcode_symtab_header(const uint8_t *data, size_t size, struct ofl_bcsymtab *out,
                              struct ofl_error *err);

/* The LLVM major version of the producer string, 0 when unknown. */
unsigned ofl_bitcode_llvm_major(const struct ofl_bcsymtab *t);

/* A global of a module, with the bytes of its initializer. */
struct ofl_bcglobal {
	const char *name; /* in the file's STRTAB: name[0..name_len), not NUL-terminated */
	size_t name_len;
	unsigned module; /* which MODULE_BLOCK of the file, from 0 */
	uint8_t *data;   /* owned: array elements are not byte-aligned in the bitstream */
	size_t size;     /* a CSTRING's trailing 0 included */
};

/* A section name a module gives its globals or functions (SECTIONNAME). */
struct ofl_bcsection {
	const char *name; /* NUL-terminated, in the result's `names` */
	size_t len;       /* of the whole name: it may hold a NUL */
	unsigned module;
};

/* One walk over the modules of a file. */
struct ofl_bcglobals {
	unsigned nmodules;
	size_t nsections;
	struct ofl_bcsection *sections; /* owned: every module's, in file order */
	size_t n;
	struct ofl_bcglobal *globals; /* owned: those in the section asked for, in file order */
	char *names;                  /* owned: the bytes of the section names */
};

#define OFL_BCGLOBALS_INIT                                                                         \
	{                                                                                          \
		0, 0, NULL, 0, NULL, NULL                                                          \
	}

/* Reads every MODULE_BLOCK of the bitcode in data[0..size): each module's
 * section names, and every global placed in section `section` (NULL: none,
 * names only) with the bytes of its initializer, found by value number, not
 * by its contents.  The initializer must be a byte string (a constant
 * STRING or CSTRING): anything else, or none, is OFL_EUNSUPPORTED at the
 * record's offset, so device code is never dropped silently; so is a
 * module version other than 2 (LLVM before 5), and one that names
 * `section` twice (LLVM writes each name once).  A malformed bitstream, or
 * one without a module, is OFL_EFORMAT with the byte offset.  Global names
 * point into data, which must outlive their use.  Work and memory are
 * linear in size. */
int ofl_bitcode_section_globals(const uint8_t *data, size_t size, const char *section,
                                struct ofl_bcglobals *out, struct ofl_error *err);
void ofl_bcglobals_release(struct ofl_bcglobals *g);

/* Whether a module of g places something in section `name`. */
bool ofl_bcglobals_has_section(const struct ofl_bcglobals *g, const char *name);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
