/* Compressed bundles ("CCOB", docs/formats.md §4): one header and a zlib or zstd
 * stream holding a whole uncompressed bundle. */
#ifndef OFFLINK_CCOB_H
#define OFFLINK_CCOB_H

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

enum ofl_ccob_method { OFL_CCOB_ZLIB = 0, OFL_CCOB_ZSTD = 1 };

struct ofl_ccob_header {
	uint16_t version;    /* 1, 2 or 3 */
	uint16_t method;     /* enum ofl_ccob_method */
	size_t header_size;  /* 20, 24 or 32 */
	uint64_t total_size; /* whole CCOB object; v1: unknown, set to input size */
	uint64_t raw_size;   /* uncompressed bundle size */
	uint64_t hash;       /* first 8 bytes of MD5(uncompressed), as stored */
};

/* Starts with "CCOB" and is at least 8 bytes long (LLVM's test). */
bool ofl_ccob_is(const uint8_t *data, size_t size);

/* Parses and checks the header of the CCOB at data[0..size).  Offsets in
 * errors are relative to data.  Besides the fields it checks that
 * header_size <= total_size <= size, and that raw_size is at most what the
 * method can expand total_size - header_size bytes to (deflate 1032:1, zstd
 * 32768:1), so a forged header cannot request an allocation out of
 * proportion to the input.  Versions other than 1-3 and methods other than
 * zlib/zstd are OFL_EUNSUPPORTED, everything else OFL_EFORMAT. */
int ofl_ccob_parse_header(const uint8_t *data, size_t size, struct ofl_ccob_header *h,
                          struct ofl_error *err);

/* Decompresses the CCOB at data, appending the bundle to out (which grows by
 * exactly raw_size; the input is not copied).  Only total_size bytes are
 * read, so data may continue with another CCOB or padding.  *consumed gets
 * the CCOB's total size (so a caller can walk concatenated CCOBs and skip
 * trailing zero padding).  The stored hash is not required to match (LLVM
 * does not check it); *hash_ok says whether it did.  consumed and hash_ok
 * may be NULL (no MD5 is computed then).  A corrupt stream is OFL_EFORMAT
 * "failed to decompress: <library message>" at the stream's offset; a stream
 * of another length than raw_size is OFL_EFORMAT at the size field.  On
 * error out keeps its length. */
int ofl_ccob_decompress(const uint8_t *data, size_t size, struct ofl_buf *out, size_t *consumed,
                        bool *hash_ok, struct ofl_error *err);

/* Receives a CCOB's inflated bytes in order, n > 0 at a time; in_used is
 * how many bytes of the compressed stream (after the header) have been
 * consumed so far (so a caller may let go of them).  A non-zero return
 * stops the stream and is returned as is.  Called one piece at a time, but
 * for a bundle of more than one buffer on a thread of the stream's own
 * (beside the decoder): it must not count on the caller's thread. */
typedef int (*ofl_ccob_sink)(void *ctx, const uint8_t *p, size_t n, size_t in_used,
                             struct ofl_error *err);

/* ofl_ccob_decompress, with the same checks, handing the bundle to sink
 * piece by piece instead of holding it: memory is a few 2 MiB buffers,
 * which the decoder fills while the sink takes the last one (decoding and
 * writing overlap, as in zstd's command line), and the decoder's window
 * (zlib 32 KiB; zstd the frame's window, which LLVM sizes to the bundle up
 * to 128 MiB; frames asking for more than max(128 MiB, raw_size) are
 * refused).  Damage is an error either way, but
 * zstd's streaming decoder may meet it in another order than its one-shot
 * one, and so name it otherwise.  *hash, unless hash is NULL, gets the
 * truncated MD5 of the bundle (ofl_ccob_hash).  The sink may have seen
 * bytes when an error in the stream is found later. */
int ofl_ccob_stream(const uint8_t *data, size_t size, ofl_ccob_sink sink, void *ctx, uint64_t *hash,
                    struct ofl_error *err);

/* Decompresses only the first min(want, raw_size) bytes of the CCOB at data,
 * appending them to out (fills *h too): enough to read a bundle's header
 * without inflating its entries. */
int ofl_ccob_peek(const uint8_t *data, size_t size, size_t want, struct ofl_buf *out,
                  struct ofl_ccob_header *h, struct ofl_error *err);

struct ofl_ccob_options {
	int version; /* 2 or 3 */
	int method;  /* enum ofl_ccob_method */
	int level;   /* compression level; INT32_MIN for the method's default */
	int threads; /* 0: one-shot, byte-identical to LLVM; >= 1: zstd workers
	              * (output identical for every count >= 1, but not to
	              * 0); ignored for zlib */
};

#define OFL_CCOB_OPTIONS_INIT                                                                      \
	{                                                                                          \
		3, OFL_CCOB_ZSTD, INT32_MIN, 0                                                     \
	}

/* Compresses the bundle data[0..size) into a CCOB appended to out: zstd
 * with the level and long-distance matching (LLVM's exact parameters), or
 * zlib compress2 (level -1..9).  Bad options, and version 2 with more than
 * 4 GiB in or out ("uncompressed size exceeds version 2 limit", "total file
 * size exceeds version 2 limit"), are OFL_EINVAL.  Reserves the worst-case
 * compressed size in out. */
int ofl_ccob_compress(const uint8_t *data, size_t size, const struct ofl_ccob_options *o,
                      struct ofl_buf *out, struct ofl_error *err);

/* The truncated MD5 LLVM stores (first 8 digest bytes, little-endian u64). */
uint64_t ofl_ccob_hash(const uint8_t *data, size_t size);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
