/* OffloadBinary (magic 10 FF 10 AD, docs/formats.md §5): one device image plus
 * string metadata (triple, arch, ...), as clang-offload-packager writes it and
 * as -fembed-offload-object puts it in .llvm.offloading sections. */
#ifndef OFFLINK_OFFLOAD_BINARY_H
#define OFFLINK_OFFLOAD_BINARY_H

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

enum ofl_image_kind {
	OFL_IMG_NONE = 0,
	OFL_IMG_OBJECT = 1,
	OFL_IMG_BITCODE = 2,
	OFL_IMG_CUBIN = 3,
	OFL_IMG_FATBINARY = 4,
	OFL_IMG_PTX = 5,
	OFL_IMG_SPIRV = 6,
};

/* Offload kinds as stored.  HIP is 3 in LLVM 19 and 4 in LLVM 22. */
enum ofl_offload_kind {
	OFL_OFK_NONE = 0,
	OFL_OFK_OPENMP = 1,
	OFL_OFK_CUDA = 2,
	OFL_OFK_HIP19 = 3,
	OFL_OFK_HIP = 4,
	OFL_OFK_SYCL = 8,
};

/* Which LLVM's numbering and rules to follow (19: HIP = 3, no SYCL; 23:
 * version 2 binaries, SPIR-V named, xxh3 key order). */
enum ofl_llvm_version {
	OFL_LLVM_19 = 19,
	OFL_LLVM_22 = 22,
	OFL_LLVM_23 = 23,
};

/* The newest OffloadBinary version release v reads and writes: 1 for 19
 * and 22, 2 for 23 (docs/formats.md §5.6). */
uint32_t ofl_obin_max_version(enum ofl_llvm_version v);

#define OFL_OBIN_MAGIC "\x10\xff\x10\xad"
#define OFL_OBIN_HEADER_SIZE 32
#define OFL_OBIN_ENTRY_SIZE 40
/* Shortest v1 binary LLVM accepts: header plus entry. */
#define OFL_OBIN_MIN_SIZE 72

struct ofl_obin_string {
	const char *key;     /* NUL-terminated */
	const char *value;   /* NUL-terminated; v2+ values may hold NULs too */
	uint64_t value_size; /* v1: strlen(value); v2+: the stored size */
};

/* One parsed image.  image points into the parsed buffer (or, for a
 * compressed v3 binary, into the set's inflated copy); key and value views
 * likewise.  The strings array is owned: by the binary for ofl_obin_parse
 * (free with ofl_obin_release), by the set for ofl_obin_parse_set. */
struct ofl_obin {
	uint32_t version;
	uint16_t image_kind;
	uint16_t offload_kind; /* raw value */
	uint32_t flags;
	const uint8_t *image;
	uint64_t image_size;
	uint64_t image_offset; /* as stored: from the start of the binary */
	size_t nstrings;
	struct ofl_obin_string *strings; /* in stored order */
	uint64_t size;                   /* the binary's size field */
};

#define OFL_OBIN_INIT                                                                              \
	{                                                                                          \
		0, 0, 0, 0, NULL, 0, 0, 0, NULL, 0                                                 \
	}

/* True when data starts with the magic. */
bool ofl_obin_is(const uint8_t *data, size_t size);

/* Parses the version-1 binary that starts at data, with every check LLVM 19
 * and 22 make and the bounds checks they omit; size is what is available
 * (the binary's size field bounds it further).  Other versions are
 * OFL_EFORMAT here, as LLVM 19/22 reject them: use ofl_obin_parse_set.
 * Offsets in errors are relative to data. */
int ofl_obin_parse(const uint8_t *data, size_t size, struct ofl_obin *out, struct ofl_error *err);
void ofl_obin_release(struct ofl_obin *b);

/* How LLVM release v words the rejection of bytes it does not read (a
 * version above ofl_obin_max_version(v) included). */
enum ofl_obin_llvm_diag {
	OFL_OBIN_INVALID_DATA,   /* "Invalid data was encountered while parsing the file" */
	OFL_OBIN_UNEXPECTED_EOF, /* "The end of the file was unexpectedly encountered" */
	OFL_OBIN_OBJECT,         /* LLVM's object reader refused the file: the
	                          * error's message is its words */
};
enum ofl_obin_llvm_diag ofl_obin_llvm_diag(const uint8_t *data, size_t size,
                                           enum ofl_llvm_version v);
/* LLVM's words for d; err's message for OFL_OBIN_OBJECT. */
const char *ofl_obin_llvm_diag_text(enum ofl_obin_llvm_diag d, const struct ofl_error *err);

/* Any version (1, 2 with several entries, 3 possibly zstd/zlib compressed,
 * docs/formats.md §5.6).  entries and their strings are owned by the set. */
struct ofl_obin_set {
	uint32_t version;
	uint64_t size;          /* the size field */
	uint64_t span;          /* bytes to the next binary: size, rounded up to
	                         * 8 for a compressed v3 (as newer LLVM reads) */
	uint64_t inflated_size; /* v3: size once inflated; 0 when stored plainly */
	int compression;        /* 0 none, 1 zlib, 2 zstd */
	size_t nentries;
	struct ofl_obin *entries;
	uint8_t *inflated; /* owned copy of an inflated v3 binary */
	void *pool;        /* owned: strings arrays and v2+ value copies */
};

#define OFL_OBIN_SET_INIT                                                                          \
	{                                                                                          \
		0, 0, 0, 0, 0, 0, NULL, NULL, NULL                                                 \
	}

int ofl_obin_parse_set(const uint8_t *data, size_t size, struct ofl_obin_set *out,
                       struct ofl_error *err);
void ofl_obin_set_release(struct ofl_obin_set *s);

/* Entry i of a set as a binary of its own, for keeping after the set is
 * released: its keys and values are copied into the strings block b owns
 * (ofl_obin_release frees it); the image stays a view into the bytes
 * parsed (for a compressed v3 binary, into s->inflated). */
int ofl_obin_set_entry(const struct ofl_obin_set *s, size_t i, struct ofl_obin *b,
                       struct ofl_error *err);

/* Entry flag bit 0 (version 2+): an entry of metadata only, no image. */
#define OFL_OBIN_FLAG_METADATA 1u

/* OFL_EUNSUPPORTED, naming what, when b holds what no release offlink
 * knows writes (an image kind past SPIR-V, an offload kind that is not
 * OpenMP, CUDA, HIP or SYCL, a flag bit other than OFL_OBIN_FLAG_METADATA):
 * a newer LLVM made it, and guessing would link the wrong code. */
int ofl_obin_check_known(const struct ofl_obin *b, struct ofl_error *err);

/* Value for key, or NULL. */
const char *ofl_obin_get(const struct ofl_obin *b, const char *key);

/* Names as llvm-objdump --offloading of release v prints them: "elf",
 * "llvm ir", ..., "spir-v" (23), "<none>"; producer "openmp", "cuda",
 * "hip", "sycl", "none" for the numbering of release v. */
const char *ofl_image_kind_objdump_name(uint16_t kind, enum ofl_llvm_version v);
const char *ofl_offload_kind_name(uint16_t kind, enum ofl_llvm_version v);
/* Extraction suffix ("o", "bc", ..., "spv" from 23; "" for none), as
 * release v names files. */
const char *ofl_image_kind_suffix(uint16_t kind, enum ofl_llvm_version v);
/* kind= strings: "openmp" -> 1 ..., unknown -> 0. */
uint16_t ofl_offload_kind_parse(const char *s, enum ofl_llvm_version v);
/* From a file extension without the dot, as release v reads it: "o" ->
 * OFL_IMG_OBJECT, ..., "spv" -> OFL_IMG_SPIRV from 23. */
uint16_t ofl_image_kind_from_ext(const char *ext, enum ofl_llvm_version v);

/* What to write: strings in the order given (see ofl_obin_llvm_key_order). */
struct ofl_obin_image {
	uint16_t image_kind;
	uint16_t offload_kind;
	uint32_t flags;
	const uint8_t *image;
	uint64_t image_size;
	size_t nstrings;
	const char *const *keys;
	const char *const *values;
};

/* Appends one version-1 binary, laid out byte for byte as LLVM 19/22 do.
 * With image NULL (and image_size set) only the bytes before the image are
 * appended; the caller writes the image and zeros up to a multiple of 8. */
int ofl_obin_write(const struct ofl_obin_image *img, struct ofl_buf *out, struct ofl_error *err);

/* Appends one version-2 binary holding the n images, laid out byte for
 * byte as LLVM 23 writes it (docs/formats.md §5.6): entries, every
 * image's string entries, one shared string table, then the images back
 * to back, only the first 8-aligned.  When every image pointer is NULL
 * only the bytes before the first image are appended: the caller writes
 * the images in order, then zeros up to *total.  n 0 gives what 23's
 * release build writes for no image: a 40-byte binary of no entry. */
int ofl_obin_write_v2(const struct ofl_obin_image *imgs, size_t n, struct ofl_buf *out,
                      uint64_t *total, struct ofl_error *err);

/* Release v's hash_value(StringRef) for release builds (docs/formats.md
 * §5.3): 19 and 22 a CityHash derivative, 23 xxh3_64bits ^ seed. */
uint64_t ofl_llvm_string_hash(const char *s, size_t len, enum ofl_llvm_version v);

/* The order release v's DenseMap<StringRef,StringRef> iterates keys
 * inserted in the given order (docs/formats.md §5.3); fills order[] with
 * indices.  Keys must be distinct.  The caller passes every key the
 * packager saw, "file" and "kind" included, and skips those when writing.
 * Returns the number of indices written (n), or OFL_ENOMEM. */
int ofl_obin_llvm_key_order(const char *const *keys, size_t n, enum ofl_llvm_version v,
                            size_t *order);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
