/* Error reporting for libofflink.
 *
 * The library never prints and never exits.  Every fallible function returns
 * 0 on success or a negative OFL_E* code, and fills a caller-provided
 * struct ofl_error.  The first error recorded wins: callers that add context
 * do so with ofl_error_prefix(), which never replaces the original cause.
 * Filling an error never allocates.
 */
#ifndef OFFLINK_ERROR_H
#define OFFLINK_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_errcode {
	OFL_OK = 0,
	OFL_EFORMAT = -1,      /* malformed input bytes */
	OFL_EIO = -2,          /* system call failed; sys_errno says why */
	OFL_ENOMEM = -3,       /* allocation failed */
	OFL_EUNSUPPORTED = -4, /* well-formed but not handled (version, method) */
	OFL_EINVAL = -5,       /* bad argument or option value */
	OFL_ENOTFOUND = -6,    /* a requested item is absent */
	OFL_ECHILD = -7,       /* a child process failed */
};

#define OFL_ERROR_MSG_MAX 512
#define OFL_ERROR_PATH_MAX 1024
#define OFL_NO_OFFSET UINT64_MAX

struct ofl_error {
	int code;                      /* OFL_E*, 0 when no error has been recorded */
	int sys_errno;                 /* errno for OFL_EIO, else 0 */
	uint64_t offset;               /* byte offset in the file, or OFL_NO_OFFSET */
	char path[OFL_ERROR_PATH_MAX]; /* file the error is about, may be "" */
	char msg[OFL_ERROR_MSG_MAX];   /* what went wrong, lower case, no period */
};

#define OFL_ERROR_INIT                                                                             \
	{                                                                                          \
		0, 0, UINT64_MAX, "", ""                                                           \
	}

void ofl_error_clear(struct ofl_error *err);

/* Records an error unless one is already recorded.  Returns code, so that
 * `return ofl_error_set(err, OFL_EFORMAT, path, off, "...")` reads naturally.
 * path and err may be NULL. */
int ofl_error_set(struct ofl_error *err, int code, const char *path, uint64_t offset,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Like ofl_error_set with code OFL_EIO; appends strerror(errno). */
int ofl_error_errno(struct ofl_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets path (and offset) if the recorded error has none: lower layers often
 * parse an in-memory buffer and do not know the file name. */
void ofl_error_locate(struct ofl_error *err, const char *path, uint64_t base_offset);

/* Prepends "<prefix>: " to the message. */
void ofl_error_prefix(struct ofl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Formats "<path>: <msg>[ at offset N]" into out, made printable
 * (ofl_printable): a name from an input cannot forge a line. */
void ofl_error_format(const struct ofl_error *err, char *out, unsigned long outsz);

/* Copies in to out (NUL-terminated, truncated to outsz) with control
 * characters written as escapes ("\n", "\x1b"), so that text taken from an
 * input can neither start a diagnostic line of its own nor drive a
 * terminal; keep_newlines leaves '\n' for text of several lines (a tool's
 * output).  Idempotent: its output has nothing left to escape. */
void ofl_printable(const char *in, char *out, unsigned long outsz, bool keep_newlines);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
