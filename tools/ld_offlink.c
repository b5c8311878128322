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
#include "offlink/io.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

extern char **environ;

static const int term_signals[] = {SIGINT, SIGTERM, SIGHUP};

static struct ofl_link *volatile active_link;
/* The termination signal that came (0: none). */
static volatile sig_atomic_t caught;
/* The host linker while it runs, as kill(2) takes it (-pgid for its
 * group; 0: none); read and written atomically. */
static int host_pid;

/* Async-signal-safe: records the signal and kills what runs.  The link
 * then fails, its temporaries are removed once the pipeline has returned
 * (children reaped, so nothing writes there any more) and die_if_caught
 * ends us by the same signal. */
static void on_signal(int sig)
{
	int saved = errno;
	struct ofl_link *l = active_link;
	caught = sig;
	int host = __atomic_load_n(&host_pid, __ATOMIC_SEQ_CST);
	if (l)
		ofl_link_cancel(l);
	if (host)
		kill(host, sig);
	errno = saved;
}

/* Signals our parent has us ignore (nohup, a background job's SIGINT)
 * stay ignored. */
static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART}, old;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(*term_signals); i++)
		if (!sigaction(term_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(term_signals[i], &sa, NULL);
}

/* After the cleanup: the default actions back, and a signal that came
 * ends us as it would have, so the exit status shows it. */
static void die_if_caught(void)
{
	struct sigaction old;
	for (size_t i = 0; i < sizeof(term_signals) / sizeof(*term_signals); i++)
		if (!sigaction(term_signals[i], NULL, &old) && old.sa_handler == on_signal)
			signal(term_signals[i], SIG_DFL);
	if (!caught)
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, caught);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(caught);
}

/* The copies of ld.offlink that ran this one as their host linker, and
 * this one: never chosen as the host linker, so two copies named `ld` (two
 * -B dirs, two installs) cannot run each other forever.  The host linker
 * gets the chain in its environment: run by an offlink (ld.offlink, the
 * personality), it knows that the device code was seen to already. */
static int linker_chain(struct link_job *j)
{
	const char *prev = getenv("OFFLINK_LINKER_CHAIN");
	j->chained = prev && *prev;
	char self[PATH_MAX];
	if (!realpath("/proc/self/exe", self))
		return error("cannot find ld.offlink's own path: %s", strerror(errno));
	if (asprintf(&j->chain_env, "OFFLINK_LINKER_CHAIN=%s%s%s", prev ? prev : "",
	             prev && *prev ? ":" : "", self) < 0)
		return error("out of memory");
	char *copy = strdup(strchr(j->chain_env, '=') + 1);
	for (char *t = copy ? strtok(copy, ":") : NULL; t; t = strtok(NULL, ":"))
		strlist_push(&j->skip, t);
	free(copy);
	if (j->skip.n > 16)
		return error("%zu copies of ld.offlink ran each other as the host linker (%s): "
		             "name the real one with --offlink-linker or OFFLINK_LINKER",
		             j->skip.n, strchr(j->chain_env, '=') + 1);
	size_t n = 0;
	while (environ[n])
		n++;
	if (!(j->host_env = calloc(n + 2, sizeof(char *))))
		return error("out of memory");
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "OFFLINK_LINKER_CHAIN=", 21))
			j->host_env[k++] = environ[i];
	j->host_env[k] = j->chain_env;
	return 0;
}

/* How to find the host linker (the driver that called us is our parent):
 * into q, its driver's path into driver. */
static void linker_query(const struct link_job *j, unsigned llvm, struct ofl_host_linker_query *q,
                         char driver[PATH_MAX])
{
	char exe[64];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)getppid());
	const char *choice = j->linker_choice ? j->linker_choice : getenv("OFFLINK_LINKER");
	*q = (struct ofl_host_linker_query){choice ? choice : j->linker_named,
	                                    j->linker_path,
	                                    realpath(exe, driver) ? driver : NULL,
	                                    getenv("PATH"),
	                                    (const char *const *)j->skip.v,
	                                    j->skip.n,
	                                    llvm,
	                                    j->c.o.llvm_roots,
	                                    j->c.o.nllvm_roots};
}

/* The host linker, once the inputs are known (lld must read their
 * bitcode). */
static int resolve_linker(struct link_job *j, unsigned llvm)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_host_linker_query q;
	char driver[PATH_MAX];
	linker_query(j, llvm, &q, driver);
	free(j->linker);
	j->linker = ofl_find_host_linker(&q, &err);
	return j->linker ? 0 : error_lib(&err);
}

/* The host linker leads a process group of its own, so that a signal
 * reaches what it starts too (an LTO plugin's compilers), unless we are
 * the terminal's foreground job: there a group of its own would be a
 * background job, stopped by a write under `stty tostop` and out of reach
 * of ^C. */
static bool host_own_group(void)
{
	pid_t fg = tcgetpgrp(STDERR_FILENO);
	return fg < 0 || fg != getpgrp();
}

/* Runs argv with our standard streams; its exit status as a shell sees it.
 * A termination signal is passed on to it (on_signal), so it cleans up as
 * if it had got it itself. */
static int run_inherit(char *const *argv, char *const *env)
{
	posix_spawnattr_t attr;
	bool group = host_own_group();
	pid_t pid;
	int rc = posix_spawnattr_init(&attr);
	rc = rc ? rc : posix_spawnattr_setflags(&attr, group ? POSIX_SPAWN_SETPGROUP : 0);
	rc = rc ? rc : posix_spawn(&pid, argv[0], NULL, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	if (rc)
		return error("cannot run '%s': %s", argv[0], strerror(rc));
	__atomic_store_n(&host_pid, group ? -pid : pid, __ATOMIC_SEQ_CST);
	if (caught) /* came before host_pid was set */
		kill(group ? -pid : pid, caught);
	struct ofl_error err = OFL_ERROR_INIT;
	int st;
	if (ofl_proc_wait(pid, &host_pid, &st, &err))
		return error_lib(&err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void print_command(FILE *f, char *const *argv, size_t argc, bool llvm_form)
{
	struct ofl_buf b = OFL_BUF_INIT;
	if (!ofl_proc_format(argv, argc, llvm_form, &b))
		fprintf(f, "%s\n", (const char *)b.data);
	ofl_buf_release(&b);
}

/* The host link's span of the time trace: its command, its exit status. */
static void trace_host_link(struct ofl_trace *t, const struct ofl_argv *v, uint64_t begin,
                            int status)
{
	struct ofl_buf b = OFL_BUF_INIT;
	bool shown = !ofl_proc_format(v->v, v->n, false, &b);
	struct ofl_trace_arg args[] = {{"command", shown ? (const char *)b.data : v->v[0], 0},
	                               {"status", NULL, status}};
	ofl_trace_span(t, OFL_TRACE_MAIN, "host link", begin, args, 2);
	ofl_buf_release(&b);
}

/* The host link: printed when asked, run unless --dry-run.  The
 * personality's dry run prints it as clang-linker-wrapper does: into -o,
 * then relocatable mode's llvm-objcopy. */
static int host_link(struct link_job *j, const struct ofl_link *l, const struct ofl_link_result *r)
{
	struct ofl_argv v = OFL_ARGV_INIT, objcopy = OFL_ARGV_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	bool llvm = ofl_link_llvm_form(&j->c.o);
	const char *out = j->cmd.output ? j->cmd.output : "a.out";
	if (ofl_host_argv(&j->cmd, j->linker, r, llvm ? NULL : j->merged, llvm, &v, &err) ||
	    (llvm && j->merged && ofl_link_llvm_objcopy(l, out, &objcopy, &err))) {
		ofl_argv_release(&v);
		ofl_argv_release(&objcopy);
		return error_lib(&err);
	}
	if (j->verbose || j->c.o.dry_run)
		print_command(stderr, v.v, v.n, j->c.o.llvm_wrapper);
	if (objcopy.n)
		print_command(stderr, objcopy.v, objcopy.n, true);
	ofl_argv_release(&objcopy);
	if (j->explain) {
		fputs("host link: ", j->explain);
		print_command(j->explain, v.v, v.n, false);
	}
	int rc = 0;
	if (j->explain)
		fflush(j->explain); /* exec drops what stdio holds */
	/* traced, it is waited for: the trace is written after it */
	struct ofl_trace *t = j->c.o.trace;
	uint64_t begin = ofl_trace_now(t);
	if (!j->c.o.dry_run)
		rc = r || t ? run_inherit(v.v, j->host_env)
		            : (execve(v.v[0], v.v, j->host_env),
		               error("cannot run '%s': %s", v.v[0], strerror(errno)));
	if (t && !j->c.o.dry_run)
		trace_host_link(t, &v, begin, rc);
	ofl_argv_release(&v);
	return rc;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void log_line(void *ctx, enum ofl_link_log what, const char *msg)
{
	struct link_job *j = ctx;
	if (what == OFL_LOG_FAILURE)
		fprintf(stderr, "%s: %s\n", ofl_prog, msg);
	else if (what == OFL_LOG_DETAIL && j->verbose)
		fprintf(stderr, "%s: the whole command and its output:\n%s\n", ofl_prog, msg);
	else if (what == OFL_LOG_WARNING)
		warning("%s", msg);
	else if (what == OFL_LOG_COMMAND && (j->verbose || j->c.o.dry_run))
		fprintf(stderr, "%s\n", msg);
	else if (what == OFL_LOG_MODULE || (what == OFL_LOG_OUTPUT && j->verbose))
		fputs(msg, stderr);
	/* progress: on a terminal once the link takes a moment, or asked */
	else if (what == OFL_LOG_PROGRESS &&
	         (j->verbose || (isatty(STDERR_FILENO) && now_ms() - j->started > 1000)))
		fprintf(stderr, "%s: %s\n", ofl_prog, msg);
	if (j->explain && what != OFL_LOG_WARNING && what != OFL_LOG_MODULE)
		fprintf(j->explain, "%s%s\n", what == OFL_LOG_COMMAND ? "run: " : "", msg);
}

static void phase(struct link_job *j, const char *name, double *t0)
{
	double t = now_ms();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (j->explain)
		fprintf(j->explain, "time: %s %.2f ms (process peak memory so far %ld KiB)\n", name,
		        t - *t0, ru.ru_maxrss);
	*t0 = t;
}

/* The pipeline's options, once the link needs the pipeline. */
static int finish_options(struct link_job *j)
{
	struct ofl_error err = OFL_ERROR_INIT;
	j->c.o.output = j->cmd.output;
	j->c.o.relocatable = j->offload_relocatable && j->cmd.relocatable;
	j->c.o.host_cmd = &j->cmd;
	j->c.o.rsp = &j->rsp;
	struct ofl_host_linker_query q;
	char driver[PATH_MAX];
	linker_query(j, 0, &q, driver);
	j->c.o.host_linker = ofl_host_linker_kind(&q);
	j->c.o.log = log_line;
	j->c.o.verbose = j->verbose;
	j->c.o.log_ctx = j;
	j->started = now_ms();
	return ofl_link_config_env(&j->c, environ, getppid(), &err) ||
	               ofl_link_config_trace(&j->c, prog_base(), &err)
	           ? error_lib(&err)
	           : 0;
}

/* The time trace, when asked for: written whatever became of the link
 * (where the time went matters most when it failed); rc, or an error when
 * it cannot be written. */
static int write_trace(struct link_job *j, int rc)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (!j->c.o.trace || !ofl_trace_write(j->c.o.trace, j->c.time_trace_file, &err))
		return rc;
	int failed = error_lib(&err);
	return rc ? rc : failed;
}

static bool has_option(const struct ofl_ldcmd *c, enum ofl_ldopt opt)
{
	for (size_t i = 0; i < c->nargs; i++)
		if (c->args[i].opt == opt)
			return true;
	return false;
}

/* --help: ours, and where to find the host linker's (GNU ld's 500 lines
 * would bury ours). */
static int print_own_help(struct link_job *j)
{
	printf("usage: ld.offlink [ld options] [ld.offlink options] inputs...\n"
	       "Links as the host linker does, and adds the device code of the objects and\n"
	       "archive members the link uses, linked and registered. Through a compiler:\n"
	       "the flags of `offlink --ldflags` (clang: -fuse-ld=offlink; gcc: -B<dir>);\n"
	       "options as -Wl,OPTION. More: man ld.offlink.\n\n"
	       "ld.offlink's options:\n"
	       "  --offlink-linker=bfd|gold|lld|mold|PATH  host linker (or OFFLINK_LINKER; default "
	       "X run as ld.X, else ld)\n"
	       "  --device-compiler=PATH       clang for the device links\n"
	       "  --device-linker=[TRIPLE=]ARG  argument for the device links\n"
	       "  --device-launcher=CMD        prefix of every device link (or "
	       "OFFLINK_DEVICE_LAUNCHER)\n"
	       "  --offload-extract=ARCH       take every archive member with an ARCH image\n"
	       "  --offload-relocatable        with -r: device link now (LLVM's -r mode)\n"
	       "  --nogpulib                   no OpenMP device runtime in GPU device links\n"
	       "  --device-opt-level=O<n>      device code's optimisation (else -plugin-opt=O<n>)\n"
	       "  --device-partitions=N|auto   device LTO code generation in N parallel, cached\n"
	       "                               partitions (auto: from the device bitcode's size;\n"
	       "                               1: LLVM's link); OFFLINK_DEVICE_PARTITIONS\n"
	       "  --no-bypass-warning          no warning when LLVM's clang-linker-wrapper linked\n"
	       "                               the device code (or OFFLINK_NO_BYPASS_WARNING=1)\n"
	       "  -j N, --jobs=N               parallel device links (default: CPUs; under make "
	       "its jobserver, else 1)\n"
	       "  --explain[=FILE]             what was taken and why, commands, times\n"
	       "  --time-trace[=FILE]          where the time went, as Chrome trace JSON (default\n"
	       "                               OUTPUT.time-trace.json; or OFFLINK_TIME_TRACE)\n"
	       "  --dry-run                    print the device and host link commands, run none\n"
	       "  --save-temps                 keep the temporaries, and say where\n"
	       "  --offlink-verbose            print each command as it runs (-v too)\n"
	       "  --help, --version            this help; ld.offlink's and the host linker's "
	       "versions\n");
	if (resolve_linker(j, 0))
		return 1;
	printf("\nThe host linker's options: %s --help\n", j->linker);
	return 0;
}

static bool has_inputs(const struct ofl_ldcmd *c)
{
	for (size_t i = 0; i < c->nargs; i++)
		if (c->args[i].kind != OFL_LDARG_OPTION)
			return true;
	return false;
}

/* --emit-fatbin-only: the bundle is the output (written in a dry run too,
 * with empty images, as LLVM writes it). */
static int write_fatbin(const char *fatbin, const char *out)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_file f = OFL_FILE_INIT;
	int rc = ofl_file_open(&f, fatbin, &err) || ofl_write_file(out, f.data, f.size, &err);
	ofl_file_close(&f);
	return rc ? error_lib(&err) : 0;
}

/* The plan's host link: the wrapper objects added (relocatable mode: ld -r
 * into a temporary, then the input images out and the entry tables made
 * private, into -o). */
static int link_with_device_code(struct link_job *j, struct ofl_link *l,
                                 const struct ofl_link_result *res, double *t0)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *out = j->cmd.output ? j->cmd.output : "a.out";
	if (j->c.o.emit_fatbin)
		return write_fatbin(res->fatbin, out);
	if (j->c.o.relocatable && !(j->merged = ofl_link_temp(l, "merged.o", &err)))
		return error_lib(&err);
	int rc = host_link(j, l, res);
	phase(j, "host link", t0);
	if (!rc && !j->c.o.dry_run && ofl_link_scrub_outputs(l, &err))
		rc = error_lib(&err);
	if (!rc && j->merged && !j->c.o.dry_run &&
	    ofl_link_finish_relocatable(j->merged, out, &err))
		rc = error_lib(&err);
	return rc;
}

/* Why the host link runs unchanged: a warning when LLVM linked the device
 * code (the plan's), said with -v in any case. */
static void nothing_to_do(const struct link_job *j, const struct ofl_link_plan *plan)
{
	if (plan->warning)
		warning("%s", plan->warning);
	if (plan->note && j->verbose)
		note("%s", plan->note);
	if (j->explain)
		fprintf(j->explain, "%s\n",
		        plan->note ? plan->note : "no device code: the host link runs unchanged");
}

int link_job_run(struct link_job *j)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_link *l = NULL;
	if (j->explain)
		explain_flag_origin(j->explain);
	double t0 = now_ms();
	if (linker_chain(j))
		return 1;
	/* help is ours; version queries are ours, then the host linker's;
	 * plain ld -r is the host linker's alone */
	if (!has_inputs(&j->cmd) && has_option(&j->cmd, OFL_LD_HELP))
		return print_own_help(j);
	/* ld.offlink run by an offlink: the device work is done; the real
	 * linker runs (the personality's work is the device link, always) */
	bool chained = j->chained && !j->c.o.llvm_wrapper;
	if (!ofl_link_wanted(&j->cmd, j->offload_relocatable) || chained) {
		if (has_option(&j->cmd, OFL_LD_VERSION)) {
			print_version(NULL);
			fflush(stdout); /* exec drops what stdio holds */
		}
		return resolve_linker(j, 0) ? 1 : host_link(j, NULL, NULL);
	}
	int rc = finish_options(j);
	if (!rc && ofl_link_open(&l, &j->c.o, &err))
		rc = error_lib(&err);
	if (!rc) {
		active_link = l;
		catch_signals();
	}
	phase(j, "gather", &t0);
	/* --emit-fatbin-only names a linker (the driver's bundler) it never runs */
	if (!rc && !j->c.o.emit_fatbin)
		rc = resolve_linker(j, ofl_link_bitcode_release(l));
	struct ofl_link_plan plan = {.action = OFL_PLAN_UNCHANGED};
	if (!rc) {
		rc = ofl_link_plan(l, &plan, &err);
		phase(j, "plan", &t0);
		rc = rc ? rc : ofl_link_execute(l, &plan, &err);
		if (rc || plan.action == OFL_PLAN_ADD)
			phase(j, "device link and wrap", &t0);
		/* cancelled by a signal: no message, we die of it */
		rc = rc ? (caught ? 1 : error_lib(&err)) : 0;
	}
	if (!rc && plan.action != OFL_PLAN_ADD) {
		nothing_to_do(j, &plan);
		active_link = NULL;
		ofl_link_free(l);
		die_if_caught();
		return write_trace(j, host_link(j, NULL, NULL));
	}
	if (!rc)
		rc = link_with_device_code(j, l, &plan.res, &t0);
	if (l && ofl_link_kept_temps(l))
		note("temporaries kept in %s", ofl_link_kept_temps(l));
	if (l)
		ofl_link_wait(l); /* a signal still cancels the stores */
	active_link = NULL;
	ofl_link_free(l);
	rc = write_trace(j, rc);
	die_if_caught();
	return rc;
}

void link_job_release(struct link_job *j)
{
	ofl_ldcmd_release(&j->cmd);
	ofl_rsp_memo_release(&j->rsp);
	free(j->linker);
	free(j->chain_env);
	free(j->host_env);
	strlist_release(&j->skip);
	ofl_link_config_release(&j->c);
	if (j->explain && j->explain != stderr)
		fclose(j->explain);
}

/* An unknown option that was meant to be one of ours: the host linker
 * would only say "unrecognized option". */
static int check_typo(const struct ofl_ldarg *a)
{
	const char *meant, *w = a->word[0], *eq = strchr(w, '=');
	if (!ofl_ldarg_is_own_typo(a, &meant))
		return 0;
	if (meant)
		return error("unknown option '%s'; did you mean '--%s%s'?", w, meant, eq ? eq : "");
	return error("unknown option '%s'; see ld.offlink --help", w);
}

int link_job_own_option(struct link_job *j, const struct ofl_ldarg *a)
{
	struct ofl_error err = OFL_ERROR_INIT;
	const char *v = a->value;
	switch (a->opt) {
	case OFL_LD_OWN_LINKER:
		j->linker_choice = v;
		return 0;
	case OFL_LD_OWN_OFFLOAD_RELOCATABLE:
		j->offload_relocatable = true;
		return 0;
	case OFL_LD_OWN_EXPLAIN:
		if (j->explain && j->explain != stderr)
			fclose(j->explain);
		j->explain = v ? fopen(v, "we") : stderr;
		return j->explain ? 0 : error("%s: cannot write: %s", v, strerror(errno));
	case OFL_LD_OWN_VERBOSE:
		j->verbose = true;
		return 0;
	default: {
		int rc = ofl_link_config_option(&j->c, a, &err);
		if (rc < 0)
			return error_lib(&err);
		return rc ? check_typo(a) : 0;
	}
	}
}

/* ld.offlink's own options, taken from the parsed line: the pipeline's
 * by the library, the front end's here; -v is also the host linker's. */
static int own_options(struct link_job *j)
{
	for (size_t i = 0; i < j->cmd.nargs; i++) {
		const struct ofl_ldarg *a = &j->cmd.args[i];
		if (a->opt == OFL_LD_VERSION)
			j->verbose = j->verbose || !strcmp(a->word[0], "-v");
		else if (link_job_own_option(j, a))
			return 1;
	}
	return 0;
}

/* The host linker the name we run as asks for: gcc -B<dir> -fuse-ld=X runs
 * <dir>/ld.X (libexec/offlink/gcc/ld.gold...), meaning that linker. */
static const char *linker_of_name(const char *argv0)
{
	static const char *const flavours[] = {"bfd", "gold", "lld", "mold"};
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	for (size_t i = 0; !strncmp(base, "ld.", 3) && i < 4; i++)
		if (!strcmp(base + 3, flavours[i]))
			return flavours[i];
	return NULL;
}

int cmd_ld_offlink(int argc, char **argv)
{
	ofl_prog = "ld.offlink"; /* also when reached as gcc's `ld` */
	struct link_job j = {.cmd = OFL_LDCMD_INIT};
	j.linker_named = linker_of_name(argv[0]);
	struct ofl_error err = OFL_ERROR_INIT;
	int rc = ofl_ldcmd_parse(&j.cmd, OFL_LDCMD_GNU, argc - 1, argv + 1, &j.rsp, &err)
	             ? error_lib(&err)
	             : own_options(&j);
	if (!rc)
		rc = link_job_run(&j);
	link_job_release(&j);
	return rc;
}
