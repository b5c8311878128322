/* Finding OffloadBinaries: in the offloading sections of ELF objects (by
 * section type SHT_LLVM_OFFLOADING or by the name .llvm.offloading), in
 * several binaries concatenated in one section with or without padding
 * between them (what ld -r makes), and by a raw magic scan over any bytes. */
#ifndef OFFLINK_OFFLOAD_SCAN_H
#define OFFLINK_OFFLOAD_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/elf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_SHT_LLVM_OFFLOADING 0x6fff4c0bu
#define OFL_OFFLOADING_SECTION ".llvm.offloading"

/* One binary found.  Offsets are absolute in the scanned buffer. */
struct ofl_found {
	uint64_t offset;
	uint64_t size; /* bytes it spans: the size field (rounded up to 8
	                * for a compressed v3 binary) */
	uint32_t version;
	size_t section; /* ELF section index it was found in; 0: raw scan */
};

struct ofl_found_list {
	size_t n;
	size_t cap;
	struct ofl_found *v;
};

#define OFL_FOUND_LIST_INIT                                                                        \
	{                                                                                          \
		0, 0, NULL                                                                         \
	}
void ofl_found_list_release(struct ofl_found_list *l);

/* Sections of an ELF file that hold offloading data. */
struct ofl_elf_section {
	size_t index;
	uint32_t type;
	uint64_t offset; /* of the contents in the file */
	uint64_t size;
	uint64_t flags; /* sh_flags: SHF_ALLOC marks an image a wrapper registers */
	char name[64];  /* truncated if longer */
};

/* What else the walk saw, so that a caller reads the file again only when
 * it holds what it looks for: a section named .hip_fatbin or .nv_fatbin,
 * one named __CLANG_OFFLOAD_BUNDLE__<id>, a section header libelf could
 * not read (which the bundle reader reports). */
struct ofl_elf_sections {
	size_t n, cap;
	struct ofl_elf_section *v;
	bool fatbin, bundle, unread;
};

#define OFL_ELF_SECTIONS_INIT                                                                      \
	{                                                                                          \
		0, 0, NULL, false, false, false                                                    \
	}

enum {
	OFL_ELFSEC_BY_TYPE = 1, /* sh_type == SHT_LLVM_OFFLOADING (what LLVM reads) */
	OFL_ELFSEC_BY_NAME = 2, /* name starts with ".llvm.offloading" */
	/* Read with libelf even an ELF64 little-endian file, which is read
	 * from its bytes otherwise (tests compare the two). */
	OFL_ELFSEC_LIBELF = 4,
};

/* Lists the sections matching how (a mask of OFL_ELFSEC_*), in section
 * order; SHT_NOBITS sections are left out.  Not an ELF file, or a section
 * table or section outside the file: OFL_EFORMAT. */
int ofl_elf_offload_sections(const uint8_t *data, size_t size, unsigned how,
                             struct ofl_elf_sections *out, struct ofl_error *err);
void ofl_elf_sections_release(struct ofl_elf_sections *s);

enum {
	/* A magic whose binary does not parse is an error (with its absolute
	 * offset) instead of being skipped. */
	OFL_SCAN_STRICT = 1,
	/* Binaries follow each other from the first byte with nothing between:
	 * the callback reads every position the walk reaches, and its error
	 * stops the walk (no scan for the next magic). */
	OFL_SCAN_EXACT = 2,
};

/* Reads the binary at p (left bytes to the end of the walked bytes, off
 * its absolute offset) and sets *span to the bytes it takes (more than 0).
 * An error stops the walk when it is OFL_ENOMEM or the walk is strict or
 * exact; otherwise the walk clears it and scans on from the next magic. */
typedef int (*ofl_scan_fn)(void *ctx, const uint8_t *p, size_t left, uint64_t off, uint64_t *span,
                           struct ofl_error *err);

/* The one walk over binaries in a section or stream: size bytes starting
 * at absolute offset base, binary after binary by the spans fn gives; on
 * bytes that are not a binary (padding, garbage) it scans forward to the
 * next magic unless OFL_SCAN_EXACT.  Errors are located at the binary's
 * absolute offset. */
int ofl_scan_each(const uint8_t *data, size_t size, uint64_t base, unsigned flags, ofl_scan_fn fn,
                  void *ctx, struct ofl_error *err);

/* ofl_scan_each that lists the binaries that parse (any version, by their
 * size fields), each with section, the ELF section index it lies in. */
int ofl_scan_walk(const uint8_t *data, size_t size, uint64_t base, size_t section, unsigned flags,
                  struct ofl_found_list *out, struct ofl_error *err);

/* Scans any bytes for the magic and keeps the candidates that parse (any
 * version); skips over each binary found. */
int ofl_scan_raw(const uint8_t *data, size_t size, unsigned flags, struct ofl_found_list *out,
                 struct ofl_error *err);

/* First occurrence of the 4-byte magic in [p, end), or NULL. */
const uint8_t *ofl_find_magic(const uint8_t *p, const uint8_t *end);

/* ELF: walks the sections found by type or name (OFL_SCAN_STRICT applies
 * to them); an ELF without such sections, or anything else: raw scan, which
 * is always tolerant since a magic in arbitrary bytes may be chance. */
int ofl_scan_file(const uint8_t *data, size_t size, unsigned flags, struct ofl_found_list *out,
                  struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
