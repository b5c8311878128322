/* The key of a device link (cache_priv.h): SHA-256 over tagged,
 * length-prefixed items, so that no two different sequences of items hash
 * alike.  SHA-256 through libcrypto, which uses the CPU's SHA extensions
 * (~1.9 GB/s here, libmd's portable code ~240 MB/s): inputs of hundreds of
 * megabytes are hashed on every lookup. */
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cache_priv.h"
#include "internal.h"
#include "offlink/io.h"

static void item(struct ofl_cache_key *k, const char *tag, const void *p, size_t n)
{
	uint8_t len[8];
	if (!k->ctx) {
		k->failed = true;
		return;
	}
	ofl_put_le64(len, n);
	k->failed |= !EVP_DigestUpdate(k->ctx, tag, strlen(tag) + 1) ||
	             !EVP_DigestUpdate(k->ctx, len, sizeof(len)) || !EVP_DigestUpdate(k->ctx, p, n);
}

int ofl_key_init(struct ofl_cache_key *k)
{
	k->failed = false;
	k->ctx = EVP_MD_CTX_new();
	if (!k->ctx || !EVP_DigestInit_ex(k->ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(k->ctx);
		k->ctx = NULL;
		return -1;
	}
	/* a new format of keys or entries starts over: 2, the key of
	 * docs/design.md's list and a manifest after the image */
	ofl_key_str(k, "offlink-device-link", "2");
	return 0;
}

void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s)
{
	item(k, tag, s, strlen(s));
}

int ofl_sha256(const void *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE])
{
	return EVP_Digest(p, n, sum, NULL, EVP_sha256(), NULL) ? 0 : -1;
}

void ofl_key_bytes(struct ofl_cache_key *k, const char *tag, const uint8_t *p, size_t n)
{
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	k->failed |= ofl_sha256(p, n, sum) != 0;
	item(k, tag, sum, sizeof(sum));
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

bool ofl_key_identity(struct ofl_cache_key *k, const char *path, char *real)
{
	char own[PATH_MAX], id[PATH_MAX + 96];
	struct stat st;
	real = real ? real : own;
	if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode))
		return false;
	snprintf(id, sizeof(id), "%s %lld %lld.%09ld", real, (long long)st.st_size,
	         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	ofl_key_str(k, "identity", id);
	return true;
}

int ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	bool ok = k->ctx && !k->failed && EVP_DigestFinal_ex(k->ctx, key, NULL);
	EVP_MD_CTX_free(k->ctx);
	k->ctx = NULL;
	return ok ? 0 : -1;
}
