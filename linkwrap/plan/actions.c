/* What the device actions of a plan are made of (plan/devcmd.c,
 * plan/lto19.c): the actions themselves, the files of the link's own that
 * their commands read, written only when one runs (never for one the
 * cache answers: creating files is most of a cached link's time), and
 * LLVM 19's optimisation level. */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "internal.h"
#include "link_priv.h"

struct link_action *ofl_devlink_new_action(struct ofl_link *l, size_t gi, bool lto,
                                           struct ofl_proc *cmd, struct ofl_error *err)
{
	if (OFL_GROW(l->actions, l->capactions, l->nactions)) {
		OFL_NOMEM(err);
		return NULL;
	}
	struct link_group *g = &l->groups[gi];
	struct link_action *a = &l->actions[l->nactions];
	*a = (struct link_action){.group = gi, .lto = lto};
	/* it reads what the group's previous action wrote */
	if (g->nactions && !(a->deps = ofl_calloc(1, sizeof(*a->deps)))) {
		OFL_NOMEM(err);
		return NULL;
	}
	if (g->nactions)
		a->deps[a->ndeps++] = l->nactions - 1;
	a->cmd = *cmd;
	*cmd = (struct ofl_proc)OFL_PROC_INIT;
	snprintf(a->what, sizeof(a->what), "%s for %s%s%s", lto ? "LTO" : "device link", g->triple,
	         *g->arch ? " " : "", g->arch);
	if (!g->nactions)
		g->first_action = l->nactions;
	g->nactions++;
	l->nactions++;
	return a;
}

void ofl_devlink_drop_last(struct ofl_link *l)
{
	struct link_action *a = &l->actions[--l->nactions];
	l->groups[a->group].nactions--;
	ofl_action_release(a);
}

/* The bytes of a file of group gi's commands, to write before they run. */
int ofl_devlink_defer(struct ofl_link *l, size_t gi, const char *path, const uint8_t *data,
                      size_t size, uint8_t *owned, struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	if (l->o.dry_run) {
		free(owned);
		return 0;
	}
	if (OFL_GROW(g->pending, g->cappending, g->npending)) {
		free(owned);
		return OFL_NOMEM(err);
	}
	g->pending[g->npending++] = (struct pending_write){path, data, size, owned, false};
	return 0;
}

struct pending_write *ofl_devlink_pending(const struct link_group *g, const char *path,
                                          size_t *next)
{
	for (size_t n = 0; n < g->npending; n++) {
		size_t i = (*next + n) % g->npending;
		if (!strcmp(g->pending[i].path, path)) {
			*next = i + 1;
			return &g->pending[i];
		}
	}
	return NULL;
}

char *ofl_devlink_input(struct ofl_link *l, size_t gi, const struct link_image *im, uint64_t *hash,
                        struct ofl_error *err)
{
	char name[64];
	*hash = XXH3_64bits(im->b.image, im->b.image_size);
	/* ".o" for every kind: clang links .o inputs (bitcode by LTO) where
	 * it would compile a .bc */
	snprintf(name, sizeof(name), "%016llx.o", (unsigned long long)*hash);
	char *path = ofl_link_temp(l, name, err);
	if (path && ofl_devlink_defer(l, gi, path, im->b.image, im->b.image_size, NULL, err))
		path = NULL;
	return path;
}

/* LLVM 19's driver maps clang's O group to its wrapper's --opt-level as
 * clang does for LTO (observed with clang-19 -###): -O4 and up and -Ofast
 * O3, -Os and -Oz O2, -Og O1; none: O2. */
char ofl_devlink_opt_level(const struct ofl_link *l)
{
	const char *x = l->o.opt_level;
	if (x[0] >= '0' && x[0] <= '9')
		return x[0] > '3' ? '3' : x[0];
	return !strcmp(x, "fast") ? '3' : !strcmp(x, "g") ? '1' : '2';
}
