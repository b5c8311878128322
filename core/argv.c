/* @FILE response files (offlink/argv.h): one expander for ld.offlink, the
 * GNU linker plugin's options and every offlink command and personality. */
#include "offlink/argv.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define RSP_MAX_WORDS (16u << 20)

/* A walk over words and the response files they name, within the bounds
 * of one expansion. */
struct walk {
	const struct ofl_rsp_walker *w;
	struct ofl_rsp_memo *m;
	unsigned files;
	size_t bytes;
	struct ofl_error *err;
};

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

/* ---- response files, each read once ------------------------------------ */

const struct ofl_rsp_file *ofl_rsp_find(const struct ofl_rsp_memo *m, const char *path)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->v[i].path, path))
			return &m->v[i];
	return NULL;
}

/* What is at path: its bytes, NUL-terminated, into r.  Only a regular
 * file is opened (a device may never end; opening a FIFO would let its
 * writer go on, and the tool that reads it after wait for ever), and it is
 * opened without blocking (one made there since). */
static int read_file(struct ofl_rsp_file *r, const char *path, struct ofl_error *err)
{
	int fd = -1;
	if (stat(path, &r->st) || S_ISDIR(r->st.st_mode))
		r->state = OFL_RSP_NONE;
	else if (!S_ISREG(r->st.st_mode))
		r->state = OFL_RSP_SPECIAL;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || fstat(fd, &r->st))
		r->state = OFL_RSP_NONE;
	else
		r->state = !S_ISREG(r->st.st_mode)                       ? OFL_RSP_SPECIAL
		           : (uint64_t)r->st.st_size > OFL_RSP_MAX_BYTES ? OFL_RSP_HUGE
		                                                         : OFL_RSP_READ;
	size_t size = r->state == OFL_RSP_READ ? (size_t)r->st.st_size : 0;
	if (r->state == OFL_RSP_READ && !(r->text = ofl_malloc(size + 1))) {
		close(fd);
		return OFL_NOMEM(err);
	}
	/* a file that shrank while read: what was there; one that cannot be
	 * read is an error (its words would be lost) */
	if (size && ofl_fd_pread_all(fd, r->text, size, 0, &r->n) && errno) {
		int rc = ofl_error_errno(err, path, "cannot read");
		close(fd);
		return rc;
	}
	if (r->text)
		r->text[r->n] = '\0';
	if (fd >= 0)
		close(fd);
	return 0;
}

/* path as m read it, read now when it did not: *out valid until m's next
 * read.  0, or OFL_ENOMEM, or OFL_EIO when it cannot be read. */
static int rsp_read(struct ofl_rsp_memo *m, const char *path, const struct ofl_rsp_file **out,
                    struct ofl_error *err)
{
	if ((*out = ofl_rsp_find(m, path)))
		return 0;
	if (OFL_GROW(m->v, m->cap, m->n))
		return OFL_NOMEM(err);
	struct ofl_rsp_file *r = &m->v[m->n];
	*r = (struct ofl_rsp_file){.path = ofl_strdup(path)};
	int rc = r->path ? read_file(r, path, err) : OFL_NOMEM(err);
	if (rc) {
		free(r->path);
		free(r->text);
		return rc;
	}
	*out = &m->v[m->n++];
	return 0;
}

void ofl_rsp_memo_release(struct ofl_rsp_memo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].path);
		free(m->v[i].text);
	}
	free(m->v);
	*m = (struct ofl_rsp_memo)OFL_RSP_MEMO_INIT;
}

static int too_much(struct walk *x, const char *path, const char *what)
{
	return ofl_error_set(x->err, OFL_EINVAL, path, OFL_NO_OFFSET, "response file %s", what);
}

/* The response file at path, as read: 0; 1 when it cannot be opened (the
 * @word then stays, as libiberty leaves it); an error for what is not a
 * regular file (a device may never end) or goes past the bounds. */
static int read_rsp(struct walk *x, const char *path, const struct ofl_rsp_file **out)
{
	const struct ofl_rsp_file *r;
	int rc = rsp_read(x->m, path, &r, x->err);
	rc = rc                               ? rc
	     : r->state == OFL_RSP_NONE       ? 1
	     : r->state == OFL_RSP_SPECIAL    ? too_much(x, path, "is not a regular file")
	     : ++x->files > OFL_RSP_MAX_FILES ? too_much(x, path,
	                                                 "is one too many: response files name "
	                                                 "each other over 2000 times")
	     : r->state == OFL_RSP_HUGE || r->n > OFL_RSP_MAX_BYTES - x->bytes
	         ? too_much(x, path, "makes the command line larger than 256 MiB")
	         : 0;
	if (rc)
		return rc;
	x->bytes += r->n;
	*out = r;
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
static char *next_word(char **pp)
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

/* The response file a word names: @FILE, and -Wl,@FILE for a linker's. */
static const char *named(const struct walk *x, const char *word)
{
	if (word[0] == '@')
		return word + 1;
	return x->w->linker_values && !strncmp(word, "-Wl,@", 5) ? word + 5 : NULL;
}

/* word, or the file it names and then its words. */
static int walk_word(struct walk *x, const char *word, unsigned depth)
{
	const char *path = named(x, word);
	const struct ofl_rsp_file *r = NULL;
	int rc = path ? read_rsp(x, path, &r) : 1;
	if (rc)
		return rc < 0 ? rc : x->w->word(x->w->ctx, word, path != NULL);
	if (depth == OFL_RSP_MAX_DEPTH)
		return ofl_error_set(x->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "response files nested too deeply at '%s'", word);
	char *buf = ofl_strndup(r->text, r->n);
	if (!buf)
		return OFL_NOMEM(x->err);
	rc = x->w->file ? x->w->file(x->w->ctx, path, r->text, r->n) : 0;
	char *p = buf, *t;
	while (!rc && (t = next_word(&p)))
		rc = walk_word(x, t, depth + 1);
	free(buf);
	return rc;
}

int ofl_rsp_walk(const struct ofl_rsp_walker *w, char *const *words, size_t n,
                 struct ofl_rsp_memo *m, struct ofl_error *err)
{
	struct walk x = {w, m, 0, 0, err};
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = walk_word(&x, words[i], 0);
	return rc;
}

struct expansion {
	struct ofl_argv *w;
	struct ofl_error *err;
};

static int push_word(void *ctx, const char *word, bool absent)
{
	struct expansion *x = ctx;
	(void)absent; /* an @word naming nothing stays, as libiberty leaves it */
	if (x->w->n >= RSP_MAX_WORDS)
		return ofl_error_set(x->err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "response files expand to more than %u words", RSP_MAX_WORDS);
	return ofl_argv_push(x->w, word, x->err);
}

int ofl_argv_expand(struct ofl_argv *out, int argc, char *const *argv, struct ofl_rsp_memo *m,
                    struct ofl_error *err)
{
	struct ofl_rsp_memo own = OFL_RSP_MEMO_INIT;
	struct expansion x = {out, err};
	const struct ofl_rsp_walker w = {push_word, NULL, &x, false};
	int rc = ofl_rsp_walk(&w, argv, argc > 0 ? (size_t)argc : 0, m ? m : &own, err);
	ofl_rsp_memo_release(&own);
	return rc;
}

void ofl_argv_release(struct ofl_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct ofl_argv)OFL_ARGV_INIT;
}
