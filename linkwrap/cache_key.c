/* The key of a device link (cache_priv.h): SHA-256 over tagged,
 * length-prefixed items, so that no two different sequences of items hash
 * alike. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/io.h"

static void item(struct ofl_cache_key *k, const char *tag, const void *p, size_t n)
{
	uint8_t len[8];
	SHA256Update(&k->ctx, (const uint8_t *)tag, strlen(tag) + 1);
	ofl_put_le64(len, n);
	SHA256Update(&k->ctx, len, sizeof(len));
	SHA256Update(&k->ctx, p, n);
}

void ofl_key_init(struct ofl_cache_key *k)
{
	SHA256Init(&k->ctx);
	/* a new format of keys or entries starts over */
	ofl_key_str(k, "offlink-device-link", "1");
}

void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s)
{
	item(k, tag, s, strlen(s));
}

void ofl_key_bytes(struct ofl_cache_key *k, const uint8_t *p, size_t n)
{
	SHA2_CTX c;
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	SHA256Init(&c);
	SHA256Update(&c, p, n);
	SHA256Final(sum, &c);
	item(k, "content", sum, sizeof(sum));
}

int ofl_key_content(struct ofl_cache_key *k, const char *path)
{
	struct ofl_file f = OFL_FILE_INIT;
	struct ofl_error ignored = OFL_ERROR_INIT;
	if (ofl_file_open(&f, path, &ignored))
		return -1;
	ofl_key_bytes(k, f.data, f.size);
	ofl_file_close(&f);
	return 0;
}

bool ofl_key_identity(struct ofl_cache_key *k, const char *path, char *real)
{
	char own[PATH_MAX], id[PATH_MAX + 96];
	struct stat st;
	real = real ? real : own;
	if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode))
		return false;
	snprintf(id, sizeof(id), "%s %lld %lld.%09ld", real, (long long)st.st_size,
	         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	ofl_key_str(k, "file", id);
	return true;
}

void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	SHA256Final(key, &k->ctx);
}
