/* The device actions of a plan (docs/design.md, "Device links"): one clang
 * command per group of images, built before any runs, each hermetic: its
 * inputs are files named by their content's hash and its output by the hash
 * of its inputs, so a launcher (recc) or the cache sees the same command
 * for the same work and no temporary name reaches an output.  The inputs'
 * bytes are written only when the command runs (run/action.c), never for
 * one the cache answers. */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "cache_priv.h"
#include "internal.h"
#include "link_priv.h"
#include "offlink/archive.h"
#include "offlink/proc.h"
#include "toolchain.h"

/* gold names a shared object's base version after its output, as given
 * (the link's temporary directory) unless it has a soname: the image's
 * own name, so two links of the same inputs write the same bytes. */
static int push_gold_soname(const struct link_group *g, struct ofl_proc *cmd, struct ofl_error *err)
{
	const char *slash = strrchr(g->output, '/');
	return ofl_proc_pushf(cmd, err, "-Wl,-soname,%s", slash ? slash + 1 : g->output);
}

/* The "[<triple>=]arg" values that apply to triple, each after -Xlinker
 * when xlinker. */
static int push_scoped(const char *const *args, size_t n, const char *triple, bool xlinker,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *v = ofl_scoped_arg(args[i], triple);
		if (!v)
			continue;
		rc = (xlinker && ofl_proc_push(cmd, "-Xlinker", err)) || ofl_proc_push(cmd, v, err);
	}
	return rc ? err->code : 0;
}

/* The "-Xlinker <flag>X" words of each value in v (n of them). */
static int push_xlinker(const char *flag, const char *const *v, size_t n, struct ofl_proc *cmd,
                        struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = ofl_proc_push(cmd, "-Xlinker", err) ||
		     ofl_proc_pushf(cmd, err, "%s%s", flag, v[i]);
	return rc ? err->code : 0;
}

/* The target-specific part of the command, before the inputs, as the
 * linker wrapper of the LLVM that made the code writes it.  LLVM 19 links
 * at its --opt-level (-O2 unless given), bitcode already through its own LTO (so no
 * -flto), and CPU code for the host's CPU when the image names none;
 * LLVM 20+ leaves AMDGPU bitcode to lld's LTO (-flto), with the LTO
 * options given (--plugin-opt).  Old-driver HIP links as clang --hip-link
 * runs lld. */
static int push_target(struct ofl_link *l, const struct link_group *g, const char *fast,
                       struct ofl_proc *cmd, struct ofl_error *err)
{
	enum ofl_family fam = ofl_family(g->triple);
	bool v19 = ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	if (fam == OFL_FAM_UNKNOWN)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "no device linker for target '%s'", g->triple);
	int rc = ofl_proc_pushf(cmd, err, "--target=%s", g->triple);
	if (!rc && fam == OFL_FAM_CPU && (ofl_arch_given(g->arch) || v19))
		rc = ofl_proc_pushf(cmd, err, "-march=%s",
		                    ofl_arch_given(g->arch) ? g->arch : "native");
	if (!rc && fam == OFL_FAM_AMDGPU && ofl_arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-mcpu=%s", g->arch);
	if (!rc && fam == OFL_FAM_NVPTX && ofl_arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-march=%s", g->arch);
	char o19[] = {'-', 'O', ofl_devlink_opt_level(l), '\0'};
	const char *opt = v19 ? o19 : fam == OFL_FAM_AMDGPU ? "-flto" : NULL;
	if (!rc && opt)
		rc = ofl_proc_push(cmd, opt, err);
	/* what the old driver's lld link of HIP code objects adds */
	if (!rc && fam == OFL_FAM_AMDGPU && g->legacy)
		rc = ofl_proc_push(cmd, "-Wl,-plugin-opt=-amdgpu-internalize-symbols", err) ||
		     ofl_proc_push(cmd, "-Wl,--lto-partitions=8", err);
	if (!rc && !v19 && !g->legacy)
		rc = push_xlinker("--plugin-opt=", l->o.lto_opts, l->o.nlto_opts, cmd, err);
	if (!rc && fast)
		rc = ofl_proc_pushf(cmd, err, "-fuse-ld=%s", fast);
	if (!rc && (fam == OFL_FAM_CPU || fam == OFL_FAM_AMDGPU))
		rc = ofl_proc_push(cmd, "-Wl,--no-undefined", err);
	return rc ? err->code : 0;
}

/* A host link argument of a CPU device link as LLVM prints it: -L, -l and
 * -rpath with their values in separate words. */
static int push_llvm_cpu_arg(const char *a, struct ofl_proc *cmd, struct ofl_error *err)
{
	static const char *const forms[][2] = {
	    {"-Wl,-rpath,", "-rpath"}, {"-L", "-L"}, {"-l", "-l"}};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t n = strlen(forms[i][0]);
		if (!strncmp(a, forms[i][0], n))
			return ofl_proc_push(cmd, forms[i][1], err) ||
			               ofl_proc_push(cmd, a + n, err)
			           ? err->code
			           : 0;
	}
	return ofl_proc_push(cmd, a, err);
}

/* After the inputs: a CPU image is a shared object that resolves against
 * the host's runtime and libraries (the OpenMP runtime's unless the
 * driver passed it, as clang does to clang-linker-wrapper). */
static int push_cpu_libs(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                         struct ofl_error *err)
{
	if (ofl_family(g->triple) != OFL_FAM_CPU)
		return 0;
	int rc = ofl_proc_push(cmd, "-Wl,-Bsymbolic", err) || ofl_proc_push(cmd, "-shared", err);
	for (size_t i = 0; !rc && i < l->cpu_args.n; i++)
		rc = ofl_llvm_form(l) ? push_llvm_cpu_arg(l->cpu_args.v[i], cmd, err)
		                      : ofl_proc_push(cmd, l->cpu_args.v[i], err);
	if (l->o.llvm_wrapper)
		return rc ? err->code : 0;
	if (!rc && g->runtime_dir)
		rc = ofl_proc_pushf(cmd, err, "-L%s", g->runtime_dir);
	if (!rc && g->kind == OFL_OFK_OPENMP)
		rc = ofl_proc_push(cmd, "-lomp", err) || ofl_proc_push(cmd, "-lomptarget", err);
	return rc ? err->code : 0;
}

/* Many inputs of a CPU link go in one archive, linked whole: one file to
 * write and remove instead of hundreds (file creation costs up to 0.5 ms
 * each on a slow disk).  Members are named by their hash, the archive by
 * the hash of all of them; ELF linkers read it as the same inputs in the
 * same order. */
static int push_archive(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, uint64_t *h,
                        struct ofl_error *err)
{
	size_t n = l->groups[gi].nimages;
	struct ofl_ar_input *m = ofl_calloc(n, sizeof(*m));
	char(*names)[24] = ofl_calloc(n, sizeof(*names));
	struct ofl_buf ar = OFL_BUF_INIT;
	size_t k = 0;
	int rc = m && names ? 0 : OFL_NOMEM(err);
	for (size_t i = 0; !rc && i < l->groups[gi].nall; i++) {
		const struct link_image *im = ofl_group_image(l, gi, i);
		if (!im)
			continue;
		const struct ofl_obin *b = &im->b;
		uint64_t ih = XXH3_64bits(b->image, b->image_size);
		snprintf(names[k], sizeof(names[k]), "%016llx.o", (unsigned long long)ih);
		m[k] = (struct ofl_ar_input){names[k], b->image, b->image_size};
		k++;
		*h = XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
	char name[32];
	snprintf(name, sizeof(name), "%016llx.a", (unsigned long long)*h);
	char *path = rc ? NULL : ofl_link_temp(l, name, err);
	rc = rc ? rc : !path ? err->code : ofl_archive_write_gnu(m, k, &ar, err);
	size_t len = 0;
	uint8_t *bytes = rc ? NULL : ofl_buf_detach(&ar, &len);
	if (!rc)
		rc = ofl_devlink_defer(l, gi, path, bytes, len, bytes, err);
	if (!rc &&
	    (ofl_proc_push(cmd, "-Wl,--whole-archive", err) || ofl_proc_push(cmd, path, err) ||
	     ofl_proc_push(cmd, "-Wl,--no-whole-archive", err)))
		rc = err->code;
	ofl_buf_release(&ar);
	free(names);
	free(m);
	return rc;
}

/* The group's images as inputs of the command; *h mixes in their hashes.
 * LLVM 19 runs its own LTO over the bitcode first (lto19.c), which
 * may make the image itself (OFL_DEVLINK_EMBEDDED). */
static int push_inputs(struct ofl_link *l, size_t gi, const char *clang, struct ofl_proc *cmd,
                       uint64_t *h, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	int rc = ofl_llvm_old_wrapper(g->llvm) && !g->legacy
	             ? ofl_devlink_lto19(l, gi, clang, cmd, h, err)
	             : 1;
	if (rc != 1)
		return rc;
	bool llvm = ofl_llvm_form(l);
	if (g->nimages > 1 && ofl_family(g->triple) == OFL_FAM_CPU && !llvm)
		return push_archive(l, gi, cmd, h, err);
	rc = 0;
	for (size_t i = 0; !rc && i < g->nall; i++) {
		const struct link_image *im = ofl_group_image(l, gi, i);
		uint64_t ih = 0;
		if (!im)
			continue;
		char *name =
		    llvm ? ofl_llvm_input_name(l, im, err) : ofl_devlink_input(l, gi, im, &ih, err);
		rc = name ? ofl_proc_push(cmd, name, err) : err->code;
		*h = llvm ? *h : XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
	return rc;
}

/* After the device runtime: LLVM 20+'s -mllvm options, --save-temps
 * and --embed-bitcode's --lto-emit-llvm for the device linker, the
 * user's linker arguments. */
static int push_linker_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                            struct ofl_error *err)
{
	bool v20 = !ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	int rc = v20 ? push_xlinker("-mllvm=", l->o.mllvm, l->o.nmllvm, cmd, err) : 0;
	if (!rc && v20 && l->o.llvm_wrapper && l->o.save_temps)
		rc = ofl_proc_push(cmd, "-Wl,--save-temps", err);
	if (!rc && v20 && l->o.embed_bitcode)
		rc = ofl_proc_push(cmd, "-Wl,--lto-emit-llvm", err);
	return rc ? rc
	          : push_scoped(l->o.device_linker_args, l->o.ndevice_linker_args, g->triple, true,
	                        cmd, err);
}

/* The clang arguments last: what LLVM 20+'s driver hands the linker
 * wrapper (the optimisation level; for HIP -flto-partitions=8, verified
 * with 22), the user's, and for NVPTX the CUDA toolkit (l->cuda: what
 * LLVM 19's driver passes and its wrapper forwards; LLVM 22's forwards
 * none, its device clang finding the toolkit itself); a driver that runs
 * the personality passed its own. */
static int push_compiler_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                              struct ofl_error *err)
{
	enum ofl_family fam = ofl_family(g->triple);
	bool driver = !l->o.llvm_wrapper, v20 = !ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	int rc = 0;
	if (driver && v20 && *l->o.opt_level)
		rc = ofl_proc_pushf(cmd, err, "-O%s", l->o.opt_level);
	if (!rc && driver && fam == OFL_FAM_AMDGPU && g->kind == OFL_OFK_HIP && v20)
		rc = ofl_proc_push(cmd, "-flto-partitions=8", err);
	rc = rc ? rc
	        : push_scoped(l->o.device_compiler_args, l->o.ndevice_compiler_args, g->triple,
	                      false, cmd, err);
	/* what LLVM 19's wrapper adds under --wrapper-verbose */
	if (!rc && !driver && !v20 && l->o.verbose)
		rc = ofl_proc_push(cmd, "-v", err);
	if (!rc && fam == OFL_FAM_NVPTX && *l->cuda && (driver || !v20))
		rc = ofl_proc_pushf(cmd, err, "--cuda-path=%s", l->cuda);
	return rc;
}

/* clang, -o and (LLVM 20+: where clang's temporaries go, beside the
 * output) -dumpdir, both with empty values filled once the inputs name
 * the output; *slot is -o's index. */
static int push_head(struct ofl_link *l, const struct link_group *g, const char *clang,
                     struct ofl_proc *cmd, size_t *slot, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->o.nlauncher; i++)
		rc = ofl_proc_push(cmd, l->o.launcher[i], err);
	rc = rc || ofl_proc_push(cmd, clang, err) || ofl_proc_push(cmd, "--no-default-config", err);
	*slot = cmd->argc;
	rc = rc || ofl_proc_push(cmd, "-o", err) || ofl_proc_push(cmd, "", err);
	if (!rc && !ofl_llvm_old_wrapper(g->llvm) && !g->legacy)
		rc = ofl_proc_push(cmd, "-dumpdir", err) || ofl_proc_push(cmd, "", err);
	return rc ? err->code : 0;
}

/* The output path named by h (LLVM's dry run, and the personality's
 * verbose link, whose lines show it: by LLVM's rule), into -o's and
 * -dumpdir's slots. */
static int name_output(struct ofl_link *l, struct link_group *g, uint64_t h, struct ofl_proc *cmd,
                       size_t slot, struct ofl_error *err)
{
	char name[64], *dump = NULL;
	snprintf(name, sizeof(name), "%016llx.img", (unsigned long long)h);
	bool llvm = ofl_llvm_form(l) || (l->o.llvm_wrapper && l->o.verbose);
	if (llvm ? ofl_llvm_image_names(l, g, h, &g->output, &dump, err)
	         : !(g->output = ofl_link_temp(l, name, err)))
		return err->code;
	if (!dump && asprintf(&dump, "%s.", g->output) < 0)
		return OFL_NOMEM(err);
	bool dumpdir = slot + 2 < cmd->argc && !strcmp(cmd->argv[slot + 2], "-dumpdir");
	free(cmd->argv[slot + 1]);
	if (!(cmd->argv[slot + 1] = ofl_strdup(g->output))) {
		free(dump);
		return OFL_NOMEM(err);
	}
	if (!dumpdir) {
		free(dump);
		return 0;
	}
	free(cmd->argv[slot + 3]);
	cmd->argv[slot + 3] = dump;
	return 0;
}

/* The CPU linker clang's links use (ofl_toolchain_cpu_linker), looked for
 * once per link; NULL when out of memory too. */
static const char *cpu_linker(struct ofl_link *l, const char *clang)
{
	static const char *const names[] = {NULL, "lld", "gold"};
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&l->memo.cpu_linkers, clang, 0, &s, &added))
		return NULL;
	if (added) {
		const char *found = ofl_toolchain_cpu_linker(clang, l->o.search_path);
		s->value = !found ? 0 : !strcmp(found, "lld") ? 1 : 2;
	}
	return names[s->value];
}

/* The clang that links release llvm (ofl_toolchain_clang), looked for
 * once per link; owned, NULL when there is none (or no memory). */
static char *link_clang(struct ofl_link *l, unsigned llvm)
{
	char name[16];
	struct ofl_symslot *s;
	bool added;
	snprintf(name, sizeof(name), "%u", llvm);
	if (ofl_symset_add(&l->memo.clangs, name, 0, &s, &added))
		return NULL;
	char *c = added ? ofl_toolchain_clang(&l->tools, llvm) : NULL;
	if (c && !ofl_argv_push(&l->memo.clang_paths, c, NULL))
		s->value = (uint32_t)l->memo.clang_paths.n;
	free(c);
	return s->value ? ofl_strdup(l->memo.clang_paths.v[s->value - 1]) : NULL;
}

/* Group gi's device link (after its LTO step, for LLVM 19's bitcode); its
 * output path goes to g->output. */
static int plan_group(struct ofl_link *l, size_t gi, struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	char *clang = link_clang(l, g->llvm);
	if (!clang)
		return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                     "no clang to link %s device code: looked for "
		                     "<root>/llvm-<N>/bin/clang and clang on PATH",
		                     g->triple);
	size_t slot = 0;
	uint64_t h =
	    XXH3_64bits(g->triple, strlen(g->triple)) ^ XXH3_64bits(g->arch, strlen(g->arch));
	const char *fast =
	    ofl_family(g->triple) == OFL_FAM_CPU && !ofl_llvm_form(l) ? cpu_linker(l, clang) : NULL;
	struct ofl_proc cmd = OFL_PROC_INIT;
	int rc = push_head(l, g, clang, &cmd, &slot, err);
	rc = rc ? rc : push_target(l, g, fast, &cmd, err);
	rc = rc ? rc : push_inputs(l, gi, clang, &cmd, &h, err);
	if (rc == OFL_DEVLINK_EMBEDDED) {
		/* the image is LTO's bitcode: no device link */
		ofl_proc_release(&cmd);
		free(clang);
		return 0;
	}
	rc = rc ? rc : push_cpu_libs(l, g, &cmd, err);
	rc = rc ? rc : ofl_devrt_push(l, g, clang, &cmd, err);
	rc = rc ? rc : push_linker_args(l, g, &cmd, err);
	rc = rc ? rc : push_compiler_args(l, g, &cmd, err);
	rc = rc ? rc : name_output(l, g, h, &cmd, slot, err);
	rc = rc || !fast || strcmp(fast, "gold") ? rc : push_gold_soname(g, &cmd, err);
	struct link_action *a = rc ? NULL : ofl_devlink_new_action(l, gi, false, &cmd, err);
	if (a) {
		a->output = g->output;
		a->image = true;
		/* fatbinary reads NVPTX images by name; kept temporaries are
		 * files */
		a->file = ofl_target_nvptx(g->triple) || l->o.save_temps;
	}
	ofl_proc_release(&cmd);
	free(clang);
	return a ? 0 : rc ? rc : err->code;
}

/* The CUDA toolkit NVPTX device links get (l->cuda), from a link that
 * has some: the one given, else the one clang's driver would find (LLVM
 * 19's driver passes it to its wrapper, which gives it to the device
 * clang; without it that clang looks for nvlink on PATH alone).  A driver
 * that runs the personality passed its own, or none: "" then. */
static int find_cuda(struct ofl_link *l, struct ofl_error *err)
{
	bool nvptx = false;
	for (size_t g = 0; g < l->ngroups; g++)
		nvptx = nvptx || (l->groups[g].nimages && ofl_target_nvptx(l->groups[g].triple));
	if (!nvptx)
		return 0;
	const char *given = l->o.cuda_path;
	int rc = ofl_toolchain_cuda(given, l->o.search_path, l->cuda, sizeof(l->cuda), err);
	if (!rc && !given && *l->cuda)
		ofl_link_logf(l, OFL_LOG_DECISION, "%s: the CUDA toolkit of NVPTX device links",
		              l->cuda);
	return rc;
}

/* The cache the options name, opened once device links are planned (a
 * link without device code makes no directory; the plan keeps what
 * clang's driver said there); one that cannot be opened is a warning. */
static void open_cache(struct ofl_link *l)
{
	struct ofl_error err = OFL_ERROR_INIT;
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	if (l->cache || !l->o.cache || l->o.dry_run ||
	    !ofl_cache_open(&l->cache, l->o.cache, &l->cancelled, &err))
		return;
	ofl_error_format(&err, msg, sizeof(msg));
	ofl_link_logf(l, OFL_LOG_WARNING, "no device-link cache: %s", msg);
}

/* Each action hermetic: its environment, what it runs, what it reads. */
static int seal(struct ofl_link *l, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->nactions; i++) {
		struct link_action *a = &l->actions[i];
		rc = ofl_action_env(l, a, err);
		rc = rc ? rc : ofl_expand(l, a, err);
		rc = rc ? rc : ofl_declare(l, a, err);
	}
	return rc;
}

int ofl_devlink_plan(struct ofl_link *l, struct ofl_error *err)
{
	bool any = false;
	for (size_t g = 0; g < l->ngroups; g++)
		any = any || l->groups[g].nimages;
	if (any)
		open_cache(l);
	int rc = find_cuda(l, err);
	for (size_t g = 0; !rc && g < l->ngroups; g++)
		if (l->groups[g].nimages)
			rc = plan_group(l, g, err);
	return rc ? rc : seal(l, err);
}
