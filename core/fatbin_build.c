/* Fat binaries for CUDA and HIP registration (docs/abi.md, "Fat binaries for CUDA and HIP"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/bundle.h"
#include "offlink/elf.h"
#include "offlink/fatbin.h"
#include "offlink/fatbin_build.h"
#include "offlink/io.h"

/* ---- HIP: the bundle clang-offload-bundler writes for the wrapper ---- */

void ofl_hipfb_targets_free(char **targets, size_t n)
{
	for (size_t i = 0; targets && i < n; i++)
		free(targets[i]);
	free(targets);
}

int ofl_hipfb_targets(const struct ofl_fatbin_image *imgs, size_t n,
                      const struct ofl_hipfb_options *o, char ***targets, struct ofl_error *err)
{
	/* the host triple is fixed text in 19's and 22's wrappers, whatever
	 * the host; 23's is the host triple it was given */
	const char *host = o->dialect == OFL_LLVM19 ? "x86_64-unknown-linux"
	                   : o->host_triple         ? o->host_triple
	                                            : "x86_64-unknown-linux-gnu";
	char **t = ofl_calloc(n + 1, sizeof(*t));
	if (!t)
		return OFL_NOMEM(err);
	int rc = asprintf(&t[0], "host-%s", host) < 0 ? (t[0] = NULL, OFL_NOMEM(err)) : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (!imgs[i].arch || !imgs[i].arch[0]) {
			rc = ofl_error_set(err, OFL_EINVAL, imgs[i].path, OFL_NO_OFFSET,
			                   "hip image %zu has no arch (target ID)", i);
			break;
		}
		struct ofl_buf b = OFL_BUF_INIT;
		if (ofl_buf_printf(&b, "%s-amdgcn-amd-amdhsa--%s%c", o->hipv4 ? "hipv4" : "hip",
		                   imgs[i].arch, 0))
			rc = OFL_NOMEM(err);
		t[i + 1] = (char *)ofl_buf_detach(&b, NULL);
	}
	if (rc)
		ofl_hipfb_targets_free(t, n + 1);
	else
		*targets = t;
	return rc;
}

/* The written IDs, checked as the bundler checks them when bundling. */
static int hipfb_ids(char **targets, size_t n, enum ofl_llvm_dialect d, struct ofl_bundle_id *ids,
                     struct ofl_error *err)
{
	for (size_t i = 0; i < n; i++) {
		int rc = ofl_bundle_id_parse(targets[i], d, &ids[i], err);
		if (rc)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ids[i].str, ids[j].str))
				return ofl_error_set(
				    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
				    "two hip images have the same bundle entry '%s'", ids[i].str);
	}
	const char **tids = ofl_calloc(n, sizeof(*tids));
	if (!tids)
		return OFL_NOMEM(err);
	size_t k = 0, a, b;
	for (size_t i = 1; i < n; i++)
		if (ids[i].target_id[0])
			tids[k++] = ids[i].target_id;
	int rc = ofl_target_id_find_conflict(tids, k, &a, &b, err);
	if (rc == 1)
		rc = ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                   "conflicting hip target IDs '%s' and '%s'", tids[a], tids[b]);
	free(tids);
	return rc;
}

static int hipfb_write(const struct ofl_fatbin_image *imgs, size_t n, struct ofl_bundle_id *ids,
                       struct ofl_buf *out, struct ofl_error *err)
{
	const char **strs = ofl_calloc(n + 1, sizeof(*strs));
	uint64_t *sizes = ofl_calloc(n + 1, sizeof(*sizes));
	uint64_t *offs = ofl_calloc(n + 1, sizeof(*offs));
	int rc = strs && sizes && offs ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i <= n; i++) {
		strs[i] = ids[i].str;
		sizes[i] = i ? imgs[i - 1].size : 0; /* the host input is /dev/null */
	}
	size_t base = out->len;
	if (!rc)
		rc = ofl_bundle_write_header(strs, sizes, n + 1, OFL_HIPFB_ALIGN, out, offs, err);
	/* one allocation for the whole bundle: it ends with the last image */
	if (!rc && ofl_buf_reserve(out, (size_t)(offs[n] + sizes[n] - (out->len - base))))
		rc = OFL_NOMEM(err);
	for (size_t i = 1; !rc && i <= n; i++)
		if (ofl_buf_append_zeros(out, (size_t)(offs[i] - (out->len - base))) ||
		    ofl_buf_append(out, imgs[i - 1].data, imgs[i - 1].size))
			rc = OFL_NOMEM(err);
	free(strs);
	free(sizes);
	free(offs);
	return rc;
}

int ofl_hipfb_build(const struct ofl_fatbin_image *imgs, size_t n,
                    const struct ofl_hipfb_options *o, struct ofl_buf *out, struct ofl_error *err)
{
	char **targets = NULL;
	struct ofl_bundle_id *ids = ofl_calloc(n + 1, sizeof(*ids));
	if (!ids)
		return OFL_NOMEM(err);
	int rc = ofl_hipfb_targets(imgs, n, o, &targets, err);
	rc = rc ? rc : hipfb_ids(targets, n + 1, o->dialect, ids, err);
	if (!rc && !o->compress) {
		rc = hipfb_write(imgs, n, ids, out, err);
	} else if (!rc) {
		/* CCOB wraps the whole bundle */
		struct ofl_buf raw = OFL_BUF_INIT;
		rc = hipfb_write(imgs, n, ids, &raw, err);
		rc = rc ? rc : ofl_ccob_compress(raw.data, raw.len, &o->ccob, out, err);
		ofl_buf_release(&raw);
	}
	for (size_t i = 0; i <= n; i++)
		ofl_bundle_id_release(&ids[i]);
	free(ids);
	ofl_hipfb_targets_free(targets, n + 1);
	return rc;
}

/* ---- CUDA: NVIDIA's fatbinary ---- */

int ofl_fatbinary_find(const char *cuda_path, const char *search_path, char **path,
                       struct ofl_error *err)
{
	struct ofl_buf dir = OFL_BUF_INIT;
	if (ofl_buf_printf(&dir, "%s/bin%c", cuda_path ? cuda_path : "/usr/local/cuda", 0))
		return OFL_NOMEM(err);
	/* "": PATH alone, as clang-linker-wrapper without --cuda-path */
	const char *dirs[1] = {(const char *)dir.data};
	size_t ndirs = cuda_path && !*cuda_path ? 0 : 1;
	*path = ofl_proc_find("fatbinary", dirs, ndirs, search_path);
	int rc = 0;
	if (!*path)
		rc = ofl_error_set(
		    err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		    "cannot find 'fatbinary' %s%s%son PATH; give the CUDA toolkit's location",
		    ndirs ? "in '" : "", ndirs ? dirs[0] : "", ndirs ? "' or " : "");
	ofl_buf_release(&dir);
	return rc;
}

int ofl_fatbinary_probe(const char *tool, enum ofl_fatbinary_syntax *syntax, struct ofl_error *err)
{
	struct ofl_proc p = OFL_PROC_INIT;
	p.capture_stdout = true;
	int rc = ofl_proc_push(&p, tool, err);
	rc = rc ? rc : ofl_proc_push(&p, "--help", err);
	rc = rc ? rc : ofl_proc_run(&p, err);
	if (!rc) {
		/* the help lists "--image3 <image spec>" when the option exists */
		bool found = false;
		for (size_t i = 0; i + 8 <= p.out.len && !found; i++)
			found = !memcmp(p.out.data + i, "--image3", 8);
		*syntax = found ? OFL_FATBINARY_IMAGE3 : OFL_FATBINARY_IMAGE;
	}
	ofl_proc_release(&p);
	return rc;
}

void ofl_fatbin_image_order(const struct ofl_fatbin_image *imgs, size_t n, size_t *order)
{
	/* insertion sort: stable, and image counts are small */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;
		const char *a = imgs[i].arch ? imgs[i].arch : "";
		for (; k > 0; k--) {
			const char *b = imgs[order[k - 1]].arch ? imgs[order[k - 1]].arch : "";
			if (strcmp(b, a) >= 0)
				break;
			order[k] = order[k - 1];
		}
		order[k] = i;
	}
}

/* "sm_90" -> "90"; anything else is refused. */
static const char *sm_number(const struct ofl_fatbin_image *img, struct ofl_error *err)
{
	const char *a = img->arch;
	if (!a || strncmp(a, "sm_", 3) || !a[3] || strspn(a + 3, "0123456789abcdef") == 0) {
		ofl_error_set(err, OFL_EINVAL, img->path, OFL_NO_OFFSET,
		              "cuda image needs an arch of the form sm_NN, got '%s'", a ? a : "");
		return NULL;
	}
	return a + 3;
}

int ofl_cuda_fatbin_argv(const struct ofl_fatbin_image *imgs, size_t n, const char *tool,
                         const struct ofl_cuda_fatbin_options *o, const char *output,
                         struct ofl_proc *cmd, struct ofl_error *err)
{
	int rc = ofl_proc_push(cmd, tool, err);
	rc = rc ? rc : ofl_proc_push(cmd, o->m32 ? "-32" : "-64", err);
	rc = rc ? rc : ofl_proc_push(cmd, "--create", err);
	rc = rc ? rc : ofl_proc_push(cmd, output, err);
	for (size_t i = 0; i < n && !rc; i++) {
		const char *sm = sm_number(&imgs[i], err);
		bool ptx = imgs[i].data && !ofl_is_elf(imgs[i].data, imgs[i].size);
		if (!sm)
			return OFL_EINVAL;
		if (o->syntax == OFL_FATBINARY_IMAGE)
			rc = ofl_proc_pushf(cmd, err, "--image=profile=%s_%s,file=%s",
			                    ptx ? "compute" : "sm", sm, imgs[i].path);
		else
			rc = ofl_proc_pushf(cmd, err, "--image3=kind=%s,sm=%s,file=%s",
			                    ptx ? "ptx" : "elf", sm, imgs[i].path);
	}
	return rc;
}

/* A temporary file name "<dir>/offlink-XXXXXX<suffix>", created empty. */
static char *temp_file(const char *dir, const char *suffix, struct ofl_error *err)
{
	if (!dir || !*dir)
		dir = ".";
	struct ofl_buf b = OFL_BUF_INIT;
	if (ofl_buf_printf(&b, "%s/offlink-XXXXXX%s%c", dir, suffix, 0)) {
		OFL_NOMEM(err);
		return NULL;
	}
	char *path = (char *)ofl_buf_detach(&b, NULL);
	int fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0) {
		ofl_error_errno(err, path, "cannot create a temporary file");
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

struct cuda_job {
	struct ofl_fatbin_image *imgs; /* sorted copies; paths filled in */
	char **temps;                  /* images written out, then the output */
	size_t ntemps;
};

static void cuda_job_release(struct cuda_job *j)
{
	for (size_t i = 0; j->temps && i < j->ntemps; i++) {
		unlink(j->temps[i]);
		free(j->temps[i]);
	}
	free(j->temps);
	free(j->imgs);
}

static char *cuda_temp(struct cuda_job *j, const struct ofl_cuda_fatbin_options *o,
                       const char *suffix, struct ofl_error *err)
{
	char *p = temp_file(o->dir, suffix, err);
	if (p)
		j->temps[j->ntemps++] = p;
	return p;
}

/* Sorted copies of the images, each with a file fatbinary can read. */
static int cuda_prepare(struct cuda_job *j, const struct ofl_fatbin_image *imgs, size_t n,
                        const struct ofl_cuda_fatbin_options *o, struct ofl_error *err)
{
	size_t *order = ofl_calloc(n ? n : 1, sizeof(*order));
	j->imgs = ofl_calloc(n ? n : 1, sizeof(*j->imgs));
	j->temps = ofl_calloc(n + 1, sizeof(*j->temps));
	int rc = order && j->imgs && j->temps ? 0 : OFL_NOMEM(err);
	if (!rc)
		ofl_fatbin_image_order(imgs, n, order);
	for (size_t i = 0; i < n && !rc; i++) {
		j->imgs[i] = imgs[order[i]];
		if (j->imgs[i].path)
			continue;
		char *p = cuda_temp(j, o, ".img", err);
		rc = p ? ofl_write_file(p, j->imgs[i].data, j->imgs[i].size, err) : err->code;
		j->imgs[i].path = p;
	}
	free(order);
	return rc;
}

/* Reads the tool's output, checks it parses, appends it to out. */
static int cuda_collect(const char *path, struct ofl_buf *out, struct ofl_error *err)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_fatbin fb = OFL_FATBIN_INIT;
	int rc = ofl_file_open(&f, path, err);
	if (!rc && !ofl_fatbin_is(f.data, f.size))
		rc = ofl_error_set(err, OFL_EFORMAT, NULL, 0,
		                   "fatbinary wrote no fat binary (no 0xba55ed50 magic)");
	rc = rc ? rc : ofl_fatbin_parse(f.data, f.size, &fb, err);
	if (!rc && ofl_buf_append(out, f.data, f.size))
		rc = OFL_NOMEM(err);
	ofl_fatbin_release(&fb);
	ofl_file_close(&f);
	return rc;
}

int ofl_cuda_fatbin_build(const struct ofl_fatbin_image *imgs, size_t n,
                          const struct ofl_cuda_fatbin_options *o, struct ofl_buf *out,
                          struct ofl_error *err)
{
	/* The steps below read err->code after a failure; err may be NULL. */
	struct ofl_error local = OFL_ERROR_INIT;
	if (!err)
		err = &local;
	if (!n)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "no cuda images");
	struct ofl_cuda_fatbin_options opt = *o;
	char *tool = NULL;
	int rc = o->fatbinary ? 0 : ofl_fatbinary_find(o->cuda_path, o->search_path, &tool, err);
	if (tool)
		opt.fatbinary = tool;
	if (!rc && opt.syntax == OFL_FATBINARY_PROBE)
		rc = ofl_fatbinary_probe(opt.fatbinary, &opt.syntax, err);
	struct cuda_job j = {NULL, NULL, 0};
	struct ofl_proc cmd = OFL_PROC_INIT;
	rc = rc ? rc : cuda_prepare(&j, imgs, n, &opt, err);
	char *output = rc ? NULL : cuda_temp(&j, &opt, ".fatbin", err);
	rc = rc ? rc : output ? 0 : err->code;
	rc = rc ? rc : ofl_cuda_fatbin_argv(j.imgs, n, opt.fatbinary, &opt, output, &cmd, err);
	cmd.running = o->running;
	cmd.stop = o->stop;
	if (!rc && o->log)
		o->log(o->log_ctx, &cmd);
	rc = rc ? rc : ofl_proc_run(&cmd, err);
	rc = rc ? rc : cuda_collect(output, out, err);
	ofl_proc_release(&cmd);
	cuda_job_release(&j);
	free(tool);
	return rc;
}
