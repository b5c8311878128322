/* The key of a device link (cache_priv.h): SHA-256 over tagged,
 * length-prefixed items, so that no two different sequences of items hash
 * alike.  SHA-256 through nettle, which uses the CPU's SHA extensions
 * (~1.1-1.5 GB/s here, libmd's portable code ~240 MB/s: inputs of
 * hundreds of megabytes are hashed on every lookup) and, unlike libcrypto
 * (0.85 ms to its first digest: it loads its configuration and registers
 * process-wide cleanup inside the user's linker), keeps no global state. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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
	/* a new format of keys or entries starts over: 2, the key of
	 * docs/design.md's list and a manifest after the image */
	ofl_key_str(k, "offlink-device-link", "2");
}

void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s)
{
	item(k, tag, s, strlen(s));
}

void ofl_sha256(const void *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, n, p);
	sha256_digest(&c, OFL_CACHE_KEY_SIZE, sum);
}

/* Bytes from CHUNK up are hashed as a tree, chunk by chunk on up to
 * THREADS threads: the SHA-256 of the chunks' SHA-256s (a 200 MB image's
 * inputs take half the time on two cores).  The tree does not depend on
 * the number of threads. */
#define CHUNK ((size_t)16 << 20)
#define THREADS 4

struct tree {
	const uint8_t *p;
	size_t n, nchunks, next; /* next: the next chunk to hash (atomic) */
	uint8_t (*sums)[OFL_CACHE_KEY_SIZE];
};

static void *hash_chunks(void *arg)
{
	struct tree *t = arg;
	for (size_t c; (c = __atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED)) < t->nchunks;) {
		size_t off = c * CHUNK;
		ofl_sha256(t->p + off, t->n - off < CHUNK ? t->n - off : CHUNK, t->sums[c]);
	}
	return NULL;
}

/* -1 when out of memory. */
static int tree_sum(const uint8_t *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE])
{
	struct tree t = {p, n, (n + CHUNK - 1) / CHUNK, 0, NULL};
	pthread_t th[THREADS - 1];
	size_t started = 0;
	if (!(t.sums = ofl_calloc(t.nchunks, sizeof(*t.sums))))
		return -1;
	/* threads that cannot start leave their chunks to this one */
	while (started < THREADS - 1 && started + 1 < t.nchunks &&
	       !pthread_create(&th[started], NULL, hash_chunks, &t))
		started++;
	hash_chunks(&t);
	while (started)
		pthread_join(th[--started], NULL);
	ofl_sha256(t.sums, t.nchunks * sizeof(*t.sums), sum);
	free(t.sums);
	return 0;
}

void ofl_key_bytes(struct ofl_cache_key *k, const char *tag, const uint8_t *p, size_t n)
{
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	if (n >= CHUNK && !tree_sum(p, n, sum))
		ofl_key_str(k, "tree", tag); /* not to be taken for a plain SHA-256 */
	else
		ofl_sha256(p, n, sum);
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

void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE])
{
	sha256_digest(&k->ctx, OFL_CACHE_KEY_SIZE, key);
}
