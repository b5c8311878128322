/* Device code generation in partitions (docs/design.md, "Partitions").
 * A device LTO link spends most of its time generating code (llc's work
 * inside the LTO step, then ptxas for NVPTX), on one core.  The plan keeps
 * LLVM's LTO exactly (the release's own linker runs it) but stops it before
 * code generation, where it writes the optimised module; llvm-split cuts
 * that module into N partitions by the MD5 of each global's name (LLVM's
 * own SplitModule, as LTO's --lto-partitions does; AMDGPU's splitter for
 * AMDGPU, which keeps each kernel with the functions it calls, as the
 * backend needs to know a kernel's registers); each partition's code
 * generation (llc with the LTO step's options) and, for NVPTX, its ptxas
 * are actions of their own, run side by side; the device link then links
 * the partitions' objects.  Each action is cached by what it reads, so a
 * relink after an edit runs the LTO step and the split again, and code
 * generation only for the partitions whose module changed: a function
 * stays in its partition whatever else changes, since its partition is
 * its name's.
 *
 * N comes from the link's inputs (the size of the group's device
 * bitcode), never from the machine: every machine writes the same image.
 * --device-partitions=N (or OFFLINK_DEVICE_PARTITIONS) sets it; 1 is the
 * link LLVM runs, its bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/bitcode.h"
#include "offlink/proc.h"
#include "toolchain.h"

/* Device bitcode per partition, and the least that is worth splitting:
 * below it the processes' start-up and the split cost more than the
 * cores give back (a partition of 256 KiB takes some 2 s to generate and
 * assemble for sm_90). */
#define PART_BYTES ((uint64_t)256 << 10)
#define PART_MIN 2
#define PART_AUTO_MAX 64

/* Peak memory, estimated from the size of what a tool reads (measured:
 * llc some 70 MiB for a small module, ptxas 20x its PTX, 19 GB for the
 * 920 MB of llvm-project#216890). */
#define MIB ((uint64_t)1 << 20)
#define LLC_BASE (96 * MIB)
#define LLC_FACTOR 16
#define PTXAS_BASE (64 * MIB)
#define PTXAS_FACTOR 24

/* What code generation takes from the LTO step's words. */
struct cg {
	char cpu[64];
	char attrs[512];
	char lto_level, cg_level; /* '0'..'3'; '\0': not given */
	bool pic;
	bool sections; /* lld's: a section per function and datum, address-significance tables */
	/* NVPTX: ptxas's level ('\0': the tool's default), -g, -v; where it is */
	char ptxas_level;
	bool ptxas_g, verbose;
	char *ptxas;       /* owned */
	char *opt, *llc;   /* beside the device clang (owned) */
	char unknown[128]; /* the first word that may change code generation, or "" */
};

static uint64_t bitcode_bytes(const struct ofl_link *l, size_t gi)
{
	uint64_t n = 0;
	for (size_t k = 0; k < l->groups[gi].nall; k++) {
		const struct link_image *im = ofl_group_image(l, gi, k);
		if (im && ofl_bitcode_is(im->b.image, im->b.image_size))
			n += im->b.image_size;
	}
	return n;
}

/* Why group gi is linked whole whatever its size, or NULL. */
static const char *whole(const struct ofl_link *l, const struct link_group *g, const char *clang)
{
	static const char *const tools[][2] = {
	    {"llvm-split", "no llvm-split beside the device clang"},
	    {"llc", "no llc beside the device clang"},
	    {"opt", "no opt beside the device clang"}};
	/* opt renames NVPTX's names alone */
	size_t ntools = ofl_target_nvptx(g->triple) ? 3 : 2;
	if (g->legacy)
		return "the old HIP driver's link";
	if (l->o.embed_bitcode)
		return "the image is the optimised module (--embed-bitcode)";
	if (ofl_llvm_form(l))
		return "LLVM's commands shown";
	if (ofl_family(g->triple) == OFL_FAM_SPIRV || ofl_family(g->triple) == OFL_FAM_UNKNOWN)
		return "no code generation offlink splits for this target";
	for (size_t i = 0; i < ntools; i++) {
		char *p = ofl_toolchain_beside(clang, tools[i][0]);
		free(p);
		if (!p)
			return tools[i][1];
	}
	return NULL;
}

/* --explain's line on group g's partitions (g->parts_why). */
static void say_parts(struct ofl_link *l, const struct link_group *g)
{
	ofl_link_logf(l, OFL_LOG_DECISION, "device partitions for %s%s%s: %s", g->triple,
	              *g->arch ? " " : "", g->arch, g->parts_why);
}

void ofl_partition_count(struct ofl_link *l, size_t gi, const char *clang)
{
	struct link_group *g = &l->groups[gi];
	uint64_t bytes = bitcode_bytes(l, gi);
	unsigned given = l->o.device_partitions;
	const char *no = bytes ? whole(l, g, clang) : "no device bitcode";
	g->parts = 1;
	if (given == 1)
		snprintf(g->parts_why, sizeof(g->parts_why), "1, as %s gives it: LLVM's link",
		         l->o.device_partitions_from);
	else if (no)
		snprintf(g->parts_why, sizeof(g->parts_why), "1: %s", no);
	else if (given) {
		g->parts = given;
		snprintf(g->parts_why, sizeof(g->parts_why), "%u, as %s gives it", given,
		         l->o.device_partitions_from);
	} else if (bytes < PART_MIN * PART_BYTES)
		snprintf(g->parts_why, sizeof(g->parts_why),
		         "1: %llu KiB of device bitcode, less than the %llu KiB worth splitting",
		         (unsigned long long)(bytes >> 10),
		         (unsigned long long)(PART_MIN * PART_BYTES >> 10));
	else {
		uint64_t n = bytes / PART_BYTES;
		g->parts = n > PART_AUTO_MAX ? PART_AUTO_MAX : (unsigned)n;
		snprintf(g->parts_why, sizeof(g->parts_why),
		         "%u, from %llu KiB of device bitcode (one per %llu KiB, at most %d)",
		         g->parts, (unsigned long long)(bytes >> 10),
		         (unsigned long long)(PART_BYTES >> 10), PART_AUTO_MAX);
	}
	say_parts(l, g);
}

/* ---- the LTO step's words ------------------------------------------------ */

static const char *after(const char *w, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(w, *prefixes, strlen(*prefixes)))
			return w + strlen(*prefixes);
	return NULL;
}

static void add_attrs(struct cg *c, const char *v)
{
	size_t n = strlen(c->attrs);
	snprintf(c->attrs + n, sizeof(c->attrs) - n, "%s%s", n ? "," : "", v);
}

static char level(const char *v)
{
	return v[0] >= '0' && v[0] <= '3' && !v[1] ? v[0] : '\0';
}

/* An LTO option (ld.lld's -plugin-opt=, clang-nvlink-wrapper's
 * --plugin-opt=): the ones clang's driver gives, which code generation
 * takes from the step (the processor, its features, the level) or that
 * do not touch it; any other is noted. */
static void plugin_opt(struct cg *c, const char *w, const char *v)
{
	static const char *const cpu[] = {"mcpu=", NULL};
	static const char *const attrs[] = {"mattr=", "-mattr=", NULL};
	static const char *const inert[] = {
	    "jobs=", "lto-partitions=", "-amdgpu-internalize-symbols", NULL};
	const char *x;
	if ((x = after(v, cpu)))
		snprintf(c->cpu, sizeof(c->cpu), "%s", x);
	else if ((x = after(v, attrs)))
		add_attrs(c, x);
	else if (v[0] == 'O' && level(v + 1))
		c->lto_level = v[1];
	else if (!after(v, inert) && !*c->unknown)
		snprintf(c->unknown, sizeof(c->unknown), "%s", w);
}

/* ld.lld's words: LTO at -plugin-opt=O<n> (code generation at O3 for O3,
 * else O2, unless --lto-CGO<n>), PIC for a shared object, a section per
 * function and datum and address-significance tables always. */
static void lld_words(struct cg *c, const struct ofl_argv *job)
{
	static const char *const popt[] = {"-plugin-opt=", "--plugin-opt=", NULL};
	static const char *const lto_o[] = {"--lto-O", "-lto-O", NULL};
	static const char *const cgo[] = {"--lto-CGO", "-lto-CGO", NULL};
	static const char *const lto_inert[] = {
	    "--lto-partitions=", "-lto-partitions=", "--lto-emit-llvm", NULL};
	static const char *const llvm_opts[] = {"--lto-", "-lto-", "-mllvm", "--mllvm", NULL};
	c->sections = true;
	for (size_t i = 1; i < job->n; i++) {
		const char *w = job->v[i], *v;
		if ((v = after(w, popt)))
			plugin_opt(c, w, v);
		else if ((v = after(w, lto_o)) && level(v))
			c->lto_level = v[0];
		else if ((v = after(w, cgo)) && level(v))
			c->cg_level = v[0];
		else if (!strcmp(w, "-shared") || !strcmp(w, "-pie") || !strcmp(w, "--pie"))
			c->pic = true;
		else if (!after(w, lto_inert) && after(w, llvm_opts) && !*c->unknown)
			snprintf(c->unknown, sizeof(c->unknown), "%s", w);
	}
	if (!c->cg_level)
		c->cg_level = c->lto_level == '3' ? '3' : '2';
}

/* ptxas in the toolkit's bin/ (cuda, or NULL), else on the device links'
 * PATH; owned, or NULL. */
static char *find_ptxas(char *const *env, const char *cuda)
{
	char *bin = NULL;
	if (cuda && asprintf(&bin, "%s/bin", cuda) < 0)
		return NULL;
	const char *dirs[1] = {bin};
	char *p = ofl_proc_find("ptxas", dirs, bin ? 1 : 0, ofl_proc_env_get(env, "PATH"));
	free(bin);
	return p;
}

/* clang-nvlink-wrapper's words: its LTO and code generation at
 * --plugin-opt=O<n> (O2 unless given), PIC as LTO's default; then ptxas at
 * the same -O<n> (O3 unless given; O0 with -g), from --ptxas-path, else
 * --cuda-path's bin/, else PATH.  (Words it does not know go to nvlink.) */
static void nvlink_words(char *const *env, struct cg *c, const struct ofl_argv *job)
{
	static const char *const popt[] = {"--plugin-opt=", "-plugin-opt=", NULL};
	static const char *const llvm_opts[] = {"--lto-", "-mllvm", NULL};
	const char *cuda = NULL, *ptxas = NULL, *v;
	c->pic = true;
	for (size_t i = 1; i < job->n; i++) {
		const char *w = job->v[i];
		if (!strcmp(w, "-arch") && i + 1 < job->n)
			snprintf(c->cpu, sizeof(c->cpu), "%s", job->v[++i]);
		else if (!strcmp(w, "--feature") && i + 1 < job->n)
			add_attrs(c, job->v[++i]);
		else if ((v = after(w, popt)))
			plugin_opt(c, w, v);
		else if (!strcmp(w, "-g") || !strcmp(w, "--debug"))
			c->ptxas_g = true;
		else if (!strcmp(w, "-v"))
			c->verbose = true;
		else if (!strncmp(w, "--cuda-path=", 12))
			cuda = w + 12;
		else if (!strncmp(w, "--ptxas-path=", 13))
			ptxas = w + 13;
		else if (strcmp(w, "--lto-emit-llvm") && after(w, llvm_opts) && !*c->unknown)
			snprintf(c->unknown, sizeof(c->unknown), "%s", w);
	}
	c->cg_level = c->lto_level ? c->lto_level : '2';
	c->ptxas_level = c->lto_level;
	c->ptxas = ptxas ? ofl_strdup(ptxas) : find_ptxas(env, cuda);
}

/* LLVM 19's llvm-lto2 words (lto19.c's): its level, code generation's
 * (--cg-opt-level, O2 unless given), the relocation model, processor and
 * features; its ptxas as LLVM 19's clang runs it, at the device clang's
 * level, from the link's CUDA toolkit, else PATH. */
static void lto2_words(struct ofl_link *l, struct cg *c, const struct ofl_argv *job)
{
	const char *v;
	static const char *const cpu[] = {"-mcpu=", NULL}, *const attrs[] = {"-mattr=", NULL},
	                         *const cgl[] = {"--cg-opt-level=", NULL};
	for (size_t i = 1; i < job->n; i++) {
		const char *w = job->v[i];
		if ((v = after(w, cpu)))
			snprintf(c->cpu, sizeof(c->cpu), "%s", v);
		else if ((v = after(w, attrs)))
			add_attrs(c, v);
		else if ((v = after(w, cgl)) && level(v))
			c->cg_level = v[0];
		else if (!strcmp(w, "--relocation-model=pic"))
			c->pic = true;
	}
	c->cg_level = c->cg_level ? c->cg_level : '2';
	c->ptxas_level = ofl_devlink_opt_level(l);
	c->ptxas = find_ptxas(l->o.device_env, *l->cuda ? l->cuda : NULL);
}

static const char *base_name(const char *p)
{
	return strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
}

/* Code generation's options from the LTO step's job; false when it is no
 * job offlink reads (why in c->unknown). */
static bool read_cg(struct ofl_link *l, const struct link_action *lto, struct cg *c)
{
	/* its command's own words when it is not sealed yet (LLVM 19's step) */
	const struct ofl_argv own = {lto->cmd.argv + l->o.nlauncher, lto->cmd.argc - l->o.nlauncher,
	                             0};
	const struct ofl_argv *job = lto->njobs ? &lto->jobs[lto->njobs - 1] : &own;
	const char *b = job->n ? base_name(job->v[0]) : "";
	char *const *env = lto->env ? lto->env : l->o.device_env;
	if (!strcmp(b, "ld.lld"))
		lld_words(c, job);
	else if (!strcmp(b, "clang-nvlink-wrapper"))
		nvlink_words(env, c, job);
	else if (!strcmp(b, "llvm-lto2"))
		lto2_words(l, c, job);
	else
		snprintf(c->unknown, sizeof(c->unknown), "its LTO runs in %s", *b ? b : "nothing");
	return !*c->unknown;
}

/* ---- the actions ----------------------------------------------------------- */

/* <link dir>/<stem><suffix>: the name of a partition's file.  The stem
 * is the group's (kind, triple, target ID), not its inputs': the words
 * of a partition's actions are then the same in every link of the
 * program, so that their keys (the words and what the files hold) match
 * after an edit elsewhere. */
char *ofl_partition_name(struct ofl_link *l, size_t gi, const char *suffix, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	uint64_t h = XXH3_64bits(g->triple, strlen(g->triple)) ^
	             XXH3_64bits(g->arch, strlen(g->arch)) ^ XXH3_64bits(&g->kind, sizeof(g->kind));
	char name[96];
	snprintf(name, sizeof(name), "%016llx%s", (unsigned long long)h, suffix);
	return ofl_link_temp(l, name, err);
}

/* A new action of group gi running cmd's words (no clang: they are its
 * job), after the action dep; NULL on error. */
static struct link_action *add(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, size_t dep,
                               const char *out, struct ofl_error *err)
{
	struct link_action *a = ofl_devlink_new_action(l, gi, false, cmd, err);
	if (!a)
		return NULL;
	a->deps[0] = dep; /* the group's previous one is not always it */
	a->output = out;
	a->file = true;
	return a;
}

/* A partition's step: what it is called, and its memory estimate from
 * the file it reads. */
struct step {
	const char *what;
	uint64_t mem_base;
	unsigned mem_factor;
};
static const struct step RENAME = {"PTX names", LLC_BASE, LLC_FACTOR};
static const struct step CODEGEN = {"code generation", LLC_BASE, LLC_FACTOR};
static const struct step PTXAS = {"ptxas", PTXAS_BASE, PTXAS_FACTOR};

/* The action of step st of partition k running cmd's words (rc: 0, or
 * their push's failure), reading in, writing out, after the action dep;
 * cmd released. */
static int add_step(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, int rc,
                    const struct step *st, unsigned k, size_t dep, const char *in, const char *out,
                    struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	struct link_action *a = rc ? NULL : add(l, gi, cmd, dep, out, err);
	if (a) {
		/* "<step> of partition k+1/N for <triple> <arch>" */
		snprintf(a->what, sizeof(a->what), "%s of partition %u/%u for %s%s%s", st->what,
		         k + 1, g->parts, g->triple, *g->arch ? " " : "", g->arch);
		a->mem_input = in;
		a->mem_base = st->mem_base;
		a->mem_factor = st->mem_factor;
	}
	ofl_proc_release(cmd);
	return rc ? (rc == 1 ? err->code : rc) : a ? 0 : err->code;
}

/* The launcher, then the tool. */
static int head(struct ofl_link *l, struct ofl_proc *cmd, const char *tool, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->o.nlauncher; i++)
		rc = ofl_proc_push(cmd, l->o.launcher[i], err);
	return rc ? rc : ofl_proc_push(cmd, tool, err);
}

/* llvm-split -j N [AMDGPU's splitter] -o <stem>.part <module>: files
 * <stem>.part0 to .part<N-1>; the split action's index. */
static int split(struct ofl_link *l, size_t gi, const struct link_action *lto, const char *clang,
                 const struct cg *c, char **parts, size_t *at, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	unsigned n = g->parts;
	char *tool = ofl_toolchain_beside(clang, "llvm-split");
	char *stem = ofl_partition_name(l, gi, ".part", err);
	struct ofl_proc cmd = OFL_PROC_INIT;
	int rc = tool && stem ? head(l, &cmd, tool, err) : tool ? err->code : OFL_NOMEM(err);
	rc = rc ? rc : ofl_proc_push(&cmd, "-j", err) || ofl_proc_pushf(&cmd, err, "%u", n);
	if (!rc && ofl_family(g->triple) == OFL_FAM_AMDGPU)
		rc = ofl_proc_pushf(&cmd, err, "--mtriple=%s", g->triple) ||
		     ofl_proc_pushf(&cmd, err, "--mcpu=%s", c->cpu);
	rc = rc ? rc
	        : ofl_proc_push(&cmd, "-o", err) || ofl_proc_push(&cmd, stem, err) ||
	              ofl_proc_push(&cmd, lto->output, err);
	for (unsigned k = 0; !rc && k < n; k++) {
		char sfx[32];
		snprintf(sfx, sizeof(sfx), ".part%u", k);
		if (!(parts[k] = ofl_partition_name(l, gi, sfx, err)))
			rc = err->code;
	}
	free(tool);
	size_t dep = (size_t)(lto - l->actions);
	struct link_action *a = rc ? NULL : add(l, gi, &cmd, dep, parts[0], err);
	if (a) {
		*at = (size_t)(a - l->actions);
		snprintf(a->what, sizeof(a->what), "split of the %s%s%s module into %u partitions",
		         g->triple, *g->arch ? " " : "", g->arch, n);
		if (n > 1 && !(a->more = ofl_calloc(n - 1, sizeof(*a->more))))
			rc = OFL_NOMEM(err);
		/* an empty module in IR text, which llc reads as well */
		if (!rc && ofl_family(g->triple) == OFL_FAM_AMDGPU &&
		    asprintf(&a->fill, "target triple = \"%s\"\n", g->triple) < 0)
			rc = OFL_NOMEM(err);
		for (unsigned k = 1; !rc && k < n; k++)
			a->more[a->nmore++] = parts[k];
	}
	ofl_proc_release(&cmd);
	return rc ? rc : a ? 0 : err->code;
}

/* NVPTX: a partition's names made ones PTX takes.  Its code generation
 * gives a local global or function whose name PTX does not take ('.':
 * ".str", "anon.<hash>.0", LTO's "f.1") a valid one, "_$_" for each dot
 * (NVPTXAssignValidGlobalNames), but the split made every local global
 * (hidden, so that partitions reach each other's), which that pass leaves
 * as they are, and ptxas refuses.  So opt's rewrite-symbols gives each
 * name the same rename first, by a map of rules: the first dot of a name
 * whose first part is not "llvm" (LLVM's intrinsics), up to MAX_DOTS
 * times.  A name is renamed the same in every partition, so their
 * references still meet.  The functions a partition declares and does
 * not call go too (the split declares every one of the module in each):
 * llc's input then changes with the partition's code, not with a
 * function added or removed elsewhere. */
#define MAX_DOTS 8

static int rename_map(struct ofl_link *l, size_t gi, char **path, struct ofl_error *err)
{
	static const char *const kinds[] = {"function", "global variable", "global alias"};
	/* a first part that is not "llvm": longer, shorter, or differing */
	static const char seg[] =
	    "[^.]{5,}|[^.]{0,3}|[^l.][^.]{3}|l[^l.][^.]{2}|ll[^v.][^.]|llv[^m.]";
	struct ofl_buf b = OFL_BUF_INIT;
	for (int r = 0; r < MAX_DOTS; r++)
		for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
			ofl_buf_printf(&b,
			               "%s:\n  source: '^(%s)\\.(.*)$'\n  transform: '\\1_$_\\2'\n",
			               kinds[i], seg);
	size_t n = 0;
	uint8_t *text = b.data ? ofl_buf_detach(&b, &n) : NULL;
	*path = ofl_partition_name(l, gi, ".rename.yaml", err);
	if (!text || !*path) {
		free(text);
		return text ? err->code : OFL_NOMEM(err);
	}
	return ofl_devlink_defer(l, gi, *path, text, n, text, err);
}

/* opt -passes=rewrite-symbols over partition k (NVPTX), by the map. */
static int rename_part(struct ofl_link *l, size_t gi, const struct cg *c, const char *map,
                       const char *in, unsigned k, size_t dep, char **out, struct ofl_error *err)
{
	char sfx[32];
	snprintf(sfx, sizeof(sfx), "-%u.ptxnames.bc", k);
	struct ofl_proc cmd = OFL_PROC_INIT;
	*out = ofl_partition_name(l, gi, sfx, err);
	int rc = *out ? head(l, &cmd, c->opt, err) : err->code;
	rc = rc || ofl_proc_push(&cmd, "-passes=rewrite-symbols,strip-dead-prototypes", err) ||
	     ofl_proc_push(&cmd, "-rewrite-map-file", err) || ofl_proc_push(&cmd, map, err) ||
	     ofl_proc_push(&cmd, "-o", err) || ofl_proc_push(&cmd, *out, err) ||
	     ofl_proc_push(&cmd, in, err);
	return add_step(l, gi, &cmd, rc, &RENAME, k, dep, in, *out, err);
}

/* llc over partition k: its options the LTO step's (above); PTX for
 * NVPTX (without the comments llc adds by default and LTO does not), an
 * object for the others. */
static int codegen(struct ofl_link *l, size_t gi, const struct cg *c, const char *in, unsigned k,
                   size_t dep, char **out, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	bool ptx = ofl_target_nvptx(g->triple);
	char sfx[32];
	snprintf(sfx, sizeof(sfx), "-%u.%s", k, ptx ? "s" : "o");
	struct ofl_proc cmd = OFL_PROC_INIT;
	*out = ofl_partition_name(l, gi, sfx, err);
	int rc = *out ? head(l, &cmd, c->llc, err) : err->code;
	rc = rc || ofl_proc_pushf(&cmd, err, "-O%c", c->cg_level) ||
	     ofl_proc_pushf(&cmd, err, "-relocation-model=%s", c->pic ? "pic" : "static") ||
	     (*c->cpu && ofl_proc_pushf(&cmd, err, "-mcpu=%s", c->cpu)) ||
	     (*c->attrs && ofl_proc_pushf(&cmd, err, "-mattr=%s", c->attrs)) ||
	     (c->sections && (ofl_proc_push(&cmd, "-function-sections", err) ||
	                      ofl_proc_push(&cmd, "-data-sections", err) ||
	                      ofl_proc_push(&cmd, "-addrsig", err))) ||
	     ofl_proc_push(&cmd, ptx ? "--asm-verbose=false" : "-filetype=obj", err) ||
	     ofl_proc_push(&cmd, "-o", err) || ofl_proc_push(&cmd, *out, err) ||
	     ofl_proc_push(&cmd, in, err);
	return add_step(l, gi, &cmd, rc, &CODEGEN, k, dep, in, *out, err);
}

/* ptxas over partition k's PTX, as the release's tools run it: LLVM 20+'s
 * clang-nvlink-wrapper (ptxas -m64 -c IN -O<n> -arch A -o OUT), LLVM 19's
 * clang (ptxas -m64 -O<n> --gpu-name A --output-file OUT IN -c). */
static int assemble(struct ofl_link *l, size_t gi, const struct cg *c, const char *in, unsigned k,
                    size_t dep, char **out, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[gi];
	bool v19 = ofl_llvm_old_wrapper(g->llvm);
	char sfx[32], lvl = c->ptxas_g ? '0' : c->ptxas_level ? c->ptxas_level : '3';
	snprintf(sfx, sizeof(sfx), "-%u.cubin.o", k);
	struct ofl_proc cmd = OFL_PROC_INIT;
	*out = ofl_partition_name(l, gi, sfx, err);
	int rc = *out ? head(l, &cmd, c->ptxas, err) : err->code;
	if (!rc && v19)
		rc = ofl_proc_push(&cmd, "-m64", err) || ofl_proc_pushf(&cmd, err, "-O%c", lvl) ||
		     ofl_proc_push(&cmd, "--gpu-name", err) || ofl_proc_push(&cmd, c->cpu, err) ||
		     ofl_proc_push(&cmd, "--output-file", err) || ofl_proc_push(&cmd, *out, err) ||
		     ofl_proc_push(&cmd, in, err) || ofl_proc_push(&cmd, "-c", err);
	else if (!rc)
		rc = ofl_proc_push(&cmd, "-m64", err) || ofl_proc_push(&cmd, "-c", err) ||
		     ofl_proc_push(&cmd, in, err) ||
		     (c->verbose && ofl_proc_push(&cmd, "-v", err)) ||
		     ofl_proc_pushf(&cmd, err, "-O%c", lvl) || ofl_proc_push(&cmd, "-arch", err) ||
		     ofl_proc_push(&cmd, c->cpu, err) || ofl_proc_push(&cmd, "-o", err) ||
		     ofl_proc_push(&cmd, *out, err);
	return add_step(l, gi, &cmd, rc, &PTXAS, k, dep, in, *out, err);
}

int ofl_partition_plan(struct ofl_link *l, size_t gi, struct link_action *lto, const char *clang,
                       struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	bool ptx = ofl_target_nvptx(g->triple);
	struct cg c = {0};
	/* a GPU's code is for a processor the step names; a CPU's functions
	 * name theirs */
	bool cpu = ofl_family(g->triple) == OFL_FAM_CPU;
	if (!read_cg(l, lto, &c) || (ptx && !c.ptxas) || (!cpu && !*c.cpu)) {
		snprintf(g->parts_why, sizeof(g->parts_why), "1: %s%s%s",
		         *c.unknown ? "the LTO option " : "",
		         *c.unknown        ? c.unknown
		         : !*c.cpu && !cpu ? "no processor in the LTO step's words"
		                           : "no ptxas to assemble the partitions",
		         *c.unknown ? " may change code generation" : "");
		say_parts(l, g);
		g->parts = 1;
		free(c.ptxas);
		return 1;
	}
	char **parts = ofl_calloc(g->parts, sizeof(*parts));
	size_t at = 0;
	/* there (ofl_partition_count looked): NULL is out of memory */
	c.llc = ofl_toolchain_beside(clang, "llc");
	c.opt = ptx ? ofl_toolchain_beside(clang, "opt") : NULL;
	char *map = NULL;
	int rc = parts && c.llc && (c.opt || !ptx) ? split(l, gi, lto, clang, &c, parts, &at, err)
	                                           : OFL_NOMEM(err);
	rc = rc || !ptx ? rc : rename_map(l, gi, &map, err);
	/* partition after partition, each chain ranked by its module (the
	 * scheduler starts the largest's first, and finishes a chain before it
	 * starts the next of the same size) */
	for (unsigned k = 0; !rc && k < g->parts; k++) {
		char *in = parts[k], *s = NULL, *obj = NULL;
		size_t dep = at, from = l->nactions;
		if (ptx) {
			rc = rename_part(l, gi, &c, map, parts[k], k, at, &in, err);
			dep = l->nactions - 1;
		}
		rc = rc ? rc : codegen(l, gi, &c, in, k, dep, &s, err);
		rc = rc || !ptx ? rc : assemble(l, gi, &c, s, k, l->nactions - 1, &obj, err);
		rc = rc ? rc : ofl_argv_push(&g->part_objs, ptx ? obj : s, err);
		for (size_t i = from; !rc && i < l->nactions; i++)
			l->actions[i].rank_input = parts[k];
	}
	free(parts);
	free(c.ptxas);
	free(c.llc);
	free(c.opt);
	return rc;
}

int ofl_partition_deps(struct ofl_link *l, struct link_action *link, struct ofl_error *err)
{
	const struct link_group *g = &l->groups[link->group];
	size_t *deps = ofl_calloc(g->part_objs.n, sizeof(*deps)), n = 0;
	if (!deps)
		return OFL_NOMEM(err);
	for (size_t i = g->first_action; i < (size_t)(link - l->actions); i++)
		for (size_t k = 0; k < g->part_objs.n; k++)
			if (!strcmp(l->actions[i].output, g->part_objs.v[k]))
				deps[n++] = i;
	free(link->deps);
	link->deps = deps;
	link->ndeps = n;
	return 0;
}
