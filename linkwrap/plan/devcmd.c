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
#include "offlink/driver.h"
#include "offlink/bitcode.h"
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

/* The "[<triple>=]arg" values that apply to group g (by its LLVM's rule),
 * each after -Xlinker when xlinker. */
static int push_scoped(const struct ofl_link *l, const char *const *args, size_t n,
                       const struct link_group *g, bool xlinker, struct ofl_proc *cmd,
                       struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *v = ofl_scoped_arg(args[i], g->triple, l->main_rules);
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

/* AMDGPU's -mcpu: the arch when it names a processor (as LLVM writes
 * it); for a clang given the legacy spelling of an amdgpu triple, the
 * processor its sub-architecture names (which a clang of main derives
 * itself).  Not in LLVM's form of the command. */
static int push_mcpu(const struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                     struct ofl_error *err)
{
	char cpu[64];
	bool respelled = !ofl_llvm_form(l) && strcmp(g->clang_triple, g->triple);
	if (ofl_arch_given(g->arch))
		return ofl_proc_pushf(cmd, err, "-mcpu=%s", g->arch);
	ofl_target_cpu(g->triple, g->arch, cpu, sizeof(cpu));
	return respelled && *cpu ? ofl_proc_pushf(cmd, err, "-mcpu=%s", cpu) : 0;
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
	int rc =
	    ofl_proc_pushf(cmd, err, "--target=%s", ofl_llvm_form(l) ? g->triple : g->clang_triple);
	if (!rc && l->o.no_canonical_prefixes)
		rc = ofl_proc_push(cmd, "-no-canonical-prefixes", err);
	if (!rc && fam == OFL_FAM_CPU && (ofl_arch_given(g->arch) || v19))
		rc = ofl_proc_pushf(cmd, err, "-march=%s",
		                    ofl_arch_given(g->arch) ? g->arch : "native");
	if (!rc && fam == OFL_FAM_AMDGPU)
		rc = push_mcpu(l, g, cmd, err);
	if (!rc && (fam == OFL_FAM_NVPTX || fam == OFL_FAM_SPIRV) && ofl_arch_given(g->arch))
		rc = ofl_proc_pushf(cmd, err, "-march=%s", g->arch);
	char o19[] = {'-', 'O', ofl_devlink_opt_level(l), '\0'};
	const char *opt = v19 ? o19 : fam == OFL_FAM_AMDGPU ? "-flto" : NULL;
	if (!rc && opt)
		rc = ofl_proc_push(cmd, opt, err);
	/* what the old driver's lld link of HIP code objects adds: 20 and
	 * later also --lto-partitions=8, 19 none (clang --hip-link -###) */
	if (!rc && fam == OFL_FAM_AMDGPU && g->legacy)
		rc = ofl_proc_push(cmd, "-Wl,-plugin-opt=-amdgpu-internalize-symbols", err) ||
		     (!ofl_llvm_old_wrapper(g->llvm) &&
		      ofl_proc_push(cmd, "-Wl,--lto-partitions=8", err));
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

/* After its code generation in partitions (partition.c): the partitions'
 * objects, then the group's images that are not bitcode. */
static int push_parts(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, uint64_t *h,
                      struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	int rc = 0;
	for (size_t k = 0; !rc && k < g->part_objs.n; k++) {
		/* named by the group, in the link's folder: the name alone */
		const char *base = strrchr(g->part_objs.v[k], '/') + 1;
		rc = ofl_proc_push(cmd, g->part_objs.v[k], err);
		*h = XXH3_64bits_withSeed(base, strlen(base), *h);
	}
	for (size_t i = 0; !rc && i < g->nall; i++) {
		const struct link_image *im = ofl_group_image(l, gi, i);
		uint64_t ih;
		if (!im || ofl_bitcode_is(im->b.image, im->b.image_size))
			continue;
		char *name = ofl_devlink_input(l, gi, im, &ih, err);
		rc = name ? ofl_proc_push(cmd, name, err) : err->code;
		*h = XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
	}
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
	if (g->part_objs.n)
		return push_parts(l, gi, cmd, h, err);
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

/* The command is the LTO step of a group whose code generation runs in
 * partitions (partition.c): its partitions are not planned yet. */
static bool lto_pass(const struct link_group *g)
{
	return g->parts > 1 && !g->part_objs.n;
}

/* After the device runtime: LLVM 20+'s -mllvm options, --save-temps
 * and --embed-bitcode's --lto-emit-llvm for the device linker; SYCL's
 * device link through clang's --sycl-link (clang-sycl-linker), its target
 * as LLVM 22 and 23 give it (a generic arch empty); the user's linker
 * arguments. */
static int push_linker_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                            struct ofl_error *err)
{
	bool v20 = !ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	int rc = v20 ? push_xlinker("-mllvm=", l->o.mllvm, l->o.nmllvm, cmd, err) : 0;
	if (!rc && v20 && l->o.llvm_wrapper && l->o.save_temps)
		rc = ofl_proc_push(cmd, "-Wl,--save-temps", err);
	/* the module LTO would generate code for: the image, or the
	 * partitions' (partition.c) */
	if (!rc && v20 && (l->o.embed_bitcode || lto_pass(g)))
		rc = ofl_proc_push(cmd, "-Wl,--lto-emit-llvm", err);
	if (!rc && g->kind == OFL_OFK_SYCL)
		rc = ofl_proc_push(cmd, "--sycl-link", err) ||
		             ofl_proc_push(cmd, "-Xlinker", err) ||
		             ofl_proc_pushf(cmd, err, "-triple=%s", g->triple) ||
		             ofl_proc_push(cmd, "-Xlinker", err) ||
		             ofl_proc_pushf(cmd, err, "-arch=%s",
		                            strcmp(g->arch, "generic") ? g->arch : "")
		         ? err->code
		         : 0;
	/* the whole module: LTO in partitions of its own (a driver's
	 * -flto-partitions=8) writes each over the last */
	if (!rc && v20 && lto_pass(g))
		rc = ofl_proc_push(cmd,
		                   ofl_target_nvptx(g->triple) ? "-Wl,--plugin-opt=lto-partitions=1"
		                                               : "-Wl,--lto-partitions=1",
		                   err);
	return rc ? rc
	          : push_scoped(l, l->o.device_linker_args, l->o.ndevice_linker_args, g, true, cmd,
	                        err);
}

/* The clang arguments last: what LLVM 20+'s driver hands the linker
 * wrapper (the optimisation level; for HIP -flto-partitions=8, verified
 * with 22), the user's, and for NVPTX the CUDA toolkit (l->cuda: what
 * LLVM 19's driver passes and its wrapper forwards; LLVM 22's forwards
 * none, its device clang finding the toolkit itself); a driver that runs
 * the personality passed its own.  Old-driver HIP gets the level on every
 * route: clang --hip-link gives lld -plugin-opt=O<n> for its -O<x>, and
 * the device clang maps -O<x> to the same O<n> (19 and 22, -###). */
static int push_compiler_args(struct ofl_link *l, const struct link_group *g, struct ofl_proc *cmd,
                              struct ofl_error *err)
{
	enum ofl_family fam = ofl_family(g->triple);
	bool driver = !l->o.llvm_wrapper, v20 = !ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	int rc = 0;
	if (((driver && v20) || g->legacy) && *l->o.opt_level)
		rc = ofl_proc_pushf(cmd, err, "-O%s", l->o.opt_level);
	if (!rc && driver && fam == OFL_FAM_AMDGPU && g->kind == OFL_OFK_HIP && v20 &&
	    g->parts <= 1)
		rc = ofl_proc_push(cmd, "-flto-partitions=8", err);
	rc = rc ? rc
	        : push_scoped(l, l->o.device_compiler_args, l->o.ndevice_compiler_args, g, false,
	                      cmd, err);
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
	if (lto_pass(g)
	        ? !(g->output = ofl_partition_name(l, (size_t)(g - l->groups), ".lto.bc", err))
	    : llvm ? ofl_llvm_image_names(l, g, h, &g->output, &dump, err)
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

/* Group gi's device link command (LLVM 19's LTO step planned first; with
 * partitions, the LTO step that writes the module, or after them the
 * link of their objects), its output in g->output. */
static int build(struct ofl_link *l, size_t gi, const char *clang, struct ofl_proc *cmd,
                 struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	size_t slot = 0;
	uint64_t h =
	    XXH3_64bits(g->triple, strlen(g->triple)) ^ XXH3_64bits(g->arch, strlen(g->arch));
	const char *fast =
	    ofl_family(g->triple) == OFL_FAM_CPU && !ofl_llvm_form(l) ? cpu_linker(l, clang) : NULL;
	int rc = push_head(l, g, clang, cmd, &slot, err);
	rc = rc ? rc : push_target(l, g, fast, cmd, err);
	rc = rc ? rc : push_inputs(l, gi, clang, cmd, &h, err);
	if (rc == OFL_DEVLINK_EMBEDDED)
		return rc;
	rc = rc ? rc : push_cpu_libs(l, g, cmd, err);
	rc = rc ? rc : ofl_devrt_push(l, g, clang, cmd, err);
	rc = rc ? rc : push_linker_args(l, g, cmd, err);
	rc = rc ? rc : push_compiler_args(l, g, cmd, err);
	rc = rc ? rc : name_output(l, g, h, cmd, slot, err);
	return rc || !fast || strcmp(fast, "gold") ? rc : push_gold_soname(g, cmd, err);
}

/* An action hermetic: its environment, what it runs, what it reads. */
static int seal(struct ofl_link *l, struct link_action *a, struct ofl_error *err)
{
	int rc = ofl_action_env(l, a, err);
	rc = rc ? rc : ofl_expand(l, a, err);
	return rc ? rc : ofl_declare(l, a, err);
}

/* LLVM 20+'s LTO step of a group whose code generation runs in
 * partitions, and the partitions' actions; the group linked whole when
 * the step's words hold an option offlink does not map (g->parts 1). */
static int plan_partitions(struct ofl_link *l, size_t gi, const char *clang, struct ofl_error *err)
{
	struct ofl_proc cmd = OFL_PROC_INIT;
	int rc = build(l, gi, clang, &cmd, err);
	struct link_action *a = rc ? NULL : ofl_devlink_new_action(l, gi, true, &cmd, err);
	ofl_proc_release(&cmd);
	if (!a)
		return rc ? rc : err->code;
	a->output = l->groups[gi].output;
	a->file = true;
	/* its jobs say what code generation takes */
	a->expand = true;
	rc = seal(l, a, err);
	rc = rc ? rc : ofl_partition_plan(l, gi, a, clang, err);
	if (rc == 1)
		ofl_devlink_drop_last(l);
	return rc == 1 ? 0 : rc;
}

/* Group gi's device link (after its LTO step, for LLVM 19's bitcode; after
 * its partitions); its output path goes to g->output. */
static int plan_group(struct ofl_link *l, size_t gi, struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	char *clang = link_clang(l, g->llvm);
	if (!clang)
		return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                     "no clang to link %s device code: looked for "
		                     "<root>/llvm-<N>/bin/clang and clang on PATH",
		                     g->triple);
	char spelled[256];
	ofl_target_for_clang(g->triple, ofl_clang_release(clang), spelled, sizeof(spelled));
	free(g->clang_triple);
	if (!(g->clang_triple = ofl_strdup(spelled))) {
		free(clang);
		return OFL_NOMEM(err);
	}
	bool v19 = ofl_llvm_old_wrapper(g->llvm) && !g->legacy;
	struct ofl_proc cmd = OFL_PROC_INIT;
	ofl_partition_count(l, gi, clang);
	int rc = v19 || g->parts <= 1 ? 0 : plan_partitions(l, gi, clang, err);
	rc = rc ? rc : build(l, gi, clang, &cmd, err);
	if (rc == OFL_DEVLINK_EMBEDDED) {
		/* the image is LTO's bitcode: no device link */
		ofl_proc_release(&cmd);
		free(clang);
		return 0;
	}
	struct link_action *a = rc ? NULL : ofl_devlink_new_action(l, gi, false, &cmd, err);
	if (a) {
		a->output = g->output;
		a->image = true;
		/* fatbinary reads NVPTX images by name; kept temporaries are
		 * files */
		a->file = ofl_target_nvptx(g->triple) || l->o.save_temps;
		rc = g->part_objs.n ? ofl_partition_deps(l, a, err) : 0;
	}
	ofl_proc_release(&cmd);
	free(clang);
	return a ? rc : rc ? rc : err->code;
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
	for (size_t i = 0; !rc && i < l->nactions; i++)
		rc = l->actions[i].env ? 0 : seal(l, &l->actions[i], err);
	return rc;
}
