/* GNU ld scripts given as inputs (libc.so's "GROUP ( ... )", a library that
 * is a script naming others): the files they add to the link, so device
 * code reached through one is found as the host linker finds it. */
#ifndef OFFLINK_LDSCRIPT_H
#define OFFLINK_LDSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"
#include "offlink/ldcmd.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_ldscript_kind {
	OFL_LDSCRIPT_INPUT,      /* a file of INPUT(...) */
	OFL_LDSCRIPT_GROUP,      /* a file of GROUP(...): scanned with the others */
	OFL_LDSCRIPT_EXTERN,     /* a symbol it references: EXTERN's, ENTRY's, a name in
	                          * an assignment's expression: undefined, as -u */
	OFL_LDSCRIPT_INCLUDE,    /* a script INCLUDE names: read in its place */
	OFL_LDSCRIPT_INSERT,     /* INSERT (name: the word): the script adds to the
	                          * linker's default script, as -T, rather than
	                          * replacing it */
	OFL_LDSCRIPT_SEARCH_DIR, /* a library folder SEARCH_DIR adds, as written */
	OFL_LDSCRIPT_STARTUP,    /* the file STARTUP names: ld.bfd links it first */
};

/* One name a script gives, as written ("-lname" for a library), len bytes
 * (not NUL-terminated).  A non-zero return stops the walk and is
 * returned. */
typedef int (*ofl_ldscript_fn)(void *ctx, enum ofl_ldscript_kind kind, const char *name,
                               size_t len);

/* Calls fn for every name of the script's INPUT(...), GROUP(...)
 * (AS_NEEDED(...) in them included), EXTERN(...), ENTRY(...),
 * SEARCH_DIR(...) and STARTUP(...) commands, the symbols of its
 * assignments' expressions (SYM = EXPR; SYM += EXPR; PROVIDE(SYM = EXPR),
 * PROVIDE_HIDDEN, HIDDEN) and its INSERT, in order; other commands and
 * blocks (SECTIONS {...}) are skipped.  OFL_EINVAL when d is no script:
 * a NUL byte, an unbalanced parenthesis or brace, an unterminated comment
 * or string. */
int ofl_ldscript_inputs(const uint8_t *d, size_t n, ofl_ldscript_fn fn, void *ctx,
                        struct ofl_error *err);

/* Calls fn (OFL_LDSCRIPT_EXTERN) for every symbol the expression e of n
 * bytes (to a NUL, if any) names, as ld reads --defsym's (SYM=EXPR, after the '='): names
 * not before '(' (a function's: ABSOLUTE(b) names b), other than '.' and
 * numbers.  Returns what fn returned when not 0; what ld would refuse is
 * read as far as it goes (the host linker reports it). */
int ofl_ldscript_expr_symbols(const char *e, size_t n, ofl_ldscript_fn fn, void *ctx);
/* Calls fn for the file name of every INCLUDE command of the script,
 * wherever it is (at the top, in SECTIONS, MEMORY or an output section),
 * in order.  OFL_EINVAL when d is no script: a NUL byte, an unterminated
 * comment or string, an INCLUDE without a name. */
int ofl_ldscript_includes(const uint8_t *d, size_t n, ofl_ldscript_fn fn, void *ctx,
                          struct ofl_error *err);

/* How a linker's search is asked, for ofl_ldscript_find: whether there
 * is something at a path (a place looked at and found empty is the
 * caller's to note), and what a word of -l's ("-lNAME", "-l:NAME") finds
 * in the library folders (owned; NULL: nothing).  Each returns 0 or an
 * OFL_E* code (the caller's error filled), which stops the search. */
struct ofl_ldscript_search {
	int (*exists)(void *ctx, const char *path, bool *there);
	int (*library)(void *ctx, const char *word, char **found);
	void *ctx;
	enum ofl_linker ld;
};

/* Where the linker finds a name (of kind) that the script at path gives,
 * as ld.bfd 2.40, gold and ld.lld 19 and 22 do (tried): -lNAME as -l; an
 * absolute path as it is; a relative one in the script's folder (that of
 * path as given, a link's not its target's), then the working folder (not
 * gold), then the library folders (as -l:NAME); for INCLUDE, the working
 * folder then the library folders.  *found owned, NULL when it is
 * nowhere; 0, the search's code or OFL_ENOMEM. */
int ofl_ldscript_find(const struct ofl_ldscript_search *s, const char *path,
                      enum ofl_ldscript_kind kind, const char *name, char **found,
                      struct ofl_error *err);

/* The script whose folder the names of a script INCLUDE reads (at path)
 * are found in, as ofl_ldscript_find's path: ld.bfd reads its text as if
 * it stood in the script that includes it (into, whose own such folder
 * that is), ld.lld finds them beside path (tried with ld.bfd 2.40, ld.lld
 * 19 and 22; gold 2.40 crashes on INCLUDE in an input script). */
const char *ofl_ldscript_included_place(enum ofl_linker ld, const char *into, const char *path);

/* The same for the script -T or --default-script names (at path): ld.lld
 * finds its names beside it, ld.bfd as if it stood in the working folder
 * ("": the working folder, then the library folders; tried with ld.bfd
 * 2.40 and ld.lld 22). */
const char *ofl_ldscript_option_place(enum ofl_linker ld, const char *path);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
