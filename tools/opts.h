/* Declarative option tables.  Options are spelled the LLVM cl way: one dash
 * or two, values after '=' or in the next argument.  A personality gets its
 * own table; every table fills the same option structs. */
#ifndef OFL_OPTS_H
#define OFL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct strlist {
	const char **v;
	size_t n;
};

/* The list owns copies of what is pushed; strlist_release frees them. */
void strlist_push(struct strlist *l, const char *s);
/* Appends each comma-separated piece of s (s itself is not modified). */
void strlist_push_csv(struct strlist *l, const char *s);
void strlist_release(struct strlist *l);

enum opt_type {
	OPT_FLAG,    /* bool; also accepts =true/=false/=1/=0 */
	OPT_STR,     /* const char *; last one wins */
	OPT_LIST,    /* struct strlist, one value per occurrence */
	OPT_CSV,     /* struct strlist, comma-split, may repeat */
	OPT_UINT,    /* unsigned long long */
	OPT_INT,     /* long long */
	OPT_HELP,    /* prints help: the table's, or dest's text when set */
	OPT_VERSION, /* prints the version (print_version), with dest's text when set */
};

struct opt {
	const char *name; /* without dashes; a one-letter name also matches -xVALUE */
	enum opt_type type;
	void *dest;
	int *count; /* optional: incremented on each occurrence */
	const char *meta;
	const char *help; /* NULL hides the option from --help */
};

/* Parses argv[1..]; non-options go to positional.  On error prints
 * "<prog>: <msg>" the LLVM way (an unknown option with the table's nearest,
 * "Did you mean '--name'?", as LLVM's tools suggest) and returns 1; returns 2
 * after printing help or the version, 0 otherwise.  A lone "-" is
 * positional; "--" ends options. */
int opts_parse(const struct opt *table, int argc, char **argv, struct strlist *positional,
               const char *usage, const char *overview);
void opts_print_help(const struct opt *table, FILE *f, const char *usage, const char *overview);

/* The LLVM release a personality acts as (docs/llvm-releases.md), one rule
 * for all: given, the release asked for (--llvm-version=N or
 * $OFFLINK_LLVM_VERSION; 0 when neither); else a "-N" suffix of argv0's
 * file name (llvm-offload-binary-23); else the release of the clang that
 * runs it, its parent process (offlink/driver.h); else 22.  A release
 * offlink has no behaviour of its own for acts as the nearest below it
 * that it has (20 and 21 as 22, 24 and later as 23), older ones as 19. */
unsigned personality_release(const char *argv0, unsigned asked);
/* The release personality_release starts from, before that mapping (the
 * default 22 included), for a tool whose history differs: the packager
 * was renamed in 22, so clang 20 and 21 run LLVM 19's. */
unsigned personality_release_raw(const char *argv0, unsigned asked);
/* The release --llvm-version=N names (19, 22 or 23), or 0 after printing
 * the error for any other N. */
unsigned llvm_release_option(unsigned long long n);

/* --version of every front end, on stdout: "offlink X.Y.Z", or "<name>
 * (offlink X.Y.Z)" under another name (ld.offlink, a personality: ofl_prog's
 * file name), then about, when given, on a line of its own. */
void print_version(const char *about);

#endif
