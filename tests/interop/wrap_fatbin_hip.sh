#!/usr/bin/env bash
# offlink wrap --kind=hip building the .hipfb itself from linked AMDGPU code
# objects: byte for byte what clang-offload-bundler 19/22 writes for
# clang-linker-wrapper's command line (docs/abi.md, "Fat binaries for CUDA and HIP"), what
# clang-linker-wrapper 19/22 itself leaves with --save-temps, and the same
# registration (stub runtime) as wrapping LLVM's .hipfb.
source "$OFL_SRC/tests/lib.sh"
need cc "$LLVM22/clang" "$LLVM19/clang" "$LLVM19/clang-offload-bundler" \
	"$LLVM22/clang-offload-bundler" "$LLVM22/clang-linker-wrapper" "$LLVM19/clang-linker-wrapper" \
	"$LLVM22/ld.lld"

SRC=$OFL_SRC/tests/interop/wrap_stub_src
T=x86_64-pc-linux-gnu
ARCHS="gfx90a gfx908:xnack- gfx1030"

# Real code objects: device-only compiles, unbundled from clang's bundle
for a in $ARCHS; do
	f=${a//:/_}
	"$LLVM22/clang" -x hip --offload-arch=$a -nogpulib -nogpuinc --cuda-device-only -c \
		"$SRC/gpu.cu" -o dev.$f.o 2>/dev/null || fail "clang-22 --offload-arch=$a"
	"$LLVM22/clang-offload-bundler" -unbundle -type=o -input=dev.$f.o -output=$f.img \
		-targets=hipv4-amdgcn-amd-amdhsa--$a || fail "unbundle $a"
	head -c 4 $f.img | grep -q ELF || fail "$f.img is not a code object"
done
imgs=(--image=file=gfx1030.img,arch=gfx1030 --image=file=gfx908_xnack-.img,arch=gfx908:xnack-
	--image=file=gfx90a.img,arch=gfx90a)

# bundler V KIND [extra bundler args]: the linker wrapper's bundler command
# (images sorted by arch, descending: gfx90a, gfx908:xnack-, gfx1030)
bundler() {
	local v=$1 kind=$2 host=host-x86_64-unknown-linux-gnu
	shift 2
	local out=ref$v.$kind${*// /}.hipfb
	[ $v = 19 ] && host=host-x86_64-unknown-linux
	local llvm=LLVM$v
	"${!llvm}/clang-offload-bundler" -type=o -bundle-align=4096 "$@" \
		-targets=$host,$kind-amdgcn-amd-amdhsa--gfx90a,$kind-amdgcn-amd-amdhsa--gfx908:xnack-,$kind-amdgcn-amd-amdhsa--gfx1030 \
		-input=/dev/null -input=gfx90a.img -input=gfx908_xnack-.img -input=gfx1030.img \
		-output="$out" || fail "clang-offload-bundler $v $kind $*"
	echo "$out"
}
for v in 22 19; do
	abi=llvm20
	[ $v = 19 ] && abi=llvm19
	ref=$(bundler $v hip)
	"$OFFLINK" wrap --kind=hip --abi=$abi "${imgs[@]}" -o ours$v.hipfb || fail "wrap $v"
	same "$ref" ours$v.hipfb
	ref=$(bundler $v hipv4)
	"$OFFLINK" wrap --kind=hip --abi=$abi --hipv4 --emit=fatbin "${imgs[@]}" -o ours$v.v4 ||
		fail "wrap --hipv4 $v"
	same "$ref" ours$v.v4
	ref=$(bundler $v hip -compress)
	"$OFFLINK" wrap --kind=hip --abi=$abi --compress "${imgs[@]}" -o ours$v.z.hipfb ||
		fail "wrap --compress $v"
	same "$ref" ours$v.z.hipfb
	ref=$(bundler $v hip -compress -compression-level=9)
	"$OFFLINK" wrap --kind=hip --abi=$abi --compress --compression-level=9 "${imgs[@]}" \
		-o ours$v.z9.hipfb || fail "wrap --compression-level $v"
	same "$ref" ours$v.z9.hipfb
done
cmp -s ours22.hipfb ours19.hipfb && fail "19 and 22 host entries should differ"
head -c 8 ours22.z.hipfb | od -An -tx1 | grep -q '43 43 4f 42 03 00' || fail "22: not CCOB v3"
head -c 8 ours19.z.hipfb | od -An -tx1 | grep -q '43 43 4f 42 02 00' || fail "19: not CCOB v2"

# OffloadBinaries carry their arch; raw ELF without one is refused
"$OFFLINK" package -o p.bin \
	--image=file=gfx1030.img,triple=amdgcn-amd-amdhsa,arch=gfx1030,kind=hip || fail "package"
"$OFFLINK" wrap --kind=hip -o ob.hipfb p.bin || fail "wrap an OffloadBinary"
"$LLVM22/clang-offload-bundler" -type=o -bundle-align=4096 \
	-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx1030 \
	-input=/dev/null -input=gfx1030.img -output=ob.ref || fail "bundler one image"
same ob.ref ob.hipfb
expect_fail "$OFFLINK" wrap --kind=hip -o x.o gfx90a.img
expect_err_line 'gfx90a.img: hip image 0 has no arch'
expect_fail "$OFFLINK" wrap --kind=hip -o x.o --image=file=gfx90a.img,arch=gfx90a ours22.hipfb
expect_err_line 'cannot mix device images with a finished fat binary'
expect_fail "$OFFLINK" wrap --kind=hip -o x.o --image=file=gfx90a.img,arch=gfx90a \
	--image=file=gfx1030.img,arch=gfx90a:xnack+
expect_err_line "conflicting hip target IDs 'gfx90a' and 'gfx90a:xnack\+'"

# clang-linker-wrapper 19/22 on a two-arch RDC program: its .hipfb equals
# ours from its linked images, and so do the registrations.
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.o || fail "compile stub"
run_log() {
	local out=$1 es=$2
	shift 2
	cc -rdynamic stub.o "$@" -o "$out.exe" -ldl || fail "link $out"
	STUB_ENTRY=$es "./$out.exe" >"$out.log" || fail "$out.exe failed"
	grep -q '__hipRegisterFunction(h, .*_Z4kernPi' "$out.log" || fail "$out: no kernel"
}
for v in 22 19; do
	llvm=LLVM$v
	llvm=${!llvm}
	abi=llvm20 es=56
	[ $v = 19 ] && abi=llvm19 es=32
	"$llvm/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib \
		--offload-arch=gfx1030 --offload-arch=gfx90a -fPIC -c "$SRC/gpu.cu" -o h$v.o 2>/dev/null ||
		fail "clang-$v -x hip"
	"$llvm/clang-linker-wrapper" --host-triple=$T --linker-path=/bin/true --save-temps \
		-o h$v h$v.o >/dev/null 2>&1 || fail "clang-linker-wrapper $v"
	[ -f h$v.amdgcn.gfx90a.img ] && [ -f h$v.amdgcn.gfx1030.img ] || fail "$v: no linked images"
	dev=(--image=file=h$v.amdgcn.gfx1030.img,arch=gfx1030
		--image=file=h$v.amdgcn.gfx90a.img,arch=gfx90a)
	"$OFFLINK" wrap --kind=hip --abi=$abi --emit=fatbin "${dev[@]}" -o h$v.ours.hipfb ||
		fail "wrap --emit=fatbin $v"
	same h$v.hipfb h$v.ours.hipfb
	"$OFFLINK" wrap --kind=hip --abi=$abi "${dev[@]}" -o h$v.ours.o || fail "wrap $v"
	"$OFFLINK" wrap --kind=hip --abi=$abi h$v.hipfb -o h$v.fb.o || fail "wrap .hipfb $v"
	same h$v.fb.o h$v.ours.o
	"$OFFLINK" wrap --kind=hip --abi=$abi "${dev[@]}" -o h$v.ours.ll || fail "wrap ll $v"
	grep -q '__CLANG_OFFLOAD_BUNDLE__' h$v.ours.ll || fail "$v: IR lacks the bundle"
	run_log h$v.ref $es h$v.o h$v.hip.image.wrapper.o
	run_log h$v.ours $es h$v.o h$v.ours.o
	diff -u h$v.ref.log h$v.ours.log || fail "$v: registration differs from LLVM's"
done
