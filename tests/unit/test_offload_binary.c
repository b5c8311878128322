/* OffloadBinary: the worked example of docs/formats.md §5.1, the hash test
 * vectors and key orders of §5.3, reader checks, v2 and v3. */
#include <zstd.h>

#include "harness.h"
#include "offlink/offload_binary.h"

static const unsigned char example[160] = {
    0x10, 0xff, 0x10, 0xad, 0x01, 0,   0,   0,   0xa0, 0,   0,   0,   0,   0,   0,   0,
    0x20, 0,    0,    0,    0,    0,   0,   0,   0x28, 0,   0,   0,   0,   0,   0,   0,
    0x01, 0,    0x01, 0,    0,    0,   0,   0,   0x48, 0,   0,   0,   0,   0,   0,   0,
    0x02, 0,    0,    0,    0,    0,   0,   0,   0x90, 0,   0,   0,   0,   0,   0,   0,
    0x0a, 0,    0,    0,    0,    0,   0,   0,   0x69, 0,   0,   0,   0,   0,   0,   0,
    0x89, 0,    0,    0,    0,    0,   0,   0,   0x6e, 0,   0,   0,   0,   0,   0,   0,
    0x75, 0,    0,    0,    0,    0,   0,   0,   0,    'a', 'r', 'c', 'h', 0,   't', 'r',
    'i',  'p',  'l',  'e',  0,    'n', 'v', 'p', 't',  'x', '6', '4', '-', 'n', 'v', 'i',
    'd',  'i',  'a',  '-',  'c',  'u', 'd', 'a', 0,    's', 'm', '_', '7', '0', 0,   0,
    'A',  'B',  'C',  'D',  'E',  'F', 'G', 'H', 'I',  'J', 0,   0,   0,   0,   0,   0,
};

/* Builds a binary the way the packager does: keys ordered by the DenseMap
 * model, "file" and "kind" left out. */
static int pack(const char *const *keys, const char *const *vals, size_t n, struct ofl_buf *out)
{
	size_t order[64];
	const char *k[64], *v[64];
	size_t m = 0;
	int got = ofl_obin_llvm_key_order(keys, n, OFL_LLVM_22, order);
	if (got != (int)n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *key = keys[order[i]];
		if (!strcmp(key, "file") || !strcmp(key, "kind"))
			continue;
		k[m] = key;
		v[m++] = vals[order[i]];
	}
	struct ofl_obin_image img = {
	    OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"ABCDEFGHIJ", 10, m, k, v};
	struct ofl_error err = OFL_ERROR_INIT;
	return ofl_obin_write(&img, out, &err);
}

OFL_TEST(worked_example_written)
{
	const char *keys[] = {"file", "triple", "arch", "kind"};
	const char *vals[] = {"x.o", "nvptx64-nvidia-cuda", "sm_70", "openmp"};
	struct ofl_buf b = OFL_BUF_INIT;
	CHECK(pack(keys, vals, 4, &b) == 0);
	CHECK_EQ_U(b.len, sizeof example);
	CHECK_MEM(b.data, example, sizeof example);
	ofl_buf_release(&b);
}

OFL_TEST(worked_example_read)
{
	struct ofl_obin o;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_parse(example, sizeof example, &o, &err) == 0);
	CHECK_EQ_U(o.size, 160);
	CHECK_EQ_U(o.image_kind, OFL_IMG_OBJECT);
	CHECK_EQ_U(o.offload_kind, OFL_OFK_OPENMP);
	CHECK_EQ_U(o.nstrings, 2);
	CHECK_STR(o.strings[0].key, "arch");
	CHECK_STR(ofl_obin_get(&o, "triple"), "nvptx64-nvidia-cuda");
	CHECK(ofl_obin_get(&o, "feature") == NULL);
	CHECK_EQ_U(o.image_size, 10);
	CHECK_MEM(o.image, "ABCDEFGHIJ", 10);
	ofl_obin_release(&o);
}

OFL_TEST(hash_vectors)
{
	char x100[100];
	memset(x100, 'x', sizeof x100);
	CHECK_EQ_U(ofl_llvm_string_hash("", 0, OFL_LLVM_22), 0x65b0c5ecc2c5cc82ULL);
	CHECK_EQ_U(ofl_llvm_string_hash("a", 1, OFL_LLVM_22), 0xaeb6f9d5517c61f8ULL);
	CHECK_EQ_U(ofl_llvm_string_hash("arch", 4, OFL_LLVM_22), 0x1499ea7cf386c709ULL);
	CHECK_EQ_U(ofl_llvm_string_hash("triple", 6, OFL_LLVM_22), 0x45f9d3270819b0d8ULL);
	CHECK_EQ_U(ofl_llvm_string_hash("file", 4, OFL_LLVM_22), 0x7d2d536ed4e6b353ULL);
	CHECK_EQ_U(ofl_llvm_string_hash("kind", 4, OFL_LLVM_22), 0xe421e5cbc8207aa5ULL);
	CHECK_EQ_U(ofl_llvm_string_hash(x100, 100, OFL_LLVM_22), 0x89cbb2263eab4e46ULL);
}

static int order_is(const char *const *keys, size_t n, const char *const *want, size_t nwant)
{
	size_t order[16], m = 0;
	if (ofl_obin_llvm_key_order(keys, n, OFL_LLVM_22, order) != (int)n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[order[i]];
		if (!strcmp(k, "file") || !strcmp(k, "kind"))
			continue;
		if (m >= nwant || strcmp(k, want[m++]))
			return 0;
	}
	return m == nwant;
}

OFL_TEST(key_orders)
{
	const char *k1[] = {"file", "triple", "arch", "kind"}, *w1[] = {"arch", "triple"};
	const char *k2[] = {"file", "triple", "a", "b", "c", "d"};
	const char *w2[] = {"b", "c", "d", "triple", "a"};
	const char *k3[] = {"file", "triple", "zz", "aa", "mm"},
	           *w3[] = {"zz", "triple", "mm", "aa"};
	CHECK(order_is(k1, 4, w1, 2));
	CHECK(order_is(k2, 6, w2, 5));
	CHECK(order_is(k3, 5, w3, 4));
}

OFL_TEST(key_order_grows)
{
	/* 70 keys force two rehashes (64 -> 128 -> 256 buckets is not reached,
	 * 48 entries trigger the first); every index must come back once. */
	char names[70][8];
	const char *keys[70];
	size_t order[70], seen[70] = {0};
	for (int i = 0; i < 70; i++) {
		snprintf(names[i], sizeof names[i], "k%d", i);
		keys[i] = names[i];
	}
	CHECK_EQ_U(ofl_obin_llvm_key_order(keys, 70, OFL_LLVM_22, order), 70);
	for (int i = 0; i < 70; i++)
		seen[order[i]]++;
	for (int i = 0; i < 70; i++)
		CHECK_EQ_U(seen[i], 1);
}

OFL_TEST(string_table_tail_merge_and_empty)
{
	const char *k[] = {"ab", "", "b"};
	const char *v[] = {"xab", "", "b"};
	struct ofl_obin_image img = {0, 0, 0, NULL, 0, 3, k, v};
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_write(&img, &b, &err) == 0);
	/* table at 72+48=120: \0 xab\0; "ab" at 122, "b" at 123, "" at 120 */
	CHECK_EQ_U(b.len, 128);
	CHECK_MEM(b.data + 120, "\0xab\0\0\0\0", 8);
	struct ofl_obin o;
	CHECK(ofl_obin_parse(b.data, b.len, &o, &err) == 0);
	CHECK_STR(o.strings[0].key, "ab");
	CHECK_STR(o.strings[0].value, "xab");
	CHECK_STR(o.strings[1].key, "");
	CHECK_STR(o.strings[2].value, "b");
	CHECK_EQ_U(o.image_offset, 128);
	ofl_obin_release(&o);
	ofl_buf_release(&b);
}

static unsigned char *copy_example(void)
{
	static unsigned char c[sizeof example];
	memcpy(c, example, sizeof c);
	return c;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int parse_err(const unsigned char *p, size_t n, struct ofl_error *err)
{
	struct ofl_obin o;
	ofl_error_clear(err);
	int rc = ofl_obin_parse(p, n, &o, err);
	if (rc == 0)
		ofl_obin_release(&o);
	return rc;
}

OFL_TEST(reader_rejects)
{
	struct ofl_error err;
	unsigned char *c = copy_example();
	CHECK(parse_err(c, 71, &err) == OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 0);
	CHECK(ofl_obin_llvm_diag(c, 71, OFL_LLVM_22) == OFL_OBIN_INVALID_DATA);
	CHECK(parse_err(c, 159, &err) == OFL_EFORMAT); /* size past end */
	CHECK_EQ_U(err.offset, 8);
	CHECK(ofl_obin_llvm_diag(c, 159, OFL_LLVM_22) == OFL_OBIN_UNEXPECTED_EOF);
	c = copy_example();
	put64(c + 0x58, 0x1000); /* key offset of "triple" past the end */
	CHECK(parse_err(c, 160, &err) == OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 0x58);
	c = copy_example();
	put64(c + 48, 0x1000000000000001ULL); /* string count overflows */
	CHECK(parse_err(c, 160, &err) == OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 48);
	c = copy_example();
	c[4] = 2;
	CHECK(parse_err(c, 160, &err) == OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 4);
	c = copy_example();
	put64(c + 64, 0x11); /* image past the size */
	CHECK(parse_err(c, 160, &err) == OFL_EFORMAT);
	CHECK_EQ_U(err.offset, 56);
	c = copy_example();
	c[0x8e] = 'x'; /* "sm_70" loses its NUL: runs into the padding NUL, still fine */
	CHECK(parse_err(c, 160, &err) == 0);
}

/* A v2 binary with two entries sharing one string table. */
static size_t make_v2(unsigned char *p)
{
	memset(p, 0, 256);
	memcpy(p, "\x10\xff\x10\xad\x02\0\0\0", 8);
	put64(p + 16, 32);
	put64(p + 24, 2);
	/* entries at 32 and 72; string entries (24 bytes) at 112 and 136 */
	for (int e = 0; e < 2; e++) {
		unsigned char *en = p + 32 + 40 * e;
		en[0] = 2;
		en[2] = (unsigned char)(e + 1);
		put64(en + 8, 112 + 24 * e);
		put64(en + 16, 1);
		put64(en + 24, 176 + 3 * e);
		put64(en + 32, 3);
	}
	put64(p + 112, 161); /* "arch" */
	put64(p + 120, 166);
	put64(p + 128, 2); /* "g\0x": a NUL inside the value */
	put64(p + 136, 161);
	put64(p + 144, 169);
	put64(p + 152, 4);
	memcpy(p + 160, "\0arch\0g\0xgfx9", 13);
	memcpy(p + 176, "abcdef", 6);
	put64(p + 8, 184);
	return 184;
}

OFL_TEST(version2_entries)
{
	unsigned char p[256];
	size_t n = make_v2(p);
	struct ofl_obin_set s;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_parse_set(p, n, &s, &err) == 0);
	CHECK_EQ_U(s.nentries, 2);
	CHECK_EQ_U(s.entries[0].strings[0].value_size, 2);
	CHECK_STR(ofl_obin_get(&s.entries[0], "arch"), "g");
	CHECK_STR(ofl_obin_get(&s.entries[1], "arch"), "gfx9");
	CHECK_MEM(s.entries[1].image, "def", 3);
	CHECK_EQ_U(s.entries[1].offload_kind, 2);
	ofl_obin_set_release(&s);
	CHECK(ofl_obin_parse(p, n, &(struct ofl_obin){0}, &err) == OFL_EFORMAT);
}

OFL_TEST(version3_zstd)
{
	unsigned char v2[256], plain[256], out[512];
	size_t n = make_v2(v2);
	/* The v3 form of the same binary: offsets shift by the 8 extra header
	 * bytes, so build it from the v2 bytes moved up by 8. */
	memset(plain, 0, sizeof plain);
	memcpy(plain, v2, 32);
	plain[4] = 3;
	memcpy(plain + 40, v2 + 32, n - 32);
	put64(plain + 16, 40);
	for (int e = 0; e < 2; e++) {
		unsigned char *en = plain + 40 + 40 * e;
		put64(en + 8, 120 + 24 * e);
		put64(en + 24, 184 + 3 * e);
	}
	const uint64_t so[] = {120, 128, 144, 152};
	const uint64_t old[] = {161, 166, 161, 169};
	for (int i = 0; i < 4; i++)
		put64(plain + so[i], old[i] + 8);
	size_t isz = n + 8;
	put64(plain + 8, isz);
	struct ofl_obin_set s;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_parse_set(plain, isz, &s, &err) == 0);
	CHECK_STR(ofl_obin_get(&s.entries[1], "arch"), "gfx9");
	ofl_obin_set_release(&s);
	memcpy(out, plain, 40);
	size_t c = ZSTD_compress(out + 40, sizeof out - 40, plain + 40, isz - 40, 3);
	CHECK(!ZSTD_isError(c));
	put64(out + 8, 40 + c);
	put64(out + 32, isz);
	CHECK(ofl_obin_parse_set(out, 40 + c, &s, &err) == 0);
	CHECK_EQ_U(s.compression, 2);
	CHECK_EQ_U(s.span % 8, 0);
	CHECK_MEM(s.entries[0].image, "abc", 3);
	CHECK_STR(ofl_obin_get(&s.entries[1], "arch"), "gfx9");
	ofl_obin_set_release(&s);
	out[45] ^= 0xff; /* corrupt the frame */
	CHECK(ofl_obin_parse_set(out, 40 + c, &s, &err) == OFL_EFORMAT);
}

OFL_TEST(enumerations)
{
	CHECK_EQ_U(ofl_offload_kind_parse("hip", OFL_LLVM_19), 3);
	CHECK_EQ_U(ofl_offload_kind_parse("hip", OFL_LLVM_22), 4);
	CHECK_EQ_U(ofl_offload_kind_parse("sycl", OFL_LLVM_19), 0);
	CHECK_EQ_U(ofl_offload_kind_parse("sycl", OFL_LLVM_22), 8);
	CHECK_STR(ofl_offload_kind_name(3, OFL_LLVM_22), "none");
	CHECK_STR(ofl_offload_kind_name(3, OFL_LLVM_19), "hip");
	CHECK_STR(ofl_image_kind_objdump_name(7, OFL_LLVM_22), "<none>");
	CHECK_STR(ofl_image_kind_objdump_name(2, OFL_LLVM_22), "llvm ir");
	CHECK_EQ_U(ofl_image_kind_from_ext("fatbin", OFL_LLVM_22), OFL_IMG_FATBINARY);
	CHECK_EQ_U(ofl_image_kind_from_ext("spv", OFL_LLVM_22), OFL_IMG_NONE);
}

OFL_TEST(enumerations_23)
{
	CHECK_STR(ofl_image_kind_objdump_name(OFL_IMG_SPIRV, OFL_LLVM_22), "<none>");
	CHECK_STR(ofl_image_kind_objdump_name(OFL_IMG_SPIRV, OFL_LLVM_23), "spir-v");
	CHECK_STR(ofl_image_kind_objdump_name(7, OFL_LLVM_23), "<none>");
	CHECK_STR(ofl_image_kind_suffix(OFL_IMG_SPIRV, OFL_LLVM_22), "");
	CHECK_STR(ofl_image_kind_suffix(OFL_IMG_SPIRV, OFL_LLVM_23), "spv");
	CHECK_EQ_U(ofl_image_kind_from_ext("spv", OFL_LLVM_23), OFL_IMG_SPIRV);
	CHECK_EQ_U(ofl_obin_max_version(OFL_LLVM_22), 1);
	CHECK_EQ_U(ofl_obin_max_version(OFL_LLVM_23), 2);
}

/* 23's hash_value(StringRef): XXH3-64 of the bytes, the execution seed
 * XORed in after (XXH3-64 of no bytes is 0x2d06800538d394c2). */
OFL_TEST(hash_23)
{
	CHECK_EQ_U(ofl_llvm_string_hash("", 0, OFL_LLVM_23), 0xd2572fd2d586180fULL);
	CHECK(ofl_llvm_string_hash("arch", 4, OFL_LLVM_23) !=
	      ofl_llvm_string_hash("arch", 4, OFL_LLVM_22));
}

/* Two images, strings in one table, images back to back: every offset of
 * docs/formats.md §5.6 worked out by hand. */
OFL_TEST(version2_written)
{
	const char *k[] = {"arch", "triple"};
	const char *va[] = {"sm_70", "nvptx64-nvidia-cuda"},
	           *vb[] = {"sm_80", "nvptx64-nvidia-cuda"};
	struct ofl_obin_image img[2] = {
	    {OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"ABCDEFGHIJ", 10, 2, k, va},
	    {OFL_IMG_OBJECT, OFL_OFK_OPENMP, 0, (const uint8_t *)"xyz", 3, 2, k, vb}};
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	uint64_t total = 0;
	CHECK(ofl_obin_write_v2(img, 2, &b, &total, &err) == 0);
	CHECK_EQ_U(total, 272);
	CHECK_EQ_U(b.len, 272);
	unsigned char want[112];
	memset(want, 0, sizeof want);
	memcpy(want, "\x10\xff\x10\xad\x02\0\0\0", 8);
	put64(want + 8, 272);
	put64(want + 16, 32);
	put64(want + 24, 2);
	/* entry 0 at 32, entry 1 at 72 */
	for (int e = 0; e < 2; e++) {
		unsigned char *en = want + 32 + 40 * e;
		en[0] = 1;
		en[2] = 1;
		put64(en + 8, e ? 160 : 112);
		put64(en + 16, 2);
		put64(en + 24, e ? 266 : 256);
		put64(en + 32, e ? 3 : 10);
	}
	CHECK_MEM(b.data, want, 112);
	/* the table at 208: arch, triple, nvptx64-nvidia-cuda, sm_80, sm_70 */
	const uint64_t se[12] = {209, 247, 5, 214, 221, 19, 209, 241, 5, 214, 221, 19};
	for (int i = 0; i < 12; i++)
		CHECK_EQ_U(b.data[112 + 8 * i] | b.data[113 + 8 * i] << 8, se[i]);
	CHECK_MEM(b.data + 208, "\0arch\0triple\0nvptx64-nvidia-cuda\0sm_80\0sm_70\0", 45);
	CHECK_MEM(b.data + 256, "ABCDEFGHIJxyz\0\0\0", 16);
	struct ofl_obin_set s;
	CHECK(ofl_obin_parse_set(b.data, b.len, &s, &err) == 0);
	CHECK_STR(ofl_obin_get(&s.entries[1], "arch"), "sm_80");
	ofl_obin_set_release(&s);
	/* without image bytes: everything before the first image */
	ofl_buf_reset(&b);
	img[0].image = img[1].image = NULL;
	CHECK(ofl_obin_write_v2(img, 2, &b, &total, &err) == 0);
	CHECK_EQ_U(b.len, 256);
	CHECK_EQ_U(total, 272);
	/* no image: the 40 bytes 23's release build writes */
	ofl_buf_reset(&b);
	CHECK(ofl_obin_write_v2(NULL, 0, &b, &total, &err) == 0);
	CHECK_EQ_U(b.len, 40);
	CHECK_EQ_U(b.data[8], 40);
	CHECK_EQ_U(b.data[16], 32);
	CHECK_EQ_U(b.data[24], 0);
	ofl_buf_release(&b);
}

/* An entry kept on its own owns its strings, NULs inside values kept. */
OFL_TEST(set_entry_owns_strings)
{
	unsigned char p[256];
	size_t n = make_v2(p);
	struct ofl_obin_set s;
	struct ofl_obin e;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_obin_parse_set(p, n, &s, &err) == 0);
	CHECK(ofl_obin_set_entry(&s, 0, &e, &err) == 0);
	ofl_obin_set_release(&s);
	memset(p + 160, 'Z', 13);
	CHECK_STR(ofl_obin_get(&e, "arch"), "g");
	CHECK_EQ_U(e.strings[0].value_size, 2);
	CHECK_MEM(e.strings[0].value, "g\0\0", 3);
	CHECK_EQ_U(e.version, 2);
	ofl_obin_release(&e);
}

OFL_TEST(newer_than_known)
{
	struct ofl_obin b = OFL_OBIN_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	b.version = 2;
	b.image_kind = OFL_IMG_SPIRV;
	b.offload_kind = OFL_OFK_SYCL;
	b.flags = OFL_OBIN_FLAG_METADATA;
	CHECK(ofl_obin_check_known(&b, &err) == 0);
	b.offload_kind = 16; /* a kind proposed after 23 */
	CHECK(ofl_obin_check_known(&b, &err) == OFL_EUNSUPPORTED);
	CHECK(strstr(err.msg, "offload kind 16") != NULL);
	ofl_error_clear(&err);
	b.offload_kind = 5;
	CHECK(ofl_obin_check_known(&b, &err) == OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	b.offload_kind = OFL_OFK_HIP19;
	b.image_kind = 7;
	CHECK(ofl_obin_check_known(&b, &err) == OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	b.image_kind = 1;
	b.flags = 2;
	CHECK(ofl_obin_check_known(&b, &err) == OFL_EUNSUPPORTED);
	ofl_error_clear(&err);
	b.flags = OFL_OBIN_FLAG_METADATA;
	b.version = 1; /* 19 and 22 wrote no flag */
	CHECK(ofl_obin_check_known(&b, &err) == OFL_EUNSUPPORTED);
	unsigned char p[256];
	size_t n = make_v2(p);
	p[4] = 4;
	struct ofl_obin_set s;
	ofl_error_clear(&err);
	CHECK(ofl_obin_parse_set(p, n, &s, &err) == OFL_EUNSUPPORTED);
	CHECK(strstr(err.msg, "version 4 is not one offlink knows") != NULL);
	CHECK(ofl_obin_llvm_diag(p, n, OFL_LLVM_23) == OFL_OBIN_INVALID_DATA);
	p[4] = 2;
	CHECK(ofl_obin_llvm_diag(p, n, OFL_LLVM_22) == OFL_OBIN_INVALID_DATA);
	CHECK(ofl_obin_llvm_diag(p, n - 8, OFL_LLVM_23) == OFL_OBIN_UNEXPECTED_EOF);
}
