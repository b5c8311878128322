/* The device-link cache's configuration and local store (offlink/cache.h):
 * a bad size turns the cache off without an error; entries round-trip, an
 * entry under another key's name and a FIFO under an entry's name are
 * misses; a store anyone may write is refused; temporaries are counted and
 * the stale ones swept. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/cache.h"

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
	struct ofl_buf b = OFL_BUF_INIT;
	char note[256] = "", pa[128], pb[128];
	ofl_cache_put(c, key_a, (const uint8_t *)"image a", 7, note, sizeof(note));
	ofl_cache_put(c, key_b, (const uint8_t *)"image b", 7, note, sizeof(note));
	CHECK(ofl_cache_get(c, key_a, &b, note, sizeof(note)) == OFL_CACHE_LOCAL);
	CHECK(b.len == 7 && !memcmp(b.data, "image a", 7));
	entry_of(key_a, pa);
	entry_of(key_b, pb);
	struct stat st;
	CHECK(!stat(pa, &st) && (st.st_mode & 07777) == 0600);
	/* a's entry under b's name: a miss, removed */
	CHECK(!rename(pa, pb));
	b.len = 0;
	CHECK(ofl_cache_get(c, key_b, &b, note, sizeof(note)) == OFL_CACHE_MISS && b.len == 0);
	CHECK(strstr(note, "corrupt entry"));
	CHECK(access(pb, F_OK));
	/* a FIFO under a's name: a miss at once */
	CHECK(!mkfifo(pa, 0600));
	CHECK(ofl_cache_get(c, key_a, &b, note, sizeof(note)) == OFL_CACHE_MISS);
	ofl_buf_release(&b);
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
	ofl_cache_put(c, key_a, (const uint8_t *)"x", 1, note, sizeof(note));
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
