/* What clang-offload-packager / llvm-offload-binary do, as a library:
 * parsing --image key lists, packing images into OffloadBinaries, finding
 * binaries in inputs for extraction, matching and naming (docs/formats.md §5.8).
 * The front end only parses its command line and prints. */
#ifndef OFFLINK_PACKAGER_H
#define OFFLINK_PACKAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/io.h"
#include "offlink/offload_binary.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* An --image value: "k=v,k=v,...".  Split at ',', each piece at its first
 * '=' (no '=' gives value ""); a repeated key keeps its first place and its
 * value becomes "old,new".  Keys and values are owned. */
struct ofl_pkg_args {
	size_t n, kcap, vcap;
	char **keys;
	char **values;
};

#define OFL_PKG_ARGS_INIT                                                                          \
	{                                                                                          \
		0, 0, 0, NULL, NULL                                                                \
	}

int ofl_pkg_args_parse(const char *spec, struct ofl_pkg_args *out, struct ofl_error *err);
void ofl_pkg_args_release(struct ofl_pkg_args *a);
/* Value of key, or NULL when absent. */
const char *ofl_pkg_args_get(const struct ofl_pkg_args *a, const char *key);

/* The required keys for packing: 19 needs file and triple, 22 only file.
 * OFL_EINVAL with LLVM's own message text when one is missing. */
int ofl_pkg_args_check(const struct ofl_pkg_args *a, enum ofl_llvm_version v,
                       struct ofl_error *err);

/* Packs the n --image values as release v does: an image per
 * comma-separated piece of file= (read from disk, "-" for stdin), the
 * other keys copied in v's hash-map order, kind= giving the offload kind,
 * the image kind from the bitcode magic or the file's extension.  19 and
 * 22 write one version-1 binary per image, back to back; 23 one version-2
 * binary holding them all.  A file that cannot be read is OFL_EIO with
 * sys_errno set and the file's path. */
int ofl_pkg_pack(const struct ofl_pkg_args *args, size_t n, enum ofl_llvm_version v,
                 struct ofl_out *out, struct ofl_error *err);

/* One binary found in an input, for extraction. */
struct ofl_pkg_entry {
	const char *ident; /* LLVM's buffer identifier: the input path as
	                    * given, or the archive member's name */
	uint64_t offset;   /* of the binary in the input file */
	struct ofl_obin bin;
};

struct ofl_pkg_inputs {
	size_t n, cap;
	struct ofl_pkg_entry *v;
	struct ofl_ptrs owned;    /* allocations the entries point into */
	struct ofl_ptrs archives; /* parsed archives whose member names idents use */
};

#define OFL_PKG_INPUTS_INIT                                                                        \
	{                                                                                          \
		0, 0, NULL, OFL_PTRS_INIT, OFL_PTRS_INIT                                           \
	}

enum {
	/* Also read versions 2 and 3 and continue at the next multiple of 8
	 * (as LLVM's main branch does); default: exactly LLVM 19/22. */
	OFL_PKG_ANY_VERSION = 1,
	/* Versions 1 and 2, the next binary right after each, as LLVM 23
	 * reads them. */
	OFL_PKG_V2 = 2,
};

/* Finds the binaries in an input the way LLVM 19/22 do: a raw stream of
 * binaries, the SHT_LLVM_OFFLOADING sections of an ELF file, the members of
 * an archive; anything else yields nothing.  Inside a stream or section the
 * binaries must follow each other exactly.  On a bad binary the error has the
 * absolute offset of the bad field and *diag says how LLVM words it. */
int ofl_pkg_collect(const uint8_t *data, size_t size, const char *path, unsigned flags,
                    struct ofl_pkg_inputs *out, enum ofl_obin_llvm_diag *diag,
                    struct ofl_error *err);
void ofl_pkg_inputs_release(struct ofl_pkg_inputs *in);

/* Whether e's binary matches every key of a: file ignored, kind compared
 * with the offload kind, with member (LLVM 23's #205170) member compared
 * with e's ident (the archive member's name as `ar t` prints it), any other
 * key equal to the stored string ("" if absent). */
bool ofl_pkg_match(const struct ofl_pkg_args *a, const struct ofl_pkg_entry *e,
                   enum ofl_llvm_version v, bool member);

/* "<stem(input)>-<triple>-<arch>.<i>.<suffix>", the name release v gives
 * an extracted image without file= (23: no "-<arch>" when the arch is
 * empty).  Owned by the caller; NULL when out of memory. */
char *ofl_pkg_extract_name(const char *input, const struct ofl_obin *b, size_t i,
                           enum ofl_llvm_version v);

/* Writes the images of the given entries as a GNU archive, each member named
 * by its entry's ident (llvm-offload-binary --archive). */
int ofl_pkg_write_archive(const struct ofl_pkg_entry *const *e, size_t n, struct ofl_buf *out,
                          struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
