/* The wrapper object: device images in, a host relocatable ELF object out
 * whose constructor registers the images with the offload runtime before
 * main and unregisters them at exit (docs/abi.md).
 *
 * The object is written directly with libelf; its constructor and destructor
 * are a few fixed, hand-assembled instruction sequences with relocations, so
 * no compiler or assembler runs.  The same inputs always give the same bytes.
 * docs/abi.md lists what each flavour writes.
 */
#ifndef OFFLINK_WRAPPER_OBJ_H
#define OFFLINK_WRAPPER_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/error.h"
#include "offlink/io.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

enum ofl_wrap_kind {
	OFL_WRAP_OPENMP,
	OFL_WRAP_CUDA,
	OFL_WRAP_HIP,
	/* LLVM 23's: one OffloadBinary, embedded whole in .llvm.offloading,
	 * __sycl_register_lib(start, size) at constructor priority 1 and
	 * __sycl_unregister_lib(start, size) at destructor priority 1. */
	OFL_WRAP_SYCL,
};

/* Registration ABI.  LLVM20 is the one clang 20-22 and libomptarget 22 use. */
enum ofl_wrap_abi {
	OFL_WRAP_LLVM14, /* old driver: 32-byte entries, prio 1, .fini_array.1 */
	OFL_WRAP_AMD,    /* LLVM14 + __tgt_image_info and .offload_arch_list */
	OFL_WRAP_LLVM19, /* per-language entry sections, prio 101 + atexit */
	OFL_WRAP_LLVM20, /* llvm_offload_entries, 56-byte entries */
};

enum ofl_wrap_machine {
	OFL_WRAP_X86_64,
	OFL_WRAP_AARCH64,
	OFL_WRAP_X86_64_COFF,  /* Windows x64, MSVC: a COFF object (OpenMP only) */
	OFL_WRAP_X86_64_MINGW, /* Windows x64, MinGW or Cygwin: the same, with
	                        * .ctors and -exclude-symbols directives */
};

/* One image to embed.  The bytes are borrowed (not copied) until the write
 * returns.  ImageStart/ImageEnd point at data + start and data + end: for an
 * OffloadBinary the range of its inner image, for a raw image 0 and size. */
struct ofl_wrap_image {
	const uint8_t *data;
	uint64_t size;
	uint64_t start;
	uint64_t end;
	const char *arch; /* target ID, for the AMD flavour's arch list; NULL = "" */
	/* Optional: the mapped file data lies in; its bytes are then copied
	 * file to file (copy_file_range) instead of through memory. */
	const struct ofl_file *file;
};

struct ofl_wrap_opts {
	enum ofl_wrap_kind kind;
	enum ofl_wrap_abi abi;
	enum ofl_wrap_machine machine;
	/* Images go to .llvm.offloading.relocatable (clang-linker-wrapper -r). */
	bool relocatable;
	/* SYCL: LLVM 22's registration (#147508) instead of 23's: a
	 * __sycl.tgt_bin_desc describing every image of the OffloadBinaries
	 * clang-sycl-linker wrote (one input, the binaries back to back), each
	 * with the entries of its kernels, __sycl_register_lib(&desc) at
	 * constructor priority 1 and __sycl_unregister_lib(&desc) at
	 * destructor priority 1; the object only (not IR, bitcode, C nor
	 * COFF). */
	bool sycl_desc;
};

/* Checks the combination: CUDA and HIP exist only for LLVM19/LLVM20 and
 * take exactly one image (the fat binary); SYCL only for LLVM20 (LLVM 23's
 * registration, or 22's with sycl_desc), one image (the OffloadBinary),
 * not relocatable; OpenMP takes at least one. */
int ofl_wrap_check(const struct ofl_wrap_opts *o, size_t nimages, struct ofl_error *err);

/* Machine for a host triple ("x86_64-pc-linux-gnu", "aarch64-linux-gnu",
 * "x86_64-pc-windows-msvc", "x86_64-w64-windows-gnu").  A COFF host
 * (ofl_triple_is_coff) of another environment (Itanium, UEFI) is
 * OFL_EUNSUPPORTED. */
int ofl_wrap_machine_from_triple(const char *triple, enum ofl_wrap_machine *m,
                                 struct ofl_error *err);

/* Whether m's objects are COFF (Windows hosts). */
bool ofl_wrap_machine_coff(enum ofl_wrap_machine m);

/* Every ELF object ofl_wrap_write_fd writes carries a .comment string
 * "offlink <version>" (LLVM's wrapper objects have no .comment; a linker
 * keeps it as any compiler's): how a link tells offlink's registration of
 * device code from LLVM's.  This is its start. */
#define OFL_WRAP_COMMENT "offlink "

/* Writes the object to fd, which must be an empty regular file opened for
 * writing. */
int ofl_wrap_write_fd(int fd, const struct ofl_wrap_opts *o, const struct ofl_wrap_image *imgs,
                      size_t nimages, struct ofl_error *err);

/* Same, appended to out. */
int ofl_wrap_write_buf(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                       const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err);

/* LLVM IR text equivalent to the module clang's wrapper builds, for
 * triple, appended to out. */
int ofl_wrap_emit_ll(struct ofl_buf *out, const struct ofl_wrap_opts *o, const char *triple,
                     const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err);

/* The same module as LLVM bitcode (what llvm-offload-wrapper writes), which
 * LLVM 19 and later read, written to out (ofl_out_open; the caller commits
 * or aborts).  Images are copied from their files as ofl_out_copy does, so
 * memory does not grow with their size. */
int ofl_wrap_emit_bc(struct ofl_out *out, const struct ofl_wrap_opts *o, const char *triple,
                     const struct ofl_wrap_image *imgs, size_t nimages, struct ofl_error *err);

/* C source for the same object, for hosts ofl_wrap_write_fd does not know
 * (any GNU C compiler, any ELF target): image i is included from paths[i]
 * by the assembler (.incbin), so the paths must stay valid until it is
 * compiled, and may not hold quotes, backslashes or control characters. */
int ofl_wrap_emit_c(struct ofl_buf *out, const struct ofl_wrap_opts *o,
                    const struct ofl_wrap_image *imgs, const char *const *paths, size_t nimages,
                    struct ofl_error *err);

/* What a host object's offload entry tables ask for: bit (1 << kind) of
 * kinds and bit (1 << abi) of abis for every table found.  Entry sections
 * name the ABI (llvm_offload_entries: LLVM20; omp_/cuda_/hip_offloading_
 * entries: LLVM19, or LLVM14 when the entries are named
 * .omp_offloading.entry.*); the 56-byte entries carry their kind. */
struct ofl_wrap_needs {
	unsigned kinds;
	unsigned abis;
};

/* Reads an ELF64 little-endian relocatable object (other files add
 * nothing); offsets in errors are relative to data. */
int ofl_wrap_needs_of_object(const uint8_t *data, size_t size, struct ofl_wrap_needs *needs,
                             struct ofl_error *err);

/* Old-driver HIP -fgpu-rdc (hip_gpubin.c): an object defining the
 * __hip_fatbin_<cuid> (all at fatbin, in .hip_fatbin) and
 * __hip_gpubin_handle_<cuid> (all at one handle) symbols those host objects
 * leave undefined, as the object clang's driver assembles: the first of the
 * cuids (sorted by the caller) defines them, the others are aliases.  fd as
 * for ofl_wrap_write_fd.  ELF hosts only: a COFF machine is
 * OFL_EUNSUPPORTED. */
int ofl_hip_gpubin_write_fd(int fd, enum ofl_wrap_machine m, const uint8_t *fatbin, size_t size,
                            const char *const *cuids, size_t n, struct ofl_error *err);

/* Names the flavour writes (for tools and docs). */
const char *ofl_wrap_entries_section(const struct ofl_wrap_opts *o);

OFL_API_END
#ifdef __cplusplus
}
#endif
#endif
