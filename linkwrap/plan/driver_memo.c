/* The driver's answer remembered (driver_memo.h). */
#include "driver_memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One word of clang's -### output, unquoted ("...", \-escapes). */
static char *unquote(const char **s)
{
	struct ofl_buf b = OFL_BUF_INIT;
	const char *p = *s + 1;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (ofl_buf_append(&b, p, 1))
			break;
	}
	*s = *p ? p + 1 : p;
	if (ofl_buf_append(&b, "", 1)) {
		ofl_buf_release(&b);
		return NULL;
	}
	return (char *)b.data;
}

/* The index k of the placeholder word names in the probe's folder, or -1:
 * exactly <probe>/p<k><ext> of a shape word OFL_MEMO_OWN k:p<ext> (the driver's own
 * temporaries there, <input stem>-XXXXXX.o, may start alike). */
static long placeholder_index(const char *word, const char *probe, const struct ofl_argv *shape)
{
	size_t plen = strlen(probe);
	if (strncmp(word, probe, plen) || word[plen] != '/' || word[plen + 1] != 'p')
		return -1;
	for (size_t i = 0; i < shape->n; i++) {
		const char *w = shape->v[i];
		char want[64];
		const char *ext = strchr(w, ':');
		if (w[0] != OFL_MEMO_OWN || !ext || ext[1] != 'p')
			continue;
		snprintf(want, sizeof(want), "p%ld%s", atol(w + 1), ext + 2);
		if (!strcmp(word + plen + 1, want))
			return atol(w + 1);
	}
	return -1;
}

/* The memo of the driver's jobs (-### on stderr): their words, own files
 * as OFL_MEMO_OWN k, the driver's temporaries as OFL_MEMO_TEMP t:ext (t numbering them,
 * temps their words); -1 when the output is not jobs of absolute
 * programs. */
int ofl_memo_of(const char *text, const char *probe, const struct ofl_argv *shape,
                struct ofl_argv *temps, struct ofl_buf *m)
{
	size_t plen = strlen(probe), njobs = 0;
	for (const char *line = text; *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		if (strncmp(line, " \"", 2))
			continue;
		const char *p = line + 1;
		for (size_t w = 0; *p == '"'; w++) {
			char *word = unquote(&p);
			if (!word || (!w && word[0] != '/')) {
				free(word);
				return -1;
			}
			char *at = strstr(word, probe);
			long k = placeholder_index(word, probe, shape);
			if (k >= 0) {
				ofl_buf_printf(m, "%c%ld", OFL_MEMO_OWN, k);
			} else if (at && at == word) {
				/* the same temporary, the same name in every job */
				size_t t = 0;
				while (t < temps->n && strcmp(temps->v[t], word))
					t++;
				if (t == temps->n && ofl_argv_push(temps, word, NULL)) {
					free(word);
					return -1;
				}
				const char *dot = strrchr(word + plen, '.');
				ofl_buf_printf(m, "%c%zu:%s", OFL_MEMO_TEMP, t, dot ? dot : "");
			} else if (at) {
				free(word);
				return -1; /* a temporary inside a word */
			} else {
				ofl_buf_printf(m, "%s", word);
			}
			ofl_buf_append(m, "", 1);
			free(word);
			while (*p == ' ')
				p++;
		}
		ofl_buf_printf(m, "%c", OFL_MEMO_END);
		ofl_buf_append(m, "", 1);
		njobs++;
	}
	return njobs && m->len < OFL_MEMO_MAX ? 0 : -1;
}

/* One word of a memo into job; 1 when it is none of ours. */
static int memo_word(const char *w, char *const *own, size_t nown, const char *output,
                     struct ofl_argv *job, struct ofl_error *err)
{
	if (w[0] == OFL_MEMO_OWN) {
		char *end;
		unsigned long k = strtoul(w + 1, &end, 10);
		return end == w + 1 || *end || k >= nown ? 1 : ofl_argv_push(job, own[k], err);
	}
	if (w[0] != OFL_MEMO_TEMP)
		return ofl_argv_push(job, w, err);
	const char *ext = strchr(w, ':');
	char *s = NULL;
	if (!ext)
		return 1;
	int rc = asprintf(&s, "%s.%ld%s", output, atol(w + 1), ext + 1) < 0
	             ? OFL_NOMEM(err)
	             : ofl_argv_push(job, s, err);
	free(s);
	return rc;
}

int ofl_memo_jobs(const uint8_t *m, size_t n, char *const *own, size_t nown, const char *output,
                  struct ofl_argv **jobs, size_t *njobs, struct ofl_error *err)
{
	size_t count = 0;
	*jobs = NULL;
	*njobs = 0;
	if (!n || m[n - 1])
		return 1;
	for (size_t i = 0; i < n; i += strlen((const char *)m + i) + 1)
		count += m[i] == OFL_MEMO_END && !m[i + 1];
	/* the last word ends the last job: nothing after it */
	if (!count || n < 2 || m[n - 2] != OFL_MEMO_END || (n > 2 && m[n - 3]))
		return 1;
	struct ofl_argv *v = ofl_calloc(count, sizeof(*v));
	if (!v)
		return OFL_NOMEM(err);
	size_t j = 0;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i += strlen((const char *)m + i) + 1) {
		const char *w = (const char *)m + i;
		if (w[0] == OFL_MEMO_END && !w[1])
			j += !!v[j].n; /* an empty job is none */
		else
			rc = memo_word(w, own, nown, output, &v[j], err);
	}
	if (!rc && j) {
		*jobs = v;
		*njobs = j;
		return 0;
	}
	for (size_t i = 0; i < count; i++)
		ofl_argv_release(&v[i]);
	free(v);
	return rc ? rc : 1;
}
