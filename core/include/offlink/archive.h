/* Unix ar archives: reading GNU, BSD and thin archives, and writing GNU
 * archives exactly as llvm-ar does in deterministic mode (docs/formats.md §3). */
#ifndef OFFLINK_ARCHIVE_H
#define OFFLINK_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/io.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

struct ofl_ar_member {
	char *name;           /* owned, NUL-terminated, resolved long name */
	const uint8_t *data;  /* view into the archive; NULL for thin members */
	uint64_t size;        /* data size (BSD: without the "#1/" name) */
	uint64_t data_offset; /* offset of data in the archive (thin: 0) */
	uint64_t header_offset;
};

struct ofl_archive {
	bool thin;
	size_t nmembers;
	struct ofl_ar_member *members; /* in archive order; symbol tables and
	                                * the long-name table are not members */
};

#define OFL_ARCHIVE_INIT                                                                           \
	{                                                                                          \
		false, 0, NULL                                                                     \
	}

/* How deep layers (archives in archives, bundles in images ...) may nest
 * before a walker gives up: every walker of nested layers stops here, so
 * that crafted input cannot exhaust the stack. */
#define OFL_MAX_NESTING 16

/* "!<arch>\n" or "!<thin>\n". */
bool ofl_archive_is(const uint8_t *data, size_t size);
/* "!<thin>\n" only. */
bool ofl_archive_is_thin(const uint8_t *data, size_t size);

/* Parses an archive held in memory; members are views valid as long as data.
 * GNU ("/", "/SYM64/" skipped, "//" long names), BSD ("#1/<len>" names,
 * "__.SYMDEF*" skipped) and thin ("!<thin>\n": data NULL, size from the
 * header) archives.  Malformed headers, sizes past the end and bad long-name
 * references are OFL_EFORMAT with the offset of the bad header; on error *a
 * is left empty.  Release with ofl_archive_release. */
int ofl_archive_parse(const uint8_t *data, size_t size, struct ofl_archive *a,
                      struct ofl_error *err);
void ofl_archive_release(struct ofl_archive *a);

/* Opens a thin archive's member m, a file named relative to the directory
 * of archive_path (or absolute); only a regular file is read. */
int ofl_archive_open_thin(const char *archive_path, const struct ofl_ar_member *m,
                          struct ofl_file *f, struct ofl_error *err);

struct ofl_ar_input {
	const char *name; /* member name as it should appear */
	const uint8_t *data;
	uint64_t size;
};

/* Appends a GNU archive holding the given members to out, byte-identical to
 * `llvm-ar rc --format=gnu` (deterministic) given the same names and data.
 * ELF members (read with libelf) contribute their defined non-local .symtab
 * symbols to the "/" index, LLVM bitcode members the defined global symbols
 * of their irsymtab (offlink/bitcode.h), as llvm-ar indexes them; the index
 * is written, possibly empty, whenever a member is ELF or LLVM bitcode.  Like llvm-ar, the index
 * becomes "/SYM64/" when the last member header would start at 4 GiB or beyond.  A member that
 * starts with "\177ELF" but cannot be read is OFL_EFORMAT; an empty name or a member of 10^10 bytes
 * or more is OFL_EINVAL. */
int ofl_archive_write_gnu(const struct ofl_ar_input *m, size_t n, struct ofl_buf *out,
                          struct ofl_error *err);

/* The same with the "/SYM64/" switch at sym64_at instead: what llvm-ar's
 * $SYM64_THRESHOLD does, so tests can reach the switch with small archives
 * (the library reads no environment). */
#define OFL_AR_SYM64_AT (UINT64_C(1) << 32)
int ofl_archive_write_gnu_sym64(const struct ofl_ar_input *m, size_t n, uint64_t sym64_at,
                                struct ofl_buf *out, struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
