/* GNU ld / gold / lld command lines (offlink/ldcmd.h).
 *
 * Two passes: @FILE words are expanded into one list of owned words, then
 * each word (and its separate value, if any) becomes one argument.  Options
 * are looked up in one table, long names first (with one dash or two, as
 * GNU ld's getopt_long_only and lld accept), then one-letter options with a
 * value joined without '=' (-Ldir, -lm, -zdefs).
 */
#include "offlink/ldcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "internal.h"
#include "offlink/argv.h"
#include "offlink/nearest.h"

enum val {
	V_NONE, /* a flag */
	V_SEP,  /* a value joined (-Lx, --opt=x) or in the next word */
	V_OPT,  /* an optional value, joined with '=' only */
	V_EQ,   /* a required value, joined with '=' only */
};

struct optdef {
	const char *name; /* without dashes; one letter: one dash only */
	enum ofl_ldopt id;
	enum val val;
};

#define ARG OFL_LD_OTHER_WITH_ARG
#define FLAG OFL_LD_OTHER_FLAG

/* Long flags that start with the letter of a one-letter option with a value
 * (-export-dynamic, -fatal-warnings) are listed so that they are not read as
 * that option with a joined value. */
/* clang-format off */
static const struct optdef opts[] = {
	{"o", OFL_LD_OUTPUT, V_SEP}, {"output", OFL_LD_OUTPUT, V_SEP},
	{"L", OFL_LD_LIBPATH, V_SEP}, {"library-path", OFL_LD_LIBPATH, V_SEP},
	{"l", OFL_LD_LIBRARY, V_SEP}, {"library", OFL_LD_LIBRARY, V_SEP},
	{"sysroot", OFL_LD_SYSROOT, V_EQ},
	{"whole-archive", OFL_LD_WHOLE_ARCHIVE, V_NONE},
	{"no-whole-archive", OFL_LD_NO_WHOLE_ARCHIVE, V_NONE},
	{"(", OFL_LD_START_GROUP, V_NONE}, {"start-group", OFL_LD_START_GROUP, V_NONE},
	{")", OFL_LD_END_GROUP, V_NONE}, {"end-group", OFL_LD_END_GROUP, V_NONE},
	{"Bstatic", OFL_LD_BSTATIC, V_NONE}, {"dn", OFL_LD_BSTATIC, V_NONE},
	{"non_shared", OFL_LD_BSTATIC, V_NONE}, {"static", OFL_LD_BSTATIC, V_NONE},
	{"Bdynamic", OFL_LD_BDYNAMIC, V_NONE}, {"dy", OFL_LD_BDYNAMIC, V_NONE},
	{"call_shared", OFL_LD_BDYNAMIC, V_NONE},
	{"as-needed", OFL_LD_AS_NEEDED, V_NONE}, {"no-as-needed", OFL_LD_NO_AS_NEEDED, V_NONE},
	{"push-state", OFL_LD_PUSH_STATE, V_NONE}, {"pop-state", OFL_LD_POP_STATE, V_NONE},
	{"r", OFL_LD_RELOCATABLE, V_NONE}, {"i", OFL_LD_RELOCATABLE, V_NONE},
	{"relocatable", OFL_LD_RELOCATABLE, V_NONE}, {"Ur", OFL_LD_RELOCATABLE, V_NONE},
	{"shared", OFL_LD_SHARED, V_NONE}, {"Bshareable", OFL_LD_SHARED, V_NONE},
	{"pie", OFL_LD_PIE, V_NONE}, {"pic-executable", OFL_LD_PIE, V_NONE},
	{"no-pie", OFL_LD_NO_PIE, V_NONE},
	{"T", OFL_LD_SCRIPT, V_SEP}, {"script", OFL_LD_SCRIPT, V_SEP},
	{"plugin", OFL_LD_PLUGIN, V_SEP}, {"plugin-opt", OFL_LD_PLUGIN_OPT, V_SEP},
	{"m", OFL_LD_EMULATION, V_SEP},
	{"I", OFL_LD_DYNAMIC_LINKER, V_SEP}, {"dynamic-linker", OFL_LD_DYNAMIC_LINKER, V_SEP},
	{"R", OFL_LD_RPATH, V_SEP}, {"rpath", OFL_LD_RPATH, V_SEP},
	{"v", OFL_LD_VERSION, V_NONE}, {"V", OFL_LD_VERSION, V_NONE},
	{"version", OFL_LD_VERSION, V_NONE}, {"help", OFL_LD_HELP, V_NONE},
	/* carried options with a value */
	{"a", ARG, V_SEP}, {"A", ARG, V_SEP}, {"architecture", ARG, V_SEP},
	{"b", ARG, V_SEP}, {"format", ARG, V_SEP}, {"c", ARG, V_SEP}, {"mri-script", ARG, V_SEP},
	{"e", OFL_LD_UNDEFINED, V_SEP}, {"entry", OFL_LD_UNDEFINED, V_SEP},
	{"f", ARG, V_SEP}, {"auxiliary", ARG, V_SEP},
	{"F", ARG, V_SEP}, {"filter", ARG, V_SEP}, {"G", ARG, V_SEP}, {"gpsize", ARG, V_SEP},
	{"h", ARG, V_SEP}, {"soname", ARG, V_SEP}, {"O", ARG, V_SEP},
	{"u", OFL_LD_UNDEFINED, V_SEP}, {"undefined", OFL_LD_UNDEFINED, V_SEP},
	{"require-defined", OFL_LD_UNDEFINED, V_SEP}, {"y", ARG, V_SEP},
	{"trace-symbol", ARG, V_SEP}, {"Y", ARG, V_SEP}, {"z", ARG, V_SEP},
	{"undefined-glob", OFL_LD_UNDEFINED_GLOB, V_SEP},
	{"rpath-link", ARG, V_SEP}, {"defsym", OFL_LD_DEFSYM, V_SEP}, {"wrap", OFL_LD_WRAP, V_SEP},
	{"version-script", ARG, V_SEP}, {"dynamic-list", ARG, V_SEP},
	{"hash-style", ARG, V_SEP}, {"hash-size", ARG, V_SEP},
	{"Map", OFL_LD_REPORT, V_SEP}, {"why-extract", OFL_LD_REPORT, V_SEP},
	{"print-archive-stats", OFL_LD_REPORT, V_SEP},
	{"oformat", ARG, V_SEP}, {"exclude-libs", ARG, V_SEP},
	{"retain-symbols-file", ARG, V_SEP}, {"image-base", ARG, V_SEP},
	{"sort-section", ARG, V_SEP}, {"section-start", ARG, V_SEP},
	{"Ttext", ARG, V_SEP}, {"Tdata", ARG, V_SEP}, {"Tbss", ARG, V_SEP},
	{"Ttext-segment", ARG, V_SEP}, {"Trodata-segment", ARG, V_SEP},
	{"Tldata-segment", ARG, V_SEP},
	{"dT", OFL_LD_DEFAULT_SCRIPT, V_SEP}, {"default-script", OFL_LD_DEFAULT_SCRIPT, V_SEP},
	{"thread-count", ARG, V_SEP}, {"dependency-file", OFL_LD_DEPFILE, V_SEP},
	{"package-metadata", ARG, V_SEP}, {"just-symbols", ARG, V_SEP},
	{"out-implib", ARG, V_SEP}, {"error-limit", ARG, V_SEP}, {"chroot", ARG, V_SEP},
	{"icf", ARG, V_SEP}, {"init", ARG, V_SEP}, {"fini", ARG, V_SEP},
	{"audit", ARG, V_SEP}, {"P", ARG, V_SEP}, {"depaudit", ARG, V_SEP},
	{"export-dynamic-symbol", ARG, V_SEP},
	{"export-dynamic-symbol-list", ARG, V_SEP}, {"unresolved-symbols", ARG, V_SEP},
	{"orphan-handling", ARG, V_SEP}, {"error-handling-script", ARG, V_SEP},
	{"mllvm", ARG, V_SEP},
	/* carried options whose value can only be joined with '=' */
	{"build-id", ARG, V_OPT}, {"compress-debug-sections", ARG, V_OPT},
	{"threads", ARG, V_OPT}, {"color-diagnostics", ARG, V_OPT}, {"unique", ARG, V_OPT},
	/* carried flags */
	{"undefined-version", FLAG, V_NONE}, {"export-dynamic", FLAG, V_NONE},
	{"eh-frame-hdr", FLAG, V_NONE}, {"emit-relocs", FLAG, V_NONE},
	{"enable-new-dtags", FLAG, V_NONE}, {"error-unresolved-symbols", FLAG, V_NONE},
	{"allow-multiple-definition", FLAG, V_NONE}, {"allow-shlib-undefined", FLAG, V_NONE},
	{"accept-unknown-input-arch", FLAG, V_NONE}, {"fatal-warnings", FLAG, V_NONE},
	{"check-sections", FLAG, V_NONE}, {"cref", FLAG, V_NONE},
	{"copy-dt-needed-entries", FLAG, V_NONE}, {"omagic", FLAG, V_NONE},
	{"fix-cortex-a53-843419", FLAG, V_NONE},
	/* ld.offlink's own */
	{"offlink-linker", OFL_LD_OWN_LINKER, V_SEP},
	{"device-compiler", OFL_LD_OWN_DEVICE_COMPILER, V_SEP},
	{"device-linker", OFL_LD_OWN_DEVICE_LINKER, V_SEP},
	{"device-launcher", OFL_LD_OWN_DEVICE_LAUNCHER, V_SEP},
	{"offload-extract", OFL_LD_OWN_OFFLOAD_EXTRACT, V_SEP},
	{"offload-relocatable", OFL_LD_OWN_OFFLOAD_RELOCATABLE, V_NONE},
	{"j", OFL_LD_OWN_JOBS, V_SEP}, {"jobs", OFL_LD_OWN_JOBS, V_SEP},
	{"explain", OFL_LD_OWN_EXPLAIN, V_OPT}, {"dry-run", OFL_LD_OWN_DRY_RUN, V_NONE},
	{"save-temps", OFL_LD_OWN_SAVE_TEMPS, V_NONE},
	{"offlink-verbose", OFL_LD_OWN_VERBOSE, V_NONE},
	{"nogpulib", OFL_LD_OWN_NOGPULIB, V_NONE},
	{"no-device-cache", OFL_LD_OWN_NO_DEVICE_CACHE, V_NONE},
	{"no-bypass-warning", OFL_LD_OWN_NO_BYPASS_WARNING, V_NONE},
	{"device-opt-level", OFL_LD_OWN_DEVICE_OPT_LEVEL, V_SEP},
	{"time-trace", OFL_LD_OWN_TIME_TRACE, V_OPT},
	{"time-trace-file", OFL_LD_OWN_TIME_TRACE, V_EQ},
	{"device-partitions", OFL_LD_OWN_DEVICE_PARTITIONS, V_SEP},
};
/* clang-format on */

#define NOPTS (sizeof opts / sizeof opts[0])

/* ---- options ----------------------------------------------------------- */

/* A long name matched: exact, or followed by "=VALUE" (rest). */
static const struct optdef *long_value(const struct optdef *d, const char *rest, const char **value)
{
	if (rest[0] != '=')
		return d->val == V_EQ ? NULL : d;
	if (d->val == V_NONE)
		return NULL;
	*value = rest + 1;
	return d;
}

/* One letter, alone or with its value joined (-lm, -L=dir keeps the '='). */
static const struct optdef *short_opt(const char *s, const char **value)
{
	for (size_t i = 0; i < NOPTS; i++) {
		const struct optdef *d = &opts[i];
		if (d->name[1] || d->name[0] != s[0])
			continue;
		if (!s[1])
			return d;
		if (d->val != V_SEP)
			return NULL;
		*value = s + 1;
		return d;
	}
	return NULL;
}

/* The table entry for an option word and its joined value, if any. */
static const struct optdef *lookup(const char *word, const char **value)
{
	size_t dashes = word[1] == '-' ? 2 : 1;
	const char *s = word + dashes;
	size_t n = strcspn(s, "=");
	*value = NULL;
	for (size_t i = 0; i < NOPTS; i++) {
		const char *name = opts[i].name;
		if (name[1] && strlen(name) == n && memcmp(name, s, n) == 0)
			return long_value(&opts[i], s + n, value);
	}
	return dashes == 1 ? short_opt(s, value) : NULL;
}

/* ---- arguments --------------------------------------------------------- */

struct parser {
	struct ofl_ldcmd *c;
	struct ofl_ldstate st;
	struct ofl_ldstate *saved; /* --push-state stack */
	size_t nsaved, capsaved;
};

static char *take(struct ofl_argv *w, size_t i)
{
	char *s = w->v[i];
	w->v[i] = NULL;
	return s;
}

/* A new option argument owning word. */
static struct ofl_ldarg *add_arg(struct ofl_ldcmd *c, char *word, struct ofl_error *err)
{
	if (OFL_GROW(c->args, c->cap, c->nargs)) {
		free(word);
		OFL_NOMEM(err);
		return NULL;
	}
	struct ofl_ldarg *a = &c->args[c->nargs++];
	*a = (struct ofl_ldarg){.kind = OFL_LDARG_OPTION, .word = {word, NULL}, .nwords = 1};
	return a;
}

static int einval(struct ofl_error *err, const char *fmt, const char *word)
{
	return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, fmt, word);
}

static int push_state(struct parser *p, struct ofl_error *err)
{
	if (OFL_GROW(p->saved, p->capsaved, p->nsaved))
		return OFL_NOMEM(err);
	p->saved[p->nsaved++] = p->st;
	return 0;
}

/* --pop-state restores what --push-state saved, as GNU ld does: not the
 * group, which only --end-group closes. */
static int pop_state(struct parser *p, const char *word, struct ofl_error *err)
{
	if (!p->nsaved)
		return einval(err, "'%s' without '--push-state'", word);
	unsigned group = p->st.group;
	p->st = p->saved[--p->nsaved];
	p->st.group = group;
	return 0;
}

/* Effects on the input state. */
static int apply_state(struct parser *p, const struct ofl_ldarg *a, struct ofl_error *err)
{
	switch (a->opt) {
	case OFL_LD_WHOLE_ARCHIVE:
	case OFL_LD_NO_WHOLE_ARCHIVE:
		p->st.whole_archive = a->opt == OFL_LD_WHOLE_ARCHIVE;
		return 0;
	case OFL_LD_BSTATIC:
	case OFL_LD_BDYNAMIC:
		p->st.static_only = a->opt == OFL_LD_BSTATIC;
		return 0;
	case OFL_LD_AS_NEEDED:
	case OFL_LD_NO_AS_NEEDED:
		p->st.as_needed = a->opt == OFL_LD_AS_NEEDED;
		return 0;
	case OFL_LD_START_GROUP:
		if (p->st.group)
			return einval(err, "'%s' inside a group: groups may not nest", a->word[0]);
		p->st.group = ++p->c->ngroups;
		return 0;
	case OFL_LD_END_GROUP:
		if (!p->st.group)
			return einval(err, "'%s' without '--start-group'", a->word[0]);
		p->st.group = 0;
		return 0;
	case OFL_LD_PUSH_STATE:
		return push_state(p, err);
	case OFL_LD_POP_STATE:
		return pop_state(p, a->word[0], err);
	default:
		return 0;
	}
}

/* Effects on the summary of the line. */
static void apply_summary(struct ofl_ldcmd *c, const struct ofl_ldarg *a, const struct optdef *d)
{
	switch (a->opt) {
	case OFL_LD_OUTPUT:
		c->output = a->value;
		break;
	case OFL_LD_SYSROOT:
		c->sysroot = a->value;
		break;
	case OFL_LD_RELOCATABLE:
		c->relocatable = true;
		break;
	case OFL_LD_SHARED:
		c->shared = true;
		break;
	case OFL_LD_PIE:
	case OFL_LD_NO_PIE: /* the last one wins */
		c->pie = a->opt == OFL_LD_PIE;
		c->no_pie = !c->pie;
		break;
	case OFL_LD_BSTATIC:
		c->static_link |= strcmp(d->name, "static") == 0;
		break;
	case OFL_LD_VERSION:
		c->version_only = true;
		break;
	default:
		break;
	}
}

/* Turns word i (and i + 1 for a separate value) into one argument. */
static int parse_one(struct parser *p, struct ofl_argv *w, size_t *i, struct ofl_error *err)
{
	struct ofl_ldarg *a = add_arg(p->c, take(w, *i), err);
	if (!a)
		return OFL_ENOMEM;
	if (a->word[0][0] != '-') {
		a->kind = OFL_LDARG_FILE;
		a->value = a->word[0];
		a->state = p->st;
		return 0;
	}
	const struct optdef *d = lookup(a->word[0], &a->value);
	if (!d)
		return 0;
	a->opt = d->id;
	if (d->val == V_SEP && !a->value) {
		if (*i + 1 == w->n)
			return einval(err, "option '%s' needs a value", a->word[0]);
		a->word[1] = take(w, ++*i);
		a->nwords = 2;
		a->value = a->word[1];
	}
	if (a->opt == OFL_LD_OTHER_WITH_ARG && !a->value)
		a->opt = OFL_LD_OTHER_FLAG; /* --build-id alone */
	if (a->opt == OFL_LD_LIBRARY)
		a->kind = OFL_LDARG_LIBRARY;
	if (a->opt == OFL_LD_LIBRARY || a->opt == OFL_LD_SCRIPT)
		a->state = p->st; /* what the library or the script's INPUTs are read in */
	apply_summary(p->c, a, d);
	return apply_state(p, a, err);
}

/* ---- link.exe and lld-link ---------------------------------------------- */

/* A link.exe option: "-name[:value]", or "/name[:value]" where the name is
 * letters only (so /usr/lib/x.lib is a file). */
static bool link_exe_option(const char *w)
{
	if (w[0] == '-')
		return w[1] != '\0';
	if (w[0] != '/')
		return false;
	size_t n = strcspn(w + 1, ":");
	for (size_t i = 1; i <= n; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') || w[i] == '-'))
			return false;
	return n > 0;
}

/* The options the pipeline reads (case-insensitive, as link.exe's). */
static const struct {
	const char *name;
	enum ofl_ldopt id;
} link_exe_opts[] = {
    {"out", OFL_LD_OUTPUT}, {"libpath", OFL_LD_LIBPATH}, {"wholearchive", OFL_LD_WHOLE_ARCHIVE}};

static int parse_link_exe(struct parser *p, struct ofl_argv *w, size_t i, struct ofl_error *err)
{
	struct ofl_ldarg *a = add_arg(p->c, take(w, i), err);
	if (!a)
		return OFL_ENOMEM;
	const char *word = a->word[0];
	if (!link_exe_option(word)) {
		a->kind = OFL_LDARG_FILE;
		a->value = word;
		a->state = p->st;
		return 0;
	}
	size_t n = strcspn(word + 1, ":");
	for (size_t k = 0; k < sizeof(link_exe_opts) / sizeof(link_exe_opts[0]); k++) {
		if (strlen(link_exe_opts[k].name) != n ||
		    strncasecmp(word + 1, link_exe_opts[k].name, n) || !word[1 + n] || !word[2 + n])
			continue;
		a->value = word + 2 + n;
		a->opt = link_exe_opts[k].id;
		if (a->opt == OFL_LD_WHOLE_ARCHIVE) { /* /wholearchive:FILE: that file, whole */
			a->kind = OFL_LDARG_FILE;
			a->state = p->st;
			a->state.whole_archive = true;
		}
		if (a->opt == OFL_LD_OUTPUT)
			p->c->output = a->value;
		break;
	}
	return 0;
}

int ofl_ldcmd_parse(struct ofl_ldcmd *c, enum ofl_ldcmd_style style, int argc, char *const *argv,
                    struct ofl_rsp_memo *rsp, struct ofl_error *err)
{
	struct ofl_argv w = OFL_ARGV_INIT;
	struct parser p = {.c = c};
	int rc = 0;
	rc = ofl_argv_expand(&w, argc, argv, rsp, err);
	for (size_t i = 0; i < w.n && !rc; i++)
		rc = style == OFL_LDCMD_LINK_EXE ? parse_link_exe(&p, &w, i, err)
		                                 : parse_one(&p, &w, &i, err);
	ofl_argv_release(&w); /* the words not taken */
	free(p.saved);
	if (rc)
		ofl_ldcmd_release(c);
	return rc;
}

/* ---- paths ------------------------------------------------------------- */

/* Splits path into the sysroot it is relative to ("" if none) and the rest,
 * for a leading '=' or "$SYSROOT". */
static const char *sysroot_split(const struct ofl_ldcmd *c, const char *path, const char **rest)
{
	size_t skip = path[0] == '=' ? 1 : strncmp(path, "$SYSROOT", 8) == 0 ? 8 : 0;
	*rest = path + skip;
	return skip && c->sysroot ? c->sysroot : "";
}

char *ofl_ldcmd_input_path(const struct ofl_ldcmd *c, const struct ofl_ldarg *a)
{
	const char *v = a->value ? a->value : a->word[0];
	return a->kind == OFL_LDARG_FILE ? ofl_ldcmd_sysroot_path(c, v) : ofl_strdup(v);
}

char *ofl_ldcmd_sysroot_path(const struct ofl_ldcmd *c, const char *v)
{
	const char *rest, *root = sysroot_split(c, v, &rest);
	size_t n = strlen(root), m = strlen(rest);
	char *s = ofl_malloc(n + m + 1);
	if (s) {
		memcpy(s, root, n);
		memcpy(s + n, rest, m + 1);
	}
	return s;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ofl_ldcmd_find_in_dir in root followed by dir. */
static int find_in(const char *root, const char *dir, const char *name, bool static_only,
                   char **found, struct ofl_error *err)
{
	size_t size = strlen(root) + strlen(dir) + strlen(name) + sizeof "/lib.so";
	bool exact = name[0] == ':';
	char *s = ofl_malloc(size);
	if (!s)
		return OFL_NOMEM(err);
	int len = snprintf(s, size, exact ? "%s%s/%s" : "%s%s/lib%s.so", root, dir,
	                   exact ? name + 1 : name);
	if ((exact || !static_only) && is_file(s)) {
		*found = s;
		return 1;
	}
	if (!exact) {
		memcpy(s + len - 2, "a", 2); /* .so -> .a */
		if (is_file(s)) {
			*found = s;
			return 1;
		}
	}
	free(s);
	return 0;
}

int ofl_ldcmd_find_in_dir(const char *dir, const char *name, bool static_only, char **found,
                          struct ofl_error *err)
{
	return find_in("", dir, name, static_only, found, err);
}

static int try_dir(const struct ofl_ldcmd *c, const char *dir, const struct ofl_ldarg *lib,
                   char **found, struct ofl_error *err)
{
	const char *rest, *root = sysroot_split(c, dir, &rest);
	return find_in(root, rest, lib->value, lib->state.static_only, found, err);
}

char *ofl_ldcmd_find_library(const struct ofl_ldcmd *c, const struct ofl_ldarg *lib,
                             const char *const *default_dirs, size_t ndefault,
                             struct ofl_error *err)
{
	char *found = NULL;
	int rc = 0;
	if (lib->kind != OFL_LDARG_LIBRARY)
		return NULL;
	for (size_t i = 0; i < c->nargs && !rc; i++)
		if (c->args[i].opt == OFL_LD_LIBPATH)
			rc = try_dir(c, c->args[i].value, lib, &found, err);
	for (size_t i = 0; i < ndefault && !rc; i++)
		rc = try_dir(c, default_dirs[i], lib, &found, err);
	return found;
}

bool ofl_ldarg_is_own(const struct ofl_ldarg *a)
{
	return a->kind == OFL_LDARG_OPTION && a->opt >= OFL_LD_OWN_LINKER;
}

bool ofl_ldarg_is_own_typo(const struct ofl_ldarg *a, const char **meant)
{
	*meant = NULL;
	if (a->kind != OFL_LDARG_OPTION || a->opt != OFL_LD_UNKNOWN)
		return false;
	const char *name = a->word[0] + (a->word[0][1] == '-' ? 2 : 1);
	const char *own[NOPTS];
	size_t n = 0;
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].id >= OFL_LD_OWN_LINKER && opts[i].name[1])
			own[n++] = opts[i].name;
	*meant = ofl_nearest(name, strcspn(name, "="), own, n);
	return *meant || !strncmp(name, "offlink-", 8);
}

unsigned ofl_ld_jobs(const char *value)
{
	char *end;
	unsigned long n = value[0] >= '0' && value[0] <= '9' ? strtoul(value, &end, 10) : 0;
	return n && !*end && n <= 4096 ? (unsigned)n : 0;
}

static bool ends(const char *name, const char *tail)
{
	size_t n = strlen(name), t = strlen(tail);
	return n >= t && !strcmp(name + n - t, tail);
}

enum ofl_linker ofl_linker_of(const char *base)
{
	if (ends(base, "ld.lld") || !strcmp(base, "lld"))
		return OFL_LINKER_LLD;
	if (ends(base, "ld.gold"))
		return OFL_LINKER_GOLD;
	if (ends(base, "ld.bfd") || !strcmp(base, "ld"))
		return OFL_LINKER_BFD;
	return OFL_LINKER_OTHER;
}

void ofl_ldcmd_release(struct ofl_ldcmd *c)
{
	for (size_t i = 0; i < c->nargs; i++) {
		free(c->args[i].word[0]);
		free(c->args[i].word[1]);
	}
	free(c->args);
	*c = (struct ofl_ldcmd)OFL_LDCMD_INIT;
}

/* Debian's multiarch name of a host triple's architecture, or NULL. */
static const char *multiarch(const char *triple)
{
	static const char *const arch[][2] = {{"x86_64-", "x86_64-linux-gnu"},
	                                      {"aarch64-", "aarch64-linux-gnu"},
	                                      {"i386-", "i386-linux-gnu"},
	                                      {"i686-", "i386-linux-gnu"},
	                                      {"powerpc64le-", "powerpc64le-linux-gnu"},
	                                      {"riscv64-", "riscv64-linux-gnu"},
	                                      {"s390x-", "s390x-linux-gnu"},
	                                      {"loongarch64-", "loongarch64-linux-gnu"}};
	for (size_t i = 0; i < sizeof(arch) / sizeof(arch[0]); i++)
		if (!strncmp(triple, arch[i][0], strlen(arch[i][0])))
			return arch[i][1];
	return NULL;
}

/* GNU ld's built-in search directories on Debian for the host triple: the
 * multiarch ones, the lib64 ones of a 64-bit host, then the generic ones
 * (ld --verbose's SEARCH_DIR). */
int ofl_ld_default_dirs(const char *triple, struct ofl_argv *dirs, struct ofl_error *err)
{
	static const char *const roots[] = {"/usr/local/lib", "/lib", "/usr/lib"};
	const char *ma = multiarch(triple);
	int rc = 0;
	static const char *const lib64[] = {"/usr/local/lib64", "/lib64", "/usr/lib64"};
	for (size_t i = 0; ma && !rc && i < 3; i++) {
		char *d = NULL;
		if (asprintf(&d, "%s/%s", roots[i], ma) < 0)
			return OFL_NOMEM(err);
		rc = ofl_argv_push(dirs, d, err);
		free(d);
	}
	/* a 64-bit host's ld searches the lib64 folders next */
	for (size_t i = 0; ma && strncmp(ma, "i386", 4) && !rc && i < 3; i++)
		rc = ofl_argv_push(dirs, lib64[i], err);
	for (size_t i = 0; !rc && i < 3; i++)
		rc = ofl_argv_push(dirs, roots[i], err);
	return rc;
}
