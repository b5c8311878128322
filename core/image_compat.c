/* Will a GPU image load: what loaders read in an image and the rules they
 * apply (offlink/image_compat.h; sources in docs/gpu-check.md). */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "offlink/bitcode.h"
#include "offlink/image_compat.h"
#include "offlink/target_id.h"

#define EM_CUDA 190
#define EM_AMDGPU 224
#define EF_CUDA_64BIT_ADDRESS 0x400

/* "90", "90a", "100f": digits, then an optional variant letter. */
static bool sm_digits(const char *s, size_t n, unsigned *sm, char *suffix)
{
	unsigned v = 0;
	size_t i = 0;
	for (; i < n && i < 4 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	if (!i || v == 0)
		return false;
	char x = i < n && (s[i] == 'a' || s[i] == 'f') ? s[i] : '\0';
	if (x)
		i++;
	if (i != n)
		return false;
	*sm = v;
	*suffix = x;
	return true;
}

bool ofl_sm_parse(const char *s, unsigned *sm, char *suffix)
{
	size_t skip = !strncmp(s, "sm_", 3) ? 3 : !strncmp(s, "compute_", 8) ? 8 : 0;
	return skip && sm_digits(s + skip, strlen(s + skip), sm, suffix);
}

/* The toolkit release ptxas or nvlink recorded in .note.nv.tkinfo
 * ("Cuda compilation tools, release 13.0, ..."). */
static void cubin_toolkit(const uint8_t *d, size_t size, char *out, size_t outlen)
{
	struct ofl_elf64_shtab t;
	if (!ofl_elf64_shtab(d, size, &t))
		return;
	static const char name[] = ".note.nv.tkinfo";
	for (unsigned i = 0; i < t.n; i++) {
		const uint8_t *sh = t.sh + (uint64_t)i * t.entsize;
		uint32_t nm = ofl_le32(sh);
		uint64_t off = ofl_le64(sh + 0x18), len = ofl_le64(sh + 0x20);
		if (nm >= t.strsize || t.strsize - nm < sizeof(name) ||
		    memcmp(t.strs + nm, name, sizeof(name)) || !ofl_range_ok(off, len, size))
			continue;
		const uint8_t *r = memmem(d + off, (size_t)len, "release ", 8);
		if (!r)
			return;
		r += 8;
		size_t k = 0, left = (size_t)(d + off + len - r);
		while (k < left && k + 1 < outlen && ((r[k] >= '0' && r[k] <= '9') || r[k] == '.'))
			k++;
		memcpy(out, r, k);
		out[k] = '\0';
		return;
	}
}

static void read_cubin(const uint8_t *d, size_t size, struct ofl_gpu_image *im)
{
	im->code = OFL_GPU_CUBIN;
	im->osabi = d[7];
	im->abi_version = d[8];
	uint32_t flags = ofl_le32(d + 0x30);
	if (im->abi_version == OFL_CUBIN_ABI_OLD) {
		im->sm = flags & 0xff;
		im->addr64 = (flags & EF_CUDA_64BIT_ADDRESS) != 0;
	} else if (im->abi_version == OFL_CUBIN_ABI_NEW) {
		im->sm = (flags >> 8) & 0xff;
		im->addr64 = true;
	}
	cubin_toolkit(d, size, im->toolkit, sizeof(im->toolkit));
}

/* PTX: its ".target sm_NN[a]" line (the first one). */
static void read_ptx(const uint8_t *d, size_t size, struct ofl_gpu_image *im)
{
	const uint8_t *t = memmem(d, size, ".target", 7);
	if (!t || !memmem(d, (size_t)(t - d), ".version", 8))
		return;
	im->code = OFL_GPU_PTX;
	const uint8_t *end = d + size, *p = t + 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const uint8_t *w = p;
	while (w < end && ((*w >= '0' && *w <= '9') || (*w >= 'a' && *w <= 'z') || *w == '_'))
		w++;
	char tok[16];
	size_t n = (size_t)(w - p);
	if (n >= sizeof(tok))
		return;
	memcpy(tok, p, n);
	tok[n] = '\0';
	if (!ofl_sm_parse(tok, &im->sm, &im->suffix))
		im->sm = 0;
}

void ofl_gpu_image_read(const uint8_t *d, size_t size, struct ofl_gpu_image *im)
{
	memset(im, 0, sizeof(*im));
	if (!size)
		return; /* no bytes: no code (and d may be NULL) */
	if (ofl_bitcode_is(d, size)) {
		im->code = OFL_GPU_BITCODE;
		return;
	}
	/* ELF64, little endian: cubins and AMDGPU code objects are no other */
	if (size >= 64 && !memcmp(d, "\177ELF", 4) && d[4] == 2 && d[5] == 1) {
		uint16_t machine = ofl_le16(d + 18);
		if (machine == EM_CUDA)
			read_cubin(d, size, im);
		else if (machine == EM_AMDGPU)
			im->code = OFL_GPU_AMDGPU;
		return;
	}
	read_ptx(d, size, im);
}

/* The new form is read from LLVM 22 (llvm-project#159354) and by the 21.1
 * point releases that carry its backport (#159451, September 2025); which
 * 21.1.x was the first is not known here, and a 21 build before it (21.0
 * development builds, 21.1.0) does not read it, so 21 counts as not
 * reading it: a warning too many for a fixed 21.1 rather than a program
 * that stops at its first target region without one. */
#define NEW_FORM_FIRST_RELEASE 22

unsigned ofl_cubin_first_runtime(const struct ofl_gpu_image *im)
{
	return im->abi_version == OFL_CUBIN_ABI_OLD   ? 1
	       : im->abi_version == OFL_CUBIN_ABI_NEW ? NEW_FORM_FIRST_RELEASE
	                                              : 0;
}

bool ofl_llvm_reads_cubin(const struct ofl_gpu_image *im, unsigned release)
{
	unsigned first = ofl_cubin_first_runtime(im);
	return first && release >= first;
}

/* NVIDIA's rule for a cubin, which LLVM's plugin applies too: same major,
 * the GPU's minor at least the image's; arch-specific code its own SM. */
static bool sm_runs(unsigned image, char suffix, unsigned gpu)
{
	if (suffix == 'a')
		return image == gpu;
	return image / 10 == gpu / 10 && gpu % 10 >= image % 10;
}

#define WHY(...) snprintf(why, whylen, __VA_ARGS__)

/* PTX is compiled for its SM and later ones; "a" PTX for its SM only, "f"
 * PTX for the later ones of its major. */
static bool ptx_runs(unsigned image, char suffix, unsigned gpu)
{
	return suffix == 'a'   ? image == gpu
	       : suffix == 'f' ? image / 10 == gpu / 10 && gpu >= image
	                       : gpu >= image;
}

static const char *suffix_str(char suffix)
{
	return suffix == 'a' ? "a" : suffix == 'f' ? "f" : "";
}

static enum ofl_load nvidia(const struct ofl_gpu_image *im, char suffix, enum ofl_loader ld,
                            unsigned release, const char *gpu, char *why, size_t whylen)
{
	unsigned g;
	char gs;
	if (!ofl_sm_parse(gpu, &g, &gs))
		return WHY("GPU '%s' is no NVIDIA SM", gpu), OFL_LOAD_NO;
	if (!im->sm)
		return WHY("the image names no SM"), OFL_LOAD_NO;
	if (im->code == OFL_GPU_PTX) {
		if (ld == OFL_LOADER_LLVM)
			return WHY("LLVM's offload runtime loads no PTX"), OFL_LOAD_NO;
		if (!ptx_runs(im->sm, suffix, g))
			return WHY("PTX for sm_%u%s is not compiled for sm_%u", im->sm,
			           suffix_str(suffix), g),
			       OFL_LOAD_NO;
		return WHY("the driver compiles PTX for sm_%u", im->sm), OFL_LOAD_JIT;
	}
	if (ld == OFL_LOADER_LLVM) {
		unsigned first = ofl_cubin_first_runtime(im);
		if (!ofl_llvm_reads_cubin(im, release))
			return WHY("LLVM %u's offload runtime does not read the %s cubin header "
			           "(EI_OSABI %#x, ABI version %u%s%s)%s",
			           release, first ? "new" : "unknown", im->osabi, im->abi_version,
			           *im->toolkit ? ", CUDA " : "", im->toolkit,
			           first
			               ? "; LLVM 22 and later do, and 21.1 from the point release "
			                 "with llvm-project#159451"
			               : ""),
			       OFL_LOAD_NO;
		if (!im->addr64)
			return WHY("32-bit cubin: the runtime wants 64-bit addressing"),
			       OFL_LOAD_NO;
		/* before llvm-project#142399 (LLVM 21) it took sm_35 to sm_90 */
		if (im->sm < 35 || (release <= 20 && im->sm > 90))
			return WHY("LLVM %u's offload runtime takes no sm_%u cubin", release,
			           im->sm),
			       OFL_LOAD_NO;
	}
	if (!sm_runs(im->sm, suffix, g))
		return WHY("a cubin for sm_%u%s does not run on sm_%u", im->sm, suffix_str(suffix),
		           g),
		       OFL_LOAD_NO;
	return WHY("cubin for sm_%u%s", im->sm, suffix_str(suffix)), OFL_LOAD_YES;
}

static const struct ofl_target_feature *feature(const struct ofl_target_id *t, const char *name)
{
	for (size_t i = 0; i < t->nfeatures; i++)
		if (!strcmp(t->features[i].name, name))
			return &t->features[i];
	return NULL;
}

/* LLVM's runtime: the same processor (a generic target is not the GPU's),
 * and each feature the image sets set the same way on the GPU. */
static enum ofl_load amdgpu(const char *arch, const char *gpu, char *why, size_t whylen)
{
	struct ofl_target_id a = OFL_TARGET_ID_INIT, g = OFL_TARGET_ID_INIT;
	enum ofl_load r = OFL_LOAD_NO;
	if (!arch || ofl_target_id_parse(arch, &a, NULL))
		WHY("the image names no target ID");
	else if (ofl_target_id_parse(gpu, &g, NULL))
		WHY("GPU '%s' is no target ID", gpu);
	else if (strcmp(a.processor, g.processor))
		WHY("%s image, %s GPU%s", a.processor, g.processor,
		    strstr(a.processor, "generic") ? " (LLVM's runtime loads no generic target)"
		                                   : "");
	else
		r = OFL_LOAD_YES;
	for (size_t i = 0; r == OFL_LOAD_YES && i < a.nfeatures; i++) {
		const struct ofl_target_feature *f = feature(&g, a.features[i].name);
		if (!f || f->sign != a.features[i].sign) {
			WHY("the image needs %s%c, the GPU %s%s", a.features[i].name,
			    a.features[i].sign, f ? "has the other" : "names no ",
			    f ? "" : a.features[i].name);
			r = OFL_LOAD_NO;
		}
	}
	if (r == OFL_LOAD_YES)
		WHY("%s", arch);
	ofl_target_id_release(&a);
	ofl_target_id_release(&g);
	return r;
}

enum ofl_load ofl_image_loads(const struct ofl_gpu_image *im, const char *arch, enum ofl_loader ld,
                              unsigned release, const char *gpu, char *why, size_t whylen)
{
	unsigned sm;
	/* from the image's arch (cubin headers do not say), else PTX's .target */
	char suffix = '\0';
	if (!arch || !ofl_sm_parse(arch, &sm, &suffix) || !suffix)
		suffix = im->suffix;
	switch (im->code) {
	case OFL_GPU_CUBIN:
	case OFL_GPU_PTX:
		return nvidia(im, suffix, ld, release, gpu, why, whylen);
	case OFL_GPU_AMDGPU:
		return amdgpu(arch, gpu, why, whylen);
	case OFL_GPU_BITCODE:
		/* for NVIDIA its JIT runs ptxas (plugins-nextgen/cuda, doJITPostProcessing) */
		if (ld == OFL_LOADER_LLVM && arch && !strcmp(arch, gpu))
			return WHY("LLVM's runtime compiles bitcode for %s%s", arch,
			           ofl_sm_parse(arch, &sm, &suffix) ? " (with ptxas, on PATH)"
			                                            : ""),
			       OFL_LOAD_JIT;
		return WHY("bitcode for %s", arch ? arch : "no target"), OFL_LOAD_NO;
	default:
		return WHY("no GPU code"), OFL_LOAD_NO;
	}
}
