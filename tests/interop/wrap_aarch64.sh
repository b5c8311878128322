#!/usr/bin/env bash
# aarch64 wrapper objects: the same host objects and stub runtime as
# wrap_stub_runtime.sh, cross-linked with gcc-aarch64-linux-gnu (and ld.lld)
# and run under qemu-aarch64.  The log of our object must equal the log of
# LLVM 22's (llvm-offload-wrapper + llc for aarch64) and the log of the same
# program built for x86_64 with our x86_64 object, for every flavour.
source "$OFL_SRC/tests/lib.sh"
need aarch64-linux-gnu-gcc qemu-aarch64 cc "$LLVM22/clang" "$LLVM19/clang" \
	"$LLVM22/llvm-offload-wrapper" "$LLVM22/llc" "$LLVM22/ld.lld" readelf

SRC=$OFL_SRC/tests/interop/wrap_stub_src
A=aarch64-linux-gnu
X=x86_64-pc-linux-gnu
SYSROOT=${OFL_AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
echo 'int device_image_stand_in = 42;' >img.c
cc -c img.c -o img.o
randbytes 7 300 >cu.fatbin
randbytes 8 5000 >hip.fatbin
aarch64-linux-gnu-gcc -O1 -fPIC -c "$SRC/stub.c" -o stub.a64.o || fail "cross-compile stub"
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.x86.o || fail "compile stub"

# host ARCH VER KIND OUT: host objects with entries for one target
host() {
	local t=$1 v=$2 kind=$3 out=$4 llvm=LLVM$2
	llvm=${!llvm}
	case $kind in
	openmp) "$llvm/clang" --target=$t -fopenmp -fopenmp-targets=$t -fPIC -c "$SRC/omp.c" -o "$out" ;;
	hip) "$llvm/clang" --target=$t -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib \
		--offload-arch=gfx90a -fPIC -c "$SRC/gpu.cu" -o "$out" ;;
	cuda) "$llvm/clang" --target=$t -x cuda --offload-new-driver -fgpu-rdc --cuda-host-only \
		-nocudainc -nocudalib --cuda-gpu-arch=sm_70 -fPIC -c "$SRC/gpu.cu" -o "$out" ;;
	esac 2>/dev/null || fail "clang-$v $kind for $t"
}

# run_a64 NAME ES OBJ... / run_x86 NAME ES OBJ...
run_a64() {
	local name=$1 es=$2
	shift 2
	aarch64-linux-gnu-gcc -rdynamic stub.a64.o "$@" -o "$name.exe" -ldl || fail "link $name"
	STUB_ENTRY=$es qemu-aarch64 -L "$SYSROOT" "./$name.exe" >"$name.log" || fail "run $name"
}
run_x86() {
	local name=$1 es=$2
	shift 2
	cc -rdynamic stub.x86.o "$@" -o "$name.exe" -ldl || fail "link $name"
	STUB_ENTRY=$es "./$name.exe" >"$name.log" || fail "run $name"
}

for kind in openmp cuda hip; do
	img=img.o
	[ $kind = cuda ] && img=cu.fatbin
	[ $kind = hip ] && img=hip.fatbin
	for v in 22 19; do
		abi=llvm20 es=56
		[ $v = 19 ] && abi=llvm19 es=32
		n=$kind$v
		host $A $v $kind $n.a64.host.o
		host $X $v $kind $n.x86.host.o
		"$OFFLINK" wrap --host-triple=$A --kind=$kind --abi=$abi -o $n.a64.w.o "$img" ||
			fail "$n: offlink wrap aarch64"
		"$OFFLINK" wrap --host-triple=$X --kind=$kind --abi=$abi -o $n.x86.w.o "$img" ||
			fail "$n: offlink wrap x86_64"
		readelf -h $n.a64.w.o | grep -q AArch64 || fail "$n: not an AArch64 object"
		readelf -a -W $n.a64.w.o >/dev/null 2>re.err && [ ! -s re.err ] ||
			fail "$n: readelf warns"
		"$LLVM22/llvm-readobj" --all $n.a64.w.o >/dev/null 2>ro.err && [ ! -s ro.err ] ||
			fail "$n: llvm-readobj warns"
		run_a64 $n.a64 $es $n.a64.host.o $n.a64.w.o
		run_x86 $n.x86 $es $n.x86.host.o $n.x86.w.o
		diff -u $n.x86.log $n.a64.log || fail "$n: aarch64 and x86_64 logs differ"
		grep -Eq 'entries: [1-9]|RegisterFunction' $n.a64.log || fail "$n: nothing registered"
		# ld.lld too, and our IR compiled for aarch64
		aarch64-linux-gnu-gcc -rdynamic -B"$LLVM22" -fuse-ld=lld stub.a64.o $n.a64.host.o \
			$n.a64.w.o -o $n.lld.exe -ldl || fail "$n: ld.lld aarch64"
		STUB_ENTRY=$es qemu-aarch64 -L "$SYSROOT" ./$n.lld.exe >$n.lld.log || fail "$n: run lld"
		diff -u $n.a64.log $n.lld.log || fail "$n: ld.lld log differs"
		# through C, compiled by the cross compiler
		"$OFFLINK" wrap --host-triple=$A --kind=$kind --abi=$abi \
			--host-cc=aarch64-linux-gnu-gcc -o $n.c.o "$img" || fail "$n: --host-cc"
		run_a64 $n.c $es $n.a64.host.o $n.c.o
		diff -u $n.a64.log $n.c.log || fail "$n: the C wrapper registers differently"
		# gold, and ld -r followed by a final link
		aarch64-linux-gnu-gcc -rdynamic -fuse-ld=gold stub.a64.o $n.a64.host.o $n.a64.w.o \
			-o $n.gold.exe -ldl || fail "$n: gold aarch64"
		STUB_ENTRY=$es qemu-aarch64 -L "$SYSROOT" ./$n.gold.exe >$n.gold.log || fail "$n: gold"
		diff -u $n.a64.log $n.gold.log || fail "$n: gold log differs"
		aarch64-linux-gnu-ld -r $n.a64.host.o $n.a64.w.o -o $n.r.o || fail "$n: ld -r"
		run_a64 $n.r $es $n.r.o
		diff -u $n.a64.log $n.r.log || fail "$n: ld -r log differs"
	done
	# LLVM 22's own aarch64 object for the same image
	"$LLVM22/llvm-offload-wrapper" --kind=$kind --triple=$A -o $kind.ref.bc "$img" ||
		fail "llvm-offload-wrapper $kind"
	"$LLVM22/llc" -filetype=obj -relocation-model=pic $kind.ref.bc -o $kind.ref.o || fail "llc"
	run_a64 $kind.ref 56 ${kind}22.a64.host.o $kind.ref.o
	diff -u $kind.ref.log ${kind}22.a64.log || fail "$kind: aarch64 log differs from LLVM's"
done

# Surfaces and textures through the aarch64 entry walk.
for v in 22 19; do
	es=56 abi=llvm20 def=
	[ $v = 19 ] && es=32 abi=llvm19 def=-DV19
	aarch64-linux-gnu-gcc -fPIC $def -c "$SRC/texsurf.c" -o ts$v.a64.o || fail "texsurf"
	cc -fPIC $def -c "$SRC/texsurf.c" -o ts$v.x86.o || fail "texsurf"
	"$OFFLINK" wrap --host-triple=$A --kind=hip --abi=$abi -o ts$v.a64.w.o hip.fatbin
	"$OFFLINK" wrap --host-triple=$X --kind=hip --abi=$abi -o ts$v.x86.w.o hip.fatbin
	run_a64 ts$v.a64 $es ts$v.a64.o ts$v.a64.w.o
	run_x86 ts$v.x86 $es ts$v.x86.o ts$v.x86.w.o
	diff -u ts$v.x86.log ts$v.a64.log || fail "ts$v: aarch64 and x86_64 logs differ"
	grep -q __hipRegisterTexture ts$v.a64.log || fail "ts$v: no texture"
done
! grep -l 'UNWINDING STOPS' ./*.log || fail "an unwinder stopped inside a wrapper function"
