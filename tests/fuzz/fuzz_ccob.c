/* Fuzzes CCOB header parsing and decompression, in one piece, streamed and
 * its first bytes only (which must agree: same bytes, same hash, or an
 * error); inputs whose header claims more than 16 MiB are only parsed, so a
 * run stays small.  Inputs that are not CCOB are compressed and decompressed
 * again as a round-trip check. */
#include <stdlib.h>
#include <string.h>

#include "offlink/ccob.h"

#define MAX_RAW (16u << 20)

/* Collects streamed pieces; in_used must grow within the stream. */
struct collect {
	struct ofl_buf b;
	size_t in_used, stream;
};

static int collect(void *ctx, const uint8_t *p, size_t n, size_t in_used, struct ofl_error *err)
{
	struct collect *c = ctx;
	if (n == 0 || in_used < c->in_used || in_used > c->stream)
		abort();
	c->in_used = in_used;
	return ofl_buf_append(&c->b, p, n) ? ofl_error_set(err, OFL_ENOMEM, NULL, 0, "nomem") : 0;
}

/* The streamed decoder refuses zstd windows above max(128 MiB, the bundle)
 * that the one-shot decoder, holding the whole bundle anyway, accepts. */
static bool window_refused(const struct ofl_error *e)
{
	return strstr(e->msg, "Frame requires too much memory") != NULL;
}

static void stream_agrees(const uint8_t *data, size_t size, const struct ofl_ccob_header *h, int rc,
                          const struct ofl_error *e, const uint8_t *out)
{
	struct collect c = {OFL_BUF_INIT, 0, (size_t)(h->total_size - h->header_size)};
	struct ofl_error se = OFL_ERROR_INIT;
	uint64_t hash = 0;
	int src = ofl_ccob_stream(data, size, collect, &c, &hash, &se);
	if (src && !rc && window_refused(&se)) {
		ofl_buf_release(&c.b);
		return;
	}
	/* zstd's two decoders may meet damage in another order, so the words
	 * and the place named may differ, not the verdict */
	if (src != rc || (rc && !se.msg[0]))
		abort();
	if (!rc && (c.b.len != h->raw_size || (c.b.len && memcmp(c.b.data, out, c.b.len)) ||
	            hash != ofl_ccob_hash(out, c.b.len)))
		abort();
	ofl_buf_release(&c.b);
}

/* The prefix reader (a bundle's header, for -list) gives the first bytes
 * of what the whole decompression gave, or an error where it failed. */
static void peek_agrees(const uint8_t *data, size_t size, int rc, const uint8_t *out, size_t raw)
{
	struct ofl_buf p = OFL_BUF_INIT;
	struct ofl_ccob_header h;
	struct ofl_error e = OFL_ERROR_INIT;
	size_t want = raw < 64 ? raw : 64;
	int prc = ofl_ccob_peek(data, size, 64, &p, &h, &e);
	bool refused = prc && window_refused(&e); /* as the streamed decoder refuses it */
	if (!rc && !refused && (prc || p.len != want || (want && memcmp(p.data, out, want))))
		abort();
	if (prc && !e.msg[0])
		abort();
	ofl_buf_release(&p);
}

static void decompress_all(const uint8_t *data, size_t size)
{
	struct ofl_buf out = OFL_BUF_INIT;
	size_t pos = 0;
	while (ofl_ccob_is(data + pos, size - pos)) {
		struct ofl_ccob_header h;
		struct ofl_error e = OFL_ERROR_INIT;
		size_t used = 0;
		bool hash_ok;
		if (ofl_ccob_parse_header(data + pos, size - pos, &h, &e) < 0 ||
		    h.raw_size > MAX_RAW)
			break;
		size_t before = out.len;
		int rc = ofl_ccob_decompress(data + pos, size - pos, &out, &used, &hash_ok, &e);
		stream_agrees(data + pos, size - pos, &h, rc, &e,
		              out.data ? out.data + before : NULL);
		peek_agrees(data + pos, size - pos, rc, out.data ? out.data + before : NULL,
		            (size_t)h.raw_size);
		if (rc < 0) {
			if (out.len != before || e.code == 0)
				abort();
			break;
		}
		if (used != h.total_size || out.len - before != h.raw_size || used == 0)
			abort();
		pos += used;
	}
	ofl_buf_release(&out);
}

static void round_trip(const uint8_t *data, size_t size)
{
	struct ofl_ccob_options o = OFL_CCOB_OPTIONS_INIT;
	struct ofl_buf z = OFL_BUF_INIT, back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	o.method = size & 1 ? OFL_CCOB_ZLIB : OFL_CCOB_ZSTD;
	o.version = size & 2 ? 2 : 3;
	o.level = 1;
	size_t used;
	bool ok;
	if (ofl_ccob_compress(data, size, &o, &z, &e) < 0 ||
	    ofl_ccob_decompress(z.data, z.len, &back, &used, &ok, &e) < 0 || !ok || used != z.len ||
	    back.len != size || (size && memcmp(back.data, data, size) != 0))
		abort();
	ofl_buf_release(&z);
	ofl_buf_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && memcmp(data, "CCOB", 4) == 0)
		decompress_all(data, size);
	else if (size <= 65536)
		round_trip(data, size);
	return 0;
}
