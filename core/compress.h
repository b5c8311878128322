/* Private to libofflink: zlib and zstd calls with the parameters LLVM uses,
 * writing into caller-sized buffers or streaming to a sink (no copies of
 * the input). */
#ifndef OFL_COMPRESS_H
#define OFL_COMPRESS_H

#ifndef OFL_BUILDING_CORE
#error "compress.h is private to libofflink"
#endif

#include <stddef.h>
#include <stdint.h>

#include "offlink/ccob.h"
#include "offlink/error.h"

/* Worst-case compressed sizes; 0 when the input is too large to compress. */
size_t ofl_zlib_bound(size_t size);
size_t ofl_zstd_bound(size_t size);

/* Largest output a stream of n compressed bytes can legitimately produce
 * (saturates at UINT64_MAX). */
uint64_t ofl_zlib_max_expansion(uint64_t n);
uint64_t ofl_zstd_max_expansion(uint64_t n);

/* zlib compress2() at level (-1..9): RFC 1950 stream into dst[0..cap). */
int ofl_zlib_compress(const uint8_t *src, size_t size, int level, uint8_t *dst, size_t cap,
                      size_t *written, struct ofl_error *err);

/* ZSTD_compress2 with compressionLevel = level and long-distance matching;
 * threads == 0 is the one-shot single-threaded path LLVM takes, threads >= 1
 * sets nbWorkers (the output is then the same for every worker count). */
int ofl_zstd_compress(const uint8_t *src, size_t size, int level, int threads, uint8_t *dst,
                      size_t cap, size_t *written, struct ofl_error *err);

/* Where decompression errors point: the stream itself, and the header field
 * that stated the uncompressed size (for length mismatches). */
struct ofl_decomp_at {
	uint64_t stream;
	uint64_t size_field;
};

/* Decompresses src into exactly want bytes at dst.  A corrupt stream is
 * OFL_EFORMAT "failed to decompress: <library message>"; a stream that
 * yields more or fewer than want bytes is OFL_EFORMAT at at->size_field. */
int ofl_zlib_decompress(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                        const struct ofl_decomp_at *at, struct ofl_error *err);
int ofl_zstd_decompress(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                        const struct ofl_decomp_at *at, struct ofl_error *err);

/* Decompresses only the first bytes of a stream: up to want bytes into dst,
 * *got how many came (fewer only if the stream ends first). */
int ofl_zlib_decompress_prefix(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                               size_t *got, const struct ofl_decomp_at *at, struct ofl_error *err);
int ofl_zstd_decompress_prefix(const uint8_t *src, size_t size, uint8_t *dst, size_t want,
                               size_t *got, const struct ofl_decomp_at *at, struct ofl_error *err);

/* ofl_zlib_decompress / ofl_zstd_decompress with the same checks (for
 * zlib the same errors), handing the bytes to sink (offlink/ccob.h; in_used
 * counts bytes of src; on a thread of its own beside the decoder when they
 * take more than one buffer) through a few buffers instead of writing them
 * into one of want bytes.  Memory is the decoder's: zlib's 32 KiB window, or for
 * zstd the frame's window (which LLVM's frames size to their content, at
 * most 128 MiB with long-distance matching); a frame asking for more than
 * max(128 MiB, want) is refused. */
int ofl_zlib_decompress_stream(const uint8_t *src, size_t size, size_t want, ofl_ccob_sink sink,
                               void *ctx, const struct ofl_decomp_at *at, struct ofl_error *err);
int ofl_zstd_decompress_stream(const uint8_t *src, size_t size, size_t want, ofl_ccob_sink sink,
                               void *ctx, const struct ofl_decomp_at *at, struct ofl_error *err);

#endif
