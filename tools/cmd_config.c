/* offlink --config-file, enable, disable, status: clang config files that
 * put links through offlink (docs/integration.md, "clang config files").
 * A config file holds options clang takes before its command line; clang
 * 16 and later read default ones beside their program (the rules:
 * offlink/driver.h), so one file there puts every link of that clang
 * through offlink with no build touched.  enable writes
 * <triple>-clang.cfg and <triple>-clang++.cfg for clang's own target:
 * clang reads them for clang, clang++ and their versioned names, and
 * leaves cross compiles (another triple) alone, whose links ld.offlink's
 * host linker could not do.  Each file starts with a mark, so disable
 * removes only what enable wrote and enable overwrites nothing else. */
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

/* The value of the last -fuse-ld= of config file path (words split at
 * blanks, # lines left out), or NULL. */
static char *fuse_ld_of(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *value = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		char *save = NULL;
		for (char *w = strtok_r(line, " \t\r\n", &save); w && *w != '#';
		     w = strtok_r(NULL, " \t\r\n", &save))
			if (!strncmp(w, "-fuse-ld=", 9)) {
				free(value);
				value = strdup(w + 9);
			}
	}
	free(line);
	if (f)
		fclose(f);
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

/* files[0..n) hold -fuse-ld=offlink last. */
static bool links_through_offlink(const struct ofl_argv *files)
{
	char *last = NULL;
	bool yes = last_fuse_ld(files, NULL, &last) && !strcmp(last, "offlink");
	free(last);
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

/* dir/<triple>-<mode>.cfg, the file enable writes for mode. */
static char *enable_path(const struct clang *c, const char *mode)
{
	char *p = NULL;
	return asprintf(&p, "%s/%s-%s.cfg", c->dir, c->triple, mode) < 0 ? NULL : p;
}

/* The default config files c reads in mode (LLVM 16 and later). */
static int reads(const struct clang *c, const char *mode, struct ofl_argv *files)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *dirs[] = {c->dir};
	if (c->llvm >= 16 && ofl_clang_default_configs(dirs, 1, mode, c->triple, files, &err))
		return error_lib(&err);
	return 0;
}

/* Whether path holds exactly text. */
static bool holds(const char *path, const char *text)
{
	char now[4096];
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(now, 1, sizeof(now) - 1, f) : 0;
	if (f)
		fclose(f);
	now[n] = '\0';
	return !strcmp(now, text);
}

/* What enable does to mode's file: write it, leave it (it holds text), or
 * refuse (said: clang reads a file that is not ours, and would read it no
 * more, or reads it alone). */
enum step { WRITE, SAME, REFUSED };

static enum step plan(const struct clang *c, const char *mode, const char *path, const char *text,
                      const char *bin, const char *prefix)
{
	struct ofl_argv files = OFL_ARGV_INIT;
	enum step s = REFUSED;
	int rc = reads(c, mode, &files); /* an error: said */
	if (!rc && !files.n)
		s = WRITE;
	else if (!rc && !strcmp(files.v[0], path) && first_line_is(path, mark))
		s = holds(path, text) ? SAME : WRITE;
	else if (!rc && !strcmp(files.v[0], path))
		error("%s is not offlink's, and %s reads it alone: add these lines to it", path,
		      mode);
	else if (!rc)
		error("%s reads %s%s%s: with offlink's %s it would read that one alone; add these "
		      "lines to %s instead",
		      mode, files.v[0], files.n > 1 ? " and " : "", files.n > 1 ? files.v[1] : "",
		      path, files.v[0]);
	if (s == REFUSED && files.n) {
		fputs("    ", stderr);
		print_clang_flags(stderr, bin, prefix, "\n    ");
	}
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

/* The text enable writes: the mark, then offlink --ldflags's flags, one a
 * line. */
static char *enable_text(const char *bin, const char *prefix)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fprintf(f,
	        "%s clang links through offlink (offlink status; offlink disable removes "
	        "this file)\n",
	        mark);
	print_clang_flags(f, bin, prefix, "\n");
	return fclose(f) ? NULL : text;
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

static int enable_one(const struct clang *c, const char *bin, const char *prefix)
{
	if (c->llvm < 16)
		return error(
		    "%s is clang %u, which reads no default config file (clang 16 and later "
		    "do): give it --config $(offlink --config-file), or $(offlink --ldflags) "
		    "on link lines",
		    c->exe, c->llvm);
	char *text = enable_text(bin, prefix), *path[2] = {NULL, NULL};
	enum step step[2] = {REFUSED, REFUSED};
	int rc = text ? 0 : error("out of memory");
	for (size_t m = 0; !rc && m < 2; m++) {
		rc = (path[m] = enable_path(c, modes[m])) ? 0 : error("out of memory");
		step[m] = rc ? REFUSED : plan(c, modes[m], path[m], text, bin, prefix);
	}
	rc = rc || step[0] == REFUSED || step[1] == REFUSED;
	if (!rc && step[0] == SAME && step[1] == SAME)
		printf("%s: already enabled (%s, %s)\n", c->exe, path[0], path[1]);
	else if (!rc)
		rc = writable(c, "enable");
	for (size_t m = 0; !rc && m < 2; m++)
		if (step[m] == WRITE &&
		    !(rc = write_config(c, path[m], text, access(path[m], F_OK) == 0)))
			printf("%s: wrote %s\n", c->exe, path[m]);
	free(text);
	free(path[0]);
	free(path[1]);
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

static int disable_one(const struct clang *c)
{
	struct ofl_argv files = OFL_ARGV_INIT;
	int rc = enabled_files(c, &files);
	if (!rc && !files.n)
		printf("%s: not enabled (no file of offlink enable in %s)\n", c->exe, c->dir);
	else if (!rc)
		rc = writable(c, "disable");
	for (size_t i = 0; !rc && i < files.n; i++) {
		if (unlink(files.v[i]))
			rc = error("cannot remove %s: %s", files.v[i], strerror(errno));
		else
			printf("%s: removed %s\n", c->exe, files.v[i]);
	}
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

static int status_one(const struct clang *c, bool no_default)
{
	printf("%s: clang %u, target %s\n", c->exe, c->llvm, c->triple);
	if (c->llvm < 16) {
		printf("  reads no default config file (clang 16 and later do)\n");
		return 0;
	}
	int rc = 0;
	for (size_t m = 0; !rc && m < 2; m++) {
		struct ofl_argv files = OFL_ARGV_INIT;
		rc = reads(c, modes[m], &files);
		printf("  %-8s ", modes[m]);
		if (files.n)
			print_files(stdout, &files, "default config");
		else
			printf("no default config file");
		printf(": %s\n", links_through_offlink(&files) ? "links through offlink"
		                                               : "links through offlink only where "
		                                                 "its command line says so");
		ofl_argv_release(&files);
	}
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
	        "enable writes <triple>-clang.cfg and <triple>-clang++.cfg there (clang's own\n"
	        "target), holding offlink --ldflags's flags, so that every link of that clang\n"
	        "(clang, clang++, clang-N...) goes through offlink; disable removes them (only\n"
	        "files enable wrote); status says which config files each clang reads and\n"
	        "whether its links go through offlink.  CLANG: a program on PATH or a path;\n"
	        "default: every clang 19 to 23 found (clang and clang-N on PATH,\n"
	        "/usr/lib/llvm-N/bin/clang).  enable never overwrites a file it did not write:\n"
	        "it says what to add to it instead.  For one build, without root:\n"
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

/* offlink's folders, for enable */
struct home {
	char bin[PATH_MAX], prefix[PATH_MAX];
};

static int do_enable(const struct clang *c, void *arg)
{
	const struct home *h = arg;
	return enable_one(c, h->bin, h->prefix);
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
	struct home h;
	return offlink_home(h.bin, h.prefix) || each_clang(argc, argv, do_enable, &h);
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
