/* The key of a device link (cache_priv.h): SHA-256 over tagged,
 * length-prefixed items, so that no two different sequences of items hash
 * alike.  SHA-256 through nettle, which uses the CPU's SHA extensions
 * (~1.1-1.5 GB/s here, libmd's portable code ~240 MB/s: inputs of
 * hundreds of megabytes are hashed on every lookup) and, unlike libcrypto
 * (0.85 ms to its first digest: it loads its configuration and registers
 * process-wide cleanup inside the user's linker), keeps no global state. */
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
#include "offlink/io.h"
#include "symset.h"

static void item(struct ofl_cache_key *k, const char *tag, const void *p, size_t n)
{
	uint8_t len[8];
	ofl_put_le64(len, n);
	sha256_update(&k->ctx, strlen(tag) + 1, (const uint8_t *)tag);
	sha256_update(&k->ctx, sizeof(len), len);
	sha256_update(&k->ctx, n, p);
}

void ofl_key_init(struct ofl_cache_key *k)
{
	sha256_init(&k->ctx);
	/* a new format of keys or entries starts over: 4, the planned
	 * action's key with every file by its bytes, the machine's places out
	 * of it (docs/design.md, "Device-link cache"), the image alone */
	ofl_key_str(k, "offlink-device-link", "4");
}

void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s)
{
	item(k, tag, s, strlen(s));
}

/* Bytes longer than CHUNK are hashed as a tree, chunk by chunk on several
 * threads: the SHA-256 of the chunks' SHA-256s (the inputs of a device
 * link, a 200-object archive or a 200 MB image, take half the time on two
 * cores). */
#define CHUNK ((size_t)256 << 10)

static void sha256_chunk(const uint8_t *p, size_t n, uint8_t *sum)
{
	ofl_sha256(p, n, sum);
}

/* -1 when out of memory. */
static int tree_sum(const uint8_t *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE])
{
	size_t count = ofl_chunk_count(n, CHUNK);
	uint8_t *sums = ofl_calloc(count, OFL_CACHE_KEY_SIZE);
	if (!sums)
		return -1;
	ofl_hash_chunks(p, n, CHUNK, sha256_chunk, OFL_CACHE_KEY_SIZE, sums);
	ofl_sha256(sums, count * OFL_CACHE_KEY_SIZE, sum);
	free(sums);
	return 0;
}

/* p[0..n)'s digest: its SHA-256, or past CHUNK its tree's (*tree). */
static void digest(const uint8_t *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE], bool *tree)
{
	*tree = n > CHUNK && !tree_sum(p, n, sum);
	if (!*tree)
		ofl_sha256(p, n, sum);
}

static void add_digest(struct ofl_cache_key *k, const char *tag, const uint8_t *sum, bool tree)
{
	if (tree)
		ofl_key_str(k, "tree", tag); /* not to be taken for a plain SHA-256 */
	item(k, tag, sum, OFL_CACHE_KEY_SIZE);
}

void ofl_key_bytes(struct ofl_cache_key *k, const char *tag, const uint8_t *p, size_t n)
{
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	bool tree;
	digest(p, n, sum, &tree);
	add_digest(k, tag, sum, tree);
}

/* ---- remembered digests ----------------------------------------------------
 *
 * A memo is the identity of a file and the range of it hashed (device,
 * inode, size, modification and change times in seconds and nanoseconds,
 * offset, length: 64-bit LE each), the digest and whether it is a tree's.
 * The identity stands for the bytes only where the change time moves on
 * every change and nobody can set it, and once no change can share the
 * change time of the bytes hashed (file systems keep it at a clock's tick,
 * 1 s on some): SETTLED_S after it.  Memos are the local store's own:
 * the identity is this machine's, the digest what every machine keys. */
enum { ID_SIZE = OFL_STAT_ID + 2 * 8, MEMO_SIZE = ID_SIZE + OFL_CACHE_KEY_SIZE + 1 };
#define SETTLED_S 2

void ofl_stat_id(const struct stat *st, uint8_t id[OFL_STAT_ID])
{
	const uint64_t v[OFL_STAT_ID / 8] = {
	    (uint64_t)st->st_dev,          (uint64_t)st->st_ino,
	    (uint64_t)st->st_size,         (uint64_t)st->st_mtim.tv_sec,
	    (uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ctim.tv_sec,
	    (uint64_t)st->st_ctim.tv_nsec};
	for (size_t i = 0; i < OFL_STAT_ID / 8; i++)
		ofl_put_le64(id + 8 * i, v[i]);
}

static void range_id(const struct stat *st, uint64_t off, uint64_t n, uint8_t id[ID_SIZE])
{
	ofl_stat_id(st, id);
	ofl_put_le64(id + OFL_STAT_ID, off);
	ofl_put_le64(id + OFL_STAT_ID + 8, n);
}

/* The identity of n bytes at off of the file open as fd, into id and st;
 * false where it does not tell the bytes (not a regular file, another
 * file system). */
static bool identity(int fd, uint64_t off, uint64_t n, uint8_t id[ID_SIZE], struct stat *st)
{
	if (fd < 0 || fstat(fd, st) || !S_ISREG(st->st_mode) || !ofl_fs_kernel_ctime(fd))
		return false;
	range_id(st, off, n, id);
	return true;
}

static bool settled(const struct timespec *t, const struct timespec *now)
{
	return t->tv_sec < now->tv_sec - SETTLED_S ||
	       (t->tv_sec == now->tv_sec - SETTLED_S && t->tv_nsec <= now->tv_nsec);
}

/* The file st describes last changed long enough before now (realtime)
 * that no later change can leave its times as they are. */
static bool key_settled(const struct stat *st, const struct timespec *now)
{
	return settled(&st->st_ctim, now) && settled(&st->st_mtim, now);
}

static void memo_key(const uint8_t id[ID_SIZE], uint8_t key[OFL_CACHE_KEY_SIZE])
{
	struct ofl_cache_key m;
	char chunk[32];
	snprintf(chunk, sizeof(chunk), "%zu", CHUNK);
	sha256_init(&m.ctx);
	/* never a device link's key; another digest, another memo */
	ofl_key_str(&m, "offlink-input-hash", "1");
	ofl_key_str(&m, "tree chunk", chunk);
	item(&m, "identity", id, ID_SIZE);
	ofl_key_final(&m, key);
}

/* The remembered digest of the bytes id stands for, into sum: true when
 * the store has one. */
static bool memo_get(struct ofl_cache *c, const uint8_t id[ID_SIZE],
                     uint8_t sum[OFL_CACHE_KEY_SIZE], bool *tree)
{
	uint8_t key[OFL_CACHE_KEY_SIZE];
	struct ofl_file had = OFL_FILE_INIT;
	memo_key(id, key);
	bool hit = ofl_cache_memo_get(c, key, &had) && had.size == MEMO_SIZE &&
	           !memcmp(had.data, id, ID_SIZE) && had.data[MEMO_SIZE - 1] <= 1;
	if (hit) {
		memcpy(sum, had.data + ID_SIZE, OFL_CACHE_KEY_SIZE);
		*tree = had.data[MEMO_SIZE - 1];
	}
	ofl_file_close(&had);
	return hit;
}

/* Remembers sum for the bytes id stands for, when they are the ones
 * hashed: the file had settled when the hashing began (st then, at now),
 * and its identity held to the end (the file still open as fd). */
static void memo_put(struct ofl_cache *c, int fd, const uint8_t id[ID_SIZE], const struct stat *st,
                     const struct timespec *now, const uint8_t sum[OFL_CACHE_KEY_SIZE], bool tree)
{
	uint8_t after[ID_SIZE], memo[MEMO_SIZE], key[OFL_CACHE_KEY_SIZE];
	struct stat now_st;
	if (!key_settled(st, now) ||
	    !identity(fd, ofl_le64(id + OFL_STAT_ID), ofl_le64(id + OFL_STAT_ID + 8), after,
	              &now_st) ||
	    memcmp(id, after, ID_SIZE))
		return;
	memcpy(memo, id, ID_SIZE);
	memcpy(memo + ID_SIZE, sum, OFL_CACHE_KEY_SIZE);
	memo[MEMO_SIZE - 1] = tree;
	memo_key(id, key);
	ofl_cache_memo_put(c, key, memo, sizeof(memo));
}

void ofl_key_input(struct ofl_cache_key *k, struct ofl_cache *c, const struct ofl_file *f,
                   const uint8_t *p, size_t n)
{
	uint8_t id[ID_SIZE], sum[OFL_CACHE_KEY_SIZE];
	struct stat st;
	struct timespec now;
	bool tree;
	int64_t off = n >= OFL_KEY_MEMO_MIN && c ? ofl_file_offset_of(f, p, n) : -1;
	bool known = off >= 0 && f->mapped == 1 && identity(f->fd, (uint64_t)off, n, id, &st);
	if (known && memo_get(c, id, sum, &tree)) {
		add_digest(k, "content", sum, tree);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	digest(p, n, sum, &tree);
	add_digest(k, "content", sum, tree);
	if (known)
		memo_put(c, f->fd, id, &st, &now, sum, tree);
}

/* ---- files an action may read --------------------------------------------
 *
 * By their bytes, wherever they were installed and whenever: the digest
 * is remembered under the file's identity (memo_get), so a link after the
 * first costs a stat and the memo's read, and within a link each file is
 * looked at once (struct ofl_digests). */

/* Files from this size up have their digest remembered: hashing 32 KiB
 * costs what reading a memo does. */
#define MEMO_FILE_MIN ((uint64_t)32 << 10)

/* The digest of the regular file path, its stat in *st; -1 when it is no
 * regular file or cannot be read. */
static int file_digest(struct ofl_cache *c, const char *path, struct stat *st,
                       uint8_t sum[OFL_CACHE_KEY_SIZE], bool *tree)
{
	uint8_t id[ID_SIZE];
	struct timespec now;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	bool regular = !fstat(fd, st) && S_ISREG(st->st_mode);
	/* a small file is hashed sooner than its memo is read; under CHUNK,
	 * read sooner than mapped */
	uint64_t n = regular ? (uint64_t)st->st_size : 0;
	bool small = n < CHUNK,
	     known = regular && c && n >= MEMO_FILE_MIN && ofl_fs_kernel_ctime(fd);
	if (known)
		range_id(st, 0, n, id);
	if (known && memo_get(c, id, sum, tree)) {
		close(fd);
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	int rc = !regular ? -1
	         : !n     ? 0
	         : small  ? ofl_file_copy_range(&f, fd, 0, n, path, &ignored)
	                  : ofl_file_read_range(&f, fd, 0, n, path, &ignored);
	rc = rc ? -1 : 0;
	if (!rc)
		digest(f.data, f.size, sum, tree);
	ofl_file_close(&f);
	if (!rc && known)
		memo_put(c, fd, id, st, &now, sum, *tree);
	close(fd);
	return rc;
}

struct seen_file {
	struct stat st;
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	bool tree, bad; /* bad: no regular file, unreadable */
};

struct ofl_digests {
	pthread_mutex_t lock;
	struct ofl_symset paths; /* path -> its index in v */
	struct seen_file *v;
	size_t n, cap;
};

struct ofl_digests *ofl_digests_new(void)
{
	struct ofl_digests *d = ofl_calloc(1, sizeof(*d));
	if (d)
		pthread_mutex_init(&d->lock, NULL);
	return d;
}

void ofl_digests_free(struct ofl_digests *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	ofl_symset_release(&d->paths);
	free(d->v);
	free(d);
}

/* What the link saw of path, into *out: looked at on its first use, the
 * file hashed without the lock (another action's key need not wait for
 * it; two racing to hash one file keep the first's; out of memory, this
 * call's own look). */
static void seen(struct ofl_digests *d, struct ofl_cache *c, const char *path,
                 struct seen_file *out)
{
	pthread_mutex_lock(&d->lock);
	const struct ofl_symslot *had = ofl_symset_find(&d->paths, path);
	if (had)
		*out = d->v[had->value];
	pthread_mutex_unlock(&d->lock);
	if (had)
		return;
	out->bad = file_digest(c, path, &out->st, out->sum, &out->tree) != 0;
	struct ofl_symslot *slot;
	bool added, ok;
	pthread_mutex_lock(&d->lock);
	ok = !OFL_GROW(d->v, d->cap, d->n) &&
	     !ofl_symset_add(&d->paths, path, (uint32_t)d->n, &slot, &added);
	if (ok && added)
		d->v[d->n++] = *out;
	else if (ok)
		*out = d->v[slot->value];
	pthread_mutex_unlock(&d->lock);
}

int ofl_key_file(struct ofl_cache_key *k, struct ofl_cache *c, struct ofl_digests *d,
                 const char *path, struct stat *st)
{
	struct seen_file one;
	if (d)
		seen(d, c, path, &one);
	else /* no memo of the link's */
		one.bad = file_digest(c, path, &one.st, one.sum, &one.tree) != 0;
	if (one.bad)
		return -1; /* gone, or no longer a file: nothing to key it by */
	add_digest(k, "content", one.sum, one.tree);
	if (st)
		*st = one.st;
	return 0;
}

void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	sha256_digest(&k->ctx, OFL_CACHE_KEY_SIZE, key);
}
