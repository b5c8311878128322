/* Target IDs and bundle entry IDs.
 *
 * Every table below was verified against the real tools, clang-offload-bundler
 * 19.1.7 and 22.1.8 (Debian): the parse table by bundling each -targets
 * string and reading the ID back with -list (or the error it printed), the
 * compatibility table by bundling the entry with one version and unbundling
 * the request with the same or the other version, the -list order and the
 * conflict pairs by bundling with both.  Rows where LLVM crashes (malformed
 * features) and dxil triples (normalized to dxilv1.x, not modelled) are left
 * out.
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

OFL_TEST(triple_compatibility)
{
        CHECK(ofl_triple_compatible("nvptx64-nvidia-cuda-", "nvptx64-nvidia-cuda-unknown"));
        CHECK(!ofl_triple_compatible("x86_64-unknown-linux-gnu", "x86_64-unknown-linux-"));
        CHECK(ofl_triple_compatible("amd64-pc-linux-gnu", "x86_64-pc-linux-gnu"));
        CHECK(!ofl_triple_compatible("x86_64-linux-gnu-", "x86_64-unknown-linux-gnu"));
        CHECK(ofl_triple_compatible("x86_64-apple-macosx10.15-", "x86_64-apple-macosx11-sim"));
        CHECK(!ofl_triple_compatible("amdgcn-amd-amdhsa-", "amdgcn-amd-amdpal-"));
        CHECK(ofl_triple_compatible("x86_64-unknown-linux-elf", "x86_64-unknown-linux-"));
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
        CHECK(ofl_triple_arch_known("amdgcn", 6));
        CHECK(ofl_triple_arch_known("spirv64v1.5", 11));
        CHECK(!ofl_triple_arch_known("armfoo", 6));
        CHECK(!ofl_triple_arch_known("amdgcnx", 6 + 1));
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
        /* formats.md §1.6 example. */
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
