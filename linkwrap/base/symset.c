#include <stdlib.h>
#include <xxhash.h>

#include "internal.h"
#include "symset.h"

static struct ofl_symslot *probe(const struct ofl_symset *s, const char *name, uint64_t h)
{
	size_t mask = s->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct ofl_symslot *e = &s->slots[i];
		if (!e->name || (e->hash == h && !strcmp(e->name, name)))
			return e;
	}
}

struct ofl_symslot *ofl_symset_find(const struct ofl_symset *s, const char *name)
{
	if (!s->cap)
		return NULL;
	struct ofl_symslot *e = probe(s, name, XXH3_64bits(name, strlen(name)));
	return e->name ? e : NULL;
}

/* Keeps the load under one half, so probes stay short. */
static int grow(struct ofl_symset *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
	struct ofl_symslot *old = s->slots;
	struct ofl_symset t = {s->n, ncap, ofl_calloc(ncap, sizeof(*old))};
	if (!t.slots)
		return OFL_ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (old[i].name)
			*probe(&t, old[i].name, old[i].hash) = old[i];
	free(old);
	*s = t;
	return 0;
}

int ofl_symset_add(struct ofl_symset *s, const char *name, uint32_t value,
                   struct ofl_symslot **slot, bool *added)
{
	if (2 * (s->n + 1) > s->cap && grow(s))
		return OFL_ENOMEM;
	uint64_t h = XXH3_64bits(name, strlen(name));
	struct ofl_symslot *e = probe(s, name, h);
	*added = !e->name;
	if (*added) {
		if (!(e->name = ofl_strdup(name)))
			return OFL_ENOMEM;
		e->hash = h;
		e->value = value;
		s->n++;
	}
	*slot = e;
	return 0;
}

void ofl_symset_release(struct ofl_symset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].name);
	free(s->slots);
	*s = (struct ofl_symset)OFL_SYMSET_INIT;
}
