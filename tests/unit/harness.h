/* Minimal unit-test harness: each test_<module>.c defines OFL_TEST(name)
 * functions; they register themselves and harness.c runs them all, each in
 * a fresh scratch directory (the process's cwd). */
#ifndef OFL_TEST_HARNESS_H
#define OFL_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offlink/buf.h"

typedef void (*ofl_test_fn)(void);
void ofl_test_register(const char *name, ofl_test_fn fn);
extern int ofl_test_failed;
/* The bytes of tests/fixtures/<rel> (beside this harness; $OFL_SRC
 * overrides); empty, with a message, when it cannot be read. */
struct ofl_buf ofl_test_fixture(const char *rel);

#define OFL_TEST(name)                                                                             \
	static void name(void);                                                                    \
	__attribute__((constructor)) static void name##_reg(void)                                  \
	{                                                                                          \
		ofl_test_register(#name, name);                                                    \
	}                                                                                          \
	static void name(void)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			ofl_test_failed = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U(a, b)                                                                           \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);     \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__,      \
			        __LINE__, #a, a_, #b, b_);                                         \
			ofl_test_failed = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                           \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,        \
			        __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");             \
			ofl_test_failed = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_MEM(a, b, n)                                                                         \
	do {                                                                                       \
		if (memcmp((a), (b), (n)) != 0) {                                                  \
			fprintf(stderr, "%s:%d: bytes differ: %s vs %s\n", __FILE__, __LINE__, #a, \
			        #b);                                                               \
			ofl_test_failed = 1;                                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#endif
