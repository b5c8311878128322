/* Targets and LLVM releases, as the pipeline tells them apart: one place
 * for the target families device links differ by and for the rule that
 * separates the releases whose linker wrapper worked its own way. */
#ifndef OFL_TARGET_H
#define OFL_TARGET_H

#include <stdbool.h>
#include <stddef.h>
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
 * --device-compiler) when it applies to triple, else NULL: its triple is
 * triple (LLVM 22's rule), or with compatible one compatible with it
 * (main's: amdgpu-amd-amdhsa= reaches every AMDGPU link). */
const char *ofl_scoped_arg(const char *arg, const char *triple, bool compatible);

/* The target ID a device link of (triple, arch) compiles for, into out:
 * the arch when it names a processor, else the processor an AMDGPU
 * triple's sub-architecture names (amdgpu9.0a: gfx90a); "" when none. */
void ofl_target_cpu(const char *triple, const char *arch, char *out, size_t size);

/* The triple a device clang of LLVM release clang_llvm (0: unknown) is
 * given for triple, into out: as written, but an amdgpu one in the legacy
 * amdgcn spelling for a clang older than main, which knows no other
 * (amdgpu9.0a-amd-amdhsa: amdgcn-amd-amdhsa, its processor then given by
 * -mcpu). */
void ofl_target_for_clang(const char *triple, unsigned clang_llvm, char *out, size_t size);

/* The wrapper registration an offload kind as stored asks for (HIP: 3
 * until LLVM 19, 4 after). */
enum ofl_wrap_kind ofl_wrap_kind_of(uint16_t offload_kind);

#endif
