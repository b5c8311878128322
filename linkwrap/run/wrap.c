/* The plan's wraps written: the linked images of each offload kind
 * wrapped into one host object, in the registration ABI the plan chose
 * (OpenMP's re-packed as OffloadBinaries, CUDA's and HIP's bundled into one
 * fat binary), the old HIP driver's object, or --emit-fatbin-only's
 * bundle. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "run_priv.h"
#include "offlink/image_compat.h"
#include "offlink/elf.h"
#include "offlink/fatbin_build.h"
#include "offlink/wrapper_obj.h"

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
	bool elf = !g->linked.size || ofl_is_elf(g->linked.data, g->linked.size);
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

/* CUDA and HIP: the linked images bundled into one fat binary, each
 * under the target ID it was compiled for (an amdgpu triple's
 * sub-architecture names it when the arch does not). */
static int build_fatbin(struct ofl_link *l, enum ofl_wrap_kind kind, bool hipv4,
                        const size_t *order, size_t n, unsigned llvm, struct ofl_buf *out,
                        struct ofl_error *err)
{
	struct ofl_fatbin_image *fi = ofl_calloc(n, sizeof(*fi));
	char(*ids)[64] = ofl_calloc(n, sizeof(*ids));
	int rc = fi && ids ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct link_group *g = &l->groups[order[i]];
		ofl_target_cpu(g->triple, g->arch, ids[i], sizeof(ids[i]));
		fi[i] = (struct ofl_fatbin_image){g->linked.data, g->linked.size, g->output,
		                                  *ids[i] ? ids[i] : g->arch};
	}
	rc = rc ? rc : bundle(l, kind, hipv4, fi, n, llvm, out, err);
	free(ids);
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

/* SYCL: the one group's linked image, clang-sycl-linker's OffloadBinary;
 * in a dry run, which links nothing, LLVM's stand-in (an empty image
 * whose kernels are "stub"). */
static int sycl_image(struct ofl_link *l, const struct link_group *g, struct ofl_buf *stub,
                      struct ofl_wrap_image *img, struct ofl_error *err)
{
	const char *k[1] = {"symbols"}, *v[1] = {"stub"};
	struct ofl_obin_image oi = {OFL_IMG_NONE, OFL_OFK_SYCL, 0, (const uint8_t *)"", 0, 1, k, v};
	if (!l->o.dry_run) {
		*img = (struct ofl_wrap_image){g->linked.data, g->linked.size, 0,
		                               g->linked.size, NULL,           &g->linked};
		return 0;
	}
	int rc = ofl_obin_write(&oi, stub, err);
	*img = (struct ofl_wrap_image){stub->data, stub->len, 0, stub->len, NULL, NULL};
	return rc;
}

/* Kind k's images (n groups in order) made ready to wrap: OpenMP's packed
 * one by one, CUDA's and HIP's bundled into one fat binary, SYCL's one;
 * *nimgs of them. */
static int prepare_images(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order,
                          size_t n, struct ofl_buf *packed, struct ofl_wrap_image *imgs,
                          size_t *nimgs, struct ofl_error *err)
{
	unsigned llvm = l->groups[order[0]].llvm;
	int rc = 0;
	*nimgs = kind == OFL_WRAP_OPENMP ? n : 1;
	if (kind == OFL_WRAP_SYCL)
		return sycl_image(l, &l->groups[order[0]], &packed[0], &imgs[0], err);
	for (size_t i = 0; !rc && kind == OFL_WRAP_OPENMP && i < n; i++)
		rc = pack_openmp(&l->groups[order[i]], &packed[i], &imgs[i], err);
	if (!rc && kind != OFL_WRAP_OPENMP &&
	    !(rc = build_fatbin(l, kind, false, order, n, llvm, &packed[0], err)))
		imgs[0] = (struct ofl_wrap_image){packed[0].data, packed[0].len, 0,
		                                  packed[0].len,  NULL,          NULL};
	return rc;
}

static const char *const kind_names[] = {"openmp", "cuda", "hip", "sycl"};

/* A file of the link's for what kind k makes (its wrapper object, or its
 * fat binary), named as LLVM names it in the personality's dry run. */
static char *kind_file(struct ofl_link *l, enum ofl_wrap_kind k, bool fatbin, struct ofl_error *err)
{
	static const char *const ext[] = {"openmp", "fatbin", "hipfb", "sycl"};
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
		    "compatible with the installed hardware'; link its device code with a CUDA "
		    "12 toolkit's ptxas and nvlink (CUDA_PATH, or clang's --cuda-path, naming "
		    "it), or build and link it with an LLVM 22 or later that has the NVPTX "
		    "device runtime (lib/nvptx64-nvidia-cuda/libompdevice.a: Debian's LLVM "
		    "packages have none)",
		    g->triple, g->arch, *im.toolkit ? im.toolkit : "12.8 or later", im.abi_version,
		    release, abi == OFL_WRAP_LLVM20 ? "is linked with" : "registers with");
		return;
	}
}

static int write_wrapper(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order, size_t n,
                         struct ofl_error *err)
{
	/* SYCL's registration has no relocatable form (the plan allows it in a
	 * dry run only, as LLVM prints its commands) */
	struct ofl_wrap_opts o = {
	    kind, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, l->o.relocatable && kind != OFL_WRAP_SYCL,
	    kind == OFL_WRAP_SYCL && ofl_group_sycl_desc(l, &l->groups[order[0]])};
	struct ofl_buf *packed = ofl_calloc(n, sizeof(*packed));
	struct ofl_wrap_image *imgs = ofl_calloc(n, sizeof(*imgs));
	struct ofl_buf obj = OFL_BUF_INIT;
	size_t nimgs = 0;
	int rc = packed && imgs ? 0 : OFL_NOMEM(err);
	rc = rc ? rc : ofl_wrap_machine_from_triple(l->o.host_triple, &o.machine, err);
	o.abi = ofl_group_abi(l, kind, l->groups[order[0]].llvm);
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
		const char *reg = kind != OFL_WRAP_SYCL ? ofl_abi_name(o.abi)
		                  : o.sycl_desc         ? "LLVM 22's SYCL"
		                                        : "LLVM 23's SYCL";
		ofl_link_logf(l, OFL_LOG_DECISION, "%s wrapper: %zu image(s), %s registration",
		              kind_names[kind], n, reg);
	}
	for (size_t i = 0; packed && i < n; i++)
		ofl_buf_release(&packed[i]);
	free(packed);
	free(imgs);
	ofl_buf_release(&obj);
	return rc;
}

/* --emit-fatbin-only: the one kind's bundle (the plan's, which made sure
 * there is one). */
static int write_fatbin(struct ofl_link *l, size_t *order, struct ofl_error *err)
{
	enum ofl_wrap_kind kind = l->fatbin_kind;
	struct ofl_buf packed = OFL_BUF_INIT;
	struct ofl_wrap_image img;
	size_t n = ofl_group_kind_order(l, kind, false, order), nimg;
	int rc = prepare_images(l, kind, order, n, &packed, &img, &nimg, err);
	char *path = rc ? NULL : kind_file(l, kind, true, err);
	/* the personality's dry run bundles nothing, as LLVM's leaves its
	 * bundler's output empty (SYCL's is LLVM's stand-in image) */
	bool bundler = kind == OFL_WRAP_CUDA || kind == OFL_WRAP_HIP;
	size_t len = rc || (bundler && ofl_llvm_form(l)) ? 0 : (size_t)img.size;
	rc = rc ? rc : !path ? err->code : ofl_write_file(path, img.data, len, err);
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
		    (rc = ofl_elf_global_symbols(u->data, u->size, note_cuid, set, err)) < 0)
			ofl_error_locate(err, u->name, 0);
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

/* Old-driver HIP: one bundle of every code object ("hipv4-" IDs, in the
 * dialect of the newest release linking them, as its clang --hip-link
 * bundles), and the object defining the symbols its host objects register
 * it through. */
static int write_gpubin(struct ofl_link *l, const size_t *order, size_t n, struct ofl_error *err)
{
	struct ofl_buf fb = OFL_BUF_INIT;
	struct ofl_symset set = OFL_SYMSET_INIT;
	const char **cuids = NULL;
	size_t ncuids = 0;
	unsigned llvm = 0;
	for (size_t i = 0; i < n; i++)
		llvm = l->groups[order[i]].llvm > llvm ? l->groups[order[i]].llvm : llvm;
	enum ofl_wrap_machine m;
	int rc = ofl_wrap_machine_from_triple(l->o.host_triple, &m, err);
	rc = rc ? rc : build_fatbin(l, OFL_WRAP_HIP, true, order, n, llvm, &fb, err);
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

/* Each offload kind's wrapper object (or the one bundle), and the old HIP
 * driver's object. */
int ofl_wrap_all(struct ofl_link *l, struct ofl_error *err)
{
	size_t *order = ofl_calloc(l->ngroups + 1, sizeof(*order));
	int rc = order ? 0 : OFL_NOMEM(err);
	if (!rc && !(l->res.objects = ofl_calloc(5, sizeof(char *))))
		rc = OFL_NOMEM(err);
	/* as LLVM's, after the device links: the output needs one bundle */
	if (!rc && l->o.emit_fatbin)
		rc = ofl_group_fatbin(l, err) ? err->code : write_fatbin(l, order, err);
	for (int k = OFL_WRAP_OPENMP; !rc && !l->o.emit_fatbin && k <= OFL_WRAP_SYCL; k++) {
		size_t n = ofl_group_kind_order(l, (enum ofl_wrap_kind)k, false, order);
		if (n)
			rc = write_wrapper(l, (enum ofl_wrap_kind)k, order, n, err);
	}
	size_t nlegacy =
	    rc || l->o.emit_fatbin ? 0 : ofl_group_kind_order(l, OFL_WRAP_HIP, true, order);
	if (nlegacy)
		rc = write_gpubin(l, order, nlegacy, err);
	free(order);
	return rc;
}
