/* Targets and LLVM releases (target.h). */
#include "target.h"

#include <stdio.h>
#include <string.h>

#include "offlink/offload_binary.h"
#include "offlink/target_id.h"

enum ofl_family ofl_family(const char *triple)
{
	static const char *const cpus[] = {"x86_64-",  "aarch64-", "powerpc64le-", "powerpc64-",
	                                   "ppc64le-", "ppc64-",   "s390x-",       "i386-",
	                                   "i686-",    "riscv64-", "loongarch64-"};
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (!strncmp(triple, cpus[i], strlen(cpus[i])))
			return OFL_FAM_CPU;
	/* amdgpu[<subarch>]: LLVM main's spelling; one it does not know is no
	 * target anything links */
	if (!strncmp(triple, "amdgcn-", 7) ||
	    (!strncmp(triple, "amdgpu", 6) && !ofl_amdgpu_subarch_unknown(triple)))
		return OFL_FAM_AMDGPU;
	if (!strncmp(triple, "nvptx64-", 8) || !strncmp(triple, "nvptx-", 6))
		return OFL_FAM_NVPTX;
	if (!strncmp(triple, "spirv", 5))
		return OFL_FAM_SPIRV;
	return OFL_FAM_UNKNOWN;
}

bool ofl_target_gpu(const char *triple)
{
	enum ofl_family f = ofl_family(triple);
	return f == OFL_FAM_AMDGPU || f == OFL_FAM_NVPTX;
}

bool ofl_target_nvptx(const char *triple)
{
	return ofl_family(triple) == OFL_FAM_NVPTX;
}

bool ofl_arch_given(const char *arch)
{
	return *arch && strcmp(arch, "generic") && strcmp(arch, "native");
}

bool ofl_llvm_old_wrapper(unsigned llvm)
{
	return llvm && llvm <= 19;
}

const char *ofl_scoped_arg(const char *arg, const char *triple, bool compatible)
{
	const char *eq = strchr(arg, '=');
	if (!eq || arg[0] == '-' || !memchr(arg, '-', (size_t)(eq - arg)))
		return arg;
	size_t n = (size_t)(eq - arg);
	char scope[256];
	if (compatible && n < sizeof(scope)) {
		memcpy(scope, arg, n);
		scope[n] = '\0';
		return ofl_triple_compatible(scope, triple, OFL_LLVM23) ? eq + 1 : NULL;
	}
	return strncmp(arg, triple, n) || triple[n] ? NULL : eq + 1;
}

void ofl_target_cpu(const char *triple, const char *arch, char *out, size_t size)
{
	if (ofl_arch_given(arch) || ofl_family(triple) != OFL_FAM_AMDGPU)
		snprintf(out, size, "%s", ofl_arch_given(arch) ? arch : "");
	else
		ofl_amdgpu_subarch_processor(triple, out, size);
}

/* The first release whose clang takes LLVM main's amdgpu triples and
 * derives the processor from one (llvm-project#206482, #211467). */
#define AMDGPU_TRIPLES_FIRST_RELEASE 24

void ofl_target_for_clang(const char *triple, unsigned clang_llvm, char *out, size_t size)
{
	bool respell = !strncmp(triple, "amdgpu", 6) && clang_llvm < AMDGPU_TRIPLES_FIRST_RELEASE;
	const char *rest = strchr(triple, '-');
	if (respell && rest)
		snprintf(out, size, "amdgcn%s", rest);
	else
		snprintf(out, size, "%s", triple);
}

enum ofl_wrap_kind ofl_wrap_kind_of(uint16_t offload_kind)
{
	return offload_kind == OFL_OFK_CUDA                                   ? OFL_WRAP_CUDA
	       : offload_kind == OFL_OFK_HIP || offload_kind == OFL_OFK_HIP19 ? OFL_WRAP_HIP
	       : offload_kind == OFL_OFK_SYCL                                 ? OFL_WRAP_SYCL
	                                                                      : OFL_WRAP_OPENMP;
}
