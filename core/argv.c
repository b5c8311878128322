/* @FILE response files (offlink/argv.h): one expander for ld.offlink, the
 * GNU linker plugin's options and every offlink command and personality. */
#include "offlink/argv.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* A response file naming itself must end in an error, not in memory
 * exhaustion; 64 files deep is beyond any real build.  Files naming each
 * other many times grow exponentially, so the whole expansion is bounded
 * too: ld.bfd stops at 2000 response files; 256 MiB read and 16M words
 * are far beyond the largest real link lines. */
#define RSP_MAX_DEPTH 64
#define RSP_MAX_FILES 2000
#define RSP_MAX_BYTES (256u << 20)
#define RSP_MAX_WORDS (16u << 20)

struct expansion {
	struct ofl_argv *w;
	unsigned files;
	size_t bytes;
	struct ofl_error *err;
};

static int push_word(struct expansion *x, const char *s)
{
	if (x->w->n >= RSP_MAX_WORDS)
		return ofl_error_set(x->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "response files expand to more than %u words", RSP_MAX_WORDS);
	return ofl_argv_push(x->w, s, x->err);
}

int ofl_argv_push(struct ofl_argv *a, const char *s, struct ofl_error *err)
{
	char *c = ofl_strdup(s);
	if (!c || OFL_GROW(a->v, a->cap, a->n)) {
		free(c);
		return OFL_NOMEM(err);
	}
	a->v[a->n++] = c;
	return 0;
}

static int too_much(struct expansion *x, const char *path, const char *what)
{
	return ofl_error_set(x->err, OFL_EINVAL, path, OFL_NO_OFFSET, "response file %s", what);
}

/* The whole of path, NUL-terminated: 0; 1 when it cannot be opened (the
 * @word then stays, as libiberty leaves it); an error for what is not a
 * regular file (a device may never end) or goes past the bounds. */
static int read_rsp(struct expansion *x, const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0)
		return 1;
	int rc = fstat(fd, &st)         ? 1
	         : S_ISDIR(st.st_mode)  ? 1
	         : !S_ISREG(st.st_mode) ? too_much(x, path, "is not a regular file")
	         : ++x->files > RSP_MAX_FILES
	             ? too_much(x, path,
	                        "is one too many: response files name each other over "
	                        "2000 times")
	         : (uint64_t)st.st_size > RSP_MAX_BYTES - x->bytes
	             ? too_much(x, path, "makes the command line larger than 256 MiB")
	             : 0;
	char *buf = rc ? NULL : ofl_malloc((size_t)st.st_size + 1);
	if (!rc && !buf)
		rc = OFL_NOMEM(x->err);
	size_t n = 0;
	while (!rc && n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) /* shrank while read: what was there */
			break;
		n += (size_t)r;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	x->bytes += n;
	*out = buf;
	return 0;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r';
}

/* Splits the next word off *pp, unquoting it in place (the unquoted word is
 * never longer than its spelling); NULL at the end.  Quotes group; a
 * backslash escapes the next character everywhere, inside single quotes
 * too, and one that ends the text stays, as LLVM's GNU tokenizer has it. */
char *ofl_argv_next_word(char **pp)
{
	char *r = *pp, quote = 0;
	while (is_space(*r))
		r++;
	if (!*r)
		return NULL;
	char *start = r, *w = r;
	for (; *r && (quote || !is_space(*r)); r++) {
		if (*r == '\\' && r[1]) {
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
static int expand(struct expansion *x, const char *word, unsigned depth)
{
	char *buf = NULL;
	int rc = word[0] == '@' ? read_rsp(x, word + 1, &buf) : 1;
	if (rc)
		return rc < 0 ? rc : push_word(x, word);
	if (depth == RSP_MAX_DEPTH) {
		free(buf);
		return ofl_error_set(x->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "response files nested too deeply at '%s'", word);
	}
	char *p = buf, *t;
	while (!rc && (t = ofl_argv_next_word(&p)))
		rc = expand(x, t, depth + 1);
	free(buf);
	return rc;
}

int ofl_argv_expand(struct ofl_argv *out, int argc, char *const *argv, struct ofl_error *err)
{
	struct expansion x = {out, 0, 0, err};
	int rc = 0;
	for (int i = 0; i < argc && !rc; i++)
		rc = expand(&x, argv[i], 0);
	return rc;
}

void ofl_argv_release(struct ofl_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct ofl_argv)OFL_ARGV_INIT;
}
