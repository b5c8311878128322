/* One device action run (docs/design.md, "Device links", "Device-link
 * cache"): the cache asked under the action's key (key.c); on a miss its
 * inputs written, its jobs run with its environment (the launcher in
 * front), its output stored, unless a file it declared changed while it
 * ran. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "run_priv.h"
#include "offlink/io.h"
#include "offlink/proc.h"
#include "offlink/trace.h"

static int write_private(const char *path, const uint8_t *p, uint64_t n, struct ofl_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : ofl_error_errno(err, path, "cannot create");
	if (ofl_fd_write_all(fd, p, (size_t)n)) {
		int rc = ofl_error_errno(err, path, "cannot write");
		close(fd);
		return rc;
	}
	return close(fd) ? ofl_error_errno(err, path, "cannot write") : 0;
}

/* Writes the pending inputs of group gi that a job's words name, those
 * not written yet (no other job may read them).  Their bytes stay to the
 * link's end: another action's key reads them (key.c). */
static int flush_inputs(struct ofl_link *l, size_t gi, const struct ofl_argv *cmd,
                        struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	size_t next = 0;
	int rc = 0;
	/* under the lock: another action (this group's partitions, another
	 * group's: inputs are named by their bytes) may write the same file */
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; !rc && i < cmd->n; i++) {
		struct pending_write *w = ofl_devlink_pending(g, cmd->v[i], &next);
		if (w && !w->written) {
			rc = write_private(w->path, w->data, w->size, err);
			w->written = true;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

double ofl_devlink_elapsed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* An entry being written while the link goes on (the wrapper, the host
 * link): its output, the link's kept one or read for the cache alone. */
struct store {
	struct ofl_cache *cache;
	uint8_t key[OFL_CACHE_KEY_SIZE];
	struct ofl_file own;
	const struct ofl_file *image; /* own, or the link's */
	pthread_t thread;
	char note[512];
	struct ofl_trace *trace;
	unsigned track; /* its own: it runs on while the link goes on */
};

/* The start of a key in hex, as the cache's entry names begin. */
#define SHORT_KEY 12
static void short_key(const uint8_t *key, char hex[SHORT_KEY + 1])
{
	ofl_hex(key, SHORT_KEY / 2, hex);
}

static void *write_entry(void *arg)
{
	struct store *s = arg;
	const struct iovec part = {(void *)s->image->data, s->image->size};
	uint64_t begin = ofl_trace_now(s->trace);
	ofl_cache_put(s->cache, s->key, &part, 1, s->note, sizeof(s->note));
	char hex[SHORT_KEY + 1];
	short_key(s->key, hex);
	struct ofl_trace_arg args[] = {
	    {"key", hex, 0}, {"bytes", NULL, (long long)s->image->size}, {"failed", s->note, 0}};
	ofl_trace_span(s->trace, s->track, "cache store", begin, args, *s->note ? 3 : 2);
	return NULL;
}

/* A store's failure said, and its bytes let go. */
static void end_store(struct ofl_link *l, struct store *s)
{
	if (*s->note)
		ofl_link_logf(l, OFL_LOG_WARNING, "%s", s->note);
	ofl_file_close(&s->own);
	free(s);
}

/* The entry of an action that ran into the cache under key: the image
 * mapped, not copied, written on a thread of its own, so that the link
 * does not wait for the store's disk or the remote. */
static void store(struct ofl_link *l, const struct link_action *a, const uint8_t *key,
                  const char *path, const struct ofl_file *kept)
{
	struct store *s = ofl_calloc(1, sizeof(*s));
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!s)
		return;
	*s = (struct store){.cache = l->cache,
	                    .own = OFL_FILE_INIT,
	                    .image = kept ? kept : &s->own,
	                    .trace = l->o.trace};
	memcpy(s->key, key, sizeof(s->key));
	if (s->trace) {
		char name[sizeof(a->what) + 16];
		snprintf(name, sizeof(name), "%s: cache store", a->what);
		s->track = ofl_trace_track(s->trace, name);
	}
	if (kept || !ofl_file_open(&s->own, path, &ignored)) {
		pthread_mutex_lock(&l->lock);
		bool apart = !OFL_GROW(l->stores, l->capstores, l->nstores) &&
		             !pthread_create(&s->thread, NULL, write_entry, s);
		if (apart)
			l->stores[l->nstores++] = s;
		pthread_mutex_unlock(&l->lock);
		if (apart)
			return;
		write_entry(s);
	}
	end_store(l, s);
}

void ofl_link_wait(struct ofl_link *l)
{
	for (size_t i = 0; i < l->nstores; i++) {
		pthread_join(l->stores[i]->thread, NULL);
		end_store(l, l->stores[i]);
	}
	free(l->stores);
	l->stores = NULL;
	l->nstores = l->capstores = 0;
	ofl_cache_close(l->cache);
	l->cache = NULL;
}

/* A hit's entry: its image as keep (when not NULL), written to output when
 * a later command reads the file; false: a miss. */
static bool use_hit(const char *output, bool file, struct ofl_file *entry, struct ofl_file *keep)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (file && write_private(output, entry->data, entry->size, &ignored))
		return false;
	if (keep) {
		*keep = *entry;
		*entry = (struct ofl_file)OFL_FILE_INIT;
	}
	return true;
}

/* The key of the k-th of an action's other outputs (llvm-split's
 * partitions): each its own entry. */
static void more_key(const uint8_t *key, size_t k, uint8_t out[OFL_CACHE_KEY_SIZE])
{
	struct ofl_cache_key h;
	char n[32];
	snprintf(n, sizeof(n), "%zu", k);
	ofl_key_init(&h);
	ofl_key_bytes(&h, "action", key, OFL_CACHE_KEY_SIZE);
	ofl_key_str(&h, "output", n);
	ofl_key_final(&h, out);
}

/* A's other outputs from the cache, each written: all there, or a miss. */
static bool more_hits(struct ofl_link *l, const struct link_action *a, const uint8_t *key,
                      char *note, size_t notesz)
{
	bool all = true;
	for (size_t k = 0; all && k < a->nmore; k++) {
		uint8_t mk[OFL_CACHE_KEY_SIZE];
		struct ofl_file e = OFL_FILE_INIT;
		struct ofl_error ignored = OFL_ERROR_INIT;
		more_key(key, k, mk);
		all = ofl_cache_get(l->cache, mk, &e, note, notesz) != OFL_CACHE_MISS &&
		      !write_private(a->more[k], e.data, e.size, &ignored);
		ofl_file_close(&e);
	}
	return all;
}

static bool cancelled(struct ofl_link *l)
{
	return __atomic_load_n(&l->cancelled, __ATOMIC_SEQ_CST);
}

/* A job's span on its action's track, named after its tool: its command
 * (the launcher's too), its exit status once it ran (-1: killed), what
 * went wrong. */
static void trace_job(struct ofl_link *l, const struct link_action *a, const struct ofl_argv *job,
                      const struct ofl_proc *p, const struct ofl_error *err, uint64_t begin)
{
	if (!l->o.trace)
		return;
	const char *tool = strrchr(job->v[0], '/') ? strrchr(job->v[0], '/') + 1 : job->v[0];
	struct ofl_buf cmd = OFL_BUF_INIT;
	bool shown = !ofl_proc_format(p->argv, p->argc, false, &cmd);
	struct ofl_trace_arg args[3] = {{"command", shown ? (const char *)cmd.data : job->v[0], 0}};
	size_t n = 1;
	/* one that could not start has no status */
	if (!err || p->status)
		args[n++] = (struct ofl_trace_arg){"status", NULL, p->status};
	if (err)
		args[n++] = (struct ofl_trace_arg){"error", err->msg, 0};
	ofl_trace_span(l->o.trace, a->track, tool, begin, args, n);
	ofl_buf_release(&cmd);
}

/* The action's jobs run in turn (the launcher in front of each, its
 * environment), the files each names written first; *failed the one that
 * failed, whose output a report shows. */
static int run(struct ofl_link *l, struct link_action *a, int *slot, struct ofl_proc *failed,
               struct ofl_error *err)
{
	int rc = 0;
	for (size_t j = 0; !rc && j < a->njobs; j++) {
		struct ofl_proc p = OFL_PROC_INIT;
		p.envp = a->env;
		p.running = slot;
		p.stop = &l->cancelled;
		p.search_path = true;
		/* verbose: what a tool prints on stdout too (ld.lld -v) */
		p.capture_stdout = l->o.verbose;
		for (size_t i = 0; !rc && i < l->o.nlauncher; i++)
			rc = ofl_proc_push(&p, l->o.launcher[i], err);
		for (size_t i = 0; !rc && i < a->jobs[j].n; i++)
			rc = ofl_proc_push(&p, a->jobs[j].v[i], err);
		rc = rc ? rc : flush_inputs(l, a->group, &a->jobs[j], err);
		if (!rc) {
			uint64_t begin = ofl_trace_now(l->o.trace);
			rc = ofl_proc_run(&p, err);
			trace_job(l, a, &a->jobs[j], &p, rc ? err : NULL, begin);
		}
		ofl_proc_release(failed);
		*failed = p; /* the last's output, or the failure's */
	}
	return rc;
}

/* What the cache did for an action, for its progress line and trace. */
static const char *cache_said(enum ofl_cache_hit hit, bool cacheable)
{
	return hit == OFL_CACHE_LOCAL    ? "cache hit"
	       : hit == OFL_CACHE_REMOTE ? "cache hit (remote)"
	       : cacheable               ? "cache miss"
	                                 : "not cached";
}

/* Action a's key, a span of its track. */
static bool keyed(struct ofl_link *l, const struct link_action *a, uint8_t key[OFL_CACHE_KEY_SIZE],
                  struct stat **seen)
{
	uint64_t begin = ofl_trace_now(l->o.trace);
	bool ok = !ofl_action_key(l, a, key, seen);
	ofl_trace_span(l->o.trace, a->track, "key", begin, NULL, 0);
	return ok;
}

/* A span of action a's track (the cache's lookup, the action whole) with
 * what the cache did: the key's start (NULL: none), and why it is not
 * cached when the plan says. */
static void trace_cache(struct ofl_link *l, const struct link_action *a, const char *name,
                        const uint8_t *key, const char *said, uint64_t begin)
{
	char hex[SHORT_KEY + 1];
	struct ofl_trace_arg args[3] = {{"cache", said, 0}};
	size_t n = 1;
	if (!l->o.trace)
		return;
	if (key) {
		short_key(key, hex);
		args[n++] = (struct ofl_trace_arg){"key", hex, 0};
	}
	if (a->uncached)
		args[n++] = (struct ofl_trace_arg){"why not cached", a->uncached, 0};
	ofl_trace_span(l->o.trace, a->track, name, begin, args, n);
}

/* The outputs a's jobs did not write, written with a->fill. */
static int fill(const struct link_action *a, struct ofl_error *err)
{
	int rc = 0;
	size_t n = a->fill ? strlen(a->fill) : 0;
	for (size_t k = 0; !rc && a->fill && k <= a->nmore; k++)
		rc =
		    write_private(k ? a->more[k - 1] : a->output, (const uint8_t *)a->fill, n, err);
	return rc;
}

static int cached_run(struct ofl_link *l, struct link_action *a, struct ofl_file *keep, int *slot,
                      struct ofl_proc *failed, struct ofl_error *err)
{
	uint8_t key[OFL_CACHE_KEY_SIZE];
	char note[512] = "";
	struct ofl_file entry = OFL_FILE_INIT;
	struct stat *seen = NULL;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t begin = ofl_trace_now(l->o.trace);
	bool cacheable = l->cache && !a->uncached && keyed(l, a, key, &seen);
	uint64_t asked = ofl_trace_now(l->o.trace);
	enum ofl_cache_hit hit =
	    cacheable ? ofl_cache_get(l->cache, key, &entry, note, sizeof(note)) : OFL_CACHE_MISS;
	if (hit != OFL_CACHE_MISS && (!use_hit(a->output, a->file, &entry, keep) ||
	                              !more_hits(l, a, key, note, sizeof(note))))
		hit = OFL_CACHE_MISS; /* run it, then */
	const char *said = cache_said(hit, cacheable);
	if (cacheable)
		trace_cache(l, a, "cache lookup", key, said, asked);
	/* the cache's own time, apart from the command's */
	double cache_s = ofl_devlink_elapsed(&t0);
	int rc = 0;
	if (hit == OFL_CACHE_MISS) {
		rc = run(l, a, slot, failed, err);
		rc = rc ? rc : fill(a, err);
		/* a kept output is the link's, read cached or not */
		rc = rc || !keep ? rc : ofl_file_open(keep, a->output, err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc && cacheable && ofl_action_unchanged(l, a, seen)) {
			store(l, a, key, a->output, keep);
			for (size_t k = 0; k < a->nmore; k++) {
				uint8_t mk[OFL_CACHE_KEY_SIZE];
				more_key(key, k, mk);
				store(l, a, mk, a->more[k], NULL);
			}
		} else if (!rc && cacheable)
			ofl_link_logf(l, OFL_LOG_DECISION,
			              "%s: not stored: a file it reads changed while it ran",
			              a->what);
		cache_s += ofl_devlink_elapsed(&t1);
	}
	if (*note)
		ofl_link_logf(l, OFL_LOG_WARNING, "%s", note);
	__atomic_fetch_add(&l->nlinked, 1, __ATOMIC_SEQ_CST);
	if (hit != OFL_CACHE_MISS)
		__atomic_fetch_add(&l->ncached, 1, __ATOMIC_SEQ_CST);
	if (!rc)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%s: %.2f s, %s (cache %.1f ms)", a->what,
		              ofl_devlink_elapsed(&t0), said, cache_s * 1e3);
	trace_cache(l, a, a->what, cacheable ? key : NULL, said, begin);
	free(seen);
	ofl_file_close(&entry);
	return rc;
}

int ofl_devlink_exec(struct ofl_link *l, struct link_action *a, struct ofl_file *keep, int *slot,
                     struct ofl_error *err)
{
	char *log = ofl_link_log_command(l, &a->cmd);
	struct ofl_proc ran = OFL_PROC_INIT;
	int rc = 0;
	if (!l->o.dry_run && !cancelled(l))
		rc = cached_run(l, a, keep, slot, &ran, err);
	/* the tool's own lines under the command, as they would show had it
	 * written to the terminal */
	if (!rc && l->o.verbose && ran.err.len)
		ofl_link_logf(l, OFL_LOG_OUTPUT, "%.*s", (int)ran.err.len,
		              (const char *)ran.err.data);
	if (!rc && l->o.verbose && ran.out.len)
		ofl_link_logf(l, OFL_LOG_OUTPUT, "%.*s", (int)ran.out.len,
		              (const char *)ran.out.data);
	/* killed by ofl_link_cancel: no failure to report */
	if (rc && !cancelled(l))
		ofl_devlink_report(l, a->group, a->what, ran.argc ? &ran : &a->cmd, log);
	ofl_proc_release(&ran);
	free(log);
	return rc;
}
