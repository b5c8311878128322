/* The device-link cache (docs/design.md, "Device-link cache").
 *
 * Device links are hermetic (inputs named by content, the output by the
 * hash of the inputs), so their outputs can be kept: under a SHA-256 key
 * over everything that decides them, in a local directory and, for teams
 * and CI, in a shared HTTP cache speaking Bazel's remote-cache protocol
 * (GET/PUT of <remote>/ac/<key> for the action and <remote>/cas/<sha256>
 * for the bytes), which bazel-remote and nginx with WebDAV serve.
 *
 * A cache never fails a link: a missing, corrupt or unreachable store, or
 * a setting that makes no sense, is a miss or no cache (said once), and a
 * remote that is down or answers garbage is skipped for the rest of the
 * link after one timeout (one that refuses an upload is only written no
 * more).  Whoever can write a store decides the programs linked from it:
 * a local store is used only when it is the user's or a group's shared
 * one (setgid, not writable by others), and entries are made 0600 and
 * folders 0700 (0660 and 02770 in a shared store), less the umask.
 * Entries are checked against a checksum of their key and bytes when read,
 * opened without following links or blocking (whatever lies under an
 * entry's name is a miss); they are written to a locked temporary file and
 * renamed, so concurrent links and machines sharing a file system see whole
 * entries only, and the temporaries of interrupted stores are swept.  The
 * remote's answers are read up to the size they announce, its credentials
 * (in the URL, a netrc file, a header) are never shown, and a cancelled
 * link ends its transfers at once.
 */
#ifndef OFFLINK_CACHE_H
#define OFFLINK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "offlink/api.h"
#include "offlink/error.h"
#include "offlink/io.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_CACHE_KEY_SIZE 32
/* What the local store keeps unless told otherwise: 5 GiB. */
#define OFL_CACHE_DEFAULT_MAX_SIZE (5ull << 30)

struct ofl_cache_opts {
	const char *dir;            /* local store; NULL or "": none */
	uint64_t max_size;          /* local bytes kept; 0: the default */
	const char *remote;         /* http(s)://[user:password@]host[:port][/prefix]; NULL: none */
	bool remote_read_only;      /* GET only: for clients the team does not trust */
	unsigned remote_timeout_ms; /* per request; 0: 2000 */
	const char *remote_netrc;   /* the remote's credentials, a netrc file (may be missing) */
	const char *remote_header;  /* "Name: value" sent with every request, or NULL */
	const char *unusable;       /* set: no cache, and this says why */
};

struct ofl_cache;

/* Opens the stores the options name (none: a cache that always misses).
 * stop (when not NULL) is read atomically: once it is non-zero, transfers
 * under way end at once and none start (the link was cancelled).  Errors
 * for what the caller must fix, said once and the link goes on uncached:
 * o->unusable, a directory that is no directory or not to be trusted
 * (neither ours nor a group's shared one), a remote that is no http(s)
 * URL. */
int ofl_cache_open(struct ofl_cache **c, const struct ofl_cache_opts *o, const int *stop,
                   struct ofl_error *err);

/* Records the session's hits and misses in the store's statistics, trims
 * the store to its size when it grew, and frees c. */
void ofl_cache_close(struct ofl_cache *c);

enum ofl_cache_hit { OFL_CACHE_MISS, OFL_CACHE_LOCAL, OFL_CACHE_REMOTE };

/* The bytes stored under key, as out (a local entry's mapped, not
 * copied; out is the caller's to close, and empty on a miss): locally,
 * else remotely (a remote hit is kept locally too).  note (when not NULL)
 * gets a line for the log when something was wrong (a corrupt entry, a
 * remote that failed).  Thread-safe. */
enum ofl_cache_hit ofl_cache_get(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                                 struct ofl_file *out, char *note, size_t notesz);

/* Stores the bytes of parts, one after another, under key locally and,
 * unless read-only, remotely.  Thread-safe; failures go to note only. */
void ofl_cache_put(struct ofl_cache *c, const uint8_t key[OFL_CACHE_KEY_SIZE],
                   const struct iovec *parts, size_t nparts, char *note, size_t notesz);

/* The cache as the environment configures it (front ends pass their
 * environment; the library reads none):
 *   OFFLINK_CACHE=0|false|off|no     no cache (the rest is not checked)
 *   OFFLINK_CACHE_DIR                the local store (default
 *                                    $XDG_CACHE_HOME/offlink, ~/.cache/offlink)
 *   OFFLINK_CACHE_MAX_SIZE           5G, 500M, bytes (default 5G)
 *   OFFLINK_CACHE_REMOTE             http(s)://[user:password@]host[:port][/prefix]
 *   OFFLINK_CACHE_REMOTE_READ_ONLY=1 GET only
 *   OFFLINK_CACHE_REMOTE_TIMEOUT_MS  per request (default 2000)
 *   OFFLINK_CACHE_REMOTE_NETRC       the remote's credentials (default
 *                                    $NETRC, else ~/.netrc)
 *   OFFLINK_CACHE_REMOTE_HEADER      "Name: value" sent with every request
 * A size that is not one sets opts.unusable (the cache is then off, and
 * ofl_cache_open says why); the rest have defaults.  Errors: no memory. */
struct ofl_cache_config {
	bool enabled;
	struct ofl_cache_opts opts; /* dir and remote_netrc owned; the rest point
	                               into the environment or problem */
	char *netrc;
	char problem[OFL_ERROR_MSG_MAX + 32];
};
#define OFL_CACHE_CONFIG_INIT                                                                      \
	{                                                                                          \
		0                                                                                  \
	}
int ofl_cache_config_from_env(char *const *envp, struct ofl_cache_config *c, struct ofl_error *err);
void ofl_cache_config_release(struct ofl_cache_config *c);
/* "5G", "500M", "123456": a size in bytes (binary multiples), not 0. */
int ofl_cache_parse_size(const char *s, uint64_t *out, struct ofl_error *err);

/* The local store, for `offlink cache`. */
struct ofl_cache_stats {
	uint64_t entries, bytes; /* what is stored now (bytes: memos too) */
	/* hashes of large inputs remembered by their files' identity */
	uint64_t memos;
	uint64_t hits, misses; /* since the store was made or cleared */
	uint64_t remote_hits;  /* of the hits, those from the remote */
	/* entries being written, or left by interrupted stores not yet
	 * swept (trim, clear and links sweep those older than 5 minutes) */
	uint64_t temporaries, temporary_bytes;
};
int ofl_cache_stats(const char *dir, struct ofl_cache_stats *s, struct ofl_error *err);
/* Removes every entry, the stale temporaries and the statistics. */
int ofl_cache_clear(const char *dir, struct ofl_error *err);
/* Removes the stale temporaries, and the least recently used entries
 * until at most max_size bytes are stored. */
int ofl_cache_trim(const char *dir, uint64_t max_size, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
