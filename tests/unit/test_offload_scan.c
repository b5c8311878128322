/* The magic finder, the section walker and the raw scanner. */
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "offlink/bundle.h"
#include "offlink/offload_binary.h"
#include "offlink/offload_scan.h"
#include "offlink/wrapper_obj.h"

static size_t make_bin(struct ofl_buf *b, const char *arch, size_t image_len)
{
	static const uint8_t img[64] = "0123456789abcdefghijklmnopqrstuvwxyz";
	const char *k[] = {"triple", "arch"}, *v[] = {"t", arch};
	struct ofl_obin_image im = {1, 1, 0, img, image_len, 2, k, v};
	struct ofl_error err = OFL_ERROR_INIT;
	size_t before = b->len;
	if (ofl_obin_write(&im, b, &err))
		abort();
	return b->len - before;
}

OFL_TEST(find_magic_matches_memmem)
{
	uint8_t buf[1000];
	unsigned s = 12345;
	for (size_t i = 0; i < sizeof buf; i++) {
		s = s * 1103515245 + 12345;
		buf[i] = (uint8_t)(s >> 16);
	}
	/* Near misses and real hits at odd places, one straddling a block. */
	memcpy(buf + 5, "\x10\xff\x10\xac", 4);
	memcpy(buf + 77, "\x10\xfe\x10\xad", 4);
	const size_t hits[] = {62, 333, 996};
	for (size_t i = 0; i < 3; i++)
		memcpy(buf + hits[i], OFL_OBIN_MAGIC, 4);
	const uint8_t *p = buf;
	for (size_t i = 0; i < 3; i++) {
		p = ofl_find_magic(p, buf + sizeof buf);
		CHECK(p == memmem(p ? p : buf, (size_t)(buf + sizeof buf - (p ? p : buf)),
		                  OFL_OBIN_MAGIC, 4));
		CHECK_EQ_U(p - buf, hits[i]);
		p++;
	}
	CHECK(ofl_find_magic(p, buf + sizeof buf) == NULL);
	CHECK(ofl_find_magic(buf + 996, buf + 999) == NULL); /* cut short */
}

OFL_TEST(walk_padding_and_garbage)
{
	struct ofl_buf b = OFL_BUF_INIT;
	size_t n1 = make_bin(&b, "a", 10);
	ofl_buf_append_zeros(&b, 8); /* padding, as -fembed-offload-object leaves */
	ofl_buf_append(&b,
	               "\x10\xff\x10\xad"
	               "junk",
	               8); /* a magic that is no binary */
	size_t at2 = b.len, n2 = make_bin(&b, "bb", 3);
	size_t at3 = b.len;
	make_bin(&b, "ccc", 0); /* back to back */
	struct ofl_found_list l = OFL_FOUND_LIST_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_scan_walk(b.data, b.len, 1000, 7, 0, &l, &err) == 0);
	CHECK_EQ_U(l.n, 3);
	CHECK_EQ_U(l.v[0].offset, 1000);
	CHECK_EQ_U(l.v[0].size, n1);
	CHECK_EQ_U(l.v[1].offset, 1000 + at2);
	CHECK_EQ_U(l.v[1].size, n2);
	CHECK_EQ_U(l.v[2].offset, 1000 + at3);
	CHECK_EQ_U(l.v[2].section, 7);
	ofl_found_list_release(&l);
	/* Strict: the fake magic is an error at the absolute offset of its
	 * version field ("junk"). */
	CHECK(ofl_scan_walk(b.data, b.len, 1000, 7, OFL_SCAN_STRICT, &l, &err) == OFL_EUNSUPPORTED);
	CHECK_EQ_U(err.offset, 1000 + n1 + 8 + 4);
	ofl_found_list_release(&l);
	ofl_buf_release(&b);
}

OFL_TEST(raw_scan_in_noise)
{
	struct ofl_buf b = OFL_BUF_INIT;
	for (int i = 0; i < 300; i++)
		ofl_buf_append(&b, "\x10\xff\x10", 3); /* partial magics everywhere */
	size_t at = b.len;
	make_bin(&b, "gfx90a", 17);
	ofl_buf_append(&b, "tail", 4);
	struct ofl_found_list l = OFL_FOUND_LIST_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_scan_file(b.data, b.len, 0, &l, &err) == 0);
	CHECK_EQ_U(l.n, 1);
	CHECK_EQ_U(l.v[0].offset, at);
	CHECK_EQ_U(l.v[0].section, 0);
	ofl_found_list_release(&l);
	/* A binary whose size runs past the end is skipped, not reported. */
	b.len -= 12;
	CHECK(ofl_scan_raw(b.data, b.len, 0, &l, &err) == 0);
	CHECK_EQ_U(l.n, 0);
	ofl_found_list_release(&l);
	ofl_buf_release(&b);
}

OFL_TEST(elf_sections_refuses_non_elf)
{
	struct ofl_elf_sections s;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_elf_offload_sections((const uint8_t *)"\177ELFxxxxxxxxxxxxxxxx", 20,
	                               OFL_ELFSEC_BY_TYPE, &s, &err) == OFL_EFORMAT);
	CHECK(!ofl_is_elf((const uint8_t *)"\177EL", 3));
}

/* The survey's notes: which other readers a file needs (the link reads
 * an object again only for them); the same from the bytes and libelf. */
static void survey(const struct ofl_buf *o, bool fatbin, bool bundle)
{
	for (unsigned libelf = 0; libelf <= OFL_ELFSEC_LIBELF; libelf += OFL_ELFSEC_LIBELF) {
		struct ofl_elf_sections s;
		struct ofl_error err = OFL_ERROR_INIT;
		CHECK(ofl_elf_offload_sections(o->data, o->len,
		                               OFL_ELFSEC_BY_TYPE | OFL_ELFSEC_BY_NAME | libelf, &s,
		                               &err) == 0);
		CHECK(s.fatbin == fatbin);
		CHECK(s.bundle == bundle);
		CHECK(!s.unread);
		CHECK_EQ_U(s.n, fatbin ? 0 : 1); /* the OpenMP objects: .llvm.offloading */
		ofl_elf_sections_release(&s);
	}
}

OFL_TEST(elf_sections_note_fatbins_and_bundles)
{
	static const uint8_t img[40] = "device image";
	struct ofl_wrap_image wi = {img, sizeof img, 0, sizeof img, NULL, NULL};
	struct ofl_wrap_opts omp = {OFL_WRAP_OPENMP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false,
	                            false};
	struct ofl_wrap_opts hip = {OFL_WRAP_HIP, OFL_WRAP_LLVM20, OFL_WRAP_X86_64, false, false};
	struct ofl_buf o = OFL_BUF_INIT, h = OFL_BUF_INIT, b = OFL_BUF_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_wrap_write_buf(&o, &omp, &wi, 1, &err) == 0);
	survey(&o, false, false);
	CHECK(ofl_wrap_write_buf(&h, &hip, &wi, 1, &err) == 0);
	survey(&h, true, false);
	/* the OpenMP object with one bundle entry added, as the bundler does */
	const char *id = "openmp-x86_64-pc-linux-gnu";
	const uint8_t *data = img;
	uint64_t size = sizeof img;
	int fd = memfd_create("bundled", 0);
	CHECK(fd >= 0);
	CHECK(ofl_bundle_object_write(fd, o.data, o.len, &id, &data, &size, 1, &err) == 0);
	off_t n = lseek(fd, 0, SEEK_END);
	CHECK(n > 0 && ofl_buf_reserve(&b, (size_t)n) == 0);
	CHECK(pread(fd, b.data, (size_t)n, 0) == n);
	b.len = (size_t)n;
	close(fd);
	survey(&b, false, true);
	ofl_buf_release(&o);
	ofl_buf_release(&h);
	ofl_buf_release(&b);
}

struct seen {
	size_t n;
	uint64_t off[4];
};

/* Takes LLVM's v1 binaries only, as the packager does. */
static int take_v1(void *ctx, const uint8_t *p, size_t left, uint64_t off, uint64_t *span,
                   struct ofl_error *err)
{
	struct seen *s = ctx;
	struct ofl_obin b;
	int rc = ofl_obin_parse(p, left, &b, err);
	if (rc)
		return rc;
	*span = b.size;
	ofl_obin_release(&b);
	if (s->n < 4)
		s->off[s->n] = off;
	s->n++;
	return 0;
}

OFL_TEST(exact_walk_stops_at_padding)
{
	struct ofl_buf b = OFL_BUF_INIT;
	size_t n1 = make_bin(&b, "a", 8);
	size_t n2 = make_bin(&b, "b", 16);
	struct seen s = {0, {0}};
	struct ofl_error err = OFL_ERROR_INIT;
	CHECK(ofl_scan_each(b.data, b.len, 500, OFL_SCAN_EXACT, take_v1, &s, &err) == 0);
	CHECK_EQ_U(s.n, 2);
	CHECK_EQ_U(s.off[0], 500);
	CHECK_EQ_U(s.off[1], 500 + n1);
	/* Padding before a third binary: the exact walk fails where the
	 * padding starts; the scanning walk steps over it. */
	ofl_buf_append_zeros(&b, 8);
	make_bin(&b, "c", 0);
	s.n = 0;
	CHECK(ofl_scan_each(b.data, b.len, 500, OFL_SCAN_EXACT, take_v1, &s, &err) == OFL_EFORMAT);
	CHECK_EQ_U(s.n, 2);
	CHECK_EQ_U(err.offset, 500 + n1 + n2);
	ofl_error_clear(&err);
	s.n = 0;
	CHECK(ofl_scan_each(b.data, b.len, 500, 0, take_v1, &s, &err) == 0);
	CHECK_EQ_U(s.n, 3);
	CHECK_EQ_U(s.off[2], 500 + n1 + n2 + 8);
	ofl_buf_release(&b);
}
