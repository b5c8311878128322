/* Private to the device-link cache (cache.c, cache_remote.c, cache_key.c,
 * devlink_cache.c): the remote store, and the key of a device link. */
#ifndef OFL_CACHE_PRIV_H
#define OFL_CACHE_PRIV_H

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/cache.h"
#include "offlink/error.h"

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

/* Bytes as lowercase hex (2n + 1 bytes with the NUL). */
void ofl_hex(const uint8_t *p, size_t n, char *out);

/* cache_key.c: what decides a device link's output, hashed.  Every item
 * is tagged and length-prefixed, so no two sequences of items collide. */
struct ofl_cache_key {
	struct sha256_ctx ctx;
};
void ofl_key_init(struct ofl_cache_key *k);
void ofl_key_str(struct ofl_cache_key *k, const char *tag, const char *s);
/* The SHA-256 of bytes (an input of the link not written yet) under tag. */
void ofl_key_bytes(struct ofl_cache_key *k, const char *tag, const uint8_t *p, size_t n);
/* The SHA-256 of a regular file's bytes: an input of the link.  -1 when
 * it cannot be read (the link is then not cached). */
int ofl_key_content(struct ofl_cache_key *k, const char *path);
/* Real path, size and modification time of a file the link may read (a
 * tool, a library): an upgrade changes the key.  false, and nothing
 * added, when path is no regular file; its real path goes to real
 * (PATH_MAX bytes) when not NULL. */
bool ofl_key_identity(struct ofl_cache_key *k, const char *path, char *real);
void ofl_key_final(struct ofl_cache_key *k, uint8_t key[OFL_CACHE_KEY_SIZE]);
/* devlink_key.c: the key of device-link command cmd of group gi, or -1
 * when what it reads cannot be resolved (not cached); the paths the key
 * covers by content or identity are pushed to keyed (owned strings), for
 * the manifest to skip. */
struct ofl_link;
struct ofl_proc;
int ofl_devlink_key(const struct ofl_link *l, size_t gi, const struct ofl_proc *cmd,
                    uint8_t key[OFL_CACHE_KEY_SIZE], struct ofl_ptrs *keyed);
/* SHA-256 at the CPU's speed (nettle), for the remote's names too. */
void ofl_sha256(const void *p, size_t n, uint8_t sum[OFL_CACHE_KEY_SIZE]);

#endif
