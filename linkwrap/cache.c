/* The device-link cache's local store (offlink/cache.h).
 *
 * <dir>/v1/<first two hex digits>/<64 hex digits of the key>, each entry
 * "OFLCACH2", the XXH3-128 of the payload (low, high; LE), its size (u64
 * LE) and the payload; a hit refreshes the entry's modification time, which trimming
 * reads as its last use.  <dir>/v1/stats holds the counters and the bytes
 * stored, updated under flock once per link: the store is listed (to trim
 * it, and count it exactly) only when that count passes the limit. */
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
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/proc.h"
#include "offlink/io.h"

/* The payload's checksum finds corruption (the store is private to its
 * user: no adversary writes there); XXH3-128 costs nothing beside the
 * device link, where SHA-256 through libmd cost a CPU link 2% more. */
#define MAGIC "OFLCACH2"
enum { SUM = 16, HEAD = 8 + SUM + 8 };

static void checksum(const uint8_t *p, size_t n, uint8_t out[SUM])
{
	XXH128_hash_t h = XXH3_128bits(p, n);
	ofl_put_le64(out, h.low64);
	ofl_put_le64(out + 8, h.high64);
}

struct ofl_cache {
	char *dir; /* the store's root, or NULL */
	uint64_t max_size;
	struct ofl_remote *remote;
	pthread_mutex_t lock;
	uint64_t hits, misses, remote_hits, put_bytes;
};

void ofl_hex(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

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

/* mkdir -p, each new level 0700. */
static int make_dirs(const char *path, struct ofl_error *err)
{
	char *p = ofl_strdup(path);
	if (!p)
		return OFL_NOMEM(err);
	int rc = 0;
	for (char *s = p + 1; !rc; s++) {
		bool end = !*s;
		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			rc = ofl_error_errno(err, p, "cannot make the cache directory");
		if (end)
			break;
		*s = '/';
	}
	struct stat st;
	if (!rc && (stat(p, &st) || !S_ISDIR(st.st_mode)))
		rc = ofl_error_set(err, OFL_EIO, path, OFL_NO_OFFSET,
		                   "the cache is not a directory");
	free(p);
	return rc;
}

int ofl_cache_open(struct ofl_cache **out, const struct ofl_cache_opts *o, struct ofl_error *err)
{
	struct ofl_cache *c = ofl_calloc(1, sizeof(*c));
	if (!c)
		return OFL_NOMEM(err);
	pthread_mutex_init(&c->lock, NULL);
	c->max_size = o->max_size ? o->max_size : OFL_CACHE_DEFAULT_MAX_SIZE;
	int rc = 0;
	char v1[4096];
	if (o->dir && *o->dir) {
		if (!v1_path(v1, sizeof(v1), o->dir, ""))
			rc = ofl_error_set(err, OFL_EINVAL, o->dir, OFL_NO_OFFSET,
			                   "the cache directory's name is too long");
		else if (!(c->dir = ofl_strdup(o->dir)))
			rc = OFL_NOMEM(err);
		else
			rc = make_dirs(v1, err);
	}
	if (!rc && o->remote && *o->remote)
		rc = ofl_remote_open(&c->remote, o->remote, o->remote_read_only,
		                     o->remote_timeout_ms ? o->remote_timeout_ms : 2000, err);
	if (rc) {
		ofl_cache_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

static bool entry_path(const struct ofl_cache *c, const uint8_t *key, char *path, size_t n)
{
	char hex[2 * OFL_CACHE_KEY_SIZE + 1], rest[3 + sizeof(hex)];
	ofl_hex(key, OFL_CACHE_KEY_SIZE, hex);
	snprintf(rest, sizeof(rest), "%.2s/%s", hex, hex);
	return v1_path(path, n, c->dir, rest);
}

/* 1 and the payload in out; 0 when absent; -1 when corrupt (removed). */
static int local_get(struct ofl_cache *c, const uint8_t *key, struct ofl_buf *out)
{
	char path[4096];
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	uint8_t sum[SUM];
	if (!entry_path(c, key, path, sizeof(path)) || ofl_file_open_regular(&f, path, &ignored))
		return 0;
	bool ok = f.size >= HEAD && !memcmp(f.data, MAGIC, 8) &&
	          ofl_le64(f.data + 8 + SUM) == (uint64_t)f.size - HEAD;
	if (ok) {
		checksum(f.data + HEAD, f.size - HEAD, sum);
		ok = !memcmp(sum, f.data + 8, sizeof(sum)) &&
		     !ofl_buf_append(out, f.data + HEAD, f.size - HEAD);
	}
	ofl_file_close(&f);
	if (ok)
		utimensat(AT_FDCWD, path, NULL, 0); /* its last use, for trimming */
	else
		unlink(path);
	return ok ? 1 : -1;
}

/* Written beside the entry and renamed over it (ofl_out): readers see
 * whole entries, whoever writes the same key at the same time. */
static bool local_put(struct ofl_cache *c, const uint8_t *key, const uint8_t *data, size_t n)
{
	char path[4096];
	struct ofl_out o = OFL_OUT_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	uint8_t head[HEAD];
	if (!entry_path(c, key, path, sizeof(path)))
		return errno = ENAMETOOLONG, false;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	bool ok = !mkdir(path, 0700) || errno == EEXIST;
	*slash = '/';
	memcpy(head, MAGIC, 8);
	checksum(data, n, head + 8);
	ofl_put_le64(head + 8 + SUM, n);
	ok = ok && !ofl_out_open(&o, path, &ignored) && !ofl_out_write(&o, head, HEAD, &ignored) &&
	     !ofl_out_write(&o, data, n, &ignored) && !ofl_out_commit(&o, &ignored);
	if (!ok) {
		ofl_out_abort(&o);
		return false;
	}
	pthread_mutex_lock(&c->lock);
	c->put_bytes += HEAD + n;
	pthread_mutex_unlock(&c->lock);
	return true;
}

enum ofl_cache_hit ofl_cache_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                                 struct ofl_buf *out, char *note, size_t notesz)
{
	int local = c->dir ? local_get(c, key, out) : 0;
	if (local < 0)
		say(note, notesz, "cache: a corrupt entry was removed");
	int remote =
	    local <= 0 && c->remote ? ofl_remote_get(c->remote, key, out, note, notesz) : 0;
	if (remote > 0 && c->dir)
		local_put(c, key, out->data, out->len);
	pthread_mutex_lock(&c->lock);
	if (local > 0 || remote > 0)
		c->hits++;
	else
		c->misses++;
	c->remote_hits += remote > 0;
	pthread_mutex_unlock(&c->lock);
	return local > 0 ? OFL_CACHE_LOCAL : remote > 0 ? OFL_CACHE_REMOTE : OFL_CACHE_MISS;
}

void ofl_cache_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE], const uint8_t *data,
                   size_t n, char *note, size_t notesz)
{
	if (c->dir && !local_put(c, key, data, n))
		say(note, notesz, "cache: cannot store an entry in %s: %s", c->dir,
		    strerror(errno));
	if (c->remote)
		ofl_remote_put(c->remote, key, data, n, note, notesz);
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
};

static bool is_hex_name(const char *s, size_t len)
{
	return strlen(s) == len && strspn(s, "0123456789abcdef") == len;
}

/* The entries of one two-digit directory (nothing else is looked at). */
static int list_dir(const char *dir, struct entries *e, struct ofl_error *err)
{
	DIR *d = opendir(dir);
	int rc = 0;
	for (struct dirent *de; !rc && d && (de = readdir(d));) {
		struct stat st;
		char *p = NULL;
		if (!is_hex_name(de->d_name, 2 * OFL_CACHE_KEY_SIZE))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			rc = OFL_NOMEM(err);
		else if (lstat(p, &st) || !S_ISREG(st.st_mode))
			free(p);
		else if (OFL_GROW(e->v, e->cap, e->n)) {
			free(p);
			rc = OFL_NOMEM(err);
		} else {
			e->v[e->n++] = (struct entry){p, (uint64_t)st.st_size, st.st_mtim};
			e->bytes += (uint64_t)st.st_size;
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

/* ofl_cache_trim; *left: the bytes stored after it. */
static int trim(const char *root, uint64_t max_size, uint64_t *left, struct ofl_error *err)
{
	struct entries e = {NULL, 0, 0, 0};
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
 * cleared, and the bytes stored (unknown until counted: UINT64_MAX). */
enum { HITS, MISSES, REMOTE_HITS, BYTES, NCOUNTERS };
static const char *const counter_names[NCOUNTERS] = {"hits", "misses", "remote_hits", "bytes"};

static void read_counters(int fd, uint64_t v[NCOUNTERS])
{
	char text[256];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	v[HITS] = v[MISSES] = v[REMOTE_HITS] = 0;
	v[BYTES] = UINT64_MAX;
	for (int i = 0; i < NCOUNTERS; i++) {
		const char *p = strstr(text, counter_names[i]);
		unsigned long long x = 0;
		if (p && sscanf(p + strlen(counter_names[i]), " %llu", &x) == 1)
			v[i] = x;
	}
}

/* Adds this session's counters to the store's and, when the bytes stored
 * pass the limit, trims the store, all under one lock.  A count that is
 * off (an entry written twice, one removed as corrupt, a trim by `offlink
 * cache trim`) is too high, never too low, and is made exact by the next
 * listing. */
static void record(const struct ofl_cache *c)
{
	char path[4096], text[256];
	if (!v1_path(path, sizeof(path), c->dir, "stats"))
		return;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	uint64_t v[NCOUNTERS];
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (!flock(fd, LOCK_EX)) {
		read_counters(fd, v);
		v[HITS] += c->hits;
		v[MISSES] += c->misses;
		v[REMOTE_HITS] += c->remote_hits;
		bool over =
		    ofl_add_overflow(v[BYTES], c->put_bytes, &v[BYTES]) || v[BYTES] > c->max_size;
		if (over && trim(c->dir, c->max_size, &v[BYTES], &ignored))
			v[BYTES] = UINT64_MAX; /* a partial listing: unknown */
		int n = snprintf(text, sizeof(text),
		                 "hits %llu\nmisses %llu\nremote_hits %llu\nbytes %llu\n",
		                 (unsigned long long)v[HITS], (unsigned long long)v[MISSES],
		                 (unsigned long long)v[REMOTE_HITS], (unsigned long long)v[BYTES]);
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
	struct entries e = {NULL, 0, 0, 0};
	*s = (struct ofl_cache_stats){0, 0, 0, 0, 0};
	int rc = list_entries(dir, &e, err);
	s->entries = e.n;
	s->bytes = e.bytes;
	release_entries(&e);
	char path[4096];
	int fd = v1_path(path, sizeof(path), dir, "stats")
	             ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
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
	struct entries e = {NULL, 0, 0, 0};
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

int ofl_cache_config_from_env(char *const *envp, struct ofl_cache_config *c, struct ofl_error *err)
{
	*c = (struct ofl_cache_config)OFL_CACHE_CONFIG_INIT;
	c->opts.max_size = OFL_CACHE_DEFAULT_MAX_SIZE;
	const char *v;
	c->enabled = !env_false(ofl_proc_env_get(envp, "OFFLINK_CACHE"));
	if ((v = ofl_proc_env_get(envp, "OFFLINK_CACHE_MAX_SIZE")) &&
	    ofl_cache_parse_size(v, &c->opts.max_size, err)) {
		ofl_error_prefix(err, "OFFLINK_CACHE_MAX_SIZE");
		return err->code;
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
	*c = (struct ofl_cache_config)OFL_CACHE_CONFIG_INIT;
}
