/* Groups and wraps of a plan: images grouped by offload kind, triple and
 * target ID (a generic image, or a less specific target ID, also in the
 * groups its code runs in, as LLVM groups them); each group's LLVM release
 * and runtime directory; per offload kind the registration ABI the taken
 * host objects ask for and the order its images are bundled in; the
 * runtime libraries the host link gets. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "link_priv.h"

static unsigned llvm_of_needs(unsigned abis)
{
	return abis & (1u << OFL_WRAP_LLVM19) ? 19 : 0;
}

/* The key of (kind, triple, arch) in the group index; the triple's length
 * keeps "a" + "bc" apart from "ab" + "c". */
static int group_key(struct ofl_buf *key, uint16_t kind, const char *triple, const char *arch,
                     size_t arch_len)
{
	ofl_buf_reset(key);
	return ofl_buf_printf(key, "%u:%zu:%s%.*s", kind, strlen(triple), triple, (int)arch_len,
	                      arch);
}

/* The group of (kind, triple, arch), found by hash: its index, a new one
 * when *added. */
static int find_group(struct ofl_link *l, struct ofl_symset *index, struct ofl_buf *key,
                      const struct link_image *im, size_t *g, bool *added)
{
	struct ofl_symslot *s;
	if (group_key(key, im->b.offload_kind, im->triple, im->arch, strlen(im->arch)) ||
	    ofl_symset_add(index, (const char *)key->data, (uint32_t)l->ngroups, &s, added))
		return -1;
	*g = s->value;
	if (!*added)
		return 0;
	if (OFL_GROW(l->groups, l->capgroups, l->ngroups))
		return -1;
	memset(&l->groups[*g], 0, sizeof(l->groups[*g]));
	l->groups[*g].linked = (struct ofl_file)OFL_FILE_INIT; /* no descriptor 0 */
	l->groups[*g].kind = im->b.offload_kind;
	l->groups[*g].legacy = im->legacy;
	l->groups[*g].triple = im->triple;
	l->groups[*g].arch = im->arch;
	l->ngroups++;
	return 0;
}

enum { MAX_FEEDERS = 16 }; /* "generic" and the subsets of up to 3 features */

/* The groups whose images also run in group g (LLVM's compatible target
 * IDs): the triple's generic one, and those whose target ID has g's
 * processor and a proper subset of its features (gfx90a and
 * gfx90a:sramecc+ into gfx90a:sramecc+:xnack+).  Found by key, each
 * subset in turn, so the cost does not grow with the number of groups;
 * real target IDs have at most two features (xnack, sramecc), and IDs with
 * more than three take only the generic group. */
static size_t feeders(const struct ofl_link *l, const struct ofl_symset *index, struct ofl_buf *key,
                      size_t g, size_t *out)
{
	const struct link_group *gr = &l->groups[g];
	const char *arch = gr->arch;
	size_t n = 0, plen = strcspn(arch, ":"), nfeat = 0;
	const char *feat[3];
	size_t flen[3];
	if (gr->legacy || !*arch || !strcmp(arch, "generic"))
		return 0;
	for (const char *p = arch + plen; *p == ':'; nfeat++) {
		size_t len = strcspn(p + 1, ":");
		if (nfeat < 3) {
			feat[nfeat] = p + 1;
			flen[nfeat] = len;
		}
		p += 1 + len;
	}
	struct ofl_symslot *s;
	if (!group_key(key, gr->kind, gr->triple, "generic", 7) &&
	    (s = ofl_symset_find(index, (const char *)key->data)))
		out[n++] = s->value;
	for (unsigned mask = 0; nfeat <= 3 && mask + 1 < (1u << nfeat); mask++) {
		char id[256];
		int len = snprintf(id, sizeof(id), "%.*s", (int)plen, arch);
		for (size_t f = 0; f < nfeat; f++)
			if (mask & (1u << f) && len >= 0 && len < (int)sizeof(id))
				len += snprintf(id + len, sizeof(id) - (size_t)len, ":%.*s",
				                (int)flen[f], feat[f]);
		if (len > 0 && len < (int)sizeof(id) &&
		    !group_key(key, gr->kind, gr->triple, id, (size_t)len) &&
		    (s = ofl_symset_find(index, (const char *)key->data)) && s->value != g)
			out[n++] = s->value;
	}
	return n;
}

static int by_image(const void *a, const void *b)
{
	size_t x = ((const struct link_member *)a)->image,
	       y = ((const struct link_member *)b)->image;
	return (x > y) - (x < y);
}

/* Group g's own images, then its feeders', sorted into input order. */
static void fill_members(struct ofl_link *l, const size_t *own_at, const size_t *byg, size_t g,
                         const size_t *fd, size_t nfd)
{
	struct link_group *gr = &l->groups[g];
	size_t n = 0;
	for (size_t f = 0; f <= nfd; f++) {
		size_t src = f < nfd ? fd[f] : g;
		for (size_t k = own_at[src]; k < own_at[src + 1]; k++)
			l->members[gr->first + n++] = (struct link_member){byg[k], false};
	}
	if (nfd)
		qsort(l->members + gr->first, n, sizeof(*l->members), by_image);
}

/* Each group's images, its own and its feeders', in input order:
 * l->members[first .. first + nall). */
static int list_members(struct ofl_link *l, const struct ofl_symset *index, struct ofl_buf *key,
                        struct ofl_error *err)
{
	/* own_at: where each group's own images start in byg (input order) */
	size_t *own_at = ofl_calloc(l->ngroups + 2, sizeof(*own_at));
	size_t *byg = ofl_calloc(l->nimages + 1, sizeof(*byg)), fd[MAX_FEEDERS], total = 0;
	int rc = own_at && byg ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->nimages; i++)
		own_at[l->images[i].group + 2]++;
	for (size_t g = 1; !rc && g <= l->ngroups; g++)
		own_at[g + 1] += own_at[g];
	for (size_t i = 0; !rc && i < l->nimages; i++)
		byg[own_at[l->images[i].group + 1]++] = i;
	for (size_t g = 0; !rc && g < l->ngroups; g++) {
		size_t n = feeders(l, index, key, g, fd);
		l->groups[g].first = total;
		l->groups[g].nall = own_at[g + 1] - own_at[g];
		for (size_t f = 0; f < n; f++)
			l->groups[g].nall += own_at[fd[f] + 1] - own_at[fd[f]];
		total += l->groups[g].nall;
	}
	if (!rc && !(l->members = ofl_calloc(total + 1, sizeof(*l->members))))
		rc = OFL_NOMEM(err);
	for (size_t g = 0; !rc && g < l->ngroups; g++)
		fill_members(l, own_at, byg, g, fd, feeders(l, index, key, g, fd));
	free(byg);
	free(own_at);
	return rc;
}

/* Groups every image; again after the device runtime added images, so
 * the groups are made anew (nothing hangs off them yet). */
int ofl_group_images(struct ofl_link *l, struct ofl_error *err)
{
	struct ofl_symset index = OFL_SYMSET_INIT;
	struct ofl_buf key = OFL_BUF_INIT;
	int rc = 0;
	l->ngroups = 0;
	free(l->members);
	l->members = NULL;
	for (size_t i = 0; !rc && i < l->nimages; i++) {
		struct link_image *im = &l->images[i];
		size_t g;
		bool added;
		if (find_group(l, &index, &key, im, &g, &added)) {
			rc = OFL_NOMEM(err);
			break;
		}
		unsigned v = im->llvm ? im->llvm : llvm_of_needs(l->units[im->unit].needs.abis);
		if (v > l->groups[g].llvm) {
			l->groups[g].llvm = v;
			l->groups[g].llvm_why =
			    im->llvm ? "the images' producer" : "the objects' entry tables";
		}
		im->group = g;
	}
	rc = rc ? rc : list_members(l, &index, &key, err);
	ofl_symset_release(&index);
	ofl_buf_release(&key);
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
		/* offlink wrap's objects: no member choice is made */
		bool used = l->units[r->unit].taken || l->linked_by == LINKED_OFFLINK;
		if (!used || r->kind != OFL_OFK_OPENMP)
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
