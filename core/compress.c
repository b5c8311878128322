/* zlib and zstd with LLVM's parameters (docs/formats.md §4.4), and bounded,
 * length-checked decompression into caller buffers. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "compress.h"
#include "internal.h"

/* Deflate's densest encoding is 2 bits per 258-byte match: 1032:1. */
#define ZLIB_MAX_RATIO 1032u
/* zstd's densest block is a 4-byte RLE block (3-byte header + 1 byte)
 * standing for at most 128 KiB: 32768:1. */
#define ZSTD_MAX_RATIO 32768u

size_t ofl_zlib_bound(size_t size)
{
	if (size > SIZE_MAX / 2)
		return 0;
	return compressBound((uLong)size);
}

size_t ofl_zstd_bound(size_t size)
{
	size_t b = ZSTD_compressBound(size);
	return ZSTD_isError(b) ? 0 : b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return ofl_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t ofl_zlib_max_expansion(uint64_t n)
{
	return mul_sat(n, ZLIB_MAX_RATIO);
}

uint64_t ofl_zstd_max_expansion(uint64_t n)
{
	return mul_sat(n, ZSTD_MAX_RATIO);
}

int ofl_zlib_compress(const uint8_t *src, size_t size, int level, uint8_t *dst, size_t cap,
                      size_t *written, struct ofl_error *err)
{
	if (level < Z_DEFAULT_COMPRESSION || level > Z_BEST_COMPRESSION)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "invalid zlib compression level %d", level);
	uLongf len = cap;
	int rc = compress2(dst, &len, src, size, level);
	if (rc == Z_MEM_ERROR)
		return OFL_NOMEM(err);
	if (rc != Z_OK)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "failed to compress: zlib error %d", rc);
	*written = len;
	return 0;
}

static int zstd_set(ZSTD_CCtx *cc, ZSTD_cParameter p, int v, struct ofl_error *err)
{
	size_t rc = ZSTD_CCtx_setParameter(cc, p, v);
	if (!ZSTD_isError(rc))
		return 0;
	if (p == ZSTD_c_nbWorkers)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, OFL_NO_OFFSET,
		                     "cannot use %d zstd worker threads: %s", v,
		                     ZSTD_getErrorName(rc));
	return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "zstd parameter %d = %d: %s",
	                     (int)p, v, ZSTD_getErrorName(rc));
}

int ofl_zstd_compress(const uint8_t *src, size_t size, int level, int threads, uint8_t *dst,
                      size_t cap, size_t *written, struct ofl_error *err)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	if (!cc)
		return OFL_NOMEM(err);
	/* Exactly LLVM's two parameters; nbWorkers only when asked for. */
	int rc = zstd_set(cc, ZSTD_c_compressionLevel, level, err);
	if (rc == 0)
		rc = zstd_set(cc, ZSTD_c_enableLongDistanceMatching, 1, err);
	if (rc == 0 && threads > 0)
		rc = zstd_set(cc, ZSTD_c_nbWorkers, threads, err);
	if (rc == 0) {
		size_t n = ZSTD_compress2(cc, dst, cap, src, size);
		if (ZSTD_isError(n)) {
			int code = ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation
			               ? OFL_ENOMEM
			               : OFL_EINVAL;
			rc = ofl_error_set(err, code, NULL, OFL_NO_OFFSET, "failed to compress: %s",
			                   ZSTD_getErrorName(n));
		} else {
			*written = n;
		}
	}
	ZSTD_freeCCtx(cc);
	return rc;
}

static int size_mismatch(const struct ofl_decomp_at *at, size_t want, const char *how,
                         struct ofl_error *err)
{
	return ofl_error_set(err, OFL_EFORMAT, NULL, at->size_field,
	                     "uncompressed size %zu in the header does not match the data (%s)",
	                     want, how);
}

static const char *zlib_code_name(int rc)
{
	switch (rc) {
	case Z_MEM_ERROR:
		return "Z_MEM_ERROR";
	case Z_BUF_ERROR:
		return "Z_BUF_ERROR";
	case Z_STREAM_ERROR:
		return "Z_STREAM_ERROR";
	case Z_DATA_ERROR:
		return "Z_DATA_ERROR";
	default:
		return "unknown error";
	}
}

/* The verdict on a zlib stream that gave got bytes, rc as uncompress2
 * reports it (Z_OK: the stream ended; Z_BUF_ERROR: the output is full). */
static int zlib_check(int rc, size_t got, size_t want, const struct ofl_decomp_at *at,
                      struct ofl_error *err)
{
	if (rc == Z_MEM_ERROR)
		return OFL_NOMEM(err);
	if (rc == Z_BUF_ERROR)
		return size_mismatch(at, want, "zlib error: Z_BUF_ERROR", err);
	if (rc != Z_OK)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at->stream,
		                     "failed to decompress: zlib error: %s", zlib_code_name(rc));
	if (got != want) {
		char how[64];
		snprintf(how, sizeof how, "stream holds %zu bytes", got);
		return size_mismatch(at, want, how, err);
	}
	return 0;
}

int ofl_zlib_decompress(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                        const struct ofl_decomp_at *at, struct ofl_error *err)
{
	uLongf got = want;
	uLong used = size;
	int rc = uncompress2(dst, &got, src, &used);
	return zlib_check(rc, got, want, at, err);
}

/* The first frame's recorded size (LLVM's frames always have one) must
 * fit; a bad frame header is left to the decoder to name. */
static int zstd_check_first_frame(const uint8_t *src, size_t size, size_t want,
                                  const struct ofl_decomp_at *at, struct ofl_error *err)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(src, size);
	if (fcs != ZSTD_CONTENTSIZE_ERROR && fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs > want) {
		char how[64];
		snprintf(how, sizeof how, "zstd frame holds %llu bytes", fcs);
		return size_mismatch(at, want, how, err);
	}
	return 0;
}

static int zstd_fail(ZSTD_ErrorCode code, size_t want, const struct ofl_decomp_at *at,
                     struct ofl_error *err)
{
	if (code == ZSTD_error_dstSize_tooSmall)
		return size_mismatch(at, want, ZSTD_getErrorString(code), err);
	if (code == ZSTD_error_memory_allocation)
		return OFL_NOMEM(err);
	return ofl_error_set(err, OFL_EFORMAT, NULL, at->stream, "failed to decompress: %s",
	                     ZSTD_getErrorString(code));
}

static int zstd_check_length(size_t n, size_t want, const struct ofl_decomp_at *at,
                             struct ofl_error *err)
{
	if (n == want)
		return 0;
	char how[64];
	snprintf(how, sizeof how, "stream holds %zu bytes", n);
	return size_mismatch(at, want, how, err);
}

int ofl_zstd_decompress(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                        const struct ofl_decomp_at *at, struct ofl_error *err)
{
	int rc = zstd_check_first_frame(src, size, want, at, err);
	if (rc)
		return rc;
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!dc)
		return OFL_NOMEM(err);
	size_t n = ZSTD_decompressDCtx(dc, dst, want, src, size);
	ZSTD_freeDCtx(dc);
	if (ZSTD_isError(n))
		return zstd_fail(ZSTD_getErrorCode(n), want, at, err);
	return zstd_check_length(n, want, at, err);
}

int ofl_zlib_decompress_prefix(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                               size_t *got, const struct ofl_decomp_at *at, struct ofl_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return OFL_NOMEM(err);
	/* zlib counts in uInt: sizes above 4 GiB are fed in slices. */
	size_t in_left = size, out_left = want;
	z.next_in = (Bytef *)src;
	z.next_out = dst;
	int rc;
	do {
		uInt in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		uInt out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
		z.avail_in = in;
		z.avail_out = out;
		rc = inflate(&z, Z_NO_FLUSH);
		in_left -= in - z.avail_in;
		out_left -= out - z.avail_out;
	} while (rc == Z_OK && out_left && in_left);
	*got = want - out_left;
	inflateEnd(&z);
	if (rc == Z_MEM_ERROR)
		return OFL_NOMEM(err);
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at->stream,
		                     "failed to decompress: zlib error: %s", zlib_code_name(rc));
	return 0;
}

int ofl_zstd_decompress_prefix(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                               size_t *got, const struct ofl_decomp_at *at, struct ofl_error *err)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!dc)
		return OFL_NOMEM(err);
	ZSTD_inBuffer in = {src, size, 0};
	ZSTD_outBuffer out = {dst, want, 0};
	size_t r = 1;
	/* r == 0 ends one frame, not the stream: zstd allows skippable and
	 * further data frames after it, as ZSTD_decompress does. */
	while (out.pos < want && !ZSTD_isError(r) && (r != 0 || in.pos < in.size)) {
		size_t before = in.pos + out.pos;
		r = ZSTD_decompressStream(dc, &out, &in);
		if (!ZSTD_isError(r) && in.pos + out.pos == before)
			break; /* input exhausted */
	}
	ZSTD_freeDCtx(dc);
	*got = out.pos;
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation
		           ? OFL_NOMEM(err)
		           : ofl_error_set(err, OFL_EFORMAT, NULL, at->stream,
		                           "failed to decompress: %s", ZSTD_getErrorName(r));
	return 0;
}

/* The buffers streamed output passes through: large enough that a sink
 * writing to a file makes few system calls, and enough of them that the
 * decoder fills one while the sink takes another. */
#define STREAM_CHUNK (2u << 20)
#define STREAM_DEPTH 4

static size_t chunk_for(size_t want, size_t total)
{
	return want - total < STREAM_CHUNK ? want - total : STREAM_CHUNK;
}

/* Decoded bytes on their way to the sink, which runs on a thread of its
 * own when there is more than one chunk, so that decoding the next chunk
 * and writing this one overlap (as zstd's command line does with its
 * asynchronous I/O); chunks go through STREAM_DEPTH buffers in turn, in
 * order.  Without the thread the sink runs in turn. */
struct relay {
	ofl_ccob_sink sink;
	void *ctx;
	uint8_t *buf[STREAM_DEPTH];
	size_t n[STREAM_DEPTH], in_used[STREAM_DEPTH];
	size_t filled, passed; /* chunks the decoder filled, the sink took */
	bool ended;            /* the decoder fills no more */
	int rc;                /* the sink's; stops the decoder */
	struct ofl_error err;  /* the sink's error */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->passed == r->filled && !r->ended)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->passed == r->filled)
			break;
		size_t k = r->passed % STREAM_DEPTH;
		pthread_mutex_unlock(&r->lock);
		int rc =
		    r->rc ? r->rc : r->sink(r->ctx, r->buf[k], r->n[k], r->in_used[k], &r->err);
		pthread_mutex_lock(&r->lock);
		r->rc = rc;
		r->passed++;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* want bytes to come: its buffers, and the sink's thread when there is
 * more than one chunk (none started: the sink runs in turn). */
static int relay_start(struct relay *r, ofl_ccob_sink sink, void *ctx, size_t want,
                       struct ofl_error *err)
{
	*r = (struct relay){.sink = sink, .ctx = ctx, .err = OFL_ERROR_INIT};
	size_t depth = want > STREAM_CHUNK ? STREAM_DEPTH : 1;
	for (size_t i = 0; i < depth; i++)
		if (!(r->buf[i] = ofl_malloc(chunk_for(want, 0)))) {
			for (size_t k = 0; k < i; k++)
				free(r->buf[k]);
			return OFL_NOMEM(err);
		}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->threaded = depth > 1 && !pthread_create(&r->thread, NULL, relay_main, r);
	return 0;
}

/* The buffer the decoder fills next, once the sink is done with it; NULL
 * once the sink failed. */
static uint8_t *relay_buffer(struct relay *r)
{
	if (!r->threaded)
		return r->rc ? NULL : r->buf[0];
	pthread_mutex_lock(&r->lock);
	while (!r->rc && r->filled - r->passed == STREAM_DEPTH)
		pthread_cond_wait(&r->cond, &r->lock);
	uint8_t *p = r->rc ? NULL : r->buf[r->filled % STREAM_DEPTH];
	pthread_mutex_unlock(&r->lock);
	return p;
}

/* The buffer relay_buffer gave, filled with n bytes, to the sink. */
static void relay_pass(struct relay *r, size_t n, size_t in_used)
{
	if (!r->threaded) {
		r->rc = r->sink(r->ctx, r->buf[0], n, in_used, &r->err);
		return;
	}
	pthread_mutex_lock(&r->lock);
	size_t k = r->filled % STREAM_DEPTH;
	r->n[k] = n;
	r->in_used[k] = in_used;
	r->filled++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Waits for the sink to take what was filled: the sink's return, its
 * error into err. */
static int relay_end(struct relay *r, struct ofl_error *err)
{
	if (r->threaded) {
		pthread_mutex_lock(&r->lock);
		r->ended = true;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	for (size_t i = 0; i < STREAM_DEPTH; i++)
		free(r->buf[i]);
	if (r->rc && r->err.code)
		*err = r->err;
	return r->rc;
}

int ofl_zlib_decompress_stream(const uint8_t *src, size_t size, size_t want, ofl_ccob_sink sink,
                               void *ctx, const struct ofl_decomp_at *at, struct ofl_error *err)
{
	/* nothing expected needs no buffer, and uncompress2 has its own rules
	 * for that case */
	if (!want)
		return ofl_zlib_decompress(src, size, NULL, 0, at, err);
	struct relay rl;
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return OFL_NOMEM(err);
	if (relay_start(&rl, sink, ctx, want, err)) {
		inflateEnd(&z);
		return OFL_ENOMEM;
	}
	size_t in_left = size, total = 0;
	int zr = Z_OK;
	z.next_in = (Bytef *)src;
	for (uint8_t *buf; zr == Z_OK && (buf = relay_buffer(&rl));) {
		/* zlib counts in uInt: more than 4 GiB of input goes in slices */
		uInt in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
		uInt out = (uInt)chunk_for(want, total);
		z.avail_in = in;
		z.next_out = buf;
		z.avail_out = out;
		zr = inflate(&z, Z_NO_FLUSH);
		in_left -= in - z.avail_in;
		total += out - z.avail_out;
		if (z.avail_out != out)
			relay_pass(&rl, out - z.avail_out, size - in_left);
	}
	inflateEnd(&z);
	int rc = relay_end(&rl, err);
	if (rc)
		return rc;
	/* As uncompress2 says it: no progress with room left is a cut stream. */
	if (zr == Z_STREAM_END)
		zr = Z_OK;
	else if (zr == Z_NEED_DICT || (zr == Z_BUF_ERROR && total < want))
		zr = Z_DATA_ERROR;
	return zlib_check(zr, total, want, at, err);
}

/* The largest window a frame may ask for: zstd's default limit (what LLVM's
 * long-distance matching uses), or the whole output when that is larger,
 * as the one-shot decoder would allocate that much anyway; 31 is the
 * format's maximum. */
static int window_log_limit(size_t want)
{
	int log = 27;
	while (log < 31 && ((size_t)1 << log) < want)
		log++;
	return log;
}

/* How a stream that stopped without a zstd error stands: in one-shot terms,
 * a full output with more to come is dstSize_tooSmall, a cut frame
 * srcSize_wrong. */
static int zstd_stream_end(const ZSTD_inBuffer *in, bool boundary, size_t total, size_t want,
                           const struct ofl_decomp_at *at, struct ofl_error *err)
{
	if (in->pos < in->size || !boundary)
		return zstd_fail(total == want ? ZSTD_error_dstSize_tooSmall
		                               : ZSTD_error_srcSize_wrong,
		                 want, at, err);
	return zstd_check_length(total, want, at, err);
}

int ofl_zstd_decompress_stream(const uint8_t *src, size_t size, size_t want, ofl_ccob_sink sink,
                               void *ctx, const struct ofl_decomp_at *at, struct ofl_error *err)
{
	if (!want) /* nothing expected needs no buffer */
		return ofl_zstd_decompress(src, size, NULL, 0, at, err);
	int rc = zstd_check_first_frame(src, size, want, at, err);
	if (rc)
		return rc;
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	struct relay rl;
	if (!dc ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, window_log_limit(want))) ||
	    relay_start(&rl, sink, ctx, want, err)) {
		ZSTD_freeDCtx(dc);
		return OFL_NOMEM(err);
	}
	ZSTD_inBuffer in = {src, size, 0};
	size_t total = 0, r = 0, frames = 0;
	bool boundary = true; /* between frames: the input may end here */
	bool stop = false;
	for (uint8_t *buf; !stop && (buf = relay_buffer(&rl));) {
		/* the chunk filled, or the stream at its end: the decoder is
		 * called once at least, also with no room (it may still end the
		 * frame or find more) */
		ZSTD_outBuffer out = {buf, chunk_for(want, total), 0};
		do {
			size_t in0 = in.pos, out0 = out.pos;
			r = ZSTD_decompressStream(dc, &out, &in);
			/* an error, or stuck: output full or input cut */
			stop = ZSTD_isError(r) || (in.pos == in0 && out.pos == out0);
			if (stop)
				break;
			boundary = r == 0;
			frames += r == 0;
			stop = in.pos == in.size && (r == 0 || out.pos < out.size);
		} while (!stop && out.pos < out.size);
		total += out.pos;
		if (out.pos)
			relay_pass(&rl, out.pos, in.pos);
	}
	ZSTD_freeDCtx(dc);
	rc = relay_end(&rl, err);
	if (rc)
		return rc;
	if (!ZSTD_isError(r))
		return zstd_stream_end(&in, boundary, total, want, at, err);
	ZSTD_ErrorCode code = ZSTD_getErrorCode(r);
	/* one-shot decoding calls bytes after a frame that start no frame an
	 * unconsumed input, not an unknown frame */
	if (code == ZSTD_error_prefix_unknown && frames)
		code = ZSTD_error_srcSize_wrong;
	return zstd_fail(code, want, at, err);
}
