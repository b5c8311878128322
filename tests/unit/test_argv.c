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
