/* ld.offlink (`offlink link`): a linker invoked exactly like the system
 * linker that also links and registers the device code of its inputs.
 * The pipeline is the library's (offlink/link.h); this front end parses
 * the command line, finds the host linker, installs the signal handlers,
 * prints what was asked for and runs the host link. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "diag.h"
#include "link_cli.h"
#include "offlink/proc.h"

extern char **environ;

/* The linker's default search dirs, where -l may also find archives. */
static const char *const default_libdirs[] = {"/usr/local/lib/x86_64-linux-gnu",
                                              "/lib/x86_64-linux-gnu",
                                              "/usr/lib/x86_64-linux-gnu",
                                              "/usr/local/lib",
                                              "/lib",
                                              "/usr/lib"};

static struct ofl_link *volatile active_link;

static void on_signal(int sig)
{
	struct ofl_link *l = active_link;
	if (l)
		ofl_link_cancel(l);
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool same_program(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* `name` on PATH, skipping ourselves: an `ld` link to ld.offlink in a -B
 * dir or on PATH must not call itself. */
static char *find_on_path(const char *name)
{
	const char *d = getenv("PATH");
	while (d && *d) {
		size_t len = strcspn(d, ":");
		char *p = NULL;
		if (asprintf(&p, "%.*s/%s", len ? (int)len : 1, len ? d : ".", name) < 0)
			return NULL;
		if (!access(p, X_OK) && !same_program(p, "/proc/self/exe"))
			return p;
		free(p);
		d += len + (d[len] == ':');
	}
	return NULL;
}

char *link_find_host_linker(const char *choice)
{
	static const char *const flavours[][2] = {
	    {"bfd", "ld.bfd"}, {"gold", "ld.gold"}, {"lld", "ld.lld"}, {"mold", "mold"}};
	if (!choice || !*choice)
		choice = getenv("OFFLINK_LINKER");
	if (!choice || !*choice)
		choice = "ld";
	for (size_t i = 0; i < sizeof(flavours) / sizeof(flavours[0]); i++)
		if (!strcmp(choice, flavours[i][0]))
			choice = flavours[i][1];
	if (strchr(choice, '/')) {
		if (!same_program(choice, "/proc/self/exe"))
			return strdup(choice);
		error("the host linker '%s' is ld.offlink itself", choice);
		return NULL;
	}
	char *p = find_on_path(choice);
	if (!p)
		error("cannot find the host linker '%s' on PATH (other than ld.offlink itself)",
		      choice);
	return p;
}

/* Runs argv with our standard streams; its exit status as a shell sees it. */
static int run_inherit(char *const *argv)
{
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (rc)
		return error("cannot run '%s': %s", argv[0], strerror(rc));
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void print_command(FILE *f, char *const *argv, size_t argc, bool llvm_form)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (!ofl_proc_format(argv, argc, llvm_form, &b))
		fprintf(f, "%s\n", (const char *)b.data);
	ofl_buf_release(&b);
}

static bool has_library(const struct ofl_ldcmd *c, const char *name)
{
	for (size_t i = 0; i < c->nargs; i++)
		if (c->args[i].kind == OFL_LDARG_LIBRARY && !strcmp(c->args[i].value, name))
			return true;
	return false;
}

/* The host linker's argv: our options dropped, the wrapper objects right
 * after -o (where the linker wrapper puts them; first without -o), the
 * runtime library's directory and the library itself at the end unless the
 * line names it already.  Every string is owned by the list. */
static void host_argv(const struct link_job *j, const struct ofl_link_result *r, struct strlist *v)
{
	bool placed = !r || !j->cmd.output;
	strlist_push(v, j->linker);
	for (size_t o = 0; r && !j->cmd.output && o < r->nobjects; o++)
		strlist_push(v, r->objects[o]);
	for (size_t i = 0; i < j->cmd.nargs; i++) {
		const struct ofl_ldarg *a = &j->cmd.args[i];
		if (a->opt == OFL_LD_OUTPUT && j->merged) {
			strlist_push(v, "-o");
			strlist_push(v, j->merged);
		}
		for (unsigned w = 0; w < a->nwords && !ofl_ldarg_is_own(a) &&
		                     !(a->opt == OFL_LD_OUTPUT && j->merged);
		     w++)
			strlist_push(v, a->word[w]);
		for (size_t o = 0; !placed && a->opt == OFL_LD_OUTPUT && o < r->nobjects; o++)
			strlist_push(v, r->objects[o]);
		placed = placed || a->opt == OFL_LD_OUTPUT;
	}
	char buf[PATH_MAX + 3];
	bool add_libs = false; /* and never to a -r link: the final link adds them */
	for (size_t i = 0; r && !j->cmd.relocatable && i < r->nlibraries; i++)
		add_libs = add_libs || !has_library(&j->cmd, r->libraries[i]);
	for (size_t i = 0; add_libs && i < r->nlibdirs; i++) {
		snprintf(buf, sizeof(buf), "-L%s", r->libdirs[i]);
		strlist_push(v, buf);
	}
	for (size_t i = 0; add_libs && i < r->nlibraries; i++)
		if (!has_library(&j->cmd, r->libraries[i])) {
			snprintf(buf, sizeof(buf), "-l%s", r->libraries[i]);
			strlist_push(v, buf);
		}
}

/* The host link: printed when asked, run unless --dry-run. */
static int host_link(struct link_job *j, const struct ofl_link_result *r)
{
	struct strlist v = {NULL, 0};
	host_argv(j, r, &v);
	char **argv = calloc(v.n + 1, sizeof(*argv));
	if (!argv)
		return error("out of memory");
	memcpy(argv, v.v, v.n * sizeof(*argv));
	if (j->verbose || j->o.dry_run)
		print_command(stderr, argv, v.n, j->o.llvm_command_form);
	if (j->explain) {
		fputs("host link: ", j->explain);
		print_command(j->explain, argv, v.n, false);
	}
	int rc = 0;
	if (!j->o.dry_run)
		rc = r ? run_inherit(argv)
		       : (execv(argv[0], argv),
		          error("cannot run '%s': %s", argv[0], strerror(errno)));
	free(argv);
	strlist_release(&v);
	return rc;
}

static void log_line(void *ctx, enum ofl_link_log what, const char *msg)
{
	struct link_job *j = ctx;
	if (what == OFL_LOG_FAILURE)
		fprintf(stderr, "%s: device link failed: %s\n", ofl_prog, msg);
	else if (what == OFL_LOG_WARNING)
		warning("%s", msg);
	else if (what == OFL_LOG_COMMAND && (j->verbose || j->o.dry_run))
		fprintf(stderr, "%s\n", msg);
	if (j->explain && what != OFL_LOG_WARNING)
		fprintf(j->explain, "%s%s\n", what == OFL_LOG_COMMAND ? "run: " : "", msg);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void phase(struct link_job *j, const char *name, double *t0)
{
	double t = now_ms();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (j->explain)
		fprintf(j->explain, "time: %s %.2f ms (peak memory %ld KiB)\n", name, t - *t0,
		        ru.ru_maxrss);
	*t0 = t;
}

/* A launcher command: words split on blanks, like CMake's launchers. */
static void push_words(struct strlist *l, const char *s)
{
	char *copy = strdup(s);
	for (char *t = copy ? strtok(copy, " \t") : NULL; t; t = strtok(NULL, " \t"))
		strlist_push(l, t);
	free(copy);
}

void link_job_finish_options(struct link_job *j)
{
	const char *launcher = getenv("OFFLINK_DEVICE_LAUNCHER");
	if (!j->launcher.n && launcher)
		push_words(&j->launcher, launcher);
	const char *tmp = getenv("TMPDIR");
	j->o.tmpdir = tmp && *tmp ? tmp : "/tmp";
	j->o.search_path = getenv("PATH");
	j->o.cuda_path = getenv("CUDA_PATH");
	if (!j->o.jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		j->o.jobs = n > 0 ? (unsigned)n : 1;
	}
	/* a fifo opened here lives as long as the process */
	ofl_jobserver_open(getenv("MAKEFLAGS"), &j->o.jobserver_rfd, &j->o.jobserver_wfd);
	j->o.device_linker_args = j->device_linker_args.v;
	j->o.ndevice_linker_args = j->device_linker_args.n;
	j->o.device_compiler_args = j->device_compiler_args.v;
	j->o.ndevice_compiler_args = j->device_compiler_args.n;
	j->o.launcher = j->launcher.v;
	j->o.nlauncher = j->launcher.n;
	j->o.extract_archs = j->extract.v;
	j->o.nextract_archs = j->extract.n;
	j->o.output = j->cmd.output;
	j->o.relocatable = j->offload_relocatable && j->cmd.relocatable;
	j->o.device_env = j->env = ofl_proc_env_without_driver(environ);
	j->o.log = log_line;
	j->o.log_ctx = j;
}

static bool has_option(const struct ofl_ldcmd *c, enum ofl_ldopt opt)
{
	for (size_t i = 0; i < c->nargs; i++)
		if (c->args[i].opt == opt)
			return true;
	return false;
}

/* --help: ours, then the host linker's. */
static void print_own_help(const struct link_job *j)
{
	printf("usage: ld.offlink [ld options] [ld.offlink options] inputs...\n"
	       "Links like the host linker (%s), offloaded device code included.\n\n"
	       "ld.offlink options (man ld.offlink):\n"
	       "  --offlink-linker=bfd|gold|lld|mold|PATH  host linker (or OFFLINK_LINKER)\n"
	       "  --device-compiler=PATH       clang for the device links\n"
	       "  --device-linker=[TRIPLE=]ARG  argument for the device links\n"
	       "  --device-launcher=CMD        prefix of every device link (or "
	       "OFFLINK_DEVICE_LAUNCHER)\n"
	       "  --offload-extract=ARCH       take every archive member with an ARCH image\n"
	       "  --offload-relocatable        with -r: device link now (LLVM's -r mode)\n"
	       "  --nogpulib                   no OpenMP device runtime in GPU device links\n"
	       "  -j N, --jobs=N               parallel device links (default: CPUs, or make's "
	       "jobserver)\n"
	       "  --explain[=FILE]             what was taken and why, commands, times\n"
	       "  --dry-run, --save-temps, --offlink-verbose\n\n"
	       "The host linker's options:\n",
	       j->linker);
	fflush(stdout);
}

static bool has_inputs(const struct ofl_ldcmd *c)
{
	for (size_t i = 0; i < c->nargs; i++)
		if (c->args[i].kind != OFL_LDARG_OPTION)
			return true;
	return false;
}

/* The host link's inputs, by path: files as given (sysroot applied),
 * libraries as the linker would find them (not found: the host linker's
 * to report).  Also the -L dirs and the -l found, in clang's spelling, for
 * the CPU device links.  paths[i] is NULL for an argument that is no
 * input. */
static int resolve_inputs(struct link_job *j, char **paths, struct ofl_error *err)
{
	char buf[PATH_MAX + 3];
	for (size_t i = 0; i < j->cmd.nargs; i++) {
		const struct ofl_ldarg *a = &j->cmd.args[i];
		if (a->opt == OFL_LD_LIBPATH && a->value) {
			snprintf(buf, sizeof(buf), "-L%s", a->value);
			strlist_push(&j->cpu_link_args, buf);
		}
		if (a->kind == OFL_LDARG_FILE && !(paths[i] = ofl_ldcmd_input_path(&j->cmd, a)))
			return error("out of memory");
		if (a->kind != OFL_LDARG_LIBRARY)
			continue;
		paths[i] =
		    ofl_ldcmd_find_library(&j->cmd, a, default_libdirs,
		                           sizeof(default_libdirs) / sizeof(*default_libdirs), err);
		if (err->code)
			return error_lib(err);
		snprintf(buf, sizeof(buf), "-l%s", a->value);
		if (paths[i])
			strlist_push(&j->cpu_link_args, buf);
	}
	j->o.cpu_link_args = j->cpu_link_args.v;
	j->o.ncpu_link_args = j->cpu_link_args.n;
	return 0;
}

static int add_inputs(struct link_job *j, struct ofl_link *l, char **paths, struct ofl_error *err)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < j->cmd.nargs; i++) {
		const struct ofl_ldstate *st = &j->cmd.args[i].state;
		struct ofl_link_input in = {paths[i],          -1,        0,    0,
		                            st->whole_archive, st->group, false};
		if (paths[i])
			rc = ofl_link_add(l, &in, err);
	}
	return rc;
}

static void free_paths(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* The device link, the wrapper objects and the host link. */
static int link_with_device_code(struct link_job *j, struct ofl_link *l, double *t0)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_link_result res;
	int rc = ofl_link_run(l, &res, &err);
	phase(j, "device link and wrap", t0);
	if (rc)
		return error_lib(&err);
	/* relocatable mode: ld -r into a temporary, then the input images
	 * out and the entry tables made private, into -o */
	if (j->offload_relocatable && !(j->merged = ofl_link_temp(l, "merged.o", &err)))
		return error_lib(&err);
	rc = host_link(j, &res);
	phase(j, "host link", t0);
	if (!rc && j->merged && !j->o.dry_run &&
	    ofl_link_finish_relocatable(j->merged, j->cmd.output ? j->cmd.output : "a.out", &err))
		rc = error_lib(&err);
	return rc;
}

int link_job_run(struct link_job *j)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_link *l = NULL;
	double t0 = now_ms();
	/* version queries, help, and plain ld -r are the host linker's alone */
	if (has_option(&j->cmd, OFL_LD_HELP))
		print_own_help(j);
	if (!has_inputs(&j->cmd) || (j->cmd.relocatable && !j->offload_relocatable))
		return host_link(j, NULL);
	char **paths = calloc(j->cmd.nargs, sizeof(*paths));
	int rc = paths ? resolve_inputs(j, paths, &err) : error("out of memory");
	if (!rc && ofl_link_new(&l, &j->o, &err))
		rc = error_lib(&err);
	if (!rc) {
		active_link = l;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		if (add_inputs(j, l, paths, &err))
			rc = error_lib(&err);
	}
	free_paths(paths, j->cmd.nargs);
	phase(j, "gather", &t0);
	if (!rc && !ofl_link_has_device_code(l)) {
		active_link = NULL;
		ofl_link_free(l);
		if (j->explain)
			fputs("no device code: the host link runs unchanged\n", j->explain);
		return host_link(j, NULL);
	}
	if (!rc)
		rc = link_with_device_code(j, l, &t0);
	active_link = NULL;
	ofl_link_free(l);
	return rc;
}

void link_job_release(struct link_job *j)
{
	ofl_ldcmd_release(&j->cmd);
	free(j->linker);
	strlist_release(&j->device_linker_args);
	free(j->env);
	strlist_release(&j->device_compiler_args);
	strlist_release(&j->launcher);
	strlist_release(&j->extract);
	strlist_release(&j->cpu_link_args);
	if (j->explain && j->explain != stderr)
		fclose(j->explain);
}

/* ld.offlink's own options, taken from the parsed line. */
static int own_options(struct link_job *j, const char **linker)
{
	for (size_t i = 0; i < j->cmd.nargs; i++) {
		const struct ofl_ldarg *a = &j->cmd.args[i];
		const char *v = a->value;
		switch (a->opt) {
		case OFL_LD_OWN_LINKER:
			*linker = v;
			break;
		case OFL_LD_OWN_DEVICE_COMPILER:
			j->o.device_compiler = v;
			break;
		case OFL_LD_OWN_DEVICE_LINKER:
			strlist_push(&j->device_linker_args, v);
			break;
		case OFL_LD_OWN_DEVICE_LAUNCHER:
			push_words(&j->launcher, v);
			break;
		case OFL_LD_OWN_OFFLOAD_EXTRACT:
			strlist_push(&j->extract, v);
			break;
		case OFL_LD_OWN_OFFLOAD_RELOCATABLE:
			j->offload_relocatable = true;
			break;
		case OFL_LD_OWN_JOBS: {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (*end || !n || n > 4096)
				return error(
				    "-j: expected a number of jobs from 1 to 4096, got '%s'", v);
			j->o.jobs = (unsigned)n;
			break;
		}
		case OFL_LD_OWN_EXPLAIN:
			j->explain = v ? fopen(v, "we") : stderr;
			if (!j->explain)
				return error("%s: cannot write: %s", v, strerror(errno));
			break;
		case OFL_LD_OWN_DRY_RUN:
			j->o.dry_run = true;
			break;
		case OFL_LD_OWN_SAVE_TEMPS:
			j->o.save_temps = true;
			break;
		case OFL_LD_OWN_NOGPULIB:
			j->o.no_device_runtime = true;
			break;
		case OFL_LD_OWN_VERBOSE:
		case OFL_LD_VERSION:
			j->verbose =
			    j->verbose || a->opt == OFL_LD_OWN_VERBOSE || !strcmp(a->word[0], "-v");
			break;
		default:
			break;
		}
	}
	return 0;
}

int cmd_ld_offlink(int argc, char **argv)
{
	ofl_prog = "ld.offlink"; /* also when reached as gcc's `ld` */
	struct link_job j = {.cmd = OFL_LDCMD_INIT};
	struct ofl_error err = OFL_ERROR_INIT;
	const char *linker = NULL;
	int rc = ofl_ldcmd_parse(&j.cmd, argc - 1, argv + 1, &err) ? error_lib(&err)
	                                                           : own_options(&j, &linker);
	if (!rc && !(j.linker = link_find_host_linker(linker)))
		rc = 1;
	if (!rc) {
		link_job_finish_options(&j);
		rc = link_job_run(&j);
	}
	link_job_release(&j);
	return rc;
}

/* The plugin: next to the binary's lib/ in a build tree, in
 * lib/offlink/ when installed. */
static int plugin_flags(const char *prefix, const char *linker)
{
	if (strcmp(linker, "bfd") && strcmp(linker, "gold"))
		return error("--ldflags --plugin: %s does not load linker plugins for ordinary "
		             "objects; use ld.offlink (offlink --ldflags)",
		             linker);
	static const char *const where[] = {"%s/lib/offlink/offlink-plugin.so",
	                                    "%s/lib/offlink-plugin.so"};
	char path[PATH_MAX + 64];
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), where[i], prefix);
		if (!access(path, R_OK)) {
			printf("-fuse-ld=%s -Wl,-plugin,%s\n", linker, path);
			return 0;
		}
	}
	return error("--ldflags --plugin: no offlink-plugin.so in %s/lib", prefix);
}

/* offlink --ldflags [--cc=clang|gcc] [--plugin [--linker=bfd|gold]]: what
 * to add to LDFLAGS.  clang takes any -fuse-ld name and finds ld.offlink in
 * -B dirs; gcc accepts only fixed names, so it gets the directory whose
 * `ld` is ld.offlink.  The plugin works with ld.bfd and gold only. */
int cmd_ldflags(int argc, char **argv)
{
	const char *cc = "clang", *linker = "bfd";
	bool plugin = false;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--cc=", 5))
			cc = argv[i] + 5;
		else if (!strncmp(argv[i], "--linker=", 9))
			linker = argv[i] + 9;
		else if (!strcmp(argv[i], "--plugin"))
			plugin = true;
		else if (strcmp(argv[i], "--ldflags"))
			return error("--ldflags: unknown argument '%s' (--cc=clang|gcc, --plugin, "
			             "--linker=bfd|gold)",
			             argv[i]);
	}
	char exe[PATH_MAX];
	if (!realpath("/proc/self/exe", exe))
		return error("cannot find where offlink is installed: %s", strerror(errno));
	*strrchr(exe, '/') = '\0';
	char *bin = strrchr(exe, '/');
	int prefix_len = (int)(bin - exe);
	if (plugin) {
		exe[prefix_len] = '\0';
		return plugin_flags(exe, linker);
	}
	if (!strcmp(cc, "gcc"))
		printf("-B%.*s/libexec/offlink/gcc/\n", prefix_len, exe);
	else if (!strcmp(cc, "clang"))
		printf("-B%s -fuse-ld=offlink\n", exe);
	else
		return error("--ldflags: --cc must be clang or gcc, not '%s'", cc);
	return 0;
}
