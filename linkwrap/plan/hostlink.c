/* The host link as the pipeline sees it (docs/design.md, "The host link"):
 * one knowledge of the host linker's command line for both front ends.
 * ld.offlink hands over its own command line, the plugin its linker's (read
 * from /proc/self/cmdline).  From it come where -l finds libraries, which
 * inputs the link reads, what a CPU device link takes from the host link,
 * the host linker's argv with the wrapper objects, and which outputs of the
 * host linker would name a temporary. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "link_priv.h"
#include "offlink/ldscript.h"
#include "offlink/format.h"
#include "offlink/io.h"

static int pushf(struct ofl_argv *v, struct ofl_error *err, const char *a, const char *b)
{
	char *s = NULL;
	if (asprintf(&s, "%s%s", a, b) < 0)
		return OFL_NOMEM(err);
	int rc = ofl_argv_push(v, s, err);
	free(s);
	return rc;
}

/* The library an -l argument names, or NULL: after the -L folders, the
 * scripts' SEARCH_DIRs and the built-in folders, in the host linker's
 * order.  clang-linker-wrapper looks in no built-in folder (and requires
 * every library of the line in the others).  A lookup the host linker
 * makes before a SEARCH_DIR is read finds what this one does, or nothing
 * (its link fails): each folder comes after those it saw. */
char *ofl_hostlink_find_library(const struct ofl_link *l, const struct ofl_ldarg *a,
                                struct ofl_error *err)
{
	const struct ofl_argv *parts[] = {&l->script_dirs, l->o.llvm_wrapper ? NULL : &l->libdirs,
	                                  &l->script_dirs_late};
	size_t n = 0;
	for (size_t i = 0; i < 3; i++)
		n += parts[i] ? parts[i]->n : 0;
	const char **dirs = ofl_malloc((n ? n : 1) * sizeof(*dirs));
	if (!dirs) {
		OFL_NOMEM(err);
		return NULL;
	}
	n = 0;
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; parts[i] && k < parts[i]->n; k++)
			dirs[n++] = parts[i]->v[k];
	char *found = ofl_ldcmd_find_library(l->o.host_cmd, a, dirs, n, err);
	free(dirs);
	return found;
}

/* A shared object, told by its first bytes. */
static bool is_shared_object(const char *path)
{
	uint8_t h[18];
	return ofl_file_head(path, h, sizeof(h)) && ofl_format_of(h, sizeof(h)) == OFL_FMT_ELF &&
	       (h[5] == 2 ? h[17] : h[16]) == 3;
}

/* Whether file f holds device code (some unit has images). */
static bool holds_device_code(const struct ofl_link *l, const struct link_file *f)
{
	for (size_t u = f->first_unit; u < f->first_unit + f->nunits; u++)
		if (l->units[u].nimages)
			return true;
	return false;
}

/* A library (word: its path, or -l<name>) as a CPU device link takes it.
 * One with device code inside a --whole-archive region goes in as a plain
 * archive: its device code is the device link's input already, and its
 * host objects taken whole would define every declare-target symbol twice
 * (LLVM 22 fails such links; its dry run, LLVM's form, shows its line). */
static int push_library(struct ofl_link *l, const struct ofl_ldarg *a, const struct link_file *in,
                        const char *word, struct ofl_error *err)
{
	bool plain = a->state.whole_archive && in && !ofl_llvm_form(l) &&
	             in->kind == FILE_ARCHIVE && holds_device_code(l, in);
	int rc = plain ? ofl_argv_push(&l->cpu_args, "-Wl,--no-whole-archive", err) : 0;
	rc = rc ? rc : ofl_argv_push(&l->cpu_args, word, err);
	return rc || !plain ? rc : ofl_argv_push(&l->cpu_args, "-Wl,--whole-archive", err);
}

/* The folder of a library found at path when it is a script's SEARCH_DIR,
 * pushed as -L: a CPU device link reads no -T script.  0 or an OFL_E*
 * code. */
static int push_script_dir(struct ofl_link *l, const char *path, struct ofl_error *err)
{
	const struct ofl_argv *lists[] = {&l->script_dirs, &l->script_dirs_late};
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	for (size_t i = 0; n && i < 2; i++)
		for (size_t k = 0; k < lists[i]->n; k++) {
			const char *dir = lists[i]->v[k]; /* in the sysroot already */
			if (strlen(dir) == n && !memcmp(dir, path, n))
				return pushf(&l->cpu_args, err, "-L", dir);
		}
	return 0;
}

/* One argument of the host link as a CPU device link takes it, in the
 * host line's order as clang-linker-wrapper replays it: library dirs,
 * libraries found, run paths, archives and shared objects given by path,
 * the --whole-archive switches.  in: the file ofl_link_add_host_inputs
 * added for it, or NULL. */
static int cpu_arg(struct ofl_link *l, const struct ofl_ldarg *a, const struct link_file *in,
                   struct ofl_error *err)
{
	if (a->opt == OFL_LD_WHOLE_ARCHIVE || a->opt == OFL_LD_NO_WHOLE_ARCHIVE)
		return ofl_argv_push(&l->cpu_args,
		                     a->opt == OFL_LD_WHOLE_ARCHIVE ? "-Wl,--whole-archive"
		                                                    : "-Wl,--no-whole-archive",
		                     err);
	if (a->kind == OFL_LDARG_FILE) {
		char *p = ofl_ldcmd_input_path(l->o.host_cmd, a);
		bool library = p && (in ? in->kind == FILE_SHARED || in->kind == FILE_ARCHIVE
		                        : is_shared_object(p));
		int rc = !p ? OFL_NOMEM(err) : library ? push_library(l, a, in, p, err) : 0;
		free(p);
		return rc;
	}
	if (a->kind == OFL_LDARG_LIBRARY) {
		/* what the inputs' search did not find, it finds no better */
		char *found = in || l->host_inputs ? NULL : ofl_hostlink_find_library(l, a, err);
		if (!in && !found)
			return err->code;
		free(found);
		char *word = NULL;
		int rc = in ? push_script_dir(l, in->in.path, err) : 0;
		if (rc)
			return rc;
		if (asprintf(&word, "-l%s", a->value) < 0)
			return OFL_NOMEM(err);
		rc = push_library(l, a, in, word, err);
		free(word);
		return rc;
	}
	if (a->opt == OFL_LD_LIBPATH)
		return pushf(&l->cpu_args, err, "-L", a->value);
	if (a->opt == OFL_LD_RPATH)
		return pushf(&l->cpu_args, err, "-Wl,-rpath,", a->value);
	return 0;
}

int ofl_hostlink_cpu_args(struct ofl_link *l, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = l->o.host_cmd;
	int rc = 0;
	/* the files of the host inputs are in their arguments' order, after
	 * STARTUP's (an object: nothing for a CPU device link) */
	for (size_t i = 0, f = l->startup; c && !rc && i < c->nargs; i++) {
		while (f < l->nfiles && l->files[f].host_arg < i + 1)
			f++;
		bool added = f < l->nfiles && l->files[f].host_arg == i + 1;
		rc = cpu_arg(l, &c->args[i], added ? &l->files[f] : NULL, err);
	}
	return rc;
}

bool ofl_hostlink_names_library(const struct ofl_link *l, const char *name)
{
	const struct ofl_ldcmd *c = l->o.host_cmd;
	for (size_t i = 0; c && i < c->nargs; i++)
		if (c->args[i].kind == OFL_LDARG_LIBRARY && !strcmp(c->args[i].value, name))
			return true;
	return false;
}

static int push_objects(struct ofl_argv *v, const struct ofl_link_result *r, struct ofl_error *err)
{
	int rc = 0;
	for (size_t o = 0; r && !rc && o < r->nobjects; o++)
		rc = ofl_argv_push(v, r->objects[o], err);
	return rc;
}

/* The runtime libraries and their directories, in the order of clang's
 * driver (-lomp -lomptarget -L<llvm>/lib): -L applies to every -l. */
static int push_runtime(struct ofl_argv *v, const struct ofl_link_result *r, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; r && !rc && i < r->nlibraries; i++)
		rc = pushf(v, err, "-l", r->libraries[i]);
	for (size_t i = 0; r && !rc && i < r->nlibdirs; i++)
		rc = pushf(v, err, "-L", r->libdirs[i]);
	return rc;
}

/* The C runtime libraries that compiler drivers put after the program's
 * own (and clang after -lomptarget). */
static bool is_c_runtime(const struct ofl_ldarg *a)
{
	return a->kind == OFL_LDARG_LIBRARY &&
	       (!strcmp(a->value, "c") || !strcmp(a->value, "gcc") || !strcmp(a->value, "gcc_s"));
}

/* The line's words, ld.offlink's own options left out, -o's value replaced
 * by output when given, the wrapper objects right after -o (where the
 * linker wrapper puts them), the runtime libraries before the C runtime
 * (at the end without one). */
static int push_line(const struct ofl_ldcmd *c, const struct ofl_link_result *r, const char *output,
                     bool llvm_form, struct ofl_argv *v, struct ofl_error *err)
{
	int rc = 0;
	bool runtime = false;
	for (size_t i = 0; !rc && i < c->nargs; i++) {
		const struct ofl_ldarg *a = &c->args[i];
		if (ofl_ldarg_is_own(a))
			continue;
		if (!runtime && is_c_runtime(a)) {
			runtime = true;
			if ((rc = push_runtime(v, r, err)))
				break;
		}
		bool out = a->opt == OFL_LD_OUTPUT;
		if (out && output)
			rc = ofl_argv_push(v, "-o", err) || ofl_argv_push(v, output, err);
		else if (llvm_form)
			rc = ofl_llvm_push_arg(a, v, err);
		else
			for (unsigned w = 0; !rc && w < a->nwords; w++)
				rc = ofl_argv_push(v, a->word[w], err);
		if (!rc && out && a->value == c->output)
			rc = push_objects(v, r, err);
	}
	if (!rc && !runtime)
		rc = push_runtime(v, r, err);
	return rc ? err->code : 0;
}

int ofl_host_argv(const struct ofl_ldcmd *c, const char *linker, const struct ofl_link_result *r,
                  const char *output, bool llvm_form, struct ofl_argv *v, struct ofl_error *err)
{
	int rc = ofl_argv_push(v, linker, err);
	/* without -o, first; with it, after the last -o */
	if (!rc && !c->output)
		rc = push_objects(v, r, err);
	if (!rc && output && !c->output)
		rc = ofl_argv_push(v, "-o", err) || ofl_argv_push(v, output, err);
	rc = rc ? rc : push_line(c, r, output, llvm_form, v, err);
	/* NULL-terminated, for exec */
	if (!rc && OFL_GROW(v->v, v->cap, v->n))
		rc = OFL_NOMEM(err);
	if (!rc)
		v->v[v->n] = NULL;
	return rc ? err->code : 0;
}

/* ---- outputs of the host link that name its inputs ---------------------- */

/* The end of the logical line at p (backslash-newline continues it). */
static const char *line_end(const char *p, const char *end)
{
	for (; p < end && *p != '\n'; p++)
		if (*p == '\\' && p + 1 < end)
			p++;
	return p;
}

/* A word of a make rule: up to unescaped white space or a continuation. */
static const char *word_end(const char *p, const char *end)
{
	for (; p < end && *p != ' ' && *p != '\t' && *p != '\n'; p++)
		if (*p == '\\' && p + 1 < end) {
			if (p[1] == '\n')
				break;
			p++;
		}
	return p;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\\' || ch == '\n';
}

/* A rule rewritten without the words naming a temporary, in the form both
 * GNU ld and lld write (one prerequisite per line); a rule whose target is
 * a temporary (the phony rule for a prerequisite) goes entirely. */
static int scrub_rule(const char *p, const char *end, const char *tmp, struct ofl_buf *out)
{
	size_t tl = strlen(tmp);
	bool targets = true;
	int rc = 0;
	for (const char *w = p; !rc && w < end;) {
		while (w < end && is_blank(*w) && !(w[0] == '\\' && w + 1 < end && w[1] != '\n'))
			w++;
		const char *e = word_end(w, end);
		if (e == w)
			break;
		bool temp = (size_t)(e - w) > tl && !memcmp(w, tmp, tl) && w[tl] == '/';
		if (temp && targets)
			return 0;
		if (!temp)
			rc = targets ? ofl_buf_append(out, w, (size_t)(e - w))
			             : ofl_buf_printf(out, " \\\n  %.*s", (int)(e - w), w);
		targets = targets && e[-1] != ':';
		w = e;
	}
	return rc ? rc : ofl_buf_append(out, "\n", 1);
}

static int scrub_depfile(const char *text, size_t n, const char *tmp, struct ofl_buf *out)
{
	const char *p = text, *end = text + n;
	int rc = 0;
	while (!rc && p < end) {
		const char *e = line_end(p, end);
		size_t len = (size_t)(e - p);
		if (memmem(p, len, tmp, strlen(tmp)))
			rc = scrub_rule(p, e, tmp, out);
		else
			rc = ofl_buf_append(out, p, len) || ofl_buf_append(out, "\n", e < end);
		p = e + (e < end);
	}
	return rc;
}

/* A report: every "<tmpdir>/" goes, leaving the temporaries' own names. */
static int scrub_report(const char *text, size_t n, const char *tmp, struct ofl_buf *out)
{
	size_t tl = strlen(tmp);
	const char *p = text, *end = text + n;
	int rc = 0;
	for (const char *hit; !rc && (hit = memmem(p, (size_t)(end - p), tmp, tl));) {
		bool dir = hit + tl < end && hit[tl] == '/';
		rc = ofl_buf_append(out, p, (size_t)(hit - p));
		p = hit + (dir ? tl + 1 : tl);
		if (!dir && !rc)
			rc = ofl_buf_append(out, tmp, tl);
	}
	return rc || ofl_buf_append(out, p, (size_t)(end - p));
}

static int scrub(const char *path, const char *tmp, bool depfile, struct ofl_error *err)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_buf out = OFL_BUF_INIT;
	/* not written (the linker failed, or does not know the option) */
	if (ofl_file_open_regular(&f, path, err)) {
		ofl_error_clear(err);
		return 0;
	}
	const char *text = (const char *)f.data;
	int rc = 0;
	if (f.size && memmem(text, f.size, tmp, strlen(tmp))) {
		rc = depfile ? scrub_depfile(text, f.size, tmp, &out)
		             : scrub_report(text, f.size, tmp, &out);
		rc = rc ? OFL_NOMEM(err) : ofl_write_file(path, out.data, out.len, err);
	}
	ofl_buf_release(&out);
	ofl_file_close(&f);
	return rc;
}

int ofl_link_scrub_outputs(struct ofl_link *l, struct ofl_error *err)
{
	const struct ofl_ldcmd *c = l->o.host_cmd;
	int rc = 0;
	for (size_t i = 0; c && l->tmpdir && !rc && i < c->nargs; i++) {
		const struct ofl_ldarg *a = &c->args[i];
		if (a->opt == OFL_LD_DEPFILE || a->opt == OFL_LD_REPORT)
			rc = scrub(a->value, l->tmpdir, a->opt == OFL_LD_DEPFILE, err);
	}
	return rc;
}

/* ---- which host linker ------------------------------------------------- */

/* Whether path is one of the skipped ones (ld.offlink itself, the copies
 * that ran it); a path that does not exist counts as skipped. */
static bool skipped(const struct ofl_host_linker_query *q, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return true;
	for (size_t i = 0; i < q->nskip; i++)
		if (q->skip[i] && !strcmp(real, q->skip[i]))
			return true;
	return false;
}

/* dir/name when it is an executable that is not skipped.  Owned. */
static char *candidate(const struct ofl_host_linker_query *q, const char *dir, size_t dlen,
                       const char *name)
{
	char *p = NULL;
	if (asprintf(&p, "%.*s/%s", dlen ? (int)dlen : 1, dlen ? dir : ".", name) < 0)
		return NULL;
	if (!access(p, X_OK) && !skipped(q, p))
		return p;
	free(p);
	return NULL;
}

/* lld as clang's -fuse-ld=lld finds it: beside the clang that drives the
 * link, else in the LLVM release whose bitcode the link reads (an older
 * lld cannot read newer bitcode; Debian's PATH has lld 14). */
static char *release_lld(const struct ofl_host_linker_query *q)
{
	const char *base = q->driver ? strrchr(q->driver, '/') : NULL;
	char *p = NULL;
	if (base && !strncmp(base + 1, "clang", 5))
		p = candidate(q, q->driver, (size_t)(base - q->driver), "ld.lld");
	const char *const *roots = q->llvm_roots;
	size_t nroots = roots ? q->nllvm_roots : 1;
	static const char *const usr_lib[] = {"/usr/lib"};
	for (size_t i = 0; !p && q->llvm && i < nroots; i++) {
		char dir[PATH_MAX];
		const char *root = roots ? roots[i] : usr_lib[0];
		int n = root ? snprintf(dir, sizeof(dir), "%s/llvm-%u/bin", root, q->llvm) : -1;
		if (n > 0 && n < (int)sizeof(dir))
			p = candidate(q, dir, (size_t)n, "ld.lld");
	}
	return p;
}

char *ofl_find_host_linker(const struct ofl_host_linker_query *q, struct ofl_error *err)
{
	static const char *const flavours[][2] = {
	    {"bfd", "ld.bfd"}, {"gold", "ld.gold"}, {"lld", "ld.lld"}, {"mold", "mold"}};
	/* the driver's linker is ours under -fuse-ld=offlink: the personality
	 * does ld.offlink's part, so the host linker is the one ld.offlink
	 * would run (and ld.offlink does not run to find the device code
	 * linked already) */
	if (q->driver_linker && !skipped(q, q->driver_linker))
		return ofl_strdup(q->driver_linker);
	if (q->driver_linker && access(q->driver_linker, X_OK)) {
		ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		              "the host linker '%s' does not exist", q->driver_linker);
		return NULL;
	}
	const char *choice = q->choice && *q->choice ? q->choice : "ld";
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++)
		if (!strcmp(choice, flavours[i][0]))
			choice = flavours[i][1];
	if (strchr(choice, '/')) {
		if (!skipped(q, choice))
			return ofl_strdup(choice);
		ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		              "the host linker '%s' is ld.offlink itself (or missing)", choice);
		return NULL;
	}
	char *p = strcmp(choice, "ld.lld") ? NULL : release_lld(q);
	for (const char *d = q->search_path; !p && d && *d;) {
		size_t len = strcspn(d, ":");
		p = candidate(q, d, len, choice);
		d += len + (d[len] == ':');
	}
	if (!p)
		ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		              "cannot find the host linker '%s' on PATH (other than ld.offlink "
		              "itself and the copies of it that called it); the host linker is "
		              "bfd, gold, lld, mold, a program on PATH or a path",
		              choice);
	return p;
}

enum ofl_linker ofl_host_linker_kind(const struct ofl_host_linker_query *q)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	char *p = ofl_find_host_linker(q, &ignored), real[PATH_MAX];
	const char *name = p && realpath(p, real)    ? real
	                   : q->choice && *q->choice ? q->choice
	                                             : "ld";
	const char *slash = strrchr(name, '/');
	enum ofl_linker ld = ofl_linker_of(slash ? slash + 1 : name);
	free(p);
	return ld;
}

unsigned ofl_link_bitcode_release(const struct ofl_link *l)
{
	unsigned v = 0;
	for (size_t i = 0; i < l->nfiles; i++) {
		const struct ofl_file *f = &l->files[i].f;
		unsigned fv = f->data ? ofl_bitcode_producer(f->data, f->size) : 0;
		v = fv > v ? fv : v;
	}
	for (size_t i = 0; i < l->nunits; i++) {
		unsigned uv = ofl_bitcode_producer(l->units[i].data, l->units[i].size);
		v = uv > v ? uv : v;
	}
	return v;
}

int ofl_link_check_output(const struct ofl_link *l, const char *output, struct ofl_error *err)
{
	for (size_t i = 0; i < l->nfiles; i++)
		if (ofl_same_file(output, l->files[i].in.path) == 1)
			return ofl_error_set(err, OFL_EINVAL, output, OFL_NO_OFFSET,
			                     "the output is also an input ('%s'): not written over",
			                     l->files[i].in.path);
	for (size_t i = 0; i < l->nunits; i++)
		if (l->units[i].thin && ofl_file_is(l->units[i].thin, output) == 1)
			return ofl_error_set(err, OFL_EINVAL, output, OFL_NO_OFFSET,
			                     "the output is also an input ('%s'): not written over",
			                     l->units[i].name);
	return 0;
}
