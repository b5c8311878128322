/* Response files among a command's words (rsp.h): core's walk over them,
 * each one offlink cannot follow ending it with 1. */
#include "rsp.h"

#include <stdbool.h>
#include <string.h>

#include "internal.h"

struct files {
	ofl_rsp_fn *fn;
	void *ctx;
};

/* An @FILE naming nothing: the linker would take the word as it is. */
static int word(void *ctx, const char *w, bool absent)
{
	(void)ctx;
	(void)w;
	return absent;
}

static int file(void *ctx, const char *path, const char *text, size_t n)
{
	struct files *f = ctx;
	int rc = f->fn(f->ctx, path, (const uint8_t *)text, n);
	/* a NUL hides the words after it */
	return rc ? rc : memchr(text, 0, n) != NULL;
}

int ofl_rsp_files(char *const *words, size_t n, struct ofl_rsp_memo *m, ofl_rsp_fn *fn, void *ctx,
                  struct ofl_error *err)
{
	struct files f = {fn, ctx};
	const struct ofl_rsp_walker w = {word, file, &f, true};
	struct ofl_error bounds = OFL_ERROR_INIT;
	int rc = ofl_rsp_walk(&w, words, n, m, &bounds);
	/* past the bounds, no regular file: the walk's own error, not fn's */
	return bounds.code == OFL_ENOMEM ? OFL_NOMEM(err) : bounds.code ? 1 : rc;
}
