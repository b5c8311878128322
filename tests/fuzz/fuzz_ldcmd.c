/* Fuzzes the ld command-line parser, in both styles (GNU ld's and
 * link.exe's).  The input is split at NUL and '\n' into argv words; words
 * starting with '@' are dropped, so no response file is ever read.  Checks
 * that every word lands in exactly one argument, in order, and that values
 * point into their words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/ldcmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Splits data into words (in one buffer, *pbuf); returns their number. */
static int split(const uint8_t *data, size_t size, char **pbuf, char ***pwords)
{
	char *buf = malloc(size + 1);
	char **words = malloc((size + 1) * sizeof *words);
	if (!buf || !words)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	int n = 0;
	for (size_t start = 0, i = 0; i <= size; i++) {
		if (i < size && buf[i] != '\n' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (buf[start] != '@' && (i < size || i > start))
			words[n++] = buf + start;
		start = i + 1;
	}
	*pbuf = buf;
	*pwords = words;
	return n;
}

static bool points_into(const char *p, const char *word)
{
	return word && p >= word && p <= word + strlen(word);
}

static void check_arg(const struct ofl_ldcmd *c, const struct ofl_ldarg *a, char **words, int n,
                      int *w)
{
	if (a->nwords < 1 || a->nwords > 2 || (a->nwords == 1) != (a->word[1] == NULL))
		abort();
	for (unsigned k = 0; k < a->nwords; k++)
		if (*w >= n || strcmp(a->word[k], words[(*w)++]) != 0)
			abort();
	if (a->value && !points_into(a->value, a->word[0]) && a->value != a->word[1])
		abort();
	if (a->kind == OFL_LDARG_FILE && (!points_into(a->value, a->word[0]) || a->nwords != 1))
		abort();
	if (a->kind == OFL_LDARG_OPTION && a->opt == OFL_LD_UNKNOWN && (a->value || a->nwords != 1))
		abort();
	if (a->kind == OFL_LDARG_LIBRARY && (!a->value || a->opt != OFL_LD_LIBRARY))
		abort();
	if (a->state.group > c->ngroups || (ofl_ldarg_is_own(a) && a->kind != OFL_LDARG_OPTION))
		abort();
	free(ofl_ldcmd_input_path(c, a));
}

/* Library lookups stat the disk: a few are enough. */
static void check_libraries(const struct ofl_ldcmd *c)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *dirs[] = {"/nonexistent-ofl-dir"};
	int n = 0;
	for (size_t i = 0; i < c->nargs && n < 4; i++) {
		if (c->args[i].kind != OFL_LDARG_LIBRARY)
			continue;
		n++;
		free(ofl_ldcmd_find_library(c, &c->args[i], dirs, 1, &err));
		if (err.code)
			abort();
	}
}

static void parse(enum ofl_ldcmd_style style, char **words, int n)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	int w = 0;
	if (ofl_ldcmd_parse(&c, style, n, words, NULL, &err) == 0) {
		for (size_t i = 0; i < c.nargs; i++)
			check_arg(&c, &c.args[i], words, n, &w);
		if (w != n)
			abort();
		check_libraries(&c);
	} else if (c.args || c.nargs || err.code != OFL_EINVAL) {
		abort();
	}
	ofl_ldcmd_release(&c);
	if (c.args || c.nargs || c.output || c.sysroot)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, **words;
	int n = split(data, size, &buf, &words);
	parse(OFL_LDCMD_GNU, words, n);
	parse(OFL_LDCMD_LINK_EXE, words, n);
	free(buf);
	free(words);
	return 0;
}
