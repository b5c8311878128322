/* Producing the fat binaries CUDA and HIP programs register (docs/abi.md,
 * "Fat binaries for CUDA and HIP"), from linked device images:
 *  - HIP: a clang-offload-bundler binary bundle, written in memory exactly
 *    as clang-linker-wrapper 19/22 has the bundler write it (-type=o
 *    -bundle-align=4096, an empty host entry, one entry per image in the
 *    order given), optionally compressed (CCOB);
 *  - CUDA: NVIDIA's `fatbinary` run on the images, with the command line
 *    clang-linker-wrapper uses, in the spelling the installed tool takes. */
#ifndef OFFLINK_FATBIN_BUILD_H
#define OFFLINK_FATBIN_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "offlink/api.h"
#include "offlink/buf.h"
#include "offlink/ccob.h"
#include "offlink/error.h"
#include "offlink/proc.h"
#include "offlink/target_id.h"

#ifdef __cplusplus
extern "C" {
#endif
OFL_API_BEGIN

/* One linked device image.  HIP reads data[0..size); CUDA hands `path` to
 * fatbinary, or writes data to a temporary file when path is NULL. */
struct ofl_fatbin_image {
	const uint8_t *data;
	uint64_t size;
	const char *path;
	const char *arch; /* target ID ("gfx90a:xnack+") or "sm_90" */
};

/* ---- HIP ---- */

#define OFL_HIPFB_ALIGN 4096

struct ofl_hipfb_options {
	/* 19: host entry "host-x86_64-unknown-linux--", IDs split as 19 does;
	 * 22: "host-x86_64-unknown-linux-gnu-", IDs normalized as 22 does. */
	enum ofl_llvm_dialect dialect;
	bool hipv4; /* "hipv4-" entries, as the old driver's non-RDC bundles */
	bool compress;
	struct ofl_ccob_options ccob; /* with compress */
	/* LLVM 23's wrapper names the host entry after the host triple it was
	 * given ("host-aarch64-unknown-linux-gnu"), 19 and 22 x86_64 whatever
	 * the host: that triple, or NULL for the fixed text. */
	const char *host_triple;
};

#define OFL_HIPFB_OPTIONS_INIT                                                                     \
	{                                                                                          \
		OFL_LLVM22, false, false, OFL_CCOB_OPTIONS_INIT, NULL                              \
	}

/* The -targets strings the linker wrapper passes for these images, host
 * first (owned array of owned strings, freed with ofl_hipfb_targets_free). */
int ofl_hipfb_targets(const struct ofl_fatbin_image *imgs, size_t n,
                      const struct ofl_hipfb_options *o, char ***targets, struct ofl_error *err);
void ofl_hipfb_targets_free(char **targets, size_t n);

/* Appends the .hipfb to out.  An image without an arch, two images whose
 * entry IDs come out equal, or target IDs the bundler finds conflicting
 * ("gfx90a" with "gfx90a:xnack+") are OFL_EINVAL. */
int ofl_hipfb_build(const struct ofl_fatbin_image *imgs, size_t n,
                    const struct ofl_hipfb_options *o, struct ofl_buf *out, struct ofl_error *err);

/* ---- CUDA ---- */

enum ofl_fatbinary_syntax {
	OFL_FATBINARY_PROBE,  /* ask the tool (`fatbinary --help`) */
	OFL_FATBINARY_IMAGE3, /* --image3=kind=elf|ptx,sm=NN,file=F (clang 22) */
	OFL_FATBINARY_IMAGE,  /* --image=profile=sm_NN|compute_NN,file=F (clang 19) */
};

/* Front ends fill cuda_path and search_path from the environment
 * ($CUDA_PATH, $PATH): the library reads none. */
struct ofl_cuda_fatbin_options {
	const char *fatbinary; /* the tool; NULL: ofl_fatbinary_find(cuda_path) */
	const char *cuda_path; /* NULL: /usr/local/cuda; "": PATH alone */
	bool m32;              /* -32 (32-bit host) instead of -64 */
	enum ofl_fatbinary_syntax syntax;
	/* Where the temporaries go (removed before the call returns): a
	 * directory of the caller's, whose cleanup covers them when the
	 * process is killed (a link's own directory, or the output's, as
	 * ofl_out_open's temporary); NULL: the current directory. */
	const char *dir;
	const char *search_path; /* $PATH, searched for fatbinary after cuda_path */
	int *running;            /* fatbinary's ofl_proc.running and .stop */
	const int *stop;
	/* Told the command before it runs (a front end's --verbose); NULL:
	 * nobody. */
	void (*log)(void *ctx, const struct ofl_proc *cmd);
	void *log_ctx;
};

#define OFL_CUDA_FATBIN_OPTIONS_INIT                                                               \
	{                                                                                          \
		NULL, NULL, false, OFL_FATBINARY_PROBE, NULL, NULL, NULL, NULL, NULL, NULL         \
	}

/* fatbinary in <cuda_path>/bin (/usr/local/cuda when NULL, none when ""),
 * then along search_path (ofl_proc_find).  *path is owned by the caller.  None:
 * OFL_ENOTFOUND. */
int ofl_fatbinary_find(const char *cuda_path, const char *search_path, char **path,
                       struct ofl_error *err);

/* Runs `<tool> --help` and picks --image3 when the help names it. */
int ofl_fatbinary_probe(const char *tool, enum ofl_fatbinary_syntax *syntax, struct ofl_error *err);

/* The order clang-linker-wrapper bundles images in: arch strings
 * descending, bytewise (so sm_90 before sm_80 before sm_100); equal archs
 * keep their order.  Fills order[0..n) with image indices. */
void ofl_fatbin_image_order(const struct ofl_fatbin_image *imgs, size_t n, size_t *order);

/* The fatbinary command line (tool first) for images already in order:
 * `-64 --create <output> --image3=...` per image.  Images need a path
 * and an "sm_NN" arch; kind ptx when the bytes are not ELF. */
int ofl_cuda_fatbin_argv(const struct ofl_fatbin_image *imgs, size_t n, const char *tool,
                         const struct ofl_cuda_fatbin_options *o, const char *output,
                         struct ofl_proc *cmd, struct ofl_error *err);

/* Sorts the images as above, runs fatbinary into a temporary file, checks
 * the result with ofl_fatbin_parse and appends it to out. */
int ofl_cuda_fatbin_build(const struct ofl_fatbin_image *imgs, size_t n,
                          const struct ofl_cuda_fatbin_options *o, struct ofl_buf *out,
                          struct ofl_error *err);

OFL_API_END
#ifdef __cplusplus
}
#endif

#endif
