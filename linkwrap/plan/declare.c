/* What a device action may read (link_priv.h, ofl_declare): every file its
 * jobs (and the launcher in front of them) may open, found as they find
 * them, by a grammar of each tool's words (ld.lld, gold and bfd; clang's
 * clang-nvlink-wrapper; ptxas; llvm-lto2; clang-sycl-linker; llvm-split,
 * opt and llc for partitions), each place a search looks at first and
 * finds empty, and the environment variables each tool reads.
 * A word a grammar does not know, a side output, a file that is no
 * regular one: the action is not cached, and says why.  The key
 * (run/key.c) is made of this and the words alone, so a file the action
 * reads that is not declared here is a stale hit waiting to happen:
 * scripts/cache-audit checks the list against what the jobs open.
 *
 * What a search finds is keyed, not where it looked first: a folder of
 * PATH or LD_LIBRARY_PATH that holds none of the tools changes nothing,
 * and a file appearing in one makes another answer (docs/design.md,
 * "Device-link cache").  The link's own folder and its working folder are
 * written @link and @cwd in the key's words where the bytes do not depend
 * on them (a.keyjobs). */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_priv.h"
#include "internal.h"
#include "link_priv.h"
#include "loads.h"
#include "rsp.h"
#include "offlink/archive.h"
#include "offlink/io.h"
#include "offlink/ldscript.h"

/* Response files and scripts one action may read, nested and in all. */
#define MAX_NESTED 16
#define MAX_READ 64
/* A script larger than this is no linker script (libc.so's is 300 bytes). */
#define MAX_SCRIPT (1u << 20)

struct decl {
	struct ofl_link *l;
	struct link_action *a;
	struct ofl_error *err;
	struct ofl_symset seen;  /* paths declared */
	unsigned nread;          /* response files and scripts read */
	const char *const *dirs; /* an ld job's library folders */
	size_t ndirs;
	enum ofl_linker ld;
	/* Per word of the job read: where in it a path starts whose place the
	 * bytes do not depend on (-L's folder, an input), or -1. */
	int *at;
};

/* Why the action is not cached: the first reason stands. */
static int uncached(struct decl *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int uncached(struct decl *d, const char *fmt, ...)
{
	if (d->a->uncached)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&d->a->uncached, fmt, ap);
	va_end(ap);
	if (n < 0) {
		d->a->uncached = NULL;
		return OFL_NOMEM(d->err);
	}
	return 0;
}

static bool own(const struct decl *d, const char *path)
{
	return ofl_link_owns(d->l, path);
}

/* path declared as how, once. */
static int declare(struct decl *d, const char *path, enum act_how how)
{
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&d->seen, path, how, &s, &added))
		return OFL_NOMEM(d->err);
	if (!added)
		return 0;
	struct link_action *a = d->a;
	if (OFL_GROW(a->files, a->capfiles, a->nfiles))
		return OFL_NOMEM(d->err);
	if (!(a->files[a->nfiles].path = ofl_strdup(path)))
		return OFL_NOMEM(d->err);
	a->files[a->nfiles++].how = how;
	return 0;
}

/* What stat says of path, asked once per link: its mode, 0 when there is
 * nothing there. */
static int mode_of(struct decl *d, const char *path, uint32_t *mode)
{
	struct ofl_symslot *s;
	bool added;
	if (ofl_symset_add(&d->l->memo.modes, path, 0, &s, &added))
		return OFL_NOMEM(d->err);
	struct stat st;
	if (added)
		s->value = stat(path, &st) ? 0 : (uint32_t)st.st_mode | 0x80000000u;
	*mode = s->value & 0xffff;
	return 0;
}

/* Whether there is something at path (a file, a folder). */
static bool exists(struct decl *d, const char *path, int *rc)
{
	uint32_t m = 0;
	*rc = mode_of(d, path, &m);
	return m != 0;
}

/* ---- the environment ----------------------------------------------------- */

/* What the device tools get of the link's environment: where programs and
 * libraries are found, the CUDA toolkit, gcc's driver variables clang
 * reads, what lld and bfd write into an image; CCC_OVERRIDE_OPTIONS, which
 * the plan does not model (the action is then not cached).  Nothing else
 * is inherited; of these the key holds what its tools read (reads_env). */
static const char *const passed[] = {
    "PATH",        "LD_LIBRARY_PATH",   "LIBRARY_PATH",        "CUDA_PATH",
    "CUDA_HOME",   "COMPILER_PATH",     "GCC_EXEC_PREFIX",     "LLD_VERSION",
    "LD_RUN_PATH", "SOURCE_DATE_EPOCH", "CCC_OVERRIDE_OPTIONS"};

/* Whether var (NAME=value) is named in list (comma-separated names). */
static bool listed(const char *list, const char *var)
{
	size_t n = strcspn(var, "=");
	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, var, n))
			return true;
	}
	return false;
}

/* A launcher's variables: those OFFLINK_DEVICE_LAUNCHER_ENV names, and
 * those named after one of its programs (RECC_... for recc): it reads
 * them; the device tools under it get them too. */
static bool launcher_var(const struct ofl_link *l, const char *var)
{
	if (listed(l->o.launcher_env, var))
		return true;
	for (size_t w = 0; w < l->o.nlauncher; w++) {
		const char *prog = l->o.launcher[w], *base = strrchr(prog, '/');
		base = base ? base + 1 : prog;
		size_t n = strlen(base), i = 0;
		if (strchr(base, '='))
			continue; /* env's VAR=value */
		while (i < n && (toupper((unsigned char)base[i]) == var[i] ||
		                 (base[i] == '-' && var[i] == '_')))
			i++;
		if (n && i == n && var[n] == '_')
			return true;
	}
	return false;
}

/* Every action's environment, made once per link. */
static int link_env(struct ofl_link *l, struct ofl_error *err)
{
	char *const *env = l->o.device_env;
	size_t n = 0, k = 0;
	while (env && env[n])
		n++;
	char **v = ofl_calloc(n + sizeof(passed) / sizeof(*passed) + 3, sizeof(*v));
	if (!(l->memo.env = v))
		return OFL_NOMEM(err);
	for (size_t i = 0; i < sizeof(passed) / sizeof(*passed); i++) {
		const char *val = ofl_proc_env_get(env, passed[i]);
		if (val && asprintf(&v[k], "%s=%s", passed[i], val) < 0)
			return v[k] = NULL, OFL_NOMEM(err);
		k += val != NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (launcher_var(l, env[i]) && !(v[k++] = ofl_strdup(env[i])))
			return OFL_NOMEM(err);
	/* temporaries of the tools (clang-nvlink-wrapper's cubins) go with the
	 * link's; messages in one language, whatever the user's */
	const char *tmp = ofl_link_tmpdir(l, err);
	if (!tmp)
		return err->code;
	if (asprintf(&v[k], "TMPDIR=%s", tmp) < 0)
		return v[k] = NULL, OFL_NOMEM(err);
	return (v[k + 1] = ofl_strdup("LC_ALL=C")) ? 0 : OFL_NOMEM(err);
}

int ofl_action_env(struct ofl_link *l, struct link_action *a, struct ofl_error *err)
{
	int rc = l->memo.env ? 0 : link_env(l, err);
	a->env = l->memo.env;
	return rc;
}

/* The variable name a tool of the action reads: keyed (with its value,
 * or as unset). */
static int reads_env(struct decl *d, const char *name)
{
	for (size_t i = 0; i < d->a->keyenv.n; i++)
		if (!strcmp(d->a->keyenv.v[i], name))
			return 0;
	return ofl_argv_push(&d->a->keyenv, name, d->err);
}

/* ---- files ------------------------------------------------------------- */

/* A file a job reads by the name it gives: the link's own or any other by
 * its bytes, or as absent; one that is no regular file makes the action
 * uncached (a FIFO would block the key, a device has no bytes to key). */
static int read_file(struct decl *d, const char *path)
{
	uint32_t m = 0;
	int rc = own(d, path) ? 0 : mode_of(d, path, &m);
	if (rc || own(d, path))
		return rc ? rc : declare(d, path, ACT_CONTENT);
	if (!m)
		return declare(d, path, ACT_ABSENT);
	return S_ISREG(m) ? declare(d, path, ACT_CONTENT)
	                  : uncached(d, "%s is no regular file", path);
}

/* ---- programs ------------------------------------------------------------ */

/* What the loader does to start a program, walked once per link. */
static int remember(void *ctx, enum ofl_load_kind kind, const char *path, const char *why)
{
	struct program_loads *p = ctx;
	if (OFL_GROW(p->v, p->cap, p->n))
		return OFL_ENOMEM;
	p->v[p->n] = (struct load_item){kind, ofl_strdup(path), why};
	return p->v[p->n++].path ? 0 : OFL_ENOMEM;
}

/* Whether the program at path is a script (#!): its interpreter runs it,
 * and does what it says. */
static bool is_script(const char *path)
{
	char h[2];
	return ofl_file_head(path, h, sizeof(h)) && h[0] == '#' && h[1] == '!';
}

static const struct program_loads *loads_of(struct decl *d, const char *path, int *rc)
{
	struct plan_memo *m = &d->l->memo;
	struct ofl_symslot *s;
	bool added;
	if ((*rc = OFL_GROW(m->loads, m->caploads, m->nloads) ? OFL_NOMEM(d->err) : 0) ||
	    (*rc = ofl_symset_add(&m->programs, path, (uint32_t)m->nloads, &s, &added)
	               ? OFL_NOMEM(d->err)
	               : 0))
		return NULL;
	if (!added)
		return &m->loads[s->value];
	struct program_loads *p = &m->loads[m->nloads++];
	*p = (struct program_loads){0};
	p->script = is_script(path);
	*rc = ofl_program_loads(path, ofl_proc_env_get(d->a->env, "LD_LIBRARY_PATH"), remember, p,
	                        d->err);
	*rc = *rc == OFL_ENOMEM ? OFL_NOMEM(d->err) : *rc;
	return *rc ? NULL : p;
}

/* A program the action runs (a tool, or the launcher): it, and what the
 * loader reads to start it.  A tool that is a script runs what it says,
 * which no grammar here knows. */
static int program(struct decl *d, const char *path, bool tool)
{
	uint32_t m = 0;
	int rc = mode_of(d, path, &m);
	if (!rc && !S_ISREG(m))
		return uncached(d, "the device tool %s is not there", path);
	const struct program_loads *p = rc ? NULL : loads_of(d, path, &rc);
	if (p && tool && p->script)
		return uncached(d,
		                "the device tool %s is a script: what it runs is not known "
		                "to offlink",
		                path);
	static const enum act_how as[] = {[OFL_LOAD_FILE] = ACT_CONTENT,
	                                  [OFL_LOAD_LOOKED] = ACT_LOOKED,
	                                  [OFL_LOAD_CACHE] = ACT_LOADER_CACHE};
	for (size_t i = 0; p && !rc && !d->a->uncached && i < p->n; i++) {
		const struct load_item *it = &p->v[i];
		if (it->kind == OFL_LOAD_MISSING)
			rc = uncached(d, "a library the device tools load, %s, is missing",
			              it->path);
		else if (it->kind == OFL_LOAD_UNKNOWN)
			rc = uncached(d, "%s: %s", it->path, it->why);
		else
			rc = declare(d, it->path, as[it->kind]);
	}
	return rc;
}

/* The program a word names as exec finds it: with a '/' as it is, else
 * on the action's PATH (owned; NULL: not found). */
static char *find_program(struct decl *d, const char *word)
{
	return strchr(word, '/')
	           ? ofl_strdup(word)
	           : ofl_proc_find(word, NULL, 0, ofl_proc_env_get(d->a->env, "PATH"));
}

/* Launchers that run the command in another file system, whose files
 * are not the ones the key holds. */
bool ofl_launcher_elsewhere(const struct ofl_link *l)
{
	if (!l->o.nlauncher)
		return false;
	const char *prog = l->o.launcher[0];
	static const char *const names[] = {
	    "docker",   "podman",  "nerdctl",   "apptainer",    "singularity",    "chroot",
	    "schroot",  "bwrap",   "nsenter",   "unshare",      "systemd-nspawn", "ssh",
	    "firejail", "toolbox", "distrobox", "flatpak-spawn"};
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

/* The launcher in front of every job: its program and its variables (its
 * words are keyed as words). */
static int launcher(struct decl *d)
{
	const struct ofl_link *l = d->l;
	if (!l->o.nlauncher)
		return 0;
	if (ofl_launcher_elsewhere(l))
		return uncached(d, "the launcher %s runs the tools in another file system",
		                l->o.launcher[0]);
	char *prog = find_program(d, l->o.launcher[0]);
	int rc = prog ? program(d, prog, false)
	              : uncached(d, "the launcher %s is not there", l->o.launcher[0]);
	free(prog);
	for (char *const *e = d->a->env; !rc && *e; e++)
		if (launcher_var(l, *e)) {
			char *name = ofl_strndup(*e, strcspn(*e, "="));
			rc = name ? reads_env(d, name) : OFL_NOMEM(d->err);
			free(name);
		}
	return rc;
}

/* ---- ld.lld, gold, bfd --------------------------------------------------- */

static int ld_file(struct decl *d, const char *path, const char *beside, unsigned depth);

/* The file a name leads to in the job's library folders, as ld finds it:
 * "-lNAME" lib<NAME>.so (unless static_only) then lib<NAME>.a in each
 * folder in turn, "-l:NAME" NAME, a plain name itself; each candidate that
 * is not there looked at (a library made there later is another answer).
 * Owned, or NULL (not found: the action is not cached). */
static char *search(struct decl *d, const char *name, bool static_only, int *rc)
{
	const char *lib = !strncmp(name, "-l", 2) ? name + 2 : NULL;
	for (size_t i = 0; !*rc && i < d->ndirs; i++) {
		char c[2][PATH_MAX];
		size_t n = 0;
		if (lib && lib[0] == ':')
			snprintf(c[n++], PATH_MAX, "%s/%s", d->dirs[i], lib + 1);
		else if (lib && !static_only)
			snprintf(c[n++], PATH_MAX, "%s/lib%s.so", d->dirs[i], lib);
		if (lib && lib[0] != ':')
			snprintf(c[n++], PATH_MAX, "%s/lib%s.a", d->dirs[i], lib);
		if (!lib)
			snprintf(c[n++], PATH_MAX, "%s/%s", d->dirs[i], name);
		for (size_t k = 0; !*rc && k < n; k++) {
			if (exists(d, c[k], rc))
				return ofl_strdup(c[k]);
			*rc = *rc ? *rc : declare(d, c[k], ACT_LOOKED);
		}
	}
	/* the linker may know folders offlink does not (a sysroot's): the
	 * file it finds there is not keyed */
	if (!*rc)
		*rc = uncached(d, "%s is in none of the folders offlink knows the linker searches",
		               name);
	return NULL;
}

struct script {
	struct decl *d;
	const char *path; /* the script whose folder its names are found in */
	unsigned depth;
};

/* Whether there is something at path; else it is looked at. */
static int script_exists(void *ctx, const char *path, bool *there)
{
	struct decl *d = ctx;
	int rc = 0;
	*there = exists(d, path, &rc);
	return rc || *there ? rc : declare(d, path, ACT_LOOKED);
}

static int script_library(void *ctx, const char *word, char **found)
{
	int rc = 0;
	*found = search(ctx, word, false, &rc);
	return rc;
}

/* Where the linker finds a name a script gives (ofl_ldscript_find), each
 * place before the one that has it looked at.  Owned, or NULL. */
static char *script_file(struct script *s, enum ofl_ldscript_kind kind, const char *w, int *rc)
{
	struct decl *d = s->d;
	struct ofl_ldscript_search q = {script_exists, script_library, d, d->ld};
	char *found = NULL;
	if (w[0] == '=')
		*rc = uncached(d, "%s: a name in the sysroot", w);
	else
		*rc = ofl_ldscript_find(&q, s->path, kind, w, &found, d->err);
	return found;
}

static int script_name(void *ctx, enum ofl_ldscript_kind kind, const char *name, size_t len)
{
	struct script *s = ctx;
	char *w = ofl_strndup(name, len), *path = NULL;
	int rc = w ? 0 : OFL_NOMEM(s->d->err);
	if (!rc && (kind == OFL_LDSCRIPT_INPUT || kind == OFL_LDSCRIPT_GROUP ||
	            kind == OFL_LDSCRIPT_INCLUDE))
		path = script_file(s, kind, w, &rc);
	const char *beside = kind == OFL_LDSCRIPT_INCLUDE
	                         ? ofl_ldscript_included_place(s->d->ld, s->path, path)
	                         : NULL;
	rc = rc || !path ? rc : ld_file(s->d, path, beside, s->depth + 1);
	free(path);
	free(w);
	return rc;
}

/* Whether a script has a command offlink does not follow: SEARCH_DIR (a
 * library folder for what comes after), STARTUP (an input), OUTPUT (the
 * file it writes). */
static bool unfollowed(const char *text)
{
	static const char *const words[] = {"SEARCH_DIR", "STARTUP", "OUTPUT"};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		for (const char *p = strstr(text, words[i]); p; p = strstr(p + 1, words[i])) {
			const char *e = p + strlen(words[i]);
			while (*e == ' ' || *e == '\t' || *e == '\n')
				e++;
			if (*e == '(')
				return true;
		}
	return false;
}

/* A linker script's names (INPUT, GROUP, and the scripts INCLUDE reads),
 * each found (beside the script `beside`) and declared. */
static int script(struct decl *d, const char *path, const char *beside, const char *text,
                  unsigned depth)
{
	if (unfollowed(text))
		return uncached(d,
		                "%s has a command offlink does not follow (SEARCH_DIR, STARTUP, "
		                "OUTPUT)",
		                path);
	struct script s = {d, beside, depth};
	struct ofl_error ignored = OFL_ERROR_INIT;
	const uint8_t *t = (const uint8_t *)text;
	int rc = ofl_ldscript_inputs(t, strlen(text), script_name, &s, &ignored);
	rc = rc ? rc : ofl_ldscript_includes(t, strlen(text), script_name, &s, &ignored);
	return rc == OFL_EINVAL ? uncached(d, "%s is not a linker script offlink reads", path) : rc;
}

/* A thin archive's members, files of their own beside it. */
static int thin_members(struct decl *d, const char *path, const struct ofl_file *f)
{
	struct ofl_archive ar = OFL_ARCHIVE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (ofl_archive_parse(f->data, f->size, &ar, &ignored))
		return uncached(d, "%s is a thin archive offlink cannot read", path);
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0, rc = 0;
	for (size_t i = 0; !rc && i < ar.nmembers; i++) {
		const char *m = ar.members[i].name;
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%.*s%s", m[0] == '/' ? 0 : dir, path, m);
		rc = read_file(d, p);
	}
	ofl_archive_release(&ar);
	return rc;
}

/* An input of an ld job: the file, and what it leads to (a script's
 * names, found beside the script `beside`, NULL: path; a thin archive's
 * members). */
static int ld_file(struct decl *d, const char *path, const char *beside, unsigned depth)
{
	if (depth > MAX_NESTED)
		return uncached(d, "linker scripts nested deeper than %d", MAX_NESTED);
	int rc = read_file(d, path);
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (rc || d->a->uncached || own(d, path) || ofl_file_open_regular(&f, path, &ignored))
		return rc;
	/* a script is small text: read as words, once it is known to be one */
	bool text = f.size && f.size <= MAX_SCRIPT && !memchr(f.data, 0, f.size) &&
	            !ofl_archive_is(f.data, f.size);
	char *t = NULL;
	if (ofl_archive_is_thin(f.data, f.size))
		rc = thin_members(d, path, &f);
	else if (text && ++d->nread > MAX_READ)
		rc = uncached(d, "too many linker scripts and response files");
	else if (text && !(t = ofl_strndup((const char *)f.data, f.size)))
		rc = OFL_NOMEM(d->err);
	ofl_file_close(&f);
	if (t)
		rc = script(d, path, beside ? beside : path, t, depth);
	free(t);
	return rc;
}

static bool in(const char *const *list, const char *w)
{
	for (; list && *list; list++)
		if (!strcmp(*list, w))
			return true;
	return false;
}

static bool prefixed(const char *const *list, const char *w)
{
	for (; list && *list; list++)
		if (!strncmp(w, *list, strlen(*list)))
			return true;
	return false;
}

/* Is option w (any number of dashes, a value after '=') named in list? */
static bool opt_in(const char *const *list, const char *w)
{
	const char *n = w + 1 + (w[1] == '-');
	size_t len = strcspn(n, "=");
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(n, *list, len))
			return true;
	return false;
}

/* ld options that read no file and write none but the output: what
 * clang's driver and offlink give a device link, and common users'. */
static bool quiet_option(const char *w)
{
	static const char *const names[] = {"no-undefined",
	                                    "Bsymbolic",
	                                    "Bsymbolic-functions",
	                                    "gc-sections",
	                                    "no-gc-sections",
	                                    "lto-emit-llvm",
	                                    "lto-emit-asm",
	                                    "strip-all",
	                                    "strip-debug",
	                                    "s",
	                                    "S",
	                                    "X",
	                                    "x",
	                                    "nostdlib",
	                                    "no-dependent-libraries",
	                                    "warn-common",
	                                    "no-warn-mismatch",
	                                    "lto-whole-program-visibility",
	                                    "disable-verify",
	                                    "no-rosegment",
	                                    NULL};
	static const char *const prefixes[] = {"lto-O", "lto-CGO", "lto-partitions", "O", NULL};
	return opt_in(names, w) || prefixed(prefixes, w + 1 + (w[1] == '-'));
}

/* Carried options whose value names a file the linker reads. */
static const char *const reads_file[] = {"version-script",
                                         "dynamic-list",
                                         "retain-symbols-file",
                                         "just-symbols",
                                         "export-dynamic-symbol-list",
                                         "c",
                                         "mri-script",
                                         NULL};

/* Carried options that write a file beside the output, or run one: not
 * cached (a hit would not write it). */
static const char *const side_effect[] = {
    "out-implib", "error-handling-script", "audit", "depaudit", "P", "chroot", NULL};

/* An LLVM option given to the linker's LTO (--plugin-opt=V, -mllvm V,
 * clang-nvlink-wrapper's -mllvm=V): those clang's driver and offlink
 * give, which read and write no file.  Others (LLVM's
 * -pass-remarks-output=, -info-output-file=, sample-profile=,
 * obj-path=...) may read a file or write one beside the image. */
static bool quiet_plugin_opt(const char *v)
{
	static const char *const prefixes[] = {
	    "mcpu=", "mattr=", "-mattr=", "jobs=", "lto-partitions=", "thinlto", NULL};
	static const char *const names[] = {"-amdgpu-internalize-symbols", NULL};
	if (v[0] == 'O' && v[1] && !v[2])
		return true;
	return prefixed(prefixes, v) || in(names, v);
}

static int lto_option(struct decl *d, const char *v)
{
	return quiet_plugin_opt(v)
	           ? 0
	           : uncached(d, "the LTO option '%s' is not one offlink models", v);
}

static int ld_option(struct decl *d, const struct ofl_ldarg *a)
{
	const char *w = a->word[0];
	if (ofl_ldarg_is_own(a))
		return uncached(d, "'%s' is no linker's option", w);
	switch (a->opt) {
	case OFL_LD_OUTPUT:
		return own(d, a->value) ? 0 : uncached(d, "it writes %s", a->value);
	case OFL_LD_SCRIPT:
	case OFL_LD_DEFAULT_SCRIPT: {
		/* found where INCLUDE's is (ofl_ldscript_find) */
		struct script s = {d, "", 0};
		int rc = 0;
		char *p = script_file(&s, OFL_LDSCRIPT_INCLUDE, a->value, &rc);
		rc = rc || !p ? rc : ld_file(d, p, ofl_ldscript_option_place(d->ld, p), 0);
		free(p);
		return rc;
	}
	case OFL_LD_PLUGIN:
		return program(d, a->value, true);
	case OFL_LD_DEPFILE:
	case OFL_LD_REPORT:
		return uncached(d, "it writes a report beside the image (%s)", w);
	case OFL_LD_OTHER_WITH_ARG:
		if (opt_in(side_effect, w))
			return uncached(d, "the linker option %s writes or runs a file", w);
		if (opt_in((const char *const[]){"mllvm", NULL}, w))
			return lto_option(d, a->value);
		return opt_in(reads_file, w) ? read_file(d, a->value) : 0;
	case OFL_LD_PLUGIN_OPT:
		return lto_option(d, a->value);
	case OFL_LD_UNKNOWN:
		return quiet_option(w) ? 0
		                       : uncached(d,
		                                  "the linker option '%s' is not one offlink "
		                                  "models",
		                                  w);
	default:
		return 0;
	}
}

static int declare_rsp(void *ctx, const char *path, const uint8_t *bytes, size_t n)
{
	struct decl *d = ctx;
	(void)bytes;
	(void)n;
	return declare(d, path, ACT_CONTENT);
}

/* Response files among a job's words (nested): each read, declared. */
static int responses(struct decl *d, char *const *w, size_t n)
{
	int rc = ofl_rsp_files(w, n, d->l->memo.rsp, declare_rsp, d, d->err);
	return rc == 1 ? uncached(d, "a response file offlink does not follow (no regular file, "
	                             "absent, unreadable, or past the bounds)")
	               : rc;
}

/* A shared object without DT_SONAME: the path the linker is given is
 * what the image needs (DT_NEEDED), so that place reaches the bytes. */
static bool unnamed_shared(const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct ofl_dynamic dyn;
	if (ofl_file_open_regular(&f, path, &ignored))
		return false;
	bool unnamed = f.size > 18 && ofl_le16(f.data + 16) == ET_DYN &&
	               !ofl_dynamic_read(f.data, f.size, &dyn, &ignored);
	if (unnamed) {
		unnamed = !dyn.soname;
		ofl_dynamic_release(&dyn);
	}
	ofl_file_close(&f);
	return unnamed;
}

/* Where the path an ld argument holds starts in its job word (the
 * argument starting at word i), when the image does not depend on where
 * it is: a library folder, a script, an input but a shared object
 * without DT_SONAME. */
static void mark_path(struct decl *d, const struct ofl_ldcmd *c, const struct ofl_ldarg *a,
                      size_t i)
{
	const char *cwd = d->l->memo.cwd;
	if (!a->value || !cwd || strncmp(a->value, cwd, strlen(cwd)))
		return; /* only a path below the working folder is rewritten */
	bool place_free = a->opt == OFL_LD_LIBPATH || a->opt == OFL_LD_SCRIPT ||
	                  a->opt == OFL_LD_DEFAULT_SCRIPT ||
	                  (a->opt == OFL_LD_OTHER_WITH_ARG && opt_in(reads_file, a->word[0]));
	if (a->kind == OFL_LDARG_FILE) {
		char *p = ofl_ldcmd_input_path(c, a);
		place_free = p && !unnamed_shared(p);
		free(p);
	}
	if (!place_free)
		return;
	size_t w = i + a->nwords - 1;
	d->at[w] = (int)(a->value - a->word[a->nwords - 1]);
}

/* An ld job: its response files, inputs, libraries (the folders looked in
 * before the one that has it, and what it leads to) and options. */
static int ld_job(struct decl *d, const struct ofl_argv *job, enum ofl_linker ld)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_argv dirs = OFL_ARGV_INIT;
	int rc = responses(d, job->v + 1, job->n - 1);
	if (rc || d->a->uncached)
		return rc;
	struct ofl_error bad = OFL_ERROR_INIT;
	if (ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, (int)job->n - 1, job->v + 1, d->l->memo.rsp, &bad))
		return bad.code == OFL_ENOMEM ? OFL_NOMEM(d->err)
		                              : uncached(d, "its linker command: %s", bad.msg);
	d->ld = ld;
	for (size_t i = 0; !rc && i < c.nargs; i++)
		if (c.args[i].opt == OFL_LD_LIBPATH) {
			char *p = ofl_ldcmd_input_path(&c, &c.args[i]);
			rc = p ? ofl_argv_push(&dirs, p, d->err) : OFL_NOMEM(d->err);
			free(p);
		}
	/* bfd's own search folders after the command's */
	if (!rc && ld == OFL_LINKER_BFD)
		rc = ofl_ld_default_dirs(d->l->o.host_triple, &dirs, d->err);
	d->dirs = (const char *const *)dirs.v;
	d->ndirs = dirs.n;
	/* words come one argument after another, unless a response file
	 * gave some (its words are its bytes: keyed as they are) */
	size_t words = 0;
	for (size_t i = 0; i < c.nargs; i++)
		words += c.args[i].nwords;
	for (size_t i = 0, w = 1; words == job->n - 1 && i < c.nargs; w += c.args[i++].nwords)
		mark_path(d, &c, &c.args[i], w);
	for (size_t i = 0; !rc && !d->a->uncached && i < c.nargs; i++) {
		const struct ofl_ldarg *a = &c.args[i];
		char *p = NULL;
		if (a->kind == OFL_LDARG_FILE) {
			p = ofl_ldcmd_input_path(&c, a);
			rc = p ? ld_file(d, p, NULL, 0) : OFL_NOMEM(d->err);
		} else if (a->kind == OFL_LDARG_LIBRARY) {
			char lib[PATH_MAX];
			snprintf(lib, sizeof(lib), "-l%s", a->value);
			p = search(d, lib, a->state.static_only, &rc);
			rc = rc ? rc : p ? ld_file(d, p, NULL, 0) : 0;
		} else {
			rc = ld_option(d, a);
		}
		free(p);
	}
	d->dirs = NULL;
	d->ndirs = 0;
	ofl_argv_release(&dirs);
	ofl_ldcmd_release(&c);
	return rc;
}

/* ---- clang-nvlink-wrapper, ptxas, llvm-lto2, clang-sycl-linker ---------- */

/* A word of a job whose grammar is a list: value-taking options and the
 * file each value names (NULL: a value, no file), options without a value,
 * prefixes of options with a joined value. */
struct grammar {
	const char *const *with_value;
	const char *const *flags;
	const char *const *joined;
	bool inputs;              /* plain words are input files */
	const char *const *reads; /* of with_value, those whose value is a file it reads */
};

/* The toolkit's programs clang-nvlink-wrapper runs (ptxas, nvlink): in
 * --cuda-path=DIR's bin/ when given, else (or not there) on PATH. */
static int cuda_tools(struct decl *d, const char *dir)
{
	static const char *const tools[] = {"ptxas", "nvlink"};
	int rc = 0;
	for (size_t i = 0; !rc && i < 2; i++) {
		char p[PATH_MAX];
		uint32_t m = 0;
		snprintf(p, sizeof(p), "%s/bin/%s", dir ? dir : "", tools[i]);
		rc = dir ? mode_of(d, p, &m) : 0;
		if (!rc && dir && S_ISREG(m) && !access(p, X_OK)) {
			rc = program(d, p, true);
			continue;
		}
		rc = rc ? rc : dir ? declare(d, p, ACT_LOOKED) : 0;
		char *on_path =
		    rc ? NULL
		       : ofl_proc_find(tools[i], NULL, 0, ofl_proc_env_get(d->a->env, "PATH"));
		rc = rc ? rc : on_path ? program(d, on_path, true) : 0;
		free(on_path);
	}
	/* nvlink writes LIBRARY_PATH into the image */
	return rc ? rc : reads_env(d, "LIBRARY_PATH");
}

/* Words of clang-nvlink-wrapper that carry an LTO option. */
static const char *const lto_words[] = {"--plugin-opt=", "-mllvm=", NULL};

/* A job of the list grammar g: its files (inputs, option values naming
 * one), its -L folders' -l libraries, a toolkit. */
static int list_job(struct decl *d, const struct ofl_argv *job, const struct grammar *g)
{
	struct ofl_argv dirs = OFL_ARGV_INIT;
	int rc = 0;
	for (size_t i = 1; !rc && i < job->n; i++)
		if (!strncmp(job->v[i], "-L", 2)) {
			rc = ofl_argv_push(&dirs, job->v[i] + 2, d->err);
			d->at[i] = 2;
		}
	d->dirs = (const char *const *)dirs.v;
	d->ndirs = dirs.n;
	for (size_t i = 1; !rc && !d->a->uncached && i < job->n; i++) {
		const char *w = job->v[i];
		if (in(g->with_value, w) && i + 1 < job->n) {
			const char *v = job->v[++i];
			if (!strcmp(w, "-o") || !strcmp(w, "--output-file"))
				rc = own(d, v) ? 0 : uncached(d, "it writes %s", v);
			else if (in(g->reads, w))
				rc = read_file(d, v);
		} else if (!strncmp(w, "--cuda-path=", 12)) {
			rc = cuda_tools(d, w + 12);
		} else if (prefixed(lto_words, w)) {
			rc = lto_option(d, strchr(w, '=') + 1);
		} else if (!strncmp(w, "-l", 2) && w[2]) {
			char *p = search(d, w, true, &rc);
			rc = rc ? rc : p ? read_file(d, p) : 0;
			free(p);
		} else if (!strncmp(w, "-L", 2) || in(g->flags, w) || prefixed(g->joined, w)) {
			rc = 0;
		} else if (w[0] == '@') {
			rc = uncached(d, "%s reads the response file %s itself", job->v[0], w);
		} else if (w[0] != '-' && g->inputs) {
			d->at[i] = 0;
			rc = read_file(d, w);
		} else {
			rc = uncached(d, "the word '%s' of %s is not one offlink models", w,
			              job->v[0]);
		}
	}
	d->dirs = NULL;
	d->ndirs = 0;
	ofl_argv_release(&dirs);
	return rc;
}

static const char *const nvlink_values[] = {"-o", "-arch", NULL};
static const char *const nvlink_flags[] = {"-v", "-g", "--dry-run", NULL};
static const char *const nvlink_joined[] = {"-O", "--lto-", "--feature=", "-arch=", NULL};
static const struct grammar nvlink = {nvlink_values, nvlink_flags, nvlink_joined, true, NULL};
static const char *const ptxas_values[] = {"--gpu-name", "--output-file", "-arch", "-o", NULL};
static const char *const ptxas_flags[] = {"-m64", "-c", "-g", "-v", "--verbose", NULL};
static const char *const ptxas_joined[] = {"-O", "--opt-level", NULL};
static const struct grammar ptxas = {ptxas_values, ptxas_flags, ptxas_joined, true, NULL};
static const char *const lto_values[] = {"-o", "-r", NULL};
static const char *const lto_flags[] = {"run", NULL};
static const char *const lto_joined[] = {
    "-O",     "--cg-opt-level=", "--select-save-temps=", "--relocation-model=",
    "-mcpu=", "-mattr=",         "--filetype=",          "--stop-before=",
    NULL};
static const struct grammar lto2 = {lto_values, lto_flags, lto_joined, true, NULL};
/* the code generation of partitions (partition.c) */
static const char *const split_values[] = {"-o", "-j", NULL};
static const char *const split_joined[] = {"--mtriple=", "--mcpu=", NULL};
static const struct grammar split = {split_values, NULL, split_joined, true, NULL};
static const char *const llc_values[] = {"-o", NULL};
static const char *const llc_flags[] = {"-function-sections", "-data-sections", "-addrsig",
                                        "--asm-verbose=false", NULL};
static const char *const llc_joined[] = {
    "-O", "-relocation-model=", "-mcpu=", "-mattr=", "-filetype=", NULL};
static const struct grammar llc = {llc_values, llc_flags, llc_joined, true, NULL};
static const char *const opt_values[] = {"-o", "-rewrite-map-file", NULL};
static const char *const opt_joined[] = {"-passes=", NULL};
static const struct grammar opt = {opt_values, NULL, opt_joined, true, opt_values + 1};

/* clang-sycl-linker (clang --sycl-link): it links its inputs and writes
 * SPIR-V with LLVM's backend in process, its temporaries in TMPDIR (the
 * link's folder) and a copy of each image beside its output
 * (<output stem>_<n>.spv, the link's too: a hit writes none, nothing reads
 * them).  An arch (-arch=X, not the empty one) makes it compile ahead of
 * time with ocloc or opencl-aot, which offlink does not model. */
static const char *const sycl_values[] = {"-o", "--output-file", NULL};
static const char *const sycl_flags[] = {"-arch=", "--arch=", NULL};
static const char *const sycl_joined[] = {"-triple=", "--triple=", NULL};
static const struct grammar sycl_linker = {sycl_values, sycl_flags, sycl_joined, true, NULL};

/* ---- the action ---------------------------------------------------------- */

static const char *base_name(const char *p)
{
	return strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
}

/* A word of job starts with prefix. */
static bool has_prefix(const struct ofl_argv *job, const char *prefix)
{
	for (size_t i = 1; i < job->n; i++)
		if (!strncmp(job->v[i], prefix, strlen(prefix)))
			return true;
	return false;
}

/* What a job reads, by its tool's grammar, told by the name of the file it
 * runs (its real one: /usr/bin/ld is bfd or gold as the system chose, and
 * a link named ld.gold may lead to bfd); the variables each tool reads
 * (lld's LLD_VERSION goes into the image's .comment; bfd takes
 * LD_RUN_PATH as -rpath and searches LD_LIBRARY_PATH for the libraries
 * its inputs need). */
static int tool_files(struct decl *d, const struct ofl_argv *job, const char *b)
{
	int rc = 0;
	enum ofl_linker ld = ofl_linker_of(b);
	if (ld == OFL_LINKER_LLD)
		return (rc = reads_env(d, "LLD_VERSION")) ? rc : ld_job(d, job, ld);
	if (ld == OFL_LINKER_GOLD)
		return ld_job(d, job, ld);
	if (ld == OFL_LINKER_BFD) {
		static const char *const vars[] = {"LD_RUN_PATH", "LD_LIBRARY_PATH", "TMPDIR"};
		for (size_t i = 0; !rc && i < sizeof(vars) / sizeof(*vars); i++)
			rc = reads_env(d, vars[i]);
		return rc ? rc : ld_job(d, job, ld);
	}
	if (!strcmp(b, "clang-nvlink-wrapper")) {
		/* without --cuda-path it runs ptxas and nvlink from PATH */
		rc = list_job(d, job, &nvlink);
		return rc || has_prefix(job, "--cuda-path=") ? rc : cuda_tools(d, NULL);
	}
	if (!strcmp(b, "ptxas"))
		return list_job(d, job, &ptxas);
	if (!strcmp(b, "llvm-lto2"))
		return list_job(d, job, &lto2);
	if (!strcmp(b, "clang-sycl-linker"))
		return list_job(d, job, &sycl_linker);
	if (!strcmp(b, "llvm-split"))
		return list_job(d, job, &split);
	if (!strcmp(b, "llc"))
		return list_job(d, job, &llc);
	if (!strcmp(b, "opt"))
		return list_job(d, job, &opt);
	return uncached(d, "what %s reads is not known to offlink", b);
}

/* word with the folder dir at the front of it (a path ending there or
 * going on below it) written as name; NULL when it is not. */
static char *rewritten(const char *word, size_t at, const char *dir, const char *name)
{
	size_t n = dir ? strlen(dir) : 0;
	char *s = NULL;
	if (!n || strncmp(word + at, dir, n) || (word[at + n] && word[at + n] != '/'))
		return NULL;
	return asprintf(&s, "%.*s%s%s", (int)at, word, name, word + at + n) < 0 ? NULL : s;
}

/* The key's words of job j: the link's folder written @link (its files
 * are keyed by their bytes), the working folder @cwd where a path's place
 * does not reach the image (d->at). */
static int key_words(struct decl *d, size_t j)
{
	const struct ofl_argv *job = &d->a->jobs[j];
	struct ofl_argv *k = &d->a->keyjobs[j];
	int rc = 0;
	for (size_t i = 0; !rc && i < job->n; i++) {
		const char *w = job->v[i], *t = strstr(w, d->l->tmpdir ? d->l->tmpdir : "\1");
		char *s = t               ? rewritten(w, (size_t)(t - w), d->l->tmpdir, "@link")
		          : d->at[i] >= 0 ? rewritten(w, (size_t)d->at[i], d->l->memo.cwd, "@cwd")
		                          : NULL;
		rc = ofl_argv_push(k, s ? s : w, d->err);
		free(s);
	}
	return rc;
}

static int job_files(struct decl *d, size_t j)
{
	const struct ofl_argv *job = &d->a->jobs[j];
	char *prog = find_program(d, job->v[0]), real[PATH_MAX];
	int rc = prog ? program(d, prog, true)
	              : uncached(d, "the device tool %s is not there", base_name(job->v[0]));
	const char *b = prog && realpath(prog, real) ? base_name(real) : base_name(job->v[0]);
	free(prog);
	if (rc || d->a->uncached)
		return rc;
	if (!(d->at = ofl_calloc(job->n, sizeof(*d->at))))
		return OFL_NOMEM(d->err);
	for (size_t i = 1; i < job->n; i++)
		d->at[i] = -1;
	rc = tool_files(d, job, b);
	rc = rc || d->a->uncached ? rc : key_words(d, j);
	free(d->at);
	d->at = NULL;
	return rc;
}

/* The key's contents, for --explain and the audit (scripts/cache-audit). */
static void log_key(struct ofl_link *l, const struct link_action *a)
{
	static const char *const how[] = {"file", "absent", "looked", "loader cache"};
	ofl_link_logf(l, OFL_LOG_DECISION, "device action: %s -> %s", a->what, a->output);
	for (size_t j = 0; j < a->njobs; j++) {
		struct ofl_buf b = OFL_BUF_INIT;
		if (!ofl_proc_format(a->jobs[j].v, a->jobs[j].n, false, &b))
			ofl_link_logf(l, OFL_LOG_DECISION, "  runs: %s", (const char *)b.data);
		ofl_buf_release(&b);
	}
	if (a->uncached) {
		ofl_link_logf(l, OFL_LOG_DECISION, "  not cached: %s", a->uncached);
		return;
	}
	for (size_t i = 0; i < a->nfiles; i++) {
		const char *p = a->files[i].path;
		/* the audit compares real paths: a relative name as the jobs,
		 * which run in the working folder, find it */
		bool rel = p[0] != '/' && l->memo.cwd;
		ofl_link_logf(l, OFL_LOG_DECISION, "  key %s: %s%s%s", how[a->files[i].how],
		              rel ? l->memo.cwd : "", rel ? "/" : "", p);
	}
	for (size_t i = 0; i < a->keyenv.n; i++)
		ofl_link_logf(l, OFL_LOG_DECISION, "  key env: %s", a->keyenv.v[i]);
}

int ofl_declare(struct ofl_link *l, struct link_action *a, struct ofl_error *err)
{
	struct decl d = {l, a, err, OFL_SYMSET_INIT, 0, NULL, 0, OFL_LINKER_LLD, NULL};
	int rc = 0;
	if (!l->cache && !a->uncached)
		rc = uncached(&d, "no device-link cache");
	if (!rc && !a->uncached && !l->memo.cwd) {
		char cwd[PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) && !(l->memo.cwd = ofl_strdup(cwd)))
			rc = OFL_NOMEM(err);
	}
	if (!rc && !a->uncached && !(a->keyjobs = ofl_calloc(a->njobs, sizeof(*a->keyjobs))))
		rc = OFL_NOMEM(err);
	/* what the keys see of files, looked at once per link (none when out
	 * of memory: then once per action) */
	if (!rc && !a->uncached && !l->digests)
		l->digests = ofl_digests_new();
	rc = rc || a->uncached ? rc : launcher(&d);
	for (size_t i = 0; !rc && !a->uncached && i < a->njobs; i++)
		rc = a->jobs[i].n ? job_files(&d, i) : uncached(&d, "an empty job");
	ofl_symset_release(&d.seen);
	if (!rc && l->cache)
		log_key(l, a);
	return rc;
}
