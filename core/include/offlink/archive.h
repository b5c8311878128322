/* Unix ar archives: reading GNU, BSD and thin archives, and writing GNU
 * archives exactly as llvm-ar does in deterministic mode (formats.md §3). */
#ifndef OFFLINK_ARCHIVE_H
#define OFFLINK_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/buf.h"
#include "offlink/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ofl_ar_member {
	char *name;            /* owned, NUL-terminated, resolved long name */
	const uint8_t *data;   /* view into the archive; NULL for thin members */
	uint64_t size;
	uint64_t data_offset;  /* offset of data in the archive (thin: 0) */
	uint64_t header_offset;
};

struct ofl_archive {
	bool thin;
	size_t nmembers;
	struct ofl_ar_member *members; /* in archive order; symbol tables and
					* the long-name table are not members */
};

#define OFL_ARCHIVE_INIT {false, 0, NULL}

/* "!<arch>\n" or "!<thin>\n". */
bool ofl_archive_is(const uint8_t *data, size_t size);

/* Parses an archive held in memory; members are views valid as long as data.
 * Malformed headers, sizes past the end and bad long-name references are
 * OFL_EFORMAT with the offset of the bad header. */
int ofl_archive_parse(const uint8_t *data, size_t size, struct ofl_archive *a,
		      struct ofl_error *err);
void ofl_archive_release(struct ofl_archive *a);

struct ofl_ar_input {
	const char *name; /* member name as it should appear */
	const uint8_t *data;
	uint64_t size;
};

/* Appends a GNU archive (llvm-ar rc --format=gnu, deterministic) holding the
 * given members to out, with the "/" symbol index when any member defines
 * global symbols (ELF objects, read with libelf). */
int ofl_archive_write_gnu(const struct ofl_ar_input *m, size_t n, struct ofl_buf *out,
			  struct ofl_error *err);

#ifdef __cplusplus
}
#endif
#endif
