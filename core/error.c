#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void ofl_error_clear(struct ofl_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->sys_errno = 0;
	err->offset = OFL_NO_OFFSET;
	err->path[0] = '\0';
	err->msg[0] = '\0';
}

static void set_path(struct ofl_error *err, const char *path)
{
	if (path)
		snprintf(err->path, sizeof err->path, "%s", path);
}

int ofl_error_set(struct ofl_error *err, int code, const char *path, uint64_t offset,
                  const char *fmt, ...)
{
	if (!err || err->code)
		return code;
	err->code = code;
	err->offset = offset;
	set_path(err, path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return code;
}

int ofl_error_errno(struct ofl_error *err, const char *path, const char *fmt, ...)
{
	int saved = errno;
	if (!err || err->code)
		return OFL_EIO;
	char what[OFL_ERROR_MSG_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	err->sys_errno = saved;
	return ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET, "%s: %s", what, strerror(saved));
}

void ofl_error_locate(struct ofl_error *err, const char *path, uint64_t base_offset)
{
	if (!err || !err->code)
		return;
	if (!err->path[0])
		set_path(err, path);
	if (err->offset != OFL_NO_OFFSET && base_offset)
		err->offset += base_offset;
}

void ofl_error_prefix(struct ofl_error *err, const char *fmt, ...)
{
	if (!err || !err->code)
		return;
	char pre[OFL_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	char old[OFL_ERROR_MSG_MAX];
	memcpy(old, err->msg, sizeof old);
	size_t pl = strlen(pre);
	if (pl + 2 >= sizeof err->msg)
		pl = sizeof err->msg - 3;
	memcpy(err->msg, pre, pl);
	memcpy(err->msg + pl, ": ", 2);
	size_t room = sizeof err->msg - pl - 3;
	size_t ol = strnlen(old, room);
	memcpy(err->msg + pl + 2, old, ol);
	err->msg[pl + 2 + ol] = '\0';
}

void ofl_error_format(const struct ofl_error *err, char *out, unsigned long outsz)
{
	char where[64] = "", raw[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	if (err->offset != OFL_NO_OFFSET)
		snprintf(where, sizeof where, " at offset %llu", (unsigned long long)err->offset);
	if (err->path[0])
		snprintf(raw, sizeof raw, "%s: %s%s", err->path, err->msg, where);
	else
		snprintf(raw, sizeof raw, "%s%s", err->msg, where);
	ofl_printable(raw, out, outsz, false);
}

/* A C1 control in UTF-8 (U+0080..U+009F: C2 80..C2 9F), which terminals
 * obey as they do ESC sequences. */
static bool c1_control(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

void ofl_printable(const char *in, char *out, unsigned long outsz, bool keep_newlines)
{
	unsigned long n = 0;
	if (!outsz)
		return;
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		bool c1 = c1_control(p);
		unsigned ch = c1 ? p[1] : *p;
		char esc[8];
		size_t len = 1;
		if (!c1 &&
		    ((ch >= 0x20 && ch != 0x7f) || ch == '\t' || (ch == '\n' && keep_newlines)))
			esc[0] = (char)ch;
		else if (ch == '\n' || ch == '\r')
			len = (size_t)snprintf(esc, sizeof esc, "\\%c", ch == '\n' ? 'n' : 'r');
		else
			len = (size_t)snprintf(esc, sizeof esc, "\\x%02x", ch);
		if (n + len >= outsz)
			break;
		memcpy(out + n, esc, len);
		n += len;
		p += c1;
	}
	out[n] = '\0';
}
