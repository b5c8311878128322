/* The GNU linker plugin: the second front end of the link pipeline
 * (offlink/link.h), inside ld.bfd or gold, no wrapper process
 * (docs/integration.md, "The linker plugin").
 *
 * The link is a session of the library's (ofl_link_open), as ld.offlink's
 * is: its inputs come from the linker's own command line, read from
 * /proc/self/cmdline, so both take the same archive members and make the
 * same decisions.  claim_file never claims: each file the linker loads is a
 * hint to the session (ofl_link_hint).  all_symbols_read applies the
 * session's plan: the wrapper objects and the runtime library added;
 * cleanup frees it all.  Diagnostics go through the linker's message
 * callback only.
 *
 * The plugin API passes no context to the hooks, so the plugin's state is
 * one static struct: the linker loads a plugin once per link. */
#define HAVE_STDINT_H 1
#include <plugin-api.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "offlink/ldcmd.h"
#include "offlink/link_config.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

extern char **environ;

struct plugin {
	ld_plugin_message message;
	ld_plugin_add_input_file add_input_file;
	ld_plugin_add_input_library add_input_library;
	ld_plugin_set_extra_library_path set_extra_library_path;
	bool relocatable;
	const char *output;
	struct ofl_link_config c; /* the pipeline's options, as ld.offlink's */
	FILE *explain;
	bool explain_info;
	/* the linker's own command line, which the pipeline reads as
	 * ld.offlink reads its own (libraries, run paths, dependency file) */
	struct ofl_ldcmd host;
	struct ofl_rsp_memo rsp; /* its response files, read once for the link */
	char *cmdline;
	bool failed;
	bool loaded;             /* onload ran: a second one is the same .so loaded again */
	bool done;               /* all_symbols_read ran */
	struct timespec started; /* for progress lines */
	uint64_t resumed;        /* the time trace's clock when the linker went on */
	/* the first thing wrong with the linker's command line or the
	 * environment's settings: the link fails on it, as ld.offlink's */
	struct ofl_error setup;
	struct ofl_link *link;
};

static struct plugin P;

__attribute__((visibility("default"))) enum ld_plugin_status onload(struct ld_plugin_tv *tv);

#define SAY(level, ...) (P.message ? P.message(level, __VA_ARGS__) : LDPS_OK)

/* Progress lines on a terminal, once the link takes a moment. */
static bool progress_shown(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return isatty(STDERR_FILENO) && t.tv_sec - P.started.tv_sec >= 1;
}

static void log_line(void *ctx, enum ofl_link_log what, const char *msg)
{
	if (what == OFL_LOG_WARNING)
		SAY(LDPL_WARNING, "offlink: %s", msg);
	else if (what == OFL_LOG_FAILURE)
		SAY(LDPL_ERROR, "offlink: %s", msg);
	else if (what == OFL_LOG_PROGRESS && !P.explain_info && progress_shown())
		SAY(LDPL_INFO, "offlink: %s", msg);
	if (what == OFL_LOG_COMMAND && P.c.o.dry_run && !P.explain_info)
		SAY(LDPL_INFO, "offlink: %s", msg); /* what a dry run is for */
	if (what == OFL_LOG_FAILURE || (what == OFL_LOG_DETAIL && !P.explain) ||
	    !(P.explain || P.explain_info))
		return;
	if (P.explain)
		fprintf(P.explain, "%s%s\n", what == OFL_LOG_COMMAND ? "run: " : "", msg);
	else /* explain without a file: the linker's messages */
		SAY(LDPL_INFO, "offlink: %s%s", what == OFL_LOG_COMMAND ? "run: " : "", msg);
}

/* explain[=FILE]: to FILE, else through the linker's messages. */
static int explain(const char *file)
{
	/* the last one wins, as ld.offlink's */
	if (P.explain)
		fclose(P.explain);
	P.explain = NULL;
	P.explain_info = !file;
	return !file || (P.explain = fopen(file, "we")) ? 0 : OFL_EIO;
}

/* A -plugin-opt word that is not one of ours, or has a bad value: which
 * values are allowed, or the option it most likely meant. */
static enum ld_plugin_status bad_option(const char *shown, enum ofl_ldopt id, const char *meant)
{
	const char *eq = strchr(shown, '=');
	if (id == OFL_LD_OWN_JOBS)
		SAY(LDPL_FATAL, "offlink: plugin option '%s': jobs is a number from 1 to 4096",
		    shown);
	else if (meant)
		SAY(LDPL_FATAL, "offlink: unknown plugin option '%s'; did you mean '%s%s'?", shown,
		    meant, eq ? eq : "");
	else
		SAY(LDPL_FATAL,
		    "offlink: unknown plugin option '%s' (jobs=N, device-compiler=, "
		    "device-linker=, device-launcher=, offload-extract=, explain[=FILE], "
		    "save-temps, dry-run, no-device-cache, no-bypass-warning, nogpulib, "
		    "device-opt-level=, device-partitions=, time-trace[=FILE])",
		    shown);
	return LDPS_ERR;
}

/* -plugin-opt words: ld.offlink's options without the dashes ("jobs=4"),
 * read by the same table (offlink/ldcmd.h) and taken as ld.offlink takes
 * them (offlink/link_config.h). */
static enum ld_plugin_status option(const char *opt)
{
	struct ofl_ldcmd c = OFL_LDCMD_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	char word[4096];
	char *argv[1] = {word};
	snprintf(word, sizeof(word), "--%s", opt);
	bool parsed = strlen(opt) < sizeof(word) - 2 &&
	              !ofl_ldcmd_parse(&c, OFL_LDCMD_GNU, 1, argv, NULL, &err) && c.nargs == 1;
	const struct ofl_ldarg *a = parsed ? &c.args[0] : NULL;
	int rc = !a                             ? 1
	         : a->opt == OFL_LD_OWN_EXPLAIN ? explain(a->value)
	                                        : ofl_link_config_option(&P.c, a, &err);
	enum ofl_ldopt id = a ? a->opt : OFL_LD_UNKNOWN;
	const char *meant = NULL; /* a name in ldcmd's table: outlives c */
	if (a)
		ofl_ldarg_is_own_typo(a, &meant);
	ofl_ldcmd_release(&c);
	char shown[4 * 256 + 1];
	ofl_printable(opt, shown, sizeof(shown), false);
	/* ld.offlink's options the plugin has no use for are unknown here */
	if (rc == 1 || rc == OFL_EINVAL)
		return bad_option(shown, id, meant);
	if (rc)
		SAY(LDPL_FATAL, "offlink: plugin option '%s': %s", shown,
		    strerror(rc == OFL_EIO ? errno : ENOMEM));
	return rc ? LDPS_ERR : LDPS_OK;
}

/* A problem that does not stop the link, said as a warning. */
static void fail_quietly(const struct ofl_error *err)
{
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	ofl_error_format(err, msg, sizeof(msg));
	SAY(LDPL_WARNING, "offlink: %s", msg);
}

/* The time trace, when asked for, once the link's stores are done;
 * level: how a failure to write it is said. */
static void write_trace(int level)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (P.c.o.trace && ofl_trace_write(P.c.o.trace, P.c.time_trace_file, &err)) {
		char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
		ofl_error_format(&err, msg, sizeof(msg));
		SAY(level, "offlink: %s", msg);
	}
}

/* Everything the link made is removed before a fatal message: the linker
 * exits inside the message callback, and cleanup never runs. */
static enum ld_plugin_status fail(const struct ofl_error *err)
{
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	ofl_error_format(err, msg, sizeof(msg));
	ofl_link_free(P.link);
	P.link = NULL;
	P.failed = true;
	write_trace(LDPL_WARNING); /* the link's own failure comes next */
	SAY(LDPL_FATAL, "offlink: %s", msg);
	return LDPS_ERR;
}

/* A member: the archive's name and the offset of its bytes in it. */
static enum ld_plugin_status claim_file(const struct ld_plugin_input_file *f, int *claimed)
{
	struct ofl_error err = OFL_ERROR_INIT;
	*claimed = 0;
	/* after all_symbols_read the linker offers what the link added
	 * (the wrapper objects, libraries scanned again): not inputs */
	if (!P.link || P.failed || P.done)
		return LDPS_OK;
	struct ofl_link_input in = {
	    f->name, f->fd, (uint64_t)f->offset, (uint64_t)f->filesize, false, 0, true};
	return ofl_link_hint(P.link, &in, &err) ? fail(&err) : LDPS_OK;
}

static enum ld_plugin_status all_symbols_read(void)
{
	struct ofl_error err = OFL_ERROR_INIT;
	struct ofl_link_plan plan;
	P.done = true;
	if (!P.link)
		return LDPS_OK; /* -r: the linker's alone, as for ld.offlink */
	/* the linker's own work so far: the trace started when it loaded us */
	ofl_trace_span(P.c.o.trace, OFL_TRACE_MAIN, "linker: inputs and symbols", 0, NULL, 0);
	if (ofl_link_plan(P.link, &plan, &err))
		return fail(&err);
	if (plan.warning)
		SAY(LDPL_WARNING, "offlink: %s", plan.warning);
	P.resumed = ofl_trace_now(P.c.o.trace);
	if (plan.action != OFL_PLAN_ADD)
		return LDPS_OK; /* nothing written, nothing run */
	if (ofl_link_execute(P.link, &plan, &err))
		return fail(&err);
	const struct ofl_link_result res = plan.res;
	/* no plugin hook stops the linker writing its output: say so */
	if (P.c.o.dry_run)
		SAY(LDPL_WARNING,
		    "offlink: dry-run: the device links were printed, not run; the linker still "
		    "writes %s, with empty device images",
		    P.output ? P.output : "its output");
	for (size_t i = 0; i < res.nobjects; i++)
		if (P.add_input_file(res.objects[i]) != LDPS_OK) {
			SAY(LDPL_FATAL, "offlink: the linker refused %s", res.objects[i]);
			return LDPS_ERR;
		}
	/* the wrapper's references come after the archives were scanned:
	 * the runtime is added as a library, so the linker scans it again */
	for (size_t i = 0; P.set_extra_library_path && i < res.nlibdirs; i++)
		P.set_extra_library_path(res.libdirs[i]);
	for (size_t i = 0; P.add_input_library && i < res.nlibraries; i++)
		P.add_input_library(res.libraries[i]);
	/* and libc again: the wrappers' atexit is in libc_nonshared.a, which
	 * was scanned before they came (gcc's LTO plugin passes -lc on too) */
	if (P.add_input_library && res.nobjects)
		P.add_input_library("c");
	P.resumed = ofl_trace_now(P.c.o.trace);
	return LDPS_OK;
}

static enum ld_plugin_status cleanup(void)
{
	struct ofl_error err = OFL_ERROR_INIT;
	/* the linker has written its outputs by now (ld.bfd: the dependency
	 * file at the end of the link, before cleanup) */
	if (P.link && !P.failed && ofl_link_scrub_outputs(P.link, &err))
		fail_quietly(&err);
	if (P.link && ofl_link_kept_temps(P.link))
		SAY(LDPL_INFO, "offlink: temporaries kept in %s", ofl_link_kept_temps(P.link));
	ofl_link_free(P.link);
	if (P.resumed)
		ofl_trace_span(P.c.o.trace, OFL_TRACE_MAIN, "linker: output", P.resumed, NULL, 0);
	if (!P.failed)
		write_trace(LDPL_ERROR);
	ofl_ldcmd_release(&P.host);
	ofl_rsp_memo_release(&P.rsp);
	free(P.cmdline);
	ofl_link_config_release(&P.c);
	if (P.explain)
		fclose(P.explain);
	P = (struct plugin){0};
	return LDPS_OK;
}

/* The linker's command line from /proc/self/cmdline: NUL-separated words.
 * Without it (no /proc) the session cannot start (ofl_link_open says so). */
static void read_command_line(void)
{
	struct ofl_error err = OFL_ERROR_INIT;
	FILE *f = fopen("/proc/self/cmdline", "re");
	size_t n = 0, cap = 0;
	char **argv = NULL;
	int argc = 0;
	for (int ch; f && (ch = getc(f)) != EOF; n++) {
		if (n + 1 >= cap) {
			char *nc = realloc(P.cmdline, cap = cap ? 2 * cap : 4096);
			if (!nc)
				goto out;
			P.cmdline = nc;
		}
		P.cmdline[n] = (char)ch;
	}
	if (!P.cmdline)
		goto out;
	P.cmdline[n] = '\0'; /* a rewritten argv may end without one */
	for (size_t i = 0; i < n; i += strlen(P.cmdline + i) + 1)
		argc++;
	if (!argc || !(argv = calloc((size_t)argc, sizeof(*argv))))
		goto out;
	argc = 0;
	for (size_t i = 0; i < n; i += strlen(P.cmdline + i) + 1)
		argv[argc++] = P.cmdline + i;
	if (!ofl_ldcmd_parse(&P.host, OFL_LDCMD_GNU, argc - 1, argv + 1, &P.rsp, &err)) {
		P.c.o.host_cmd = &P.host;
		P.c.o.rsp = &P.rsp;
		/* what the line tells the device link (another plugin's
		 * -plugin-opt=O<n>), taken as ld.offlink takes it */
		for (size_t i = 0; i < P.host.nargs; i++)
			if (P.host.args[i].opt == OFL_LD_PLUGIN_OPT)
				ofl_link_config_option(&P.c, &P.host.args[i], &err);
	} else if (!P.setup.code) {
		ofl_error_prefix(&err, "the linker's command line");
		P.setup = err;
	}
out:
	free(argv);
	if (f)
		fclose(f);
}

/* The environment, as ld.offlink reads it (offlink/link_config.h); what
 * is wrong there fails the link as it fails ld.offlink's. */
static void environment(void)
{
	struct ofl_error err = OFL_ERROR_INIT;
	/* the linker's parent: the compiler driver that started the link */
	if (ofl_link_config_env(&P.c, environ, getppid(), &err) && !P.setup.code)
		P.setup = err;
	clock_gettime(CLOCK_MONOTONIC, &P.started);
}

/* The session, as ld.offlink starts it: not for ld -r or a line without
 * inputs (the linker's alone), and not with the environment or the command
 * line unreadable. */
static enum ld_plugin_status start(void)
{
	struct ofl_error err = OFL_ERROR_INIT;
	if (P.relocatable || (P.c.o.host_cmd && !ofl_link_wanted(P.c.o.host_cmd, false)))
		return LDPS_OK;
	if (P.setup.code)
		return fail(&P.setup);
	/* the trace names the linker that loaded us; an offlink that runs
	 * the linker traces the link itself */
	const char *exe = P.cmdline && strrchr(P.cmdline, '/') ? strrchr(P.cmdline, '/') + 1
	                  : P.cmdline                          ? P.cmdline
	                                                       : "ld";
	char process[256];
	snprintf(process, sizeof(process), "%s + offlink plugin", exe);
	if (!P.c.o.chained && ofl_link_config_trace(&P.c, process, &err))
		return fail(&err);
	/* the linker that loaded us, by its real file, as ld.offlink tells
	 * the one it runs (bfd when /proc does not say) */
	P.c.o.host_linker =
	    ofl_host_linker_kind(&(struct ofl_host_linker_query){.choice = "/proc/self/exe"});
	return ofl_link_open(&P.link, &P.c.o, &err) ? fail(&err) : LDPS_OK;
}

static enum ld_plugin_status take(const struct ld_plugin_tv *tv)
{
	switch (tv->tv_tag) {
	case LDPT_MESSAGE:
		P.message = tv->tv_u.tv_message;
		break;
	case LDPT_LINKER_OUTPUT:
		P.relocatable = tv->tv_u.tv_val == LDPO_REL;
		break;
	case LDPT_OUTPUT_NAME:
		P.output = tv->tv_u.tv_string;
		break;
	case LDPT_ADD_INPUT_FILE:
		P.add_input_file = tv->tv_u.tv_add_input_file;
		break;
	case LDPT_ADD_INPUT_LIBRARY:
		P.add_input_library = tv->tv_u.tv_add_input_library;
		break;
	case LDPT_SET_EXTRA_LIBRARY_PATH:
		P.set_extra_library_path = tv->tv_u.tv_set_extra_library_path;
		break;
	case LDPT_REGISTER_CLAIM_FILE_HOOK:
		return tv->tv_u.tv_register_claim_file(claim_file);
	case LDPT_REGISTER_ALL_SYMBOLS_READ_HOOK:
		return tv->tv_u.tv_register_all_symbols_read(all_symbols_read);
	case LDPT_REGISTER_CLEANUP_HOOK:
		return tv->tv_u.tv_register_cleanup(cleanup);
	default:
		break;
	}
	return LDPS_OK;
}

enum ld_plugin_status onload(struct ld_plugin_tv *tv)
{
	enum ld_plugin_status rc = LDPS_OK;
	/* gold loads a plugin named twice (duplicated LDFLAGS) as one shared
	 * object and calls onload again over the same state: the first load
	 * does the work, the second registers nothing and takes nothing */
	if (P.loaded)
		return LDPS_OK;
	P.loaded = true;
	P.setup = (struct ofl_error)OFL_ERROR_INIT;
	/* the message callback first, whatever order the linker uses */
	for (const struct ld_plugin_tv *t = tv; t->tv_tag != LDPT_NULL; t++)
		if (t->tv_tag == LDPT_MESSAGE)
			P.message = t->tv_u.tv_message;
	for (; rc == LDPS_OK && tv->tv_tag != LDPT_NULL; tv++)
		rc = tv->tv_tag == LDPT_OPTION ? option(tv->tv_u.tv_string) : take(tv);
	if (rc == LDPS_OK && !P.add_input_file) {
		SAY(LDPL_FATAL, "offlink: this linker cannot add input files to a link");
		rc = LDPS_ERR;
	}
	read_command_line();
	environment();
	P.c.o.output = P.output;
	P.c.o.log = log_line;
	return rc == LDPS_OK ? start() : rc;
}
