/* The device-link cache's local store (offlink/cache.h).
 *
 * <dir>/v1/<first two hex digits>/<64 hex digits of the key>, each entry
 * "OFLCACH4", its checksum (checksum_parts), the payload's size (u64 LE)
 * and the payload; memos (ofl_cache_memo_get) the same, named "<key>.i".
 * An entry is read mapped, not copied; a hit refreshes the entry's
 * modification time, which trimming reads as its last use.  An entry is
 * written to ".<key>.ofl-XXXXXX" beside it, locked while written, and
 * renamed.  <dir>/v1/stats holds the counters and the bytes stored,
 * updated under flock once per link: the store is listed (to trim it,
 * count it exactly and sweep the temporaries of interrupted stores) only
 * when that count passes the limit or the last sweep is an hour old. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/io.h"
#include "offlink/proc.h"

/* The checksum finds corruption and an entry under another key's name;
 * who may write the store is settled by its directory's owner and mode
 * (trusted_dir).  It is the XXH3-128 of the key and of the XXH3-128s of
 * the payload's SUM_CHUNK-byte chunks (low, high; LE), so a hit on a large
 * entry checks it on several threads: it costs nothing beside the device
 * link, where even one XXH3-128 of a 200 MB image costs a fifth of it.
 * Entries of another format (OFLCACH3: one XXH3-128 of the key and
 * payload) are misses. */
#define MAGIC "OFLCACH4"
enum { SUM = 16, HEAD = 8 + SUM + 8 };
#define SUM_CHUNK ((size_t)16 << 20)
/* A temporary this old and unlocked is left by an interrupted store. */
enum { STALE_S = 5 * 60, SWEEP_EVERY_S = 60 * 60 };

static void put_sum(XXH128_hash_t h, uint8_t *out)
{
	ofl_put_le64(out, h.low64);
	ofl_put_le64(out + 8, h.high64);
}

static void chunk_sum(const uint8_t *p, size_t n, uint8_t *sum)
{
	put_sum(XXH3_128bits(p, n), sum);
}

/* The checksum of the bytes of parts, one after another, in one pass (an
 * entry written). */
static void checksum_parts(const uint8_t *key, const struct iovec *parts, size_t nparts,
                           uint8_t out[SUM])
{
	XXH3_state_t whole, chunk;
	uint8_t sum[SUM];
	size_t filled = 0, chunks = 0;
	XXH3_128bits_reset(&whole);
	XXH3_128bits_update(&whole, key, OFL_CACHE_KEY_SIZE);
	XXH3_128bits_reset(&chunk);
	for (size_t i = 0; i < nparts; i++) {
		const uint8_t *p = parts[i].iov_base;
		for (size_t left = parts[i].iov_len, take; left; p += take, left -= take) {
			take = left < SUM_CHUNK - filled ? left : SUM_CHUNK - filled;
			XXH3_128bits_update(&chunk, p, take);
			if ((filled += take) < SUM_CHUNK)
				continue;
			put_sum(XXH3_128bits_digest(&chunk), sum);
			XXH3_128bits_update(&whole, sum, SUM);
			XXH3_128bits_reset(&chunk);
			filled = 0, chunks++;
		}
	}
	if (filled || !chunks) {
		put_sum(XXH3_128bits_digest(&chunk), sum);
		XXH3_128bits_update(&whole, sum, SUM);
	}
	put_sum(XXH3_128bits_digest(&whole), out);
}

/* The same of bytes read whole (a hit), its chunks on several threads;
 * -1 when out of memory. */
static int checksum(const uint8_t *key, const uint8_t *p, size_t n, uint8_t out[SUM])
{
	size_t count = ofl_chunk_count(n, SUM_CHUNK);
	uint8_t *sums = ofl_calloc(count, SUM);
	if (!sums)
		return -1;
	ofl_hash_chunks(p, n, SUM_CHUNK, chunk_sum, SUM, sums);
	XXH3_state_t whole;
	XXH3_128bits_reset(&whole);
	XXH3_128bits_update(&whole, key, OFL_CACHE_KEY_SIZE);
	XXH3_128bits_update(&whole, sums, count * SUM);
	put_sum(XXH3_128bits_digest(&whole), out);
	free(sums);
	return 0;
}

struct ofl_cache {
	char *dir;                  /* the store's root, or NULL */
	mode_t file_mode, dir_mode; /* 0600, 0700; a shared group store 0660, 02770 */
	uint64_t max_size;
	struct ofl_remote *remote;
	pthread_mutex_t lock;
	uint64_t hits, misses, remote_hits, put_bytes;
	const int *stop; /* the link's cancel flag, or NULL; read atomically */
};

static void say(char *note, size_t notesz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *note, size_t notesz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (note && notesz)
		vsnprintf(note, notesz, fmt, ap);
	va_end(ap);
}

/* <root>/v1/<rest>: where format 1 keeps entries and statistics.  false
 * when the path does not fit (no such file could be opened). */
static bool v1_path(char *out, size_t n, const char *root, const char *rest)
{
	return snprintf(out, n, "%s/v1%s%s", root, *rest ? "/" : "", rest) < (int)n;
}

static bool in_group(gid_t g)
{
	int n = getgroups(0, NULL);
	gid_t *v = n > 0 ? ofl_calloc((size_t)n, sizeof(*v)) : NULL;
	bool in = g == getegid();
	n = v ? getgroups(n, v) : 0;
	for (int i = 0; !in && i < n; i++)
		in = v[i] == g;
	free(v);
	return in;
}

/* Whoever can write a store can put any image into our programs: it is
 * trusted when it is ours, or a group's that we are in and that says it
 * is shared (setgid: what it holds stays the group's), and never when
 * anyone may write it.  0: ours; 1: a shared group store; -1: neither. */
static int trusted_dir(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode) || (st->st_mode & S_IWOTH))
		return -1;
	bool shared = (st->st_mode & S_ISGID) && in_group(st->st_gid);
	return shared ? 1 : st->st_uid == geteuid() ? 0 : -1;
}

static int untrusted(const char *path, struct ofl_error *err)
{
	return ofl_error_set(err, OFL_EINVAL, path, OFL_NO_OFFSET,
	                     "the cache directory is not ours nor a group's shared one "
	                     "(setgid, not writable by others): not used");
}

/* The store's root (made when missing) and its v1 folder, trusted; the
 * modes of what is made in them. */
static int open_store(struct ofl_cache *c, const char *dir, struct ofl_error *err)
{
	char v1[4096];
	struct stat st;
	if (!v1_path(v1, sizeof(v1), dir, ""))
		return ofl_error_set(err, OFL_EINVAL, dir, OFL_NO_OFFSET,
		                     "the cache directory's name is too long");
	int rc = ofl_mkdirs(dir, 0700, err);
	if (rc)
		return rc;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return ofl_error_set(err, OFL_EIO, dir, OFL_NO_OFFSET,
		                     "the cache is not a directory");
	int root = trusted_dir(&st);
	if (root < 0)
		return untrusted(dir, err);
	c->file_mode = root ? 0660 : 0600;
	c->dir_mode = root ? 02770 : 0700;
	if (mkdir(v1, c->dir_mode) && errno != EEXIST)
		return ofl_error_errno(err, v1, "cannot make the cache directory");
	if (lstat(v1, &st) || trusted_dir(&st) < 0)
		return untrusted(v1, err);
	return (c->dir = ofl_strdup(dir)) ? 0 : OFL_NOMEM(err);
}

int ofl_cache_open(struct ofl_cache **out, const struct ofl_cache_opts *o, const int *stop,
                   struct ofl_error *err)
{
	if (o->unusable)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "%s", o->unusable);
	struct ofl_cache *c = ofl_calloc(1, sizeof(*c));
	if (!c)
		return OFL_NOMEM(err);
	pthread_mutex_init(&c->lock, NULL);
	c->max_size = o->max_size ? o->max_size : OFL_CACHE_DEFAULT_MAX_SIZE;
	c->stop = stop;
	int rc = o->dir && *o->dir ? open_store(c, o->dir, err) : 0;
	if (!rc && o->remote && *o->remote)
		rc = ofl_remote_open(&c->remote, o, stop, err);
	if (rc) {
		ofl_cache_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* An entry's file; a memo's (ofl_cache_memo_get) has MEMO_SUFFIX. */
#define MEMO_SUFFIX ".i"
static bool entry_path(const struct ofl_cache *c, const uint8_t *key, const char *suffix,
                       char *path, size_t n)
{
	char hex[2 * OFL_CACHE_KEY_SIZE + 1], rest[3 + sizeof(hex) + 8];
	ofl_hex(key, OFL_CACHE_KEY_SIZE, hex);
	snprintf(rest, sizeof(rest), "%.2s/%s%s", hex, hex, suffix);
	return v1_path(path, n, c->dir, rest);
}

/* Payloads smaller than this are read, not mapped: a memo costs one read
 * instead of a mapping and its removal (which stops every thread of the
 * process a moment). */
#define MAP_MIN ((uint64_t)64 << 10)
/* A hit refreshes the entry's modification time (its last use, for
 * trimming) once it is this old: a write per hit would cost more than
 * trimming by the minute gains. */
#define REFRESH_S 600

/* n bytes at off of fd as out: mapped (no copy, the page cache's pages)
 * on a local file system, else read (on NFS another machine's trim would
 * fault the mapping); -1 when they cannot be had. */
static int payload(int fd, const char *path, uint64_t off, uint64_t n, struct ofl_file *out)
{
	struct ofl_error ignored = OFL_ERROR_INIT;
	bool map = n >= MAP_MIN && ofl_fs_kernel_ctime(fd);
	int rc = map ? ofl_file_read_range(out, fd, off, n, path, &ignored)
	             : ofl_file_copy_range(out, fd, off, n, path, &ignored);
	return rc ? -1 : 0;
}

/* The payload of the entry open as fd, as out: 1; 0 another format; -1
 * corrupt. */
static int read_entry(int fd, const char *path, const uint8_t *key, struct ofl_file *out,
                      struct stat *stp)
{
	struct stat st;
	uint8_t head[HEAD], sum[SUM];
	stp->st_mtime = 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < HEAD ||
	    ofl_fd_pread_all(fd, head, HEAD, 0, NULL) || memcmp(head, MAGIC, 8))
		return 0; /* a FIFO, a device, an empty or old file: never read */
	uint64_t n = ofl_le64(head + 8 + SUM);
	if (n != (uint64_t)st.st_size - HEAD || !n || payload(fd, path, HEAD, n, out))
		return -1;
	int rc = checksum(key, out->data, out->size, sum) ? 0 : memcmp(sum, head + 8, SUM) ? -1 : 1;
	if (rc < 1)
		ofl_file_close(out);
	*stp = st;
	return rc;
}

/* 1 and the payload of the entry (suffix: which kind) in out; 0 when
 * absent or of another format; -1 when corrupt (removed).  Opened not
 * following links and without blocking: whatever lies under an entry's
 * name, the link goes on. */
static int local_get(struct ofl_cache *c, const uint8_t *key, const char *suffix,
                     struct ofl_file *out)
{
	char path[4096];
	if (!entry_path(c, key, suffix, path, sizeof(path)))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat st;
	int rc = read_entry(fd, path, key, out, &st);
	if (rc > 0 && st.st_mtime < time(NULL) - REFRESH_S)
		futimens(fd, NULL); /* its last use, for trimming */
	else if (rc < 0)
		unlink(path);
	close(fd);
	return rc;
}

/* A new temporary beside path, ".<name>.ofl-XXXXXX", locked while it is
 * written (a sweep leaves it alone); its name in tmp. */
static int open_temp(const struct ofl_cache *c, const char *path, char *tmp, size_t n)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	const char *slash = strrchr(path, '/');
	for (int attempt = 0; attempt < 100; attempt++) {
		uint8_t r[6];
		char suffix[sizeof(r) + 1];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = digits[r[i] % 36];
		suffix[sizeof(r)] = '\0';
		snprintf(tmp, n, "%.*s.%s.ofl-%s", (int)(slash - path + 1), path, slash + 1,
		         suffix);
		int fd =
		    open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, c->file_mode);
		if (fd >= 0) /* where locks are not kept, its age alone protects it */
			flock(fd, LOCK_EX | LOCK_NB);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static size_t total(const struct iovec *parts, size_t nparts)
{
	size_t n = 0;
	for (size_t i = 0; i < nparts; i++)
		n += parts[i].iov_len;
	return n;
}

/* Written beside the entry and renamed over it: readers see whole
 * entries, whoever writes the same key at the same time. */
static bool local_put(struct ofl_cache *c, const uint8_t *key, const char *suffix,
                      const struct iovec *parts, size_t nparts)
{
	char path[4096], tmp[4096 + 16];
	uint8_t head[HEAD];
	size_t n = total(parts, nparts);
	if (!n) /* never read back (read_entry): nothing is stored */
		return errno = EINVAL, false;
	if (!entry_path(c, key, suffix, path, sizeof(path)))
		return errno = ENAMETOOLONG, false;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	bool ok = !mkdir(path, c->dir_mode) || errno == EEXIST;
	*slash = '/';
	int fd = ok ? open_temp(c, path, tmp, sizeof(tmp)) : -1;
	if (fd < 0)
		return false;
	memcpy(head, MAGIC, 8);
	checksum_parts(key, parts, nparts, head + 8);
	ofl_put_le64(head + 8 + SUM, n);
	ok = !ofl_fd_write_all(fd, head, HEAD);
	for (size_t i = 0; ok && i < nparts; i++)
		ok = !ofl_fd_write_all(fd, parts[i].iov_base, parts[i].iov_len);
	ok = ok && !rename(tmp, path);
	int saved = errno;
	if (!ok)
		unlink(tmp);
	close(fd);
	errno = saved;
	if (!ok)
		return false;
	pthread_mutex_lock(&c->lock);
	c->put_bytes += HEAD + n;
	pthread_mutex_unlock(&c->lock);
	return true;
}

enum ofl_cache_hit ofl_cache_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                                 struct ofl_file *out, char *note, size_t notesz)
{
	struct ofl_buf got = OFL_BUF_INIT;
	*out = (struct ofl_file)OFL_FILE_INIT;
	int local = c->dir ? local_get(c, key, "", out) : 0;
	if (local < 0)
		say(note, notesz, "cache: a corrupt entry was removed");
	int remote =
	    local <= 0 && c->remote ? ofl_remote_get(c->remote, key, &got, note, notesz) : 0;
	if (remote > 0 && c->dir)
		local_put(c, key, "", &(struct iovec){got.data, got.len}, 1);
	if (remote > 0)
		ofl_file_adopt(out, &got);
	ofl_buf_release(&got); /* what a failed answer left */
	pthread_mutex_lock(&c->lock);
	if (local > 0 || remote > 0)
		c->hits++;
	else
		c->misses++;
	c->remote_hits += remote > 0;
	pthread_mutex_unlock(&c->lock);
	return local > 0 ? OFL_CACHE_LOCAL : remote > 0 ? OFL_CACHE_REMOTE : OFL_CACHE_MISS;
}

void ofl_cache_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                   const struct iovec *parts, size_t nparts, char *note, size_t notesz)
{
	struct ofl_buf whole = OFL_BUF_INIT;
	bool joined = true;
	if (c->dir && !local_put(c, key, "", parts, nparts))
		say(note, notesz, "cache: cannot store an entry in %s: %s", c->dir,
		    strerror(errno));
	if (!c->remote || !ofl_remote_takes_puts(c->remote))
		return;
	/* the remote names the bytes by their SHA-256 and takes them as one */
	for (size_t i = 0; joined && i < nparts; i++)
		joined = !ofl_buf_append(&whole, parts[i].iov_base, parts[i].iov_len);
	if (joined)
		ofl_remote_put(c->remote, key, whole.data, whole.len, note, notesz);
	ofl_buf_release(&whole);
}

bool ofl_cache_memo_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                        struct ofl_file *out)
{
	if (c->dir && local_get(c, key, MEMO_SUFFIX, out) > 0)
		return true;
	ofl_file_close(out);
	return false;
}

void ofl_cache_memo_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                        const uint8_t *data, size_t n)
{
	if (c->dir)
		local_put(c, key, MEMO_SUFFIX, &(struct iovec){(void *)data, n}, 1);
}

/* ---- the store as a whole ------------------------------------------------ */

struct entry {
	char *path;
	uint64_t size;
	struct timespec used;
};

struct entries {
	struct entry *v;
	size_t n, cap;
	uint64_t bytes;
	uint64_t nmemos;             /* of the n, memos */
	uint64_t ntemps, temp_bytes; /* temporaries left (not swept) */
	time_t sweep_before;         /* sweep what was last written before; 0: none */
};

static bool is_hex_name(const char *s, size_t len)
{
	return strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

enum { KEY_HEX = 2 * OFL_CACHE_KEY_SIZE };

/* The length of an entry's name ("<key>", a memo's "<key>.i") that s
 * starts with, or 0. */
static size_t entry_name(const char *s)
{
	size_t m = strlen(MEMO_SUFFIX);
	if (strspn(s, "0123456789abcdef") != KEY_HEX)
		return 0;
	return KEY_HEX + (strncmp(s + KEY_HEX, MEMO_SUFFIX, m) ? 0 : m);
}

/* ".<entry's name>.ofl-XXXXXX": an entry being written, or left by an
 * interrupted store. */
static bool is_temp_name(const char *s)
{
	size_t n = s[0] == '.' ? entry_name(s + 1) : 0;
	return n && !strncmp(s + 1 + n, ".ofl-", 5) && strlen(s + 1 + n + 5) == 6;
}

/* Removes the temporary p when it is stale: old, and no store holds its
 * lock (one that cannot be opened is someone else's: left). */
static bool sweep(const char *p, const struct stat *st, time_t before)
{
	if (st->st_mtim.tv_sec >= before)
		return false;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	bool gone = fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB) && !unlink(p);
	if (fd >= 0)
		close(fd);
	return gone;
}

static int add_entry(struct entries *e, char *p, const struct stat *st, struct ofl_error *err)
{
	if (OFL_GROW(e->v, e->cap, e->n)) {
		free(p);
		return OFL_NOMEM(err);
	}
	e->v[e->n++] = (struct entry){p, (uint64_t)st->st_size, st->st_mtim};
	e->bytes += (uint64_t)st->st_size;
	return 0;
}

/* The entries and temporaries of one two-digit directory (nothing else is
 * looked at). */
static int list_dir(const char *dir, struct entries *e, struct ofl_error *err)
{
	DIR *d = opendir(dir);
	int rc = 0;
	for (struct dirent *de; !rc && d && (de = readdir(d));) {
		struct stat st;
		char *p = NULL;
		size_t name = entry_name(de->d_name);
		bool entry = name && !de->d_name[name];
		if (!entry && !is_temp_name(de->d_name))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			rc = OFL_NOMEM(err);
		else if (lstat(p, &st) || !S_ISREG(st.st_mode))
			free(p);
		else if (entry) {
			e->nmemos += name != KEY_HEX;
			rc = add_entry(e, p, &st, err);
		} else {
			if (!sweep(p, &st, e->sweep_before)) {
				e->ntemps++;
				e->temp_bytes += (uint64_t)st.st_size;
			}
			free(p);
		}
	}
	if (d)
		closedir(d);
	return rc;
}

static int list_entries(const char *root, struct entries *e, struct ofl_error *err)
{
	char v1[4096];
	if (!v1_path(v1, sizeof(v1), root, ""))
		return 0; /* no such store */
	DIR *d = opendir(v1);
	int rc = 0;
	for (struct dirent *de; !rc && d && (de = readdir(d));) {
		char *sub = NULL;
		if (!is_hex_name(de->d_name, 2))
			continue;
		if (asprintf(&sub, "%s/%s", v1, de->d_name) < 0)
			rc = OFL_NOMEM(err);
		else
			rc = list_dir(sub, e, err);
		free(sub);
	}
	if (d)
		closedir(d);
	return rc;
}

/* A listing that sweeps the stale temporaries (sweep) or counts them. */
static struct entries no_entries(bool sweep)
{
	return (struct entries){.sweep_before = sweep ? time(NULL) - STALE_S : 0};
}

static void release_entries(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].path);
	free(e->v);
}

static int by_use(const void *a, const void *b)
{
	const struct timespec *x = &((const struct entry *)a)->used,
	                      *y = &((const struct entry *)b)->used;
	return x->tv_sec != y->tv_sec     ? (x->tv_sec < y->tv_sec ? -1 : 1)
	       : x->tv_nsec != y->tv_nsec ? (x->tv_nsec < y->tv_nsec ? -1 : 1)
	                                  : 0;
}

/* ofl_cache_trim, stale temporaries swept; *left: the bytes stored after
 * it. */
static int trim(const char *root, uint64_t max_size, uint64_t *left, struct ofl_error *err)
{
	struct entries e = no_entries(true);
	int rc = list_entries(root, &e, err);
	if (!rc && e.bytes > max_size)
		qsort(e.v, e.n, sizeof(*e.v), by_use);
	/* the least recently used go first; entries of a link running now
	 * were used last */
	for (size_t i = 0; !rc && e.bytes > max_size && i < e.n; i++)
		if (!unlink(e.v[i].path) || errno == ENOENT)
			e.bytes -= e.v[i].size;
	release_entries(&e);
	*left = e.bytes;
	return rc;
}

int ofl_cache_trim(const char *dir, uint64_t max_size, struct ofl_error *err)
{
	uint64_t left;
	return trim(dir, max_size, &left, err);
}

/* ---- statistics --------------------------------------------------------- */

/* What the stats file counts: lookups since the store was made or
 * cleared, the bytes stored (unknown until counted: UINT64_MAX) and when
 * temporaries were last swept (seconds since the epoch). */
enum { HITS, MISSES, REMOTE_HITS, BYTES, SWEPT, NCOUNTERS };
static const char *const counter_names[NCOUNTERS] = {"hits", "misses", "remote_hits", "bytes",
                                                     "swept"};

static void read_counters(int fd, uint64_t v[NCOUNTERS])
{
	char text[256];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	v[HITS] = v[MISSES] = v[REMOTE_HITS] = v[SWEPT] = 0;
	v[BYTES] = UINT64_MAX;
	for (int i = 0; i < NCOUNTERS; i++) {
		const char *p = strstr(text, counter_names[i]);
		unsigned long long x = 0;
		if (p && sscanf(p + strlen(counter_names[i]), " %llu", &x) == 1)
			v[i] = x;
	}
}

/* How long a link waits for the stats file's lock before it leaves its
 * counts out: another process may hold it for long (a link stopped with
 * ^Z while trimming, `offlink cache trim` of a large store), and a link
 * must never hang on it. */
#define STATS_WAIT_MS 250

/* The stats file's lock, tried every few milliseconds for STATS_WAIT_MS,
 * or until the link is cancelled; false: not had. */
static bool lock_stats(const struct ofl_cache *c, int fd)
{
	const struct timespec step = {0, 5 * 1000 * 1000};
	for (int waited = 0; waited <= STATS_WAIT_MS; waited += 5) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return true;
		if (errno != EWOULDBLOCK || (c->stop && __atomic_load_n(c->stop, __ATOMIC_SEQ_CST)))
			return false;
		nanosleep(&step, NULL);
	}
	return false;
}

/* Adds this session's counters to the store's and, when the bytes stored
 * pass the limit or the last sweep is an hour old, lists the store (trims
 * it, sweeps it), all under one lock.  A count that is off (an entry
 * written twice, one removed as corrupt, a trim by `offlink cache trim`)
 * is too high, and is made exact by the next listing; one left out when
 * the lock could not be had (lock_stats) is too low until then. */
static void record(const struct ofl_cache *c)
{
	char path[4096], text[256];
	if (!v1_path(path, sizeof(path), c->dir, "stats"))
		return;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, c->file_mode);
	if (fd < 0)
		return;
	uint64_t v[NCOUNTERS];
	struct stat st;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && lock_stats(c, fd)) {
		read_counters(fd, v);
		v[HITS] += c->hits;
		v[MISSES] += c->misses;
		v[REMOTE_HITS] += c->remote_hits;
		uint64_t now = (uint64_t)time(NULL);
		bool over = ofl_add_overflow(v[BYTES], c->put_bytes, &v[BYTES]) ||
		            v[BYTES] > c->max_size || now - v[SWEPT] >= SWEEP_EVERY_S;
		if (over && trim(c->dir, c->max_size, &v[BYTES], &ignored))
			v[BYTES] = UINT64_MAX; /* a partial listing: unknown */
		v[SWEPT] = over ? now : v[SWEPT];
		int n =
		    snprintf(text, sizeof(text),
		             "hits %llu\nmisses %llu\nremote_hits %llu\nbytes %llu\nswept %llu\n",
		             (unsigned long long)v[HITS], (unsigned long long)v[MISSES],
		             (unsigned long long)v[REMOTE_HITS], (unsigned long long)v[BYTES],
		             (unsigned long long)v[SWEPT]);
		if (!ftruncate(fd, 0))
			(void)!pwrite(fd, text, (size_t)n, 0);
	}
	close(fd);
}

void ofl_cache_close(struct ofl_cache *c)
{
	if (!c)
		return;
	if (c->dir && (c->hits || c->misses || c->put_bytes))
		record(c);
	ofl_remote_close(c->remote);
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c);
}

int ofl_cache_stats(const char *dir, struct ofl_cache_stats *s, struct ofl_error *err)
{
	struct entries e = no_entries(false);
	*s = (struct ofl_cache_stats){0};
	int rc = list_entries(dir, &e, err);
	s->entries = e.n - e.nmemos;
	s->memos = e.nmemos;
	s->bytes = e.bytes;
	s->temporaries = e.ntemps;
	s->temporary_bytes = e.temp_bytes;
	release_entries(&e);
	char path[4096];
	int fd = v1_path(path, sizeof(path), dir, "stats")
	             ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
	             : -1;
	if (fd >= 0) {
		uint64_t v[NCOUNTERS];
		read_counters(fd, v);
		s->hits = v[HITS];
		s->misses = v[MISSES];
		s->remote_hits = v[REMOTE_HITS];
		close(fd);
	}
	return rc;
}

int ofl_cache_clear(const char *dir, struct ofl_error *err)
{
	struct entries e = no_entries(true);
	int rc = list_entries(dir, &e, err);
	for (size_t i = 0; !rc && i < e.n; i++)
		if (unlink(e.v[i].path) && errno != ENOENT)
			rc = ofl_error_errno(err, e.v[i].path, "cannot remove");
	release_entries(&e);
	char path[4096];
	if (!rc && v1_path(path, sizeof(path), dir, "stats") && unlink(path) && errno != ENOENT)
		rc = ofl_error_errno(err, path, "cannot remove");
	return rc;
}

/* ---- configuration ------------------------------------------------------- */

static bool env_false(const char *v)
{
	return v && (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
	             !strcasecmp(v, "no"));
}

int ofl_cache_parse_size(const char *s, uint64_t *out, struct ofl_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	const char *units = "KMGT";
	const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	unsigned shift = u ? 10u * (unsigned)(u - units + 1) : 0;
	if (errno || end == s || (*end && (!u || end[1])) || v == 0 ||
	    (shift && v > (UINT64_MAX >> shift)))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "'%s': expected a size such as 5G, 500M or a number of bytes",
		                     s);
	*out = (uint64_t)v << shift;
	return 0;
}

/* The netrc file libcurl reads for the remote's credentials, as Bazel
 * finds one: OFFLINK_CACHE_REMOTE_NETRC, else $NETRC, else ~/.netrc (a
 * missing file is no error). */
static int netrc_path(char *const *envp, char **out)
{
	const char *v = ofl_proc_env_get(envp, "OFFLINK_CACHE_REMOTE_NETRC");
	const char *home = ofl_proc_env_get(envp, "HOME");
	if (!v || !*v)
		v = ofl_proc_env_get(envp, "NETRC");
	*out = NULL;
	int n = v && *v                  ? asprintf(out, "%s", v)
	        : home && home[0] == '/' ? asprintf(out, "%s/.netrc", home)
	                                 : 0;
	return n < 0 ? -1 : 0;
}

int ofl_cache_config_from_env(char *const *envp, struct ofl_cache_config *c, struct ofl_error *err)
{
	*c = (struct ofl_cache_config)OFL_CACHE_CONFIG_INIT;
	c->opts.max_size = OFL_CACHE_DEFAULT_MAX_SIZE;
	const char *v;
	struct ofl_error bad = OFL_ERROR_INIT;
	c->enabled = !env_false(ofl_proc_env_get(envp, "OFFLINK_CACHE"));
	/* a setting that makes no sense turns the cache off, said when a link
	 * would use it (ofl_cache_open); with the cache off it is not read */
	if (c->enabled && (v = ofl_proc_env_get(envp, "OFFLINK_CACHE_MAX_SIZE")) &&
	    ofl_cache_parse_size(v, &c->opts.max_size, &bad)) {
		snprintf(c->problem, sizeof(c->problem), "OFFLINK_CACHE_MAX_SIZE: %s", bad.msg);
		c->opts.unusable = c->problem;
	}
	const char *dir = ofl_proc_env_get(envp, "OFFLINK_CACHE_DIR"),
	           *xdg = ofl_proc_env_get(envp, "XDG_CACHE_HOME");
	const char *home = ofl_proc_env_get(envp, "HOME");
	char *owned = NULL;
	int n = dir && *dir              ? asprintf(&owned, "%s", dir)
	        : xdg && xdg[0] == '/'   ? asprintf(&owned, "%s/offlink", xdg)
	        : home && home[0] == '/' ? asprintf(&owned, "%s/.cache/offlink", home)
	                                 : 0;
	if (n < 0)
		return OFL_NOMEM(err);
	c->opts.dir = owned;
	c->opts.remote = ofl_proc_env_get(envp, "OFFLINK_CACHE_REMOTE");
	if (c->opts.remote && *c->opts.remote && netrc_path(envp, &c->netrc))
		return OFL_NOMEM(err);
	c->opts.remote_netrc = c->netrc;
	c->opts.remote_header = ofl_proc_env_get(envp, "OFFLINK_CACHE_REMOTE_HEADER");
	c->opts.remote_read_only =
	    (v = ofl_proc_env_get(envp, "OFFLINK_CACHE_REMOTE_READ_ONLY")) && *v && !env_false(v);
	unsigned long ms = (v = ofl_proc_env_get(envp, "OFFLINK_CACHE_REMOTE_TIMEOUT_MS"))
	                       ? strtoul(v, NULL, 10)
	                       : 0;
	c->opts.remote_timeout_ms = ms && ms < 600000 ? (unsigned)ms : 0;
	return 0;
}

void ofl_cache_config_release(struct ofl_cache_config *c)
{
	free((char *)c->opts.dir);
	free(c->netrc);
	*c = (struct ofl_cache_config)OFL_CACHE_CONFIG_INIT;
}
