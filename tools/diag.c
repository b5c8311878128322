#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

const char *ofl_prog = "offlink";

const char *prog_base(void)
{
	const char *s = strrchr(ofl_prog, '/');
	return s ? s + 1 : ofl_prog;
}

/* One diagnostic line, "<prog>: <kind>: <msg>" (no kind: "<prog>: <msg>"):
 * what it quotes from inputs (names, triples) is made printable, so it can
 * neither forge a line nor drive the terminal. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	const char *sep = *kind ? ": " : "";
	char *raw = NULL;
	if (vasprintf(&raw, fmt, ap) < 0) {
		fprintf(stderr, "%s: %s%sout of memory\n", ofl_prog, kind, sep);
		return;
	}
	size_t n = 4 * strlen(raw) + 1;
	char *text = malloc(n);
	if (text)
		ofl_printable(raw, text, n, false);
	fprintf(stderr, "%s: %s%s%s\n", ofl_prog, kind, sep, text ? text : raw);
	free(text);
	free(raw);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("error", fmt, ap);
	va_end(ap);
	return 1;
}

int error_lib(const struct ofl_error *err)
{
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	ofl_error_format(err, msg, sizeof msg);
	return error("%s", msg);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}
