/* The format registry: each magic, and the bytes each one needs. */
#include "harness.h"
#include "offlink/archive.h"
#include "offlink/bundle.h"
#include "offlink/format.h"
#include "offlink/offload_binary.h"

static enum ofl_format of(const char *magic, size_t mlen, size_t size)
{
	uint8_t b[64] = {0};
	memcpy(b, magic, mlen);
	return ofl_format_of(b, size);
}

OFL_TEST(format_of_each_magic)
{
	CHECK(of("\177ELF\002\001\001", 7, 52) == OFL_FMT_ELF);
	CHECK(of("\177ELF\002\001\001", 7, 51) == OFL_FMT_UNKNOWN); /* header cut short */
	CHECK(of("\177ELF\003\001\001", 7, 64) == OFL_FMT_UNKNOWN); /* no such class */
	CHECK(of("!<arch>\n", 8, 8) == OFL_FMT_ARCHIVE);
	CHECK(of("!<thin>\n", 8, 8) == OFL_FMT_ARCHIVE);
	CHECK(of("!<arch>\n", 8, 7) == OFL_FMT_UNKNOWN);
	CHECK(of(OFL_OBIN_MAGIC, 4, 4) == OFL_FMT_OFFLOAD);
	CHECK(of(OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN, 24) == OFL_FMT_BUNDLE);
	CHECK(of(OFL_BUNDLE_MAGIC, OFL_BUNDLE_MAGIC_LEN, 23) == OFL_FMT_UNKNOWN);
	CHECK(of("CCOB", 4, 8) == OFL_FMT_CCOB);
	CHECK(of("CCOB", 4, 7) == OFL_FMT_UNKNOWN);
	CHECK(of("\x50\xed\x55\xba", 4, 4) == OFL_FMT_FATBIN);
	CHECK(of("BC\xc0\xde", 4, 4) == OFL_FMT_BITCODE);
	CHECK(of("\xde\xc0\x17\x0b", 4, 4) == OFL_FMT_BITCODE); /* the wrapper */
	CHECK(of("BC\xc0\xde", 4, 3) == OFL_FMT_UNKNOWN);
	CHECK(of("\x7f", 1, 64) == OFL_FMT_UNKNOWN);
	CHECK(ofl_format_of(NULL, 0) == OFL_FMT_UNKNOWN);
}

OFL_TEST(thin_archives_and_names)
{
	CHECK(ofl_archive_is_thin((const uint8_t *)"!<thin>\n", 8));
	CHECK(!ofl_archive_is_thin((const uint8_t *)"!<arch>\n", 8));
	CHECK(!ofl_archive_is_thin((const uint8_t *)"!<thin>", 7));
	CHECK_STR(ofl_format_name(OFL_FMT_UNKNOWN), "data");
	CHECK_STR(ofl_format_name(OFL_FMT_CCOB), "compressed bundle");
	CHECK_STR(ofl_format_name(OFL_FMT_BITCODE), "llvm bitcode");
}
