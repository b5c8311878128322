#include <string.h>

#include "harness.h"
#include "offlink/argv.h"
#include "offlink/io.h"

/* The words of a response file holding text, expanded as @r: want[0..n). */
static void check_words(const char *text, const char *const *want, size_t n)
{
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_argv w = OFL_ARGV_INIT;
	char *argv[] = {"@r"};
	CHECK_EQ_U(ofl_write_file("r", text, strlen(text), &e), 0);
	CHECK_EQ_U(ofl_argv_expand(&w, 1, argv, NULL, &e), 0);
	CHECK_EQ_U(w.n, n);
	for (size_t i = 0; i < n && i < w.n; i++)
		CHECK_STR(w.v[i], want[i]);
	ofl_argv_release(&w);
}

#define WORDS(text, ...)                                                                           \
	do {                                                                                       \
		static const char *const want[] = {__VA_ARGS__};                                   \
		check_words(text, want, sizeof want / sizeof *want);                               \
	} while (0)

/* Backslashes as LLVM's GNU tokenizer (clang, clang-offload-bundler) takes
 * them, seen by running clang-22 and llvm-nm-22 on these files: one escapes
 * the next character bare, inside "..." and inside '...' alike (a quote, a
 * backslash, white space, a newline, any letter); one that ends the file
 * stays as itself. */
OFL_TEST(argv_backslashes_as_llvm)
{
	WORDS("'a\\'b' 'a\\\\b' 'a\\nb' 'a\\ b'", "a'b", "a\\b", "anb", "a b");
	WORDS("\"a\\\"b\" \"a\\\\b\" \"a\\nb\"", "a\"b", "a\\b", "anb");
	WORDS("a\\'b a\\\\b a\\ b a\\\"b", "a'b", "a\\b", "a b", "a\"b");
	WORDS("'a\\\nb' a\\\nb \"a\\\nb\"", "a\nb", "a\nb", "a\nb");
	WORDS("x 'a\\", "x", "a\\");
	WORDS("x \"a\\", "x", "a\\");
	WORDS("x a\\", "x", "a\\");
	WORDS("x 'a'\\", "x", "a\\");
}

/* What ofl_rsp_walk hands its callbacks, logged: "FILE:" a response file
 * followed, "WORD" a word, "WORD?" an @FILE naming nothing. */
static int log_word(void *ctx, const char *word, bool absent)
{
	strcat(strcat(strcat(ctx, word), absent ? "?" : ""), " ");
	return !strcmp(word, "stop") ? 7 : 0;
}

static int log_file(void *ctx, const char *path, const char *text, size_t n)
{
	(void)text;
	(void)n;
	strcat(strcat(ctx, path), ": ");
	return 0;
}

static int walk_log(char *const *words, size_t n, bool linker_values, char *log)
{
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_rsp_memo m = OFL_RSP_MEMO_INIT;
	const struct ofl_rsp_walker w = {log_word, log_file, log, linker_values};
	*log = '\0';
	int rc = ofl_rsp_walk(&w, words, n, &m, &e);
	ofl_rsp_memo_release(&m);
	return rc;
}

/* -Wl,@FILE is followed only for a linker's words; a callback's code
 * ends the walk. */
OFL_TEST(argv_rsp_walk)
{
	struct ofl_error e = OFL_ERROR_INIT;
	char *words[] = {"-Wl,@w1", "@absent", "x"}, log[256];
	CHECK_EQ_U(ofl_write_file("w1", "y @w2 stop", 10, &e), 0);
	CHECK_EQ_U(ofl_write_file("w2", "z", 1, &e), 0);
	CHECK_EQ_U(walk_log(words, 3, false, log), 0);
	CHECK_STR(log, "-Wl,@w1 @absent? x ");
	CHECK_EQ_U(walk_log(words, 3, true, log), 7);
	CHECK_STR(log, "w1: y w2: z stop ");
}
