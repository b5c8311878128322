/* What the link front ends make of ld.offlink's own options and of the
 * environment: the pipeline's options (offlink/link.h) and the storage
 * they point into.  ld.offlink (and the clang-linker-wrapper personality)
 * and the plugin read both through here, so a link decides the same
 * whichever front end runs it.  The front end passes its environment; the
 * library reads none itself. */
#ifndef OFFLINK_LINK_CONFIG_H
#define OFFLINK_LINK_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "offlink/api.h"
#include "offlink/argv.h"
#include "offlink/cache.h"
#include "offlink/error.h"
#include "offlink/jobserver.h"
#include "offlink/ldcmd.h"
#include "offlink/link.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* Zeroed: empty.  The front end sets what is its own in o (output,
 * host_cmd, log, a personality's options) and fills the lists directly
 * where its options are not ld.offlink's. */
struct ofl_link_config {
	struct ofl_link_opts o;
	/* what o points into (o's list pointers are set by
	 * ofl_link_config_env, once no list grows any more) */
	struct ofl_argv device_linker_args, device_compiler_args, launcher, probe_launcher, extract;
	struct ofl_argv lto_opts, mllvm;
	char *device_compiler;
	bool no_device_cache; /* --no-device-cache: o.cache stays NULL */
	bool opt_level_given; /* --device-opt-level: not the driver's, nor a plugin's O<n> */
	char plugin_level;    /* -plugin-opt=O<n>'s n (clang -flto's), '\0': none */
	char opt_level_why[PATH_MAX + 256]; /* o.opt_level_why's text */
	char **device_env;        /* the environment without the compiler driver's variables */
	struct ofl_argv user_env; /* under gcc, what the user gave gcc of them */
	struct ofl_cache_config cache;
	struct ofl_jobserver js; /* opened by ofl_link_config_env */
	bool env_read;
	/* --time-trace[=FILE] (or $OFFLINK_TIME_TRACE): the trace's file, NULL
	 * for <output>.time-trace.json; the trace itself is o.trace */
	bool time_trace;
	char *time_trace_file;
};

/* Takes one of ld.offlink's own options that the pipeline reads (words
 * copied): 0; 1 for any other argument (the front end's own: --offlink-
 * linker, --explain, --offlink-verbose, --offload-relocatable; or not
 * ld.offlink's at all); OFL_EINVAL for a bad value (-j: ofl_ld_jobs);
 * OFL_ENOMEM. */
int ofl_link_config_option(struct ofl_link_config *c, const struct ofl_ldarg *a,
                           struct ofl_error *err);

/* Once every option is taken: what o takes from env (NAME=value strings,
 * the front end's environment) and from the compiler driver that started
 * the link (driver: the process, getppid() of the linker, as
 * offlink/driver.h reads it): tmpdir ($TMPDIR), search_path ($PATH),
 * cuda_path unless set ($CUDA_PATH; with llvm_wrapper none, as LLVM's
 * wrapper reads none: PATH alone), the launcher unless an option gave one
 * ($OFFLINK_DEVICE_LAUNCHER, words split on blanks), the probe launcher
 * ($OFFLINK_PROBE_LAUNCHER, likewise), device_env (under
 * gcc, the variables gcc rewrites for its linker as the user gave them to
 * gcc, so that the device links see what a link clang drives sees), jobs and
 * the jobserver ($MAKEFLAGS, with o.jobs as the front end's -j), the
 * cache (the OFFLINK_CACHE* variables) unless no_device_cache, and a time
 * trace unless an option asked for one ($OFFLINK_TIME_TRACE: 1 for the
 * default file, else the file; empty or 0: none).  o then
 * points into c and env.  A cache setting that makes no sense is no
 * error: the cache is then off, and the link says why, once, where it
 * would have used it (ofl_cache_open's o->unusable), whichever front end
 * runs it.  An error (no memory) leaves all but the cache set. */
int ofl_link_config_env(struct ofl_link_config *c, char *const *env, pid_t driver,
                        struct ofl_error *err);

/* A time trace for the link, when one was asked for (c->time_trace): its
 * file (c->time_trace_file, by default o.output's, or a.out's, with
 * .time-trace.json added) checked writable before any work, the trace
 * (o.trace) started, its process and main track named process.  The
 * front end records its own steps in it and writes it (ofl_trace_write). */
int ofl_link_config_trace(struct ofl_link_config *c, const char *process, struct ofl_error *err);

/* Frees what c holds and closes the jobserver descriptor it opened. */
void ofl_link_config_release(struct ofl_link_config *c);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
