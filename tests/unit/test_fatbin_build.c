#include <stdint.h>
#include <sys/stat.h>

#include "harness.h"
#include "offlink/ccob.h"
#include "offlink/fatbin_build.h"

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* docs/formats.md §1.2's worked example: host 4096/0, gfx908 4096/4, gfx90a
 * 8192/10, file size 8202. */
OFL_TEST(hipfb_layout_22)
{
	struct ofl_fatbin_image imgs[2] = {{(const uint8_t *)"AAAA", 4, NULL, "gfx908"},
	                                   {(const uint8_t *)"BBBBBBBBBB", 10, NULL, "gfx90a"}};
	struct ofl_hipfb_options o = OFL_HIPFB_OPTIONS_INIT;
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_hipfb_build(imgs, 2, &o, &b, &e), 0);
	CHECK_EQ_U(b.len, 8202);
	CHECK_MEM(b.data, "__CLANG_OFFLOAD_BUNDLE__", 24);
	CHECK_EQ_U(le64(b.data + 24), 3);
	const char *ids[3] = {"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx908",
	                      "hip-amdgcn-amd-amdhsa--gfx90a"};
	uint64_t offs[3] = {4096, 4096, 8192}, sizes[3] = {0, 4, 10};
	size_t at = 32;
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_U(le64(b.data + at), offs[i]);
		CHECK_EQ_U(le64(b.data + at + 8), sizes[i]);
		CHECK_EQ_U(le64(b.data + at + 16), strlen(ids[i]));
		CHECK_MEM(b.data + at + 24, ids[i], strlen(ids[i]));
		at += 24 + strlen(ids[i]);
	}
	for (size_t i = at; i < 4096; i++)
		CHECK_EQ_U(b.data[i], 0);
	CHECK_MEM(b.data + 4096, "AAAA", 4);
	CHECK_MEM(b.data + 8192, "BBBBBBBBBB", 10);
	ofl_buf_release(&b);
}

static char *first_ids(const struct ofl_hipfb_options *o, const char *arch)
{
	struct ofl_fatbin_image img = {(const uint8_t *)"x", 1, NULL, arch};
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_hipfb_build(&img, 1, o, &b, &e))
		return NULL;
	/* "<host id>|<device id>" */
	uint64_t l0 = le64(b.data + 48), l1 = le64(b.data + 32 + 24 + l0 + 16);
	char *s = malloc(l0 + l1 + 2);
	memcpy(s, b.data + 56, l0);
	s[l0] = '|';
	memcpy(s + l0 + 1, b.data + 56 + l0 + 24, l1);
	s[l0 + l1 + 1] = 0;
	ofl_buf_release(&b);
	return s;
}

OFL_TEST(hipfb_ids_per_dialect)
{
	struct ofl_hipfb_options o = OFL_HIPFB_OPTIONS_INIT;
	char *s = first_ids(&o, "gfx90a:xnack+:sramecc-");
	CHECK_STR(s,
	          "host-x86_64-unknown-linux-gnu-|hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-");
	free(s);
	o.hipv4 = true;
	s = first_ids(&o, "gfx1030");
	CHECK_STR(s, "host-x86_64-unknown-linux-gnu-|hipv4-amdgcn-amd-amdhsa--gfx1030");
	free(s);
	o.dialect = OFL_LLVM19;
	o.hipv4 = false;
	s = first_ids(&o, "gfx90a");
	CHECK_STR(s, "host-x86_64-unknown-linux--|hip-amdgcn-amd-amdhsa--gfx90a");
	free(s);
	/* processors a release does not know: 22 drops them, 19 keeps a '-' */
	s = first_ids(&o, "gfx9999");
	CHECK_STR(s, "host-x86_64-unknown-linux--|hip-amdgcn-amd-amdhsa--gfx9999-");
	free(s);
	o.dialect = OFL_LLVM22;
	s = first_ids(&o, "gfx9999");
	CHECK_STR(s, "host-x86_64-unknown-linux-gnu-|hip-amdgcn-amd-amdhsa--");
	free(s);
}

OFL_TEST(hipfb_rejects)
{
	struct ofl_hipfb_options o = OFL_HIPFB_OPTIONS_INIT;
	struct ofl_buf b = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	struct ofl_fatbin_image imgs[2] = {{(const uint8_t *)"x", 1, "a.img", "gfx90a"},
	                                   {(const uint8_t *)"y", 1, "b.img", "gfx90a:xnack+"}};
	CHECK((ofl_hipfb_build(imgs, 2, &o, &b, &e)) == OFL_EINVAL);
	CHECK_STR(e.msg, "conflicting hip target IDs 'gfx90a' and 'gfx90a:xnack+'");
	imgs[1].arch = "gfx90a";
	ofl_error_clear(&e);
	CHECK((ofl_hipfb_build(imgs, 2, &o, &b, &e)) == OFL_EINVAL);
	CHECK_STR(e.msg,
	          "two hip images have the same bundle entry 'hip-amdgcn-amd-amdhsa--gfx90a'");
	imgs[1].arch = NULL;
	ofl_error_clear(&e);
	CHECK((ofl_hipfb_build(imgs, 2, &o, &b, &e)) == OFL_EINVAL);
	CHECK_STR(e.path, "b.img");
	CHECK_STR(e.msg, "hip image 1 has no arch (target ID)");
	CHECK_EQ_U(b.len, 0);
	/* signs may differ */
	imgs[0].arch = "gfx90a:xnack-";
	imgs[1].arch = "gfx90a:xnack+";
	CHECK_EQ_U(ofl_hipfb_build(imgs, 2, &o, &b, &e), 0);
	ofl_buf_release(&b);
}

OFL_TEST(hipfb_compressed_holds_the_bundle)
{
	uint8_t code[5000];
	for (size_t i = 0; i < sizeof code; i++)
		code[i] = (uint8_t)(i * 7 / 13);
	struct ofl_fatbin_image img = {code, sizeof code, NULL, "gfx942"};
	struct ofl_hipfb_options o = OFL_HIPFB_OPTIONS_INIT;
	struct ofl_buf raw = OFL_BUF_INIT, z = OFL_BUF_INIT, back = OFL_BUF_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK_EQ_U(ofl_hipfb_build(&img, 1, &o, &raw, &e), 0);
	o.compress = true;
	CHECK_EQ_U(ofl_hipfb_build(&img, 1, &o, &z, &e), 0);
	CHECK(z.len < raw.len);
	struct ofl_ccob_header h;
	CHECK_EQ_U(ofl_ccob_parse_header(z.data, z.len, &h, &e), 0);
	CHECK_EQ_U(h.version, 3);
	CHECK_EQ_U(h.raw_size, raw.len);
	CHECK_EQ_U(ofl_ccob_decompress(z.data, z.len, &back, NULL, NULL, &e), 0);
	CHECK_EQ_U(back.len, raw.len);
	CHECK_MEM(back.data, raw.data, raw.len);
	ofl_buf_release(&raw);
	ofl_buf_release(&z);
	ofl_buf_release(&back);
}

OFL_TEST(fatbin_image_order_is_arch_descending)
{
	struct ofl_fatbin_image imgs[5] = {{NULL, 0, "a", "sm_80"},
	                                   {NULL, 0, "b", "sm_90"},
	                                   {NULL, 0, "c", "sm_100"},
	                                   {NULL, 0, "d", "sm_90"},
	                                   {NULL, 0, "e", "sm_90a"}};
	size_t order[5];
	ofl_fatbin_image_order(imgs, 5, order);
	size_t want[5] = {4, 1, 3, 0, 2};
	for (int i = 0; i < 5; i++)
		CHECK_EQ_U(order[i], want[i]);
}

static const uint8_t elf_bytes[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0,    0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0,    0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                    0,    0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

OFL_TEST(cuda_fatbin_command_lines)
{
	struct ofl_fatbin_image imgs[2] = {{elf_bytes, sizeof elf_bytes, "k.cubin", "sm_90"},
	                                   {(const uint8_t *)".version 8.8", 12, "k.ptx", "sm_80"}};
	struct ofl_cuda_fatbin_options o = OFL_CUDA_FATBIN_OPTIONS_INIT;
	struct ofl_proc p = OFL_PROC_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	o.syntax = OFL_FATBINARY_IMAGE3;
	CHECK_EQ_U(ofl_cuda_fatbin_argv(imgs, 2, "/cuda/bin/fatbinary", &o, "o.fatbin", &p, &e), 0);
	CHECK_EQ_U(p.argc, 6);
	CHECK_STR(p.argv[0], "/cuda/bin/fatbinary");
	CHECK_STR(p.argv[1], "-64");
	CHECK_STR(p.argv[2], "--create");
	CHECK_STR(p.argv[3], "o.fatbin");
	CHECK_STR(p.argv[4], "--image3=kind=elf,sm=90,file=k.cubin");
	CHECK_STR(p.argv[5], "--image3=kind=ptx,sm=80,file=k.ptx");
	ofl_proc_release(&p);
	o.syntax = OFL_FATBINARY_IMAGE;
	o.m32 = true;
	CHECK_EQ_U(ofl_cuda_fatbin_argv(imgs, 2, "fatbinary", &o, "o.fatbin", &p, &e), 0);
	CHECK_STR(p.argv[1], "-32");
	CHECK_STR(p.argv[4], "--image=profile=sm_90,file=k.cubin");
	CHECK_STR(p.argv[5], "--image=profile=compute_80,file=k.ptx");
	ofl_proc_release(&p);
	imgs[1].arch = "gfx90a";
	CHECK((ofl_cuda_fatbin_argv(imgs, 2, "fatbinary", &o, "o.fatbin", &p, &e)) == OFL_EINVAL);
	CHECK_STR(e.msg, "cuda image needs an arch of the form sm_NN, got 'gfx90a'");
	CHECK_STR(e.path, "k.ptx");
	ofl_proc_release(&p);
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

OFL_TEST(fatbinary_probe_and_failures)
{
	struct ofl_error e = OFL_ERROR_INIT;
	enum ofl_fatbinary_syntax s = OFL_FATBINARY_PROBE;
	script("new", "echo '--image3 <image spec>,...   (-image3)'");
	script("old", "echo '--image <image spec>,...   (-image)'");
	CHECK_EQ_U(ofl_fatbinary_probe("./new", &s, &e), 0);
	CHECK_EQ_U(s, OFL_FATBINARY_IMAGE3);
	CHECK_EQ_U(ofl_fatbinary_probe("./old", &s, &e), 0);
	CHECK_EQ_U(s, OFL_FATBINARY_IMAGE);

	struct ofl_fatbin_image img = {elf_bytes, sizeof elf_bytes, NULL, "sm_70"};
	struct ofl_cuda_fatbin_options o = OFL_CUDA_FATBIN_OPTIONS_INIT;
	struct ofl_buf out = OFL_BUF_INIT;
	o.fatbinary = "./bad";
	o.dir = ".";
	script("bad", "echo 'fatbinary fatal   : Unknown option' >&2; exit 1");
	CHECK((ofl_cuda_fatbin_build(&img, 1, &o, &out, &e)) == OFL_ECHILD);
	CHECK_STR(e.msg, "'./bad' failed (exit status 1): fatbinary fatal   : Unknown option");
	/* the tool succeeds but writes something else */
	o.fatbinary = "./junk";
	o.syntax = OFL_FATBINARY_IMAGE3;
	script("junk", "echo junk > \"$3\"");
	ofl_error_clear(&e);
	CHECK((ofl_cuda_fatbin_build(&img, 1, &o, &out, &e)) == OFL_EFORMAT);
	CHECK(strstr(e.msg, "no fat binary"));
	CHECK_EQ_U(out.len, 0);
	/* temporaries are gone */
	CHECK(system("test -z \"$(ls | grep offlink-)\"") == 0);
	o.fatbinary = NULL;
	o.cuda_path = "nowhere";
	o.search_path = "/nonexistent";
	ofl_error_clear(&e);
	CHECK((ofl_cuda_fatbin_build(&img, 1, &o, &out, &e)) == OFL_ENOTFOUND);
	CHECK(strstr(e.msg, "cannot find 'fatbinary' in 'nowhere/bin'"));
}
