/* coff: the section reader on a wrapper object written for a Windows host
 * (long names through the string table), a bigobj header, and damaged
 * tables, names and data ranges. */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "offlink/coff.h"
#include "offlink/wrapper_obj.h"

static uint8_t IMG[50];

/* A COFF wrapper object with one image, from the library's writer. */
static int wrapper_object(struct ofl_buf *out)
{
	struct ofl_wrap_opts o = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64_COFF, false,
	                          false};
	struct ofl_wrap_image img = {IMG, sizeof(IMG), 0, sizeof(IMG), NULL, NULL};
	struct ofl_error err = OFL_ERROR_INIT;
	memset(IMG, 0x5a, sizeof(IMG));
	return ofl_wrap_write_buf(out, &o, &img, 1, &err);
}

static const struct ofl_coff_section *named(const struct ofl_coff_sections *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].name_len == strlen(name) &&
		    !memcmp(s->v[i].name, name, s->v[i].name_len))
			return &s->v[i];
	return NULL;
}

OFL_TEST(coff_reads_long_names_and_data)
{
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_coff_sections all = OFL_COFF_SECTIONS_INIT, off = OFL_COFF_SECTIONS_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(!wrapper_object(&b));
	CHECK(ofl_coff_is(b.data, b.len));
	CHECK(!ofl_coff_sections(b.data, b.len, "", &all, &err));
	CHECK_EQ_U(all.n, 11);
	CHECK(named(&all, ".text.startup") && named(&all, ".CRT$XCA00101"));
	CHECK(named(&all, "llvm_offload_entries$OA") && named(&all, "llvm_offload_entries$OZ"));
	CHECK(!ofl_coff_sections(b.data, b.len, ".llvm.offloading", &off, &err));
	CHECK_EQ_U(off.n, 1);
	CHECK_EQ_U(off.v[0].size, sizeof(IMG));
	CHECK(!memcmp(b.data + off.v[0].offset, IMG, sizeof(IMG)));
	/* kept in the link: a wrapper's image, not an input image */
	CHECK(!(off.v[0].characteristics & OFL_COFF_SCN_LNK_REMOVE));
	CHECK_EQ_U(off.v[0].index, 8);
	ofl_coff_sections_release(&all);
	ofl_coff_sections_release(&off);
	ofl_buf_release(&b);
}

OFL_TEST(coff_refuses_damage)
{
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_coff_sections s = OFL_COFF_SECTIONS_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(!wrapper_object(&b));
	/* the section table cut */
	CHECK(!ofl_coff_is(b.data, 20 + 40 * 11 - 1));
	CHECK_EQ_U(ofl_coff_sections(b.data, 20 + 40 * 11 - 1, "", &s, &err), OFL_EFORMAT);
	CHECK(!s.v && !s.n);
	/* a long name past the string table (section 4 is .text.startup) */
	uint8_t *name = b.data + 20 + 40 * 3;
	uint8_t saved[8];
	memcpy(saved, name, 8);
	memcpy(name, "/9999999", 8);
	ofl_error_clear(&err);
	CHECK_EQ_U(ofl_coff_sections(b.data, b.len, "", &s, &err), OFL_EFORMAT);
	CHECK(strstr(err.msg, "outside the string table"));
	CHECK_EQ_U(err.offset, 20 + 40 * 3);
	memcpy(name, "/12x", 5);
	ofl_error_clear(&err);
	CHECK_EQ_U(ofl_coff_sections(b.data, b.len, "", &s, &err), OFL_EFORMAT);
	memcpy(name, saved, 8);
	/* data past the end */
	uint8_t *size = b.data + 20 + 40 * 7 + 16;
	size[3] = 0x7f;
	ofl_error_clear(&err);
	CHECK_EQ_U(ofl_coff_sections(b.data, b.len, ".llvm", &s, &err), OFL_EFORMAT);
	CHECK(strstr(err.msg, "past the end"));
	/* no COFF at all */
	CHECK(!ofl_coff_is((const uint8_t *)"\177ELF", 4));
	ofl_buf_release(&b);
}

OFL_TEST(coff_bigobj_header)
{
	struct ofl_buf b = OFL_BUF_INIT, big = OFL_BUF_INIT;
	struct ofl_coff_sections s = OFL_COFF_SECTIONS_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	static const uint8_t cls[16] = {0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b,
	                                0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8};
	CHECK(!wrapper_object(&b));
	/* the same sections behind a 56-byte header: offsets move by 36, the
	 * symbols (20 bytes each in a bigobj) are dropped, the string table
	 * follows the data */
	uint32_t nsec = 11, symtab = 0, nsyms = 0;
	memcpy(&symtab, b.data + 8, 4);
	memcpy(&nsyms, b.data + 12, 4);
	uint8_t h[56] = {0, 0, 0xff, 0xff, 2, 0, 0x64, 0x86};
	memcpy(h + 12, cls, 16);
	memcpy(h + 44, &nsec, 4);
	uint32_t newtab = symtab + 36;
	memcpy(h + 48, &newtab, 4);
	CHECK(!ofl_buf_append(&big, h, 56));
	CHECK(!ofl_buf_append(&big, b.data + 20, symtab - 20));
	for (uint32_t i = 0; i < nsec; i++)
		for (int f = 20; f <= 24; f += 4) {
			uint8_t *p = big.data + 56 + 40 * i + f;
			uint32_t v;
			memcpy(&v, p, 4);
			v += v ? 36 : 0;
			memcpy(p, &v, 4);
		}
	CHECK(!ofl_buf_append(&big, b.data + symtab + 18 * nsyms, b.len - symtab - 18 * nsyms));
	CHECK(ofl_coff_is(big.data, big.len));
	CHECK(!ofl_coff_sections(big.data, big.len, ".llvm.offloading", &s, &err));
	CHECK_EQ_U(s.n, 1);
	CHECK(!memcmp(big.data + s.v[0].offset, IMG, sizeof(IMG)));
	ofl_coff_sections_release(&s);
	ofl_buf_release(&big);
	ofl_buf_release(&b);
}
