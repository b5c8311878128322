#!/usr/bin/env bash
# HIP's old (default) driver with -fgpu-rdc: clang --hip-link gives its lld
# the level of the driver's -O (-plugin-opt=O0 at -O0), and every offlink
# route links the fat objects' device code at that level too: ld.offlink
# and the plugin (the driver's -O), --device-opt-level over it, and the
# personality's --opt-level (LLVM 19's driver passes it).  The gfx90a
# image at -O0 equals clang --hip-link's at -O0, which differs from its
# image at -O2 (before, offlink linked at O2 while --explain said -O0).
source "$OFL_SRC/tests/lib.sh"
need cc ld.bfd "$LLVM22/clang" "$LLVM22/lld"
hip_rdc_kernel "$LLVM22/clang"

for o in -O0 -O2; do
	hip_link ref$o "$LLVM22/clang" $o --hip-link -fgpu-rdc --offload-arch=gfx90a stub.o k.o -L. -rdynamic -ldl
done
! diff -r ref-O0/img ref-O2/img >/dev/null || fail "the images at -O0 and -O2 are the same"

# same_o0 NAME: NAME's images are clang --hip-link's at -O0 (each route
# checked, the test failing at the end)
same_o0() { diff -r ref-O0/img $1/img >/dev/null || failed_case $1 "not the image of clang --hip-link -O0"; }
HOST=(stub.o k.o -rdynamic -ldl)
hip_link ld "$LLVM22/clang" -O0 -B"$OFL_BUILD/bin" -fuse-ld=offlink "${HOST[@]}" \
	-Wl,--explain="$PWD/ld.explain"
same_o0 ld
grep -q '^device code optimisation: -O0, the -O0 of the compiler driver' ld.explain &&
	grep '^run: .*--target=amdgcn-amd-amdhsa' ld.explain | grep -q '"-O0"' ||
	{ cat ld.explain; failed_case ld "-O0 not said or not given to the device link"; }
hip_link plugin plink "$LLVM22/clang" -O0 -fuse-ld=bfd -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
	"${HOST[@]}"
same_o0 plugin
hip_link given "$LLVM22/clang" -O2 -B"$OFL_BUILD/bin" -fuse-ld=offlink "${HOST[@]}" \
	-Wl,--device-opt-level=O0
same_o0 given
hip_link personality "$OFL_COMPAT/clang-linker-wrapper" --opt-level=O0 \
	--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -shared k.o
same_o0 personality
check_all "routes linking at another level"
echo "old-driver HIP device code linked at the driver's level on every route"
