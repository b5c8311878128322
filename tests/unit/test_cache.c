/* The device-link cache's configuration and local store (offlink/cache.h):
 * a bad size turns the cache off without an error; entries round-trip
 * (stored in parts, read mapped, large ones checked chunk by chunk), an
 * entry under another key's name and a FIFO under an entry's name are
 * misses; a store anyone may write is refused; temporaries are counted and
 * the stale ones swept; memos are kept apart, and the key remembers a
 * large input's digest by its file's identity only while it holds. */
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "../../linkwrap/cache/cache_priv.h"
#include "offlink/cache.h"
#include "offlink/io.h"

static const uint8_t key_a[OFL_CACHE_KEY_SIZE] = {0xaa, 1}, key_b[OFL_CACHE_KEY_SIZE] = {0xaa, 2};

OFL_TEST(config_bad_size_is_no_error)
{
	char *env[] = {"OFFLINK_CACHE_MAX_SIZE=5GB", "HOME=/home/u", NULL};
	struct ofl_cache_config c;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_cache_config_from_env(env, &c, &err) == 0);
	CHECK(c.enabled && c.opts.unusable);
	CHECK(strstr(c.opts.unusable, "OFFLINK_CACHE_MAX_SIZE: '5GB': expected a size such as 5G"));
	struct ofl_cache *cache = NULL;
	CHECK(ofl_cache_open(&cache, &c.opts, NULL, &err) == OFL_EINVAL && !cache);
	CHECK(strstr(err.msg, "OFFLINK_CACHE_MAX_SIZE"));
	ofl_cache_config_release(&c);
}

OFL_TEST(config_off_checks_nothing)
{
	char *env[] = {"OFFLINK_CACHE=0", "OFFLINK_CACHE_MAX_SIZE=1.5G", NULL};
	struct ofl_cache_config c;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_cache_config_from_env(env, &c, &err) == 0);
	CHECK(!c.enabled && !c.opts.unusable);
	ofl_cache_config_release(&c);
}

OFL_TEST(config_netrc)
{
	char *env[] = {"OFFLINK_CACHE_REMOTE=http://h/", "NETRC=/n/rc", "HOME=/home/u",
	               "OFFLINK_CACHE_REMOTE_HEADER=Authorization: Bearer t", NULL};
	struct ofl_cache_config c;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_cache_config_from_env(env, &c, &err) == 0);
	CHECK(c.opts.remote_netrc && !strcmp(c.opts.remote_netrc, "/n/rc"));
	CHECK(!strcmp(c.opts.remote_header, "Authorization: Bearer t"));
	ofl_cache_config_release(&c);
	env[1] = "OFFLINK_CACHE_REMOTE_NETRC=/o/rc";
	CHECK(ofl_cache_config_from_env(env, &c, &err) == 0);
	CHECK(!strcmp(c.opts.remote_netrc, "/o/rc"));
	ofl_cache_config_release(&c);
	env[1] = "X=1";
	CHECK(ofl_cache_config_from_env(env, &c, &err) == 0);
	CHECK(!strcmp(c.opts.remote_netrc, "/home/u/.netrc"));
	ofl_cache_config_release(&c);
}

static struct ofl_cache *open_store(const char *dir)
{
	struct ofl_cache_opts o = {.dir = dir};
	struct ofl_cache *c = NULL;
	struct ofl_error err = OFL_ERROR_INIT;
	return ofl_cache_open(&c, &o, NULL, &err) ? NULL : c;
}

static void put(struct ofl_cache *c, const uint8_t *key, const char *text, char *note, size_t n)
{
	ofl_cache_put(c, key, &(struct iovec){(void *)text, strlen(text)}, 1, note, n);
}

/* the path of key's entry in store "s" */
static void entry_of(const uint8_t *key, char *path)
{
	char hex[65];
	for (int i = 0; i < OFL_CACHE_KEY_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", key[i]);
	sprintf(path, "s/v1/%.2s/%s", hex, hex);
}

OFL_TEST(store_round_trip_and_misfiled_entries)
{
	mode_t old = umask(022);
	struct ofl_cache *c = open_store("s");
	umask(old);
	CHECK(c);
	struct ofl_file b;
	char note[256] = "", pa[128], pb[128];
	put(c, key_a, "image a", note, sizeof(note));
	put(c, key_b, "image b", note, sizeof(note));
	CHECK(ofl_cache_get(c, key_a, &b, note, sizeof(note)) == OFL_CACHE_LOCAL);
	CHECK(b.size == 7 && !memcmp(b.data, "image a", 7));
	ofl_file_close(&b);
	entry_of(key_a, pa);
	entry_of(key_b, pb);
	struct stat st;
	CHECK(!stat(pa, &st) && (st.st_mode & 07777) == 0600);
	/* a's entry under b's name: a miss, removed */
	CHECK(!rename(pa, pb));
	CHECK(ofl_cache_get(c, key_b, &b, note, sizeof(note)) == OFL_CACHE_MISS && b.size == 0);
	CHECK(strstr(note, "corrupt entry"));
	CHECK(access(pb, F_OK));
	/* a FIFO under a's name: a miss at once */
	CHECK(!mkfifo(pa, 0600));
	CHECK(ofl_cache_get(c, key_a, &b, note, sizeof(note)) == OFL_CACHE_MISS);
	ofl_cache_close(c);
}

OFL_TEST(store_anyone_may_write_is_refused)
{
	CHECK(!mkdir("w", 0777) && !chmod("w", 0777));
	struct ofl_cache_opts o = {.dir = "w"};
	struct ofl_cache *c = NULL;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_cache_open(&c, &o, NULL, &err) == OFL_EINVAL && !c);
	CHECK(strstr(err.msg, "not ours nor a group's shared one"));
	CHECK(access("w/v1", F_OK));
}

OFL_TEST(temporaries_counted_and_swept)
{
	struct ofl_cache *c = open_store("s");
	CHECK(c);
	char note[256], p[128], stale[160], fresh[160];
	put(c, key_a, "x", note, sizeof(note));
	ofl_cache_close(c);
	entry_of(key_a, p);
	char *slash = strrchr(p, '/');
	snprintf(stale, sizeof(stale), "%.*s/.%s.ofl-abcdef", (int)(slash - p), p, slash + 1);
	snprintf(fresh, sizeof(fresh), "%.*s/.%s.ofl-ghijkl", (int)(slash - p), p, slash + 1);
	close(open(stale, O_CREAT | O_WRONLY, 0600));
	close(open(fresh, O_CREAT | O_WRONLY, 0600));
	struct timespec hour_ago[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
	CHECK(!utimensat(AT_FDCWD, stale, hour_ago, 0));
	struct ofl_cache_stats s;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(!ofl_cache_stats("s", &s, &err) && s.entries == 1 && s.temporaries == 2);
	CHECK(!ofl_cache_trim("s", 1 << 20, &err));
	CHECK(access(stale, F_OK) && !access(fresh, F_OK));
	CHECK(!ofl_cache_stats("s", &s, &err) && s.entries == 1 && s.temporaries == 1);
}

/* An entry stored in parts is read back whole, mapped from the store
 * (from 64 KiB on: a smaller one, a memo, is read). */
OFL_TEST(store_parts_mapped_back)
{
	struct ofl_cache *c = open_store("s");
	CHECK(c);
	static uint8_t image[(64 << 10) + 7];
	for (size_t i = 0; i < sizeof(image); i++)
		image[i] = (uint8_t)(i * 31);
	char note[256] = "";
	struct iovec parts[] = {{image, sizeof(image)}, {"manifest", 8}};
	ofl_cache_put(c, key_a, parts, 2, note, sizeof(note));
	struct ofl_file f;
	CHECK(ofl_cache_get(c, key_a, &f, note, sizeof(note)) == OFL_CACHE_LOCAL);
	CHECK(f.mapped == 1 && f.size == sizeof(image) + 8);
	CHECK(!memcmp(f.data, image, sizeof(image)) &&
	      !memcmp(f.data + sizeof(image), "manifest", 8));
	ofl_file_close(&f);
	ofl_cache_close(c);
}

/* Memos: the local store's small records, apart from its entries: read
 * back whole, counted apart, cleared with the rest; a hit or miss of
 * theirs is none of the store's. */
OFL_TEST(store_memos)
{
	struct ofl_cache *c = open_store("s");
	CHECK(c);
	struct ofl_file out = OFL_FILE_INIT;
	char note[256] = "";
	CHECK(!ofl_cache_memo_get(c, key_a, &out));
	ofl_cache_memo_put(c, key_a, (const uint8_t *)"memo!", 5);
	CHECK(ofl_cache_memo_get(c, key_a, &out) && out.size == 5 && !memcmp(out.data, "memo!", 5));
	ofl_file_close(&out);
	struct ofl_file f;
	CHECK(ofl_cache_get(c, key_a, &f, note, sizeof(note)) == OFL_CACHE_MISS);
	put(c, key_a, "entry", note, sizeof(note));
	CHECK(ofl_cache_memo_get(c, key_a, &out) && out.size == 5 && !memcmp(out.data, "memo!", 5));
	ofl_file_close(&out);
	ofl_cache_close(c);
	struct ofl_cache_stats st;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(!ofl_cache_stats("s", &st, &err) && st.entries == 1 && st.memos == 1);
	CHECK(st.hits == 0 && st.misses == 1);
	CHECK(!ofl_cache_clear("s", &err));
	CHECK(!ofl_cache_stats("s", &st, &err) && st.entries == 0 && st.memos == 0);
}

static void key_of(struct ofl_cache *c, const struct ofl_file *f, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	struct ofl_cache_key k;
	ofl_key_init(&k);
	ofl_key_input(&k, c, f, f->data, f->size);
	ofl_key_final(&k, key);
}

static uint64_t memos(void)
{
	struct ofl_cache_stats st;
	struct ofl_error err = OFL_ERROR_INIT;
	return ofl_cache_stats("s", &st, &err) ? UINT64_MAX : st.memos;
}

/* The key of the one memo in store "s" (its file's name), false when
 * there is none. */
static bool the_memo(uint8_t key[OFL_CACHE_KEY_SIZE])
{
	glob_t g;
	bool one = !glob("s/v1/*/*.i", 0, NULL, &g) && g.gl_pathc == 1;
	const char *name = one ? strrchr(g.gl_pathv[0], '/') + 1 : NULL;
	for (int i = 0; one && i < OFL_CACHE_KEY_SIZE; i++) {
		unsigned v;
		one = sscanf(name + 2 * i, "%2x", &v) == 1;
		key[i] = (uint8_t)v;
	}
	globfree(&g);
	return one;
}

/* A large input's digest is remembered by its file's identity once the
 * file has not changed for 2 s, is what hashing gives, and is what the
 * key takes while the file is unchanged; bytes from memory and small
 * inputs are hashed each time.  (On file systems whose change times are
 * not the kernel's alone, nothing is remembered.) */
OFL_TEST(key_memo_of_large_inputs)
{
	struct ofl_error err = OFL_ERROR_INIT;
	size_t n = 3 * OFL_KEY_MEMO_MIN / 2;
	uint8_t *big = malloc(n), k1[OFL_CACHE_KEY_SIZE], k2[OFL_CACHE_KEY_SIZE],
	        k3[OFL_CACHE_KEY_SIZE], plain[OFL_CACHE_KEY_SIZE];
	for (size_t i = 0; i < n; i++)
		big[i] = (uint8_t)(i * 17 + (i >> 12));
	CHECK(big && !ofl_write_file("in", big, n, &err) &&
	      !ofl_write_file("small", big, 4096, &err));
	struct ofl_cache *c = open_store("s");
	struct ofl_file f, s;
	CHECK(c && !ofl_file_open(&f, "in", &err) && f.mapped == 1);
	struct ofl_cache_key k;
	ofl_key_init(&k);
	ofl_key_bytes(&k, "content", big, n);
	ofl_key_final(&k, plain);
	key_of(c, &f, k1); /* written just now: not remembered */
	CHECK(!memcmp(k1, plain, sizeof(plain)) && memos() == 0);
	if (!ofl_fs_kernel_ctime(f.fd)) {
		ofl_file_close(&f);
		ofl_cache_close(c);
		free(big);
		return;
	}
	nanosleep(&(struct timespec){2, 200000000}, NULL);
	key_of(c, &f, k2);
	CHECK(!memcmp(k2, plain, sizeof(plain)) && memos() == 1);
	/* the key takes the memo's digest: one planted wrong shows */
	uint8_t mk[OFL_CACHE_KEY_SIZE], memo[105], wrong[105];
	struct ofl_file got = OFL_FILE_INIT;
	CHECK(the_memo(mk) && ofl_cache_memo_get(c, mk, &got) && got.size == sizeof(memo));
	memcpy(memo, got.data, sizeof(memo));
	ofl_file_close(&got);
	memcpy(wrong, memo, sizeof(memo));
	wrong[80] ^= 1; /* in the digest, after the 72-byte identity */
	ofl_cache_memo_put(c, mk, wrong, sizeof(wrong));
	key_of(c, &f, k3);
	CHECK(memcmp(k3, plain, sizeof(plain)));
	ofl_cache_memo_put(c, mk, memo, sizeof(memo));
	key_of(c, &f, k3);
	CHECK(!memcmp(k3, plain, sizeof(plain)) && memos() == 1);
	ofl_file_close(&f);
	CHECK(!ofl_file_open(&s, "small", &err));
	key_of(c, &s, k3);
	ofl_file_close(&s);
	CHECK(memos() == 1);
	/* rewritten in place, same size, modification time put back: a new
	 * change time, a new identity, the new bytes' digest */
	big[n / 2] ^= 1;
	struct stat before;
	CHECK(!stat("in", &before));
	int fd = open("in", O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, big + n / 2, 1, (off_t)(n / 2)) == 1 && !close(fd));
	CHECK(!utimensat(AT_FDCWD, "in", (struct timespec[]){before.st_atim, before.st_mtim}, 0));
	CHECK(!ofl_file_open(&f, "in", &err));
	key_of(c, &f, k3);
	ofl_key_init(&k);
	ofl_key_bytes(&k, "content", big, n);
	ofl_key_final(&k, plain);
	CHECK(!memcmp(k3, plain, sizeof(plain)) && memcmp(k3, k2, sizeof(k2)));
	ofl_file_close(&f);
	ofl_cache_close(c);
	free(big);
}

/* Large entries are checked chunk by chunk when read: the checksum of an
 * entry written in parts that straddle the chunks (16 MiB) is the one read
 * back, whatever the split; a byte changed in any chunk is found. */
OFL_TEST(store_large_entries_checked_in_chunks)
{
	struct ofl_cache *c = open_store("s");
	CHECK(c);
	size_t mib = (size_t)1 << 20, n = 33 * mib + 5;
	uint8_t *p = malloc(n);
	CHECK(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i ^ (i >> 11));
	char note[256] = "", path[128];
	const size_t sizes[] = {16 * mib, 32 * mib, n}, splits[] = {16 * mib - 3, 7, 16 * mib};
	for (size_t t = 0; t < 3; t++) {
		size_t a = splits[t] < sizes[t] ? splits[t] : sizes[t] / 2;
		struct iovec parts[] = {{p, a}, {p + a, sizes[t] - a}};
		ofl_cache_put(c, key_a, parts, 2, note, sizeof(note));
		struct ofl_file f;
		CHECK(ofl_cache_get(c, key_a, &f, note, sizeof(note)) == OFL_CACHE_LOCAL);
		CHECK(f.size == sizes[t] && !memcmp(f.data, p, sizes[t]));
		ofl_file_close(&f);
	}
	/* empty parts at a chunk's edge */
	struct iovec edges[] = {{p, 0}, {p, 16 * mib}, {p, 0}, {p + 16 * mib, 5}};
	ofl_cache_put(c, key_a, edges, 4, note, sizeof(note));
	struct ofl_file e;
	CHECK(ofl_cache_get(c, key_a, &e, note, sizeof(note)) == OFL_CACHE_LOCAL);
	CHECK(e.size == 16 * mib + 5 && !memcmp(e.data, p, e.size));
	ofl_file_close(&e);
	/* nothing at all is not stored (it would read back as corrupt) */
	ofl_cache_put(c, key_b, &(struct iovec){p, 0}, 1, note, sizeof(note));
	*note = '\0';
	CHECK(ofl_cache_get(c, key_b, &e, note, sizeof(note)) == OFL_CACHE_MISS && !*note);
	entry_of(key_a, path);
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "!", 1, (off_t)(32 + 17 * mib)) == 1 && !close(fd));
	struct ofl_file f;
	CHECK(ofl_cache_get(c, key_a, &f, note, sizeof(note)) == OFL_CACHE_MISS);
	CHECK(strstr(note, "corrupt entry") && access(path, F_OK));
	ofl_cache_close(c);
	free(p);
}
