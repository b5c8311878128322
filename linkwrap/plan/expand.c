/* What a device action runs (link_priv.h, ofl_expand).  clang's driver
 * only picks the commands a device link runs (ld.lld with the crt files,
 * library folders and LTO options it adds; clang-nvlink-wrapper, after
 * ptxas for LLVM 19's assembly); running them ourselves spares the
 * driver's start-up on every device link and lets the key see every word
 * and file.  The driver says what it would run (`clang -###`, which runs
 * nothing); its answer depends on the command's shape, not on the link's
 * temporary names, so it is asked once per shape, with placeholders for
 * them, and the answer is kept in the cache's directory under a key of
 * everything the driver reads to decide (driver_memo.c). */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_priv.h"
#include "driver_memo.h"
#include "internal.h"
#include "link_priv.h"
#include "loads.h"
#include "rsp.h"

/* The clang words the plan models: what offlink's own device links are
 * made of, and the usual options a user gives with --device-compiler.
 * Anything else (-B, --config, --sysroot, --gcc-toolchain, a response
 * file, a profile or list file) changes what the driver reads in ways the
 * driver model does not see. */
static bool modeled_word(const char *w, const char *prev)
{
	static const char *const with_value[] = {"-o", "-dumpdir", "-Xlinker", "-x", "-mllvm"};
	static const char *const flags[] = {
	    "--no-default-config", "-shared", "-flto",    "-flto=full",
	    "-flto=thin",          "-v",      "-nogpulib", "--sycl-link"};
	static const char *const prefixes[] = {
	    "--target=",    "-march=",           "-mcpu=", "-O", "-Wl,", "-L", "-l",
	    "--cuda-path=", "-flto-partitions=", "-g"};
	for (size_t i = 0; prev && i < sizeof(with_value) / sizeof(*with_value); i++)
		if (!strcmp(prev, with_value[i]))
			return true;
	if (w[0] != '-')
		return true; /* an input, forwarded to the job */
	for (size_t i = 0; i < sizeof(with_value) / sizeof(*with_value); i++)
		if (!strcmp(w, with_value[i]))
			return true;
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++)
		if (!strcmp(w, flags[i]))
			return true;
	if (!strncmp(w, "-fuse-ld=", 9))
		return !strchr(w, '/');
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(w, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The first word of a's clang command the plan does not model, or NULL. */
static const char *unmodeled(const struct ofl_link *l, const struct link_action *a)
{
	for (size_t i = l->o.nlauncher + 1; i < a->cmd.argc; i++)
		if (!modeled_word(a->cmd.argv[i],
		                  i > l->o.nlauncher + 1 ? a->cmd.argv[i - 1] : NULL))
			return a->cmd.argv[i];
	return NULL;
}

/* A word of a's command asking a device tool for its verbose output
 * (clang's -v, the linker's -v or --verbose), or NULL: what the tools
 * write then is the point, so they run as given, each time. */
static const char *verbose_request(const struct ofl_link *l, const struct link_action *a)
{
	static const char *const words[] = {"-v", "--verbose", "-Wl,-v", "-Wl,--verbose"};
	for (size_t i = l->o.nlauncher + 1; i < a->cmd.argc; i++)
		for (size_t k = 0; k < sizeof(words) / sizeof(*words); k++)
			if (!strcmp(a->cmd.argv[i], words[k]) &&
			    (k != 1 || !strcmp(a->cmd.argv[i - 1], "-Xlinker")))
				return a->cmd.argv[i];
	return NULL;
}

static bool is_clang(const char *prog)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	return !strncmp(base, "clang", 5);
}

static int set_uncached(struct link_action *a, struct ofl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_uncached(struct link_action *a, struct ofl_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(a->uncached);
	int n = vasprintf(&a->uncached, fmt, ap);
	va_end(ap);
	if (n < 0) {
		a->uncached = NULL;
		return OFL_NOMEM(err);
	}
	return 0;
}

/* The command's own words, as the one job (no launcher). */
static int own_job(const struct ofl_link *l, struct link_action *a, struct ofl_error *err)
{
	if (!(a->jobs = ofl_calloc(1, sizeof(*a->jobs))))
		return OFL_NOMEM(err);
	a->njobs = 1;
	int rc = 0;
	for (size_t i = l->o.nlauncher; !rc && i < a->cmd.argc; i++)
		rc = ofl_argv_push(&a->jobs[0], a->cmd.argv[i], err);
	return rc;
}

/* ---- the driver asked -------------------------------------------------- */

/* The index of the link's own file w names (a word of the command that
 * lies in the link's directory), or -1. */
static long own_index(const struct ofl_link *l, const struct link_action *a, size_t from,
                      const char *w)
{
	if (!ofl_link_owns(l, w))
		return -1;
	for (size_t i = from; i < a->cmd.argc; i++)
		if (!strcmp(a->cmd.argv[i], w))
			return (long)(i - from);
	return -1;
}

/* The placeholder of own file i (base its name) in the probe's folder: a
 * name of the same extension (the driver reads inputs by theirs). */
static char *placeholder(const char *probe, size_t i, const char *base)
{
	const char *dot = strchr(base, '.');
	char *p = NULL;
	return asprintf(&p, "%s/p%zu%s", probe, i, dot ? dot : "") < 0 ? NULL : p;
}

/* The driver's key, for --explain and the audit (scripts/cache-audit
 * checks what the probe looks at against it). */
static void log_probe(struct ofl_link *l, const struct link_action *a, const struct ofl_argv *items)
{
	ofl_link_logf(l, OFL_LOG_DECISION, "driver probe: %s/probe-%zu (%s)", l->tmpdir,
	              (size_t)(a - l->actions), a->what);
	for (size_t i = 0; i < items->n; i++)
		ofl_link_logf(l, OFL_LOG_DECISION, "  driver key %s", items->v[i]);
}

/* Asks clang: its jobs for the shape (own files as placeholders in a
 * probe folder of the link's), into m. */
static int probe(struct ofl_link *l, struct link_action *a, const struct ofl_argv *shape,
                 struct ofl_buf *m, struct ofl_error *err)
{
	char name[32];
	snprintf(name, sizeof(name), "probe-%zu", (size_t)(a - l->actions));
	char *dir = ofl_link_temp(l, name, err);
	if (!dir)
		return err->code;
	if (mkdir(dir, 0700))
		return ofl_error_errno(err, dir, "cannot make a folder");
	struct ofl_proc p = OFL_PROC_INIT;
	char *tmpdir = NULL;
	size_t nenv = 0;
	while (a->env[nenv])
		nenv++;
	char **env = ofl_calloc(nenv + 2, sizeof(*env));
	int rc = env && asprintf(&tmpdir, "TMPDIR=%s", dir) >= 0 ? 0 : OFL_NOMEM(err);
	for (size_t i = 0, k = 0; !rc && i < nenv; i++)
		if (strncmp(a->env[i], "TMPDIR=", 7))
			env[k++] = a->env[i], env[k] = tmpdir;
	p.envp = env;
	/* under the probe's launcher (scripts/cache-audit traces it) */
	p.search_path = true;
	for (size_t i = 0; !rc && i < l->o.nprobe_launcher; i++)
		rc = ofl_proc_push(&p, l->o.probe_launcher[i], err);
	for (size_t i = 0; !rc && i < shape->n; i++) {
		const char *w = shape->v[i];
		char *ph = w[0] == OFL_MEMO_OWN
		               ? placeholder(dir, (size_t)atol(w + 1), strchr(w, ':') + 1)
		               : NULL;
		if (w[0] == OFL_MEMO_OWN && (!ph || ofl_write_file(ph, "", 0, err)))
			rc = ph ? err->code : OFL_NOMEM(err);
		rc = rc ? rc : ofl_proc_push(&p, ph ? ph : w, err);
		free(ph);
	}
	rc = rc ? rc : ofl_proc_push(&p, "-###", err);
	struct ofl_error failed = OFL_ERROR_INIT;
	if (!rc && ofl_proc_run(&p, &failed))
		rc = 1;
	struct ofl_argv temps = OFL_ARGV_INIT;
	if (!rc && (ofl_buf_append(&p.err, "", 1) ||
	            ofl_memo_of((const char *)p.err.data, dir, shape, &temps, m)))
		rc = 1;
	ofl_argv_release(&temps);
	ofl_proc_release(&p);
	free(tmpdir);
	free(env);
	return rc;
}

/* The command's shape: its words after the launcher, the link's own files
 * as OFL_MEMO_OWN <k>:p<extension> (k the index of the word naming it first). */
static int shape_of(const struct ofl_link *l, const struct link_action *a, struct ofl_argv *shape,
                    struct ofl_error *err)
{
	size_t from = l->o.nlauncher;
	int rc = 0;
	for (size_t i = from; !rc && i < a->cmd.argc; i++) {
		const char *w = a->cmd.argv[i];
		long k = own_index(l, a, from, w);
		char *s = NULL;
		if (k < 0) {
			rc = ofl_argv_push(shape, w, err);
			continue;
		}
		/* its name is its bytes' hash: the extension alone tells the
		 * driver what it is */
		const char *dot = strchr(strrchr(w, '/') + 1, '.');
		if (asprintf(&s, "%c%ld:p%s", OFL_MEMO_OWN, k, dot ? dot : "") < 0)
			return OFL_NOMEM(err);
		rc = ofl_argv_push(shape, s, err);
		free(s);
	}
	return rc;
}

int ofl_expand(struct ofl_link *l, struct link_action *a, struct ofl_error *err)
{
	const char *clang = a->cmd.argv[l->o.nlauncher], *bad = unmodeled(l, a);
	const char *triple = l->groups[a->group].clang_triple;
	/* without a cache or in a dry run, clang runs its jobs itself, unless
	 * the plan reads them (a->expand) */
	if (((!l->cache || l->o.dry_run) && !a->expand) || !is_clang(clang) || !strchr(clang, '/'))
		return own_job(l, a, err);
	const char *verbose = verbose_request(l, a);
	if (verbose)
		return set_uncached(a, err,
		                    "'%s' asks the device tools for their verbose output: they "
		                    "run as given, each time",
		                    verbose) ||
		       own_job(l, a, err);
	if (bad)
		return set_uncached(a, err,
		                    "the device compiler word '%s' is not one offlink models",
		                    bad) ||
		       own_job(l, a, err);
	if (ofl_proc_env_get(a->env, "CCC_OVERRIDE_OPTIONS"))
		return set_uncached(a, err, "CCC_OVERRIDE_OPTIONS changes clang's command line") ||
		       own_job(l, a, err);
	if (ofl_launcher_elsewhere(l))
		return own_job(l, a, err); /* said by ofl_declare */
	struct ofl_argv shape = OFL_ARGV_INIT, items = OFL_ARGV_INIT;
	struct ofl_file memo = OFL_FILE_INIT;
	struct ofl_buf fresh = OFL_BUF_INIT;
	uint8_t key[OFL_CACHE_KEY_SIZE];
	bool settled = false;
	int rc = shape_of(l, a, &shape, err);
	rc = rc ? rc : ofl_driver_key(l, a, &shape, clang, triple, key, &items, &settled, err);
	if (rc == 1) {
		/* clang would read a FIFO or a device, or nest too deep */
		ofl_argv_release(&shape);
		ofl_argv_release(&items);
		return set_uncached(a, err,
		                    "a response file that is no regular file, or nested "
		                    "too deep") ||
		       own_job(l, a, err);
	}
	bool known = !rc && l->cache && ofl_cache_memo_get(l->cache, key, &memo);
	if (!rc && !known)
		log_probe(l, a, &items);
	int asked = rc || known ? 0 : probe(l, a, &shape, &fresh, err);
	/* kept once what it was asked about has settled: a change within the
	 * clock's tick would leave the key as it was */
	if (asked == 0 && !rc && !known && settled && l->cache)
		ofl_cache_memo_put(l->cache, key, fresh.data, fresh.len);
	const uint8_t *m = known ? memo.data : fresh.data;
	size_t n = known ? memo.size : fresh.len;
	int got = rc || asked ? 1
	                      : ofl_memo_jobs(m, n, a->cmd.argv + l->o.nlauncher,
	                                      a->cmd.argc - l->o.nlauncher, a->output, &a->jobs,
	                                      &a->njobs, err);
	if (got < 0)
		rc = got;
	else if (got > 0 && !rc)
		rc = set_uncached(a, err, "clang's driver did not say what it runs (-###)") ||
		     own_job(l, a, err);
	ofl_file_close(&memo);
	ofl_buf_release(&fresh);
	ofl_argv_release(&shape);
	ofl_argv_release(&items);
	return rc;
}
