/* Targets and LLVM releases (target.h). */
#include "target.h"

#include <string.h>

#include "offlink/offload_binary.h"

enum ofl_family ofl_family(const char *triple)
{
	static const char *const cpus[] = {"x86_64-",  "aarch64-", "powerpc64le-", "powerpc64-",
	                                   "ppc64le-", "ppc64-",   "s390x-",       "i386-",
	                                   "i686-",    "riscv64-", "loongarch64-"};
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (!strncmp(triple, cpus[i], strlen(cpus[i])))
			return OFL_FAM_CPU;
	if (!strncmp(triple, "amdgcn-", 7))
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

const char *ofl_scoped_arg(const char *arg, const char *triple)
{
	const char *eq = strchr(arg, '=');
	if (!eq || arg[0] == '-' || !memchr(arg, '-', (size_t)(eq - arg)))
		return arg;
	return strncmp(arg, triple, (size_t)(eq - arg)) || triple[eq - arg] ? NULL : eq + 1;
}

enum ofl_wrap_kind ofl_wrap_kind_of(uint16_t offload_kind)
{
	return offload_kind == OFL_OFK_CUDA                                   ? OFL_WRAP_CUDA
	       : offload_kind == OFL_OFK_HIP || offload_kind == OFL_OFK_HIP19 ? OFL_WRAP_HIP
	       : offload_kind == OFL_OFK_SYCL                                 ? OFL_WRAP_SYCL
	                                                                      : OFL_WRAP_OPENMP;
}
