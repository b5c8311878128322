/* Private to the device-link cache (cache.c, cache_remote.c, cache_key.c,
 * hash.c) and the run's key and store (run/key.c, run/action.c): the
 * remote store, and the key of a device link. */
#ifndef OFL_CACHE_PRIV_H
#define OFL_CACHE_PRIV_H

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/cache.h"
#include "offlink/error.h"
#include "offlink/io.h"

/* cache_remote.c: Bazel's HTTP remote-cache protocol over libcurl. */
struct ofl_remote;
/* The remote o names (o->remote set); stop as ofl_cache_open's. */
int ofl_remote_open(struct ofl_remote **r, const struct ofl_cache_opts *o, const int *stop,
                    struct ofl_error *err);
void ofl_remote_close(struct ofl_remote *r);
/* 1: the bytes are in out (checked against their hash); 0: not there;
 * -1: the remote failed (down, slow, garbage), said in note, and is not
 * asked again.  A refused upload (ofl_remote_put) stops uploads only. */
int ofl_remote_get(struct ofl_remote *r, const uint8_t key[OFL_CACHE_KEY_SIZE], struct ofl_buf *out,
                   char *note, size_t notesz);
void ofl_remote_put(struct ofl_remote *r, const uint8_t key[OFL_CACHE_KEY_SIZE],
                    const uint8_t *data, size_t n, char *note, size_t notesz);
/* Whether an upload would be tried (not read-only, not turned off). */
bool ofl_remote_takes_puts(struct ofl_remote *r);

/* Small records of the local store only, beside its entries (trimmed,
 * cleared and counted with them), never sent to the remote nor counted as
 * hits or misses: what a link learnt of a file (cache_key.c) or of clang's
 * driver (the plan's expand.c).  get: true, and the record's bytes in out,
 * when there is one under key. */
bool ofl_cache_memo_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                        struct ofl_file *out);
void ofl_cache_memo_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                        const uint8_t *data, size_t n);

/* hash.c: bytes as lowercase hex (2n + 1 bytes with the NUL). */
void ofl_hex(const uint8_t *p, size_t n, char *out);

/* cache_key.c: what decides a device link's output, hashed.  Every item
 * is tagged and length-prefixed, so no two sequences of items collide. */
struct ofl_cache_key {
	struct sha256_ctx ctx;
};
void ofl_key_init(struct ofl_cache_key *k);
void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s);
/* The SHA-256 of bytes under tag (a tree's past 256 KiB). */
void ofl_key_bytes(struct ofl_cache_key *k, const char *tag, const uint8_t *p, size_t n);
/* Inputs from this size up are worth a memo (ofl_key_input). */
#define OFL_KEY_MEMO_MIN ((size_t)1 << 20)
/* A file's bytes, known before it is read (one the link writes, a
 * response file the plan read), added as ofl_key_file adds a file's: the
 * same key whether the file is read or these bytes.  f: the mapped input
 * file holding them (NULL: bytes made in memory).  The SHA-256 of a large
 * input is remembered in c by its file's identity, and taken from there
 * while the file is unchanged (ccache's inode cache): on file systems
 * where the kernel alone sets a file's change time, for a file that
 * changed at least 2 s before it was hashed. */
void ofl_key_input(struct ofl_cache_key *k, struct ofl_cache *c, const struct ofl_file *f,
                   const uint8_t *p, size_t n);
/* A file's identity as the cache compares it: device, inode, size,
 * modification and change times, little-endian 64-bit each. */
struct stat;
enum { OFL_STAT_ID = 7 * 8 };
void ofl_stat_id(const struct stat *st, uint8_t id[OFL_STAT_ID]);
/* What one link saw of the files its actions read: each file's stat and
 * digest, taken on its first use (thread-safe). */
struct ofl_digests;
struct ofl_digests *ofl_digests_new(void);
void ofl_digests_free(struct ofl_digests *d);
/* A file an action may read, by the SHA-256 of its bytes (a tree's past
 * 256 KiB), remembered in c (when not NULL) under its identity as large
 * inputs are, and in d (when not NULL) for the rest of the link; *st (when
 * not NULL) what was seen of it.  0, or -1 when it is no regular file or
 * cannot be read (the action is then not cached). */
int ofl_key_file(struct ofl_cache_key *k, struct ofl_cache *c, struct ofl_digests *d,
                 const char *path, struct stat *st);
void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE]);

/* fn(chunk, its length, sums + i * size) for the i-th of
 * the ofl_chunk_count(n, chunk) chunks of p[0..n) (one, empty, when n is
 * 0), on up to 4 threads. */
typedef void ofl_chunk_fn(const uint8_t *p, size_t n, uint8_t *sum);
size_t ofl_chunk_count(size_t n, size_t chunk);
void ofl_hash_chunks(const uint8_t *p, size_t n, size_t chunk, ofl_chunk_fn *fn, size_t size,
                     uint8_t *sums);

/* hash.c: SHA-256 at the CPU's speed (nettle), for the remote's names too. */
void ofl_sha256(const void *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE]);

#endif
