/* Compressed offload bundles, "CCOB" (docs/formats.md §4). */
#include <nettle/md5.h>
#include <pthread.h>
#include <sys/mman.h>

#include "compress.h"
#include "internal.h"
#include "offlink/ccob.h"

static const uint8_t ccob_magic[4] = {'C', 'C', 'O', 'B'};

bool ofl_ccob_is(const uint8_t *data, size_t size)
{
	return size >= 8 && memcmp(data, ccob_magic, 4) == 0;
}

uint64_t ofl_ccob_hash(const uint8_t *data, size_t size)
{
	struct md5_ctx c;
	uint8_t d[MD5_DIGEST_SIZE];
	md5_init(&c);
	md5_update(&c, size, data);
	md5_digest(&c, sizeof(d), d);
	return ofl_le64(d);
}

static size_t header_size_of(unsigned version)
{
	return version == 1 ? 20 : version == 2 ? 24 : 32;
}

/* Offset of the uncompressed-size field, for errors about it. */
static uint64_t raw_size_offset(unsigned version)
{
	return version == 1 ? 8 : version == 2 ? 12 : 16;
}

static void read_fields(const uint8_t *p, size_t size, struct ofl_ccob_header *h)
{
	switch (h->version) {
	case 1:
		h->total_size = size;
		h->raw_size = ofl_le32(p + 8);
		h->hash = ofl_le64(p + 12);
		break;
	case 2:
		h->total_size = ofl_le32(p + 8);
		h->raw_size = ofl_le32(p + 12);
		h->hash = ofl_le64(p + 16);
		break;
	default:
		h->total_size = ofl_le64(p + 8);
		h->raw_size = ofl_le64(p + 16);
		h->hash = ofl_le64(p + 24);
	}
}

/* Refuses uncompressed sizes no stream of this length can produce, so a
 * forged header cannot make us allocate more than the method's maximum
 * expansion of the bytes actually present (1032x zlib, 32768x zstd). */
static int check_sizes(const struct ofl_ccob_header *h, size_t size, struct ofl_error *err)
{
	if (h->total_size < h->header_size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "total size %llu is smaller than the %zu-byte header",
		                     (unsigned long long)h->total_size, h->header_size);
	if (h->total_size > size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 8,
		                     "total size %llu runs past the end of the input (%zu bytes)",
		                     (unsigned long long)h->total_size, size);
	uint64_t stream = h->total_size - h->header_size;
	uint64_t max = h->method == OFL_CCOB_ZLIB ? ofl_zlib_max_expansion(stream)
	                                          : ofl_zstd_max_expansion(stream);
	if (h->raw_size > max || h->raw_size > SIZE_MAX)
		return ofl_error_set(
		    err, OFL_EFORMAT, NULL, raw_size_offset(h->version),
		    "uncompressed size %llu is impossible for %llu compressed bytes",
		    (unsigned long long)h->raw_size, (unsigned long long)stream);
	return 0;
}

int ofl_ccob_parse_header(const uint8_t *data, size_t size, struct ofl_ccob_header *h,
                          struct ofl_error *err)
{
	if (size < 8)
		return ofl_error_set(err, OFL_EFORMAT, NULL, size,
		                     "compressed bundle header is truncated (%zu bytes)", size);
	if (memcmp(data, ccob_magic, 4) != 0)
		return ofl_error_set(err, OFL_EFORMAT, NULL, 0, "missing 'CCOB' magic");
	*h = (struct ofl_ccob_header){.version = ofl_le16(data + 4), .method = ofl_le16(data + 6)};
	if (h->version < 1 || h->version > 3)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, 4,
		                     "unsupported compressed bundle version %u", h->version);
	h->header_size = header_size_of(h->version);
	if (size < h->header_size)
		return ofl_error_set(err, OFL_EFORMAT, NULL, size,
		                     "compressed bundle header is truncated (%zu of %zu bytes)",
		                     size, h->header_size);
	if (h->method != OFL_CCOB_ZLIB && h->method != OFL_CCOB_ZSTD)
		return ofl_error_set(err, OFL_EUNSUPPORTED, NULL, 6,
		                     "unknown compression method %u", h->method);
	read_fields(data, size, h);
	return check_sizes(h, size, err);
}

/* The inflated bundle is written once, front to back: in 4 KiB pages that
 * is one fault and one page clear per 4 KiB (a third of unbundling a
 * 256 MiB CCOB); transparent huge pages take 512 times fewer faults.  Only
 * a hint: without THP nothing changes. */
static void hint_huge_pages(uint8_t *p, size_t n)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
}

int ofl_ccob_decompress(const uint8_t *data, size_t size, struct ofl_buf *out, size_t *consumed,
                        bool *hash_ok, struct ofl_error *err)
{
	struct ofl_ccob_header h;
	int rc = ofl_ccob_parse_header(data, size, &h, err);
	if (rc < 0)
		return rc;
	size_t raw = (size_t)h.raw_size;
	if (ofl_buf_reserve(out, raw) < 0)
		return OFL_NOMEM(err);
	uint8_t *dst = out->data + out->len;
	hint_huge_pages(dst, raw);
	const uint8_t *src = data + h.header_size;
	size_t n = (size_t)(h.total_size - h.header_size);
	struct ofl_decomp_at at = {h.header_size, raw_size_offset(h.version)};
	rc = h.method == OFL_CCOB_ZLIB ? ofl_zlib_decompress(src, n, dst, raw, &at, err)
	                               : ofl_zstd_decompress(src, n, dst, raw, &at, err);
	if (rc < 0)
		return rc;
	if (hash_ok)
		*hash_ok = ofl_ccob_hash(dst, raw) == h.hash;
	out->len += raw;
	if (consumed)
		*consumed = (size_t)h.total_size;
	return 0;
}

/* Hashes the bytes on their way to the caller's sink. */
struct hashing_sink {
	ofl_ccob_sink sink;
	void *ctx;
	struct md5_ctx md5;
};

static int hash_and_pass(void *ctx, const uint8_t *p, size_t n, size_t in_used,
                         struct ofl_error *err)
{
	struct hashing_sink *h = ctx;
	md5_update(&h->md5, n, p);
	return h->sink(h->ctx, p, n, in_used, err);
}

int ofl_ccob_stream(const uint8_t *data, size_t size, ofl_ccob_sink sink, void *ctx, uint64_t *hash,
                    struct ofl_error *err)
{
	struct ofl_ccob_header h;
	int rc = ofl_ccob_parse_header(data, size, &h, err);
	if (rc < 0)
		return rc;
	struct hashing_sink hs = {.sink = sink, .ctx = ctx};
	if (hash) {
		md5_init(&hs.md5);
		sink = hash_and_pass;
		ctx = &hs;
	}
	const uint8_t *src = data + h.header_size;
	size_t n = (size_t)(h.total_size - h.header_size), raw = (size_t)h.raw_size;
	struct ofl_decomp_at at = {h.header_size, raw_size_offset(h.version)};
	rc = h.method == OFL_CCOB_ZLIB
	         ? ofl_zlib_decompress_stream(src, n, raw, sink, ctx, &at, err)
	         : ofl_zstd_decompress_stream(src, n, raw, sink, ctx, &at, err);
	if (rc || !hash)
		return rc;
	uint8_t d[MD5_DIGEST_SIZE];
	md5_digest(&hs.md5, sizeof(d), d);
	*hash = ofl_le64(d);
	return 0;
}

int ofl_ccob_peek(const uint8_t *data, size_t size, size_t want, struct ofl_buf *out,
                  struct ofl_ccob_header *h, struct ofl_error *err)
{
	int rc = ofl_ccob_parse_header(data, size, h, err);
	if (rc < 0)
		return rc;
	if (want > h->raw_size)
		want = (size_t)h->raw_size;
	if (ofl_buf_reserve(out, want) < 0)
		return OFL_NOMEM(err);
	const uint8_t *src = data + h->header_size;
	size_t n = (size_t)(h->total_size - h->header_size), got = 0;
	struct ofl_decomp_at at = {h->header_size, raw_size_offset(h->version)};
	uint8_t *dst = out->data + out->len;
	rc = h->method == OFL_CCOB_ZLIB
	         ? ofl_zlib_decompress_prefix(src, n, dst, want, &got, &at, err)
	         : ofl_zstd_decompress_prefix(src, n, dst, want, &got, &at, err);
	if (rc < 0)
		return rc;
	if (got < want)
		return ofl_error_set(err, OFL_EFORMAT, NULL, at.size_field,
		                     "uncompressed size %llu does not match the stream",
		                     (unsigned long long)h->raw_size);
	out->len += got;
	return 0;
}

static int check_options(const struct ofl_ccob_options *o, size_t size, struct ofl_error *err)
{
	if (o->version != 2 && o->version != 3)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "cannot write compressed bundle version %d", o->version);
	if (o->method != OFL_CCOB_ZLIB && o->method != OFL_CCOB_ZSTD)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "unknown compression method %d", o->method);
	if (o->threads < 0)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "invalid thread count %d", o->threads);
	/* LLVM's wording, checked before compressing as LLVM does. */
	if (o->version == 2 && (uint64_t)size > UINT32_MAX)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "uncompressed size exceeds version 2 limit");
	return 0;
}

static void put_header(uint8_t *p, const struct ofl_ccob_options *o, uint64_t total, uint64_t raw,
                       uint64_t hash)
{
	memcpy(p, ccob_magic, 4);
	ofl_put_le16(p + 4, (uint16_t)o->version);
	ofl_put_le16(p + 6, (uint16_t)o->method);
	if (o->version == 2) {
		ofl_put_le32(p + 8, (uint32_t)total);
		ofl_put_le32(p + 12, (uint32_t)raw);
		ofl_put_le64(p + 16, hash);
	} else {
		ofl_put_le64(p + 8, total);
		ofl_put_le64(p + 16, raw);
		ofl_put_le64(p + 24, hash);
	}
}

struct hash_job {
	const uint8_t *data;
	size_t size;
	uint64_t hash;
};

static void *hash_main(void *arg)
{
	struct hash_job *j = arg;
	j->hash = ofl_ccob_hash(j->data, j->size);
	return NULL;
}

int ofl_ccob_compress(const uint8_t *data, size_t size, const struct ofl_ccob_options *o,
                      struct ofl_buf *out, struct ofl_error *err)
{
	int rc = check_options(o, size, err);
	if (rc < 0)
		return rc;
	bool zlib = o->method == OFL_CCOB_ZLIB;
	int level = o->level != INT32_MIN ? o->level : zlib ? 6 : 3;
	size_t hdr = header_size_of((unsigned)o->version);
	size_t bound = zlib ? ofl_zlib_bound(size) : ofl_zstd_bound(size);
	uint64_t need;
	if (bound == 0 || ofl_add_overflow(hdr, bound, &need) || need > SIZE_MAX)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "input of %zu bytes is too large to compress", size);
	if (ofl_buf_reserve(out, (size_t)need) < 0)
		return OFL_NOMEM(err);
	uint8_t *p = out->data + out->len;
	size_t n = 0;
	/* The hash does not depend on the compressed bytes, so it runs on a
	 * thread of its own beside the compressor in every mode (the
	 * LLVM-identical one-shot mode included: same bytes, less time). */
	struct hash_job job = {data, size, 0};
	pthread_t tid;
	bool async = size >= (1u << 20) && pthread_create(&tid, NULL, hash_main, &job) == 0;
	rc = zlib ? ofl_zlib_compress(data, size, level, p + hdr, bound, &n, err)
	          : ofl_zstd_compress(data, size, level, o->threads, p + hdr, bound, &n, err);
	if (async)
		pthread_join(tid, NULL);
	if (rc < 0)
		return rc;
	uint64_t total = (uint64_t)hdr + n;
	if (o->version == 2 && total > UINT32_MAX)
		return ofl_error_set(err, OFL_EINVAL, NULL, OFL_NO_OFFSET,
		                     "total file size exceeds version 2 limit");
	put_header(p, o, total, size, async ? job.hash : ofl_ccob_hash(data, size));
	out->len += (size_t)total;
	return 0;
}
