/* Response files among a command's words (rsp.h). */
#include "rsp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "offlink/argv.h"
#include "offlink/io.h"

struct walk {
	ofl_rsp_fn *fn;
	void *ctx;
	struct ofl_error *err;
	unsigned nfiles;
};

static int walk(struct walk *w, char *const *words, size_t n, unsigned depth);

/* One response file: fn's call, then the files its words name. */
static int file(struct walk *w, const char *path, unsigned depth)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct stat st;
	if (depth >= OFL_RSP_DEPTH || ++w->nfiles > OFL_RSP_MAX || stat(path, &st) ||
	    !S_ISREG(st.st_mode) || ofl_file_open_regular(&f, path, &ignored))
		return 1;
	int rc = w->fn(w->ctx, path, f.data, f.size);
	char *text =
	    rc || memchr(f.data, 0, f.size) ? NULL : ofl_strndup((const char *)f.data, f.size);
	ofl_file_close(&f);
	if (rc || !text)
		return rc ? rc : 1; /* a NUL hides the words after it */
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

int ofl_rsp_files(char *const *words, size_t n, ofl_rsp_fn *fn, void *ctx, struct ofl_error *err)
{
	struct walk w = {fn, ctx, err, 0};
	return walk(&w, words, n, 0);
}
