/* Will a GPU image load?  What the loaders look at in an image (a cubin's
 * ELF header, a PTX file's .target, an AMDGPU target ID) and the rules they
 * apply to it, as read in their sources (docs/gpu-check.md):
 *
 * - LLVM's offload runtime (libomptarget, OpenMP images) checks a cubin's
 *   header first (plugins-nextgen/common/src/Utils/ELF.cpp, checkMachine),
 *   then the SM against each GPU: same major, GPU minor >= the image's
 *   (plugins-nextgen/cuda/src/rtl.cpp, isELFCompatible).  It JITs LLVM
 *   bitcode, not PTX.  An AMDGPU image's processor must equal the GPU's
 *   (a generic target never does) and an xnack or sramecc the image sets
 *   must be the GPU's (Frontend/Offloading, isImageCompatibleWithEnv).
 * - The CUDA driver (CUDA fat binaries): a cubin the same way, arch
 *   specific ones (sm_90a) only on their own SM; PTX JIT-compiled for any
 *   GPU of its SM or newer.
 *
 * Cubin headers come in two forms: the old (EI_OSABI 0x33, EI_ABIVERSION 7,
 * the SM in e_flags bits 0-7) and the new one ptxas writes from CUDA 13 for
 * every SM, from 12.8 for sm_100 and newer (EI_OSABI 0x41, EI_ABIVERSION 8,
 * the SM in bits 8-15).  LLVM 19, 20 and 21.0 (and 21.1 before the
 * backport of llvm-project#159354) read only the old one.
 */
#ifndef OFFLINK_IMAGE_COMPAT_H
#define OFFLINK_IMAGE_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_gpu_code {
	OFL_GPU_OTHER,   /* none of the below (host code, unknown bytes) */
	OFL_GPU_CUBIN,   /* NVIDIA ELF (EM_CUDA) */
	OFL_GPU_PTX,     /* PTX text */
	OFL_GPU_AMDGPU,  /* AMDGPU ELF (EM_AMDGPU) */
	OFL_GPU_BITCODE, /* LLVM bitcode (JIT-compiled by LLVM's runtime) */
};

#define OFL_CUBIN_ABI_OLD 7 /* EI_ABIVERSION of the old header form */
#define OFL_CUBIN_ABI_NEW 8 /* and of the new one */

struct ofl_gpu_image {
	enum ofl_gpu_code code;
	unsigned sm; /* cubin, PTX: 90 for sm_90; 0 when unknown */
	/* 'a' (sm_90a, compute_90a): that SM only; 'f' (sm_100f): the later
	 * SMs of its major; else '\0' */
	char suffix;
	/* cubins: */
	uint8_t osabi, abi_version;
	bool addr64;      /* old form: EF_CUDA_64BIT_ADDRESS */
	char toolkit[16]; /* "13.0" from .note.nv.tkinfo; "" when absent */
};

/* Reads what loaders look at in data[0..size).  Never fails: bytes that are
 * none of the known kinds, or a header too short to say, give
 * OFL_GPU_OTHER (or sm 0); work is bounded by size. */
void ofl_gpu_image_read(const uint8_t *data, size_t size, struct ofl_gpu_image *out);

/* The first release of LLVM's offload runtime that reads the cubin's
 * header form: 1 for the old form, 22 for the new (21.1 reads it only from
 * the point release that carries llvm-project#159451, Sept 2025, which is
 * not known here); 0 for a form no release reads. */
unsigned ofl_cubin_first_runtime(const struct ofl_gpu_image *im);
/* Whether LLVM's offload runtime of major release `release` (19, 21, 22)
 * reads the cubin's header: the old form in every release, the new one
 * from the first above (so not in 20, nor in any 21: 21.0 builds and the
 * 21.1 point releases before the backport do not read it). */
bool ofl_llvm_reads_cubin(const struct ofl_gpu_image *im, unsigned release);

enum ofl_loader {
	OFL_LOADER_LLVM, /* LLVM's offload runtime of a given release (OpenMP images) */
	OFL_LOADER_CUDA, /* the CUDA driver (CUDA fat binary entries) */
};

enum ofl_load {
	OFL_LOAD_NO,
	OFL_LOAD_YES,
	OFL_LOAD_JIT, /* yes, compiled for the GPU when the program starts */
};

/* Would loader ld (LLVM's of release `release`) load image im, made for
 * target ID `arch` ("sm_90", "gfx90a:xnack+"; may be NULL for NVIDIA), on
 * the GPU `gpu` ("sm_90", or an AMDGPU target ID as the runtime reports it:
 * "gfx90a:sramecc+:xnack-")?  why gets a short reason, NUL-terminated. */
enum ofl_load ofl_image_loads(const struct ofl_gpu_image *im, const char *arch, enum ofl_loader ld,
                              unsigned release, const char *gpu, char *why, size_t whylen);

/* Reads "sm_90", "sm_90a", "sm_100f", "compute_90": the SM (90) and its
 * suffix ('a', 'f' or '\0').  Returns false when s is none of these. */
bool ofl_sm_parse(const char *s, unsigned *sm, char *suffix);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
