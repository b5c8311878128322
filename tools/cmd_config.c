/* offlink --config-file, enable, disable, status: clang config files that
 * put links through offlink (docs/integration.md, "clang config files").
 * A config file holds options clang takes before its command line; clang
 * 16 and later read default ones beside their program (the rules:
 * offlink/driver.h), so one file there puts every link of that clang
 * through offlink with no build touched.  enable writes
 * <triple>-clang.cfg and <triple>-clang++.cfg for clang's own target and
 * the other spellings a native build gives --target= (spellings()):
 * clang reads them for clang, clang++ and their versioned names, and
 * leaves cross compiles (another triple) alone, whose links ld.offlink's
 * host linker could not do.  Each file starts with a mark, so disable
 * removes only what enable wrote (lines a user added stay) and enable
 * overwrites nothing else; where clang reads a file of the user's, enable
 * says what to add to it, and takes it as done once it has that. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "offlink/driver.h"
#include "offlink/proc.h"
#include "opts.h"

extern char **environ;

/* The first line of every file enable writes: how disable knows one. */
static const char mark[] = "# offlink enable:";
static const char *const modes[] = {"clang", "clang++"};

/* A clang program and what clang --version says of it. */
struct clang {
	char *exe;    /* its real path */
	char *dir;    /* its folder, where it looks for default config files */
	char *triple; /* its target */
	unsigned llvm;
};

static void clang_release(struct clang *c)
{
	free(c->exe);
	free(c->dir);
	free(c->triple);
}

/* Our environment with CLANG_NO_DEFAULT_CONFIG=1: what clang prints must
 * not come from a config file's --target (the one it looks configs up by
 * is its command line's). */
static char **env_without_configs(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; env && i < n; i++)
		if (strncmp(environ[i], "CLANG_NO_DEFAULT_CONFIG=", 24))
			env[k++] = environ[i];
	if (env)
		env[k] = "CLANG_NO_DEFAULT_CONFIG=1";
	return env;
}

/* Runs `exe ARGS --version`: its release and target triple into c.
 * Non-zero on an error, printed unless quiet. */
static int ask_clang(const char *exe, const struct ofl_argv *args, struct clang *c, bool quiet)
{
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	char **env = env_without_configs();
	if (!env)
		return quiet ? 1 : error("out of memory");
	p.search_path = false;
	p.capture_stdout = true;
	p.envp = env;
	int rc = ofl_proc_push(&p, exe, &err);
	for (size_t i = 0; !rc && args && i < args->n; i++)
		rc = ofl_proc_push(&p, args->v[i], &err);
	rc = rc || ofl_proc_push(&p, "--version", &err) || ofl_proc_run(&p, &err);
	char *out = rc ? NULL : strndup((const char *)p.out.data, p.out.len);
	const char *v = out ? strstr(out, "clang version ") : NULL;
	const char *t = out ? strstr(out, "\nTarget: ") : NULL;
	if (v && t) {
		c->llvm = (unsigned)strtoul(v + 14, NULL, 10);
		c->triple = strndup(t + 9, strcspn(t + 9, "\n"));
	}
	free(out);
	free(env);
	ofl_proc_release(&p);
	if (rc || !c->triple)
		return quiet ? 1
		       : rc  ? error_lib(&err)
		             : error(
		                   "%s: not a clang ('--version' names no clang release and target)",
		                   exe);
	return 0;
}

/* Whether path's first line starts with prefix. */
static bool first_line_is(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "re");
	bool yes = f && fgets(line, sizeof(line), f) && !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return yes;
}

/* Pushes the words of config file path to w (split at blanks, # lines
 * left out; none when it cannot be read).  Non-zero when out of memory. */
static int words_of(const char *path, struct ofl_argv *w)
{
	struct ofl_error err = OFL_ERROR_INIT;
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	while (!rc && f && getline(&line, &cap, f) > 0) {
		char *save = NULL;
		for (char *t = strtok_r(line, " \t\r\n", &save); !rc && t && *t != '#';
		     t = strtok_r(NULL, " \t\r\n", &save))
			rc = ofl_argv_push(w, t, &err);
	}
	free(line);
	if (f)
		fclose(f);
	return rc;
}

/* The value of the last -fuse-ld= of config file path, or NULL. */
static char *fuse_ld_of(const char *path)
{
	struct ofl_argv w = OFL_ARGV_INIT;
	char *value = NULL;
	for (size_t i = words_of(path, &w) ? 0 : w.n; !value && i-- > 0;)
		if (!strncmp(w.v[i], "-fuse-ld=", 9))
			value = strdup(w.v[i] + 9);
	ofl_argv_release(&w);
	return value;
}

/* The config file among files[0..n) and then extra (NULL: none) whose
 * -fuse-ld= clang takes (the last), its value in *value; NULL when none
 * has one. */
static const char *last_fuse_ld(const struct ofl_argv *files, const char *extra, char **value)
{
	const char *from = NULL;
	for (size_t i = 0; i <= files->n; i++) {
		const char *f = i < files->n ? files->v[i] : extra;
		char *v = f ? fuse_ld_of(f) : NULL;
		if (v) {
			free(*value);
			*value = v;
			from = f;
		}
	}
	return from;
}

/* files[0..n) hold -fuse-ld=offlink last; *from (unless NULL): the file
 * that does. */
static bool links_through_offlink(const struct ofl_argv *files, const char **from)
{
	char *last = NULL;
	const char *f = last_fuse_ld(files, NULL, &last);
	bool yes = f && !strcmp(last, "offlink");
	free(last);
	if (from)
		*from = f;
	return yes;
}

/* The clang `name` names (a path, else a program on PATH), asked.  1 when
 * there is none (quiet: no message), -1 on an error. */
static int find_clang(const char *name, bool quiet, struct clang *c)
{
	*c = (struct clang){NULL, NULL, NULL, 0};
	char *found =
	    strchr(name, '/') ? strdup(name) : ofl_proc_find(name, NULL, 0, getenv("PATH"));
	char real[PATH_MAX];
	bool there = found && realpath(found, real);
	free(found);
	if (!there)
		return quiet ? 1 : -error("%s: no such program", name);
	c->exe = strdup(real);
	c->dir = strndup(real, (size_t)(strrchr(real, '/') - real));
	if (!c->exe || !c->dir)
		return -error("out of memory");
	return ask_clang(real, NULL, c, false) ? -1 : 0;
}

/* Adds the clang name names to v[0..*n), once per program; 0 or 1 (an
 * error, printed).  Found by looking (all), a name with no program or a
 * clang not 19 to 23 is left out. */
static int add_clang(struct clang **v, size_t *n, const char *name, bool all)
{
	struct clang c;
	int rc = find_clang(name, all, &c);
	if (!rc && all && (c.llvm < 19 || c.llvm > 23))
		rc = 1;
	for (size_t i = 0; !rc && i < *n; i++)
		if (!strcmp((*v)[i].exe, c.exe))
			rc = 1;
	struct clang *grown = rc ? NULL : realloc(*v, (*n + 1) * sizeof(**v));
	if (grown) {
		*v = grown;
		(*v)[(*n)++] = c;
		return 0;
	}
	clang_release(&c);
	if (rc < 0)
		return 1;
	return rc ? 0 : error("out of memory");
}

/* The clangs named in argv[1..argc), else every clang 19 to 23 there is:
 * clang and clang-N on PATH, Debian's /usr/lib/llvm-N/bin/clang.  Non-zero
 * (printed) on an error. */
static int clangs(int argc, char **argv, struct clang **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-')
			return error("%s: unknown option '%s'; see 'offlink %s --help'", argv[0],
			             argv[i], argv[0]);
	int rc = 0;
	for (int i = 1; !rc && i < argc; i++)
		rc = add_clang(v, n, argv[i], false);
	if (argc > 1)
		return rc;
	rc = add_clang(v, n, "clang", true);
	for (unsigned r = 19; !rc && r <= 23; r++) {
		char name[64];
		snprintf(name, sizeof(name), "clang-%u", r);
		rc = add_clang(v, n, name, true);
		snprintf(name, sizeof(name), "/usr/lib/llvm-%u/bin/clang", r);
		rc = rc || add_clang(v, n, name, true);
	}
	if (!rc && !*n)
		return error("no clang 19 to 23 found (clang, clang-19 ... clang-23 on PATH, "
		             "/usr/lib/llvm-N/bin/clang); name one: offlink %s PATH",
		             argv[0]);
	return rc;
}

static void clangs_release(struct clang *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		clang_release(&v[i]);
	free(v);
}

/* Whether triple's vendor (its second part) is "unknown", *arch and *rest
 * (from the '-' after the vendor) set; false for a triple of fewer than
 * three parts, which names no vendor. */
static bool vendor_unknown(const char *triple, size_t *arch, const char **rest)
{
	const char *v = strchr(triple, '-');
	*rest = v ? strchr(v + 1, '-') : NULL;
	*arch = v ? (size_t)(v - triple) : 0;
	return *rest && *rest - v == 8 && !strncmp(v, "-unknown", 8);
}

/* The spellings of clang's target that enable covers, its own first.  A
 * native build may name the target (CMake's CMAKE_<LANG>_COMPILER_TARGET
 * puts --target= on every line), and clang looks config files up by the
 * triple normalized (x86_64-linux-gnu is x86_64-unknown-linux-gnu), so
 * the spellings differ in their vendor: clang's own, "unknown", and "pc"
 * for x86.  Non-zero when out of memory. */
static int spellings(const struct clang *c, struct ofl_argv *out)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *t = c->triple, *rest;
	size_t arch;
	vendor_unknown(t, &arch, &rest);
	bool x86 =
	    !strncmp(t, "x86_64-", 7) || (arch == 4 && t[0] == 'i' && !strncmp(t + 2, "86-", 3));
	const char *vendors[] = {"unknown", x86 ? "pc" : NULL};
	int rc = ofl_argv_push(out, t, &err);
	for (size_t i = 0; !rc && rest && i < 2 && vendors[i]; i++) {
		char *s = NULL;
		rc = asprintf(&s, "%.*s-%s%s", (int)arch, t, vendors[i], rest) < 0;
		bool known = false;
		for (size_t k = 0; !rc && k < out->n; k++)
			known |= !strcmp(out->v[k], s);
		rc = rc || (!known && ofl_argv_push(out, s, &err));
		free(s);
	}
	return rc;
}

/* "--target=<triple>", and the spelling without a vendor that clang reads
 * as an "unknown" one. */
static void print_target(FILE *f, const char *triple)
{
	size_t arch;
	const char *rest;
	fprintf(f, "--target=%s", triple);
	if (vendor_unknown(triple, &arch, &rest))
		fprintf(f, " (or %.*s%s)", (int)arch, triple, rest);
}

/* dir/<triple>-<mode>.cfg, the file enable writes for mode and triple. */
static char *enable_path(const struct clang *c, const char *triple, const char *mode)
{
	char *p = NULL;
	return asprintf(&p, "%s/%s-%s.cfg", c->dir, triple, mode) < 0 ? NULL : p;
}

/* The default config files c reads in mode for triple (LLVM 16 and
 * later). */
static int reads(const struct clang *c, const char *mode, const char *triple,
                 struct ofl_argv *files)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *dirs[] = {c->dir};
	if (c->llvm >= 16 && ofl_clang_default_configs(dirs, 1, mode, triple, files, &err))
		return error_lib(&err);
	return 0;
}

/* Whether path holds exactly text. */
static bool holds(const char *path, const char *text)
{
	char *now = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	ssize_t n = f ? getdelim(&now, &cap, '\0', f) : -1;
	bool yes = n >= 0 && (size_t)n == strlen(text) && !memcmp(now, text, (size_t)n);
	if (f)
		fclose(f);
	free(now);
	return yes;
}

/* offlink's folders and the clang flags of offlink --ldflags, one a
 * line, for enable. */
struct home {
	char bin[PATH_MAX], prefix[PATH_MAX];
	char *flags;
};

/* Whether clang, reading files, links through this offlink: -fuse-ld=
 * offlink last (in *from), and every one of h's flags among their words. */
static bool links_through_us(const struct ofl_argv *files, const struct home *h, const char **from)
{
	struct ofl_argv w = OFL_ARGV_INIT;
	bool yes = links_through_offlink(files, from);
	for (size_t i = 0; yes && i < files->n; i++)
		yes = !words_of(files->v[i], &w);
	char *flags = yes ? strdup(h->flags) : NULL, *save = NULL;
	yes = flags;
	for (char *f = flags ? strtok_r(flags, "\n", &save) : NULL; yes && f;
	     f = strtok_r(NULL, "\n", &save)) {
		bool found = false;
		for (size_t i = 0; i < w.n && !found; i++)
			found = !strcmp(w.v[i], f);
		yes = found;
	}
	free(flags);
	ofl_argv_release(&w);
	return yes;
}

/* Whether line is one enable writes (of some install): -fuse-ld=offlink,
 * -B<p>/libexec/offlink/compat, or -B<p>/<name> where lines has that
 * compat line too (offlink's own folder). */
static bool enables_line(const char *line, const struct ofl_argv *lines)
{
	static const char compat[] = "/libexec/offlink/compat";
	size_t n = strlen(line), c = sizeof(compat) - 1;
	if (!strcmp(line, "-fuse-ld=offlink"))
		return true;
	if (strncmp(line, "-B", 2))
		return false;
	if (n > 2 + c && !strcmp(line + n - c, compat))
		return true;
	const char *name = strrchr(line, '/');
	size_t p = name ? (size_t)(name - line) : 0;
	for (size_t i = 0; name && i < lines->n; i++)
		if (strlen(lines->v[i]) == p + c && !strncmp(lines->v[i], line, p) &&
		    !strcmp(lines->v[i] + p, compat))
			return true;
	return false;
}

/* The lines of offlink's file path that enable did not write (the user's:
 * all but the mark and enables_line's), in order, into *mine ("" when
 * none).  Non-zero when out of memory. */
static int users_lines(const char *path, char **mine)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_argv lines = OFL_ARGV_INIT;
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, len = 0;
	int rc = 0;
	for (ssize_t n; !rc && f && (n = getline(&line, &cap, f)) > 0;) {
		line[n - (line[n - 1] == '\n')] = '\0';
		rc = ofl_argv_push(&lines, line, &err);
	}
	free(line);
	if (f)
		fclose(f);
	FILE *out = rc ? NULL : open_memstream(mine, &len);
	for (size_t i = 1; out && i < lines.n; i++)
		if (!enables_line(lines.v[i], &lines))
			fprintf(out, "%s\n", lines.v[i]);
	rc = !out || fclose(out);
	ofl_argv_release(&lines);
	return rc;
}

/* Whether text has a line that is not blank. */
static bool has_lines(const char *text)
{
	return text[strspn(text, " \t\r\n")] != '\0';
}

/* What enable does to one file: write it, leave it as it is (it holds
 * what enable would write; or clang reads files of the user's that link
 * through this offlink already, by enable's advice), or refuse (said:
 * clang reads a file that is not ours, and would read it no more, or
 * reads it alone). */
enum step { WRITE, SAME, YOURS, REFUSED };

/* One file enable writes, <triple>-<mode>.cfg for a spelling of clang's
 * target: what it would hold (the user's lines of offlink's file kept),
 * and the user's file that links through offlink instead (YOURS). */
struct entry {
	const char *mode, *triple;
	char *path, *text;
	bool kept;
	char *yours;
	enum step step;
};

/* The mark, h's flags, then the lines the user added to offlink's file
 * (ours) into e->text; WRITE, or SAME when the file holds it already. */
static enum step compose(struct entry *e, const struct home *h, bool ours)
{
	char *mine = NULL;
	int rc = ours && users_lines(e->path, &mine);
	e->kept = mine && has_lines(mine);
	rc = rc || asprintf(&e->text,
	                    "%s clang links through offlink (offlink status; offlink disable "
	                    "removes this file)\n%s%s",
	                    mark, h->flags, mine ? mine : "") < 0;
	free(mine);
	if (rc) {
		error("out of memory");
		return REFUSED;
	}
	return ours && holds(e->path, e->text) ? SAME : WRITE;
}

/* Says why enable writes nothing for e, and the lines to add to the file
 * clang reads instead; once per file (told: those said). */
static void refuse(const struct clang *c, const struct entry *e, const struct ofl_argv *files,
                   const struct home *h, struct ofl_argv *told)
{
	struct ofl_error err = OFL_ERROR_INIT;
	for (size_t i = 0; i < told->n; i++)
		if (!strcmp(told->v[i], files->v[0]))
			return;
	if (ofl_argv_push(told, files->v[0], &err))
		error_lib(&err);
	char *who = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&who, &len);
	if (f && strcmp(e->triple, c->triple)) {
		fprintf(f, "%s ", e->mode);
		print_target(f, e->triple);
	} else if (f)
		fputs(e->mode, f);
	if (!f || fclose(f))
		error("out of memory");
	else if (!strcmp(files->v[0], e->path))
		error("%s is not offlink's, and %s reads it alone: add these lines to it, then run "
		      "offlink enable again",
		      e->path, who);
	else
		error("%s reads %s%s%s: with offlink's %s it would read that one alone; add these "
		      "lines to %s instead, then run offlink enable again",
		      who, files->v[0], files->n > 1 ? " and " : "",
		      files->n > 1 ? files->v[1] : "", e->path, files->v[0]);
	fputs("    ", stderr);
	print_clang_flags(stderr, h->bin, h->prefix, "\n    ");
	free(who);
}

static enum step plan(const struct clang *c, struct entry *e, const struct home *h,
                      struct ofl_argv *told)
{
	struct ofl_argv files = OFL_ARGV_INIT;
	enum step s = REFUSED;
	const char *from = NULL;
	int rc = reads(c, e->mode, e->triple, &files); /* an error: said */
	if (!rc && !files.n)
		s = compose(e, h, false);
	else if (!rc && !strcmp(files.v[0], e->path) && first_line_is(e->path, mark))
		s = compose(e, h, true);
	else if (!rc && links_through_us(&files, h, &from)) {
		if ((e->yours = strdup(from)))
			s = YOURS;
		else
			error("out of memory");
	} else if (!rc)
		refuse(c, e, &files, h, told);
	ofl_argv_release(&files);
	return s;
}

/* path made to hold text, all at once: written beside it and renamed in
 * (replace: over offlink's own file) or linked in (never over a file that
 * appeared since). */
static int write_config(const struct clang *c, const char *path, const char *text, bool replace)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/.offlink-enable-XXXXXX", c->dir);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return error("cannot write in %s: %s", c->dir, strerror(errno));
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len && !fchmod(fd, 0644);
	ok = !close(fd) && ok;
	ok = ok && (replace ? !rename(tmp, path) : !link(tmp, path));
	int e = errno;
	unlink(tmp);
	return ok ? 0 : error("cannot write %s: %s", path, strerror(e));
}

/* Needs write access to c's folder: refused with what to do instead. */
static int writable(const struct clang *c, const char *cmd)
{
	if (!access(c->dir, W_OK))
		return 0;
	return error("cannot write in %s (%s): offlink %s %s needs its owner (root: sudo); for one "
	             "build instead, CC=\"%s --config=$(offlink --config-file)\"",
	             c->dir, strerror(errno), cmd, c->exe, c->exe);
}

/* Says what enable left as it is: the files of the user's that link
 * through offlink, each once, or that all was enabled already. */
static void print_left(const struct clang *c, const struct entry *e, size_t n, bool wrote)
{
	for (size_t i = 0; i < n; i++) {
		bool said = e[i].step != YOURS;
		for (size_t k = 0; !said && k < i; k++)
			said = e[k].step == YOURS && !strcmp(e[k].yours, e[i].yours);
		if (!said)
			printf("%s: %s (yours) links through offlink: left as it is\n", c->exe,
			       e[i].yours);
	}
	if (!wrote)
		printf("%s: already enabled\n", c->exe);
}

static void entries_release(struct entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].path);
		free(e[i].text);
		free(e[i].yours);
	}
	free(e);
}

static int enable_one(const struct clang *c, const struct home *h)
{
	if (c->llvm < 16)
		return error(
		    "%s is clang %u, which reads no default config file (clang 16 and later "
		    "do): give it --config $(offlink --config-file), or $(offlink --ldflags) "
		    "on link lines",
		    c->exe, c->llvm);
	struct ofl_argv triples = OFL_ARGV_INIT, told = OFL_ARGV_INIT;
	int rc = spellings(c, &triples) ? error("out of memory") : 0;
	size_t n = rc ? 0 : 2 * triples.n;
	struct entry *e = n ? calloc(n, sizeof(*e)) : NULL;
	rc = rc || !e ? error("out of memory") : 0;
	bool refused = false, changes = false;
	for (size_t i = 0; !rc && i < n; i++) {
		e[i].mode = modes[i % 2];
		e[i].triple = triples.v[i / 2];
		rc = (e[i].path = enable_path(c, e[i].triple, e[i].mode)) ? 0
		                                                          : error("out of memory");
		e[i].step = rc ? REFUSED : plan(c, &e[i], h, &told);
		refused |= e[i].step == REFUSED;
		changes |= e[i].step == WRITE;
	}
	rc = rc || refused || (changes && writable(c, "enable"));
	for (size_t i = 0; !rc && i < n; i++)
		if (e[i].step == WRITE &&
		    !(rc = write_config(c, e[i].path, e[i].text, access(e[i].path, F_OK) == 0)))
			printf("%s: wrote %s%s\n", c->exe, e[i].path,
			       e[i].kept ? ", keeping the lines you added" : "");
	if (!rc)
		print_left(c, e, n, changes);
	entries_release(e, n);
	ofl_argv_release(&triples);
	ofl_argv_release(&told);
	return rc;
}

/* The files of c's folder that enable wrote. */
static int enabled_files(const struct clang *c, struct ofl_argv *files)
{
	struct ofl_error err = OFL_ERROR_INIT;
	DIR *d = opendir(c->dir);
	if (!d)
		return error("%s: %s", c->dir, strerror(errno));
	int rc = 0;
	for (struct dirent *e = readdir(d); !rc && e; e = readdir(d)) {
		size_t n = strlen(e->d_name);
		char *p = NULL;
		if (n < 5 || strcmp(e->d_name + n - 4, ".cfg"))
			continue;
		if (asprintf(&p, "%s/%s", c->dir, e->d_name) < 0)
			rc = error("out of memory");
		else if (first_line_is(p, mark) && ofl_argv_push(files, p, &err))
			rc = error_lib(&err);
		free(p);
	}
	closedir(d);
	return rc;
}

/* Removes offlink's file path, or only offlink's lines where the user
 * added some (the file then holds those alone, and is theirs). */
static int disable_file(const struct clang *c, const char *path)
{
	char *mine = NULL;
	int rc = users_lines(path, &mine) ? error("out of memory") : 0;
	if (!rc && has_lines(mine)) {
		if (!(rc = write_config(c, path, mine, true)))
			printf("%s: removed offlink's lines from %s; the lines you added stay (the "
			       "file is yours now)\n",
			       c->exe, path);
	} else if (!rc && unlink(path))
		rc = error("cannot remove %s: %s", path, strerror(errno));
	else if (!rc)
		printf("%s: removed %s\n", c->exe, path);
	free(mine);
	return rc;
}

static int disable_one(const struct clang *c)
{
	struct ofl_argv files = OFL_ARGV_INIT;
	int rc = enabled_files(c, &files);
	if (!rc && !files.n)
		printf("%s: not enabled (no file of offlink enable in %s)\n", c->exe, c->dir);
	else if (!rc)
		rc = writable(c, "disable");
	for (size_t i = 0; !rc && i < files.n; i++)
		rc = disable_file(c, files.v[i]);
	ofl_argv_release(&files);
	return rc;
}

/* "<file> (offlink's)" for each of files, comma-separated. */
static void print_files(FILE *f, const struct ofl_argv *files, const char *what)
{
	for (size_t i = 0; i < files->n; i++)
		fprintf(f, "%s%s (%s%s)", i ? ", " : "", files->v[i], what,
		        first_line_is(files->v[i], "# offlink ") ? ", offlink's" : "");
}

/* One line of status: what c reads in mode for triple, and whether it
 * links through offlink. */
static int status_line(const struct clang *c, const char *mode, const char *triple)
{
	struct ofl_argv files = OFL_ARGV_INIT;
	int rc = reads(c, mode, triple, &files);
	printf("  %-8s ", mode);
	if (strcmp(triple, c->triple)) {
		print_target(stdout, triple);
		printf(": ");
	}
	if (files.n)
		print_files(stdout, &files, "default config");
	else
		printf("no default config file");
	printf(": %s\n", links_through_offlink(&files, NULL) ? "links through offlink"
	                                                     : "links through offlink only where "
	                                                       "its command line says so");
	ofl_argv_release(&files);
	return rc;
}

static int status_one(const struct clang *c, bool no_default)
{
	printf("%s: clang %u, target %s\n", c->exe, c->llvm, c->triple);
	if (c->llvm < 16) {
		printf("  reads no default config file (clang 16 and later do)\n");
		return 0;
	}
	struct ofl_argv triples = OFL_ARGV_INIT;
	int rc = spellings(c, &triples) ? error("out of memory") : 0;
	for (size_t i = 0; !rc && i < 2 * triples.n; i++)
		rc = status_line(c, modes[i % 2], triples.v[i / 2]);
	ofl_argv_release(&triples);
	if (no_default)
		printf(
		    "  CLANG_NO_DEFAULT_CONFIG is set here: clang reads no default config file\n");
	return rc;
}

static int usage(const char *cmd, FILE *f)
{
	fprintf(f,
	        "usage: offlink %s [CLANG...]\n\n"
	        "clang 16 and later read default config files beside their program; offlink\n"
	        "enable writes <triple>-clang.cfg and <triple>-clang++.cfg there, holding\n"
	        "offlink --ldflags's flags, for clang's own target and its other native\n"
	        "spellings (x86_64-unknown-linux-gnu, which --target=x86_64-linux-gnu reads\n"
	        "too), so that every link of that clang (clang, clang++, clang-N...) goes\n"
	        "through offlink; disable removes what enable wrote (lines you added to its\n"
	        "files stay); status says which config files each clang reads and whether\n"
	        "its links go through offlink.  CLANG: a program on PATH or a path; default:\n"
	        "every clang 19 to 23 found (clang and clang-N on PATH,\n"
	        "/usr/lib/llvm-N/bin/clang).  enable never overwrites a file it did not write:\n"
	        "it says what to add to it instead, and takes it as done once it has that.\n"
	        "For one build, without root:\n"
	        "  make CC=\"clang-22 --config=$(offlink --config-file)\"\n",
	        cmd);
	return f == stderr;
}

/* Runs fn on each clang argv names (else found); the first error's status,
 * every clang done. */
static int each_clang(int argc, char **argv, int (*fn)(const struct clang *, void *), void *arg)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return usage(argv[0], stdout);
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		print_version(NULL);
		return 0;
	}
	struct clang *v;
	size_t n;
	int rc = clangs(argc, argv, &v, &n), failed = 0;
	for (size_t i = 0; !rc && i < n; i++)
		failed |= fn(&v[i], arg);
	clangs_release(v, n);
	return rc || failed;
}

static int do_enable(const struct clang *c, void *arg)
{
	return enable_one(c, arg);
}

static int do_disable(const struct clang *c, void *arg)
{
	(void)arg;
	return disable_one(c);
}

/* CLANG_NO_DEFAULT_CONFIG set to anything but "" (clang's test). */
static bool no_default_configs(void)
{
	const char *e = getenv("CLANG_NO_DEFAULT_CONFIG");
	return e && *e;
}

static int do_status(const struct clang *c, void *arg)
{
	(void)arg;
	return status_one(c, no_default_configs());
}

int cmd_enable(int argc, char **argv)
{
	struct home h = {.flags = NULL};
	size_t len = 0;
	if (offlink_home(h.bin, h.prefix))
		return 1;
	FILE *f = open_memstream(&h.flags, &len);
	if (f)
		print_clang_flags(f, h.bin, h.prefix, "\n");
	int rc = !f || fclose(f) ? error("out of memory") : each_clang(argc, argv, do_enable, &h);
	free(h.flags);
	return rc;
}

int cmd_disable(int argc, char **argv)
{
	return each_clang(argc, argv, do_disable, NULL);
}

int cmd_status(int argc, char **argv)
{
	return each_clang(argc, argv, do_status, NULL);
}

int cmd_config_file(int argc, char **argv)
{
	char bin[PATH_MAX], prefix[PATH_MAX], path[PATH_MAX + 32];
	if (argc > 1)
		return error("--config-file: unknown argument '%s'", argv[1]);
	if (offlink_home(bin, prefix))
		return 1;
	snprintf(path, sizeof(path), "%s/share/offlink/offlink.cfg", prefix);
	if (access(path, R_OK))
		return error("%s: %s (an incomplete install of offlink)", path, strerror(errno));
	puts(path);
	return 0;
}

/* Where the -fuse-ld= that clang takes (the last) is: *value and the
 * place, among files (default configs), the --config file, then the
 * command line. */
static const char *fuse_ld_source(const struct ofl_driver *d, const struct ofl_argv *files,
                                  const char *config, char **value)
{
	const char *from = last_fuse_ld(files, config, value);
	for (size_t i = 1; i < d->argv.n; i++)
		if (!strncmp(d->argv.v[i], "-fuse-ld=", 9)) {
			free(*value);
			*value = strdup(d->argv.v[i] + 9);
			from = "its command line";
		}
	return from;
}

void explain_flag_origin(FILE *f)
{
	struct ofl_driver d;
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_argv args = OFL_ARGV_INIT, files = OFL_ARGV_INIT;
	struct clang c = {NULL, NULL, NULL, 0};
	int rc = ofl_driver_read(getppid(), &d, &err);
	if (rc || d.kind != OFL_DRIVER_CLANG) {
		fprintf(f, "link flags: from the command line of %s (no clang config file)\n",
		        d.exe ? d.exe : "the driver");
		ofl_driver_release(&d);
		return;
	}
	rc = ofl_driver_target_args(&d, &args, &err) || ask_clang(d.exe, &args, &c, true) ||
	     ofl_driver_default_configs(&d, c.triple, no_default_configs(), &files, &err);
	const char *config = ofl_driver_config(&d);
	char *value = NULL;
	const char *from = fuse_ld_source(&d, &files, config, &value);
	fprintf(f, "link flags: clang %s read ", d.exe);
	if (rc)
		fprintf(f, "default config files unknown (%s --version failed)", d.exe);
	print_files(f, &files, "default config");
	if (config)
		fprintf(f, "%s%s (--config%s)", files.n || rc ? ", " : "", config,
		        first_line_is(config, "# offlink ") ? ", offlink's" : "");
	if (!rc && !files.n && !config)
		fprintf(f, "no config file");
	if (from)
		fprintf(f, "; -fuse-ld=%s from %s\n", value ? value : "", from);
	else
		fprintf(f, "; no -fuse-ld= (ld.offlink named otherwise)\n");
	free(value);
	clang_release(&c);
	ofl_argv_release(&args);
	ofl_argv_release(&files);
	ofl_driver_release(&d);
}
