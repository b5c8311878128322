#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

const char *ofl_prog = "offlink";

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", ofl_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
	fprintf(stderr, "%s: warning: ", ofl_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
