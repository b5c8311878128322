/* @FILE response files (offlink/argv.h): one expander for ld.offlink, the
 * GNU linker plugin's options and every offlink command and personality. */
#include "offlink/argv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* A response file naming itself must end in an error, not in memory
 * exhaustion; 64 files deep is beyond any real build. */
#define RSP_MAX_DEPTH 64

static int push_word(struct ofl_argv *w, const char *s, struct ofl_error *err)
{
	if (OFL_GROW(w->v, w->cap, w->n) || !(w->v[w->n] = ofl_strdup(s)))
		return OFL_NOMEM(err);
	w->n++;
	return 0;
}

/* The whole of path, NUL-terminated: 0; 1 when it cannot be read (the @word
 * then stays, as libiberty leaves it); OFL_ENOMEM. */
static int read_rsp(const char *path, char **out, struct ofl_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (OFL_GROW(buf, cap, n + 1)) {
			close(fd);
			free(buf);
			return OFL_NOMEM(err);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) { /* a directory, say */
			close(fd);
			free(buf);
			return 1;
		}
		if (r == 0) {
			close(fd);
			buf[n] = '\0';
			*out = buf;
			return 0;
		}
		n += (size_t)r;
	}
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Splits the next word off *pp, unquoting it in place (the unquoted word is
 * never longer than its spelling); NULL at the end.  Quotes group, a
 * backslash escapes the next character except inside single quotes. */
static char *next_word(char **pp)
{
	char *r = *pp, quote = 0;
	while (is_space(*r))
		r++;
	if (!*r)
		return NULL;
	char *start = r, *w = r;
	for (; *r && (quote || !is_space(*r)); r++) {
		if (*r == '\\' && quote != '\'') {
			if (r[1])
				*w++ = *++r;
		} else if (quote ? *r == quote : (*r == '\'' || *r == '"')) {
			quote = quote ? 0 : *r;
		} else {
			*w++ = *r;
		}
	}
	*pp = *r ? r + 1 : r;
	*w = '\0';
	return start;
}

/* Appends word, or the words of the file it names as @FILE. */
static int expand(struct ofl_argv *w, const char *word, unsigned depth, struct ofl_error *err)
{
	char *buf = NULL;
	int rc = word[0] == '@' ? read_rsp(word + 1, &buf, err) : 1;
	if (rc)
		return rc < 0 ? rc : push_word(w, word, err);
	if (depth == RSP_MAX_DEPTH) {
		free(buf);
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "response files nested too deeply at '%s'", word);
	}
	char *p = buf, *t;
	while (!rc && (t = next_word(&p)))
		rc = expand(w, t, depth + 1, err);
	free(buf);
	return rc;
}

int ofl_argv_expand(struct ofl_argv *out, int argc, char *const *argv, struct ofl_error *err)
{
	int rc = 0;
	for (int i = 0; i < argc && !rc; i++)
		rc = expand(out, argv[i], 0, err);
	return rc;
}

void ofl_argv_release(struct ofl_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct ofl_argv)OFL_ARGV_INIT;
}
