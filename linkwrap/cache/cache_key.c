/* The key of a device link (cache_priv.h): SHA-256 over tagged,
 * length-prefixed items, so that no two different sequences of items hash
 * alike.  SHA-256 through nettle, which uses the CPU's SHA extensions
 * (~1.1-1.5 GB/s here, libmd's portable code ~240 MB/s: inputs of
 * hundreds of megabytes are hashed on every lookup) and, unlike libcrypto
 * (0.85 ms to its first digest: it loads its configuration and registers
 * process-wide cleanup inside the user's linker), keeps no global state. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/io.h"

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
	/* a new format of keys or entries starts over: 3, the planned
	 * action's key (docs/design.md, "Device-link cache"), the image alone */
	ofl_key_str(k, "offlink-device-link", "3");
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

/* ---- remembered digests of large inputs ----------------------------------
 *
 * A memo is the identity of a file and the range of it hashed (device,
 * inode, size, modification and change times in seconds and nanoseconds,
 * offset, length: 64-bit LE each), the digest and whether it is a tree's.
 * The identity stands for the bytes only where the change time moves on
 * every change and nobody can set it, and once no change can share the
 * change time of the bytes hashed (file systems keep it at a clock's tick,
 * 1 s on some): SETTLED_S after it. */
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

/* The identity of n bytes at off of the mapped file f, into id and st;
 * false where it does not tell the bytes (bytes copied when the file was
 * opened, another file system). */
static bool identity(const struct ofl_file *f, uint64_t off, size_t n, uint8_t id[ID_SIZE],
                     struct stat *st)
{
	if (f->mapped != 1 || f->fd < 0 || fstat(f->fd, st) || !S_ISREG(st->st_mode) ||
	    !ofl_fs_kernel_ctime(f->fd))
		return false;
	ofl_stat_id(st, id);
	ofl_put_le64(id + OFL_STAT_ID, off);
	ofl_put_le64(id + OFL_STAT_ID + 8, n);
	return true;
}

static bool settled(const struct timespec *t, const struct timespec *now)
{
	return t->tv_sec < now->tv_sec - SETTLED_S ||
	       (t->tv_sec == now->tv_sec - SETTLED_S && t->tv_nsec <= now->tv_nsec);
}

bool ofl_key_settled(const struct stat *st, const struct timespec *now)
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

void ofl_key_input(struct ofl_cache_key *k, struct ofl_cache *c, const char *tag,
                   const struct ofl_file *f, const uint8_t *p, size_t n)
{
	uint8_t id[ID_SIZE], after[ID_SIZE], memo[MEMO_SIZE], key[OFL_CACHE_KEY_SIZE];
	struct stat st;
	struct timespec now;
	bool tree;
	int64_t off = n >= OFL_KEY_MEMO_MIN && c ? ofl_file_offset_of(f, p, n) : -1;
	bool known = off >= 0 && identity(f, (uint64_t)off, n, id, &st);
	if (known)
		memo_key(id, key);
	struct ofl_file had = OFL_FILE_INIT;
	bool hit = known && ofl_cache_memo_get(c, key, &had) && had.size == MEMO_SIZE &&
	           !memcmp(had.data, id, ID_SIZE) && had.data[MEMO_SIZE - 1] <= 1;
	if (hit)
		add_digest(k, tag, had.data + ID_SIZE, had.data[MEMO_SIZE - 1]);
	ofl_file_close(&had);
	if (hit)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	digest(p, n, memo + ID_SIZE, &tree);
	add_digest(k, tag, memo + ID_SIZE, tree);
	/* the bytes hashed are those the identity stands for: it held from
	 * before to after the hashing, and no later change can keep it */
	if (known && ofl_key_settled(&st, &now) && identity(f, (uint64_t)off, n, after, &st) &&
	    !memcmp(id, after, ID_SIZE)) {
		memcpy(memo, id, ID_SIZE);
		memo[MEMO_SIZE - 1] = tree;
		ofl_cache_memo_put(c, key, memo, sizeof(memo));
	}
}

int ofl_key_content(struct ofl_cache_key *k, const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (ofl_file_open_regular(&f, path, &ignored))
		return -1;
	ofl_key_bytes(k, "content", f.data, f.size);
	ofl_file_close(&f);
	return 0;
}

/* Not the change time: it is when this machine installed the file, and
 * keys must match between machines sharing a remote. */
static void add_identity(struct ofl_cache_key *k, const char *real, const struct stat *st)
{
	char id[PATH_MAX + 128];
	snprintf(id, sizeof(id), "%s %lld %lld.%09ld", real, (long long)st->st_size,
	         (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	ofl_key_str(k, "identity", id);
}

/* ---- pinned digests of files that changed lately ------------------------
 *
 * A file that has not settled is keyed by its bytes, and by its identity
 * once it has: another key, so the entry a link stored right after a
 * library's rebuild would miss on the links after it.  A pin keeps that
 * digest under the file's identity (device, inode, size, modification and
 * change times); once the file has settled, the first link to find the
 * pin hashes the file again and, the bytes the same, marks the pin
 * checked: from then on the identity stands for those bytes, and the key
 * holds their digest as it did before the file settled. */
enum { PIN_ID = OFL_STAT_ID, PIN_SIZE = PIN_ID + OFL_CACHE_KEY_SIZE + 2 };

static void pin_of(const struct stat *st, uint8_t id[PIN_ID], uint8_t key[OFL_CACHE_KEY_SIZE])
{
	ofl_stat_id(st, id);
	struct ofl_cache_key m;
	sha256_init(&m.ctx);
	ofl_key_str(&m, "offlink-pinned-file", "1");
	item(&m, "identity", id, PIN_ID);
	ofl_key_final(&m, key);
}

/* The file's bytes hashed into pin (after its id), its identity the same
 * before and after (in *same); false when it cannot be read. */
static bool hash_file(const char *path, const uint8_t id[PIN_ID], uint8_t pin[PIN_SIZE], bool *same,
                      bool *kernel_ctime)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	struct stat st;
	uint8_t after[PIN_ID], key[OFL_CACHE_KEY_SIZE];
	bool tree;
	if (ofl_file_open_regular(&f, path, &ignored))
		return false;
	digest(f.data, f.size, pin + PIN_ID, &tree);
	pin[PIN_SIZE - 2] = tree;
	*same = f.fd >= 0 && !fstat(f.fd, &st);
	if (*same)
		pin_of(&st, after, key);
	*same = *same && !memcmp(id, after, PIN_ID);
	*kernel_ctime = f.fd >= 0 && ofl_fs_kernel_ctime(f.fd);
	ofl_file_close(&f);
	return true;
}

/* A settled file's pinned digest into k: 1 when added. */
static int pinned(struct ofl_cache_key *k, struct ofl_cache *c, const char *real,
                  const uint8_t id[PIN_ID], const uint8_t key[OFL_CACHE_KEY_SIZE])
{
	struct ofl_file had = OFL_FILE_INIT;
	uint8_t pin[PIN_SIZE];
	bool found = ofl_cache_memo_get(c, key, &had) && had.size == PIN_SIZE &&
	             !memcmp(had.data, id, PIN_ID);
	if (found)
		memcpy(pin, had.data, PIN_SIZE);
	ofl_file_close(&had);
	if (!found)
		return 0;
	if (!pin[PIN_SIZE - 1]) {
		uint8_t now[PIN_SIZE];
		bool same, kernel_ctime;
		if (!hash_file(real, id, now, &same, &kernel_ctime) || !same ||
		    memcmp(now + PIN_ID, pin + PIN_ID, OFL_CACHE_KEY_SIZE + 1))
			return 0;
		pin[PIN_SIZE - 1] = 1;
		ofl_cache_memo_put(c, key, pin, sizeof(pin));
	}
	add_digest(k, "content", pin + PIN_ID, pin[PIN_SIZE - 2]);
	return 1;
}

int ofl_key_file(struct ofl_cache_key *k, struct ofl_cache *c, const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	struct timespec now;
	uint8_t id[PIN_ID], key[OFL_CACHE_KEY_SIZE], pin[PIN_SIZE];
	if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode))
		return -1; /* gone, or no longer a file: nothing to key it by */
	clock_gettime(CLOCK_REALTIME, &now);
	pin_of(&st, id, key);
	if (ofl_key_settled(&st, &now)) {
		if (!c || !pinned(k, c, real, id, key))
			add_identity(k, real, &st);
		return 0;
	}
	bool same, kernel_ctime;
	if (!hash_file(real, id, pin, &same, &kernel_ctime))
		return -1;
	add_digest(k, "content", pin + PIN_ID, pin[PIN_SIZE - 2]);
	if (c && same && kernel_ctime) {
		memcpy(pin, id, PIN_ID);
		pin[PIN_SIZE - 1] = 0; /* checked once settled */
		ofl_cache_memo_put(c, key, pin, sizeof(pin));
	}
	return 0;
}

void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	sha256_digest(&k->ctx, OFL_CACHE_KEY_SIZE, key);
}
