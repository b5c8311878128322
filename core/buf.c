#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "offlink/buf.h"

int ofl_buf_reserve(struct ofl_buf *b, size_t extra)
{
	/* storage even for 0 bytes: data + len is then always a pointer, never
	 * NULL + 0 (undefined, and what a sanitizer stops on) */
	if (b->data && extra <= b->cap - b->len)
		return 0;
	size_t need;
	if (__builtin_add_overflow(b->len, extra, &need))
		return OFL_ENOMEM;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	uint8_t *p = ofl_realloc(b->data, cap);
	if (!p)
		return OFL_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int ofl_buf_append(struct ofl_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (ofl_buf_reserve(b, n))
		return OFL_ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int ofl_buf_append_str(struct ofl_buf *b, const char *s)
{
	return ofl_buf_append(b, s, strlen(s));
}

int ofl_buf_append_json(struct ofl_buf *b, const char *s, size_t n)
{
	int rc = ofl_buf_append(b, "\"", 1);
	for (size_t i = 0; !rc && i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			rc = ofl_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			rc = ofl_buf_printf(b, "\\u%04x", c);
		else
			rc = ofl_buf_append(b, &c, 1);
	}
	return rc ? rc : ofl_buf_append(b, "\"", 1);
}

int ofl_buf_append_zeros(struct ofl_buf *b, size_t n)
{
	if (n == 0)
		return 0;
	if (ofl_buf_reserve(b, n))
		return OFL_ENOMEM;
	memset(b->data + b->len, 0, n);
	b->len += n;
	return 0;
}

int ofl_buf_append_u32le(struct ofl_buf *b, uint32_t v)
{
	uint8_t t[4];
	ofl_put_le32(t, v);
	return ofl_buf_append(b, t, 4);
}

int ofl_buf_append_u64le(struct ofl_buf *b, uint64_t v)
{
	uint8_t t[8];
	ofl_put_le64(t, v);
	return ofl_buf_append(b, t, 8);
}

int ofl_buf_vprintf(struct ofl_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	int rc = n < 0 || ofl_buf_reserve(b, (size_t)n + 1) ? OFL_ENOMEM : 0;
	if (!rc) {
		vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
	return rc;
}

int ofl_buf_printf(struct ofl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = ofl_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int ofl_buf_align(struct ofl_buf *b, uint64_t align)
{
	uint64_t to;
	if (!ofl_align_up(b->len, align, &to))
		return OFL_ENOMEM;
	return ofl_buf_append_zeros(b, (size_t)(to - b->len));
}

void ofl_buf_reset(struct ofl_buf *b)
{
	b->len = 0;
}

void ofl_buf_release(struct ofl_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

uint8_t *ofl_buf_detach(struct ofl_buf *b, size_t *len)
{
	uint8_t *p = b->data;
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
