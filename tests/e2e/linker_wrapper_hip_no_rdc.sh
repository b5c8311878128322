#!/usr/bin/env bash
# LLVM's own test of verbose device tools, linker-wrapper-hip-no-rdc.c
# (clang/test/Driver, LLVM 22), re-done against the personality with its
# device-link cache on, twice: --device-compiler=-v and
# --device-linker=<triple>=-v with --wrapper-verbose print each device
# clang command and, from clang -v, its ld.lld command, both naming the
# image as LLVM does (<out>.amdgcn.<arch>...img).  Such a link runs its
# tools as given each time (uncached, said): before, the cache ran ld.lld
# directly under hashed names and a hit ran nothing, so no ld.lld line.
# The same checks pass on LLVM 22's own output; the fat binary lists and
# unbundles with LLVM's clang-offload-bundler.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/llvm-offload-binary" \
	"$LLVM22/clang-offload-bundler" "$LLVM22/ld.lld"
unset OFFLINK_CACHE
echo '__attribute__((visibility("protected"), used)) int x;' >x.c
"$LLVM22/clang" -cc1 x.c -triple amdgcn-amd-amdhsa -emit-llvm-bc -o amdgpu.bc || fail "bitcode"
"$LLVM22/llvm-offload-binary" -o t.out \
	--image=file=amdgpu.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx9-4-generic:xnack+ \
	--image=file=amdgpu.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx1200 || fail "package"

# dag FILE REGEX...: each regex matches some line (FileCheck's CHECK-DAG)
dag() {
	local f=$1 r
	shift
	for r in "$@"; do
		grep -Eq -- "$r" "$f" || { cat "$f"; fail "$f: no line matches $r"; }
	done
}
# run WRAPPER NAME: the lit test's command, its checks and the bundle's
run() {
	local w=$1 n=$2
	"$w" --wrapper-verbose --device-linker=amdgcn-amd-amdhsa=-v --device-compiler=-v \
		--emit-fatbin-only --linker-path=/usr/bin/ld t.out -o $n.hipfb >$n.log 2>&1 ||
		{ cat $n.log; fail "$n: link"; }
	dag $n.log 'clang.* -o .*hipfb\.amdgcn\.gfx9-4-generic:xnack\+.*\.img' \
		'clang.* -o .*hipfb\.amdgcn\.gfx1200.*\.img' \
		'ld\.lld.* -o .*hipfb\.amdgcn\.gfx9-4-generic:xnack\+.*\.img' \
		'ld\.lld.* -o .*hipfb\.amdgcn\.gfx1200.*\.img'
	"$LLVM22/clang-offload-bundler" -type=o -input=$n.hipfb -list >$n.list || fail "$n: list"
	dag $n.list '^hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack\+$' \
		'^hip-amdgcn-amd-amdhsa--gfx1200$' '^host-x86_64'
	"$LLVM22/clang-offload-bundler" -type=o \
		-targets=hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+,hip-amdgcn-amd-amdhsa--gfx1200 \
		-output=$n.xnack.co -output=$n.gfx1200.co -input=$n.hipfb -unbundle || fail "$n: unbundle"
	[ -s $n.xnack.co ] && [ -s $n.gfx1200.co ] || fail "$n: empty code objects"
}
run "$LLVM22/clang-linker-wrapper" llvm
for n in ours1 ours2; do
	run "$OFL_COMPAT/clang-linker-wrapper" $n
	[ "$(grep -c 'not cached' $n.log)" = 2 ] || { cat $n.log; fail "$n: not said uncached"; }
done
# the device tools' stdout is shown too (ld.lld -v prints its version there)
grep -q '^Debian LLD\|^LLD ' ours1.log || { cat ours1.log; fail "ld.lld's version line not shown"; }
echo "LLVM's linker-wrapper-hip-no-rdc.c: passes with the cache on"
