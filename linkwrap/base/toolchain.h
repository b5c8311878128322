/* Where the tools of a link are (toolchain.c): LLVM installations and the
 * clang of a release, the tools beside a clang, its libraries, the OpenMP
 * runtime of a release, the CUDA toolkit clang's driver would use.  One
 * lookup for every part of the pipeline; no process is run. */
#ifndef OFL_TOOLCHAIN_H
#define OFL_TOOLCHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "offlink/error.h"

/* Where a link looks for tools. */
struct ofl_toolchain {
	const char *const *roots; /* <root>/llvm-<N>/bin/clang; NULL entries skipped */
	size_t nroots;
	const char *device_compiler; /* --device-compiler, or NULL */
	const char *search_path;     /* $PATH, or NULL */
};

/* The highest N of <root>/llvm-<N>, 0 when none. */
unsigned ofl_llvm_newest(const char *root);

/* The clang that links device code of release llvm (0: unknown): the
 * device compiler given; that release's; the newest installed; clang on
 * the search path.  A bare name is looked up on the search path.  Owned;
 * NULL when there is none. */
char *ofl_toolchain_clang(const struct ofl_toolchain *t, unsigned llvm);

/* tool in the real directory of program prog (clang runs the programs of
 * its real directory: Debian's /usr/bin/clang-22 those of
 * /usr/lib/llvm-22/bin), when an executable file is there.  Owned or
 * NULL. */
char *ofl_toolchain_beside(const char *prog, const char *tool);

/* A tool of the LLVM that links release llvm (beside its clang); NULL
 * when there is none. */
char *ofl_toolchain_llvm_tool(const struct ofl_toolchain *t, unsigned llvm, const char *tool);

/* <llvm>/lib of a clang given by path: the directory above the one it is
 * in (clang's InstalledDir/../lib).  Owned or NULL. */
char *ofl_toolchain_lib_dir(const char *clang);

/* <root>/llvm-<llvm>/lib when libomptarget.so is there.  Owned or NULL. */
char *ofl_toolchain_runtime_dir(const struct ofl_toolchain *t, unsigned llvm);

/* The linker a CPU device link asks clang for (-fuse-ld=X): lld when
 * clang has one beside it (a bfd link of an OpenMP image spends ~0.5 s in
 * libLLVM's symbol table, lld milliseconds), else gold when installed,
 * else NULL (clang's default). */
const char *ofl_toolchain_cpu_linker(const char *clang, const char *search_path);

/* The CUDA toolkit clang's driver would use (19 and 22 alike): given; the
 * directory above the bin/ of the ptxas on the search path (real path);
 * /usr/local/cuda, -8.0, -7.5, -7.0, /usr/lib/cuda; the first with bin/,
 * include/ and a libdevice in nvvm/libdevice/.  One found is named by its
 * real path, whichever way it was found (the device links' words and the
 * files their keys name: PATH never changes a key).  Into out ("" when
 * none); OFL_EINVAL when the path does not fit. */
int ofl_toolchain_cuda(const char *given, const char *search_path, char *out, size_t n,
                       struct ofl_error *err);
/* The fixed places clang's driver looks in for a CUDA toolkit, in its
 * order, NULL-terminated. */
const char *const *ofl_cuda_candidates(void);

#endif
