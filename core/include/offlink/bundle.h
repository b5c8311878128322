/* clang-offload-bundler containers (docs/formats.md §1): binary bundles, text
 * bundles, and "fat objects" whose entries are __CLANG_OFFLOAD_BUNDLE__
 * sections.  Compressed (CCOB) input is decompressed by ofl_bundle_read. */
#ifndef OFFLINK_BUNDLE_H
#define OFFLINK_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/elf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define OFL_BUNDLE_MAGIC_LEN 24

enum ofl_bundle_handler {
	OFL_BH_BINARY,
	OFL_BH_TEXT,
	OFL_BH_OBJECT,
};

/* A -type value: which handler it uses and, for text types, the comment
 * prefix of the markers. */
struct ofl_file_type {
	const char *name;
	enum ofl_bundle_handler handler; /* for "o": OBJECT if the file is ELF */
	const char *comment;             /* text types only */
	bool archive;                    /* "a": unbundling archives */
};

/* Looks up a -type name; NULL when unknown. */
const struct ofl_file_type *ofl_file_type_find(const char *name);

/* Guesses the -type of existing bundle bytes: "o" for ELF, "bc" for binary
 * or compressed bundles, a text type when a start marker is present, or
 * fallback (the type named after the file extension, if any) otherwise. */
const struct ofl_file_type *ofl_file_type_guess(const uint8_t *data, size_t size, const char *path);

struct ofl_bundle_entry {
	char *id;        /* owned; as stored in the file */
	uint64_t offset; /* of the entry's bytes within ofl_bundle.data */
	uint64_t size;
	uint64_t record; /* offset of the record/marker/section header describing it */
	bool host_stub;  /* object handler: the 1-byte host section */
};

struct ofl_bundle {
	enum ofl_bundle_handler handler;
	bool found;          /* false: the input holds no bundle of this type */
	bool compressed;     /* the input was one or more CCOBs */
	const uint8_t *data; /* the (decompressed) bundle bytes */
	size_t size;
	struct ofl_buf inflated; /* owns data when compressed */
	size_t n, cap;
	struct ofl_bundle_entry *entries; /* file order */
};

#define OFL_BUNDLE_INIT                                                                            \
	{                                                                                          \
		OFL_BH_BINARY, false, false, NULL, 0, OFL_BUF_INIT, 0, 0, NULL                     \
	}

/* Reads the bundle in data[0..size) (a view that must outlive b unless the
 * input was compressed).  CCOB input is decompressed first, including
 * several CCOBs back to back with zero padding between them; several
 * uncompressed binary bundles back to back are read too.  Input that is not
 * a bundle of this kind gives found = false and returns 0.  Malformed bundles
 * are OFL_EFORMAT with the offset of the bad field. */
int ofl_bundle_read(struct ofl_bundle *b, const uint8_t *data, size_t size,
                    const struct ofl_file_type *type, struct ofl_error *err);
void ofl_bundle_release(struct ofl_bundle *b);

/* For listing and streamed unbundling: reads the entries of a compressed
 * binary bundle by inflating only its header.  *complete is true when that
 * was enough; then the entries are those ofl_bundle_read would give, but
 * b->data holds only the header (entry bytes are absent, and damage to the
 * stream past the header goes unseen, as entry bytes are not read when
 * listing an uncompressed bundle).  Otherwise (not a single compressed
 * binary bundle) b is empty and the caller uses ofl_bundle_read. */
int ofl_bundle_read_header_only(struct ofl_bundle *b, const uint8_t *data, size_t size,
                                bool *complete, struct ofl_error *err);

/* Size of the binary bundle header for these IDs: 32 + sum(24 + len). */
uint64_t ofl_bundle_header_size(const char *const *ids, size_t n);

/* Writes the binary bundle header into out; data of entry k is placed at
 * offsets[k] (computed here with alignment `align`, any value >= 1). */
int ofl_bundle_write_header(const char *const *ids, const uint64_t *sizes, size_t n, uint64_t align,
                            struct ofl_buf *out, uint64_t *offsets, struct ofl_error *err);

/* Text bundle markers. */
int ofl_bundle_text_start(struct ofl_buf *out, const char *comment, const char *id);
int ofl_bundle_text_end(struct ofl_buf *out, const char *comment, const char *id);

/* Object handler (bundle_object.c). */

/* Whether the object handler takes data, as LLVM's bundler does: an ELF
 * file LLVM's object reader opens (ofl_elf_llvm_check); anything else goes
 * to the binary handler, as LLVM falls back to it when its reader fails. */
bool ofl_bundle_is_object(const uint8_t *data, size_t size);

/* Appends to b one entry per __CLANG_OFFLOAD_BUNDLE__ section of an ELF
 * object, in section-table order. */
int ofl_bundle_object_scan(struct ofl_bundle *b, const uint8_t *data, size_t size,
                           struct ofl_error *err);

/* Writes to fd (an empty regular file) a copy of the ELF object
 * host[0..host_size) with one extra section per entry, named
 * OFL_BUNDLE_MAGIC + ids[k], holding datas[k], flags SHF_EXCLUDE, alignment
 * 1, as llvm-objcopy --add-section + --set-section-flags=readonly,exclude
 * writes it, byte for byte (the string tables rebuilt, elf_edit.h). */
int ofl_bundle_object_write(int fd, const uint8_t *host, size_t host_size, const char *const *ids,
                            const uint8_t *const *datas, const uint64_t *sizes, size_t n,
                            struct ofl_error *err);

/* Writes to fd a copy of the ELF object without its bundle sections (the
 * host entry of a fat object), as llvm-objcopy --remove-section does. */
int ofl_bundle_object_strip(int fd, const uint8_t *data, size_t size, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
