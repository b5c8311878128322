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

int ofl_ptrs_push(struct ofl_ptrs *o, void *p)
{
	if (OFL_GROW(o->v, o->cap, o->n)) {
		free(p);
		return -1;
	}
	o->v[o->n++] = p;
	return 0;
}

void ofl_ptrs_release(struct ofl_ptrs *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i]);
	free(o->v);
	*o = (struct ofl_ptrs)OFL_PTRS_INIT;
}
