/* CUDA fatbinaries (magic 0xBA55ED50), as nvcc puts them in .nv_fatbin and
 * clang in .nv_fatbin / OffloadBinaries of kind "fatbinary".  The layout is
 * undocumented; what is read here is the part observed in nvcc's output: a
 * 16-byte header (magic, version, header size, size of the entries) and
 * entries with a header of their own (kind, header size, payload size,
 * compressed size, SM architecture, flags) followed by the payload. */
#ifndef OFFLINK_FATBIN_H
#define OFFLINK_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

#define OFL_FATBIN_MAGIC 0xba55ed50u
#define OFL_FATBIN_HEADER_SIZE 16
#define OFL_FATBIN_ENTRY_MIN 64 /* entry header fields read below */

enum { OFL_FATBIN_PTX = 1, OFL_FATBIN_ELF = 2 };

#define OFL_FATBIN_FLAG_64BIT 0x1u
#define OFL_FATBIN_FLAG_COMPRESSED 0x2000u

struct ofl_fatbin_entry {
	uint16_t kind; /* OFL_FATBIN_PTX, OFL_FATBIN_ELF, other values kept */
	uint32_t header_size;
	uint64_t offset; /* of the entry header, from the fatbinary start */
	uint64_t payload_offset;
	uint64_t payload_size; /* as stored (compressed size when compressed) */
	uint32_t compressed_size;
	uint16_t minor, major; /* version of the payload format */
	uint32_t sm;           /* 90 for sm_90 */
	uint64_t flags;
	uint64_t uncompressed_size;
};

struct ofl_fatbin {
	uint16_t version;
	uint16_t header_size;
	uint64_t size; /* header_size + entries: the bytes it spans */
	size_t n;
	struct ofl_fatbin_entry *entries; /* owned */
};

#define OFL_FATBIN_INIT                                                                            \
	{                                                                                          \
		0, 0, 0, 0, NULL                                                                   \
	}

bool ofl_fatbin_is(const uint8_t *data, size_t size);

/* Parses the fatbinary at data[0..size) (which may continue past it).
 * Header or entry outside the bytes, a header size below the fields read,
 * or more entries than could fit: OFL_EFORMAT at the bad field's offset
 * (relative to data). */
int ofl_fatbin_parse(const uint8_t *data, size_t size, struct ofl_fatbin *out,
                     struct ofl_error *err);
void ofl_fatbin_release(struct ofl_fatbin *f);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
