/* Response files among a command's words (rsp.c): @FILE, and the @FILEs
 * in its words, as clang and the linkers expand them. */
#ifndef OFL_RSP_H
#define OFL_RSP_H

#include <stddef.h>

#include "offlink/argv.h"
#include "offlink/error.h"

/* fn(ctx, path, bytes, n) for each response file the words name (a word
 * "@FILE", and one given as a value: "-Wl,@FILE", "-Xlinker" "@FILE" reach
 * the linker so), then for those its words name, depth first, each read
 * through m (once per memo); 1 when one is absent, no regular file,
 * unreadable, holds a NUL or goes past the bounds every reader of
 * response files keeps (offlink/argv.h: the caller does not follow them
 * then); fn's code, or OFL_ENOMEM. */
typedef int ofl_rsp_fn(void *ctx, const char *path, const uint8_t *bytes, size_t n);
int ofl_rsp_files(char *const *words, size_t n, struct ofl_rsp_memo *m, ofl_rsp_fn *fn, void *ctx,
                  struct ofl_error *err);

#endif
