/* The formats offlink reads, told apart by their first bytes: the one
 * place that says what a buffer is.  Readers ask it and keep their own
 * policy for each format (docs/design.md, "Modules and layering"). */
#ifndef OFFLINK_FORMAT_H
#define OFFLINK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_format {
	OFL_FMT_UNKNOWN,
	OFL_FMT_ELF,     /* an ELF header of class 32 or 64 */
	OFL_FMT_COFF,    /* any non-ELF object the inspector's foreign reader reads */
	OFL_FMT_ARCHIVE, /* "!<arch>\n" or "!<thin>\n" */
	OFL_FMT_OFFLOAD, /* one or more OffloadBinaries back to back */
	OFL_FMT_BUNDLE,  /* binary bundle */
	OFL_FMT_CCOB,    /* compressed bundle */
	OFL_FMT_FATBIN,  /* CUDA fatbinary (magic 0xBA55ED50) */
	OFL_FMT_BITCODE, /* LLVM bitcode, raw or in its wrapper */
	OFL_FMT_PTX,     /* text starting with a PTX directive */
};

/* The format data starts with; OFL_FMT_UNKNOWN when none (COFF and PTX are
 * never told by magic).  The magics differ in their first four bytes, so
 * at most one format matches and the order callers test them in does not
 * matter.  Each magic is only taken with the bytes its reader needs to
 * start: 52 for ELF, 24 for a bundle, 8 for an archive or a CCOB, 4 for
 * the others. */
enum ofl_format ofl_format_of(const uint8_t *data, size_t size);

/* "elf", "archive", "offload binary", ...; "data" for OFL_FMT_UNKNOWN. */
const char *ofl_format_name(enum ofl_format f);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
