/* A set of symbol names with a small value each, for the link pipeline's
 * symbol resolution: open addressing on xxh3, names copied into the set. */
#ifndef OFL_SYMSET_H
#define OFL_SYMSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ofl_symslot {
	uint64_t hash;
	char *name; /* owned; NULL: empty slot */
	uint32_t value;
};

struct ofl_symset {
	size_t n, cap; /* cap: 0 or a power of two */
	struct ofl_symslot *slots;
};

#define OFL_SYMSET_INIT                                                                            \
	{                                                                                          \
		0, 0, NULL                                                                         \
	}

/* The slot of name, or NULL. */
struct ofl_symslot *ofl_symset_find(const struct ofl_symset *s, const char *name);

/* Inserts name with value unless present; *slot is the (new or old) slot,
 * *added tells which.  OFL_ENOMEM when out of memory. */
int ofl_symset_add(struct ofl_symset *s, const char *name, uint32_t value,
                   struct ofl_symslot **slot, bool *added);

void ofl_symset_release(struct ofl_symset *s);

#endif
