#!/usr/bin/env bash
# HIP non-RDC compiles as clang-23 runs them: clang-linker-wrapper
# --emit-fatbin-only over a raw version-2 OffloadBinary (one entry per
# GPU), the bundle's host entry named after the host triple the driver
# passes (LLVM 23, #184195; 19 and 22 write x86_64 whatever the host).
# The bundle must be the bytes clang-offload-bundler writes for those
# -targets from the same linked images.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" "$LLVM22/clang-offload-bundler"
W=$OFL_COMPAT/clang-linker-wrapper
mkdir tmp
export TMPDIR=$PWD/tmp
echo '__attribute__((visibility("protected"))) int k;' >k.c
"$LLVM22/clang" -cc1 -triple amdgcn-amd-amdhsa -emit-llvm-bc k.c -o k.bc || fail "device bitcode"
for v in 22 23; do # as each release's driver packs them (23: one binary)
	"$OFL_COMPAT/llvm-offload-binary" --llvm-version=$v -o k$v.bin \
		--image=file=k.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a \
		--image=file=k.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx908 || fail "pack $v"
done

# fatbin HOST RELEASE HOST-ENTRY: the bundle of k<RELEASE>.bin; then the reference from LLVM's
# bundler over the images the wrapper linked (kept by --save-temps)
fatbin() {
	rm -rf tmp/*
	"$W" --llvm-version=$2 --host-triple=$1 --emit-fatbin-only --save-temps \
		--linker-path=/usr/bin/ld k$2.bin -o $1.$2.hipfb 2>$1.$2.err || { cat $1.$2.err; fail "$1 $2"; }
	local d img90a= img908= f
	d=$(sed -n 's/.*temporaries kept in //p' $1.$2.err)
	for f in "$d"/*.img; do
		case $("$LLVM22/llvm-readelf" -h "$f") in
		*gfx90a*) img90a=$f ;;
		*gfx908*) img908=$f ;;
		esac
	done
	[ -n "$img90a" ] && [ -n "$img908" ] || fail "linked images not found in $d"
	"$LLVM22/clang-offload-bundler" -type=o -bundle-align=4096 \
		-targets=host-$3,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908 \
		-input=/dev/null -input="$img90a" -input="$img908" -output=$1.$2.ref || fail "bundler"
	same $1.$2.ref $1.$2.hipfb
}
fatbin aarch64-unknown-linux-gnu 23 aarch64-unknown-linux-gnu
fatbin x86_64-pc-linux-gnu 23 x86_64-pc-linux-gnu
fatbin aarch64-unknown-linux-gnu 22 x86_64-unknown-linux-gnu
