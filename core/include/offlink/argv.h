/* Command lines with @FILE response files expanded, as GNU libiberty and
 * LLVM's tools (GNU tokenizer) do: each @FILE word that names a readable
 * file is replaced by the words of that file, recursively; words split at
 * white space, quotes ('...' or "...") group, a backslash escapes the next
 * character (bare and inside either quotes; one that ends the file stays).
 * An @word naming no readable file stays as it is. */
#ifndef OFFLINK_ARGV_H
#define OFFLINK_ARGV_H

#include <stddef.h>

#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Owned words; an entry may be set to NULL by a caller that takes it. */
struct ofl_argv {
	char **v;
	size_t n, cap;
};

#define OFL_ARGV_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Appends the expansion of argv[0..argc) to out.  Errors: OFL_ENOMEM, and
 * OFL_EINVAL for files nested more than 64 deep (a file naming itself). */
int ofl_argv_expand(struct ofl_argv *out, int argc, char *const *argv, struct ofl_error *err);
/* Appends a copy of s.  OFL_ENOMEM or 0. */
int ofl_argv_push(struct ofl_argv *a, const char *s, struct ofl_error *err);
void ofl_argv_release(struct ofl_argv *a);

#ifdef __cplusplus
}
#endif
#endif
