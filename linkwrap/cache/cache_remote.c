/* The shared remote cache: Bazel's HTTP remote-cache protocol, as
 * bazel-remote and nginx with WebDAV serve it, through libcurl.
 *
 * GET/PUT <remote>/cas/<sha256 of the bytes> holds the image, and
 * <remote>/ac/<key> an ActionResult naming it (protobuf: output_files = 2
 * { path = 1, digest = 2 { hash = 1, size_bytes = 2 } }), so that
 * bazel-remote accepts and validates our entries as it does Bazel's.  The
 * bytes are checked against their hash, and read up to the size the
 * action names.  A read that fails (no connection, a transfer stalled,
 * an answer that is not the protocol's) turns the remote off for the rest
 * of the link; an upload that fails turns off uploads only.  The timeout
 * bounds connecting and each window in which a transfer moves less than
 * MIN_RATE a second (a stall, a trickle), never a whole transfer, so a
 * large image uploads over a slow link and a trickling remote costs one
 * timeout.  Credentials (the
 * URL's user:password, a netrc file, a header) and its query (a token) go
 * to libcurl and into no message.  Transfers run on a multi handle polled
 * every POLL_MS, so a cancelled link (the flag stop) ends them at once
 * rather than at the remote's timeout. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <time.h>
#include <linux/sockios.h>

#include "cache_priv.h"
#include "internal.h"

/* Larger than any device image, smaller than what would exhaust memory. */
#define MAX_BLOB (4ull << 30)
#define MAX_ACTION (64u << 10)
enum { POLL_MS = 50 };

/* libcurl, loaded when a remote is used: linked, it and the ~30 libraries
 * it needs would be loaded by every link (4 ms each, with or without a
 * remote, and inside the user's linker for the plugin). */
struct curl_api {
	void *so;
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	CURLSH *(*share_init)(void);
	CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
	CURLSHcode (*share_cleanup)(CURLSH *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned, int, int *);
	CURLMcode (*multi_fdset)(CURLM *, fd_set *, fd_set *, fd_set *, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
};

#define CURL_SONAME "libcurl.so.4"

static int load_curl(struct curl_api *c, struct ofl_error *err)
{
	static const struct {
		const char *name;
		size_t at;
	} fns[] = {
	    {"curl_global_init", offsetof(struct curl_api, global_init)},
	    {"curl_global_cleanup", offsetof(struct curl_api, global_cleanup)},
	    {"curl_easy_init", offsetof(struct curl_api, easy_init)},
	    {"curl_easy_setopt", offsetof(struct curl_api, easy_setopt)},
	    {"curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo)},
	    {"curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup)},
	    {"curl_easy_strerror", offsetof(struct curl_api, easy_strerror)},
	    {"curl_share_init", offsetof(struct curl_api, share_init)},
	    {"curl_share_setopt", offsetof(struct curl_api, share_setopt)},
	    {"curl_share_cleanup", offsetof(struct curl_api, share_cleanup)},
	    {"curl_multi_init", offsetof(struct curl_api, multi_init)},
	    {"curl_multi_add_handle", offsetof(struct curl_api, multi_add_handle)},
	    {"curl_multi_remove_handle", offsetof(struct curl_api, multi_remove_handle)},
	    {"curl_multi_perform", offsetof(struct curl_api, multi_perform)},
	    {"curl_multi_poll", offsetof(struct curl_api, multi_poll)},
	    {"curl_multi_fdset", offsetof(struct curl_api, multi_fdset)},
	    {"curl_multi_info_read", offsetof(struct curl_api, multi_info_read)},
	    {"curl_multi_cleanup", offsetof(struct curl_api, multi_cleanup)},
	    {"curl_slist_append", offsetof(struct curl_api, slist_append)},
	    {"curl_slist_free_all", offsetof(struct curl_api, slist_free_all)},
	};
	if (!(c->so = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL)))
		return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
		                     "the remote cache needs libcurl: %s", dlerror());
	for (size_t i = 0; i < sizeof(fns) / sizeof(*fns); i++) {
		void *f = dlsym(c->so, fns[i].name);
		if (!f) {
			dlclose(c->so);
			return ofl_error_set(err, OFL_ENOTFOUND, NULL, OFL_NO_OFFSET,
			                     "%s has no %s", CURL_SONAME, fns[i].name);
		}
		memcpy((char *)c + fns[i].at, &f, sizeof(f));
	}
	return 0;
}

/* What r->off holds: uploads off, reads off. */
enum { OFF_PUT = 1, OFF_GET = 2, OFF_ALL = OFF_PUT | OFF_GET };

struct ofl_remote {
	struct curl_api curl;
	char *base;  /* without a trailing '/' nor the query */
	char *query; /* "?..." after each request's path, or "" */
	char *shown; /* base without its credentials: what messages show */
	char *netrc; /* or NULL */
	struct curl_slist *headers;
	const int *stop; /* or NULL; read atomically */
	bool read_only;
	long timeout_ms;
	int off; /* OFF_* once the remote failed (atomic) */
	/* Connections kept open between requests (a lookup asks twice, a
	 * store puts twice), shared by the worker threads: or NULL. */
	CURLSH *share;
	pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void lock(CURL *h, curl_lock_data d, curl_lock_access a, void *r)
{
	(void)h;
	(void)a;
	pthread_mutex_lock(&((struct ofl_remote *)r)->locks[d]);
}

static void unlock(CURL *h, curl_lock_data d, void *r)
{
	(void)h;
	pthread_mutex_unlock(&((struct ofl_remote *)r)->locks[d]);
}

/* url without the "user:password@" of its authority (base has no query:
 * a token there is left out too). */
static char *without_userinfo(const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url, *at = NULL;
	for (const char *p = host; *p && !strchr("/?#", *p); p++)
		if (*p == '@')
			at = p;
	char *s = NULL;
	return asprintf(&s, "%.*s%s", (int)(host - url), url, at ? at + 1 : host) < 0 ? NULL : s;
}

/* The remote's URL split: base (no fragment, no query, no trailing '/'),
 * and its query, which every request's URL ends with. */
static int split_url(struct ofl_remote *r, const char *url, struct ofl_error *err)
{
	size_t n = strcspn(url, "?#");
	const char *q = url[n] == '?' ? url + n : "";
	r->base = ofl_strndup(url, n);
	r->query = ofl_strndup(q, strcspn(q, "#"));
	if (!r->base || !r->query)
		return OFL_NOMEM(err);
	for (n = strlen(r->base); n && r->base[n - 1] == '/'; n--)
		r->base[n - 1] = '\0';
	return 0;
}

static int remote_setup(struct ofl_remote *r, const struct ofl_cache_opts *o, struct ofl_error *err)
{
	const char *h = o->remote_header;
	if (split_url(r, o->remote, err))
		return OFL_ENOMEM;
	if (!(r->shown = without_userinfo(r->base)) ||
	    (o->remote_netrc && !(r->netrc = ofl_strdup(o->remote_netrc))))
		return OFL_NOMEM(err);
	if (strncmp(r->base, "http://", 7) && strncmp(r->base, "https://", 8))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "remote cache '%s': expected an http:// or https:// URL",
		                     r->shown);
	/* the value is a secret: not repeated */
	size_t name =
	    h ? strspn(h, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") : 0;
	if (h && *h && (!name || h[name] != ':' || strpbrk(h, "\r\n")))
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "OFFLINK_CACHE_REMOTE_HEADER: expected one 'Name: value'");
	int rc = load_curl(&r->curl, err);
	if (rc)
		return rc;
	if (h && *h && !(r->headers = r->curl.slist_append(NULL, h))) {
		dlclose(r->curl.so);
		return OFL_NOMEM(err);
	}
	return 0;
}

int ofl_remote_open(struct ofl_remote **out, const struct ofl_cache_opts *o, const int *stop,
                    struct ofl_error *err)
{
	struct ofl_remote *r = ofl_calloc(1, sizeof(*r));
	if (!r)
		return OFL_NOMEM(err);
	int rc = remote_setup(r, o, err);
	if (rc) {
		free(r->base);
		free(r->query);
		free(r->shown);
		free(r->netrc);
		free(r);
		return rc;
	}
	r->read_only = o->remote_read_only;
	r->timeout_ms = o->remote_timeout_ms ? (long)o->remote_timeout_ms : 2000;
	r->stop = stop;
	/* thread-safe and reference-counted in the libcurl Debian ships */
	r->curl.global_init(CURL_GLOBAL_DEFAULT);
	for (size_t i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&r->locks[i], NULL);
	if ((r->share = r->curl.share_init())) {
		r->curl.share_setopt(r->share, CURLSHOPT_LOCKFUNC, lock);
		r->curl.share_setopt(r->share, CURLSHOPT_UNLOCKFUNC, unlock);
		r->curl.share_setopt(r->share, CURLSHOPT_USERDATA, r);
		r->curl.share_setopt(r->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
		r->curl.share_setopt(r->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	}
	*out = r;
	return 0;
}

void ofl_remote_close(struct ofl_remote *r)
{
	if (!r)
		return;
	r->curl.share_cleanup(r->share);
	r->curl.slist_free_all(r->headers);
	for (size_t i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&r->locks[i]);
	r->curl.global_cleanup();
	dlclose(r->curl.so);
	free(r->base);
	free(r->query);
	free(r->shown);
	free(r->netrc);
	free(r);
}

static bool stopped(const struct ofl_remote *r)
{
	return r->stop && __atomic_load_n(r->stop, __ATOMIC_SEQ_CST);
}

static bool is_off(struct ofl_remote *r, int what)
{
	return __atomic_load_n(&r->off, __ATOMIC_SEQ_CST) & what;
}

/* Turns off what off says, and says so the first time; a cancelled link
 * says nothing. */
static void note_failure(struct ofl_remote *r, char *note, size_t notesz, const char *what,
                         const char *why, int off)
{
	int was = __atomic_fetch_or(&r->off, off, __ATOMIC_SEQ_CST);
	if ((was & off) != off && !stopped(r) && note && notesz)
		snprintf(note, notesz, "remote cache %s: %s: %s; %s for the rest of this link",
		         r->shown, what, why, off == OFF_PUT ? "no uploads" : "not used");
}

/* Appends at most max bytes to b: an answer larger than it announced is
 * refused, not buffered. */
struct sink {
	struct ofl_buf *b;
	size_t start;
	uint64_t max;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	if (s->b->len - s->start + n > s->max || ofl_buf_append(s->b, p, n)) {
		s->too_big = true;
		return 0;
	}
	return size * n;
}

static CURL *request(const struct ofl_remote *r, const char *url)
{
	CURL *h = r->curl.easy_init();
	if (!h)
		return NULL;
	r->curl.easy_setopt(h, CURLOPT_URL, url);
	r->curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* no CURLOPT_TIMEOUT: perform ends a transfer that stalls */
	r->curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, r->timeout_ms);
	r->curl.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	r->curl.easy_setopt(h, CURLOPT_SHARE, r->share);
	if (r->netrc) {
		r->curl.easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		r->curl.easy_setopt(h, CURLOPT_NETRC_FILE, r->netrc);
	}
	if (r->headers)
		r->curl.easy_setopt(h, CURLOPT_HTTPHEADER, r->headers);
	return h;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The least a transfer must move in each timeout's window while bytes
 * are still to come (or all of them, when fewer are left): a remote that
 * trickles costs one timeout, not the hours its bytes would take. */
#define MIN_RATE (16u << 10) /* bytes a second */

/* A transfer's progress: the window it is in. */
struct pace {
	curl_off_t at_start; /* bytes moved when the window began */
	int64_t start;       /* when it began (ms) */
	uint64_t size;       /* the bytes an upload sends; 0: a download's, as announced */
};

/* True while bytes move fast enough: in each window of the timeout, the
 * bytes that left for the remote (libcurl's count of those sent less what
 * the kernel still holds unacknowledged, so that an upload into a large
 * socket buffer is not done before the network carried it) or came from
 * it grew by MIN_RATE a second, or by what was left to move (at least a
 * byte: waiting for an answer counts as a stall too). */
static bool moving(const struct ofl_remote *r, CURLM *m, CURL *h, struct pace *p)
{
	curl_off_t up = 0, down = 0, announced = -1;
	r->curl.easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &up);
	r->curl.easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &down);
	r->curl.easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
	/* the transfer's sockets: those its multi handle waits on */
	fd_set rd, wr, ex;
	int max = -1;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	r->curl.multi_fdset(m, &rd, &wr, &ex, &max);
	for (int fd = 0; fd <= max; fd++) {
		int queued = 0;
		if ((FD_ISSET(fd, &rd) || FD_ISSET(fd, &wr)) && !ioctl(fd, SIOCOUTQ, &queued))
			up -= queued;
	}
	int64_t t = now_ms();
	if (t - p->start < r->timeout_ms)
		return true;
	curl_off_t moved = up + down, size = p->size ? (curl_off_t)p->size : announced;
	curl_off_t want = (curl_off_t)((int64_t)MIN_RATE * r->timeout_ms / 1000);
	if (size >= 0 && size - moved < want)
		want = size - moved;
	if (moved - p->at_start < (want > 0 ? want : 1))
		return false;
	p->at_start = moved;
	p->start = t;
	return true;
}

/* curl_easy_perform, ended at once when the link is cancelled (libcurl's
 * own loop looks at a progress callback once a second when the remote is
 * silent) or when it moves too slowly (moving); size: what an upload
 * sends, 0 for a download. */
static CURLcode perform(const struct ofl_remote *r, CURL *h, uint64_t size)
{
	CURLM *m = r->curl.multi_init();
	CURLcode rc = CURLE_OUT_OF_MEMORY;
	int running = 1, left;
	struct pace pace = {0, now_ms(), size};
	if (!m || r->curl.multi_add_handle(m, h) != CURLM_OK) {
		if (m)
			r->curl.multi_cleanup(m);
		return rc;
	}
	bool stalled = false;
	while (running && !stopped(r) && !(stalled = !moving(r, m, h, &pace)) &&
	       r->curl.multi_perform(m, &running) == CURLM_OK &&
	       (!running || r->curl.multi_poll(m, NULL, 0, POLL_MS, NULL) == CURLM_OK))
		;
	/* still running: cancelled, stalled, or libcurl out of memory */
	rc = !running     ? CURLE_OK
	     : stalled    ? CURLE_OPERATION_TIMEDOUT
	     : stopped(r) ? CURLE_ABORTED_BY_CALLBACK
	                  : CURLE_OUT_OF_MEMORY;
	for (CURLMsg *msg; !running && (msg = r->curl.multi_info_read(m, &left));)
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	r->curl.multi_remove_handle(m, h);
	r->curl.multi_cleanup(m);
	return rc;
}

/* GET url into out: 1 found, 0 absent (404), -1 failed (why in *why). */
static int get(struct ofl_remote *r, const char *url, struct ofl_buf *out, uint64_t max,
               const char **why)
{
	struct sink s = {out, out->len, max, false};
	CURL *h = request(r, url);
	if (!h)
		return *why = "libcurl cannot start a request", -1;
	r->curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	r->curl.easy_setopt(h, CURLOPT_WRITEDATA, &s);
	CURLcode rc = perform(r, h, 0);
	long status = 0;
	r->curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	r->curl.easy_cleanup(h);
	if (s.too_big)
		return *why = "an answer larger than the entry it names", -1;
	if (rc != CURLE_OK)
		return *why = r->curl.easy_strerror(rc), -1;
	if (status == 404)
		return 0;
	return status == 200 ? 1 : (*why = "an unexpected HTTP status", -1);
}

struct source {
	const uint8_t *p;
	size_t left;
};

static size_t on_read(char *p, size_t size, size_t n, void *ctx)
{
	struct source *s = ctx;
	size_t k = size * n < s->left ? size * n : s->left;
	memcpy(p, s->p, k);
	s->p += k;
	s->left -= k;
	return k;
}

/* PUT p to url: 0; OFF_PUT refused or failed (why in *why): an upload
 * that fails says nothing of reads. */
static int put(struct ofl_remote *r, const char *url, const uint8_t *p, size_t n, const char **why)
{
	struct source s = {p, n};
	CURL *h = request(r, url);
	if (!h)
		return *why = "libcurl cannot start a request", OFF_PUT;
	r->curl.easy_setopt(h, CURLOPT_UPLOAD, 1L);
	r->curl.easy_setopt(h, CURLOPT_READFUNCTION, on_read);
	r->curl.easy_setopt(h, CURLOPT_READDATA, &s);
	r->curl.easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)n);
	CURLcode rc = perform(r, h, n ? n : 1);
	long status = 0;
	r->curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	r->curl.easy_cleanup(h);
	if (rc != CURLE_OK)
		return *why = r->curl.easy_strerror(rc), OFF_PUT;
	return status >= 200 && status < 300 ? 0 : (*why = "the upload was refused", OFF_PUT);
}

/* ---- the ActionResult message ------------------------------------------ */

static void varint(struct ofl_buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;
	do {
		x[n] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
		n++;
	} while (v);
	ofl_buf_append(b, x, n);
}

static void field(struct ofl_buf *b, unsigned num, const void *p, size_t n)
{
	varint(b, (uint64_t)num << 3 | 2);
	varint(b, n);
	ofl_buf_append(b, p, n);
}

/* ActionResult { output_files { path "image" digest { hash, size } } } */
static int action_result(const char *hash, uint64_t size, struct ofl_buf *out)
{
	struct ofl_buf digest = OFL_BUF_INIT, file = OFL_BUF_INIT;
	field(&digest, 1, hash, strlen(hash));
	varint(&digest, 2 << 3);
	varint(&digest, size);
	field(&file, 1, "image", 5);
	field(&file, 2, digest.data, digest.len);
	field(out, 2, file.data, file.len);
	int bad = !digest.data || !file.data || !out->data;
	ofl_buf_release(&digest);
	ofl_buf_release(&file);
	return bad ? -1 : 0;
}

struct pb {
	const uint8_t *p, *end;
};

static bool read_varint(struct pb *m, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; m->p < m->end && shift < 64; shift += 7) {
		uint8_t x = *m->p++;
		*v |= (uint64_t)(x & 0x7f) << shift;
		if (!(x & 0x80))
			return true;
	}
	return false;
}

/* The next field: its number and wire type, and its bytes when
 * length-delimited (else its varint value); fixed-width fields skipped.
 * -1 when m breaks off. */
static int next_field(struct pb *m, unsigned *num, struct pb *sub, uint64_t *value)
{
	uint64_t tag, len;
	if (!read_varint(m, &tag))
		return -1;
	*num = (unsigned)(tag >> 3);
	switch (tag & 7) {
	case 0:
		return read_varint(m, value) ? 0 : -1;
	case 1:
	case 5: {
		size_t w = (tag & 7) == 1 ? 8 : 4;
		if ((size_t)(m->end - m->p) < w)
			return -1;
		m->p += w;
		return (int)(tag & 7);
	}
	case 2:
		if (!read_varint(m, &len) || len > (uint64_t)(m->end - m->p))
			return -1;
		*sub = (struct pb){m->p, m->p + len};
		m->p += len;
		return 2;
	default:
		return -1;
	}
}

/* The first field num of m, as next_field; -1 when there is none. */
static int field_at(struct pb m, unsigned num, struct pb *sub, uint64_t *value)
{
	unsigned n;
	int wire = -1;
	while (m.p < m.end && (wire = next_field(&m, &n, sub, value)) >= 0 && n != num)
		wire = -1;
	return wire;
}

/* The digest of the first output file: hex hash and size (proto3 leaves
 * out a size of 0). */
static bool parse_action(const struct ofl_buf *b, char hash[65], uint64_t *size)
{
	struct pb m = {b->data, b->data + b->len}, file, digest, h;
	uint64_t v;
	if (field_at(m, 2, &file, &v) != 2 || field_at(file, 2, &digest, &v) != 2 ||
	    field_at(digest, 1, &h, &v) != 2 || h.end - h.p != 64)
		return false;
	memcpy(hash, h.p, 64);
	hash[64] = '\0';
	int wire = field_at(digest, 2, &h, &v);
	*size = wire == 0 ? v : 0;
	return wire <= 0;
}

/* The CAS name of bytes: their SHA-256 in hex, into hex (65 bytes). */
static const char *sha256_hex(const uint8_t *p, size_t n, char *hex)
{
	uint8_t sum[OFL_CACHE_KEY_SIZE];
	ofl_sha256(p, n, sum);
	ofl_hex(sum, sizeof(sum), hex);
	return hex;
}

static int get_blob(struct ofl_remote *r, const char *hash, uint64_t size, struct ofl_buf *out,
                    const char **why)
{
	char *url = NULL;
	size_t start = out->len;
	if (size > MAX_BLOB || asprintf(&url, "%s/cas/%s%s", r->base, hash, r->query) < 0)
		return *why = "an entry larger than an image can be", -1;
	/* absent (0): an action naming bytes the store lost, a miss */
	int rc = get(r, url, out, size, why);
	free(url);
	char hex[65];
	if (rc == 1 &&
	    (out->len - start != size || strcmp(sha256_hex(out->data + start, size, hex), hash)))
		rc = -1, *why = "bytes that are not what the entry names";
	if (rc != 1)
		out->len = start;
	return rc;
}

int ofl_remote_get(struct ofl_remote *r, const uint8_t key[OFL_CACHE_KEY_SIZE], struct ofl_buf *out,
                   char *note, size_t notesz)
{
	if (is_off(r, OFF_GET))
		return 0;
	char hex[65], hash[65], *url = NULL;
	const char *why = NULL;
	struct ofl_buf ac = OFL_BUF_INIT;
	uint64_t size = 0;
	ofl_hex(key, OFL_CACHE_KEY_SIZE, hex);
	if (asprintf(&url, "%s/ac/%s%s", r->base, hex, r->query) < 0)
		return 0;
	int rc = get(r, url, &ac, MAX_ACTION, &why);
	free(url);
	if (rc == 1 && !parse_action(&ac, hash, &size))
		rc = -1, why = "an action entry that is not an ActionResult";
	ofl_buf_release(&ac);
	if (rc == 1)
		rc = get_blob(r, hash, size, out, &why);
	if (rc < 0)
		note_failure(r, note, notesz, "GET", why, OFF_ALL);
	return rc;
}

bool ofl_remote_takes_puts(struct ofl_remote *r)
{
	return !r->read_only && !is_off(r, OFF_PUT);
}

void ofl_remote_put(struct ofl_remote *r, const uint8_t key[OFL_CACHE_KEY_SIZE],
                    const uint8_t *data, size_t n, char *note, size_t notesz)
{
	if (!ofl_remote_takes_puts(r))
		return;
	char hash[65], hex[65], *cas = NULL, *ac = NULL;
	const char *why = "out of memory";
	struct ofl_buf action = OFL_BUF_INIT;
	sha256_hex(data, n, hash);
	ofl_hex(key, OFL_CACHE_KEY_SIZE, hex);
	/* the bytes first: an action never names bytes the store lacks */
	if (asprintf(&cas, "%s/cas/%s%s", r->base, hash, r->query) < 0)
		cas = NULL;
	if (asprintf(&ac, "%s/ac/%s%s", r->base, hex, r->query) < 0)
		ac = NULL;
	int rc =
	    !cas || !ac || action_result(hash, n, &action) ? OFF_PUT : put(r, cas, data, n, &why);
	if (!rc)
		rc = put(r, ac, action.data, action.len, &why);
	if (rc)
		note_failure(r, note, notesz, "PUT", why, rc);
	free(cas);
	free(ac);
	ofl_buf_release(&action);
}
