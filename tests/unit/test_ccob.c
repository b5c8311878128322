#include <nettle/md5.h>
#include <pthread.h>
#include <stdint.h>
#include <zlib.h>
#include <zstd.h>

#include "harness.h"
#include "offlink/ccob.h"

static int compress_as(const struct ofl_buf *raw, int version, int method, int level, int threads,
                       struct ofl_buf *out)
{
	struct ofl_ccob_options o = OFL_CCOB_OPTIONS_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	o.version = version;
	o.method = method;
	o.level = level;
	o.threads = threads;
	ofl_buf_reset(out);
	return ofl_ccob_compress(raw->data, raw->len, &o, out, &e);
}

static bool same(const struct ofl_buf *a, const struct ofl_buf *b)
{
	return a->len == b->len && a->len > 0 && memcmp(a->data, b->data, a->len) == 0;
}

OFL_TEST(compress_matches_llvm_bytes)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"), out = OFL_BUF_INIT;
	static const struct {
		const char *file;
		int version, level;
	} cases[] = {
	    {"llvm22/v3.ccob", 3, INT32_MIN}, {"llvm22/v3-l9.ccob", 3, 9},
	    {"llvm22/v2.ccob", 2, INT32_MIN}, {"llvm22/v3.ccob", 3, 3},
	    {"llvm19/v2.ccob", 2, INT32_MIN}, {"llvm19/v2-l1.ccob", 2, 1},
	};
	CHECK_EQ_U(raw.len, 7071);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ofl_buf want = ofl_test_fixture(cases[i].file);
		CHECK(compress_as(&raw, cases[i].version, OFL_CCOB_ZSTD, cases[i].level, 0, &out) ==
		      0);
		bool ok = same(&out, &want);
		ofl_buf_release(&want);
		if (!ok)
			fprintf(stderr, "differs from %s\n", cases[i].file);
		CHECK(ok);
	}
	ofl_buf_release(&raw);
	ofl_buf_release(&out);
}

/* A sink that appends to an ofl_buf, counting pieces; it refuses more than
 * limit bytes with an error of its own. */
struct collect {
	struct ofl_buf b;
	size_t pieces, limit;
};

static int collect_sink(void *ctx, const uint8_t *p, size_t n, size_t in_used,
                        struct ofl_error *err)
{
	struct collect *c = ctx;
	(void)in_used;
	c->pieces++;
	if (n == 0 || c->b.len + n > c->limit)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET, "sink says stop");
	return ofl_buf_append(&c->b, p, n);
}

/* ofl_ccob_stream gives the bytes and the hash ofl_ccob_decompress does. */
static int stream_same(const struct ofl_buf *in, const struct ofl_buf *raw)
{
	struct collect c = {OFL_BUF_INIT, 0, SIZE_MAX};
	struct ofl_error e = OFL_ERROR_INIT;
	uint64_t hash = 0;
	int ok = ofl_ccob_stream(in->data, in->len, collect_sink, &c, &hash, &e) == 0 &&
	         c.b.len == raw->len && (!raw->len || !memcmp(c.b.data, raw->data, raw->len)) &&
	         hash == ofl_ccob_hash(raw->data, raw->len);
	if (!ok)
		fprintf(stderr, "stream: %s (%zu of %zu bytes)\n", e.msg, c.b.len, raw->len);
	ofl_buf_release(&c.b);
	return ok;
}

OFL_TEST(decompress_llvm_files)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw");
	const char *files[] = {"llvm22/v3.ccob", "llvm22/v3-l9.ccob", "llvm22/v2.ccob",
	                       "llvm19/v2.ccob", "llvm19/v2-l1.ccob"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct ofl_buf in = ofl_test_fixture(files[i]), out = OFL_BUF_INIT;
		struct ofl_error e = OFL_ERROR_INIT;
		struct ofl_ccob_header h;
		size_t used = 0;
		bool hash_ok = false;
		CHECK(ofl_ccob_is(in.data, in.len));
		CHECK(ofl_ccob_parse_header(in.data, in.len, &h, &e) == 0);
		CHECK_EQ_U(h.method, OFL_CCOB_ZSTD);
		CHECK_EQ_U(h.header_size, h.version == 3 ? 32 : 24);
		CHECK_EQ_U(h.total_size, in.len);
		CHECK_EQ_U(h.raw_size, raw.len);
		CHECK_EQ_U(h.hash, ofl_ccob_hash(raw.data, raw.len));
		CHECK(ofl_ccob_decompress(in.data, in.len, &out, &used, &hash_ok, &e) == 0);
		CHECK(same(&out, &raw));
		CHECK_EQ_U(used, in.len);
		CHECK(hash_ok);
		CHECK(stream_same(&in, &raw));
		ofl_buf_release(&in);
		ofl_buf_release(&out);
	}
	ofl_buf_release(&raw);
}

OFL_TEST(hash_is_md5_prefix)
{
	/* MD5("abc") = 900150983cd24fb0...: the first 8 digest bytes, LE. */
	CHECK_EQ_U(ofl_ccob_hash((const uint8_t *)"abc", 3), 0xb04fd23c98500190ull);
}

/* xorshift64 text over 8 letters: A (512 KiB), B (2 MiB), A again.  The
 * repeat lies beyond level 3's window, so only long-distance matching finds
 * it.  tests/fixtures/llvm22/README.md has the LLVM side. */
static uint8_t *ldm_payload(size_t *len)
{
	const size_t a = 512 * 1024, b = 2 * 1024 * 1024;
	uint8_t *p = malloc(2 * a + b);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	if (!p)
		abort();
	for (size_t i = 0; i < a + b; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)('a' + (x >> 61));
	}
	memcpy(p + a + b, p, a);
	*len = 2 * a + b;
	return p;
}

static void put64(struct ofl_buf *b, uint64_t v)
{
	if (ofl_buf_append_u64le(b, v) < 0)
		abort();
}

/* The binary bundle LLVM writes for host = payload, openmp device = "dev". */
static struct ofl_buf ldm_bundle(void)
{
	static const char host[] = "host-x86_64-unknown-linux-gnu-";
	static const char dev[] = "openmp-x86_64-unknown-linux-gnu-";
	size_t n;
	uint8_t *p = ldm_payload(&n);
	struct ofl_buf b = OFL_BUF_INIT;
	uint64_t hdr = 32 + 24 + strlen(host) + 24 + strlen(dev);
	ofl_buf_append_str(&b, "__CLANG_OFFLOAD_BUNDLE__");
	put64(&b, 2);
	put64(&b, hdr);
	put64(&b, n);
	put64(&b, strlen(host));
	ofl_buf_append_str(&b, host);
	put64(&b, hdr + n);
	put64(&b, 3);
	put64(&b, strlen(dev));
	ofl_buf_append_str(&b, dev);
	ofl_buf_append(&b, p, n);
	ofl_buf_append_str(&b, "dev");
	free(p);
	return b;
}

static const char *md5hex(const struct ofl_buf *b, char out[2 * MD5_DIGEST_SIZE + 1])
{
	struct md5_ctx c;
	uint8_t d[MD5_DIGEST_SIZE];
	md5_init(&c);
	md5_update(&c, b->len, b->data);
	md5_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return out;
}

OFL_TEST(long_distance_matching_matches_llvm)
{
	char hex[2 * MD5_DIGEST_SIZE + 1];
	struct ofl_buf raw = ldm_bundle(), out = OFL_BUF_INIT, back = OFL_BUF_INIT;
	CHECK_EQ_U(raw.len, 3145873);
	CHECK_STR(md5hex(&raw, hex), "cfcb09e14e5802a1b17b9c75f488025d");
	CHECK(compress_as(&raw, 3, OFL_CCOB_ZSTD, INT32_MIN, 0, &out) == 0);
	CHECK_EQ_U(out.len, 1166091);
	CHECK_STR(md5hex(&out, hex), "9b619e9424c3287eb40c0295cefe196a");
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_ccob_decompress(out.data, out.len, &back, NULL, NULL, &e) == 0);
	CHECK(same(&back, &raw));
	ofl_buf_release(&raw);
	ofl_buf_release(&out);
	ofl_buf_release(&back);
}

OFL_TEST(threaded_output_is_the_same_for_any_worker_count)
{
	struct ofl_buf raw = ldm_bundle(), one = OFL_BUF_INIT, other = OFL_BUF_INIT,
	               back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(compress_as(&raw, 3, OFL_CCOB_ZSTD, INT32_MIN, 1, &one) == 0);
	for (int t = 2; t <= 4; t += 2) {
		CHECK(compress_as(&raw, 3, OFL_CCOB_ZSTD, INT32_MIN, t, &other) == 0);
		CHECK(same(&one, &other));
	}
	CHECK(ofl_ccob_decompress(one.data, one.len, &back, NULL, NULL, &e) == 0);
	CHECK(same(&back, &raw));
	ofl_buf_release(&raw);
	ofl_buf_release(&one);
	ofl_buf_release(&other);
	ofl_buf_release(&back);
}

OFL_TEST(zlib_stream_is_compress2_level_6)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"), out = OFL_BUF_INIT,
	               back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	uLongf zlen = compressBound(raw.len);
	uint8_t *z = malloc(zlen);
	CHECK(z && compress2(z, &zlen, raw.data, raw.len, 6) == Z_OK);
	for (int v = 2; v <= 3; v++) {
		size_t hdr = v == 3 ? 32 : 24, used = 0;
		bool hash_ok = false;
		CHECK(compress_as(&raw, v, OFL_CCOB_ZLIB, INT32_MIN, 0, &out) == 0);
		CHECK_EQ_U(out.len, hdr + zlen);
		CHECK_MEM(out.data, v == 3 ? "CCOB\3\0\0\0" : "CCOB\2\0\0\0", 8);
		CHECK_MEM(out.data + hdr, z, zlen);
		ofl_buf_reset(&back);
		CHECK(ofl_ccob_decompress(out.data, out.len, &back, &used, &hash_ok, &e) == 0);
		CHECK(same(&back, &raw) && used == out.len && hash_ok);
	}
	zlen = compressBound(raw.len);
	CHECK(compress2(z, &zlen, raw.data, raw.len, 1) == Z_OK);
	CHECK(compress_as(&raw, 3, OFL_CCOB_ZLIB, 1, 0, &out) == 0);
	CHECK_EQ_U(out.len, 32 + zlen);
	CHECK_MEM(out.data + 32, z, zlen);
	free(z);
	ofl_buf_release(&raw);
	ofl_buf_release(&out);
	ofl_buf_release(&back);
}

OFL_TEST(empty_input_round_trips)
{
	struct ofl_buf raw = OFL_BUF_INIT, out = OFL_BUF_INIT, back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	for (int m = 0; m <= 1; m++) {
		CHECK(compress_as(&raw, 3, m, INT32_MIN, 0, &out) == 0);
		CHECK(ofl_ccob_decompress(out.data, out.len, &back, NULL, NULL, &e) == 0);
		CHECK_EQ_U(back.len, 0);
		CHECK(stream_same(&out, &raw));
	}
	ofl_buf_release(&out);
	ofl_buf_release(&back);
}

/* Version 1 (no writer exists): u32 uncompressed size, then the hash. */
OFL_TEST(version_1_hand_made)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"),
	               v3 = ofl_test_fixture("llvm22/v3.ccob");
	struct ofl_buf v1 = OFL_BUF_INIT, out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_ccob_header h;
	size_t used = 0;
	ofl_buf_append(&v1, "CCOB\1\0\1\0", 8);
	ofl_buf_append_u32le(&v1, (uint32_t)raw.len);
	ofl_buf_append(&v1, v3.data + 24, 8);
	ofl_buf_append(&v1, v3.data + 32, v3.len - 32);
	CHECK(ofl_ccob_parse_header(v1.data, v1.len, &h, &e) == 0);
	CHECK_EQ_U(h.version, 1);
	CHECK_EQ_U(h.header_size, 20);
	CHECK_EQ_U(h.total_size, v1.len);
	CHECK(ofl_ccob_decompress(v1.data, v1.len, &out, &used, NULL, &e) == 0);
	CHECK(same(&out, &raw));
	CHECK_EQ_U(used, v1.len);
	CHECK(stream_same(&v1, &raw));
	ofl_buf_release(&raw);
	ofl_buf_release(&v3);
	ofl_buf_release(&v1);
	ofl_buf_release(&out);
}

OFL_TEST(concatenated_and_padded)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"),
	               a = ofl_test_fixture("llvm22/v3.ccob"),
	               b = ofl_test_fixture("llvm19/v2.ccob"), all = OFL_BUF_INIT,
	               out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	ofl_buf_append(&all, a.data, a.len);
	ofl_buf_append_zeros(&all, 0);
	ofl_buf_append(&all, b.data, b.len);
	ofl_buf_append_zeros(&all, 13);
	size_t pos = 0, n = 0, used;
	while (ofl_ccob_is(all.data + pos, all.len - pos)) {
		CHECK(ofl_ccob_decompress(all.data + pos, all.len - pos, &out, &used, NULL, &e) ==
		      0);
		pos += used;
		n++;
	}
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(pos, a.len + b.len);
	CHECK_EQ_U(out.len, 2 * raw.len);
	CHECK_MEM(out.data, raw.data, raw.len);
	CHECK_MEM(out.data + raw.len, raw.data, raw.len);
	ofl_buf_release(&raw);
	ofl_buf_release(&a);
	ofl_buf_release(&b);
	ofl_buf_release(&all);
	ofl_buf_release(&out);
}

/* Decompresses a damaged copy; checks code, offset, message start, and that
 * out was left as it was; streaming it fails in the same words. */
static int expect_error(const struct ofl_buf *in, int code, uint64_t offset, const char *msg)
{
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	ofl_buf_append_str(&out, "keep");
	int rc = ofl_ccob_decompress(in->data, in->len, &out, NULL, NULL, &e);
	struct collect c = {OFL_BUF_INIT, 0, SIZE_MAX};
	struct ofl_error se = OFL_ERROR_INIT;
	int src = ofl_ccob_stream(in->data, in->len, collect_sink, &c, NULL, &se);
	ofl_buf_release(&c.b);
	int bad = rc != code || e.code != code || e.offset != offset ||
	          strncmp(e.msg, msg, strlen(msg)) != 0 || out.len != 4;
	if (bad)
		fprintf(stderr, "got rc %d offset %llu \"%s\", expected %d %llu \"%s...\"\n", rc,
		        (unsigned long long)e.offset, e.msg, code, (unsigned long long)offset, msg);
	if (src != rc || se.offset != e.offset || strcmp(se.msg, e.msg)) {
		fprintf(stderr, "streamed: rc %d offset %llu \"%s\"\n", src,
		        (unsigned long long)se.offset, se.msg);
		bad = 1;
	}
	ofl_buf_release(&out);
	return !bad;
}

static struct ofl_buf patched(const struct ofl_buf *in, size_t len, size_t at, const void *bytes,
                              size_t n)
{
	struct ofl_buf b = OFL_BUF_INIT;
	ofl_buf_append(&b, in->data, len);
	if (n)
		memcpy(b.data + at, bytes, n);
	return b;
}

#define EXPECT(len, at, bytes, n, code, off, msg)                                                  \
	do {                                                                                       \
		struct ofl_buf t_ = patched(&v3, (len), (at), (bytes), (n));                       \
		int ok_ = expect_error(&t_, (code), (off), (msg));                                 \
		ofl_buf_release(&t_);                                                              \
		CHECK(ok_);                                                                        \
	} while (0)

OFL_TEST(header_errors)
{
	struct ofl_buf v3 = ofl_test_fixture("llvm22/v3.ccob");
	size_t n = v3.len;
	uint8_t u64[8];
	CHECK(n > 64);
	EXPECT(6, 0, NULL, 0, OFL_EFORMAT, 6, "compressed bundle header is truncated");
	EXPECT(20, 0, NULL, 0, OFL_EFORMAT, 20, "compressed bundle header is truncated");
	EXPECT(n, 0, "CCOX", 4, OFL_EFORMAT, 0, "missing 'CCOB' magic");
	EXPECT(n, 4, "\0\0", 2, OFL_EUNSUPPORTED, 4, "unsupported compressed bundle version 0");
	EXPECT(n, 4, "\4\0", 2, OFL_EUNSUPPORTED, 4, "unsupported compressed bundle version 4");
	EXPECT(n, 6, "\2\0", 2, OFL_EUNSUPPORTED, 6, "unknown compression method 2");
	EXPECT(n, 8, "\x1f\0\0\0\0\0\0\0", 8, OFL_EFORMAT, 8, "total size 31 is smaller");
	EXPECT(n - 1, 0, NULL, 0, OFL_EFORMAT, 8, "total size 1780 runs past the end");
	for (int i = 0; i < 8; i++)
		u64[i] = (uint8_t)((1ull << 40) >> (8 * i));
	EXPECT(n, 16, u64, 8, OFL_EFORMAT, 16, "uncompressed size 1099511627776 is impossible");
	/* 1748 zstd bytes can stand for at most 1748 * 32768 bytes. */
	for (int i = 0; i < 8; i++)
		u64[i] = (uint8_t)((1748ull * 32768 + 1) >> (8 * i));
	EXPECT(n, 16, u64, 8, OFL_EFORMAT, 16, "uncompressed size 57278465 is impossible");
	ofl_buf_release(&v3);
}

OFL_TEST(stream_errors)
{
	struct ofl_buf v3 = ofl_test_fixture("llvm22/v3.ccob");
	size_t n = v3.len;
	EXPECT(n, 16, "\x9e\x1b", 2, OFL_EFORMAT, 16, "uncompressed size 7070 in the header does");
	EXPECT(n, 16, "\xa0\x1b", 2, OFL_EFORMAT, 16, "uncompressed size 7072 in the header does");
	EXPECT(n, 32, "XXXX", 4, OFL_EFORMAT, 32, "failed to decompress: Unknown frame descriptor");
	/* Shorter total, so the stream is cut: zstd's own message. */
	EXPECT(n, 8, "\x00\x06\0\0\0\0\0\0", 8, OFL_EFORMAT, 32, "failed to decompress: ");
	ofl_buf_release(&v3);
}

OFL_TEST(zlib_stream_errors)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"), v3 = OFL_BUF_INIT;
	CHECK(compress_as(&raw, 3, OFL_CCOB_ZLIB, INT32_MIN, 0, &v3) == 0);
	size_t n = v3.len;
	EXPECT(n, 16, "\x9e\x1b", 2, OFL_EFORMAT, 16,
	       "uncompressed size 7070 in the header does not match the data (zlib error: "
	       "Z_BUF_ERROR)");
	EXPECT(n, 16, "\xa0\x1b", 2, OFL_EFORMAT, 16,
	       "uncompressed size 7072 in the header does not match the data (stream holds "
	       "7071 bytes)");
	EXPECT(n, 32, "\x79", 1, OFL_EFORMAT, 32, "failed to decompress: zlib error: Z_DATA_ERROR");
	ofl_buf_release(&raw);
	ofl_buf_release(&v3);
}

OFL_TEST(hash_is_reported_not_enforced)
{
	struct ofl_buf v3 = ofl_test_fixture("llvm22/v3.ccob"), out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	bool hash_ok = true;
	memset(v3.data + 24, 0, 8);
	CHECK(ofl_ccob_decompress(v3.data, v3.len, &out, NULL, &hash_ok, &e) == 0);
	CHECK(!hash_ok);
	CHECK_EQ_U(out.len, 7071);
	ofl_buf_release(&v3);
	ofl_buf_release(&out);
}

OFL_TEST(magic_test_and_bad_options)
{
	static const uint8_t tiny[8] = "CCOB\3\0\1";
	struct ofl_ccob_options o = OFL_CCOB_OPTIONS_INIT;
	struct ofl_buf out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(!ofl_ccob_is(tiny, 6));
	CHECK(ofl_ccob_is(tiny, 8));
	o.version = 1;
	CHECK(ofl_ccob_compress(tiny, 8, &o, &out, &e) == OFL_EINVAL);
	ofl_error_clear(&e);
	o.version = 2;
	o.method = 7;
	CHECK(ofl_ccob_compress(tiny, 8, &o, &out, &e) == OFL_EINVAL);
	ofl_error_clear(&e);
	o.method = OFL_CCOB_ZLIB;
	o.level = 10;
	CHECK(ofl_ccob_compress(tiny, 8, &o, &out, &e) == OFL_EINVAL);
	CHECK_STR(e.msg, "invalid zlib compression level 10");
	ofl_error_clear(&e);
	/* The v2 limit is checked before any input byte is read. */
	o.level = INT32_MIN;
	CHECK(ofl_ccob_compress(tiny, (size_t)UINT32_MAX + 1, &o, &out, &e) == OFL_EINVAL);
	CHECK_STR(e.msg, "uncompressed size exceeds version 2 limit");
	CHECK_EQ_U(out.len, 0);
	ofl_buf_release(&out);
}

/* Two zstd frames with a skippable frame between them: one bundle, as
 * ZSTD_decompress reads it, both in one piece and streamed. */
OFL_TEST(stream_frames_and_skippable)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"), z = OFL_BUF_INIT,
	               out = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	size_t half = raw.len / 2, cap = ZSTD_compressBound(raw.len);
	static const uint8_t skip[12] = {0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4};
	uint8_t *tmp = malloc(cap);
	CHECK(tmp != NULL);
	ofl_buf_append(&z, "CCOB\3\0\1\0", 8);
	ofl_buf_append_zeros(&z, 24);
	size_t n = ZSTD_compress(tmp, cap, raw.data, half, 3);
	ofl_buf_append(&z, tmp, n);
	ofl_buf_append(&z, skip, sizeof skip);
	n = ZSTD_compress(tmp, cap, raw.data + half, raw.len - half, 3);
	ofl_buf_append(&z, tmp, n);
	uint64_t fields[3] = {z.len, raw.len, ofl_ccob_hash(raw.data, raw.len)};
	for (int f = 0; f < 3; f++)
		for (int i = 0; i < 8; i++)
			z.data[8 + 8 * f + i] = (uint8_t)(fields[f] >> (8 * i));
	CHECK(ofl_ccob_decompress(z.data, z.len, &out, NULL, NULL, &e) == 0);
	CHECK(same(&out, &raw));
	CHECK(stream_same(&z, &raw));
	free(tmp);
	ofl_buf_release(&raw);
	ofl_buf_release(&z);
	ofl_buf_release(&out);
}

OFL_TEST(stream_zlib_and_sink_errors)
{
	struct ofl_buf raw = ofl_test_fixture("llvm22/bundle.raw"), z = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(compress_as(&raw, 3, OFL_CCOB_ZLIB, INT32_MIN, 0, &z) == 0);
	CHECK(stream_same(&z, &raw));
	for (int m = 0; m <= 1; m++) {
		/* the sink's error ends the stream and comes back as it is */
		struct collect c = {OFL_BUF_INIT, 0, 100};
		CHECK(compress_as(&raw, 3, m, INT32_MIN, 0, &z) == 0);
		CHECK(ofl_ccob_stream(z.data, z.len, collect_sink, &c, NULL, &e) == OFL_EINVAL);
		CHECK(strcmp(e.msg, "sink says stop") == 0);
		CHECK_EQ_U(c.pieces, 1);
		ofl_error_clear(&e);
		ofl_buf_release(&c.b);
	}
	ofl_buf_release(&raw);
	ofl_buf_release(&z);
}

/* A sink that checks it runs beside the decoder, on a thread of its own. */
struct beside {
	struct collect c;
	pthread_t caller;
	size_t on_caller; /* pieces given on the caller's thread */
};

static int beside_sink(void *ctx, const uint8_t *p, size_t n, size_t in_used, struct ofl_error *err)
{
	struct beside *b = ctx;
	b->on_caller += pthread_equal(pthread_self(), b->caller) != 0;
	return collect_sink(&b->c, p, n, in_used, err);
}

/* A bundle of several MiB streams as decoding and writing overlap (the
 * decoder fills the next buffer while the sink takes this one): every
 * piece, in order, on another thread than the caller's; a sink's error
 * still ends the stream, returned as it is, and no piece follows it. */
OFL_TEST(stream_overlaps_decoder_and_sink)
{
	struct ofl_buf raw = OFL_BUF_INIT, z = OFL_BUF_INIT;
	for (uint32_t i = 0; raw.len < (9u << 20); i++)
		ofl_buf_printf(&raw, "entry %u: %08x\n", i % 1000, i * 2654435761u);
	for (int m = 0; m <= 1; m++) {
		struct ofl_error e = OFL_ERROR_INIT;
		struct beside b = {{OFL_BUF_INIT, 0, SIZE_MAX}, pthread_self(), 0};
		CHECK(compress_as(&raw, 3, m, INT32_MIN, 0, &z) == 0);
		CHECK(ofl_ccob_stream(z.data, z.len, beside_sink, &b, NULL, &e) == 0);
		CHECK(b.c.pieces > 2);
		CHECK_EQ_U(b.on_caller, 0);
		CHECK(same(&b.c.b, &raw));
		ofl_buf_release(&b.c.b);
		struct beside stop = {{OFL_BUF_INIT, 0, 3u << 20}, pthread_self(), 0};
		CHECK(ofl_ccob_stream(z.data, z.len, beside_sink, &stop, NULL, &e) == OFL_EINVAL);
		CHECK(strcmp(e.msg, "sink says stop") == 0);
		CHECK_EQ_U(stop.c.pieces, 2);
		ofl_buf_release(&stop.c.b);
	}
	ofl_buf_release(&raw);
	ofl_buf_release(&z);
}
