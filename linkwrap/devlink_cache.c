/* A device link's command, cached (offlink/cache.h, docs/design.md
 * "Device-link cache").  The key (devlink_key.c) covers what the command
 * is known to read before it runs.  What the device linker reports it
 * read (--dependency-file: clang's crt files, libc, libgcc, its runtime)
 * is kept after the image as a manifest, the identity of each file, and a
 * lookup whose manifest no longer matches the files is a miss (ccache's
 * direct mode): a file the key did not foresee cannot give a stale image.
 * A file that changed less than 2 s before the command ran is too new to
 * be told by its identity: such a link is not stored.
 * An entry is the image, then the manifest's entries (path length, real
 * path, size, modification and change times in seconds and nanoseconds:
 * little-endian 32, bytes, 64, 64, 32, 64, 32 bits), their count and bytes
 * (64 bits each) and the magic "OFLMANI3". */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_priv.h"
#include "internal.h"
#include "link_priv.h"
#include "offlink/io.h"
#include "offlink/proc.h"

#define MANIFEST_MAGIC "OFLMANI3"
#define TRAILER_SIZE 24

void ofl_devlink_open_cache(struct ofl_link *l)
{
	struct ofl_error err = OFL_ERROR_INIT;
	char msg[OFL_ERROR_MSG_MAX + OFL_ERROR_PATH_MAX + 64];
	if (l->cache || !l->o.cache || !ofl_cache_open(&l->cache, l->o.cache, &l->cancelled, &err))
		return;
	ofl_error_format(&err, msg, sizeof(msg));
	ofl_link_logf(l, OFL_LOG_WARNING, "no device-link cache: %s", msg);
}

static bool is_keyed(const struct ofl_ptrs *keyed, const char *path)
{
	for (size_t i = 0; i < keyed->n; i++)
		if (!strcmp(keyed->v[i], path))
			return true;
	return false;
}

enum { ID_SIZE = 32 };

/* A file's identity as a manifest entry holds it. */
static void put_identity(uint8_t b[ID_SIZE], const struct stat *st)
{
	ofl_put_le64(b, (uint64_t)st->st_size);
	ofl_put_le64(b + 8, (uint64_t)st->st_mtim.tv_sec);
	ofl_put_le32(b + 16, (uint32_t)st->st_mtim.tv_nsec);
	ofl_put_le64(b + 20, (uint64_t)st->st_ctim.tv_sec);
	ofl_put_le32(b + 28, (uint32_t)st->st_ctim.tv_nsec);
}

/* One manifest entry for the file a word names, unless the key covers it
 * (keyed: real paths): 1 added, 0 not, -1 when it cannot stand for the
 * file.  Its identity now must be older than the command (started:
 * ccache's "file too new"), or a file that changed while it ran could be
 * recorded with bytes it did not read. */
static int add_entry(struct ofl_buf *m, const char *named, const struct ofl_ptrs *keyed,
                     const struct timespec *started)
{
	struct stat st;
	uint8_t b[ID_SIZE];
	char path[PATH_MAX];
	/* the real path: a relative one would be checked from another cwd */
	if (!realpath(named, path))
		return -1;
	if (is_keyed(keyed, path))
		return 0;
	size_t n = strlen(path);
	if (n > UINT32_MAX || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    !ofl_key_settled(&st, started))
		return -1;
	ofl_put_le32(b, (uint32_t)n);
	if (ofl_buf_append(m, b, 4) || ofl_buf_append(m, path, n))
		return -1;
	put_identity(b, &st);
	return ofl_buf_append(m, b, ID_SIZE) ? -1 : 1;
}

/* The manifest's end: its entry count, its length, the magic. */
static int put_trailer(struct ofl_buf *m, uint64_t count, uint64_t len)
{
	uint8_t t[TRAILER_SIZE];
	ofl_put_le64(t, count);
	ofl_put_le64(t + 8, len);
	memcpy(t + 16, MANIFEST_MAGIC, 8);
	return ofl_buf_append(m, t, sizeof(t));
}

/* The manifest of the files a dependency file (make's syntax, as lld, gold
 * and bfd write it) names, appended to m, without the link's own files and
 * those the key covers; -1 when it cannot be read. */
static int manifest_from_depfile(const struct ofl_link *l, const char *depfile,
                                 const struct ofl_ptrs *keyed, const struct timespec *started,
                                 struct ofl_buf *m)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct ofl_buf word = OFL_BUF_INIT;
	if (ofl_file_open_regular(&f, depfile, &ignored))
		return -1;
	size_t tl = strlen(l->tmpdir), start = m->len;
	uint64_t count = 0;
	bool target = true; /* the rule's target, before ':' */
	int rc = 0;
	for (size_t i = 0; i <= f.size && !rc; i++) {
		char c = i < f.size ? (char)f.data[i] : '\n';
		if (c == '\\' && i + 1 < f.size && f.data[i + 1] == '\n') {
			c = ' ', i++;
		} else if ((c == '\\' || c == '$') && i + 1 < f.size &&
		           (f.data[i + 1] == ' ' || f.data[i + 1] == '#' || f.data[i + 1] == '$')) {
			rc = ofl_buf_append(&word, &f.data[++i], 1);
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n') {
			rc = ofl_buf_append(&word, &c, 1);
			continue;
		}
		if (word.len && !target && !rc) {
			rc = ofl_buf_append(&word, "", 1);
			const char *w = (const char *)word.data;
			int added = rc || (!strncmp(w, l->tmpdir, tl) && w[tl] == '/')
			                ? 0
			                : add_entry(m, w, keyed, started);
			rc = added < 0 ? -1 : rc;
			count += added > 0;
		}
		target &= !(word.len && word.data[word.len - 1] == ':');
		word.len = 0;
		if (c == '\n' && !target)
			break; /* the rule's end: phony rules follow */
	}
	rc = rc || target || put_trailer(m, count, m->len - start) ? -1 : 0;
	ofl_buf_release(&word);
	ofl_file_close(&f);
	return rc;
}

static int empty_manifest(struct ofl_buf *m)
{
	return put_trailer(m, 0, 0);
}

/* The length of the image in an entry whose manifest still holds, or -1
 * (a file it names changed, or no entry of this format). */
static int64_t check_entry(const uint8_t *p, size_t n)
{
	if (n < TRAILER_SIZE || memcmp(p + n - 8, MANIFEST_MAGIC, 8))
		return -1;
	uint64_t count = ofl_le64(p + n - 24), mlen = ofl_le64(p + n - 16);
	if (mlen > n - TRAILER_SIZE)
		return -1;
	const uint8_t *e = p + n - TRAILER_SIZE - mlen, *end = p + n - TRAILER_SIZE;
	char path[PATH_MAX];
	for (uint64_t i = 0; i < count; i++) {
		struct stat st;
		uint8_t now[ID_SIZE];
		uint32_t len = (size_t)(end - e) >= 4 ? ofl_le32(e) : UINT32_MAX;
		if (len >= sizeof(path) || (size_t)(end - e) < 4 + (size_t)len + ID_SIZE)
			return -1;
		memcpy(path, e + 4, len);
		path[len] = '\0';
		e += 4 + len;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			return -1;
		put_identity(now, &st);
		if (memcmp(now, e, ID_SIZE))
			return -1;
		e += ID_SIZE;
	}
	return e == end ? (int64_t)(n - TRAILER_SIZE - mlen) : -1;
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
	if (ofl_devlink_gpu(triple) && !ofl_devlink_nvptx(triple))
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
	int rc = ofl_devlink_flush(l, gi, cmd, err);
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
	    !(depfile ? manifest_from_depfile(l, depfile, keyed, started, &s->manifest)
	              : empty_manifest(&s->manifest))) {
		pthread_mutex_lock(&l->lock);
		bool apart = !ofl_ptrs_push(&l->stores, s);
		if (apart && pthread_create(&s->thread, NULL, write_entry, s)) {
			l->stores.n--;
			apart = false;
		}
		pthread_mutex_unlock(&l->lock);
		if (apart)
			return;
		write_entry(s);
	}
	end_store(l, s);
}

void ofl_devlink_close_cache(struct ofl_link *l)
{
	for (size_t i = 0; i < l->stores.n; i++) {
		struct store *s = l->stores.v[i];
		pthread_join(s->thread, NULL);
		end_store(l, s);
	}
	free(l->stores.v);
	l->stores = (struct ofl_ptrs)OFL_PTRS_INIT;
	ofl_cache_close(l->cache);
	l->cache = NULL;
}

/* A hit's entry, checked against its manifest: its image as keep (when
 * not NULL), written to output when a later command reads the file;
 * false: a miss. */
static bool use_hit(const char *output, bool file, struct ofl_file *entry, struct ofl_file *keep)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	int64_t image = check_entry(entry->data, entry->size);
	bool ok = image >= 0 && (!file || !ofl_devlink_write_private(output, entry->data,
	                                                             (uint64_t)image, &ignored));
	if (ok && keep) {
		ofl_file_truncate(entry, (size_t)image);
		*keep = *entry;
		*entry = (struct ofl_file)OFL_FILE_INIT;
	}
	return ok;
}

int ofl_devlink_cached_run(struct ofl_link *l, size_t gi, struct ofl_proc *cmd, const char *output,
                           const char *what, struct ofl_file *keep, struct ofl_error *err)
{
	uint8_t key[OFL_CACHE_KEY_SIZE];
	char note[512] = "", *depfile = NULL;
	struct ofl_file entry = OFL_FILE_INIT;
	struct ofl_ptrs keyed = OFL_PTRS_INIT;
	struct timespec t0, t1;
	/* fatbinary reads NVPTX images by name, the link after LTO its input;
	 * else the wrapper takes the bytes and nobody reads the file */
	bool file = !keep || ofl_devlink_nvptx(l->groups[gi].triple) || l->o.save_temps;
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
