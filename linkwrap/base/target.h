/* Targets and LLVM releases, as the pipeline tells them apart: one place
 * for the target families device links differ by and for the rule that
 * separates the releases whose linker wrapper worked its own way. */
#ifndef OFL_TARGET_H
#define OFL_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "offlink/wrapper_obj.h"

enum ofl_family { OFL_FAM_CPU, OFL_FAM_AMDGPU, OFL_FAM_NVPTX, OFL_FAM_SPIRV, OFL_FAM_UNKNOWN };

/* The family of a device triple (x86_64-..., amdgcn-..., nvptx64-...). */
enum ofl_family ofl_family(const char *triple);
/* An AMDGPU or NVPTX triple. */
bool ofl_target_gpu(const char *triple);
bool ofl_target_nvptx(const char *triple);
/* An arch that names a processor (not "", generic or native). */
bool ofl_arch_given(const char *arch);

/* Device code of LLVM release llvm (0: not known) is linked as LLVM 19 and
 * older link it: its wrapper's in-process LTO, per-language entry tables,
 * the old bundler dialect and fatbinary's --image; 20 and later work as
 * 22 does. */
bool ofl_llvm_old_wrapper(unsigned llvm);

/* The value of a "[<triple>=]arg" device argument (--device-linker,
 * --device-compiler) when it applies to triple, else NULL. */
const char *ofl_scoped_arg(const char *arg, const char *triple);

/* The wrapper registration an offload kind as stored asks for (HIP: 3
 * until LLVM 19, 4 after). */
enum ofl_wrap_kind ofl_wrap_kind_of(uint16_t offload_kind);

#endif
