/* Groups and wraps of a plan: images grouped by offload kind and target,
 * as the LLVM that wrote them groups them (docs/design.md, "Groups"); each
 * group's LLVM release and runtime directory; per offload kind the
 * registration ABI the taken host objects ask for and the order its images
 * are bundled in; the runtime libraries the host link gets. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "link_priv.h"

static unsigned llvm_of_needs(unsigned abis)
{
	return abis & (1u << OFL_WRAP_LLVM19) ? 19 : 0;
}

/* Only LLVM main writes amdgpu triples: images it wrote are grouped by
 * its rules, all the link's (it reads 22's amdgcn ones alike). */
static bool main_rules(const struct ofl_link *l)
{
	for (size_t i = 0; i < l->nimages; i++)
		if (!strncmp(l->images[i].triple, "amdgpu", 6) || l->images[i].llvm >= 24)
			return true;
	return false;
}

/* An archive member the host link takes only when it needs it: what
 * LLVM's wrapper calls lazy (--whole-archive members are objects to it). */
static bool lazy(const struct ofl_link *l, const struct link_image *im)
{
	const struct link_file *f = &l->files[l->units[im->unit].file];
	return f->kind == FILE_ARCHIVE && !f->in.whole_archive && !f->in.pulled;
}

/* An image placed in a group: own when the group is of its target (its
 * key, or one equivalent), else copied in as one its code serves. */
struct placed {
	size_t group, image;
	bool own;
};

/* Which groups may an image's code serve: those whose target has its
 * name (an AMDGPU processor under main's rules, else the arch before any
 * ':'), those of any target ("generic" arch, or no processor), and under
 * main's rules those of the family whose major one it is (gfx9-generic:
 * gfx900's); an image of any target may serve all.  Groups are chained by
 * name and by family (a symset holds each chain's first group), so
 * placing an image does not look at every group: 40 000 arches are 40 000
 * groups. */
struct grouping {
	struct ofl_link *l;
	bool main;                      /* LLVM main's rules, else 22's */
	struct ofl_offload_target *tgt; /* each image's */
	struct gmeta {
		size_t rep;                 /* its first image */
		size_t next_name, next_fam; /* the chains, SIZE_MAX at their end */
		size_t stamp;               /* 1 + the image last placed in it */
	} * gm;
	size_t capgm;
	struct ofl_symset exact;  /* 22's key -> group */
	struct ofl_symset chains; /* a chain's key -> its first group */
	struct ofl_buf key;
	struct placed *pl;
	size_t npl, cappl;
};

/* 22's key of (kind, triple, arch); the triple's length keeps "a" + "bc"
 * apart from "ab" + "c". */
static int exact_key(struct ofl_buf *key, const struct link_image *im)
{
	ofl_buf_reset(key);
	return ofl_buf_printf(key, "%u:%zu:%s%s", im->b.offload_kind, strlen(im->triple),
	                      im->triple, im->arch);
}

/* The name image i is chained under, into out. */
static void name_of(const struct grouping *gp, size_t i, char *out, size_t size)
{
	const struct ofl_offload_target *t = &gp->tgt[i];
	if (gp->main && t->amdgpu)
		snprintf(out, size, "%s", t->processor);
	else
		snprintf(out, size, "%.*s", (int)strcspn(t->arch, ":"), t->arch);
}

static bool any_name(const char *name)
{
	return !*name || !strcmp(name, "generic");
}

/* The first group of chain (what, kind, name), SIZE_MAX when none; slot
 * (optional): its symset entry, made when make and there is none. */
static int chain(struct grouping *gp, char what, uint16_t kind, const char *name, bool make,
                 struct ofl_symslot **slot, size_t *first)
{
	ofl_buf_reset(&gp->key);
	if (ofl_buf_printf(&gp->key, "%c%u:%s", what, kind, name))
		return OFL_ENOMEM;
	struct ofl_symslot *s = ofl_symset_find(&gp->chains, (const char *)gp->key.data);
	bool added;
	if (!s && make &&
	    ofl_symset_add(&gp->chains, (const char *)gp->key.data, UINT32_MAX, &s, &added))
		return OFL_ENOMEM;
	*first = s && s->value != UINT32_MAX ? s->value : SIZE_MAX;
	if (slot)
		*slot = s;
	return 0;
}

/* Image i's own group: of its key (22), or the first one its target is
 * equivalent to (main: amdgcn-amd-amdhsa gfx90a and amdgpu9.0a-amd-amdhsa
 * are one); SIZE_MAX when none. */
static int find_own(struct grouping *gp, size_t i, size_t *g)
{
	const struct ofl_link *l = gp->l;
	*g = SIZE_MAX;
	if (!gp->main) {
		if (exact_key(&gp->key, &l->images[i]))
			return OFL_ENOMEM;
		struct ofl_symslot *s = ofl_symset_find(&gp->exact, (const char *)gp->key.data);
		*g = s ? s->value : SIZE_MAX;
		return 0;
	}
	char name[64];
	size_t k;
	name_of(gp, i, name, sizeof(name));
	int rc = chain(gp, 'N', l->images[i].b.offload_kind, name, false, NULL, &k);
	for (; !rc && k != SIZE_MAX; k = gp->gm[k].next_name)
		if (k < *g && ofl_targets_equivalent(&gp->tgt[i], &gp->tgt[gp->gm[k].rep]))
			*g = k;
	return rc;
}

/* Group g at the head of chain (what, kind, name); *next its link. */
static int link_chain(struct grouping *gp, char what, uint16_t kind, const char *name, size_t g,
                      size_t *next)
{
	struct ofl_symslot *s;
	int rc = chain(gp, what, kind, name, true, &s, next);
	if (!rc)
		s->value = (uint32_t)g;
	return rc;
}

/* A new group of image i's target, named after it. */
static int new_group(struct grouping *gp, size_t i, size_t *g)
{
	struct ofl_link *l = gp->l;
	const struct link_image *im = &l->images[i];
	struct ofl_symslot *s;
	bool added;
	if (OFL_GROW(l->groups, l->capgroups, l->ngroups) ||
	    OFL_GROW(gp->gm, gp->capgm, l->ngroups))
		return OFL_ENOMEM;
	*g = l->ngroups;
	char name[64];
	name_of(gp, i, name, sizeof(name));
	struct gmeta *m = &gp->gm[*g];
	*m = (struct gmeta){i, SIZE_MAX, SIZE_MAX, 0};
	const char *fam = gp->tgt[i].family;
	if ((!gp->main &&
	     (exact_key(&gp->key, im) ||
	      ofl_symset_add(&gp->exact, (const char *)gp->key.data, (uint32_t)*g, &s, &added))) ||
	    link_chain(gp, 'N', im->b.offload_kind, name, *g, &m->next_name) ||
	    (gp->main && *fam && link_chain(gp, 'F', im->b.offload_kind, fam, *g, &m->next_fam)))
		return OFL_ENOMEM;
	l->ngroups++;
	memset(&l->groups[*g], 0, sizeof(l->groups[*g]));
	l->groups[*g].linked = (struct ofl_file)OFL_FILE_INIT; /* no descriptor 0 */
	l->groups[*g].kind = im->b.offload_kind;
	l->groups[*g].legacy = im->legacy;
	l->groups[*g].triple = im->triple;
	l->groups[*g].arch = im->arch;
	return 0;
}

/* Image i into group g, once. */
static int place(struct grouping *gp, size_t g, size_t i, bool own)
{
	if (gp->gm[g].stamp == i + 1)
		return 0;
	gp->gm[g].stamp = i + 1;
	if (OFL_GROW(gp->pl, gp->cappl, gp->npl))
		return OFL_ENOMEM;
	gp->pl[gp->npl++] = (struct placed){g, i, own};
	return 0;
}

/* May image i's code serve group g: 22's compatible targets, or main's
 * "provides for". */
static bool serves(const struct grouping *gp, size_t i, size_t g)
{
	const struct ofl_offload_target *t = &gp->tgt[i], *gt = &gp->tgt[gp->gm[g].rep];
	return gp->l->groups[g].kind == gp->l->images[i].b.offload_kind &&
	       (gp->main ? ofl_target_provides(t, gt) : ofl_targets_compatible22(t, gt));
}

/* What is done with each group image i serves. */
typedef int (*group_fn)(struct grouping *gp, size_t i, size_t g, void *ctx);

/* fn for each group below `below` image i serves (a group may be visited
 * twice: fn sees to that). */
static int each_served(struct grouping *gp, size_t i, size_t below, group_fn fn, void *ctx)
{
	const struct ofl_offload_target *t = &gp->tgt[i];
	uint16_t kind = gp->l->images[i].b.offload_kind;
	char name[64];
	name_of(gp, i, name, sizeof(name));
	int rc = 0;
	size_t k;
	if (any_name(name)) {
		for (k = 0; !rc && k < below; k++)
			rc = serves(gp, i, k) ? fn(gp, i, k, ctx) : 0;
		return rc;
	}
	bool major = gp->main && *t->family && !strcmp(t->family, t->processor);
	const char *chains[][2] = {{"N", name}, {"N", "generic"}, {"N", ""}, {"F", t->processor}};
	for (size_t c = 0; !rc && c < (major ? 4 : 3); c++) {
		rc = chain(gp, chains[c][0][0], kind, chains[c][1], false, NULL, &k);
		for (; !rc && k != SIZE_MAX; k = c == 3 ? gp->gm[k].next_fam : gp->gm[k].next_name)
			rc = k < below && serves(gp, i, k) ? fn(gp, i, k, ctx) : 0;
	}
	return rc;
}

static int copy_in(struct grouping *gp, size_t i, size_t g, void *own)
{
	return g == *(size_t *)own ? 0 : place(gp, g, i, false);
}

/* An object: its own group (made when new); with 22's rules also a copy
 * in every group made before it whose target is compatible (so a gfx90a
 * object read after gfx90a:xnack+ and gfx90a:xnack- ones is in all three
 * links); main links it in its own only. */
static int place_object(struct grouping *gp, size_t i)
{
	size_t before = gp->l->ngroups, own;
	int rc = find_own(gp, i, &own);
	if (!rc && own == SIZE_MAX)
		rc = new_group(gp, i, &own);
	rc = rc ? rc : place(gp, own, i, true);
	return rc || gp->main ? rc : each_served(gp, i, before, copy_in, &own);
}

static int note_served(struct grouping *gp, size_t i, size_t g, void *any)
{
	(void)gp, (void)i, (void)g;
	*(bool *)any = true;
	return 0;
}

/* A lazy member makes a group of its own when asked to
 * (--offload-extract, LLVM's --should-extract) or when it serves no group
 * there is: where LLVM would drop its code, offlink links it for its own
 * target if the host link takes it (device code is never left out
 * silently). */
static int own_group_if_needed(struct grouping *gp, size_t i)
{
	size_t g;
	bool any = false;
	int rc = find_own(gp, i, &g);
	if (rc || g != SIZE_MAX)
		return rc;
	if (!ofl_link_extract_asked(gp->l, gp->l->images[i].arch) &&
	    ((rc = each_served(gp, i, gp->l->ngroups, note_served, &any)) || any))
		return rc;
	return new_group(gp, i, &g);
}

/* A lazy member joins its own group, if there is one, and every group its
 * code serves, once each. */
static int place_lazy(struct grouping *gp, size_t i)
{
	size_t own;
	int rc = find_own(gp, i, &own);
	if (!rc && own != SIZE_MAX)
		rc = place(gp, own, i, true);
	return rc ? rc : each_served(gp, i, gp->l->ngroups, copy_in, &own);
}

static int by_group_then_image(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->group != y->group)
		return (x->group > y->group) - (x->group < y->group);
	return (x->image > y->image) - (x->image < y->image);
}

/* Each group's images in input order (l->members[first .. first + nall));
 * its LLVM release from its own ones. */
static int list_members(struct grouping *gp, struct ofl_error *err)
{
	struct ofl_link *l = gp->l;
	if (gp->npl) /* no images: pl is NULL, which qsort may not be given */
		qsort(gp->pl, gp->npl, sizeof(*gp->pl), by_group_then_image);
	if (!(l->members = ofl_calloc(gp->npl + 1, sizeof(*l->members))))
		return OFL_NOMEM(err);
	for (size_t k = 0; k < gp->npl; k++) {
		struct link_group *g = &l->groups[gp->pl[k].group];
		const struct link_image *im = &l->images[gp->pl[k].image];
		if (!g->nall)
			g->first = k;
		g->nall++;
		l->members[k] = (struct link_member){gp->pl[k].image, false};
		unsigned v = im->llvm ? im->llvm : llvm_of_needs(l->units[im->unit].needs.abis);
		if (gp->pl[k].own && v > g->llvm) {
			g->llvm = v;
			g->llvm_why =
			    im->llvm ? "the images' producer" : "the objects' entry tables";
		}
	}
	return 0;
}

/* Groups every image; again after the device runtime added images, so
 * the groups are made anew (nothing hangs off them yet).  As LLVM's
 * wrapper, objects first, then archive members. */
int ofl_group_images(struct ofl_link *l, struct ofl_error *err)
{
	struct grouping gp = {l,
	                      main_rules(l),
	                      NULL,
	                      NULL,
	                      0,
	                      OFL_SYMSET_INIT,
	                      OFL_SYMSET_INIT,
	                      OFL_BUF_INIT,
	                      NULL,
	                      0,
	                      0};
	l->ngroups = 0;
	free(l->members);
	l->members = NULL;
	l->main_rules = gp.main;
	int rc = (gp.tgt = ofl_calloc(l->nimages + 1, sizeof(*gp.tgt))) ? 0 : OFL_ENOMEM;
	for (size_t i = 0; !rc && i < l->nimages; i++)
		ofl_offload_target_parse(l->images[i].triple, l->images[i].arch, &gp.tgt[i]);
	for (size_t i = 0; !rc && i < l->nimages; i++)
		rc = lazy(l, &l->images[i]) ? 0 : place_object(&gp, i);
	for (size_t i = 0; !rc && i < l->nimages; i++)
		rc = lazy(l, &l->images[i]) ? own_group_if_needed(&gp, i) : 0;
	for (size_t i = 0; !rc && i < l->nimages; i++)
		rc = lazy(l, &l->images[i]) ? place_lazy(&gp, i) : 0;
	rc = rc ? OFL_NOMEM(err) : list_members(&gp, err);
	free(gp.tgt);
	free(gp.gm);
	free(gp.pl);
	ofl_symset_release(&gp.exact);
	ofl_symset_release(&gp.chains);
	ofl_buf_release(&gp.key);
	return rc;
}

void ofl_group_count_taken(struct ofl_link *l)
{
	for (size_t g = 0; g < l->ngroups; g++)
		for (size_t k = 0; k < l->groups[g].nall; k++)
			l->groups[g].nimages += ofl_group_image(l, g, k) != NULL;
	const char *root = l->o.llvm_roots[0];
	unsigned newest = 0; /* read once, when a group needs it */
	for (size_t g = 0; g < l->ngroups; g++) {
		if (!l->groups[g].nimages)
			continue;
		/* bitcode does not say who made it: the newest LLVM reads it */
		if (!l->groups[g].llvm && root && !newest)
			newest = ofl_llvm_newest(root);
		if (!l->groups[g].llvm) {
			l->groups[g].llvm = newest;
			l->groups[g].llvm_why = "the newest installed";
		}
		l->groups[g].runtime_dir = ofl_toolchain_runtime_dir(&l->tools, l->groups[g].llvm);
		ofl_link_logf(l, OFL_LOG_DECISION, "device link %zu: %s %s, %zu image(s), LLVM %u",
		              g, l->groups[g].triple,
		              *l->groups[g].arch ? l->groups[g].arch : "(no arch)",
		              l->groups[g].nimages, l->groups[g].llvm);
	}
}

/* The ABI of the taken host objects' entry tables; with none, the one of
 * the LLVM that made the device code; SYCL's is LLVM20 (its wrapper writes
 * its kernels' entries itself). */
const char *ofl_abi_name(enum ofl_wrap_abi abi)
{
	static const char *const names[] = {"LLVM 14", "AMD", "LLVM 19", "LLVM 20-22"};
	return names[abi];
}

enum ofl_wrap_abi ofl_group_abi(const struct ofl_link *l, enum ofl_wrap_kind kind, unsigned llvm)
{
	if (kind == OFL_WRAP_SYCL) /* its entries are the wrapper's own */
		return OFL_WRAP_LLVM20;
	unsigned abis = 0;
	for (size_t u = 0; u < l->nunits; u++)
		if (l->units[u].device && l->units[u].nimages &&
		    (l->units[u].needs.kinds & (1u << kind)))
			abis |= l->units[u].needs.abis;
	return abis                         ? (enum ofl_wrap_abi)__builtin_ctz(abis)
	       : ofl_llvm_old_wrapper(llvm) ? OFL_WRAP_LLVM19
	                                    : OFL_WRAP_LLVM20;
}

/* One program cannot register the device code of objects whose entry
 * tables ask for different registrations: said before any device link
 * runs, naming one object of each. */
int ofl_group_check_abis(const struct ofl_link *l, struct ofl_error *err)
{
	for (unsigned k = OFL_WRAP_OPENMP; k <= OFL_WRAP_HIP; k++) {
		const char *first[4] = {NULL, NULL, NULL, NULL};
		unsigned seen = 0;
		for (size_t u = 0; u < l->nunits; u++) {
			const struct link_unit *un = &l->units[u];
			if (!un->device || !un->nimages || !(un->needs.kinds & (1u << k)))
				continue;
			for (unsigned a = 0; a < 4; a++)
				if ((un->needs.abis & (1u << a)) && !first[a])
					first[a] = un->name;
			seen |= un->needs.abis;
		}
		if (!(seen & (seen - 1)))
			continue;
		unsigned lo = (unsigned)__builtin_ctz(seen),
		         hi = 31u - (unsigned)__builtin_clz(seen);
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "objects made by different LLVM releases need different "
		                     "registrations: %s (%s) and %s (%s); rebuild them with one "
		                     "release",
		                     first[lo], ofl_abi_name((enum ofl_wrap_abi)lo), first[hi],
		                     ofl_abi_name((enum ofl_wrap_abi)hi));
	}
	return 0;
}

/* SYCL device code as LLVM 22 and 23 link it: one group (LLVM registers
 * the first group's image alone: the others would be left out without a
 * word), of SYCL code alone at its target (LLVM's error: it groups images
 * of every kind by target), not in a relocatable link (LLVM's llvm-objcopy
 * cannot remove .llvm.offloading, which the registration points into; a
 * dry run prints its commands). */
int ofl_group_check_sycl(const struct ofl_link *l, struct ofl_error *err)
{
	const struct link_group *sycl = NULL;
	for (size_t g = 0; g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (!gr->nimages || gr->kind != OFL_OFK_SYCL)
			continue;
		if (sycl)
			return ofl_error_set(
			    err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
			    "SYCL device code for two targets (%s %s, %s %s): LLVM "
			    "registers one SYCL image only",
			    sycl->triple, sycl->arch, gr->triple, gr->arch);
		sycl = gr;
	}
	/* LLVM groups images by target, whatever their kind: a generic one
	 * joins every group of its triple */
	for (size_t g = 0; sycl && g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (gr->nimages && gr->kind != OFL_OFK_SYCL && !strcmp(gr->triple, sycl->triple) &&
		    (!strcmp(gr->arch, sycl->arch) || !strcmp(gr->arch, "generic") ||
		     !strcmp(sycl->arch, "generic")))
			return ofl_error_set(
			    err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
			    "Linking images of SYCL offload kind with images of any "
			    "other kind is not supported");
	}
	if (sycl && l->o.relocatable && !l->o.dry_run)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "SYCL device code in a relocatable link (-r): LLVM's fails "
		                     "(llvm-objcopy cannot remove .llvm.offloading, which the SYCL "
		                     "registration points into)");
	return 0;
}

bool ofl_group_sycl_desc(const struct ofl_link *l, const struct link_group *g)
{
	return g->llvm < 23 && l->o.llvm_release < 23;
}

static int by_wrap_order(const void *a, const void *b, void *ctx)
{
	const struct ofl_link *l = ctx;
	size_t ga = *(const size_t *)a, gb = *(const size_t *)b;
	int c = strcmp(l->groups[gb].triple, l->groups[ga].triple);
	c = c ? c : strcmp(l->groups[gb].arch, l->groups[ga].arch);
	return c ? c : (ga > gb) - (ga < gb);
}

/* Groups of a kind in the order the linker wrapper bundles them: triple,
 * then arch, descending (equal ones as they came). */
size_t ofl_group_kind_order(struct ofl_link *l, enum ofl_wrap_kind kind, bool legacy_hip,
                            size_t *order)
{
	size_t n = 0;
	for (size_t g = 0; g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (gr->nimages && ofl_wrap_kind_of(gr->kind) == kind &&
		    (kind != OFL_WRAP_HIP || gr->legacy == legacy_hip))
			order[n++] = g;
	}
	qsort_r(order, n, sizeof(*order), by_wrap_order, l);
	return n;
}

/* Adds s to v unless there (a handful of names: a linear check is enough). */
static int add_string(struct ofl_argv *v, const char *s, struct ofl_error *err)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 0;
	return ofl_argv_push(v, s, err);
}

/* OpenMP programs need libomptarget and the OpenMP runtime it is built on
 * (clang's driver adds both, gcc's neither), from the directory of the
 * LLVM that made the device code when we know it.  Not for a -r link (the
 * final link adds them), nor what the host line names already. */
static int add_runtime(struct ofl_link *l, const char *dir, struct ofl_error *err)
{
	static const char *const libs[] = {"omp", "omptarget"};
	const struct ofl_ldcmd *c = l->o.host_cmd;
	bool added = false;
	int rc = 0;
	for (size_t i = 0; !rc && !(c && c->relocatable) && i < 2; i++) {
		if (ofl_hostlink_names_library(l, libs[i]))
			continue;
		rc = add_string(&l->runtime_libs, libs[i], err);
		added = true;
	}
	return rc || !dir || !added ? rc : add_string(&l->runtime_dirs, dir, err);
}

/* OpenMP programs need libomptarget, also for images a relocatable link
 * registered already; its directory when we know it. */
int ofl_group_runtime_libs(struct ofl_link *l, struct ofl_error *err)
{
	int rc = 0;
	for (size_t g = 0; !rc && g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (gr->nimages && ofl_wrap_kind_of(gr->kind) == OFL_WRAP_OPENMP)
			rc = add_runtime(l, gr->runtime_dir, err);
	}
	for (size_t i = 0; !rc && i < l->nregistered; i++) {
		const struct link_registered *r = &l->registered[i];
		if (!l->units[r->unit].taken || r->kind != OFL_OFK_OPENMP)
			continue;
		char *dir = ofl_toolchain_runtime_dir(&l->tools, r->llvm);
		rc = add_runtime(l, dir, err);
		free(dir);
	}
	return rc;
}

int ofl_group_fatbin(struct ofl_link *l, struct ofl_error *err)
{
	size_t *order = ofl_calloc(l->ngroups + 1, sizeof(*order));
	if (!order)
		return OFL_NOMEM(err);
	/* each kind's bundle, in turn, as LLVM writes each to the output, so
	 * the last kind's is what remains (OpenMP, CUDA, HIP, SYCL: its linked
	 * image, clang-sycl-linker's OffloadBinary); an OpenMP link
	 * of more than one image has no single bundle, LLVM's error */
	size_t nomp = ofl_group_kind_order(l, OFL_WRAP_OPENMP, false, order);
	int kind = nomp == 1 ? OFL_WRAP_OPENMP : -1;
	for (int k = OFL_WRAP_CUDA; k <= OFL_WRAP_SYCL; k++)
		if (ofl_group_kind_order(l, (enum ofl_wrap_kind)k, false, order))
			kind = k;
	bool legacy = ofl_group_kind_order(l, OFL_WRAP_HIP, true, order);
	free(order);
	if (nomp > 1 || kind < 0 || legacy)
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "Expected a single bundled image for direct fat binary output");
	l->fatbin_kind = (enum ofl_wrap_kind)kind;
	return 0;
}
