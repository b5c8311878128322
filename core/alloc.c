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

int ofl_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / elem)
		return -1;
	void *p = ofl_realloc(*v, ncap * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}
