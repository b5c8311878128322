/* COFF objects (Windows hosts), read as far as the link pipeline needs: the
 * file header (plain or /bigobj), the section headers and their long names
 * from the string table (docs/formats.md §10).  Without libbfd: the link
 * pipeline also runs inside ld.bfd as a plugin, which must not load a
 * second libbfd.  Every offset and count is checked against the buffer,
 * so any bytes are safe to give (tests/fuzz/fuzz_coff.c). */
#ifndef OFFLINK_COFF_H
#define OFFLINK_COFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_COFF_MACHINE_AMD64 0x8664
#define OFL_COFF_MACHINE_ARM64 0xaa64
#define OFL_COFF_MACHINE_I386 0x14c
#define OFL_COFF_MACHINE_ARMNT 0x1c4

/* IMAGE_SCN_LNK_REMOVE: the linker leaves the section out (clang's input
 * images); IMAGE_SCN_CNT_INITIALIZED_DATA | IMAGE_SCN_MEM_READ: read-only
 * data, as a wrapper object's images. */
#define OFL_COFF_SCN_LNK_REMOVE 0x800u

struct ofl_coff_section {
	const char *name; /* into the buffer: not NUL-terminated */
	size_t name_len;
	uint64_t offset, size; /* its raw data in the buffer (size 0: none) */
	uint32_t characteristics;
	unsigned index; /* 1-based, as COFF numbers sections */
};

struct ofl_coff_sections {
	struct ofl_coff_section *v;
	size_t n, cap;
};

#define OFL_COFF_SECTIONS_INIT                                                                     \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/* A COFF object of a machine above: a plain header with no optional
 * header, or a bigobj header, whose section table fits the buffer.  COFF
 * has no magic number, so this is a plausibility test; the parse below
 * checks the rest. */
bool ofl_coff_is(const uint8_t *data, size_t size);

/* The sections whose name starts with prefix ("" for all), in table
 * order.  Names "/N" (and bigobj's "//BASE64") are read from the string
 * table.  A header, table, name or data range outside the buffer is
 * OFL_EFORMAT at its offset. */
int ofl_coff_sections(const uint8_t *data, size_t size, const char *prefix,
                      struct ofl_coff_sections *out, struct ofl_error *err);

void ofl_coff_sections_release(struct ofl_coff_sections *s);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
