/* Target IDs and bundle entry IDs.
 *
 * Every table below was verified against the real tools, clang-offload-bundler
 * 19.1.7 and 22.1.8 (Debian): the parse table by bundling each -targets
 * string and reading the ID back with -list (or the error it printed), the
 * compatibility table by bundling the entry with one version and unbundling
 * the request with the same or the other version, the -list order and the
 * conflict pairs by bundling with both.  Rows where LLVM crashes (malformed
 * features) are left out.
 */
#include <stdint.h>

#include "harness.h"
#include "offlink/error.h"
#include "offlink/target_id.h"

struct parse_row {
	const char *in, *want19, *want22; /* written ID, or "ERR <message>" */
};

static const struct parse_row parse_rows[] = {
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-unknown-linux", "host-x86_64-unknown-linux--",
     "ERR Targets need to follow the format '<offload kind>-<target triple>', where '<target "
     "triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
     "features]]'."},
    {"host-x86_64-linux-gnu-", "host-x86_64-linux-gnu--host-x86_64-linux-gnu-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-unknown-linux-gnu-",
     "host-x86_64-unknown-linux-gnu-host-x86_64-unknown-linux-gnu-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64--linux-", "host-x86_64--linux--host-x86_64--linux-",
     "host-x86_64-unknown-linux-unknown-"},
    {"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda--sm_70",
     "openmp-nvptx64-nvidia-cuda-unknown-sm_70"},
    {"openmp-nvptx64--cuda--sm_70", "openmp-nvptx64--cuda--sm_70",
     "openmp-nvptx64-unknown-cuda-unknown-sm_70"},
    {"hip-amdgcn-amd-amdhsa-unknown-gfx90a", "hip-amdgcn-amd-amdhsa-unknown-gfx90a",
     "hip-amdgcn-amd-amdhsa--gfx90a"},
    {"openmp-amdgcn-amd-amdhsa-gnu-gfx90a", "openmp-amdgcn-amd-amdhsa-gnu-gfx90a",
     "openmp-amdgcn-amd-amdhsa--gfx90a"},
    {"hip-amdgcn--amdhsa--gfx90a", "hip-amdgcn--amdhsa--gfx90a",
     "hip-amdgcn-unknown-amdhsa--gfx90a"},
    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
     "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
     "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"},
    {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-",
     "hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-",
     "hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-"},
    {"hip-amdgcn-amd-amdhsa--gfx9999", "hip-amdgcn-amd-amdhsa--gfx9999-",
     "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa--gfx950", "hip-amdgcn-amd-amdhsa--gfx950-",
     "hip-amdgcn-amd-amdhsa--gfx950"},
    {"hip-amdgcn-amd-amdhsa--sm_70", "hip-amdgcn-amd-amdhsa--sm_70",
     "hip-amdgcn-amd-amdhsa--sm_70"},
    {"openmp-x86_64-unknown-linux-gnu:xnack+", "openmp-x86_64-unknown-linux-gnu-",
     "openmp-x86_64-unknown-linux-gnu:xnack+-"},
    {"openmp-spirv64-intel-unknown-", "openmp-spirv64-intel-unknown--openmp-spirv64-intel-unknown-",
     "openmp-spirv64-intel-unknown-unknown-"},
    {"hip-spirv64-amd-amdhsa--amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv",
     "hip-spirv64-amd-amdhsa--amdgcnspirv"},
    {"hip-amdgcn-amdhsa-amd-", "hip-amdgcn-amdhsa-amd--hip-amdgcn-amdhsa-amd-",
     "hip-amdgcn-amd-amdhsa-unknown-"},
    {"hip-amdhsa-amdgcn-amd--gfx90a",
     "ERR invalid target 'hip-amdhsa-amdgcn-amd--gfx90a', unknown target triple "
     "'amdhsa-amdgcn-amd-'",
     "ERR invalid target 'hip-amdhsa-amdgcn-amd--gfx90a', unknown target triple "
     "'amdhsa-amdgcn-amd-'"},
    {"host-x86_64-pc-linux-gnu", "host-x86_64-pc-linux-gnu-", "host-x86_64-pc-linux-gnu-"},
    {"host-x86_64-linux-unknown-gnu", "host-x86_64-linux-unknown-gnu-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-gnu-linux-", "host-x86_64-gnu-linux--host-x86_64-gnu-linux-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-pc-windows-", "host-x86_64-pc-windows--host-x86_64-pc-windows-",
     "host-x86_64-pc-windows-msvc-"},
    {"host-x86_64-pc-win32-", "host-x86_64-pc-win32--host-x86_64-pc-win32-",
     "host-x86_64-pc-windows-msvc-"},
    {"host-x86_64-w64-mingw32-", "host-x86_64-w64-mingw32--host-x86_64-w64-mingw32-",
     "host-x86_64-w64-windows-gnu-"},
    {"host-x86_64-pc-cygwin-", "host-x86_64-pc-cygwin--host-x86_64-pc-cygwin-",
     "host-x86_64-pc-windows-cygnus-"},
    {"host-x86_64-pc-windows-gnu", "host-x86_64-pc-windows-gnu-", "host-x86_64-pc-windows-gnu-"},
    {"host-x86_64-pc-windows-elf", "host-x86_64-pc-windows-elf-", "host-x86_64-pc-windows-elf-"},
    {"host-x86_64-none--eabi", "host-x86_64-none--eabi-", "host-x86_64-unknown-none-eabi-"},
    {"host-x86_64-unknown-none-", "host-x86_64-unknown-none--host-x86_64-unknown-none-",
     "host-x86_64-unknown-none-unknown-"},
    {"host-aarch64-apple-darwin-", "host-aarch64-apple-darwin--host-aarch64-apple-darwin-",
     "host-aarch64-apple-darwin-unknown-"},
    {"host-aarch64-darwin-apple-", "host-aarch64-darwin-apple--host-aarch64-darwin-apple-",
     "host-aarch64-apple-darwin-unknown-"},
    {"host-i686-unknown-linux-gnu", "host-i686-unknown-linux-gnu-", "host-i686-unknown-linux-gnu-"},
    {"host-amd64-unknown-freebsd-", "host-amd64-unknown-freebsd--host-amd64-unknown-freebsd-",
     "host-amd64-unknown-freebsd-unknown-"},
    {"host-armv7a-unknown-linux-gnueabihf", "host-armv7a-unknown-linux-gnueabihf-",
     "host-armv7a-unknown-linux-gnueabihf-"},
    {"host-thumbv7em-none-eabi-", "host-thumbv7em-none-eabi--host-thumbv7em-none-eabi-",
     "host-thumbv7em-unknown-none-eabi-"},
    {"host-arm-none-eabi-", "host-arm-none-eabi--host-arm-none-eabi-",
     "host-arm-unknown-none-eabi-"},
    {"host-riscv64-unknown-linux-gnu", "host-riscv64-unknown-linux-gnu-",
     "host-riscv64-unknown-linux-gnu-"},
    {"host-x86_64-unknown-linux-gnu-foo", "host-x86_64-unknown-linux-gnu-foo-",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-unknown-linux-gnu-gfx90a", "host-x86_64-unknown-linux-gnu-gfx90a",
     "host-x86_64-unknown-linux-gnu-gfx90a"},
    {"host-x86_64-unknown-linux-gnu-gfx9-generic", "host-x86_64-unknown-linux-gnu-gfx9-generic",
     "host-x86_64-unknown-linux-gnu-gfx9-generic"},
    {"host-x86_64-unknown-linux-gnu-gfx9-generic:xnack+",
     "host-x86_64-unknown-linux-gnu-gfx9-generic:xnack+",
     "host-x86_64-unknown-linux-gnu-gfx9-generic:xnack+"},
    {"hip-amdgcn-amd-amdhsa--gfx10-3-generic", "hip-amdgcn-amd-amdhsa--gfx10-3-generic",
     "hip-amdgcn-amd-amdhsa--gfx10-3-generic"},
    {"hip-amdgcn-amd-amdhsa--Gfx90a", "hip-amdgcn-amd-amdhsa--Gfx90a-", "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa--:xnack+", "hip-amdgcn-amd-amdhsa--hip-amdgcn-amd-amdhsa--:xnack+",
     "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa--generic", "hip-amdgcn-amd-amdhsa--generic",
     "hip-amdgcn-amd-amdhsa--generic"},
    {"hip-amdgcn-amd-amdhsa--bmg_g21", "hip-amdgcn-amd-amdhsa--bmg_g21-",
     "hip-amdgcn-amd-amdhsa--bmg_g21"},
    {"hip-amdgcn-amd-amdhsa2--gfx90a", "hip-amdgcn-amd-amdhsa2--gfx90a",
     "hip-amdgcn-amd-amdhsa2--gfx90a"},
    {"hip-amdgcn-amd-amdhsafoo-gnu-gfx90a", "hip-amdgcn-amd-amdhsafoo-gnu-gfx90a",
     "hip-amdgcn-amd-amdhsafoo--gfx90a"},
    {"hip-spirv64-amd-amdhsa-gnu-amdgcnspirv", "hip-spirv64-amd-amdhsa-gnu-amdgcnspirv",
     "hip-spirv64-amd-amdhsa--amdgcnspirv"},
    {"openmp-nvptx64-nvidia-cuda-gnu-sm_90a", "openmp-nvptx64-nvidia-cuda-gnu-sm_90a",
     "openmp-nvptx64-nvidia-cuda-gnu-sm_90a"},
    {"openmp-nvptx-nvidia-cuda-", "openmp-nvptx-nvidia-cuda--openmp-nvptx-nvidia-cuda-",
     "openmp-nvptx-nvidia-cuda-unknown-"},
    {"openmp-nvptx64-cuda-nvidia-", "openmp-nvptx64-cuda-nvidia--openmp-nvptx64-cuda-nvidia-",
     "openmp-nvptx64-nvidia-cuda-unknown-"},
    {"openmp-cuda-nvptx64-nvidia-",
     "ERR invalid target 'openmp-cuda-nvptx64-nvidia-', unknown target triple "
     "'cuda-nvptx64-nvidia-'",
     "ERR invalid target 'openmp-cuda-nvptx64-nvidia-', unknown target triple "
     "'cuda-nvptx64-nvidia-'"},
    {"cuda-nvptx64-nvidia-cuda--sm_70",
     "ERR invalid target 'cuda-nvptx64-nvidia-cuda--sm_70', unknown offloading kind 'cuda'",
     "ERR invalid target 'cuda-nvptx64-nvidia-cuda--sm_70', unknown offloading kind 'cuda'"},
    {"sycl-spirv64-unknown-unknown-",
     "ERR invalid target 'sycl-spirv64-unknown-unknown-', unknown offloading kind 'sycl'",
     "ERR invalid target 'sycl-spirv64-unknown-unknown-', unknown offloading kind 'sycl'"},
    {"hip-foo-amd-amdhsa--gfx90a",
     "ERR invalid target 'hip-foo-amd-amdhsa--gfx90a', unknown target triple 'foo-amd-amdhsa-'",
     "ERR invalid target 'hip-foo-amd-amdhsa--gfx90a', unknown target triple 'foo-amd-amdhsa-'"},
    {"foo-bar-amd-amdhsa--gfx90a",
     "ERR invalid target 'foo-bar-amd-amdhsa--gfx90a', unknown offloading kind 'foo', unknown "
     "target triple 'bar-amd-amdhsa-'",
     "ERR invalid target 'foo-bar-amd-amdhsa--gfx90a', unknown offloading kind 'foo', unknown "
     "target triple 'bar-amd-amdhsa-'"},
    {"hip-amdgcn-amd", "hip-amdgcn-amd---",
     "ERR Targets need to follow the format '<offload kind>-<target triple>', where '<target "
     "triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
     "features]]'."},
    {"hip-amdgcn-amd-amdhsa", "hip-amdgcn-amd-amdhsa--",
     "ERR Targets need to follow the format '<offload kind>-<target triple>', where '<target "
     "triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
     "features]]'."},
    {"openmp-x86_64-unknown-linux-gnu-sm_70:xnack+", "openmp-x86_64-unknown-linux-gnu-sm_70:xnack+",
     "openmp-x86_64-unknown-linux-gnu-sm_70:xnack+"},
    {"openmp-x86_64-unknown-linux-musl", "openmp-x86_64-unknown-linux-musl-",
     "openmp-x86_64-unknown-linux-musl-"},
    {"openmp-x86_64-unknown-linux-android", "openmp-x86_64-unknown-linux-android-",
     "openmp-x86_64-unknown-linux-android-"},
    {"openmp-x86_64-suse-linux-gnu", "openmp-x86_64-suse-linux-gnu-",
     "openmp-x86_64-suse-linux-gnu-"},
    {"openmp-powerpc64le-ibm-linux-gnu", "openmp-powerpc64le-ibm-linux-gnu-",
     "openmp-powerpc64le-ibm-linux-gnu-"},
    {"openmp-s390x-ibm-zos-", "openmp-s390x-ibm-zos--openmp-s390x-ibm-zos-",
     "openmp-s390x-ibm-zos-unknown-"},
    {"openmp-ppc64-ibm-aix-", "openmp-ppc64-ibm-aix--openmp-ppc64-ibm-aix-",
     "openmp-ppc64-ibm-aix-unknown-"},
    {"openmp-wasm32-unknown-wasi-", "openmp-wasm32-unknown-wasi--openmp-wasm32-unknown-wasi-",
     "openmp-wasm32-unknown-wasi-unknown-"},
    {"openmp-wasm32-wasi--", "openmp-wasm32-wasi---openmp-wasm32-wasi--",
     "openmp-wasm32-unknown-wasi-unknown-"},
    {"openmp-x86_64-elf--", "openmp-x86_64-elf---openmp-x86_64-elf--",
     "openmp-x86_64-unknown-unknown-elf-"},
    {"openmp-x86_64-unknown-elf-", "openmp-x86_64-unknown-elf--openmp-x86_64-unknown-elf-",
     "openmp-x86_64-unknown-unknown-elf-"},
    {"openmp-x86_64--gnu-linux", "openmp-x86_64--gnu-linux-", "openmp-x86_64-unknown-linux-gnu-"},
    {"openmp-x86_64-linux--gnu", "openmp-x86_64-linux--gnu-", "openmp-x86_64-unknown-linux-gnu-"},
    {"openmp-x86_64---linux", "openmp-x86_64---linux-", "openmp-x86_64-unknown-linux-unknown-"},
    {"openmp-x86_64-amd-linux-amdhsa", "openmp-x86_64-amd-linux-amdhsa-",
     "openmp-x86_64-amd-linux-amdhsa-"},
    {"openmp-x86_64-amdhsa-amd-linux", "openmp-x86_64-amdhsa-amd-linux-",
     "openmp-x86_64-amd-amdhsa-linux-"},
    {"openmp-x86_64-pc-mingw32-", "openmp-x86_64-pc-mingw32--openmp-x86_64-pc-mingw32-",
     "openmp-x86_64-pc-windows-gnu-"},
    {"openmp-x86_64-amd---", "openmp-x86_64-amd---openmp-x86_64-amd---",
     "openmp-x86_64-amd-unknown-unknown-"},
    {"openmp-x86_64-nvidia-cuda-cuda", "openmp-x86_64-nvidia-cuda-cuda-",
     "openmp-x86_64-nvidia-cuda-cuda-"},
    {"openmp-amdgcn-amd-amdpal--gfx1030", "openmp-amdgcn-amd-amdpal--gfx1030",
     "openmp-amdgcn-amd-amdpal-unknown-gfx1030"},
    {"openmp-amdgcn-amd-mesa3d--gfx1030", "openmp-amdgcn-amd-mesa3d--gfx1030",
     "openmp-amdgcn-amd-mesa3d-unknown-gfx1030"},
    {"openmp-r600---", "openmp-r600----openmp-r600---", "openmp-r600-unknown-unknown-unknown-"},
    {"openmp-spirv64v1.5-unknown-unknown-",
     "openmp-spirv64v1.5-unknown-unknown--openmp-spirv64v1.5-unknown-unknown-",
     "openmp-spirv64v1.5-unknown-unknown-unknown-"},
    {"openmp-spirv1.6-unknown-vulkan-",
     "openmp-spirv1.6-unknown-vulkan--openmp-spirv1.6-unknown-vulkan-",
     "openmp-spirv1.6-unknown-vulkan-unknown-"},
    {"openmp-x86_64h-apple-macosx10.15-",
     "openmp-x86_64h-apple-macosx10.15--openmp-x86_64h-apple-macosx10.15-",
     "openmp-x86_64h-apple-macosx10.15-unknown-"},
    {"openmp-arm64-apple-ios17-simulator", "openmp-arm64-apple-ios17-simulator-",
     "openmp-arm64-apple-ios17-simulator-"},
    {"openmp-xscale-none-linux-", "openmp-xscale-none-linux--openmp-xscale-none-linux-",
     "openmp-xscale-none-linux-unknown-"},
    {"openmp-loongarch64-unknown-linux-gnu", "openmp-loongarch64-unknown-linux-gnu-",
     "openmp-loongarch64-unknown-linux-gnu-"},
    {"openmp-bpf---", "openmp-bpf----openmp-bpf---", "openmp-bpf-unknown-unknown-unknown-"},
    {"openmp-armv8.1a-unknown-linux-",
     "openmp-armv8.1a-unknown-linux--openmp-armv8.1a-unknown-linux-",
     "openmp-armv8.1a-unknown-linux-unknown-"},
    {"openmp-armfoo-unknown-linux-",
     "ERR invalid target 'openmp-armfoo-unknown-linux-', unknown target triple "
     "'armfoo-unknown-linux-'",
     "ERR invalid target 'openmp-armfoo-unknown-linux-', unknown target triple "
     "'armfoo-unknown-linux-'"},
    {"openmp-thumbv8m.main-none-eabi-",
     "openmp-thumbv8m.main-none-eabi--openmp-thumbv8m.main-none-eabi-",
     "openmp-thumbv8m.main-unknown-none-eabi-"},
    {"openmp-kalimba4---", "openmp-kalimba4----openmp-kalimba4---",
     "openmp-kalimba4-unknown-unknown-unknown-"},
    {"openmp-x86_64-unknown-linux-gnu-sm_100", "openmp-x86_64-unknown-linux-gnu-sm_100-",
     "openmp-x86_64-unknown-linux-gnu-sm_100"},
    {"openmp-nvptx64-nvidia-cuda--sm_100a", "openmp-nvptx64-nvidia-cuda--sm_100a-",
     "openmp-nvptx64-nvidia-cuda-unknown-sm_100a"},
    {"openmp-nvptx64-nvidia-cuda--sm_88", "openmp-nvptx64-nvidia-cuda--sm_88-",
     "openmp-nvptx64-nvidia-cuda-unknown-sm_88"},
    {"openmp-nvptx64-nvidia-cuda--sm_120:foo+", "openmp-nvptx64-nvidia-cuda--sm_120-",
     "openmp-nvptx64-nvidia-cuda-unknown-sm_120:foo+"},
    {"hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-",
     "hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-",
     "hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-"},
    {"hip", "ERR invalid target 'hip', unknown target triple '---'",
     "ERR Targets need to follow the format '<offload kind>-<target triple>', where '<target "
     "triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
     "features]]'."},
    {"host-x86_64", "host-x86_64----",
     "ERR Targets need to follow the format '<offload kind>-<target triple>', where '<target "
     "triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
     "features]]'."},
    {"host-x86_64-unknown-linux-gnu--",
     "host-x86_64-unknown-linux-gnu--host-x86_64-unknown-linux-gnu--",
     "host-x86_64-unknown-linux-gnu-"},
    {"host-x86_64-unknown-linux-gnu-gfx90a-",
     "host-x86_64-unknown-linux-gnu-gfx90a-host-x86_64-unknown-linux-gnu-gfx90a-",
     "host-x86_64-unknown-linux-gnu-"},
    {"hip-amdgcn-amd-amdhsa--gfx90a-",
     "hip-amdgcn-amd-amdhsa--gfx90a-hip-amdgcn-amd-amdhsa--gfx90a-", "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--"},
    {"hip-amdgcn-amd-amdhsa-generic-generic", "hip-amdgcn-amd-amdhsa-generic-generic-generic",
     "hip-amdgcn-amd-amdhsa--generic"},
    {"openmp-nvptx64-nvidia-cuda-sm_70-sm_70", "openmp-nvptx64-nvidia-cuda-sm_70-sm_70-sm_70",
     "openmp-nvptx64-nvidia-cuda-sm_70-sm_70"},
    {"hip-amdpal-eabi-cygwin-aarch64",
     "ERR invalid target 'hip-amdpal-eabi-cygwin-aarch64', unknown target triple "
     "'amdpal-eabi-cygwin-aarch64'",
     "ERR invalid target 'hip-amdpal-eabi-cygwin-aarch64', unknown target triple "
     "'amdpal-eabi-cygwin-aarch64'"},
    {"hip-amdpal-w64-cuda-ibm",
     "ERR invalid target 'hip-amdpal-w64-cuda-ibm', unknown target triple 'amdpal-w64-cuda-ibm'",
     "ERR invalid target 'hip-amdpal-w64-cuda-ibm', unknown target triple 'amdpal-w64-cuda-ibm'"},
    {"hip-bpf-xyz-musl-unknown", "hip-bpf-xyz-musl-unknown-", "hip-bpf-xyz-unknown-musl-"},
    {"hip-gnu-nvptx64--s390x-generic",
     "ERR invalid target 'hip-gnu-nvptx64--s390x-generic', unknown target triple "
     "'gnu-nvptx64--s390x'",
     "ERR invalid target 'hip-gnu-nvptx64--s390x-generic', unknown target triple "
     "'gnu-nvptx64--s390x'"},
    {"hip-i686-apple-foo-x86_64", "hip-i686-apple-foo-x86_64-", "hip-i686-apple-foo-x86_64-"},
    {"hip-i686-arm64-cuda-unknown", "hip-i686-arm64-cuda-unknown-", "hip-i686-arm64-cuda-unknown-"},
    {"hip-i686-xyz-intel-amdgcn", "hip-i686-xyz-intel-amdgcn-", "hip-i686-intel-xyz-amdgcn-"},
    {"hip-llvm-ppc64le-cygwin-android",
     "ERR invalid target 'hip-llvm-ppc64le-cygwin-android', unknown target triple "
     "'llvm-ppc64le-cygwin-android'",
     "ERR invalid target 'hip-llvm-ppc64le-cygwin-android', unknown target triple "
     "'llvm-ppc64le-cygwin-android'"},
    {"hip-mips64el-simulator-intel-macho-gfx950", "hip-mips64el-simulator-intel-macho-gfx950-",
     "hip-mips64el-intel-unknown-simulator-gfx950"},
    {"hip-mips64el-wasm32-freebsd13-x86_64", "hip-mips64el-wasm32-freebsd13-x86_64-",
     "hip-mips64el-wasm32-freebsd13-x86_64-"},
    {"hip-musl-nvptx64-s390x-intel",
     "ERR invalid target 'hip-musl-nvptx64-s390x-intel', unknown target triple "
     "'musl-nvptx64-s390x-intel'",
     "ERR invalid target 'hip-musl-nvptx64-s390x-intel', unknown target triple "
     "'musl-nvptx64-s390x-intel'"},
    {"hip-thumbv7m-mti-wasm32-x86_64", "hip-thumbv7m-mti-wasm32-x86_64-",
     "hip-thumbv7m-mti-wasm32-x86_64-"},
    {"hip-thumbv7m-x86_64-none-ibm-sm_70", "hip-thumbv7m-x86_64-none-ibm-sm_70",
     "hip-thumbv7m-ibm-x86_64-none-sm_70"},
    {"hip-wasi-hexagon-riscv64-win32-",
     "ERR invalid target 'hip-wasi-hexagon-riscv64-win32-', unknown target triple "
     "'wasi-hexagon-riscv64-win32'",
     "ERR invalid target 'hip-wasi-hexagon-riscv64-win32-', unknown target triple "
     "'wasi-hexagon-riscv64-win32'"},
    {"hip-win32-r600-bpf-intel",
     "ERR invalid target 'hip-win32-r600-bpf-intel', unknown target triple 'win32-r600-bpf-intel'",
     "ERR invalid target 'hip-win32-r600-bpf-intel', unknown target triple 'win32-r600-bpf-intel'"},
    {"hip-x86_64-w64-amdpal--gfx90a", "hip-x86_64-w64-amdpal--gfx90a",
     "hip-x86_64-w64-amdpal-unknown-gfx90a"},
    {"host-aarch64-cygwin-riscv64-pc", "host-aarch64-cygwin-riscv64-pc-",
     "host-aarch64-pc-windows-cygnus-"},
    {"host-amd--amd-wasm32-gfx90a",
     "ERR invalid target 'host-amd--amd-wasm32-gfx90a', unknown target triple 'amd--amd-wasm32'",
     "ERR invalid target 'host-amd--amd-wasm32-gfx90a', unknown target triple 'amd--amd-wasm32'"},
    {"host-apple-gnu:xnack+-ohos-gnu",
     "ERR invalid target 'host-apple-gnu:xnack+-ohos-gnu', unknown target triple 'apple-gnu--'",
     "ERR invalid target 'host-apple-gnu:xnack+-ohos-gnu', unknown target triple "
     "'apple-gnu:xnack+-ohos-gnu'"},
    {"host-arm64-gnueabihf-cygwin-none", "host-arm64-gnueabihf-cygwin-none-",
     "host-arm64-unknown-windows-cygnus-"},
    {"host-armv7a-none-mti-gnu-gfx940", "host-armv7a-none-mti-gnu-gfx940",
     "host-armv7a-mti-none-gnu-"},
    {"host-eabi-amd64-x86_64h-win32-gfx90a",
     "ERR invalid target 'host-eabi-amd64-x86_64h-win32-gfx90a', unknown target triple "
     "'eabi-amd64-x86_64h-win32'",
     "ERR invalid target 'host-eabi-amd64-x86_64h-win32-gfx90a', unknown target triple "
     "'eabi-amd64-x86_64h-win32'"},
    {"host-eabi-unknown-gnueabihf-amdhsa",
     "ERR invalid target 'host-eabi-unknown-gnueabihf-amdhsa', unknown target triple "
     "'eabi-unknown-gnueabihf-amdhsa'",
     "ERR invalid target 'host-eabi-unknown-gnueabihf-amdhsa', unknown target triple "
     "'eabi-unknown-gnueabihf-amdhsa'"},
    {"host-gnueabihf-riscv64-cuda-windows-sm_70",
     "ERR invalid target 'host-gnueabihf-riscv64-cuda-windows-sm_70', unknown target triple "
     "'gnueabihf-riscv64-cuda-windows'",
     "ERR invalid target 'host-gnueabihf-riscv64-cuda-windows-sm_70', unknown target triple "
     "'gnueabihf-riscv64-cuda-windows'"},
    {"host-hurd--llvm-mingw32-foo",
     "ERR invalid target 'host-hurd--llvm-mingw32-foo', unknown target triple "
     "'hurd--llvm-mingw32-foo'",
     "ERR invalid target 'host-hurd--llvm-mingw32-foo', unknown target triple "
     "'hurd--llvm-mingw32'"},
    {"host-i686-vulkan1.2-thumbv7m-pc-gfx940", "host-i686-vulkan1.2-thumbv7m-pc-gfx940",
     "host-i686-pc-vulkan1.2-thumbv7m-"},
    {"host-mips64el-macho-w64-ios17", "host-mips64el-macho-w64-ios17-",
     "host-mips64el-unknown-ios17-macho-"},
    {"host-msvc-none-ppc64le-loongarch64",
     "ERR invalid target 'host-msvc-none-ppc64le-loongarch64', unknown target triple "
     "'msvc-none-ppc64le-loongarch64'",
     "ERR invalid target 'host-msvc-none-ppc64le-loongarch64', unknown target triple "
     "'msvc-none-ppc64le-loongarch64'"},
    {"host-musl-spirv64-mti-aarch64",
     "ERR invalid target 'host-musl-spirv64-mti-aarch64', unknown target triple "
     "'musl-spirv64-mti-aarch64'",
     "ERR invalid target 'host-musl-spirv64-mti-aarch64', unknown target triple "
     "'musl-spirv64-mti-aarch64'"},
    {"host-none-coff-msvc-apple-sm_70",
     "ERR invalid target 'host-none-coff-msvc-apple-sm_70', unknown target triple "
     "'none-coff-msvc-apple'",
     "ERR invalid target 'host-none-coff-msvc-apple-sm_70', unknown target triple "
     "'none-coff-msvc-apple'"},
    {"host-nvptx64-w64-riscv64--gfx90a", "host-nvptx64-w64-riscv64--gfx90a",
     "host-nvptx64-w64-riscv64-unknown-gfx90a"},
    {"host-ppc64le--gnu-fuchsia-foo", "host-ppc64le--gnu-fuchsia-foo-",
     "host-ppc64le-unknown-fuchsia-gnu-"},
    {"host-suse-ios17-amdpal-llvm",
     "ERR invalid target 'host-suse-ios17-amdpal-llvm', unknown target triple "
     "'suse-ios17-amdpal-llvm'",
     "ERR invalid target 'host-suse-ios17-amdpal-llvm', unknown target triple "
     "'suse-ios17-amdpal-llvm'"},
    {"host-suse-thumbv7m-amd64-nvptx64-generic",
     "ERR invalid target 'host-suse-thumbv7m-amd64-nvptx64-generic', unknown target triple "
     "'suse-thumbv7m-amd64-nvptx64'",
     "ERR invalid target 'host-suse-thumbv7m-amd64-nvptx64-generic', unknown target triple "
     "'suse-thumbv7m-amd64-nvptx64'"},
    {"host-wasm32-cygwin-apple-spirv64", "host-wasm32-cygwin-apple-spirv64-",
     "host-wasm32-apple-windows-cygnus-"},
    {"openmp-amdgcn-foo-none--gfx90a", "openmp-amdgcn-foo-none--gfx90a",
     "openmp-amdgcn-foo-none-unknown-gfx90a"},
    {"openmp-arm64-nvidia-x86_64h-s390x", "openmp-arm64-nvidia-x86_64h-s390x-",
     "openmp-arm64-nvidia-x86_64h-s390x-"},
    {"openmp-armv7a-macho-w64-bpf-gfx90a", "openmp-armv7a-macho-w64-bpf-gfx90a",
     "openmp-armv7a-unknown-unknown-macho-gfx90a"},
    {"openmp-armv7a-nvidia-macho-amd-gfx940", "openmp-armv7a-nvidia-macho-amd-gfx940",
     "openmp-armv7a-nvidia-unknown-macho-"},
    {"openmp-cygwin-simulator-none-mti",
     "ERR invalid target 'openmp-cygwin-simulator-none-mti', unknown target triple "
     "'cygwin-simulator-none-mti'",
     "ERR invalid target 'openmp-cygwin-simulator-none-mti', unknown target triple "
     "'cygwin-simulator-none-mti'"},
    {"openmp-elf-bpf-gnux32-android",
     "ERR invalid target 'openmp-elf-bpf-gnux32-android', unknown target triple "
     "'elf-bpf-gnux32-android'",
     "ERR invalid target 'openmp-elf-bpf-gnux32-android', unknown target triple "
     "'elf-bpf-gnux32-android'"},
    {"openmp-i686-intel-mti-w64", "openmp-i686-intel-mti-w64-", "openmp-i686-intel-mti-w64-"},
    {"openmp-linux5-aix-oe-darwin",
     "ERR invalid target 'openmp-linux5-aix-oe-darwin', unknown target triple "
     "'linux5-aix-oe-darwin'",
     "ERR invalid target 'openmp-linux5-aix-oe-darwin', unknown target triple "
     "'linux5-aix-oe-darwin'"},
    {"openmp-linux5-gnueabihf-coff-wasm32-generic",
     "ERR invalid target 'openmp-linux5-gnueabihf-coff-wasm32-generic', unknown target triple "
     "'linux5-gnueabihf-coff-wasm32'",
     "ERR invalid target 'openmp-linux5-gnueabihf-coff-wasm32-generic', unknown target triple "
     "'linux5-gnueabihf-coff-wasm32'"},
    {"openmp-macho-simulator-nvidia-gnu:xnack+",
     "ERR invalid target 'openmp-macho-simulator-nvidia-gnu:xnack+', unknown target triple "
     "'macho-simulator-nvidia-gnu'",
     "ERR invalid target 'openmp-macho-simulator-nvidia-gnu:xnack+', unknown target triple "
     "'macho-simulator-nvidia-gnu:xnack+'"},
    {"openmp-mips64el-msvc-ios17-r600", "openmp-mips64el-msvc-ios17-r600-",
     "openmp-mips64el-unknown-ios17-msvc-"},
    {"openmp-mips64el-oe-s390x-sparcv9", "openmp-mips64el-oe-s390x-sparcv9-",
     "openmp-mips64el-oe-s390x-sparcv9-"},
    {"openmp-mips64el-sparcv9-none-i686-gfx90a", "openmp-mips64el-sparcv9-none-i686-gfx90a",
     "openmp-mips64el-sparcv9-none-i686-gfx90a"},
    {"openmp-msvc-amd-msvc-gnux32-foo",
     "ERR invalid target 'openmp-msvc-amd-msvc-gnux32-foo', unknown target triple "
     "'msvc-amd-msvc-gnux32-foo'",
     "ERR invalid target 'openmp-msvc-amd-msvc-gnux32-foo', unknown target triple "
     "'msvc-amd-msvc-gnux32'"},
    {"openmp-none-unknown-windows-darwin-gfx950",
     "ERR invalid target 'openmp-none-unknown-windows-darwin-gfx950', unknown target triple "
     "'none-unknown-windows-darwin-gfx950'",
     "ERR invalid target 'openmp-none-unknown-windows-darwin-gfx950', unknown target triple "
     "'none-unknown-windows-darwin'"},
    {"openmp-nvptx64-apple-nvptx64-s390x", "openmp-nvptx64-apple-nvptx64-s390x-",
     "openmp-nvptx64-apple-nvptx64-s390x-"},
    {"openmp-ppc64le-foo-mesa3d-gnu:xnack+-", "openmp-ppc64le-foo-mesa3d-gnu-",
     "openmp-ppc64le-foo-mesa3d-gnu:xnack+-"},
    {"openmp-ppc64le-vulkan1.2--x86_64h-",
     "openmp-ppc64le-vulkan1.2--x86_64h-openmp-ppc64le-vulkan1.2--x86_64h-",
     "openmp-ppc64le-unknown-vulkan1.2-x86_64h-"},
    {"openmp-r600-gnu-ios17-linux-gfx940", "openmp-r600-gnu-ios17-linux-gfx940",
     "openmp-r600-unknown-ios17-gnu-"},
    {"openmp-riscv64-xyz-unknown-intel-",
     "openmp-riscv64-xyz-unknown-intel-openmp-riscv64-xyz-unknown-intel-",
     "openmp-riscv64-intel-xyz-unknown-"},
    {"openmp-spirv64-none-ibm-freebsd13-gfx940", "openmp-spirv64-none-ibm-freebsd13-gfx940",
     "openmp-spirv64-ibm-freebsd13-none-"},
    {"openmp-spirv64v1.6-freebsd13-ibm-cuda-",
     "openmp-spirv64v1.6-freebsd13-ibm-cuda-openmp-spirv64v1.6-freebsd13-ibm-cuda-",
     "openmp-spirv64v1.6-ibm-freebsd13-cuda-"},
    {"openmp-spirv64v1.6-ios17-s390x-opencl", "openmp-spirv64v1.6-ios17-s390x-opencl-",
     "openmp-spirv64v1.6-unknown-ios17-opencl-"},
    {"openmp-unknown-coff--nvidia-gfx90a",
     "ERR invalid target 'openmp-unknown-coff--nvidia-gfx90a', unknown target triple "
     "'unknown-coff--nvidia'",
     "ERR invalid target 'openmp-unknown-coff--nvidia-gfx90a', unknown target triple "
     "'unknown-coff--nvidia'"},
    {"openmp-unknown-msvc-macosx10.15-bpf-gfx950",
     "ERR invalid target 'openmp-unknown-msvc-macosx10.15-bpf-gfx950', unknown target triple "
     "'unknown-msvc-macosx10.15-bpf-gfx950'",
     "ERR invalid target 'openmp-unknown-msvc-macosx10.15-bpf-gfx950', unknown target triple "
     "'unknown-msvc-macosx10.15-bpf'"},
    {"host-x86_64-chipstar--", "host-x86_64-chipstar---host-x86_64-chipstar--",
     "host-x86_64-chipstar-unknown-unknown-"},
    {"host-x86_64---chipstar", "host-x86_64---chipstar-", "host-x86_64-unknown-unknown-chipstar-"},
    {"host-x86_64-cheriotrtos--", "host-x86_64-cheriotrtos---host-x86_64-cheriotrtos--",
     "host-x86_64-unknown-cheriotrtos-unknown-"},
    {"host-x86_64---cheriotrtos", "host-x86_64---cheriotrtos-",
     "host-x86_64-unknown-cheriotrtos-unknown-"},
    {"host-x86_64-firmware--", "host-x86_64-firmware---host-x86_64-firmware--",
     "host-x86_64-firmware-unknown-unknown-"},
    {"host-x86_64---firmware", "host-x86_64---firmware-", "host-x86_64-unknown-unknown-firmware-"},
    {"host-x86_64-h2--", "host-x86_64-h2---host-x86_64-h2--", "host-x86_64-h2-unknown-unknown-"},
    {"host-x86_64---h2", "host-x86_64---h2-", "host-x86_64-unknown-unknown-h2-"},
    {"host-x86_64-qurt--", "host-x86_64-qurt---host-x86_64-qurt--",
     "host-x86_64-qurt-unknown-unknown-"},
    {"host-x86_64---qurt", "host-x86_64---qurt-", "host-x86_64-unknown-unknown-qurt-"},
    {"host-x86_64-opencl--", "host-x86_64-opencl---host-x86_64-opencl--",
     "host-x86_64-unknown-unknown-opencl-"},
    {"host-x86_64---opencl", "host-x86_64---opencl-", "host-x86_64-unknown-unknown-opencl-"},
    {"host-x86_64-wasip3--", "host-x86_64-wasip3---host-x86_64-wasip3--",
     "host-x86_64-unknown-wasip3-unknown-"},
    {"host-x86_64---wasip3", "host-x86_64---wasip3-", "host-x86_64-unknown-wasip3-unknown-"},
    {"host-x86_64-macosx--", "host-x86_64-macosx---host-x86_64-macosx--",
     "host-x86_64-unknown-macosx-unknown-"},
    {"host-x86_64---macosx", "host-x86_64---macosx-", "host-x86_64-unknown-macosx-unknown-"},
    {"host-x86_64-muslwali--", "host-x86_64-muslwali---host-x86_64-muslwali--",
     "host-x86_64-unknown-unknown-muslwali-"},
    {"host-x86_64---muslwali", "host-x86_64---muslwali-", "host-x86_64-unknown-unknown-muslwali-"},
    {"host-x86_64-opencl--", "host-x86_64-opencl---host-x86_64-opencl--",
     "host-x86_64-unknown-unknown-opencl-"},
    {"host-x86_64---opencl", "host-x86_64---opencl-", "host-x86_64-unknown-unknown-opencl-"},
    {"host-x86_64_lfi-unknown-linux-gnu",
     "ERR invalid target 'host-x86_64_lfi-unknown-linux-gnu', unknown target triple "
     "'x86_64_lfi-unknown-linux-gnu'",
     "ERR invalid target 'host-x86_64_lfi-unknown-linux-gnu', unknown target triple "
     "'x86_64_lfi-unknown-linux-gnu'"},
    {"host-aarch64_lfi-unknown-linux-gnu",
     "ERR invalid target 'host-aarch64_lfi-unknown-linux-gnu', unknown target triple "
     "'aarch64_lfi-unknown-linux-gnu'",
     "host-aarch64_lfi-unknown-linux-gnu-"},
    {"host-tcele64-unknown-linux-gnu",
     "ERR invalid target 'host-tcele64-unknown-linux-gnu', unknown target triple "
     "'tcele64-unknown-linux-gnu'",
     "ERR invalid target 'host-tcele64-unknown-linux-gnu', unknown target triple "
     "'tcele64-unknown-linux-gnu'"},
    {"host-amdgpu-unknown-linux-gnu",
     "ERR invalid target 'host-amdgpu-unknown-linux-gnu', unknown target triple "
     "'amdgpu-unknown-linux-gnu'",
     "ERR invalid target 'host-amdgpu-unknown-linux-gnu', unknown target triple "
     "'amdgpu-unknown-linux-gnu'"},
    {"host-amdgpufoo-unknown-linux-gnu",
     "ERR invalid target 'host-amdgpufoo-unknown-linux-gnu', unknown target triple "
     "'amdgpufoo-unknown-linux-gnu'",
     "ERR invalid target 'host-amdgpufoo-unknown-linux-gnu', unknown target triple "
     "'amdgpufoo-unknown-linux-gnu'"},
    {"host-aarch64foo-unknown-linux-gnu",
     "ERR invalid target 'host-aarch64foo-unknown-linux-gnu', unknown target triple "
     "'aarch64foo-unknown-linux-gnu'",
     "ERR invalid target 'host-aarch64foo-unknown-linux-gnu', unknown target triple "
     "'aarch64foo-unknown-linux-gnu'"},
    {"host-armv6m-unknown-linux-gnu", "host-armv6m-unknown-linux-gnu-",
     "host-armv6m-unknown-linux-gnu-"},
    {"host-thumbv2-unknown-linux-gnu",
     "ERR invalid target 'host-thumbv2-unknown-linux-gnu', unknown target triple "
     "'thumbv2-unknown-linux-gnu'",
     "ERR invalid target 'host-thumbv2-unknown-linux-gnu', unknown target triple "
     "'thumbv2-unknown-linux-gnu'"},
    {"host-thumbv3-unknown-linux-gnu",
     "ERR invalid target 'host-thumbv3-unknown-linux-gnu', unknown target triple "
     "'thumbv3-unknown-linux-gnu'",
     "ERR invalid target 'host-thumbv3-unknown-linux-gnu', unknown target triple "
     "'thumbv3-unknown-linux-gnu'"},
    {"host-thumbv4t-unknown-linux-gnu", "host-thumbv4t-unknown-linux-gnu-",
     "host-thumbv4t-unknown-linux-gnu-"},
    {"host-dxilv1.9-unknown-linux-gnu",
     "ERR invalid target 'host-dxilv1.9-unknown-linux-gnu', unknown target triple "
     "'dxilv1.9-unknown-linux-gnu'",
     "host-dxilv1.9-unknown-linux-gnu-"},
    {"host-dxilv1.0-unknown-linux-gnu", "host-dxilv1.0-unknown-linux-gnu-",
     "host-dxilv1.0-unknown-linux-gnu-"},
    {"host-spirv1.5-unknown-linux-gnu", "host-spirv1.5-unknown-linux-gnu-",
     "host-spirv1.5-unknown-linux-gnu-"},
    {"host-spirv1.4-unknown-linux-gnu",
     "ERR invalid target 'host-spirv1.4-unknown-linux-gnu', unknown target triple "
     "'spirv1.4-unknown-linux-gnu'",
     "ERR invalid target 'host-spirv1.4-unknown-linux-gnu', unknown target triple "
     "'spirv1.4-unknown-linux-gnu'"},
    {"host-spirv1.0-unknown-linux-gnu",
     "ERR invalid target 'host-spirv1.0-unknown-linux-gnu', unknown target triple "
     "'spirv1.0-unknown-linux-gnu'",
     "ERR invalid target 'host-spirv1.0-unknown-linux-gnu', unknown target triple "
     "'spirv1.0-unknown-linux-gnu'"},
    {"host-spirv32v1.6-unknown-linux-gnu", "host-spirv32v1.6-unknown-linux-gnu-",
     "host-spirv32v1.6-unknown-linux-gnu-"},
    {"host-spirv64v1.7-unknown-linux-gnu",
     "ERR invalid target 'host-spirv64v1.7-unknown-linux-gnu', unknown target triple "
     "'spirv64v1.7-unknown-linux-gnu'",
     "ERR invalid target 'host-spirv64v1.7-unknown-linux-gnu', unknown target triple "
     "'spirv64v1.7-unknown-linux-gnu'"},
    {"host-kalimbafoo-unknown-linux-gnu", "host-kalimbafoo-unknown-linux-gnu-",
     "host-kalimbafoo-unknown-linux-gnu-"},
    {"host-kalimba3-unknown-linux-gnu", "host-kalimba3-unknown-linux-gnu-",
     "host-kalimba3-unknown-linux-gnu-"},
    {"host-bpf-unknown-linux-gnu", "host-bpf-unknown-linux-gnu-", "host-bpf-unknown-linux-gnu-"},
    {"host-bpfe-unknown-linux-gnu",
     "ERR invalid target 'host-bpfe-unknown-linux-gnu', unknown target triple "
     "'bpfe-unknown-linux-gnu'",
     "ERR invalid target 'host-bpfe-unknown-linux-gnu', unknown target triple "
     "'bpfe-unknown-linux-gnu'"},
    {"host-armv7-unknown-linux-gnu", "host-armv7-unknown-linux-gnu-",
     "host-armv7-unknown-linux-gnu-"},
    {"host-armebv7-unknown-linux-gnu", "host-armebv7-unknown-linux-gnu-",
     "host-armebv7-unknown-linux-gnu-"},
    {"host-armv9.5a-unknown-linux-gnu", "host-armv9.5a-unknown-linux-gnu-",
     "host-armv9.5a-unknown-linux-gnu-"},
    {"host-arm64e-unknown-linux-gnu", "host-arm64e-unknown-linux-gnu-",
     "host-arm64e-unknown-linux-gnu-"},
    {"host-aarch64_be-unknown-linux-gnu", "host-aarch64_be-unknown-linux-gnu-",
     "host-aarch64_be-unknown-linux-gnu-"},
    {"host-thumbebv7-unknown-linux-gnu", "host-thumbebv7-unknown-linux-gnu-",
     "host-thumbebv7-unknown-linux-gnu-"},
    {"host-armfoo-unknown-linux-gnu",
     "ERR invalid target 'host-armfoo-unknown-linux-gnu', unknown target triple "
     "'armfoo-unknown-linux-gnu'",
     "ERR invalid target 'host-armfoo-unknown-linux-gnu', unknown target triple "
     "'armfoo-unknown-linux-gnu'"},
    {"host-xscalefoo-unknown-linux-gnu",
     "ERR invalid target 'host-xscalefoo-unknown-linux-gnu', unknown target triple "
     "'xscalefoo-unknown-linux-gnu'",
     "ERR invalid target 'host-xscalefoo-unknown-linux-gnu', unknown target triple "
     "'xscalefoo-unknown-linux-gnu'"},
    {"host-x86_64--myriad-", "host-x86_64--myriad--host-x86_64--myriad-",
     "host-x86_64-unknown-myriad-unknown-"},
    {"host-x86_64---bgp", "host-x86_64---bgp-", "host-x86_64-unknown-unknown-bgp-"},
    {"host-x86_64-bgq--", "host-x86_64-bgq---host-x86_64-bgq--",
     "host-x86_64-bgq-unknown-unknown-"},
    {"host-x86_64---openembedded", "host-x86_64---openembedded-",
     "host-x86_64-unknown-unknown-openembedded-"},
    {"host-x86_64--cheriot-", "host-x86_64--cheriot--host-x86_64--cheriot-",
     "host-x86_64-unknown-cheriot-unknown-"},
    {"host-x86_64---cheriot", "host-x86_64---cheriot-", "host-x86_64-unknown-unknown-cheriot-"},
    {"host-x86_64--cloudabi-", "host-x86_64--cloudabi--host-x86_64--cloudabi-",
     "host-x86_64-unknown-cloudabi-unknown-"},
    {"host-x86_64---cloudabi", "host-x86_64---cloudabi-", "host-x86_64-unknown-unknown-cloudabi-"},
    {"host-x86_64-minix--", "host-x86_64-minix---host-x86_64-minix--",
     "host-x86_64-minix-unknown-unknown-"},
    {"host-x86_64--opengl-", "host-x86_64--opengl--host-x86_64--opengl-",
     "host-x86_64-unknown-opengl-unknown-"},
    {"host-x86_64--webgpu-", "host-x86_64--webgpu--host-x86_64--webgpu-",
     "host-x86_64-unknown-webgpu-unknown-"},
    {"host-x86_64--qurt-", "host-x86_64--qurt--host-x86_64--qurt-",
     "host-x86_64-unknown-qurt-unknown-"},
    {"host-x86_64-amdhsa2--", "host-x86_64-amdhsa2---host-x86_64-amdhsa2--",
     "host-x86_64-unknown-amdhsa2-unknown-"},
    {"host-x86_64---gnuf128", "host-x86_64---gnuf128-", "host-x86_64-unknown-unknown-gnuf128-"},
    {"host-x86_64-gnuilp32--", "host-x86_64-gnuilp32---host-x86_64-gnuilp32--",
     "host-x86_64-unknown-unknown-gnuilp32-"},
    {"host-x86_64--sycl-", "host-x86_64--sycl--host-x86_64--sycl-",
     "host-x86_64-unknown-sycl-unknown-"},
    {"host-x86_64-hipstdpar--", "host-x86_64-hipstdpar---host-x86_64-hipstdpar--",
     "host-x86_64-hipstdpar-unknown-unknown-"},
    {"host-x86_64--gnuabiv2-", "host-x86_64--gnuabiv2--host-x86_64--gnuabiv2-",
     "host-x86_64-unknown-unknown-gnuabiv2-"},
    {"host-x86_64--cuda12-", "host-x86_64--cuda12--host-x86_64--cuda12-",
     "host-x86_64-unknown-cuda12-unknown-"},
    {"host-x86_64---cuda12", "host-x86_64---cuda12-", "host-x86_64-unknown-cuda12-unknown-"},
    {"host-x86_64-nvcl--", "host-x86_64-nvcl---host-x86_64-nvcl--",
     "host-x86_64-unknown-nvcl-unknown-"},
    {"host-x86_64-rtems--", "host-x86_64-rtems---host-x86_64-rtems--",
     "host-x86_64-unknown-rtems-unknown-"},
    {"host-x86_64-ohos--", "host-x86_64-ohos---host-x86_64-ohos--",
     "host-x86_64-unknown-unknown-ohos-"},
    {"host-x86_64--musleabi-", "host-x86_64--musleabi--host-x86_64--musleabi-",
     "host-x86_64-unknown-unknown-musleabi-"},
    {"host-x86_64-macabi--", "host-x86_64-macabi---host-x86_64-macabi--",
     "host-x86_64-unknown-unknown-macabi-"},
    {"host-x86_64---macabi", "host-x86_64---macabi-", "host-x86_64-unknown-unknown-macabi-"},
    {"host-x86_64-coreclr--", "host-x86_64-coreclr---host-x86_64-coreclr--",
     "host-x86_64-unknown-unknown-coreclr-"},
    {"host-x86_64-gnut64--", "host-x86_64-gnut64---host-x86_64-gnut64--",
     "host-x86_64-unknown-unknown-gnut64-"},
    {"host-x86_64--gnut64-", "host-x86_64--gnut64--host-x86_64--gnut64-",
     "host-x86_64-unknown-unknown-gnut64-"},
    {"host-x86_64-gnuf32--", "host-x86_64-gnuf32---host-x86_64-gnuf32--",
     "host-x86_64-unknown-unknown-gnuf32-"},
    {"host-x86_64--gnuf32-", "host-x86_64--gnuf32--host-x86_64--gnuf32-",
     "host-x86_64-unknown-unknown-gnuf32-"},
    {"host-x86_64---gnuf32", "host-x86_64---gnuf32-", "host-x86_64-unknown-unknown-gnuf32-"},
    {"host-x86_64--vulkan1.3-", "host-x86_64--vulkan1.3--host-x86_64--vulkan1.3-",
     "host-x86_64-unknown-vulkan1.3-unknown-"},
    {"host-x86_64---vulkan1.3", "host-x86_64---vulkan1.3-",
     "host-x86_64-unknown-vulkan1.3-unknown-"},
    {"host-x86_64-liteos--", "host-x86_64-liteos---host-x86_64-liteos--",
     "host-x86_64-unknown-liteos-unknown-"},
    {"host-x86_64--pauthtest-", "host-x86_64--pauthtest--host-x86_64--pauthtest-",
     "host-x86_64-unknown-unknown-pauthtest-"},
    {"host-x86_64---pauthtest", "host-x86_64---pauthtest-",
     "host-x86_64-unknown-unknown-pauthtest-"},
    {"host-x86_64-hurd--", "host-x86_64-hurd---host-x86_64-hurd--",
     "host-x86_64-unknown-hurd-unknown-"},
    {"host-x86_64--hermit-", "host-x86_64--hermit--host-x86_64--hermit-",
     "host-x86_64-unknown-hermit-unknown-"},
    {"host-x86_64-managarm--", "host-x86_64-managarm---host-x86_64-managarm--",
     "host-x86_64-unknown-managarm-unknown-"},
    {"host-x86_64---xros", "host-x86_64---xros-", "host-x86_64-unknown-xros-unknown-"},
    {"host-x86_64-visionos--", "host-x86_64-visionos---host-x86_64-visionos--",
     "host-x86_64-unknown-visionos-unknown-"},
    {"host-x86_64-driverkit--", "host-x86_64-driverkit---host-x86_64-driverkit--",
     "host-x86_64-unknown-driverkit-unknown-"},
    {"host-x86_64-bridgeos--", "host-x86_64-bridgeos---host-x86_64-bridgeos--",
     "host-x86_64-unknown-bridgeos-unknown-"},
    {"host-x86_64---mesa3d", "host-x86_64---mesa3d-", "host-x86_64-unknown-mesa3d-unknown-"},
    {"host-x86_64-uefi--", "host-x86_64-uefi---host-x86_64-uefi--",
     "host-x86_64-unknown-uefi-unknown-"},
    {"host-x86_64---zos", "host-x86_64---zos-", "host-x86_64-unknown-zos-unknown-"},
    {"host-x86_64--aix-", "host-x86_64--aix--host-x86_64--aix-",
     "host-x86_64-unknown-aix-unknown-"},
    {"host-x86_64-hsa--", "host-x86_64-hsa---host-x86_64-hsa--",
     "host-x86_64-hsa-unknown-unknown-"},
    {"host-x86_64--hsa-", "host-x86_64--hsa--host-x86_64--hsa-",
     "host-x86_64-unknown-hsa-unknown-"},
    {"host-x86_64---hsa", "host-x86_64---hsa-", "host-x86_64-unknown-unknown-hsa-"},
    {"host-x86_64--intel-", "host-x86_64--intel--host-x86_64--intel-",
     "host-x86_64-intel-unknown-unknown-"},
    {"host-x86_64---intel", "host-x86_64---intel-", "host-x86_64-intel-unknown-unknown-"},
    {"host-x86_64---suse", "host-x86_64---suse-", "host-x86_64-suse-unknown-unknown-"},
    {"host-x86_64--csr-", "host-x86_64--csr--host-x86_64--csr-",
     "host-x86_64-csr-unknown-unknown-"},
    {"host-x86_64--sie-", "host-x86_64--sie--host-x86_64--sie-",
     "host-x86_64-sie-unknown-unknown-"},
    {"host-x86_64--scei-", "host-x86_64--scei--host-x86_64--scei-",
     "host-x86_64-scei-unknown-unknown-"},
    {"host-x86_64--fsl-", "host-x86_64--fsl--host-x86_64--fsl-",
     "host-x86_64-fsl-unknown-unknown-"},
    {"host-x86_64---fsl", "host-x86_64---fsl-", "host-x86_64-fsl-unknown-unknown-"},
    {"host-x86_64---ibm", "host-x86_64---ibm-", "host-x86_64-ibm-unknown-unknown-"},
};

static const char *parsed(const char *in, enum ofl_llvm_dialect d, char *buf, size_t bufsz)
{
	struct ofl_bundle_id id = OFL_BUNDLE_ID_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	if (ofl_bundle_id_parse(in, d, &id, &e) != 0)
		snprintf(buf, bufsz, "ERR %s", e.msg);
	else
		snprintf(buf, bufsz, "%s", id.str);
	ofl_bundle_id_release(&id);
	return buf;
}

OFL_TEST(parse_matches_llvm_19_and_22)
{
	char buf[1024];
	for (size_t i = 0; i < sizeof parse_rows / sizeof parse_rows[0]; i++) {
		CHECK_STR(parsed(parse_rows[i].in, OFL_LLVM19, buf, sizeof buf),
		          parse_rows[i].want19);
		CHECK_STR(parsed(parse_rows[i].in, OFL_LLVM22, buf, sizeof buf),
		          parse_rows[i].want22);
	}
}

OFL_TEST(parse_dxil_22)
{
	/* 22 derives the dxil version from the shader model (verified). */
	static const char *const rows[][2] = {
	    {"openmp-dxil-unknown-shadermodel6.0-compute",
	     "openmp-dxilv1.0-unknown-shadermodel6.0-compute-"},
	    {"openmp-dxil-unknown-shadermodel6.3-compute",
	     "openmp-dxilv1.3-unknown-shadermodel6.3-compute-"},
	    {"openmp-dxil-unknown-shadermodel6.x-compute",
	     "openmp-dxilv1.9-unknown-shadermodel6.x-compute-"},
	    {"openmp-dxil-unknown-shadermodel5.1-compute",
	     "openmp-dxilv1.0-unknown-shadermodel5.1-compute-"},
	    {"openmp-dxil-unknown-vulkan-compute", "openmp-dxil-unknown-vulkan-compute-"},
	    {"openmp-dxil-shadermodel6.2--", "openmp-dxilv1.2-unknown-shadermodel6.2-unknown-"},
	};
	char buf[1024];
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		CHECK_STR(parsed(rows[i][0], OFL_LLVM22, buf, sizeof buf), rows[i][1]);
}

OFL_TEST(parse_fields)
{
	struct ofl_bundle_id id = OFL_BUNDLE_ID_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_bundle_id_parse("hip-amdgcn-amd-amdhsa-gnu-gfx90a:xnack+", OFL_LLVM22, &id, &e) ==
	      0);
	CHECK_STR(id.kind, "hip");
	CHECK_STR(id.triple, "amdgcn-amd-amdhsa-");
	CHECK_STR(id.raw_triple, "amdgcn-amd-amdhsa-gnu");
	CHECK_STR(id.target_id, "gfx90a:xnack+");
	CHECK(!ofl_bundle_id_is_host(&id));
	ofl_bundle_id_release(&id);
	CHECK(id.str == NULL);
	CHECK(ofl_bundle_id_parse("host-x86_64-unknown-linux-gnu", OFL_LLVM19, &id, &e) == 0);
	CHECK(ofl_bundle_id_is_host(&id));
	CHECK_STR(id.triple, "x86_64-unknown-linux-gnu");
	CHECK_STR(id.target_id, "");
	ofl_bundle_id_release(&id);
	CHECK(ofl_bundle_id_parse("hip-amdgcn-amd", OFL_LLVM22, &id, &e) == OFL_EINVAL);
	CHECK(id.kind == NULL);
}

OFL_TEST(split_reads_stored_ids)
{
	struct ofl_bundle_id id = OFL_BUNDLE_ID_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	/* 19 reads its own host ID through the trailing-dash bug. */
	const char *h = "host-x86_64-unknown-linux-gnu-";
	CHECK(ofl_bundle_id_split(h, strlen(h), OFL_LLVM19, &id, &e) == 0);
	CHECK_STR(id.triple, "x86_64-unknown-linux-gnu");
	CHECK_STR(id.target_id, h);
	ofl_bundle_id_release(&id);
	CHECK(ofl_bundle_id_split(h, strlen(h), OFL_LLVM22, &id, &e) == 0);
	CHECK_STR(id.str, h);
	CHECK_STR(id.target_id, "");
	ofl_bundle_id_release(&id);
	/* Not NUL-terminated, unknown kind, too few fields: never fails. */
	CHECK(ofl_bundle_id_split("cuda-x-yZZZ", 8, OFL_LLVM22, &id, &e) == 0);
	CHECK_STR(id.kind, "cuda");
	CHECK_STR(id.raw_triple, "x-y--");
	ofl_bundle_id_release(&id);
	CHECK(ofl_bundle_id_split("", 0, OFL_LLVM19, &id, &e) == 0);
	ofl_bundle_id_release(&id);
}

/* results: writer/reader 19/19, 22/22, 19/22, 22/19, each without and with
 * -hip-openmp-compatible; 'E' = the writer rejects the entry. */
struct compat_row {
	const char *entry, *req, *results;
};

static const struct compat_row compat_rows[] = {
    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
     "hip-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", "11111111"},
    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a", "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
     "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx908", "hip-amdgcn-amd-amdhsa--gfx908:xnack+", "11111111"},
    {"hip-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx908", "11111111"},
    {"hipv4-amdgcn-amd-amdhsa--gfx1030", "hip-amdgcn-amd-amdhsa--gfx1030", "11111111"},
    {"hip-amdgcn-amd-amdhsa--gfx908", "openmp-amdgcn-amd-amdhsa--gfx908", "01010101"},
    {"openmp-amdgcn-amd-amdhsa--gfx906:xnack-", "openmp-amdgcn-amd-amdhsa--gfx906:xnack-:sramecc+",
     "11111111"},
    {"openmp-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx906:xnack-", "01010101"},
    {"hip-amdgcn-amd-amdhsa--gfx1030", "hip-amdgcn-amd-amdhsa--gfx1030:xnack+", "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx1030:xnack+", "hip-amdgcn-amd-amdhsa--gfx1030:xnack+", "11111111"},
    {"hip-amdgcn-amd-amdhsa--gfx1030:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx1030:xnack+",
     "00000000"},
    {"hip-amdgcn-amd-amdhsa--sm_70", "hip-amdgcn-amd-amdhsa--sm_70", "11111111"},
    {"hip-amdgcn-amd-amdhsa--sm_70", "hipv4-amdgcn-amd-amdhsa--sm_70", "00000000"},
    {"hip-nvptx64-nvidia-cuda--sm_70", "hipv4-nvptx64-nvidia-cuda--sm_70", "11111111"},
    {"hip-nvptx64-nvidia-cuda--sm_70", "hip-nvptx64-nvidia-cuda--sm_70", "11111111"},
    {"hip-nvptx64-nvidia-cuda--sm_70:xnack+", "hipv4-nvptx64-nvidia-cuda--sm_70:xnack+",
     "00000000"},
    {"hip-nvptx64-nvidia-cuda--sm_70", "hip-nvptx64-nvidia-cuda--sm_70:xnack+", "00000000"},
    {"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-unknown-sm_70", "11111111"},
    {"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda-gnu-sm_70", "00000000"},
    {"openmp-nvptx64-nvidia-cuda--sm_70", "openmp-nvptx64-nvidia-cuda--", "00000000"},
    {"openmp-nvptx64-nvidia-cuda--", "openmp-nvptx64-nvidia-cuda--sm_70", "00000000"},
    {"openmp-nvptx64--cuda--sm_70", "openmp-nvptx64-nvidia-cuda--sm_70", "00000000"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu", "11111111"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-linux-gnu--", "00111100"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-pc-linux-gnu", "00000000"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64--linux-gnu", "00111100"},
    {"host-x86_64-unknown-linux-gnu", "host-amd64-unknown-linux-gnu", "00111100"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnux32", "00000000"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-elf", "00000000"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux5.0-gnu", "00111100"},
    {"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-gnu", "00EE00EE"},
    {"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-", "00000000"},
    {"hip-amdgcn-amd-amdhsa-gnu-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", "00110011"},
    {"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-gnu-gfx90a", "00111100"},
    {"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn--amdhsa--gfx90a", "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack+", "11111111"},
    {"hip-amdgcn-amd-amdhsa--generic", "hipv4-amdgcn-amd-amdhsa--generic", "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx9-generic", "hipv4-amdgcn-amd-amdhsa--gfx9-generic:xnack+",
     "00111100"},
    {"hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+",
     "hip-amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-", "00111100"},
    {"hip-spirv64-amd-amdhsa--amdgcnspirv", "hipv4-spirv64-amd-amdhsa--amdgcnspirv", "11111111"},
    {"hip-amdgcn-amd-amdhsa--gfx940:xnack+", "hip-amdgcn-amd-amdhsa--gfx940:xnack+:sramecc+",
     "11111100"},
    {"hip-amdgcn-amd-amdhsa--gfx950:xnack+", "hip-amdgcn-amd-amdhsa--gfx950:xnack+:sramecc+",
     "11110000"},
    {"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+:foo+", "00000000"},
    {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:foo+:xnack+",
     "00000000"},
    {"openmp-x86_64-unknown-linux-gnu", "openmp-x86_64-unknown-linux-gnu-sm_70", "00000000"},
    {"openmp-x86_64-pc-windows-msvc", "openmp-x86_64-pc-win32-", "00111100"},
    {"openmp-x86_64-apple-macosx10.15", "openmp-x86_64-apple-macosx11-simulator", "00EE11EE"},
    {"openmp-aarch64-apple-ios-", "openmp-arm64-apple-ios-", "00111100"},
    {"openmp-i386-unknown-linux-gnu", "openmp-i686-unknown-linux-gnu", "00111100"},
};

static char compat_of(const char *entry, const char *req, enum ofl_llvm_dialect w,
                      enum ofl_llvm_dialect r, bool ho)
{
	struct ofl_bundle_id e0 = OFL_BUNDLE_ID_INIT, e = OFL_BUNDLE_ID_INIT;
	struct ofl_bundle_id q0 = OFL_BUNDLE_ID_INIT, q = OFL_BUNDLE_ID_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	if (ofl_bundle_id_parse(entry, w, &e0, &err) != 0)
		return 'E';
	char res = '?';
	if (ofl_bundle_id_split(e0.str, strlen(e0.str), r, &e, &err) == 0 &&
	    ofl_bundle_id_parse(req, r, &q0, &err) == 0 &&
	    ofl_bundle_id_split(q0.str, strlen(q0.str), r, &q, &err) == 0)
		res = ofl_bundle_id_compatible(&e, &q, ho) ? '1' : '0';
	ofl_bundle_id_release(&e0);
	ofl_bundle_id_release(&e);
	ofl_bundle_id_release(&q0);
	ofl_bundle_id_release(&q);
	return res;
}

OFL_TEST(compatibility_matches_llvm)
{
	static const enum ofl_llvm_dialect wr[4][2] = {
	    {OFL_LLVM19, OFL_LLVM19},
	    {OFL_LLVM22, OFL_LLVM22},
	    {OFL_LLVM19, OFL_LLVM22},
	    {OFL_LLVM22, OFL_LLVM19},
	};
	for (size_t i = 0; i < sizeof compat_rows / sizeof compat_rows[0]; i++) {
		char got[9] = "";
		for (size_t k = 0; k < 8; k++)
			got[k] = compat_of(compat_rows[i].entry, compat_rows[i].req, wr[k / 2][0],
			                   wr[k / 2][1], k % 2);
		if (strcmp(got, compat_rows[i].results) != 0)
			fprintf(stderr, "row %zu: %s vs %s\n", i, compat_rows[i].entry,
			        compat_rows[i].req);
		CHECK_STR(got, compat_rows[i].results);
	}
}

/* Triple spellings (arch aliases and sub-architectures, vendors, OSes,
 * environments, object formats; 19 knows fewer names), each with a target
 * ID so that 19 takes its processor path.  results: writer/reader 19/19,
 * 22/22, 19/22, 22/19. */
static const struct compat_row triple_rows[] = {
    {"host-x86_64h-unknown-linux-gnu-sm_70", "host-x86_64-unknown-linux-gnu-sm_70", "1111"},
    {"host-arm64e-apple-ios-sm_70", "host-arm64-apple-ios-sm_70", "0000"},
    {"host-arm64ec-pc-windows-msvc-sm_70", "host-arm64-pc-windows-msvc-sm_70", "0000"},
    {"host-powerpcspe-unknown-linux-gnu-sm_70", "host-powerpc-unknown-linux-gnu-sm_70", "0000"},
    {"host-spirv64v1.5-unknown-unknown-sm_70", "host-spirv64-unknown-unknown-sm_70", "0000"},
    {"host-kalimba4-unknown-unknown-sm_70", "host-kalimba-unknown-unknown-sm_70", "1100"},
    {"host-armv7a-unknown-linux-gnu-sm_70", "host-armv7-unknown-linux-gnu-sm_70", "1111"},
    {"host-armv7a-unknown-linux-gnu-sm_70", "host-thumbv7a-unknown-linux-gnu-sm_70", "1111"},
    {"host-armv7a-unknown-linux-gnu-sm_70", "host-armv8a-unknown-linux-gnu-sm_70", "0000"},
    {"host-i386-unknown-linux-gnu-sm_70", "host-i686-unknown-linux-gnu-sm_70", "1111"},
    {"host-mipsel-unknown-linux-gnu-sm_70", "host-mipsallegrexel-unknown-linux-gnu-sm_70", "1111"},
    {"host-mips-unknown-linux-gnu-sm_70", "host-mipsisa32r6-unknown-linux-gnu-sm_70", "0000"},
    {"host-x86_64-w64-windows-gnu-sm_70", "host-x86_64-pc-windows-gnu-sm_70", "0110"},
    {"host-x86_64-w64-windows-gnu", "host-x86_64-pc-windows-gnu", "0110"},
    {"host-thumbv7em-none-eabi-sm_70", "host-armv7em-none-eabi-sm_70", "1100"},
    {"host-thumbv7-apple-ios-sm_70", "host-armv7-apple-ios-sm_70", "1100"},
    {"host-armv7-unknown-linux-gnueabihf-sm_70", "host-thumbv7-unknown-linux-gnueabi-sm_70",
     "0000"},
    {"host-mips64-unknown-linux-gnu-sm_70", "host-mipsn32-unknown-linux-gnu-sm_70", "1111"},
    {"host-x86_64-unknown-uefi-sm_70", "host-x86_64-unknown-uefi-coff-sm_70", "1010"},
    {"host-x86_64-unknown-linux-elf-sm_70", "host-x86_64-unknown-linux-sm_70", "1001"},
    {"host-x86_64-apple-macosx-sm_70", "host-x86_64-apple-macosx-elf-sm_70", "1010"},
    {"host-x86_64-unknown-macosx-sm_70", "host-x86_64-unknown-macosx-macho-sm_70", "1010"},
    {"host-aarch64-unknown-linux-gnu-sm_70", "host-arm64-unknown-linux-gnu-sm_70", "1111"},
    {"openmp-amdgcn-apple-win32-gnu-gfx90a", "openmp-amdgcn-apple-win32-gnu-gfx90a", "1111"},
    {"hip-amd64--darwin-musl", "hip-amd64-unknown-darwin-eabi", "0000"},
    {"hip-amdgcn-pc-cuda-musl", "hip-i386-pc-win32-musl", "0000"},
    {"openmp-arm64-nvidia-freebsd-msvc-gfx90a", "openmp-spirv64v1.5-nvidia-windows-msvc-gfx90a",
     "0000"},
    {"hip-x86_64h-foo-darwin-eabi-sm_70", "hip-x86_64h-foo-darwin-eabi-sm_70", "1111"},
    {"hip-amd64-unknown-macosx11-eabi", "hip-thumbv7a-unknown-macosx10.15-eabi", "0000"},
    {"hip-spirv64-nvidia-unknown-unknown-gfx90a", "hip-spirv64-nvidia-unknown-unknown-gfx90a",
     "1111"},
    {"openmp-armv7a-pc-linux5.0-musl", "openmp-armv7a-pc-linux5.0-musl", "1111"},
    {"openmp-nvptx64-foo-macosx10.15-gnux32-gfx90a", "openmp-nvptx64-foo-macosx10.15-gnux32-gfx90a",
     "1111"},
    {"hip-i686-pc-windows-elf", "hip-i686-pc-windows-simulator", "0000"},
    {"openmp-nvptx64-w64-linux-coff", "openmp-nvptx64--linux-coff", "0110"},
    {"openmp-i386--linux-eabi-gfx90a", "openmp-arm64--linux-eabi-gfx90a", "0000"},
    {"openmp-i686-intel-amdhsa-msvc-sm_70", "openmp-i686-w64-amdhsa-msvc-sm_70", "1000"},
    {"openmp-spirv64v1.5-foo-macosx10.15-unknown", "openmp-spirv64v1.5-foo--unknown", "0000"},
    {"openmp-x86_64-unknown-unknown-eabi-gfx90a", "openmp-x86_64-unknown-windows-eabi-gfx90a",
     "0000"},
    {"openmp-x86_64h-nvidia--foo-gfx90a", "openmp-amdgcn-w64--foo-gfx90a", "0000"},
    {"hip-spirv64-foo-win32-coff-sm_70", "hip-spirv64-foo-win32-coff-sm_70", "1100"},
    {"hip-nvptx64-intel-macosx10.15-msvc-gfx90a", "hip-nvptx64-intel-macosx10.15-msvc-gfx90a",
     "1111"},
    {"openmp-amdgcn-apple-cuda-eabi-sm_70", "openmp-amdgcn-apple-cuda-eabi-sm_70", "1111"},
    {"hip-spirv64v1.5--linux5.0-simulator-sm_70", "hip-spirv64v1.5-foo-linux5.0-simulator-sm_70",
     "1111"},
    {"hip-spirv64-apple-freebsd-gnux32-sm_70", "hip-spirv64-apple-linux-gnux32-sm_70", "0000"},
    {"openmp-amdgcn-w64-macosx10.15-coff-gfx90a", "openmp-amdgcn--macosx10.15-coff-gfx90a", "1111"},
    {"hip-x86_64h-unknown--unknown-sm_70", "hip-x86_64h-unknown--unknown-sm_70", "1111"},
    {"openmp-x86_64h---gnu-gfx90a", "openmp-i686---gnu-gfx90a", "0000"},
    {"openmp-spirv64-unknown-unknown-simulator-gfx90a",
     "openmp-spirv64-unknown-unknown-simulator-gfx90a", "1111"},
    {"openmp-amd64-amd-freebsd-coff", "openmp-amd64-amd-freebsd-coff", "1111"},
    {"hip-x86_64-unknown-mingw32-gnu-sm_70", "hip-x86_64h-amd-mingw32-gnu-sm_70", "0100"},
    {"hip-amd64--linux5.0-elf", "hip-aarch64--darwin-elf", "0000"},
    {"openmp-amdgcn-foo--foo-sm_70", "openmp-amdgcn-foo-mingw32-foo-sm_70", "1001"},
    {"openmp-x86_64--windows--gfx90a", "openmp-amd64--windows--gfx90a", "1100"},
    {"openmp-i686-intel-unknown-gnu", "openmp-amdgcn-intel-darwin-gnu", "0000"},
    {"openmp-x86_64-pc-freebsd-coff", "openmp-x86_64-pc-linux-coff", "0000"},
    {"hip-i686-foo-linux5.0-gnux32-gfx90a", "hip-i686-intel-linux5.0-gnux32-gfx90a", "1001"},
    {"openmp-nvptx64-intel-unknown-msvc-sm_70", "openmp-nvptx64-intel-unknown--sm_70", "0000"},
    {"openmp-amd64--linux5.0-coff-gfx90a", "openmp-amd64-foo-linux5.0-coff-gfx90a", "1111"},
    {"hip-arm64-intel-win32-eabi-gfx90a", "hip-arm64-pc-win32-eabi-gfx90a", "0000"},
    {"openmp-x86_64-amd-macosx10.15-", "openmp-armv7a-amd-macosx10.15-", "0000"},
    {"hip-arm64-foo-mingw32-gnux32-sm_70", "hip-arm64-foo--gnux32-sm_70", "1010"},
    {"openmp-amdgcn-amd-darwin-elf-sm_70", "openmp-amdgcn-amd-darwin-elf-sm_70", "1111"},
    {"hip-i686-unknown-mingw32-musl-gfx90a", "hip-i686-nvidia-mingw32-musl-gfx90a", "0100"},
    {"hip-aarch64-w64-mingw32-simulator", "hip-aarch64-w64-unknown-simulator", "0010"},
    {"hip-x86_64-pc-darwin-foo", "hip-x86_64-w64-darwin-foo", "0000"},
    {"hip-nvptx64-apple-cuda-musl-sm_70", "hip-aarch64-apple-cuda-musl-sm_70", "0000"},
    {"hip-x86_64-w64-none-elf", "hip-x86_64-w64-unknown-elf", "0110"},
    {"hip-i686-nvidia-mingw32-msvc-gfx90a", "hip-i686-nvidia-mingw32-gnux32-gfx90a", "0100"},
    {"openmp-aarch64-pc-none-foo-gfx90a", "openmp-aarch64-pc-none-foo-gfx90a", "1111"},
    {"openmp-amdgcn-intel-mingw32-msvc-gfx90a", "openmp-amdgcn-nvidia-mingw32-msvc-gfx90a", "0100"},
    {"openmp-amdgcn-foo-unknown-simulator", "openmp-amdgcn-foo-unknown-simulator", "1111"},
    {"hip-i386-amd-macosx11-simulator", "hip-i386-amd-macosx11-simulator", "1111"},
    {"hip-x86_64h-w64-cuda-elf-sm_70", "hip-x86_64h-foo-cuda-elf-sm_70", "1111"},
    {"openmp-x86_64-w64-mingw32-coff", "openmp-x86_64-w64-mingw32-elf", "0100"},
    {"openmp-armv7a-apple-linux--sm_70", "openmp-armv7a-apple-linux--sm_70", "1111"},
    {"hip-arm64----sm_70", "hip-arm64--unknown--sm_70", "1111"},
    {"hip-nvptx64-foo-cuda-foo", "hip-nvptx64-foo-cuda-", "0110"},
    {"hip-thumbv7a-apple-unknown-msvc-sm_70", "hip-spirv64v1.5--unknown-msvc-sm_70", "0000"},
    {"hip-x86_64-foo-macosx10.15-coff-gfx90a", "hip-x86_64-foo-macosx10.15-coff-gfx90a", "1111"},
    {"openmp-amd64-w64-unknown-gnux32-sm_70", "openmp-spirv64v1.5-w64-unknown-gnux32-sm_70",
     "0000"},
    {"openmp-amd64-nvidia-freebsd-musl", "openmp-amd64-apple-freebsd-musl", "0000"},
    {"hip-aarch64-intel-windows-gnux32-gfx90a", "hip-aarch64-amd-windows-gnux32-gfx90a", "0000"},
    {"hip-spirv64-nvidia-windows-gnu-gfx90a", "hip-spirv64-nvidia-windows-gnu-gfx90a", "1111"},
    {"hip-aarch64-amd-unknown--gfx90a", "hip-aarch64-amd-unknown--gfx90a", "1111"},
    {"hip-aarch64-apple-amdhsa-foo-gfx90a", "hip-aarch64-apple-amdhsa-simulator-gfx90a", "1111"},
    {"openmp-aarch64-apple-macosx11-musl-sm_70", "openmp-aarch64-apple-macosx11-gnux32-sm_70",
     "1111"},
    {"hip-amd64-w64-none-unknown-gfx90a", "hip-amd64-unknown-none-unknown-gfx90a", "1111"},
    {"openmp-spirv64-unknown--musl", "openmp-spirv64-unknown--musl", "1110"},
    {"openmp-x86_64-intel-unknown-gnux32-sm_70", "openmp-x86_64--unknown-gnux32-sm_70", "1001"},
    {"openmp-spirv64--windows-unknown-gfx90a", "openmp-spirv64--win32-unknown-gfx90a", "1100"},
    {"hip-spirv64-foo-mingw32-gnu-gfx90a", "hip-aarch64-foo-mingw32-gnu-gfx90a", "0000"},
    {"hip-spirv64-foo-mingw32-gnu-gfx90a", "hip-spirv64--windows-gnu-gfx90a", "0101"},
    {"hip-x86_64-amd-macosx11--gfx90a", "hip-x86_64-w64-macosx11--gfx90a", "0000"},
    {"hip-arm64-apple-macosx11-msvc-gfx90a", "hip-arm64-apple-macosx11-msvc-gfx90a", "1111"},
};

OFL_TEST(triple_compatibility_matches_llvm)
{
	static const enum ofl_llvm_dialect wr[4][2] = {
	    {OFL_LLVM19, OFL_LLVM19},
	    {OFL_LLVM22, OFL_LLVM22},
	    {OFL_LLVM19, OFL_LLVM22},
	    {OFL_LLVM22, OFL_LLVM19},
	};
	for (size_t i = 0; i < sizeof triple_rows / sizeof triple_rows[0]; i++) {
		char got[5] = "";
		for (size_t k = 0; k < 4; k++)
			got[k] = compat_of(triple_rows[i].entry, triple_rows[i].req, wr[k][0],
			                   wr[k][1], false);
		if (strcmp(got, triple_rows[i].results) != 0)
			fprintf(stderr, "row %zu: %s vs %s\n", i, triple_rows[i].entry,
			        triple_rows[i].req);
		CHECK_STR(got, triple_rows[i].results);
	}
}

OFL_TEST(triple_compatibility)
{
	CHECK(ofl_triple_compatible("nvptx64-nvidia-cuda-", "nvptx64-nvidia-cuda-unknown",
	                            OFL_LLVM22));
	CHECK(!ofl_triple_compatible("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-",
	                             OFL_LLVM22));
	CHECK(ofl_triple_compatible("amd64-pc-linux-gnu", "x86_64-pc-linux-gnu", OFL_LLVM22));
	CHECK(!ofl_triple_compatible("x86_64-linux-gnu-", "x86_64-unknown-linux-gnu", OFL_LLVM22));
	CHECK(ofl_triple_compatible("x86_64-apple-macosx10.15-", "x86_64-apple-macosx11-sim",
	                            OFL_LLVM22));
	CHECK(!ofl_triple_compatible("amdgcn-amd-amdhsa-", "amdgcn-amd-amdpal-", OFL_LLVM22));
	CHECK(
	    ofl_triple_compatible("x86_64-unknown-linux-elf", "x86_64-unknown-linux-", OFL_LLVM22));
}

/* As clang reads --target: normalized (mingw32 and cygwin are Windows),
 * COFF for a Windows or UEFI OS unless the triple names another format;
 * MinGW and Cygwin are Windows of the GNU and Cygnus environments. */
OFL_TEST(triple_coff_and_msvc)
{
	static const struct {
		const char *triple;
		bool coff, msvc, cygming;
	} rows[] = {
	    {"x86_64-pc-windows-msvc", true, true, false},
	    {"x86_64-unknown-windows-msvc", true, true, false},
	    {"x86_64-pc-win32", true, true, false},
	    {"x86_64-pc-windows", true, true, false},
	    {"aarch64-pc-windows-msvc", true, true, false},
	    {"x86_64-w64-mingw32", true, false, true},
	    {"x86_64-w64-windows-gnu", true, false, true},
	    {"x86_64-w64-windows-gnullvm", true, false, true},
	    {"x86_64-pc-cygwin", true, false, true},
	    {"x86_64-pc-windows-cygnus", true, false, true},
	    {"x86_64-pc-windows-itanium", true, false, false},
	    {"x86_64-unknown-uefi", true, false, false},
	    {"x86_64-pc-windows-elf", false, false, false},
	    {"x86_64-pc-linux-gnu", false, false, false},
	    {"x86_64", false, false, false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (ofl_triple_is_coff(rows[i].triple) != rows[i].coff ||
		    ofl_triple_is_msvc(rows[i].triple) != rows[i].msvc ||
		    ofl_triple_is_cygming(rows[i].triple) != rows[i].cygming)
			fprintf(stderr, "triple %s\n", rows[i].triple);
		CHECK(ofl_triple_is_coff(rows[i].triple) == rows[i].coff);
		CHECK(ofl_triple_is_msvc(rows[i].triple) == rows[i].msvc);
		CHECK(ofl_triple_is_cygming(rows[i].triple) == rows[i].cygming);
	}
}

OFL_TEST(processor_tables)
{
	static const struct {
		const char *p;
		bool k19, k22;
	} rows[] = {
	    {"gfx90a", true, true},       {"gfx950", false, true},         {"gfx940", true, false},
	    {"gfx941", true, false},      {"gfx1153", false, true},        {"gfx1250", false, true},
	    {"gfx9-generic", true, true}, {"gfx9-4-generic", false, true}, {"generic", true, true},
	    {"amdgcnspirv", true, true},  {"sm_90a", true, true},          {"sm_100a", false, true},
	    {"sm_88", false, true},       {"bmg_g21", false, true},        {"Gfx90a", false, false},
	    {"gfx9999", false, false},    {"sm_100f", false, false},       {"pvc", false, false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		CHECK(ofl_processor_known(rows[i].p, strlen(rows[i].p), OFL_LLVM19) == rows[i].k19);
		CHECK(ofl_processor_known(rows[i].p, strlen(rows[i].p), OFL_LLVM22) == rows[i].k22);
	}
	CHECK(ofl_processor_known("", 0, OFL_LLVM19));
	CHECK(!ofl_processor_known("", 0, OFL_LLVM22));
	CHECK(ofl_processor_known("gfx90a:xnack+", 6, OFL_LLVM22));
	CHECK(ofl_triple_arch_known("amdgcn", 6, OFL_LLVM22));
	CHECK(ofl_triple_arch_known("spirv64v1.5", 11, OFL_LLVM22));
	CHECK(!ofl_triple_arch_known("armfoo", 6, OFL_LLVM22));
	CHECK(!ofl_triple_arch_known("amdgcnx", 6 + 1, OFL_LLVM22));
	CHECK(ofl_triple_arch_known("riscv64be", 9, OFL_LLVM22));
	CHECK(!ofl_triple_arch_known("riscv64be", 9, OFL_LLVM19));
	CHECK(!ofl_triple_arch_known("thumbv3", 7, OFL_LLVM22));
	CHECK(ofl_triple_arch_known("kalimbafoo", 10, OFL_LLVM19));
}

OFL_TEST(target_id_parse_and_canonical)
{
	struct ofl_target_id t = OFL_TARGET_ID_INIT;
	struct ofl_error e = OFL_ERROR_INIT;
	CHECK(ofl_target_id_parse("gfx90a:xnack+:sramecc-", &t, &e) == 0);
	CHECK_STR(t.processor, "gfx90a");
	CHECK_EQ_U(t.nfeatures, 2);
	CHECK_STR(t.features[0].name, "xnack");
	CHECK(t.features[0].sign == '+');
	CHECK(t.features[1].sign == '-');
	char *c = ofl_target_id_canonical(&t);
	CHECK_STR(c, "gfx90a:sramecc-:xnack+");
	free(c);
	ofl_target_id_release(&t);
	CHECK(ofl_target_id_parse("gfx90a:", &t, &e) == 0);
	CHECK_EQ_U(t.nfeatures, 0);
	ofl_target_id_release(&t);
	/* LLVM takes a lone sign as a feature with an empty name. */
	CHECK(ofl_target_id_parse("gfx90a:+", &t, &e) == 0);
	CHECK_EQ_U(t.nfeatures, 1);
	CHECK_STR(t.features[0].name, "");
	ofl_target_id_release(&t);
	/* LLVM takes a lone sign as a feature with an empty name. */
	CHECK(ofl_target_id_parse("gfx90a:+", &t, &e) == 0);
	CHECK_EQ_U(t.nfeatures, 1);
	CHECK_STR(t.features[0].name, "");
	ofl_target_id_release(&t);
	static const char *const bad[] = {"", ":xnack+", "gfx90a:xnack", "gfx90a:xnack+:xnack-",
	                                  "gfx90a::xnack+"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ofl_error_clear(&e);
		CHECK(ofl_target_id_parse(bad[i], &t, &e) == OFL_EINVAL);
		CHECK(t.processor == NULL && t.features == NULL);
	}
}

static bool conflict_str(const char *a, const char *b)
{
	struct ofl_target_id x = OFL_TARGET_ID_INIT, y = OFL_TARGET_ID_INIT;
	bool r = ofl_target_id_parse(a, &x, NULL) == 0 && ofl_target_id_parse(b, &y, NULL) == 0 &&
	         ofl_target_id_conflict(&x, &y);
	ofl_target_id_release(&x);
	ofl_target_id_release(&y);
	return r;
}

OFL_TEST(target_id_pairwise_conflict)
{
	CHECK(conflict_str("gfx90a", "gfx90a:xnack+"));
	CHECK(conflict_str("gfx90a:xnack+", "gfx90a"));
	CHECK(conflict_str("gfx90a:xnack+", "gfx90a:sramecc-"));
	CHECK(!conflict_str("gfx90a:xnack+", "gfx90a:xnack-"));
	CHECK(!conflict_str("gfx90a", "gfx908:xnack+"));
	CHECK(!conflict_str("gfx90a:sramecc+:xnack+", "gfx90a:xnack-:sramecc-"));
}

struct conflict_row {
	const char *ids[4];
	int want; /* 1: ids[first], ids[second] as LLVM prints them */
	int first, second;
};

/* Bundled with both versions: "Cannot bundle inputs with conflicting
 * targets: '<first>' and '<second>'", or success. */
static const struct conflict_row conflict_rows[] = {
    {{"gfx90a:xnack+", "gfx90a", NULL}, 1, 1, 0},
    {{"gfx90a:xnack+", "gfx90a:sramecc-", NULL}, 1, 1, 0},
    {{"gfx90a:sramecc+:xnack+", "gfx90a:xnack+", NULL}, 0, 0, 0},
    {{"gfx90a:xnack+", "gfx90a:sramecc+:xnack+", NULL}, 0, 0, 0},
    {{"gfx90a:xnack+", "gfx90a:xnack-", NULL}, 0, 0, 0},
    {{"gfx908:xnack+", "gfx90a", "gfx908", NULL}, 1, 2, 0},
    {{"gfx90a", "gfx90a", "gfx1030", NULL}, 0, 0, 0},
};

OFL_TEST(target_id_set_conflict)
{
	struct ofl_error e = OFL_ERROR_INIT;
	for (size_t i = 0; i < sizeof conflict_rows / sizeof conflict_rows[0]; i++) {
		size_t n = 0, a = 99, b = 99;
		while (n < 4 && conflict_rows[i].ids[n])
			n++;
		int rc = ofl_target_id_find_conflict(conflict_rows[i].ids, n, &a, &b, &e);
		CHECK_EQ_U(rc, conflict_rows[i].want);
		if (rc == 1) {
			CHECK_EQ_U(a, conflict_rows[i].first);
			CHECK_EQ_U(b, conflict_rows[i].second);
		}
	}
	const char *bad[] = {"gfx90a", "gfx90a:xnack"};
	size_t a, b;
	CHECK(ofl_target_id_find_conflict(bad, 2, &a, &b, &e) == OFL_EINVAL);
	CHECK(ofl_target_id_find_conflict(bad, 0, &a, &b, &e) == 0);
}

/* -list of a 30-entry bundle written by clang-offload-bundler 22.1.8 (the
 * keys in file order) and the order it printed. */
static const char *const list_keys[] = {
    "host-x86_64-unknown-linux-gnu-",    "hipv4-amdgcn-amd-amdhsa--gfx805",
    "hipv4-amdgcn-amd-amdhsa--gfx702",   "openmp-amdgcn-amd-amdhsa--gfx900",
    "hip-amdgcn-amd-amdhsa--gfx1100",    "openmp-amdgcn-amd-amdhsa--gfx704",
    "openmp-amdgcn-amd-amdhsa--gfx904",  "hip-amdgcn-amd-amdhsa--gfx1032",
    "hipv4-amdgcn-amd-amdhsa--gfx1200",  "hip-amdgcn-amd-amdhsa--gfx1031",
    "openmp-amdgcn-amd-amdhsa--gfx90c",  "openmp-amdgcn-amd-amdhsa--gfx1012",
    "openmp-amdgcn-amd-amdhsa--gfx602",  "hipv4-amdgcn-amd-amdhsa--gfx908",
    "openmp-amdgcn-amd-amdhsa--gfx1036", "openmp-amdgcn-amd-amdhsa--gfx1010",
    "openmp-amdgcn-amd-amdhsa--gfx1030", "hip-amdgcn-amd-amdhsa--gfx1012",
    "hip-amdgcn-amd-amdhsa--gfx1150",    "openmp-amdgcn-amd-amdhsa--gfx1011",
    "hipv4-amdgcn-amd-amdhsa--gfx1201",  "hipv4-amdgcn-amd-amdhsa--gfx900",
    "hip-amdgcn-amd-amdhsa--gfx802",     "hip-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx705",   "hip-amdgcn-amd-amdhsa--gfx909",
    "hip-amdgcn-amd-amdhsa--gfx703",     "openmp-amdgcn-amd-amdhsa--gfx1152",
    "hip-amdgcn-amd-amdhsa--gfx942",     "hip-amdgcn-amd-amdhsa--gfx801",
};
static const size_t list_order[] = {21, 20, 12, 18, 22, 27, 5, 1, 25, 16, 8,  23, 24, 14, 15,
                                    7,  3,  6,  28, 29, 26, 4, 2, 0,  9,  13, 10, 19, 17, 11};

static void order_of(const char *const *keys, size_t n, size_t *order)
{
	size_t lens[64];
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(keys[i]);
	if (ofl_stringmap_order(keys, lens, n, order) != 0)
		order[0] = SIZE_MAX - 1;
}

OFL_TEST(stringmap_order_matches_list)
{
	size_t order[30];
	order_of(list_keys, 30, order);
	for (size_t i = 0; i < 30; i++)
		CHECK_EQ_U(order[i], list_order[i]);
	/* docs/formats.md §1.6 example. */
	static const char *const k3[] = {"host-x86_64-unknown-linux-gnu-",
	                                 "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
	                                 "openmp-amdgcn-amd-amdhsa--gfx908"};
	order_of(k3, 3, order);
	CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0);
	CHECK(ofl_stringmap_order(NULL, NULL, 0, order) == 0);
}

OFL_TEST(stringmap_order_repeated_key)
{
	static const char *const k[] = {"b", "a", "b"};
	size_t order[3], seen_b = 0, seen_a = 0;
	order_of(k, 3, order);
	CHECK(order[2] == SIZE_MAX);
	for (size_t i = 0; i < 2; i++) {
		seen_b += order[i] == 2;
		seen_a += order[i] == 1;
	}
	CHECK(seen_a == 1 && seen_b == 1);
}

/* ---- offload targets as clang-linker-wrapper matches them ----------------
 *
 * The rows follow LLVM's own tests and sources: main's linker-wrapper.c
 * (@0725b258: AMDGPU-TRIPLE-MERGE, AMDGPU-SUBARCH-MERGE, AMD-XNACK-SPLIT,
 * AMD-SRAMECC-SPLIT, AMD-DISTINCT-PROC, AMDGPU-MAJOR-SUBARCH-SPLIT,
 * AMDGPU-SAME-MAJOR-NO-MERGE for equivalence; ARCH-ALL, AMD-TARGET-ID,
 * AMD-ARCHIVE-EXACT, AMD-ARCHIVE-SUBARCH-EXACT, AMD-ARCHIVE-GENERIC for
 * "provides for"), the predicates of main's OffloadBinary.cpp and
 * AMDGPUTargetParser.cpp, and 22's areTargetsCompatible. */

struct tgt_row {
	const char *t1, *a1, *t2, *a2;
	bool want;
};

static bool row_equiv(const struct tgt_row *r)
{
	struct ofl_offload_target a, b;
	ofl_offload_target_parse(r->t1, r->a1, &a);
	ofl_offload_target_parse(r->t2, r->a2, &b);
	return ofl_targets_equivalent(&a, &b);
}

static bool row_provides(const struct tgt_row *r)
{
	struct ofl_offload_target a, b;
	ofl_offload_target_parse(r->t1, r->a1, &a);
	ofl_offload_target_parse(r->t2, r->a2, &b);
	return ofl_target_provides(&a, &b);
}

static bool row_compat22(const struct tgt_row *r)
{
	struct ofl_offload_target a, b;
	ofl_offload_target_parse(r->t1, r->a1, &a);
	ofl_offload_target_parse(r->t2, r->a2, &b);
	return ofl_targets_compatible22(&a, &b);
}

#define HSA "amdgcn-amd-amdhsa"

OFL_TEST(amdgpu_subarch_spellings)
{
	static const struct {
		const char *triple, *proc;
	} rows[] = {
	    {"amdgpu9.0a-amd-amdhsa", "gfx90a"},
	    {"amdgpu9.00-amd-amdhsa", "gfx900"},
	    {"amdgpu10.30-amd-amdhsa", "gfx1030"},
	    {"amdgpu12.50-amd-amdhsa", "gfx1250"},
	    {"amdgpu8.10-amd-amdhsa", "gfx810"},
	    {"amdgpu9.42-amd-amdhsa", "gfx942"},
	    {"amdgpu9-amd-amdhsa", "gfx9-generic"},
	    {"amdgpu9.5-amd-amdhsa", "gfx9-4-generic"},
	    {"amdgpu10-amd-amdhsa", "gfx10-1-generic"},
	    {"amdgpu8-amd-amdhsa", ""},
	    {"amdgpu-amd-amdhsa", ""},
	    {HSA, ""},
	    {"amdgpu9.99-amd-amdhsa", ""},
	    {"amdgpufoo-amd-amdhsa", ""},
	};
	char p[32];
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		CHECK(ofl_amdgpu_subarch_processor(rows[i].triple, p, sizeof p) == !!*rows[i].proc);
		CHECK_STR(p, rows[i].proc);
	}
	CHECK(ofl_amdgpu_subarch_unknown("amdgpu9.99-amd-amdhsa"));
	CHECK(!ofl_amdgpu_subarch_unknown("amdgpu9.0a-amd-amdhsa"));
	CHECK(!ofl_amdgpu_subarch_unknown("amdgpu-amd-amdhsa"));
	CHECK(!ofl_amdgpu_subarch_unknown(HSA));
	/* 23 parses the amdgpu architecture, 22 does not */
	CHECK(ofl_triple_arch_known("amdgpu9.0a", 10, OFL_LLVM23));
	CHECK(!ofl_triple_arch_known("amdgpu9.0a", 10, OFL_LLVM22));
}

/* Triple::isCompatibleWith for amdgpu: the sub-architectures by AMDGPU's
 * rule (asymmetric for an unknown one, as LLVM's), the rest identical. */
OFL_TEST(amdgpu_triple_compatibility)
{
	static const struct {
		const char *a, *b;
		bool want;
	} rows[] = {
	    {HSA, "amdgpu9.0a-amd-amdhsa", true},
	    {"amdgpu-amd-amdhsa", HSA, true},
	    {"amdgpu9-amd-amdhsa", "amdgpu9.00-amd-amdhsa", true},
	    {"amdgpu9.06-amd-amdhsa", "amdgpu9-amd-amdhsa", true},
	    {"amdgpu9.00-amd-amdhsa", "amdgpu9.06-amd-amdhsa", false},
	    {"amdgpu9-amd-amdhsa", "amdgpu9.0a-amd-amdhsa", false},
	    {"amdgpu9.08-amd-amdhsa", "amdgpu9.0a-amd-amdhsa", false},
	    {"amdgpu9.5-amd-amdhsa", "amdgpu9.42-amd-amdhsa", true},
	    {"amdgpu10-amd-amdhsa", "amdgpu10.3-amd-amdhsa", false},
	    {"amdgpu9.0a-amd-amdhsa", "amdgpu9.0a-amd-amdhsa", true},
	    {"amdgpu9.99-amd-amdhsa", HSA, false},
	    {HSA, "amdgpu9.99-amd-amdhsa", true},
	    {"amdgpu9.0a-amd-amdhsa", "amdgpu9.0a-amd-amdpal", false},
	    {"amdgpu9.0a-amd-amdhsa", "amdgpu9.0a-unknown-amdhsa", false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (ofl_triple_compatible(rows[i].a, rows[i].b, OFL_LLVM23) != rows[i].want)
			fprintf(stderr, "row %zu: %s %s\n", i, rows[i].a, rows[i].b);
		CHECK(ofl_triple_compatible(rows[i].a, rows[i].b, OFL_LLVM23) == rows[i].want);
	}
	CHECK(!ofl_triple_compatible(HSA, "amdgpu9.0a-amd-amdhsa", OFL_LLVM22));
}

OFL_TEST(targets_equivalent_as_llvm_main)
{
	static const struct tgt_row rows[] = {
	    {HSA, "gfx90a", "amdgpu-amd-amdhsa", "gfx90a", true},
	    {"amdgpu9.0a-amd-amdhsa", "", "amdgpu9.0a-amd-amdhsa", "", true},
	    {"amdgpu9.0a-amd-amdhsa", "", HSA, "gfx90a", true},
	    {"amdgpu9.0a-amd-amdhsa", "gfx90a", HSA, "gfx90a", true},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a:xnack-", false},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a", false},
	    {HSA, "gfx90a:sramecc+", HSA, "gfx90a", false},
	    {HSA, "gfx90a:sramecc-:xnack+", HSA, "gfx90a:xnack+:sramecc-", true},
	    {HSA, "gfx900", HSA, "gfx9-generic", false},
	    {HSA, "gfx900", HSA, "gfx906", false},
	    {"amdgpu9-amd-amdhsa", "", "amdgpu9.00-amd-amdhsa", "", false},
	    {"amdgpu9-amd-amdhsa", "", HSA, "gfx9-generic", true},
	    {"amdgpu9.0a-amd-amdhsa", "", "amdgpu9.08-amd-amdhsa", "", false},
	    /* a feature the processor lacks is no setting */
	    {HSA, "gfx1030:xnack+", HSA, "gfx1030", true},
	    {"nvptx64-nvidia-cuda", "sm_70", "nvptx64-nvidia-cuda", "sm_70", true},
	    {"nvptx64-nvidia-cuda", "sm_70", "nvptx64-nvidia-cuda", "sm_80", false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (row_equiv(&rows[i]) != rows[i].want)
			fprintf(stderr, "row %zu: %s %s / %s %s\n", i, rows[i].t1, rows[i].a1,
			        rows[i].t2, rows[i].a2);
		CHECK(row_equiv(&rows[i]) == rows[i].want);
	}
}

/* provided first, requested second */
OFL_TEST(target_provides_as_llvm_main)
{
	static const struct tgt_row rows[] = {
	    {"amdgpu-amd-amdhsa", "generic", "amdgpu-amd-amdhsa", "gfx90a", true},
	    {"amdgpu-amd-amdhsa", "generic", "amdgpu-amd-amdhsa", "gfx908", true},
	    {HSA, "generic", "amdgpu9.0a-amd-amdhsa", "", true},
	    {"amdgpu9.0a-amd-amdhsa", "gfx90a", "amdgpu9.0a-amd-amdhsa", "gfx90a:xnack+", true},
	    {"amdgpu9.0a-amd-amdhsa", "gfx90a", "amdgpu9.0a-amd-amdhsa", "gfx90a:xnack-", true},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a", false},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a:xnack-", false},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a:sramecc-:xnack+", true},
	    {HSA, "gfx90a", HSA, "gfx90a", true},
	    {HSA, "gfx90a", "amdgpu9.0a-amd-amdhsa", "", true},
	    {"amdgpu9-amd-amdhsa", "", HSA, "gfx900", true},
	    {"amdgpu9-amd-amdhsa", "", HSA, "gfx906:sramecc+", true},
	    {HSA, "gfx9-generic", HSA, "gfx90a", false},
	    {HSA, "gfx900", HSA, "gfx9-generic", false},
	    {HSA, "gfx90a", HSA, "gfx908", false},
	    {"amdgpu9.0a-amd-amdhsa", "gfx90a", "amdgpu9.08-amd-amdhsa", "gfx908", false},
	    {HSA, "gfx9-4-generic", HSA, "gfx950", true},
	    {HSA, "gfx9999", HSA, "gfx9999", true},
	    {HSA, "gfx9999", HSA, "gfx90a", false},
	    {"nvptx64-nvidia-cuda", "generic", "nvptx64-nvidia-cuda", "sm_70", true},
	    {"nvptx64-nvidia-cuda", "sm_70", "nvptx64-nvidia-cuda", "sm_70", true},
	    {"nvptx64-nvidia-cuda", "sm_70", "nvptx64-nvidia-cuda", "sm_80", false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (row_provides(&rows[i]) != rows[i].want)
			fprintf(stderr, "row %zu: %s %s / %s %s\n", i, rows[i].t1, rows[i].a1,
			        rows[i].t2, rows[i].a2);
		CHECK(row_provides(&rows[i]) == rows[i].want);
	}
}

OFL_TEST(targets_compatible_as_llvm_22)
{
	static const struct tgt_row rows[] = {
	    {HSA, "gfx90a", HSA, "gfx90a", false},
	    {HSA, "gfx90a", HSA, "gfx90a:xnack+", true},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a", true},
	    {HSA, "gfx90a:xnack+", HSA, "gfx90a:xnack-", false},
	    {HSA, "gfx90a:sramecc+", HSA, "gfx90a:sramecc-:xnack+", false},
	    {HSA, "gfx90a:sramecc+", HSA, "gfx90a:xnack+", true},
	    {HSA, "generic", HSA, "gfx908", true},
	    {HSA, "gfx90a", HSA, "gfx908", false},
	    {HSA, "gfx90a", "amdgpu-amd-amdhsa", "gfx90a:xnack+", false},
	    {HSA, "gfx900", HSA, "gfx9-generic", false},
	    {"nvptx64-nvidia-cuda", "generic", "nvptx64-nvidia-cuda", "sm_70", true},
	    {"nvptx64-nvidia-cuda", "sm_70", "nvptx64-nvidia-cuda", "sm_80", false},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (row_compat22(&rows[i]) != rows[i].want)
			fprintf(stderr, "row %zu: %s %s / %s %s\n", i, rows[i].t1, rows[i].a1,
			        rows[i].t2, rows[i].a2);
		CHECK(row_compat22(&rows[i]) == rows[i].want);
	}
}

/* Bundle entry IDs of main's HIP fat binaries: 23 reads their triples,
 * and an amdgcn request finds them; 22 knows no amdgpu triple. */
OFL_TEST(bundle_ids_with_amdgpu_triples)
{
	struct ofl_bundle_id e = OFL_BUNDLE_ID_INIT, r = OFL_BUNDLE_ID_INIT;
	struct ofl_error err = OFL_ERROR_INIT;
	const char *id = "hip-amdgpu9.0a-amd-amdhsa--gfx90a";
	CHECK(ofl_bundle_id_parse(id, OFL_LLVM22, &e, &err) == OFL_EINVAL);
	CHECK(strstr(err.msg, "unknown target triple 'amdgpu9.0a-amd-amdhsa-'"));
	CHECK(ofl_bundle_id_parse(id, OFL_LLVM23, &e, &err) == 0);
	CHECK_STR(e.str, "hip-amdgpu9.0a-amd-amdhsa--gfx90a");
	ofl_bundle_id_release(&e);
	CHECK(ofl_bundle_id_split(id, strlen(id), OFL_LLVM23, &e, &err) == 0);
	CHECK_STR(e.target_id, "gfx90a");
	const char *want = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+";
	CHECK(ofl_bundle_id_split(want, strlen(want), OFL_LLVM23, &r, &err) == 0);
	CHECK(ofl_bundle_id_compatible(&e, &r, false));
	ofl_bundle_id_release(&r);
	want = "hip-amdgpu9.08-amd-amdhsa--gfx90a";
	CHECK(ofl_bundle_id_split(want, strlen(want), OFL_LLVM23, &r, &err) == 0);
	CHECK(!ofl_bundle_id_compatible(&e, &r, false));
	ofl_bundle_id_release(&r);
	ofl_bundle_id_release(&e);
}
