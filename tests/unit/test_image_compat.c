/* Image loadability: real images from CUDA 13 (tests/fixtures/gpu), the
 * old header form written as CUDA 12's ptxas writes it for sm_90, and the
 * rules of LLVM's offload runtime and the CUDA driver. */
#include <stdint.h>

#include "harness.h"
#include "offlink/buf.h"
#include "offlink/image_compat.h"

/* The old form of the same header, read back into im: EI_OSABI 0x33, ABI
 * 7, e_flags with the SM in bits 0-7, its virtual SM in 16-23, 64-bit
 * addressing (0x400) and unified textures (0x100), as CUDA 12's ptxas
 * writes for sm_90. */
static void to_old_form(struct ofl_buf *b, unsigned sm, struct ofl_gpu_image *im)
{
	b->data[7] = 0x33;
	b->data[8] = 7;
	uint32_t f = sm | 0x500 | sm << 16;
	for (int i = 0; i < 4; i++)
		b->data[0x30 + i] = (uint8_t)(f >> (8 * i));
	ofl_gpu_image_read(b->data, b->len, im);
}

static enum ofl_load loads(const struct ofl_gpu_image *im, const char *arch, enum ofl_loader ld,
                           unsigned rel, const char *gpu)
{
	char why[256];
	return ofl_image_loads(im, arch, ld, rel, gpu, why, sizeof why);
}

OFL_TEST(cuda13_cubin_header)
{
	struct ofl_buf b = ofl_test_fixture("gpu/sm90-cuda13.cubin");
	CHECK(b.len > 64);
	struct ofl_gpu_image im;
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK_EQ_U(im.code, OFL_GPU_CUBIN);
	CHECK_EQ_U(im.osabi, 0x41);
	CHECK_EQ_U(im.abi_version, OFL_CUBIN_ABI_NEW);
	CHECK_EQ_U(im.sm, 90);
	CHECK(!strcmp(im.toolkit, "13.0"));
	CHECK_EQ_U(ofl_cubin_first_runtime(&im), 22);
	char why[256];
	CHECK_EQ_U(ofl_image_loads(&im, "sm_90", OFL_LOADER_LLVM, 19, "sm_90", why, sizeof why),
	           OFL_LOAD_NO);
	CHECK(strstr(why, "LLVM 19's offload runtime does not read the new cubin header"));
	CHECK(strstr(why, "CUDA 13.0"));
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 20, "sm_90"), OFL_LOAD_NO);
	CHECK_EQ_U(ofl_image_loads(&im, "sm_90", OFL_LOADER_LLVM, 21, "sm_90", why, sizeof why),
	           OFL_LOAD_NO);
	CHECK(strstr(why, "LLVM 22 and later do, and 21.1 from the point release with "
	                  "llvm-project#159451"));
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 22, "sm_90"), OFL_LOAD_YES);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_90"), OFL_LOAD_YES);
	/* the driver reads the new header; the SM rule still holds */
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_100"), OFL_LOAD_NO);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_80"), OFL_LOAD_NO);
	ofl_buf_release(&b);
}

OFL_TEST(old_header_form)
{
	struct ofl_buf b = ofl_test_fixture("gpu/sm90-cuda13.cubin");
	CHECK(b.len > 64);
	struct ofl_gpu_image im;
	to_old_form(&b, 90, &im);
	CHECK_EQ_U(im.abi_version, OFL_CUBIN_ABI_OLD);
	CHECK_EQ_U(im.sm, 90);
	CHECK(im.addr64);
	CHECK_EQ_U(ofl_cubin_first_runtime(&im), 1);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 19, "sm_90"), OFL_LOAD_YES);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 22, "sm_90"), OFL_LOAD_YES);
	/* 32-bit addressing is refused */
	b.data[0x31] &= (uint8_t)~0x04;
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK(!im.addr64);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 19, "sm_90"), OFL_LOAD_NO);
	/* LLVM 19 and 20 took sm_35 to sm_90 only */
	to_old_form(&b, 100, &im);
	CHECK_EQ_U(loads(&im, "sm_100", OFL_LOADER_LLVM, 19, "sm_100"), OFL_LOAD_NO);
	CHECK_EQ_U(loads(&im, "sm_100", OFL_LOADER_LLVM, 21, "sm_100"), OFL_LOAD_YES);
	to_old_form(&b, 30, &im);
	CHECK_EQ_U(loads(&im, "sm_30", OFL_LOADER_LLVM, 22, "sm_30"), OFL_LOAD_NO);
	/* an ABI version neither form has */
	b.data[8] = 9;
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK_EQ_U(ofl_cubin_first_runtime(&im), 0);
	CHECK_EQ_U(loads(&im, "sm_30", OFL_LOADER_LLVM, 22, "sm_30"), OFL_LOAD_NO);
	ofl_buf_release(&b);
}

/* Same major, the GPU's minor at least the image's; arch-specific code on
 * its own SM only. */
OFL_TEST(sm_rule)
{
	struct ofl_buf b = ofl_test_fixture("gpu/sm90-cuda13.cubin");
	CHECK(b.len > 64);
	struct ofl_gpu_image im;
	to_old_form(&b, 80, &im);
	CHECK_EQ_U(loads(&im, "sm_80", OFL_LOADER_LLVM, 19, "sm_86"), OFL_LOAD_YES);
	CHECK_EQ_U(loads(&im, "sm_80", OFL_LOADER_LLVM, 19, "sm_89"), OFL_LOAD_YES);
	CHECK_EQ_U(loads(&im, "sm_80", OFL_LOADER_LLVM, 19, "sm_90"), OFL_LOAD_NO);
	to_old_form(&b, 86, &im);
	CHECK_EQ_U(loads(&im, "sm_86", OFL_LOADER_CUDA, 0, "sm_80"), OFL_LOAD_NO);
	to_old_form(&b, 90, &im);
	CHECK_EQ_U(loads(&im, "sm_90a", OFL_LOADER_CUDA, 0, "sm_90"), OFL_LOAD_YES);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "gfx90a"), OFL_LOAD_NO);
	ofl_buf_release(&b);
}

OFL_TEST(ptx)
{
	struct ofl_buf b = ofl_test_fixture("gpu/sm90.ptx");
	CHECK(b.len > 0);
	struct ofl_gpu_image im;
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK_EQ_U(im.code, OFL_GPU_PTX);
	CHECK_EQ_U(im.sm, 90);
	CHECK(!im.suffix);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_90"), OFL_LOAD_JIT);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_100"), OFL_LOAD_JIT);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_89"), OFL_LOAD_NO);
	CHECK_EQ_U(loads(&im, "sm_90a", OFL_LOADER_CUDA, 0, "sm_100"), OFL_LOAD_NO);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 22, "sm_90"), OFL_LOAD_NO);
	ofl_buf_release(&b);
}

/* .target's suffix when the entry names none: "a" PTX for its SM alone,
 * "f" PTX for the later SMs of its major */
OFL_TEST(ptx_suffixes)
{
	struct ofl_gpu_image im;
	static const char a[] = ".version 8.8\n.target sm_90a\n";
	ofl_gpu_image_read((const uint8_t *)a, sizeof a - 1, &im);
	CHECK_EQ_U(im.code, OFL_GPU_PTX);
	CHECK_EQ_U(im.suffix, 'a');
	CHECK_EQ_U(loads(&im, NULL, OFL_LOADER_CUDA, 0, "sm_90"), OFL_LOAD_JIT);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_CUDA, 0, "sm_100"), OFL_LOAD_NO);
	static const char f[] = ".version 8.8\n.target sm_100f\n";
	ofl_gpu_image_read((const uint8_t *)f, sizeof f - 1, &im);
	CHECK_EQ_U(im.suffix, 'f');
	CHECK_EQ_U(loads(&im, "sm_100", OFL_LOADER_CUDA, 0, "sm_103"), OFL_LOAD_JIT);
	CHECK_EQ_U(loads(&im, "sm_100", OFL_LOADER_CUDA, 0, "sm_120"), OFL_LOAD_NO);
	CHECK_EQ_U(loads(&im, "sm_100", OFL_LOADER_CUDA, 0, "sm_90"), OFL_LOAD_NO);
}

OFL_TEST(amdgpu_target_ids)
{
	uint8_t elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40, 3};
	elf[18] = 224; /* EM_AMDGPU */
	struct ofl_gpu_image im;
	ofl_gpu_image_read(elf, sizeof elf, &im);
	CHECK_EQ_U(im.code, OFL_GPU_AMDGPU);
	static const struct {
		const char *image, *gpu;
		enum ofl_load want;
	} rows[] = {
	    {"gfx90a", "gfx90a:sramecc+:xnack-", OFL_LOAD_YES},
	    {"gfx90a:xnack+", "gfx90a:sramecc+:xnack+", OFL_LOAD_YES},
	    {"gfx90a:xnack+", "gfx90a:sramecc+:xnack-", OFL_LOAD_NO},
	    {"gfx90a:xnack-", "gfx90a", OFL_LOAD_NO}, /* the GPU must say xnack- */
	    {"gfx90a:sramecc-:xnack+", "gfx90a:sramecc+:xnack+", OFL_LOAD_NO},
	    {"gfx942", "gfx90a:sramecc+:xnack-", OFL_LOAD_NO},
	    {"gfx9-generic", "gfx900:xnack-", OFL_LOAD_NO},
	    {"gfx9-4-generic", "gfx942:sramecc+:xnack-", OFL_LOAD_NO},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char why[256];
		enum ofl_load r = ofl_image_loads(&im, rows[i].image, OFL_LOADER_LLVM, 19,
		                                  rows[i].gpu, why, sizeof why);
		if (r != rows[i].want)
			fprintf(stderr, "%s on %s: %d (%s)\n", rows[i].image, rows[i].gpu, r, why);
		CHECK_EQ_U(r, rows[i].want);
	}
	char why[256];
	ofl_image_loads(&im, "gfx9-generic", OFL_LOADER_LLVM, 19, "gfx900", why, sizeof why);
	CHECK(strstr(why, "no generic target"));
}

OFL_TEST(other_bytes)
{
	static const uint8_t bc[] = {'B', 'C', 0xc0, 0xde, 1, 2};
	struct ofl_gpu_image im;
	ofl_gpu_image_read(bc, sizeof bc, &im);
	CHECK_EQ_U(im.code, OFL_GPU_BITCODE);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 19, "sm_90"), OFL_LOAD_JIT);
	CHECK_EQ_U(loads(&im, "sm_90", OFL_LOADER_LLVM, 19, "sm_80"), OFL_LOAD_NO);
	/* too short to be an ELF header; a PTX without .version; nothing */
	static const uint8_t shortelf[20] = {0x7f, 'E', 'L', 'F', 2, 1};
	ofl_gpu_image_read(shortelf, sizeof shortelf, &im);
	CHECK_EQ_U(im.code, OFL_GPU_OTHER);
	static const char ptx[] = ".target sm_90\n.version 8.8\n";
	ofl_gpu_image_read((const uint8_t *)ptx, sizeof ptx - 1, &im);
	CHECK_EQ_U(im.code, OFL_GPU_OTHER);
	ofl_gpu_image_read(NULL, 0, &im);
	CHECK_EQ_U(im.code, OFL_GPU_OTHER);
	/* a section table past the end gives no toolkit, and no fault */
	struct ofl_buf b = ofl_test_fixture("gpu/sm90-cuda13.cubin");
	CHECK(b.len > 64);
	b.data[0x28] = 0xff;
	b.data[0x2f] = 0x7f;
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK_EQ_U(im.sm, 90);
	CHECK(!*im.toolkit);
	ofl_buf_release(&b);
	unsigned sm;
	char a;
	CHECK(ofl_sm_parse("sm_90a", &sm, &a) && sm == 90 && a == 'a');
	CHECK(ofl_sm_parse("compute_100f", &sm, &a) && sm == 100 && a == 'f');
	CHECK(ofl_sm_parse("sm_90", &sm, &a) && sm == 90 && !a);
	CHECK(!ofl_sm_parse("sm_", &sm, &a) && !ofl_sm_parse("sm_9x", &sm, &a) &&
	      !ofl_sm_parse("gfx90a", &sm, &a) && !ofl_sm_parse("sm_0", &sm, &a));
}

/* Which LLVM releases' offload runtime read which header: the old form
 * all, the new one 22 and later; 20 and 21 (21.0 builds, 21.1 before the
 * backport, whose first point release is not known) do not. */
OFL_TEST(runtime_releases_read_headers)
{
	struct ofl_buf b = ofl_test_fixture("gpu/sm90-cuda13.cubin");
	CHECK(b.len > 64);
	struct ofl_gpu_image im;
	ofl_gpu_image_read(b.data, b.len, &im);
	static const struct {
		unsigned release;
		bool reads;
	} rows[] = {{14, false}, {19, false}, {20, false}, {21, false}, {22, true}, {23, true}};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		CHECK_EQ_U(ofl_llvm_reads_cubin(&im, rows[i].release), rows[i].reads);
	to_old_form(&b, 90, &im);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		CHECK(ofl_llvm_reads_cubin(&im, rows[i].release));
	b.data[8] = 9; /* a form no release reads */
	ofl_gpu_image_read(b.data, b.len, &im);
	CHECK(!ofl_llvm_reads_cubin(&im, 22));
	ofl_buf_release(&b);
}
