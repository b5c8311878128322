/* Response files among a command's words (rsp.h). */
#include "rsp.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct walk {
	struct ofl_rsp_memo *m;
	ofl_rsp_fn *fn;
	void *ctx;
	struct ofl_error *err;
	unsigned nfiles;
	size_t bytes;
};

static int walk(struct walk *w, char *const *words, size_t n, unsigned depth);

/* One response file: fn's call, then the files its words name. */
static int file(struct walk *w, const char *path, unsigned depth)
{
	const struct ofl_rsp_file *r;
	if (depth >= OFL_RSP_MAX_DEPTH || ++w->nfiles > OFL_RSP_MAX_FILES)
		return 1;
	int rc = ofl_rsp_read(w->m, path, &r, w->err);
	if (rc)
		return rc;
	if (r->state != OFL_RSP_READ || r->n > OFL_RSP_MAX_BYTES - w->bytes)
		return 1;
	w->bytes += r->n;
	bool nul = memchr(r->text, 0, r->n); /* it hides the words after it */
	rc = w->fn(w->ctx, path, (const uint8_t *)r->text, r->n);
	if (rc || nul)
		return rc ? rc : 1;
	char *text = ofl_strndup(r->text, r->n);
	if (!text)
		return OFL_NOMEM(w->err);
	struct ofl_argv inner = OFL_ARGV_INIT;
	char *p = text;
	for (char *word; !rc && (word = ofl_argv_next_word(&p));)
		rc = *word ? ofl_argv_push(&inner, word, w->err) : 0;
	rc = rc ? rc : walk(w, inner.v, inner.n, depth + 1);
	ofl_argv_release(&inner);
	free(text);
	return rc;
}

static int walk(struct walk *w, char *const *words, size_t n, unsigned depth)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *at = words[i][0] == '@'               ? words[i]
		                 : !strncmp(words[i], "-Wl,@", 5) ? words[i] + 4
		                                                  : NULL;
		if (at)
			rc = file(w, at + 1, depth);
	}
	return rc;
}

int ofl_rsp_files(char *const *words, size_t n, struct ofl_rsp_memo *m, ofl_rsp_fn *fn, void *ctx,
                  struct ofl_error *err)
{
	struct walk w = {m, fn, ctx, err, 0, 0};
	return walk(&w, words, n, 0);
}
