#!/usr/bin/env bash
# HIP's old (default) driver with -fgpu-rdc, LLVM 19: clang-19 --hip-link
# gives its lld no --lto-partitions (clang-22's gives --lto-partitions=8)
# and bundles the code objects in 19's dialect (host entry
# host-x86_64-unknown-linux--).  Device code clang-19 made is linked with
# clang-19 on every route (ld.offlink and the plugin under clang-19, the
# personality), and the program's fat binary is clang-19's own, byte for
# byte: its gfx90a image and the bundle around it (before, offlink gave
# 19's lld --lto-partitions=8, an image of another layout, in a bundle of
# 22's dialect).
source "$OFL_SRC/tests/lib.sh"
need cc objcopy "$LLVM19/clang" "$LLVM19/ld.lld"
hip_rdc_kernel "$LLVM19/clang"

# link NAME CMD...: hip_link, and the program's fat binary in NAME/fb
link() {
	hip_link "$@"
	objcopy -O binary --only-section=.hip_fatbin $1/prog $1/fb || fail "$1: objcopy"
}
link ref "$LLVM19/clang" -O2 --hip-link -fgpu-rdc --offload-arch=gfx90a stub.o k.o -L. \
	-rdynamic -ldl
ls ref/img | grep -q 'gfx90a\.o$' || fail "clang-19 --hip-link: no gfx90a image"

# same NAME: NAME's gfx90a image and fat binary are clang-19 --hip-link's
same() {
	cmp -s ref/img/*gfx90a.o $1/img/*gfx90a.o ||
		failed_case $1 "gfx90a image not the one of clang-19 --hip-link"
	cmp -s ref/fb $1/fb || failed_case $1 "fat binary not the one of clang-19 --hip-link"
}
HOST=(stub.o k.o -L. -rdynamic -ldl)
link ld "$LLVM19/clang" -O2 -B"$OFL_BUILD/bin" -fuse-ld=offlink "${HOST[@]}" \
	-Wl,--explain="$PWD/ld.explain"
same ld
grep '^run: .*--target=amdgcn-amd-amdhsa' ld.explain | grep -q '"/usr/lib/llvm-19/bin/clang"' ||
	failed_case ld "not linked with clang-19"
! grep '^run: .*--target=amdgcn-amd-amdhsa' ld.explain | grep -q 'lto-partitions' ||
	failed_case ld "--lto-partitions given to LLVM 19's device link"
link plugin plink "$LLVM19/clang" -O2 -fuse-ld=bfd \
	-Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" "${HOST[@]}"
same plugin
link personality "$OFL_COMPAT/clang-linker-wrapper" --opt-level=O2 \
	--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -shared k.o
same personality
check_all "routes unlike clang-19 --hip-link"
echo "old-driver HIP device code of LLVM 19 linked and bundled as clang-19 --hip-link does"
