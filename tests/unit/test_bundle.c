#include "harness.h"
#include "offlink/bundle.h"
#include "offlink/ccob.h"
#include "offlink/error.h"

/* docs/formats.md §1.2: -bundle-align=3 puts the first entry at 141 when H = 139 */
OFL_TEST(header_offsets_with_odd_alignment)
{
	const char *ids[] = {"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a",
	                     "openmp-nvptx64-nvidia-cuda--sm_70"};
	uint64_t sizes[] = {5, 0, 3}, offs[3];
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	uint64_t h = ofl_bundle_header_size(ids, 3);
	CHECK_EQ_U(h, 32 + 3 * 24 + 30 + 29 + 33);
	CHECK(ofl_bundle_write_header(ids, sizes, 3, 3, &b, offs, &e) == 0);
	CHECK_EQ_U(b.len, h);
	CHECK_EQ_U(offs[0], 198);
	CHECK_EQ_U(offs[1], 204); /* empty entries are aligned too */
	CHECK_EQ_U(offs[2], 204);
	CHECK(ofl_bundle_write_header(ids, sizes, 3, 0, &b, offs, &e) == OFL_EINVAL);
	ofl_buf_release(&b);
}

static struct ofl_bundle read_text(const char *text, const char *type, int *rc)
{
	struct ofl_bundle b;
	struct ofl_error e = OFL_ERROR_INIT;
	*rc =
	    ofl_bundle_read(&b, (const uint8_t *)text, strlen(text), ofl_file_type_find(type), &e);
	return b;
}

OFL_TEST(text_bundle_keeps_newlines_exactly)
{
	const char *t = "\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n"
	                "a\nb\n"
	                "\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n"
	                "\n; __CLANG_OFFLOAD_BUNDLE____START__ openmp-x\n"
	                "\n; __CLANG_OFFLOAD_BUNDLE____END__ openmp-x\n";
	int rc;
	struct ofl_bundle b = read_text(t, "ll", &rc);
	CHECK(rc == 0 && b.found);
	CHECK_EQ_U(b.n, 2);
	CHECK_STR(b.entries[0].id, "host-x86_64-unknown-linux-gnu-");
	CHECK_EQ_U(b.entries[0].size, 4);
	CHECK_MEM(b.data + b.entries[0].offset, "a\nb\n", 4);
	CHECK_STR(b.entries[1].id, "openmp-x");
	CHECK_EQ_U(b.entries[1].size, 0);
	ofl_bundle_release(&b);
	/* the same text read as another text type holds no bundle */
	b = read_text(t, "s", &rc);
	CHECK(rc == 0 && !b.found);
	ofl_bundle_release(&b);
}

OFL_TEST(text_bundle_mismatched_end_is_an_error)
{
	const char *t = "\n// __CLANG_OFFLOAD_BUNDLE____START__ a\nx"
	                "\n// __CLANG_OFFLOAD_BUNDLE____END__ b\n";
	int rc;
	struct ofl_bundle b = read_text(t, "i", &rc);
	CHECK(rc == OFL_EFORMAT);
	ofl_bundle_release(&b);
	b = read_text("\n// __CLANG_OFFLOAD_BUNDLE____START__ a\nno end", "i", &rc);
	CHECK(rc == OFL_EFORMAT);
	ofl_bundle_release(&b);
}

OFL_TEST(binary_bundles_back_to_back)
{
	const char *ids[] = {"host-x-"};
	uint64_t sizes[] = {3}, offs[1];
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_bundle_write_header(ids, sizes, 1, 1, &b, offs, &e) == 0);
	CHECK(ofl_buf_append(&b, "abc", 3) == 0);
	size_t one = b.len;
	uint8_t copy[256];
	CHECK(one <= sizeof copy);
	memcpy(copy, b.data, one);
	CHECK(ofl_buf_append(&b, copy, one) == 0);
	CHECK(ofl_buf_append_zeros(&b, 5) == 0);
	struct ofl_bundle r;
	CHECK(ofl_bundle_read(&r, b.data, b.len, ofl_file_type_find("bc"), &e) == 0);
	CHECK_EQ_U(r.n, 2);
	CHECK_EQ_U(r.entries[1].offset, one + offs[0]);
	ofl_bundle_release(&r);
	b.data[b.len - 1] = 1; /* garbage after the padding */
	CHECK(ofl_bundle_read(&r, b.data, b.len, ofl_file_type_find("bc"), &e) == OFL_EFORMAT);
	CHECK_EQ_U(e.offset, 2 * one + 4); /* the first non-zero byte */
	ofl_bundle_release(&r);
	ofl_buf_release(&b);
}

OFL_TEST(type_guess)
{
	CHECK_STR(ofl_file_type_guess((const uint8_t *)"CCOB\x03\0\x01\0", 8, "x")->name, "bc");
	const char *ll = "\n; __CLANG_OFFLOAD_BUNDLE____START__ a\n";
	CHECK_STR(ofl_file_type_guess((const uint8_t *)ll, strlen(ll), "x")->name, "ll");
	CHECK(ofl_file_type_guess((const uint8_t *)"hello", 5, "x") == NULL);
	CHECK_STR(ofl_file_type_guess((const uint8_t *)"hello", 5, "x.s")->name, "s");
}

/* A bundle whose header is larger than the first 64 KiB inflated, so the
 * header-only reader has to ask for more. */
static void big_bundle(struct ofl_buf *out, size_t n)
{
	char **ids = calloc(n, sizeof *ids);
	uint64_t *sizes = calloc(n, sizeof *sizes), *offs = calloc(n, sizeof *offs);
	struct ofl_error e = OFL_ERROR_INIT;
	for (size_t i = 0; i < n; i++) {
		ids[i] = malloc(64);
		snprintf(ids[i], 64, "hip-amdgcn-amd-amdhsa--gfx90a-entry-%05zu", i);
		sizes[i] = 100 + i % 7;
	}
	ofl_bundle_write_header((const char *const *)ids, sizes, n, 8, out, offs, &e);
	for (size_t i = 0; i < n; i++) {
		ofl_buf_append_zeros(out, (size_t)(offs[i] - out->len));
		for (uint64_t k = 0; k < sizes[i]; k++)
			ofl_buf_append(out, "x", 1);
		free(ids[i]);
	}
	free(ids);
	free(sizes);
	free(offs);
}

OFL_TEST(header_only_read_of_compressed_bundles)
{
	struct ofl_buf raw = OFL_BUF_INIT;
	big_bundle(&raw, 3000); /* ~200 KiB of header */
	for (int method = 0; method < 2; method++) {
		struct ofl_ccob_options o = OFL_CCOB_OPTIONS_INIT;
		o.method = method;
		struct ofl_buf z = OFL_BUF_INIT;
		struct ofl_error e = OFL_ERROR_INIT;
		CHECK(ofl_ccob_compress(raw.data, raw.len, &o, &z, &e) == 0);
		struct ofl_bundle full, hdr;
		bool complete;
		CHECK(ofl_bundle_read(&full, z.data, z.len, ofl_file_type_find("bc"), &e) == 0);
		CHECK(ofl_bundle_read_header_only(&hdr, z.data, z.len, &complete, &e) == 0);
		CHECK(complete && hdr.found && hdr.n == full.n && hdr.n == 3000);
		CHECK(hdr.size < full.size); /* only the header was inflated */
		for (size_t i = 0; i < hdr.n; i++) {
			CHECK_STR(hdr.entries[i].id, full.entries[i].id);
			CHECK_EQ_U(hdr.entries[i].offset, full.entries[i].offset);
			CHECK_EQ_U(hdr.entries[i].size, full.entries[i].size);
		}
		ofl_bundle_release(&hdr);
		/* a second CCOB behind the first is left to the full reader */
		size_t one = z.len;
		uint8_t *copy = malloc(one);
		memcpy(copy, z.data, one);
		ofl_buf_append(&z, copy, one);
		free(copy);
		CHECK(ofl_bundle_read_header_only(&hdr, z.data, z.len, &complete, &e) == 0);
		CHECK(!complete && hdr.n == 0);
		ofl_bundle_release(&hdr);
		ofl_bundle_release(&full);
		ofl_buf_release(&z);
	}
	ofl_buf_release(&raw);
}
