/* A growable byte buffer.
 *
 * Invariants: data is NULL only while cap == 0; len <= cap.  OFL_BUF_INIT
 * gives an empty buffer that owns nothing.  ofl_buf_release frees the bytes
 * and returns the buffer to the initial state; ofl_buf_detach hands the bytes
 * to the caller (who frees them with free()).  Appending functions return 0
 * or OFL_ENOMEM and leave the buffer unchanged on failure.
 */
#ifndef OFFLINK_BUF_H
#define OFFLINK_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

#define OFL_BUF_INIT                                                                               \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* Separately allocated blocks owned together: elements keep their
 * addresses however the vector grows.  Freed with the owning object. */
struct ofl_ptrs {
	size_t n, cap;
	void **v;
};

#define OFL_PTRS_INIT                                                                              \
	{                                                                                          \
		0, 0, NULL                                                                         \
	}

/* Room for extra more bytes at data + len; afterwards data is never NULL,
 * even for extra 0.  OFL_ENOMEM or 0. */
int ofl_buf_reserve(struct ofl_buf *b, size_t extra);
int ofl_buf_append(struct ofl_buf *b, const void *p, size_t n);
int ofl_buf_append_str(struct ofl_buf *b, const char *s);
int ofl_buf_append_zeros(struct ofl_buf *b, size_t n);
int ofl_buf_append_u32le(struct ofl_buf *b, uint32_t v);
int ofl_buf_append_u64le(struct ofl_buf *b, uint64_t v);
int ofl_buf_vprintf(struct ofl_buf *b, const char *fmt, va_list ap);
int ofl_buf_printf(struct ofl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s[0..n) as a JSON string, quoted: bytes that are not printable ASCII
 * become \u00XX (read as Latin-1), so the output is valid JSON whatever
 * the bytes are. */
int ofl_buf_append_json(struct ofl_buf *b, const char *s, size_t n);
/* Pads with zero bytes up to a multiple of align (any align >= 1). */
int ofl_buf_align(struct ofl_buf *b, uint64_t align);
void ofl_buf_reset(struct ofl_buf *b);
void ofl_buf_release(struct ofl_buf *b);
uint8_t *ofl_buf_detach(struct ofl_buf *b, size_t *len);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
