#include "harness.h"
#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/io.h"

OFL_TEST(buf_append_and_align)
{
	struct ofl_buf b = OFL_BUF_INIT;
	CHECK(ofl_buf_append_str(&b, "abc") == 0);
	CHECK(ofl_buf_align(&b, 8) == 0);
	CHECK_EQ_U(b.len, 8);
	CHECK(ofl_buf_append_u32le(&b, 0x01020304) == 0);
	CHECK_MEM(b.data, "abc\0\0\0\0\0\x04\x03\x02\x01", 12);
	CHECK(ofl_buf_align(&b, 3) == 0);
	CHECK_EQ_U(b.len, 12);
	size_t n;
	uint8_t *p = ofl_buf_detach(&b, &n);
	CHECK(p && n == 12 && b.data == NULL);
	free(p);
}

OFL_TEST(error_first_wins_and_formats)
{
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_error_set(&e, OFL_EFORMAT, NULL, 16, "bad %s", "thing") == OFL_EFORMAT);
	ofl_error_set(&e, OFL_EIO, "other", 0, "later");
	ofl_error_locate(&e, "in.bin", 8);
	char s[256];
	ofl_error_format(&e, s, sizeof s);
	CHECK_STR(s, "in.bin: bad thing at offset 24");
}

OFL_TEST(out_is_atomic)
{
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_out o;
	CHECK(ofl_out_open(&o, "x.bin", &e) == 0);
	CHECK(ofl_out_write(&o, "hello", 5, &e) == 0);
	FILE *f = fopen("x.bin", "rb");
	CHECK(f == NULL); /* nothing visible before commit */
	ofl_out_abort(&o);
	CHECK(fopen("x.bin", "rb") == NULL);
	CHECK(ofl_write_file("x.bin", "hello", 5, &e) == 0);
	struct ofl_file in;
	CHECK(ofl_file_open(&in, "x.bin", &e) == 0);
	CHECK_EQ_U(in.size, 5);
	CHECK_MEM(in.data, "hello", 5);
	CHECK(ofl_file_is(&in, "x.bin"));
	ofl_file_close(&in);
}
