/* The pipeline's driver: group the images, choose the device code, link it,
 * and wrap the linked images into one host object per offload kind, in the
 * registration ABI the host objects' entry tables ask for. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/image_compat.h"
#include "offlink/elf.h"
#include "offlink/fatbin_build.h"
#include "offlink/wrapper_obj.h"

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
static int group_images(struct ofl_link *l, struct ofl_error *err)
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
		if (v > l->groups[g].llvm)
			l->groups[g].llvm = v;
		im->group = g;
	}
	rc = rc ? rc : list_members(l, &index, &key, err);
	ofl_symset_release(&index);
	ofl_buf_release(&key);
	return rc;
}

static void count_taken(struct ofl_link *l)
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
		if (!l->groups[g].llvm)
			l->groups[g].llvm = newest;
		l->groups[g].runtime_dir = ofl_toolchain_runtime_dir(&l->tools, l->groups[g].llvm);
		ofl_link_logf(l, OFL_LOG_DECISION, "device link %zu: %s %s, %zu image(s), LLVM %u",
		              g, l->groups[g].triple,
		              *l->groups[g].arch ? l->groups[g].arch : "(no arch)",
		              l->groups[g].nimages, l->groups[g].llvm);
	}
}

enum ofl_wrap_kind ofl_link_wrap_kind(uint16_t offload_kind)
{
	return offload_kind == OFL_OFK_CUDA                                   ? OFL_WRAP_CUDA
	       : offload_kind == OFL_OFK_HIP || offload_kind == OFL_OFK_HIP19 ? OFL_WRAP_HIP
	                                                                      : OFL_WRAP_OPENMP;
}

/* The ABI of the taken host objects' entry tables; with none, the one of
 * the LLVM that made the device code. */
static const char *const abi_names[] = {"LLVM 14", "AMD", "LLVM 19", "LLVM 20-22"};

static enum ofl_wrap_abi choose_abi(const struct ofl_link *l, enum ofl_wrap_kind kind,
                                    unsigned llvm)
{
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
static int check_abis(const struct ofl_link *l, struct ofl_error *err)
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
		                     first[lo], abi_names[lo], first[hi], abi_names[hi]);
	}
	return 0;
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
static size_t kind_groups(struct ofl_link *l, enum ofl_wrap_kind kind, bool legacy_hip,
                          size_t *order)
{
	size_t n = 0;
	for (size_t g = 0; g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (gr->nimages && ofl_link_wrap_kind(gr->kind) == kind &&
		    (kind != OFL_WRAP_HIP || gr->legacy == legacy_hip))
			order[n++] = g;
	}
	qsort_r(order, n, sizeof(*order), by_wrap_order, l);
	return n;
}

/* OpenMP: each linked image re-packed as an OffloadBinary (triple, arch;
 * the arch is empty for CPU targets, as the linker wrapper writes it; an
 * object, also the empty image of a dry run, or bitcode, as LLVM marks
 * it), of the version the LLVM that made the code writes (23: 2); the
 * descriptor points at its entry 0's image. */
static int pack_openmp(const struct link_group *g, struct ofl_buf *out, struct ofl_wrap_image *img,
                       struct ofl_error *err)
{
	const char *k[2] = {"triple", "arch"};
	bool cpu = !strcmp(g->arch, "generic") || !*g->arch;
	const char *v[2] = {g->triple, cpu ? "" : g->arch};
	bool elf =
	    !g->linked.size || (g->linked.size >= 4 && !memcmp(g->linked.data, "\177ELF", 4));
	bool bc = ofl_bitcode_is(g->linked.data, g->linked.size); /* --embed-bitcode's */
	struct ofl_obin_image oi = {elf  ? OFL_IMG_OBJECT
	                            : bc ? OFL_IMG_BITCODE
	                                 : OFL_IMG_NONE,
	                            OFL_OFK_OPENMP,
	                            0,
	                            g->linked.data ? g->linked.data : (const uint8_t *)"",
	                            g->linked.size,
	                            2,
	                            k,
	                            v};
	struct ofl_obin_set b = OFL_OBIN_SET_INIT;
	uint64_t total;
	int rc = g->llvm >= 23 ? ofl_obin_write_v2(&oi, 1, out, &total, err)
	                       : ofl_obin_write(&oi, out, err);
	if (!rc)
		rc = ofl_obin_parse_set(out->data, out->len, &b, err);
	if (!rc) {
		uint64_t at = (uint64_t)(b.entries[0].image - out->data);
		*img = (struct ofl_wrap_image){
		    out->data, out->len, at, at + b.entries[0].image_size, g->arch, NULL};
	}
	ofl_obin_set_release(&b);
	return rc;
}

static void log_fatbinary(void *ctx, const struct ofl_proc *cmd)
{
	free(ofl_link_log_command(ctx, cmd));
}

/* HIP's bundle (in memory) and CUDA's fatbinary (run unless a dry run);
 * the personality's dry run logs the command LLVM runs for either, and
 * writes nothing, as LLVM's dry run leaves the bundle empty. */
static int bundle(struct ofl_link *l, enum ofl_wrap_kind kind, bool hipv4,
                  const struct ofl_fatbin_image *fi, size_t n, unsigned llvm, struct ofl_buf *out,
                  struct ofl_error *err)
{
	struct ofl_hipfb_options ho = OFL_HIPFB_OPTIONS_INIT;
	ho.dialect = ofl_llvm_old_wrapper(llvm) ? OFL_LLVM19 : OFL_LLVM22;
	ho.hipv4 = hipv4; /* the old driver's entry IDs */
	ho.compress = l->o.compress;
	ho.ccob.level = l->o.compression_level;
	if (llvm >= 23 || l->o.llvm_release >= 23)
		ho.host_triple = l->o.host_triple;
	if (ofl_llvm_form(l))
		return ofl_llvm_log_fatbin(l, kind == OFL_WRAP_HIP, fi, n, &ho, llvm, err);
	if (kind == OFL_WRAP_HIP)
		return ofl_hipfb_build(fi, n, &ho, out, err);
	/* its temporaries in the link's directory: removed with it; fatbinary
	 * from the toolkit whose ptxas and nvlink made the images */
	struct ofl_cuda_fatbin_options o = OFL_CUDA_FATBIN_OPTIONS_INIT;
	o.dir = l->o.dry_run ? NULL : ofl_link_tmpdir(l, err);
	o.cuda_path = *l->cuda ? l->cuda : l->o.cuda_path;
	o.search_path = l->o.search_path;
	o.running = l->running; /* the calling thread's slot */
	o.stop = &l->cancelled;
	o.log = log_fatbinary;
	o.log_ctx = l;
	return l->o.dry_run ? 0 : !o.dir ? err->code : ofl_cuda_fatbin_build(fi, n, &o, out, err);
}

/* CUDA and HIP: the linked images bundled into one fat binary. */
static int build_fatbin(struct ofl_link *l, enum ofl_wrap_kind kind, bool hipv4,
                        const size_t *order, size_t n, unsigned llvm, struct ofl_buf *out,
                        struct ofl_error *err)
{
	struct ofl_fatbin_image *fi = ofl_calloc(n, sizeof(*fi));
	if (!fi)
		return OFL_NOMEM(err);
	for (size_t i = 0; i < n; i++) {
		const struct link_group *g = &l->groups[order[i]];
		fi[i] =
		    (struct ofl_fatbin_image){g->linked.data, g->linked.size, g->output, g->arch};
	}
	int rc = bundle(l, kind, hipv4, fi, n, llvm, out, err);
	free(fi);
	return rc;
}

/* The wrapper module's IR, logged for --print-wrapped-module. */
static int log_module(struct ofl_link *l, const struct ofl_wrap_opts *o,
                      const struct ofl_wrap_image *imgs, size_t n, struct ofl_error *err)
{
	struct ofl_buf ll = OFL_BUF_INIT;
	int rc = ofl_wrap_emit_ll(&ll, o, l->o.host_triple, imgs, n, err);
	if (!rc)
		ofl_link_logf(l, OFL_LOG_MODULE, "%.*s", (int)ll.len, (const char *)ll.data);
	ofl_buf_release(&ll);
	return rc;
}

/* Kind k's images (n groups in order) made ready to wrap: OpenMP's packed
 * one by one, CUDA's and HIP's bundled into one fat binary; *nimgs of
 * them. */
static int prepare_images(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order,
                          size_t n, struct ofl_buf *packed, struct ofl_wrap_image *imgs,
                          size_t *nimgs, struct ofl_error *err)
{
	unsigned llvm = l->groups[order[0]].llvm;
	int rc = 0;
	*nimgs = kind == OFL_WRAP_OPENMP ? n : 1;
	for (size_t i = 0; !rc && kind == OFL_WRAP_OPENMP && i < n; i++)
		rc = pack_openmp(&l->groups[order[i]], &packed[i], &imgs[i], err);
	if (!rc && kind != OFL_WRAP_OPENMP &&
	    !(rc = build_fatbin(l, kind, false, order, n, llvm, &packed[0], err)))
		imgs[0] = (struct ofl_wrap_image){packed[0].data, packed[0].len, 0,
		                                  packed[0].len,  NULL,          NULL};
	return rc;
}

static const char *const kind_names[] = {"openmp", "cuda", "hip"};

/* A file of the link's for what kind k makes (its wrapper object, or its
 * fat binary), named as LLVM names it in the personality's dry run. */
static char *kind_file(struct ofl_link *l, enum ofl_wrap_kind k, bool fatbin, struct ofl_error *err)
{
	static const char *const ext[] = {"openmp", "fatbin", "hipfb"};
	char name[32];
	snprintf(name, sizeof(name), "%s.%s", kind_names[k], fatbin ? ext[k] : "wrapper.o");
	if (!ofl_llvm_form(l))
		return ofl_link_temp(l, name, err);
	return fatbin ? ofl_llvm_bundle_name(l, ext[k], err)
	              : ofl_llvm_wrapper_name(l, kind_names[k], err);
}

/* The offload runtime that loads a program's images: LLVM 19's for one
 * registered for LLVM 19, 18 or older for LLVM 14's registration, and for
 * LLVM 20's (shared by 20 to 22) the group's LLVM, whose libomptarget the
 * link adds (20 when it is not known).  One that does not read a cubin's
 * header stops the program at its first target region, so the link says
 * so once (docs/gpu-check.md). */
static void warn_unreadable(struct ofl_link *l, enum ofl_wrap_abi abi, const size_t *order,
                            size_t n)
{
	unsigned floor = abi == OFL_WRAP_LLVM20   ? 20
	                 : abi == OFL_WRAP_LLVM19 ? 19
	                 : abi == OFL_WRAP_LLVM14 ? 18
	                                          : 0;
	for (size_t i = 0; floor && i < n; i++) {
		const struct link_group *g = &l->groups[order[i]];
		unsigned release = abi == OFL_WRAP_LLVM20 && g->llvm > floor ? g->llvm : floor;
		struct ofl_gpu_image im;
		ofl_gpu_image_read(g->linked.data, g->linked.size, &im);
		if (im.code != OFL_GPU_CUBIN || !ofl_cubin_first_runtime(&im) ||
		    ofl_llvm_reads_cubin(&im, release))
			continue;
		ofl_link_logf(
		    l, OFL_LOG_WARNING,
		    "%s %s image: CUDA %s's tools wrote its cubin with the new ELF header "
		    "(ABI version %u), which LLVM %u's offload runtime, the one this program "
		    "%s, does not read (LLVM 22's does, and the 21.1 point releases from the one "
		    "with llvm-project#159451): it will stop with 'No images found "
		    "compatible with the installed hardware'; build and link it with LLVM "
		    "22, or link its device code with CUDA 12's ptxas and nvlink",
		    g->triple, g->arch, *im.toolkit ? im.toolkit : "12.8 or later", im.abi_version,
		    release, abi == OFL_WRAP_LLVM20 ? "is linked with" : "registers with");
		return;
	}
}

static int write_wrapper(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order, size_t n,
                         struct ofl_error *err)
{
	struct ofl_wrap_opts o = {kind, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, l->o.relocatable};
	struct ofl_buf *packed = ofl_calloc(n, sizeof(*packed));
	struct ofl_wrap_image *imgs = ofl_calloc(n, sizeof(*imgs));
	struct ofl_buf obj = OFL_BUF_INIT;
	size_t nimgs = 0;
	int rc = packed && imgs ? 0 : OFL_NOMEM(err);
	rc = rc ? rc : ofl_wrap_machine_from_triple(l->o.host_triple, &o.machine, err);
	o.abi = choose_abi(l, kind, l->groups[order[0]].llvm);
	if (kind == OFL_WRAP_OPENMP)
		warn_unreadable(l, o.abi, order, n);
	rc = rc ? rc : prepare_images(l, kind, order, n, packed, imgs, &nimgs, err);
	if (!rc && l->o.print_wrapped_module)
		rc = log_module(l, &o, imgs, nimgs, err);
	rc = rc ? rc : ofl_wrap_write_buf(&obj, &o, imgs, nimgs, err);
	char *path = rc ? NULL : kind_file(l, kind, false, err);
	if (!rc && path && ofl_llvm_steps(l))
		rc = ofl_llvm_log_wrap(l, kind, order, n, path, err);
	rc = rc ? rc : !path ? err->code : ofl_write_file(path, obj.data, obj.len, err);
	if (!rc) {
		l->res.objects[l->res.nobjects++] = path;
		ofl_link_logf(l, OFL_LOG_DECISION, "%s wrapper: %zu image(s), %s registration",
		              kind_names[kind], n, abi_names[o.abi]);
	}
	for (size_t i = 0; packed && i < n; i++)
		ofl_buf_release(&packed[i]);
	free(packed);
	free(imgs);
	ofl_buf_release(&obj);
	return rc;
}

/* --emit-fatbin-only: each kind's bundle, in turn, as LLVM writes each to
 * the output, so the last kind's is what remains (OpenMP, CUDA, HIP); an
 * OpenMP link of more than one image has no single bundle, LLVM's error. */
static int write_fatbin(struct ofl_link *l, size_t *order, struct ofl_error *err)
{
	size_t nomp = kind_groups(l, OFL_WRAP_OPENMP, false, order);
	int kind = nomp == 1 ? OFL_WRAP_OPENMP : -1;
	for (int k = OFL_WRAP_CUDA; k <= OFL_WRAP_HIP; k++)
		if (kind_groups(l, (enum ofl_wrap_kind)k, false, order))
			kind = k;
	if (nomp > 1 || kind < 0 || kind_groups(l, OFL_WRAP_HIP, true, order))
		return ofl_error_set(
		    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		    "Expected a single bundled image for direct fat binary output");
	struct ofl_buf packed = OFL_BUF_INIT;
	struct ofl_wrap_image img;
	size_t n = kind_groups(l, (enum ofl_wrap_kind)kind, false, order), nimg;
	int rc = prepare_images(l, (enum ofl_wrap_kind)kind, order, n, &packed, &img, &nimg, err);
	char *path = rc ? NULL : kind_file(l, (enum ofl_wrap_kind)kind, true, err);
	/* the personality's dry run bundles nothing, as LLVM's leaves its
	 * bundler's output empty */
	size_t len = kind != OFL_WRAP_OPENMP && ofl_llvm_form(l) ? 0 : packed.len;
	rc = rc ? rc : !path ? err->code : ofl_write_file(path, packed.data, len, err);
	if (!rc)
		l->res.fatbin = path;
	ofl_buf_release(&packed);
	return rc;
}

/* CUIDs of the __hip_fatbin_<cuid> symbols old-driver HIP objects leave
 * undefined. */
static int note_cuid(void *ctx, const char *name, bool defined)
{
	static const char prefix[] = "__hip_fatbin_";
	struct ofl_symslot *s;
	bool added;
	if (defined || strncmp(name, prefix, sizeof(prefix) - 1))
		return 0;
	return ofl_symset_add(ctx, name + sizeof(prefix) - 1, 0, &s, &added);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int collect_cuids(struct ofl_link *l, struct ofl_symset *set, const char ***v, size_t *n,
                         struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->nimages; i++) {
		const struct link_unit *u = &l->units[l->images[i].unit];
		if (l->images[i].legacy && u->device && ofl_is_elf(u->data, u->size) &&
		    ofl_elf_global_symbols(u->data, u->size, note_cuid, set, err) == -1)
			rc = OFL_NOMEM(err);
	}
	*v = rc ? NULL : ofl_calloc(set->n, sizeof(**v));
	if (!rc && !*v)
		rc = OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < set->cap; i++)
		if (set->slots[i].name)
			(*v)[(*n)++] = set->slots[i].name;
	if (!rc)
		qsort(*v, *n, sizeof(**v), cmp_str);
	return rc;
}

/* Old-driver HIP: one bundle of every code object ("hipv4-" IDs), and the
 * object defining the symbols its host objects register it through. */
static int write_gpubin(struct ofl_link *l, const size_t *order, size_t n, struct ofl_error *err)
{
	struct ofl_buf fb = OFL_BUF_INIT;
	struct ofl_symset set = OFL_SYMSET_INIT;
	const char **cuids = NULL;
	size_t ncuids = 0;
	enum ofl_wrap_machine m;
	int rc = ofl_wrap_machine_from_triple(l->o.host_triple, &m, err);
	rc = rc ? rc : build_fatbin(l, OFL_WRAP_HIP, true, order, n, 0, &fb, err);
	rc = rc ? rc : collect_cuids(l, &set, &cuids, &ncuids, err);
	char *path = rc ? NULL : ofl_link_temp(l, "hip.gpubin.o", err);
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (!rc && fd < 0)
		rc = err->code ? err->code : ofl_error_errno(err, path, "cannot create");
	rc = rc ? rc : ofl_hip_gpubin_write_fd(fd, m, fb.data, fb.len, cuids, ncuids, err);
	if (fd >= 0)
		close(fd);
	if (!rc) {
		l->res.objects[l->res.nobjects++] = path;
		ofl_link_logf(l, OFL_LOG_DECISION,
		              "hip (old driver): %zu code object(s), fat binary for %zu CUID(s)", n,
		              ncuids);
	}
	free(cuids);
	ofl_symset_release(&set);
	ofl_buf_release(&fb);
	return rc;
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
static int runtime_libs(struct ofl_link *l, struct ofl_error *err)
{
	int rc = 0;
	for (size_t g = 0; !rc && g < l->ngroups; g++) {
		const struct link_group *gr = &l->groups[g];
		if (gr->nimages && ofl_link_wrap_kind(gr->kind) == OFL_WRAP_OPENMP)
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

/* res: the runtime libraries and their dirs. */
static void result(struct ofl_link *l, struct ofl_link_result *res)
{
	l->res.libraries = l->runtime_libs.v;
	l->res.nlibraries = l->runtime_libs.n;
	l->res.libdirs = l->runtime_dirs.v;
	l->res.nlibdirs = l->runtime_dirs.n;
	*res = l->res;
}

int ofl_link_run_registered(struct ofl_link *l, struct ofl_link_result *res, struct ofl_error *err)
{
	if (l->ran)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the link ran already: a context links once");
	l->ran = true;
	int rc = runtime_libs(l, err);
	if (!rc)
		result(l, res);
	return rc;
}

int ofl_link_run(struct ofl_link *l, struct ofl_link_result *res, struct ofl_error *err)
{
	/* its groups, images and results are made once (a linker that loads
	 * the plugin twice would otherwise run it twice over the same state) */
	if (l->ran)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "the link ran already: a context links once");
	int rc = ofl_hostlink_cpu_args(l, err);
	rc = rc ? rc : group_images(l, err);
	/* LLVM 19's device runtime is an archive of images: an input of this
	 * run, added before the context takes no more, and grouped too */
	rc = rc ? rc : ofl_devrt_gather(l, err);
	l->ran = true;
	rc = rc ? rc : group_images(l, err);
	size_t *order = rc ? NULL : ofl_calloc(l->ngroups + 1, sizeof(*order));
	rc = rc ? rc : !order ? OFL_NOMEM(err) : ofl_link_select(l, err);
	rc = rc ? rc : check_abis(l, err);
	if (!rc) {
		count_taken(l);
		rc = ofl_llvm_steps(l) ? ofl_llvm_log_extract(l, err) : 0;
		rc = rc ? rc : ofl_devlink_plan(l, err);
		rc = rc ? rc : ofl_devlink_run(l, err);
	}
	if (!rc && !(l->res.objects = ofl_calloc(4, sizeof(char *))))
		rc = OFL_NOMEM(err);
	if (!rc && l->o.emit_fatbin)
		rc = write_fatbin(l, order, err);
	for (int k = OFL_WRAP_OPENMP; !rc && !l->o.emit_fatbin && k <= OFL_WRAP_HIP; k++) {
		size_t n = kind_groups(l, (enum ofl_wrap_kind)k, false, order);
		if (n)
			rc = write_wrapper(l, (enum ofl_wrap_kind)k, order, n, err);
	}
	size_t nlegacy = rc || l->o.emit_fatbin ? 0 : kind_groups(l, OFL_WRAP_HIP, true, order);
	if (nlegacy)
		rc = write_gpubin(l, order, nlegacy, err);
	rc = rc || l->o.emit_fatbin || l->o.llvm_wrapper ? rc : runtime_libs(l, err);
	free(order);
	if (!rc)
		result(l, res);
	return rc;
}
