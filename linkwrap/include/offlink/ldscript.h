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

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_ldscript_kind {
	OFL_LDSCRIPT_INPUT,   /* a file of INPUT(...) */
	OFL_LDSCRIPT_GROUP,   /* a file of GROUP(...): scanned with the others */
	OFL_LDSCRIPT_EXTERN,  /* a symbol it references: EXTERN's, ENTRY's, a name in
	                       * an assignment's expression: undefined, as -u */
	OFL_LDSCRIPT_INCLUDE, /* a script INCLUDE names: read in its place */
};

/* One name a script gives, as written ("-lname" for a library), len bytes
 * (not NUL-terminated).  A non-zero return stops the walk and is
 * returned. */
typedef int (*ofl_ldscript_fn)(void *ctx, enum ofl_ldscript_kind kind, const char *name,
                               size_t len);

/* Calls fn for every name of the script's INPUT(...), GROUP(...)
 * (AS_NEEDED(...) in them included), EXTERN(...) and ENTRY(...) commands,
 * and the symbols of its assignments' expressions (SYM = EXPR; SYM += EXPR;
 * PROVIDE(SYM = EXPR), PROVIDE_HIDDEN, HIDDEN), in order; other commands
 * and blocks (SECTIONS {...}) are skipped.  OFL_EINVAL when d is no script:
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

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
