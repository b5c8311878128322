#include <stdlib.h>

#include "internal.h"

void *ofl_malloc(size_t n)
{
	return malloc(n ? n : 1);
}

void *ofl_calloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

void *ofl_realloc(void *p, size_t n)
{
	return realloc(p, n ? n : 1);
}

char *ofl_strndup(const char *s, size_t n)
{
	char *r = ofl_malloc(n + 1);
	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

char *ofl_strdup(const char *s)
{
	return ofl_strndup(s, strlen(s));
}
