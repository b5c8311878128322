/* ld.offlink's own options and the environment, as both link front ends
 * read them (offlink/link_config.h). */
#include "offlink/link_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "offlink/driver.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

/* A launcher command: words split on blanks, like CMake's launchers. */
static int push_words(struct ofl_argv *v, const char *s, struct ofl_error *err)
{
	char *copy = ofl_strdup(s), *save = NULL;
	int rc = copy ? 0 : OFL_NOMEM(err);
	for (char *t = copy ? strtok_r(copy, " \t", &save) : NULL; t && !rc;
	     t = strtok_r(NULL, " \t", &save))
		rc = ofl_argv_push(v, t, err);
	free(copy);
	return rc;
}

/* A time trace into file (NULL: beside the output); the last one asked
 * for wins. */
static int time_trace(struct ofl_link_config *c, const char *file, struct ofl_error *err)
{
	free(c->time_trace_file);
	c->time_trace = true;
	c->time_trace_file = file ? ofl_strdup(file) : NULL;
	return file && !c->time_trace_file ? OFL_NOMEM(err) : 0;
}

/* "O0" to "O3": its digit, else '\0'. */
static char opt_level(const char *v)
{
	return v && v[0] == 'O' && v[1] >= '0' && v[1] <= '3' && !v[2] ? v[1] : '\0';
}

/* --device-partitions's value: "auto" (0) or a count from 1 to
 * OFL_MAX_PARTITIONS; false for anything else. */
static bool partitions(const char *v, unsigned *n)
{
	char *end;
	if (!strcmp(v, "auto")) {
		*n = 0;
		return true;
	}
	unsigned long k = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
	*n = (unsigned)k;
	return k && !*end && k <= OFL_MAX_PARTITIONS;
}

static int bad_partitions(const char *from, const char *v, struct ofl_error *err)
{
	return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
	                     "%s: expected 'auto' or a number of partitions from 1 to %d, got '%s'",
	                     from, OFL_MAX_PARTITIONS, v);
}

int ofl_link_config_option(struct ofl_link_config *c, const struct ofl_ldarg *a,
                           struct ofl_error *err)
{
	const char *v = a->value;
	/* the level clang's driver gives the LTO plugin (-flto -O3) is the
	 * device code's too, where the driver's own -O cannot be read
	 * (choose_opt_level); the host linker still gets it */
	if (a->opt == OFL_LD_PLUGIN_OPT && opt_level(v)) {
		c->plugin_level = opt_level(v);
		return 1;
	}
	switch (ofl_ldarg_is_own(a) ? a->opt : OFL_LD_UNKNOWN) {
	case OFL_LD_OWN_DEVICE_OPT_LEVEL:
		c->opt_level_given = true;
		if (!opt_level(v))
			return ofl_error_set(
			    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			    "--device-opt-level: expected O0, O1, O2 or O3, got '%s'", v);
		snprintf(c->o.opt_level, sizeof(c->o.opt_level), "%c", opt_level(v));
		return 0;
	case OFL_LD_OWN_DEVICE_PARTITIONS:
		c->o.device_partitions_from = "--device-partitions";
		return partitions(v, &c->o.device_partitions)
		           ? 0
		           : bad_partitions("--device-partitions", v, err);
	case OFL_LD_OWN_DEVICE_COMPILER:
		free(c->device_compiler);
		if (!(c->device_compiler = ofl_strdup(v)))
			return OFL_NOMEM(err);
		c->o.device_compiler = c->device_compiler;
		return 0;
	case OFL_LD_OWN_DEVICE_LINKER:
		return ofl_argv_push(&c->device_linker_args, v, err);
	case OFL_LD_OWN_DEVICE_LAUNCHER:
		return push_words(&c->launcher, v, err);
	case OFL_LD_OWN_OFFLOAD_EXTRACT:
		return ofl_argv_push(&c->extract, v, err);
	case OFL_LD_OWN_JOBS:
		if (!(c->o.jobs = ofl_ld_jobs(v)))
			return ofl_error_set(
			    err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
			    "-j: expected a number of jobs from 1 to 4096, got '%s'", v);
		return 0;
	case OFL_LD_OWN_DRY_RUN:
		c->o.dry_run = true;
		return 0;
	case OFL_LD_OWN_SAVE_TEMPS:
		c->o.save_temps = true;
		return 0;
	case OFL_LD_OWN_NOGPULIB:
		c->o.no_device_runtime = true;
		return 0;
	case OFL_LD_OWN_NO_BYPASS_WARNING:
		c->o.bypass_ok = true;
		return 0;
	case OFL_LD_OWN_NO_DEVICE_CACHE:
		c->no_device_cache = true;
		return 0;
	case OFL_LD_OWN_TIME_TRACE:
		return time_trace(c, v, err);
	default:
		return 1;
	}
}

/* The level clang's driver hands the device side for its -O<x> (as it is;
 * a bare -O as -O1), or NULL when x is no level clang takes. */
static const char *driver_level(const char *x)
{
	static const char *const named[] = {"s", "z", "g", "fast"};
	if (!*x)
		return "1";
	if (x[0] >= '0' && x[0] <= '9' && !x[1])
		return x;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(x, named[i]))
			return x;
	return NULL;
}

/* The device code's optimisation level, in this order: --device-opt-level
 * (the personality: its --opt-level, as clang hands it); the last -O of the
 * compiler driver's command line, which clang hands its device links but
 * not its linker (the personality: the driver passed it); -plugin-opt=O<n>
 * on the link line (clang's under -flto); else the default, and where the
 * driver is not clang, the log says that the level is not known. */
static void choose_opt_level(struct ofl_link_config *c, const struct ofl_driver *d)
{
	struct ofl_link_opts *o = &c->o;
	const char *x = o->llvm_wrapper ? NULL : ofl_driver_opt_level(d);
	const char *level = x ? driver_level(x) : NULL;
	const char *exe = d->exe ? d->exe : "unknown";
	char *why = c->opt_level_why;
	size_t n = sizeof(c->opt_level_why);
	o->opt_level_why = why;
	if (c->opt_level_given)
		snprintf(why, n, "device code optimisation: O%s, as %s gives it", o->opt_level,
		         o->llvm_wrapper ? "--opt-level" : "--device-opt-level");
	else if (level) {
		snprintf(o->opt_level, sizeof(o->opt_level), "%s", level);
		snprintf(why, n,
		         "device code optimisation: -O%s, the -O%s of the compiler driver (%s)",
		         level, x, exe);
	} else if (c->plugin_level) {
		snprintf(o->opt_level, sizeof(o->opt_level), "%c", c->plugin_level);
		snprintf(why, n, "device code optimisation: O%c, as -plugin-opt=O%c gives it",
		         c->plugin_level, c->plugin_level);
	} else if (o->llvm_wrapper)
		o->opt_level_why = NULL; /* the driver passes it, or none */
	else if (d->kind == OFL_DRIVER_CLANG)
		snprintf(why, n,
		         "device code optimisation: the default, as the compiler driver (%s) was "
		         "given no -O",
		         exe);
	else
		snprintf(
		    why, n,
		    "device code optimisation: not known, as what started the link (%s) is not "
		    "clang, which hands its -O to the device links but not to its linker: the "
		    "default (LLVM 19: O2; LLVM 20+: the device clang's own); "
		    "--device-opt-level=O<n> gives it",
		    exe);
}

/* The bytes of /proc/<pid>/<what>, at most 1 MiB (an environment's most is
 * ARG_MAX's share); none when it cannot be read. */
static int proc_file(pid_t pid, const char *what, struct ofl_buf *b, struct ofl_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	for (char chunk[4096]; fd >= 0 && !rc && b->len < ((size_t)1 << 20);) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rc = ofl_buf_append(b, chunk, (size_t)n) ? OFL_NOMEM(err) : 0;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The parent of process pid, 0 when unknown: the field after the ')' that
 * ends the program's name in /proc/<pid>/stat (a name may hold any byte). */
static pid_t parent_of(pid_t pid, struct ofl_error *err)
{
	struct ofl_buf b = OFL_BUF_INIT;
	int ppid = 0;
	if (!proc_file(pid, "stat", &b, err) && !ofl_buf_append(&b, "", 1)) {
		const char *end = strrchr((const char *)b.data, ')');
		if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
			ppid = 0;
	}
	ofl_buf_release(&b);
	return ppid;
}

/* The device links' environment.  gcc rewrites LIBRARY_PATH (its own
 * folders among the user's), COMPILER_PATH and GCC_EXEC_PREFIX for its
 * linker and adds COLLECT_* (ofl_proc_env_without_driver leaves them
 * out); the device links get the values the user gave gcc, from the
 * environment gcc started with (collect2, the linker's parent, is gcc's
 * child), as a link clang drives passes them on: nvlink gets the same -L
 * folders (LIBRARY_PATH's), which it records in the cubin, whichever
 * driver and front end run the link. */
static int device_env(struct ofl_link_config *c, char *const *env, const struct ofl_driver *d,
                      pid_t linker_parent, struct ofl_error *err)
{
	static const char *const rewritten[] = {
	    "LIBRARY_PATH=", "COMPILER_PATH=", "GCC_EXEC_PREFIX="};
	char **kept = ofl_proc_env_without_driver(env);
	size_t n = 0;
	while (kept && kept[n])
		n++;
	struct ofl_buf user = OFL_BUF_INIT;
	pid_t gcc = kept && d->kind == OFL_DRIVER_GCC ? parent_of(linker_parent, err) : 0;
	int rc = gcc > 0 ? proc_file(gcc, "environ", &user, err) : err->code;
	char **out = kept ? ofl_realloc(kept, (n + 4) * sizeof(*out)) : NULL;
	if (kept && !out) {
		free(kept);
		rc = rc ? rc : OFL_NOMEM(err);
	}
	for (size_t at = 0; !rc && out && at < user.len;) {
		const char *var = (const char *)user.data + at;
		size_t len = strnlen(var, user.len - at);
		for (size_t i = 0; !rc && len < user.len - at && i < 3; i++)
			if (!strncmp(var, rewritten[i], strlen(rewritten[i])) &&
			    !(rc = ofl_argv_push(&c->user_env, var, err)))
				out[n++] = c->user_env.v[c->user_env.n - 1];
		at += len + 1;
	}
	if (out)
		out[n] = NULL;
	ofl_buf_release(&user);
	c->device_env = out;
	c->o.device_env = out ? out : env;
	return rc;
}

int ofl_link_config_env(struct ofl_link_config *c, char *const *env, pid_t driver,
                        struct ofl_error *err)
{
	struct ofl_link_opts *o = &c->o;
	const char *tmp = ofl_proc_env_get(env, "TMPDIR");
	const char *launcher = ofl_proc_env_get(env, "OFFLINK_DEVICE_LAUNCHER");
	const char *probe = ofl_proc_env_get(env, "OFFLINK_PROBE_LAUNCHER");
	o->launcher_env = ofl_proc_env_get(env, "OFFLINK_DEVICE_LAUNCHER_ENV");
	const char *quiet = ofl_proc_env_get(env, "OFFLINK_NO_BYPASS_WARNING");
	o->bypass_ok |= quiet && !strcmp(quiet, "1");
	const char *chain = ofl_proc_env_get(env, "OFFLINK_LINKER_CHAIN");
	o->chained = chain && *chain;
	o->tmpdir = tmp && *tmp ? tmp : NULL; /* NULL: ofl_link_new's /tmp */
	o->search_path = ofl_proc_env_get(env, "PATH");

	if (!o->cuda_path)
		o->cuda_path = o->llvm_wrapper ? "" : ofl_proc_env_get(env, "CUDA_PATH");
	struct ofl_driver d = OFL_DRIVER_INIT;
	int rc = ofl_driver_read(driver, &d, err);
	rc = rc ? rc : device_env(c, env, &d, driver, err);
	const char *mem = ofl_proc_env_get(env, "OFFLINK_DEVICE_MEMORY");
	if (!rc && mem && *mem && (rc = ofl_cache_parse_size(mem, &o->device_memory, err)))
		ofl_error_prefix(err, "OFFLINK_DEVICE_MEMORY");
	/* the option wins over the variable */
	const char *parts = ofl_proc_env_get(env, "OFFLINK_DEVICE_PARTITIONS");
	if (!rc && parts && *parts && !o->device_partitions_from) {
		o->device_partitions_from = "OFFLINK_DEVICE_PARTITIONS";
		if (!partitions(parts, &o->device_partitions))
			rc = bad_partitions("OFFLINK_DEVICE_PARTITIONS", parts, err);
	}
	choose_opt_level(c, &d);
	ofl_driver_release(&d);
	/* a descriptor opened here lives until ofl_link_config_release */
	ofl_jobserver_open(&c->js, ofl_proc_env_get(env, "MAKEFLAGS"), o->jobs);
	c->env_read = true;
	o->jobs = c->js.jobs;
	o->jobserver_rfd = c->js.rfd;
	o->jobserver_wfd = c->js.wfd;
	if (!rc && !c->launcher.n && launcher)
		rc = push_words(&c->launcher, launcher, err);
	if (!rc && probe)
		rc = push_words(&c->probe_launcher, probe, err);
	o->device_linker_args = (const char *const *)c->device_linker_args.v;
	o->ndevice_linker_args = c->device_linker_args.n;
	o->device_compiler_args = (const char *const *)c->device_compiler_args.v;
	o->ndevice_compiler_args = c->device_compiler_args.n;
	o->launcher = (const char *const *)c->launcher.v;
	o->nlauncher = c->launcher.n;
	o->probe_launcher = (const char *const *)c->probe_launcher.v;
	o->nprobe_launcher = c->probe_launcher.n;
	o->extract_archs = (const char *const *)c->extract.v;
	o->nextract_archs = c->extract.n;
	o->lto_opts = (const char *const *)c->lto_opts.v;
	o->nlto_opts = c->lto_opts.n;
	o->mllvm = (const char *const *)c->mllvm.v;
	o->nmllvm = c->mllvm.n;
	const char *trace = ofl_proc_env_get(env, "OFFLINK_TIME_TRACE");
	if (!rc && !c->time_trace && trace && *trace && strcmp(trace, "0"))
		rc = time_trace(c, strcmp(trace, "1") ? trace : NULL, err);
	rc = rc ? rc : ofl_cache_config_from_env(env, &c->cache, err);
	if (!rc && c->cache.enabled && !c->no_device_cache)
		o->cache = &c->cache.opts;
	return rc;
}

int ofl_link_config_trace(struct ofl_link_config *c, const char *process, struct ofl_error *err)
{
	if (!c->time_trace)
		return 0;
	if (!c->time_trace_file && asprintf(&c->time_trace_file, "%s.time-trace.json",
	                                    c->o.output ? c->o.output : "a.out") < 0) {
		c->time_trace_file = NULL;
		return OFL_NOMEM(err);
	}
	int rc = ofl_trace_writable(c->time_trace_file, err);
	return rc ? rc : ofl_trace_new(&c->o.trace, process, err);
}

void ofl_link_config_release(struct ofl_link_config *c)
{
	ofl_trace_free(c->o.trace);
	free(c->time_trace_file);
	ofl_argv_release(&c->device_linker_args);
	ofl_argv_release(&c->device_compiler_args);
	ofl_argv_release(&c->launcher);
	ofl_argv_release(&c->probe_launcher);
	ofl_argv_release(&c->extract);
	ofl_argv_release(&c->lto_opts);
	ofl_argv_release(&c->mllvm);
	free(c->device_compiler);
	free(c->device_env);
	ofl_argv_release(&c->user_env);
	ofl_cache_config_release(&c->cache);
	if (c->env_read)
		ofl_jobserver_close(&c->js);
	*c = (struct ofl_link_config){0};
}
