/* LLVM 19's device LTO.  LLVM 19's clang-linker-wrapper links a group's
 * bitcode itself, in process (llvm::lto: the full-LTO pipeline at O2, PIC,
 * the CPU and features the images name), before the device link; the
 * result, an object (for NVPTX assembly, which ptxas assembles), goes to
 * the device clang first, then the group's other (ELF) inputs.  Handing
 * the bitcode to the device clang instead gives other code: lld's LTO puts
 * every function and datum in a section of its own, clang-nvlink-wrapper
 * runs ptxas at -O3.  offlink has no libLLVM, so the same LTO runs as that
 * release's llvm-lto2, beside its clang, at the wrapper's --opt-level
 * (-O<n>, and --cg-opt-level=<n> for its code generator; O2 when not
 * given), with the symbol resolutions the wrapper computes, read from the
 * irsymtabs:
 *
 *   p  prevailing: a definition, the first of its name;
 *   x  kept: named by an ELF input of the group, or prevailing, not hidden
 *      and not omittable from the symbol table;
 *   l  local: defined, not common, not of default visibility.
 *
 * (The wrapper also keeps symbols placed in a section whose name is a C
 * identifier; the irsymtab's section names are not read here, so such a
 * symbol is kept only by the other rules.)  The command is hermetic like
 * the device link's: inputs named by their hash, the output by the hash
 * of all of them.
 *
 * With --embed-bitcode (-fopenmp-target-jit) the wrapper keeps the module
 * as LTO's optimisation leaves it, before code generation, and that
 * bitcode is the image, for the runtime to compile: no device link.
 * llvm-lto2 writes the same module with --select-save-temps=opt
 * (<out>.0.4.opt.bc), except that saving temporaries keeps the local
 * value names the wrapper's LTO drops: the same code, other bytes.
 * (LLVM 19's clang-nvlink-wrapper --lto-emit-llvm drops them, but
 * resolves symbols as a linker: undefined weak ones become dso_local,
 * other code.)  The wrapper refuses it when some inputs are
 * bitcode and others not (one module must be the whole program), and
 * links a group without bitcode as usual. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/bitcode.h"
#include "offlink/proc.h"
#include "toolchain.h"

struct lto {
	struct ofl_link *l;
	const struct link_group *g;
	size_t gi;
	struct ofl_symset regular;    /* names in the group's ELF inputs */
	struct ofl_symset prevailing; /* names an earlier bitcode input defines */
	struct ofl_proc cmd;
	uint64_t h; /* mixes the bitcode inputs' hashes */
};

static bool is_bitcode(const struct link_image *im)
{
	return ofl_bitcode_is(im->b.image, im->b.image_size);
}

static int note_regular(void *ctx, const char *name, bool defined)
{
	struct ofl_symslot *s;
	bool added;
	(void)defined;
	return ofl_symset_add(ctx, name, 0, &s, &added);
}

/* The names the group's ELF inputs use; the number of bitcode inputs. */
static size_t scan_inputs(struct lto *t, struct ofl_error *err)
{
	const struct ofl_link *l = t->l;
	size_t nbc = 0;
	for (size_t k = 0; !err->code && k < l->groups[t->gi].nall; k++) {
		const struct link_image *im = ofl_group_image(l, t->gi, k);
		if (!im)
			continue;
		if (is_bitcode(im))
			nbc++;
		else if (ofl_image_symbols(im->b.image, im->b.image_size, note_regular, &t->regular,
		                           err) < 0)
			ofl_error_locate(err, l->units[im->unit].name, 0);
	}
	return nbc;
}

/* The images' target features, unified as the wrapper does: split at
 * commas and read from the last, the first "+x" or "-x" of each x kept,
 * in that order. */
static int push_features(struct lto *t, struct ofl_error *err)
{
	struct ofl_buf all = OFL_BUF_INIT, out = OFL_BUF_INIT;
	struct ofl_symset seen = OFL_SYMSET_INIT;
	char **tok = NULL, *save = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (size_t k = 0; !rc && k < t->g->nall; k++) {
		const struct link_image *im = ofl_group_image(t->l, t->gi, k);
		const char *f = im && is_bitcode(im) ? ofl_obin_get(&im->b, "feature") : NULL;
		if (f && (ofl_buf_append(&all, f, strlen(f)) || ofl_buf_append(&all, ",", 1)))
			rc = OFL_NOMEM(err);
	}
	if (!rc && ofl_buf_append(&all, "", 1))
		rc = OFL_NOMEM(err);
	for (char *f = rc ? NULL : strtok_r((char *)all.data, ",", &save); f;
	     f = strtok_r(NULL, ",", &save))
		if (OFL_GROW(tok, cap, n))
			rc = OFL_NOMEM(err);
		else
			tok[n++] = f;
	for (size_t i = n; !rc && i-- > 0;) {
		struct ofl_symslot *slot;
		bool added;
		if (ofl_symset_add(&seen, tok[i] + 1, 0, &slot, &added) ||
		    (added && ((out.len && ofl_buf_append(&out, ",", 1)) ||
		               ofl_buf_append(&out, tok[i], strlen(tok[i])))))
			rc = OFL_NOMEM(err);
	}
	if (!rc && out.len)
		rc = ofl_proc_pushf(&t->cmd, err, "-mattr=%.*s", (int)out.len, (char *)out.data);
	free(tok);
	ofl_symset_release(&seen);
	ofl_buf_release(&all);
	ofl_buf_release(&out);
	return rc;
}

/* With partitions (partition.c): the module code generation would start
 * from, written as saving temporaries writes it (<out>.0.5.precodegen.bc),
 * and no code generation: it stops before its first pass, its output
 * (<out>.0) empty. */
static int push_precodegen(struct lto *t, struct ofl_error *err)
{
	return ofl_proc_push(&t->cmd, "--select-save-temps=precodegen", err) ||
	               ofl_proc_push(&t->cmd, "--filetype=null", err) ||
	               ofl_proc_push(&t->cmd, "--stop-before=pre-isel-intrinsic-lowering", err)
	           ? err->code
	           : 0;
}

/* llvm-lto2 beside clang, its options, and "-o" with an empty value
 * (filled once the inputs are known). */
static int push_tool(struct lto *t, const char *clang, struct ofl_error *err)
{
	const struct link_group *g = t->g;
	char *tool = ofl_toolchain_beside(clang, "llvm-lto2");
	if (!tool)
		return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                     "LLVM %u links device bitcode itself (in-process LTO) before "
		                     "the device link; offlink runs the same LTO with llvm-lto2, "
		                     "which is not beside %s",
		                     g->llvm, clang);
	int rc = 0;
	char level = ofl_devlink_opt_level(t->l);
	for (size_t i = 0; !rc && i < t->l->o.nlauncher; i++)
		rc = ofl_proc_push(&t->cmd, t->l->o.launcher[i], err);
	rc = rc || ofl_proc_push(&t->cmd, tool, err) || ofl_proc_push(&t->cmd, "run", err) ||
	     ofl_proc_pushf(&t->cmd, err, "-O%c", level) ||
	     (level != '2' && ofl_proc_pushf(&t->cmd, err, "--cg-opt-level=%c", level)) ||
	     (t->l->o.embed_bitcode && ofl_proc_push(&t->cmd, "--select-save-temps=opt", err)) ||
	     (g->parts > 1 && push_precodegen(t, err)) ||
	     ofl_proc_push(&t->cmd, "--relocation-model=pic", err) ||
	     /* the processor of an AMD target ID; its features come from the
	      * images (push_features), as the wrapper's */
	     (ofl_arch_given(g->arch) &&
	      ofl_proc_pushf(&t->cmd, err, "-mcpu=%.*s", (int)strcspn(g->arch, ":"), g->arch)) ||
	     push_features(t, err) ||
	     (ofl_target_nvptx(g->triple) && g->parts <= 1 &&
	      ofl_proc_push(&t->cmd, "--filetype=asm", err)) ||
	     ofl_proc_push(&t->cmd, "-o", err) || ofl_proc_push(&t->cmd, "", err);
	free(tool);
	return rc ? err->code : 0;
}

/* llvm-lto2's flags for one symbol, by the wrapper's rules (above). */
static int resolution(struct lto *t, const struct ofl_bcsym *s, const char *name, char *flags)
{
	bool undef = s->flags & OFL_BCSYM_UNDEFINED, prevailing = false;
	struct ofl_symslot *slot;
	if (!undef && ofl_symset_add(&t->prevailing, name, 0, &slot, &prevailing))
		return -1;
	bool kept = ofl_symset_find(&t->regular, name) ||
	            (prevailing && s->visibility != 1 && !(s->flags & OFL_BCSYM_MAY_OMIT));
	bool local = s->visibility != 0 && !undef && !(s->flags & OFL_BCSYM_COMMON);
	snprintf(flags, 4, "%s%s%s", prevailing ? "p" : "", local ? "l" : "", kept ? "x" : "");
	return 0;
}

/* One bitcode input: its file, and "-r <path>,<symbol>,<flags>" for each
 * symbol LTO sees of it (the global, not format-specific ones), in the
 * irsymtab's order. */
static int push_bitcode(struct lto *t, const struct link_image *im, struct ofl_error *err)
{
	struct ofl_bcsymtab tab = OFL_BCSYMTAB_INIT;
	uint64_t ih;
	const char *path = ofl_devlink_input(t->l, t->gi, im, &ih, err);
	int rc = path ? ofl_proc_push(&t->cmd, path, err) : err->code;
	if (!rc)
		t->h = XXH3_64bits_withSeed(&ih, sizeof(ih), t->h);
	rc = rc ? rc : ofl_bitcode_symtab(im->b.image, im->b.image_size, &tab, err);
	char *name = NULL;
	for (size_t i = 0; !rc && i < tab.n; i++) {
		const struct ofl_bcsym *s = &tab.syms[i];
		char flags[4];
		if (!(s->flags & OFL_BCSYM_GLOBAL) || (s->flags & OFL_BCSYM_FORMAT_SPECIFIC))
			continue;
		free(name);
		if (!(name = ofl_strndup(s->name, s->len)) || resolution(t, s, name, flags))
			rc = OFL_NOMEM(err);
		else if (ofl_proc_push(&t->cmd, "-r", err) ||
		         ofl_proc_pushf(&t->cmd, err, "%s,%s,%s", path, name, flags))
			rc = err->code;
	}
	free(name);
	ofl_bitcode_symtab_release(&tab);
	if (rc)
		ofl_error_locate(err, t->l->units[im->unit].name, 0);
	return rc;
}

/* The command over the group's bitcode; its output's path, or NULL. */
static const char *build(struct lto *t, const char *clang, struct ofl_error *err)
{
	int rc = push_tool(t, clang, err);
	size_t out_slot = t->cmd.argc - 1;
	for (size_t k = 0; !rc && k < t->g->nall; k++) {
		const struct link_image *im = ofl_group_image(t->l, t->gi, k);
		if (im && is_bitcode(im))
			rc = push_bitcode(t, im, err);
	}
	/* with partitions, named by the group (the split's words the same
	 * after an edit); else by the inputs */
	bool parts = t->g->parts > 1;
	char name[64];
	snprintf(name, sizeof(name), "%016llx.lto", (unsigned long long)t->h);
	char *out = rc      ? NULL
	            : parts ? ofl_partition_name(t->l, t->gi, ".lto", err)
	                    : ofl_link_temp(t->l, name, err);
	/* llvm-lto2 writes task 0's output to <out>.0, its optimised module
	 * to <out>.0.4.opt.bc, the module before code generation to
	 * <out>.0.5.precodegen.bc */
	snprintf(name, sizeof(name), "%s.0%s", out ? strrchr(out, '/') + 1 : "",
	         t->l->o.embed_bitcode ? ".4.opt.bc"
	         : parts               ? ".5.precodegen.bc"
	                               : "");
	const char *obj = out ? ofl_link_temp(t->l, name, err) : NULL;
	if (!obj)
		return NULL;
	free(t->cmd.argv[out_slot]);
	t->cmd.argv[out_slot] = ofl_strdup(out);
	return t->cmd.argv[out_slot] ? obj : (OFL_NOMEM(err), NULL);
}

/* The LTO output first (assembly for NVPTX), then the other inputs. */
static int push_link_inputs(struct lto *t, const char *obj, struct ofl_proc *link, uint64_t *h,
                            struct ofl_error *err)
{
	const struct ofl_argv *parts = &t->g->part_objs;
	bool as = ofl_target_nvptx(t->g->triple) && !parts->n;
	int rc =
	    (as && (ofl_proc_push(link, "-x", err) || ofl_proc_push(link, "assembler", err))) ||
	    (!parts->n && ofl_proc_push(link, obj, err)) ||
	    (as && (ofl_proc_push(link, "-x", err) || ofl_proc_push(link, "none", err)));
	/* with partitions, their objects (cubins) instead */
	for (size_t k = 0; !rc && k < parts->n; k++)
		rc = ofl_proc_push(link, parts->v[k], err);
	*h = XXH3_64bits_withSeed(&t->h, sizeof(t->h), *h);
	for (size_t k = 0; !rc && k < t->g->nall; k++) {
		const struct link_image *im = ofl_group_image(t->l, t->gi, k);
		uint64_t ih;
		const char *path =
		    im && !is_bitcode(im) ? ofl_devlink_input(t->l, t->gi, im, &ih, err) : NULL;
		if (path && !ofl_proc_push(link, path, err))
			*h = XXH3_64bits_withSeed(&ih, sizeof(ih), *h);
		rc = err->code;
	}
	return rc ? err->code : 0;
}

static void lto_release(struct lto *t)
{
	ofl_proc_release(&t->cmd);
	ofl_symset_release(&t->regular);
	ofl_symset_release(&t->prevailing);
}

int ofl_devlink_lto19(struct ofl_link *l, size_t gi, const char *clang, struct ofl_proc *link,
                      uint64_t *h, struct ofl_error *err)
{
	struct lto t = {l, &l->groups[gi], gi, OFL_SYMSET_INIT, OFL_SYMSET_INIT, OFL_PROC_INIT, 0};
	size_t nbc = scan_inputs(&t, err);
	struct link_group *g = &l->groups[gi];
	bool embed = l->o.embed_bitcode;
	int rc = err->code ? err->code : nbc ? 0 : 1;
	if (embed && !rc && nbc != g->nimages)
		rc = ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                   "--embed-bitcode (-fopenmp-target-jit) needs every input of "
		                   "the %s %s link to be LLVM bitcode, as LLVM %u's "
		                   "clang-linker-wrapper does; %zu of %zu are",
		                   g->triple, g->arch, g->llvm, nbc, g->nimages);
	const char *obj = rc ? NULL : build(&t, clang, err);
	struct link_action *a = obj ? ofl_devlink_new_action(l, gi, true, &t.cmd, err) : NULL;
	if (a) {
		a->output = (char *)obj;
		/* with --embed-bitcode the optimised module is the image; else
		 * the device link reads it */
		a->image = embed;
		a->file = !embed || l->o.save_temps;
		if (embed)
			g->output = (char *)obj;
	}
	rc = rc ? rc : !a ? err->code : 0;
	/* its code generation in partitions, or (the step's words not all
	 * known) the group linked whole after all */
	int parts = !rc && g->parts > 1 ? ofl_partition_plan(l, gi, a, clang, err) : 0;
	if (parts == 1) {
		ofl_devlink_drop_last(l);
		lto_release(&t);
		return ofl_devlink_lto19(l, gi, clang, link, h, err);
	}
	rc = rc      ? rc
	     : parts ? parts
	     : embed ? OFL_DEVLINK_EMBEDDED
	             : push_link_inputs(&t, obj, link, h, err);
	lto_release(&t);
	return rc;
}
