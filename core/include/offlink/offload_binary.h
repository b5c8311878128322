/* OffloadBinary (magic 10 FF 10 AD, formats.md §5): one device image plus
 * string metadata (triple, arch, ...), as clang-offload-packager writes it and
 * as -fembed-offload-object puts it in .llvm.offloading sections. */
#ifndef OFFLINK_OFFLOAD_BINARY_H
#define OFFLINK_OFFLOAD_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#define OFL_OBIN_MAGIC "\x10\xff\x10\xad"

struct ofl_obin_string {
	const char *key; /* views into the parsed buffer, NUL-terminated */
	const char *value;
};

/* One parsed image.  image and strings point into the buffer given to
 * ofl_obin_parse and stay valid as long as it does; the strings array
 * itself is owned and freed by ofl_obin_release. */
struct ofl_obin {
	uint32_t version;
	uint16_t image_kind;
	uint16_t offload_kind; /* raw value */
	uint32_t flags;
	const uint8_t *image;
	uint64_t image_size;
	size_t nstrings;
	struct ofl_obin_string *strings; /* in stored order */
	uint64_t size;                   /* the binary's size field */
};

#define OFL_OBIN_INIT {0, 0, 0, 0, NULL, 0, 0, NULL, 0}

bool ofl_obin_is(const uint8_t *data, size_t size);

/* Parses the binary that starts at data (its size field bounds it); offsets
 * in errors are relative to data. */
int ofl_obin_parse(const uint8_t *data, size_t size, struct ofl_obin *out, struct ofl_error *err);
void ofl_obin_release(struct ofl_obin *b);

/* Value for key, or NULL. */
const char *ofl_obin_get(const struct ofl_obin *b, const char *key);

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

/* Appends one version-1 binary, laid out byte for byte as LLVM 19/22 do. */
int ofl_obin_write(const struct ofl_obin_image *img, struct ofl_buf *out, struct ofl_error *err);

/* The order LLVM's DenseMap<StringRef,StringRef> iterates keys inserted in
 * the given order (formats.md §5.3); fills order[] with indices.  The caller
 * passes every key the packager saw, "file" and "kind" included, and skips
 * those when writing. */
int ofl_obin_llvm_key_order(const char *const *keys, size_t n, size_t *order);

#ifdef __cplusplus
}
#endif
#endif
