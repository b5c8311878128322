/* The format registry: what a buffer is, from its first bytes. */
#include "internal.h"
#include "offlink/archive.h"
#include "offlink/bitcode.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
#include "offlink/elf.h"
#include "offlink/fatbin.h"
#include "offlink/format.h"
#include "offlink/offload_binary.h"

static bool is_bundle(const uint8_t *d, size_t n)
{
	return n >= OFL_BUNDLE_MAGIC_LEN && !memcmp(d, OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN);
}

static bool is_bitcode(const uint8_t *d, size_t n)
{
	return n >= 4 && (!memcmp(d, OFL_BITCODE_MAGIC, 4) || ofl_le32(d) == OFL_BITCODE_WRAPPER);
}

enum ofl_format ofl_format_of(const uint8_t *data, size_t size)
{
	if (ofl_archive_is(data, size))
		return OFL_FMT_ARCHIVE;
	if (ofl_is_elf(data, size))
		return OFL_FMT_ELF;
	if (ofl_obin_is(data, size))
		return OFL_FMT_OFFLOAD;
	if (is_bundle(data, size))
		return OFL_FMT_BUNDLE;
	if (ofl_ccob_is(data, size))
		return OFL_FMT_CCOB;
	if (ofl_fatbin_is(data, size))
		return OFL_FMT_FATBIN;
	if (is_bitcode(data, size))
		return OFL_FMT_BITCODE;
	return OFL_FMT_UNKNOWN;
}

const char *ofl_format_name(enum ofl_format f)
{
	static const char *const names[] = {"data",
	                                    "elf",
	                                    "object",
	                                    "archive",
	                                    "offload binary",
	                                    "bundle",
	                                    "compressed bundle",
	                                    "cuda fatbinary",
	                                    "llvm bitcode",
	                                    "ptx"};
	return names[f];
}
