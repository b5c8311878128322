/* clang-linker-wrapper 22's names and commands, for the personality's dry
 * run (ofl_link_opts.llvm_wrapper): what LLVM would run for the work
 * offlink does, in LLVM's words, so that scripts and tests reading its
 * --dry-run lines read ours.  Nothing here runs: the bundle offlink
 * writes in process is shown as the clang-offload-bundler command LLVM
 * runs, relocatable mode's in-process edit as its llvm-objcopy command.
 *
 * LLVM names its temporaries <prefix>-XXXXXX.<ext> in $TMPDIR with six
 * random hex digits; ours are in the link's directory, the digits from a
 * counter (a device image's from the hash naming its work), so a dry run
 * prints the same text every time.  The personality's verbose links name
 * their images so too: their lines are LLVM's. */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/fatbin_build.h"

bool ofl_link_llvm_form(const struct ofl_link_opts *o)
{
	return o->llvm_wrapper && o->dry_run;
}

bool ofl_llvm_form(const struct ofl_link *l)
{
	return ofl_link_llvm_form(&l->o);
}

/* The link's output as given (-o), and its file name. */
static const char *output_path(const struct ofl_link *l)
{
	return l->o.output ? l->o.output : "a.out";
}

static const char *output_name(const struct ofl_link *l)
{
	const char *o = output_path(l), *slash = strrchr(o, '/');
	return slash ? slash + 1 : o;
}

/* <prefix>-XXXXXX.<ext>, the digits from the prefix and seed. */
static char *llvm_temp(struct ofl_link *l, const char *prefix, const char *ext, uint64_t seed,
                       struct ofl_error *err)
{
	char name[512];
	unsigned digits = (unsigned)(XXH3_64bits_withSeed(prefix, strlen(prefix), seed) & 0xffffff);
	if (snprintf(name, sizeof(name), "%s-%06x.%s", prefix, digits, ext) >= (int)sizeof(name)) {
		ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "name too long: %s", prefix);
		return NULL;
	}
	return ofl_link_temp(l, name, err);
}

char *ofl_llvm_temp(struct ofl_link *l, const char *prefix, const char *ext, struct ofl_error *err)
{
	unsigned n = __atomic_fetch_add(&l->nllvm_names, 1, __ATOMIC_SEQ_CST);
	return llvm_temp(l, prefix, ext, n, err);
}

/* A triple's architecture ("x86_64", "amdgcn", "nvptx64"). */
static int arch_name_len(const char *triple)
{
	return (int)strcspn(triple, "-");
}

/* "generic" names no architecture in LLVM's file names. */
static const char *arch_in_name(const char *arch)
{
	return strcmp(arch, "generic") ? arch : "";
}

int ofl_llvm_image_names(struct ofl_link *l, const struct link_group *g, uint64_t h, char **img,
                         char **dumpdir, struct ofl_error *err)
{
	char name[600];
	const char *arch = arch_in_name(g->arch);
	if (snprintf(name, sizeof(name), "%s.%.*s.%s-%06llx.img", output_name(l),
	             arch_name_len(g->triple), g->triple, arch,
	             (unsigned long long)(XXH3_64bits_withSeed(&h, sizeof(h), g->kind) &
	                                  0xffffff)) >= (int)sizeof(name))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "name too long: %s",
		                     name);
	if (!(*img = ofl_link_temp(l, name, err)))
		return err->code;
	if (asprintf(dumpdir, "%s.%.*s.%s.img.", output_path(l), arch_name_len(g->triple),
	             g->triple, arch) < 0) {
		*dumpdir = NULL;
		return OFL_NOMEM(err);
	}
	return 0;
}

/* The file name without its directory and last extension, as LLVM's
 * sys::path::stem; an archive member's name is the member's. */
static void stem(const char *unit, char *out, size_t size)
{
	const char *s = unit, *end = unit + strlen(unit);
	const char *open = end > s && end[-1] == ')' ? strchr(s, '(') : NULL;
	if (open) {
		s = open + 1;
		end--;
	}
	for (const char *p = s; p < end; p++)
		if (*p == '/')
			s = p + 1;
	const char *dot = end;
	for (const char *p = end; p > s; p--)
		if (p[-1] == '.') {
			dot = p - 1;
			break;
		}
	if (dot == s) /* ".o": the whole name is the stem */
		dot = end;
	snprintf(out, size, "%.*s", (int)(dot - s), s);
}

char *ofl_llvm_input_name(struct ofl_link *l, const struct link_image *im, struct ofl_error *err)
{
	char s[256], prefix[512];
	stem(l->units[im->unit].name, s, sizeof(s));
	snprintf(prefix, sizeof(prefix), "%s-%s-%s", s, im->triple, im->arch);
	/* one name per image: 23's extraction step and the device link that
	 * reads the file name it alike */
	return llvm_temp(l, prefix, "o", (uint64_t)(im - l->images), err);
}

char *ofl_llvm_bundle_name(struct ofl_link *l, const char *ext, struct ofl_error *err)
{
	return ofl_llvm_temp(l, output_name(l), ext, err);
}

char *ofl_llvm_wrapper_name(struct ofl_link *l, const char *kind, struct ofl_error *err)
{
	char prefix[512];
	snprintf(prefix, sizeof(prefix), "%s.%s.image.wrapper", output_name(l), kind);
	return ofl_llvm_temp(l, prefix, "o", err);
}

/* A tool beside the clang that links LLVM release llvm, as the wrapper
 * finds its own tools in its directory; the bare name when there is none
 * (LLVM's dry run prints missing tools so). */
static char *llvm_tool(const struct ofl_link *l, unsigned llvm, const char *tool)
{
	char *p = ofl_toolchain_llvm_tool(&l->tools, llvm, tool);
	return p ? p : ofl_strdup(tool);
}

/* The clang-offload-bundler command LLVM runs for a HIP fat binary. */
static int log_bundler(struct ofl_link *l, const struct ofl_fatbin_image *fi, size_t n,
                       const struct ofl_hipfb_options *o, unsigned llvm, const char *output,
                       struct ofl_error *err)
{
	struct ofl_proc cmd = OFL_PROC_INIT;
	struct ofl_buf targets = OFL_BUF_INIT;
	char **t = NULL;
	char *tool = llvm_tool(l, llvm, "clang-offload-bundler");
	int rc = tool ? ofl_hipfb_targets(fi, n, o, &t, err) : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i <= n; i++)
		rc = ofl_buf_printf(&targets, "%s%s", i ? "," : "-targets=", t[i]) ? OFL_NOMEM(err)
		                                                                   : 0;
	rc = rc || ofl_proc_push(&cmd, tool, err) || ofl_proc_push(&cmd, "-type=o", err) ||
	     ofl_proc_push(&cmd, "-bundle-align=4096", err);
	if (!rc && o->compress)
		rc = ofl_proc_push(&cmd, "-compress", err);
	if (!rc && o->ccob.level != INT32_MIN)
		rc = ofl_proc_pushf(&cmd, err, "-compression-level=%d", o->ccob.level);
	rc = rc || ofl_proc_push(&cmd, (const char *)targets.data, err) ||
	     ofl_proc_push(&cmd, "-input=/dev/null", err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = ofl_proc_pushf(&cmd, err, "-input=%s", fi[i].path);
	rc = rc || ofl_proc_pushf(&cmd, err, "-output=%s", output);
	if (!rc)
		free(ofl_link_log_command(l, &cmd));
	ofl_hipfb_targets_free(t, n + 1);
	ofl_buf_release(&targets);
	ofl_proc_release(&cmd);
	free(tool);
	return rc ? err->code : 0;
}

/* The fatbinary command LLVM runs for a CUDA fat binary (images sorted). */
static int log_fatbinary(struct ofl_link *l, const struct ofl_fatbin_image *fi, size_t n,
                         unsigned llvm, const char *output, struct ofl_error *err)
{
	struct ofl_cuda_fatbin_options o = OFL_CUDA_FATBIN_OPTIONS_INIT;
	struct ofl_proc cmd = OFL_PROC_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	size_t *order = ofl_calloc(n + 1, sizeof(*order));
	struct ofl_fatbin_image *sorted = ofl_calloc(n + 1, sizeof(*sorted));
	char *tool = NULL;
	int rc = order && sorted ? 0 : OFL_NOMEM(err);
	if (!rc && ofl_fatbinary_find(l->o.cuda_path, l->o.search_path, &tool, &ignored))
		tool = ofl_strdup("fatbinary");
	o.syntax = ofl_llvm_old_wrapper(llvm) ? OFL_FATBINARY_IMAGE : OFL_FATBINARY_IMAGE3;
	if (!rc)
		ofl_fatbin_image_order(fi, n, order);
	for (size_t i = 0; !rc && i < n; i++)
		sorted[i] = fi[order[i]];
	rc = rc     ? rc
	     : tool ? ofl_cuda_fatbin_argv(sorted, n, tool, &o, output, &cmd, err)
	            : OFL_NOMEM(err);
	if (!rc)
		free(ofl_link_log_command(l, &cmd));
	ofl_proc_release(&cmd);
	free(tool);
	free(sorted);
	free(order);
	return rc;
}

int ofl_llvm_log_fatbin(struct ofl_link *l, bool hip, const struct ofl_fatbin_image *fi, size_t n,
                        const struct ofl_hipfb_options *o, unsigned llvm, struct ofl_error *err)
{
	char *output = ofl_llvm_bundle_name(l, hip ? "hipfb" : "fatbin", err);
	if (!output)
		return err->code;
	l->llvm_bundle = output;
	return hip ? log_bundler(l, fi, n, o, llvm, output, err)
	           : log_fatbinary(l, fi, n, llvm, output, err);
}

/* ---- LLVM 23's discrete steps (its verbose mode runs them as tools) ---- */

bool ofl_llvm_steps(const struct ofl_link *l)
{
	return ofl_llvm_form(l) && l->o.verbose && l->o.llvm_release >= 23;
}

/* The release whose tools the steps name: the newest a group's code is
 * of, else the newest installed. */
static unsigned steps_llvm(const struct ofl_link *l)
{
	unsigned llvm = 0;
	for (size_t g = 0; g < l->ngroups; g++)
		if (l->groups[g].nimages && l->groups[g].llvm > llvm)
			llvm = l->groups[g].llvm;
	return llvm ? llvm : l->o.llvm_roots[0] ? ofl_llvm_newest(l->o.llvm_roots[0]) : 0;
}

static int log_argv(struct ofl_link *l, struct ofl_proc *cmd, int rc)
{
	if (!rc)
		free(ofl_link_log_command(l, cmd));
	ofl_proc_release(cmd);
	return rc;
}

/* Marks in taken[] the images some group links. */
static void taken_images(const struct ofl_link *l, bool *taken)
{
	for (size_t g = 0; g < l->ngroups; g++)
		for (size_t k = 0; k < l->groups[g].nall; k++) {
			const struct link_image *im = ofl_group_image(l, g, k);
			if (im)
				taken[im - l->images] = true;
		}
}

/* "lib.a(m.o)": m.o; NULL for a unit that is a file of its own. */
static const char *member_of(const struct ofl_link *l, const struct link_unit *u, size_t *len)
{
	const char *open = strchr(u->name + strlen(l->files[u->file].in.path), '(');
	if (!l->files[u->file].nunits || l->files[u->file].kind != FILE_ARCHIVE || !open)
		return NULL;
	*len = strlen(open + 1) - 1;
	return open + 1;
}

/* One unit's taken images, as llvm-offload-binary extracts them. */
static int log_unit_extract(struct ofl_link *l, const char *tool, size_t u, const bool *taken,
                            struct ofl_error *err)
{
	const struct link_unit *un = &l->units[u];
	struct ofl_proc cmd = OFL_PROC_INIT;
	size_t mlen = 0, n = 0;
	const char *member = member_of(l, un, &mlen);
	int rc =
	    ofl_proc_push(&cmd, tool, err) || ofl_proc_push(&cmd, l->files[un->file].in.path, err);
	for (size_t i = un->first_image; !rc && i < un->first_image + un->nimages; i++) {
		const struct link_image *im = &l->images[i];
		if (!taken[i] || im->legacy)
			continue;
		char *file = ofl_llvm_input_name(l, im, err);
		rc = !file ||
		     ofl_proc_pushf(&cmd, err, "--image=kind=%s,triple=%s,arch=%s%s%.*s,file=%s",
		                    ofl_offload_kind_name(im->b.offload_kind, OFL_LLVM_23),
		                    im->triple, im->arch, member ? ",member=" : "", (int)mlen,
		                    member ? member : "", file);
		n++;
	}
	if (!rc && !n) {
		ofl_proc_release(&cmd);
		return 0;
	}
	return log_argv(l, &cmd, rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0);
}

int ofl_llvm_log_extract(struct ofl_link *l, struct ofl_error *err)
{
	bool *taken = ofl_calloc(l->nimages + 1, sizeof(*taken));
	char *tool = taken ? llvm_tool(l, steps_llvm(l), "llvm-offload-binary") : NULL;
	int rc = tool ? 0 : OFL_NOMEM(err);
	if (!rc)
		taken_images(l, taken);
	for (size_t u = 0; !rc && u < l->nunits; u++)
		rc = log_unit_extract(l, tool, u, taken, err);
	free(tool);
	free(taken);
	return rc;
}

/* OpenMP: each linked image packed into <image>.offload, as 23 does. */
static int log_pack(struct ofl_link *l, const char *tool, const struct link_group *g,
                    struct ofl_proc *wrap, struct ofl_error *err)
{
	struct ofl_proc cmd = OFL_PROC_INIT;
	char prefix[512];
	bool cpu = !strcmp(g->arch, "generic") || !*g->arch;
	snprintf(prefix, sizeof(prefix), "%s.%.*s.%s", output_name(l), arch_name_len(g->triple),
	         g->triple, arch_in_name(g->arch));
	char *out = ofl_llvm_temp(l, prefix, "offload", err);
	int rc = !out || ofl_proc_push(&cmd, tool, err) || ofl_proc_push(&cmd, "-o", err) ||
	         ofl_proc_push(&cmd, out, err) ||
	         ofl_proc_pushf(&cmd, err, "--image=file=%s,kind=openmp,triple=%s,arch=%s",
	                        g->output ? g->output : "", g->triple, cpu ? "" : g->arch) ||
	         ofl_proc_push(wrap, out, err);
	return log_argv(l, &cmd, rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0);
}

int ofl_llvm_log_wrap(struct ofl_link *l, enum ofl_wrap_kind kind, const size_t *order, size_t n,
                      const char *object, struct ofl_error *err)
{
	static const char *const kinds[] = {"openmp", "cuda", "hip", "sycl"};
	unsigned llvm = steps_llvm(l);
	char *binary = llvm_tool(l, llvm, "llvm-offload-binary"),
	     *wrapper = llvm_tool(l, llvm, "llvm-offload-wrapper"),
	     *clang = ofl_toolchain_clang(&l->tools, llvm), prefix[512];
	snprintf(prefix, sizeof(prefix), "%s.%s.image.wrapper", output_name(l), kinds[kind]);
	char *bc = ofl_llvm_temp(l, prefix, "bc", err);
	struct ofl_proc wrap = OFL_PROC_INIT, cc = OFL_PROC_INIT;
	int rc = !binary || !wrapper || !bc || ofl_proc_push(&wrap, wrapper, err) ||
	         ofl_proc_pushf(&wrap, err, "--kind=%s", kinds[kind]) ||
	         ofl_proc_pushf(&wrap, err, "--triple=%s", l->o.host_triple) ||
	         ofl_proc_push(&wrap, "-o", err) || ofl_proc_push(&wrap, bc, err) ||
	         (kind == OFL_WRAP_OPENMP && l->o.relocatable &&
	          ofl_proc_push(&wrap, "--relocatable", err));
	for (size_t i = 0; !rc && kind == OFL_WRAP_OPENMP && i < n; i++)
		rc = log_pack(l, binary, &l->groups[order[i]], &wrap, err);
	/* the fat binary; SYCL's one linked image, clang-sycl-linker's */
	const char *in = kind == OFL_WRAP_SYCL ? l->groups[order[0]].output : l->llvm_bundle;
	if (!rc && kind != OFL_WRAP_OPENMP)
		rc = ofl_proc_push(&wrap, in ? in : "", err);
	rc = log_argv(l, &wrap, rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0);
	rc = rc || ofl_proc_push(&cc, clang ? clang : "clang", err) ||
	     ofl_proc_push(&cc, "--no-default-config", err) ||
	     ofl_proc_pushf(&cc, err, "--target=%s", l->o.host_triple) ||
	     ofl_proc_push(&cc, "-c", err) || ofl_proc_push(&cc, "-fPIC", err) ||
	     ofl_proc_push(&cc, "-o", err) || ofl_proc_push(&cc, object, err) ||
	     ofl_proc_push(&cc, bc, err);
	rc = log_argv(l, &cc, rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0);
	free(binary);
	free(wrapper);
	free(clang);
	return rc;
}

/* ---- the host link, re-rendered as LLVM's option table prints it ---- */

int ofl_llvm_push_arg(const struct ofl_ldarg *a, struct ofl_argv *v, struct ofl_error *err)
{
	const char *w = a->word[0], *flag = NULL;
	if (a->opt == OFL_LD_OUTPUT && strncmp(w, "-out:", 5))
		flag = "-o";
	else if (a->opt == OFL_LD_LIBPATH && strncmp(w, "-libpath:", 9))
		flag = "-L";
	else if (a->kind == OFL_LDARG_LIBRARY)
		flag = "-l";
	else if (a->opt == OFL_LD_RPATH && (a->nwords == 1 || strcmp(w, "-rpath")) && w[1] != 'R')
		flag = "--rpath";
	else if (a->opt == OFL_LD_RELOCATABLE && (!strcmp(w, "-r") || !strcmp(w, "--relocatable")))
		return ofl_argv_push(v, "--relocatable", err);
	if (flag)
		return ofl_argv_push(v, flag, err) || ofl_argv_push(v, a->value, err)
		           ? OFL_NOMEM(err)
		           : 0;
	for (unsigned i = 0; i < a->nwords; i++)
		if (ofl_argv_push(v, a->word[i], err))
			return OFL_NOMEM(err);
	return 0;
}

/* ---- relocatable mode's llvm-objcopy ---- */

int ofl_link_llvm_objcopy(const struct ofl_link *l, const char *output, struct ofl_argv *v,
                          struct ofl_error *err)
{
	unsigned llvm = l->o.llvm_roots[0] ? ofl_llvm_newest(l->o.llvm_roots[0]) : 0;
	for (size_t g = 0; g < l->ngroups; g++)
		if (l->groups[g].nimages && l->groups[g].llvm)
			llvm = l->groups[g].llvm;
	bool old = ofl_llvm_old_wrapper(llvm);
	/* a dry run has no output: LLVM hashes nothing then */
	char hash[17];
	ofl_entry_hash(NULL, 0, hash);
	char *tool = llvm_tool(l, llvm, "llvm-objcopy");
	int rc = !tool || ofl_argv_push(v, tool, err) || ofl_argv_push(v, output, err) ||
	         ofl_argv_push(v, "--remove-section", err) ||
	         ofl_argv_push(v, ".llvm.offloading", err);
	const char *const *secs = ofl_entry_sections() + (old ? 1 : 0);
	for (size_t i = 0; !rc && i < (old ? 3u : 1u); i++) {
		char s[160];
		snprintf(s, sizeof(s), "%s=%s_%s", secs[i], secs[i], hash);
		rc = ofl_argv_push(v, "--rename-section", err) || ofl_argv_push(v, s, err);
		for (int k = 0; !rc && k < 2; k++) {
			const char *b = k ? "__stop_" : "__start_";
			snprintf(s, sizeof(s), "%s%s=%s%s_%s", b, secs[i], b, secs[i], hash);
			rc = ofl_argv_push(v, "--redefine-sym", err) || ofl_argv_push(v, s, err);
		}
	}
	free(tool);
	return rc ? (err->code ? err->code : OFL_NOMEM(err)) : 0;
}
