/* Command lines with @FILE response files expanded, as GNU libiberty and
 * LLVM's tools (GNU tokenizer) do: each @FILE word that names a readable
 * file is replaced by the words of that file, recursively; words split at
 * white space, quotes ('...' or "...") group, a backslash escapes the next
 * character (bare and inside either quotes; one that ends the file stays).
 * An @word naming no readable file stays as it is. */
#ifndef OFFLINK_ARGV_H
#define OFFLINK_ARGV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Owned words; an entry may be set to NULL by a caller that takes it. */
struct ofl_argv {
	char **v;
	size_t n, cap;
};

#define OFL_ARGV_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Response files are bounded alike wherever they are read: 64 files deep
 * (one naming itself must end in an error, not in memory exhaustion),
 * 2000 files (as ld.bfd stops) and 256 MiB read in one expansion (files
 * naming each other many times grow exponentially), far beyond any real
 * link line. */
#define OFL_RSP_MAX_DEPTH 64
#define OFL_RSP_MAX_FILES 2000u
#define OFL_RSP_MAX_BYTES ((size_t)256 << 20)

enum ofl_rsp_state {
	OFL_RSP_READ,    /* its bytes */
	OFL_RSP_NONE,    /* nothing to read: absent, unreadable, a folder */
	OFL_RSP_SPECIAL, /* no regular file (a device may never end): not read */
	OFL_RSP_HUGE,    /* larger than OFL_RSP_MAX_BYTES: not read */
};

/* A response file as read: what was there, its bytes (n and a NUL) and
 * its stat when read. */
struct ofl_rsp_file {
	char *path;
	enum ofl_rsp_state state;
	char *text;
	size_t n;
	struct stat st;
};

/* Response files each read once, for whatever reads them after (a link:
 * its command line's and its device actions'). */
struct ofl_rsp_memo {
	struct ofl_rsp_file *v;
	size_t n, cap;
};

#define OFL_RSP_MEMO_INIT                                                                          \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* path as m read it; NULL when it did not (nothing is read). */
const struct ofl_rsp_file *ofl_rsp_find(const struct ofl_rsp_memo *m, const char *path);
void ofl_rsp_memo_release(struct ofl_rsp_memo *m);

/* What a walk over words and their response files does with them. */
struct ofl_rsp_walker {
	/* a word not expanded: one naming no response file, or (absent) an
	 * @FILE naming nothing there; 0 goes on */
	int (*word)(void *ctx, const char *word, bool absent);
	/* a response file expanded, its text (n bytes), before its words
	 * (NULL: nothing); 0 goes on */
	int (*file)(void *ctx, const char *path, const char *text, size_t n);
	void *ctx;
	bool linker_values; /* -Wl,@FILE names one too (clang hands it the linker) */
};

/* Walks words[0..n) depth first, each response file they name in the
 * place of its word, read through m and within the bounds above (the
 * one reader of response files).  0, the first non-zero a callback
 * returned, OFL_ENOMEM, or OFL_EINVAL past the bounds (a file naming
 * itself) or for a file that is no regular one. */
int ofl_rsp_walk(const struct ofl_rsp_walker *w, char *const *words, size_t n,
                 struct ofl_rsp_memo *m, struct ofl_error *err);

/* Appends the expansion of argv[0..argc) to out, its files read through m
 * (NULL: a memo of its own).  Errors: OFL_ENOMEM, and OFL_EINVAL past the
 * bounds (a file naming itself) or for a file that is no regular one. */
int ofl_argv_expand(struct ofl_argv *out, int argc, char *const *argv, struct ofl_rsp_memo *m,
                    struct ofl_error *err);
/* Appends a copy of s.  OFL_ENOMEM or 0. */
int ofl_argv_push(struct ofl_argv *a, const char *s, struct ofl_error *err);
void ofl_argv_release(struct ofl_argv *a);

#ifdef __cplusplus
}
#endif
#endif
