/* One device action run (docs/design.md, "Device links", "Device-link
 * cache"): its inputs written, the cache asked, the command run, its
 * output stored.  The key (devlink_key.c) covers what the command
 * is known to read before it runs.  What the device linker reports it
 * read (--dependency-file: clang's crt files, libc, libgcc, its runtime)
 * is kept after the image as a manifest (cache_manifest.c), and a lookup
 * whose manifest no longer matches the files is a miss (ccache's direct
 * mode): a file the key did not foresee cannot give a stale image. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_priv.h"
#include "internal.h"
#include "run_priv.h"
#include "offlink/io.h"
#include "offlink/proc.h"

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

static int flush_inputs(struct ofl_link *l, size_t gi, const struct ofl_proc *cmd,
                        struct ofl_error *err)
{
	struct link_group *g = &l->groups[gi];
	size_t next = 0, left = 0;
	int rc = 0;
	/* under the lock: another group's worker may write the same bytes */
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; !rc && i < cmd->argc; i++) {
		struct pending_write *w = ofl_devlink_pending(g, cmd->argv[i], &next);
		if (w) {
			rc = write_private(w->path, w->data, w->size, err);
			free(w->owned);
			w->path = NULL; /* written */
		}
	}
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; i < g->npending; i++)
		if (g->pending[i].path)
			g->pending[left++] = g->pending[i];
	g->npending = left;
	return rc;
}

double ofl_devlink_elapsed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void ofl_devlink_open_cache(struct ofl_link *l)
{
	struct ofl_error err = OFL_ERROR_INIT;
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	if (l->cache || !l->o.cache || !ofl_cache_open(&l->cache, l->o.cache, &l->cancelled, &err))
		return;
	ofl_error_format(&err, msg, sizeof(msg));
	ofl_link_logf(l, OFL_LOG_WARNING, "no device-link cache: %s", msg);
}

/* A command run by clang's driver for ld.lld, which writes a dependency
 * file (AMDGPU links; CPU links with -fuse-ld=lld): its manifest is known.
 * gold, and bfd before binutils 2.35, refuse the option: not asked. */
static bool reports_reads(const struct ofl_link *l, size_t gi, const struct ofl_proc *cmd)
{
	size_t t = l->o.nlauncher + 1;
	if (t >= cmd->argc || strcmp(cmd->argv[t], "--no-default-config"))
		return false;
	const char *triple = l->groups[gi].triple;
	if (ofl_target_gpu(triple) && !ofl_target_nvptx(triple))
		return true; /* AMDGPU: ld.lld always */
	for (size_t i = t; i < cmd->argc; i++)
		if (!strcmp(cmd->argv[i], "-fuse-ld=lld"))
			return true;
	return false;
}

/* Runs the command; with depfile, asks its linker for the files it read. */
static int run(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *depfile,
               struct ofl_error *err)
{
	int rc = flush_inputs(l, gi, cmd, err);
	if (rc || !depfile)
		return rc ? rc : ofl_proc_run(cmd, err);
	/* written beside the image, it changes none of its bytes */
	if (ofl_proc_pushf(cmd, err, "-Wl,--dependency-file=%s", depfile))
		return err->code;
	rc = ofl_proc_run(cmd, err);
	free(cmd->argv[--cmd->argc]);
	cmd->argv[cmd->argc] = NULL;
	return rc;
}

/* An entry being written while the link goes on (the wrapper, the host
 * link): its output (the link's kept one, or read for the cache alone)
 * and its manifest. */
struct store {
	struct ofl_cache *cache;
	uint8_t key[OFL_CACHE_KEY_SIZE];
	struct ofl_file own;
	const struct ofl_file *image; /* own, or the link's */
	struct ofl_buf manifest;
	pthread_t thread;
	char note[512];
};

static void *write_entry(void *arg)
{
	struct store *s = arg;
	const struct iovec parts[] = {{(void *)s->image->data, s->image->size},
	                              {s->manifest.data, s->manifest.len}};
	ofl_cache_put(s->cache, s->key, parts, 2, s->note, sizeof(s->note));
	return NULL;
}

/* A store's failure said, and its bytes let go. */
static void end_store(struct ofl_link *l, struct store *s)
{
	if (*s->note)
		ofl_link_logf(l, OFL_LOG_WARNING, "%s", s->note);
	ofl_file_close(&s->own);
	ofl_buf_release(&s->manifest);
	free(s);
}

/* The entry of a command that ran into the cache under key: the image
 * mapped, not copied, and the manifest made now (the dependency file goes
 * with the link's directory); written on a thread of its own, so that the
 * link does not wait for the store's disk or the remote. */
static void store(struct ofl_link *l, const uint8_t *key, const char *output,
                  const struct ofl_file *kept, const char *depfile, const struct ofl_ptrs *keyed,
                  const struct timespec *started)
{
	struct store *s = ofl_calloc(1, sizeof(*s));
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!s)
		return;
	*s =
	    (struct store){.cache = l->cache, .own = OFL_FILE_INIT, .image = kept ? kept : &s->own};
	memcpy(s->key, key, sizeof(s->key));
	if ((kept || !ofl_file_open(&s->own, output, &ignored)) &&
	    !(depfile ? ofl_manifest_from_depfile(depfile, l->tmpdir, keyed, started, &s->manifest)
	              : ofl_manifest_empty(&s->manifest))) {
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

/* A hit's entry, checked against its manifest: its image as keep (when
 * not NULL), written to output when a later command reads the file;
 * false: a miss. */
static bool use_hit(const char *output, bool file, struct ofl_file *entry, struct ofl_file *keep)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	int64_t image = ofl_manifest_check(entry->data, entry->size);
	bool ok =
	    image >= 0 && (!file || !write_private(output, entry->data, (uint64_t)image, &ignored));
	if (ok && keep) {
		ofl_file_truncate(entry, (size_t)image);
		*keep = *entry;
		*entry = (struct ofl_file)OFL_FILE_INIT;
	}
	return ok;
}

static int cached_run(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                      const char *what, struct ofl_file *keep, struct ofl_error *err)
{
	uint8_t key[OFL_CACHE_KEY_SIZE];
	char note[512] = "", *depfile = NULL;
	struct ofl_file entry = OFL_FILE_INIT;
	struct ofl_ptrs keyed = OFL_PTRS_INIT;
	struct timespec t0, t1;
	/* fatbinary reads NVPTX images by name, the link after LTO its input;
	 * else the wrapper takes the bytes and nobody reads the file */
	bool file = !keep || ofl_target_nvptx(l->groups[gi].triple) || l->o.save_temps;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool cacheable = l->cache && !ofl_devlink_key(l, gi, cmd, key, &keyed);
	enum ofl_cache_hit hit =
	    cacheable ? ofl_cache_get(l->cache, key, &entry, note, sizeof(note)) : OFL_CACHE_MISS;
	if (hit != OFL_CACHE_MISS && !use_hit(output, file, &entry, keep))
		hit = OFL_CACHE_MISS; /* run it, then */
	if (hit == OFL_CACHE_MISS && cacheable && reports_reads(l, gi, cmd) &&
	    asprintf(&depfile, "%s.d", output) < 0)
		depfile = NULL, cacheable = false;
	/* the cache's own time, apart from the command's */
	double cache_s = ofl_devlink_elapsed(&t0);
	int rc = 0;
	if (hit == OFL_CACHE_MISS) {
		struct timespec started;
		clock_gettime(CLOCK_REALTIME, &started);
		rc = run(l, gi, cmd, depfile, err);
		/* a kept output is the link's, read cached or not */
		rc = rc || !keep ? rc : ofl_file_open(keep, output, err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc && cacheable)
			store(l, key, output, keep, depfile, &keyed, &started);
		cache_s += ofl_devlink_elapsed(&t1);
	}
	if (*note)
		ofl_link_logf(l, OFL_LOG_WARNING, "%s", note);
	__atomic_fetch_add(&l->nlinked, 1, __ATOMIC_SEQ_CST);
	if (hit != OFL_CACHE_MISS)
		__atomic_fetch_add(&l->ncached, 1, __ATOMIC_SEQ_CST);
	if (!rc)
		ofl_link_logf(l, OFL_LOG_PROGRESS, "%s: %.2f s%s (cache %.1f ms)", what,
		              ofl_devlink_elapsed(&t0),
		              hit == OFL_CACHE_LOCAL    ? ", cache hit"
		              : hit == OFL_CACHE_REMOTE ? ", cache hit (remote)"
		              : cacheable               ? ", cache miss"
		                                        : ", not cached",
		              cache_s * 1e3);
	free(depfile);
	ofl_ptrs_release(&keyed);
	ofl_file_close(&entry);
	return rc;
}

static bool cancelled(struct ofl_link *l)
{
	return __atomic_load_n(&l->cancelled, __ATOMIC_SEQ_CST);
}

int ofl_devlink_exec(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                     const char *what, struct ofl_file *keep, struct ofl_error *err)
{
	char *log = ofl_link_log_command(l, cmd);
	int rc = 0;
	if (!l->o.dry_run && !cancelled(l))
		rc = cached_run(l, gi, cmd, output, what, keep, err);
	/* the tool's own lines under the command, as they would show had it
	 * written to the terminal */
	if (!rc && l->o.verbose && cmd->err.len)
		ofl_link_logf(l, OFL_LOG_OUTPUT, "%.*s", (int)cmd->err.len,
		              (const char *)cmd->err.data);
	/* killed by ofl_link_cancel: no failure to report */
	if (rc && !cancelled(l))
		ofl_devlink_report(l, gi, what, cmd, log);
	free(log);
	return rc;
}
