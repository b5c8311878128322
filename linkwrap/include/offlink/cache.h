/* The device-link cache (docs/design.md, "Device-link cache").
 *
 * Device links are hermetic (inputs named by content, the output by the
 * hash of the inputs), so their outputs can be kept: under a SHA-256 key
 * over everything that decides them, in a local directory and, for teams
 * and CI, in a shared HTTP cache speaking Bazel's remote-cache protocol
 * (GET/PUT of <remote>/ac/<key> for the action and <remote>/cas/<sha256>
 * for the bytes), which bazel-remote and nginx with WebDAV serve.
 *
 * A cache never fails a link: a missing, corrupt or unreachable store is a
 * miss, and a remote that is down or answers garbage is skipped for the
 * rest of the link after one timeout.  Entries are checked against the hash
 * of their bytes when read; they are written to a temporary file and
 * renamed, so concurrent links and machines sharing a file system see whole
 * entries only.
 */
#ifndef OFFLINK_CACHE_H
#define OFFLINK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_CACHE_KEY_SIZE 32
/* What the local store keeps unless told otherwise: 5 GiB. */
#define OFL_CACHE_DEFAULT_MAX_SIZE (5ull << 30)

struct ofl_cache_opts {
	const char *dir;            /* local store, made 0700; NULL or "": none */
	uint64_t max_size;          /* local bytes kept; 0: the default */
	const char *remote;         /* http(s)://host[:port][/prefix]; NULL: none */
	bool remote_read_only;      /* GET only: for clients the team does not trust */
	unsigned remote_timeout_ms; /* per request; 0: 2000 */
};

struct ofl_cache;

/* Opens the stores the options name (none: a cache that always misses).
 * Errors only for what the caller must fix: an unusable directory (not a
 * directory, not ours), a remote that is no http(s) URL. */
int ofl_cache_open(struct ofl_cache **c, const struct ofl_cache_opts *o, struct ofl_error *err);

/* Records the session's hits and misses in the store's statistics, trims
 * the store to its size when it grew, and frees c. */
void ofl_cache_close(struct ofl_cache *c);

enum ofl_cache_hit { OFL_CACHE_MISS, OFL_CACHE_LOCAL, OFL_CACHE_REMOTE };

/* The bytes stored under key, appended to out: locally, else remotely (a
 * remote hit is kept locally too).  note (when not NULL) gets a line for
 * the log when something was wrong (a corrupt entry, a remote that failed).
 * Thread-safe. */
enum ofl_cache_hit ofl_cache_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                                 struct ofl_buf *out, char *note, size_t notesz);

/* Stores data under key locally and, unless read-only, remotely.
 * Thread-safe; failures go to note only. */
void ofl_cache_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE], const uint8_t *data,
                   size_t n, char *note, size_t notesz);

/* The cache as the environment configures it (front ends pass their
 * environment; the library reads none):
 *   OFFLINK_CACHE=0|false|off|no     no cache
 *   OFFLINK_CACHE_DIR                the local store (default
 *                                    $XDG_CACHE_HOME/offlink, ~/.cache/offlink)
 *   OFFLINK_CACHE_MAX_SIZE           5G, 500M, bytes (default 5G)
 *   OFFLINK_CACHE_REMOTE             http(s)://host[:port][/prefix]
 *   OFFLINK_CACHE_REMOTE_READ_ONLY=1 GET only
 *   OFFLINK_CACHE_REMOTE_TIMEOUT_MS  per request (default 2000)
 * A size that is not one is an error; the rest have defaults. */
struct ofl_cache_config {
	bool enabled;
	struct ofl_cache_opts opts; /* dir owned; remote points into the environment */
};
#define OFL_CACHE_CONFIG_INIT                                                                      \
	{                                                                                          \
		false,                                                                             \
		{                                                                                  \
			NULL, 0, NULL, false, 0                                                    \
		}                                                                                  \
	}
int ofl_cache_config_from_env(char *const *envp, struct ofl_cache_config *c, struct ofl_error *err);
void ofl_cache_config_release(struct ofl_cache_config *c);
/* "5G", "500M", "123456": a size in bytes (binary multiples), not 0. */
int ofl_cache_parse_size(const char *s, uint64_t *out, struct ofl_error *err);

/* The local store, for `offlink cache`. */
struct ofl_cache_stats {
	uint64_t entries, bytes; /* what is stored now */
	uint64_t hits, misses;   /* since the store was made or cleared */
	uint64_t remote_hits;    /* of the hits, those from the remote */
};
int ofl_cache_stats(const char *dir, struct ofl_cache_stats *s, struct ofl_error *err);
/* Removes every entry and the statistics. */
int ofl_cache_clear(const char *dir, struct ofl_error *err);
/* Removes the least recently used entries until at most max_size bytes
 * are stored. */
int ofl_cache_trim(const char *dir, uint64_t max_size, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
