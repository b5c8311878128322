#!/usr/bin/env bash
# GPU OpenMP without a GPU: LLVM's OpenMP device runtime in the device
# links.  Objects from clang -fopenmp --offload-arch=... -c link through
# ld.offlink with no --offload-arch and no runtime named on the link line.
#
# LLVM 19 (nvptx sm_80+sm_90 with CUDA's tools, amdgcn gfx90a+gfx942): each
# arch's link takes its own members of libomptarget.devicertl.a, found
# beside the libomptarget the link uses, and the images equal those of
# clang 19's own link (clang-linker-wrapper 19, its in-process LTO
# included), byte for byte; a stub runtime logs the same registration.
# LLVM 22: libompdevice.a of the LLVM install (Debian ships none: a
# stand-in is built here, in a stand-in install), the same comparison with
# clang 22's link given the same runtime; a missing runtime is an error
# naming it; -Wl,--nogpulib links without it, as clang -nogpulib does.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need cc "$LLVM19/clang" "$LLVM19/llvm-lto2" "$LLVM22/clang" "$LLVM22/ld.lld" "$LLVM22/llvm-ar"
need_libomp19

# a LIBRARY_PATH reaches nvlink, which records it in the cubin
unset LIBRARY_PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
CUDA=${CUDA_PATH:-/usr/local/cuda}
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"

# compare REF OURS ENTRYSIZE: the two programs log the same registration
# with the stub runtime and hold the same images, byte for byte
compare() {
	local d
	for d in "$1" "$2"; do
		(cd $d && STUB_ENTRY=$3 LD_LIBRARY_PATH=$RTLIB ./prog >log &&
			"$OFFLINK" inspect --extract-all=img prog >/dev/null) || fail "$d: run or inspect"
	done
	diff -u "$1/log" "$2/log" || fail "$2: registration differs from $1"
	grep -q __tgt_register_lib "$2/log" || fail "$2: nothing registered"
	[ -n "$(ls "$2/img")" ] || fail "$2: no image"
	diff -r "$1/img" "$2/img" || fail "$2: images differ from $1's"
}

# omp19 NAME ARCHS: clang 19's link against ld.offlink's, by gcc -B and by
# clang -fuse-ld=offlink, and against clang driving offlink's
# clang-linker-wrapper (-B<compat>: the runtime comes from the driver's
# -lomptarget.devicertl); every arch's link takes its own runtime member
omp19() {
	local name=$1 archs=$2 a
	"$LLVM19/clang" -fopenmp --offload-arch=$archs -nogpulib -fPIC -c "$STUB/omp.c" -o $name.o ||
		fail "$name: clang 19 -c"
	mkdir -p ref_$name ours_$name fuse_$name compat_$name
	"$LLVM19/clang" -fopenmp --offload-arch=$archs stub.o $name.o -L"$RTLIB" -rdynamic -ldl \
		-o ref_$name/prog || fail "$name: clang 19 link"
	cc -rdynamic stub.o $name.o -L"$RTLIB" -ldl -o ours_$name/prog -B"$GCCDIR" \
		-Wl,--explain=$name.explain || fail "$name: ld.offlink (gcc -B)"
	compare ref_$name ours_$name 32
	for a in ${archs//,/ }; do
		grep -q "libomptarget.devicertl.a(devicertl-[a-z]*-${a%%:*}.o): device code taken for device symbol" \
			$name.explain || { cat $name.explain; fail "$name: $a took no runtime member"; }
	done
	"$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" stub.o $name.o -L"$RTLIB" \
		-rdynamic -ldl -o fuse_$name/prog || fail "$name: ld.offlink (clang -fuse-ld)"
	compare ref_$name fuse_$name 32
	"$LLVM19/clang" -B"$OFL_COMPAT" -fopenmp --offload-arch=$archs stub.o $name.o -L"$RTLIB" \
		-rdynamic -ldl -o compat_$name/prog || fail "$name: clang -B<compat>"
	compare ref_$name compat_$name 32
}

if [ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/ptxas" ]; then
	# CUDA 13's ptxas no longer takes sm_70 and older: two archs it takes
	omp19 nv19 sm_80,sm_90
else
	echo "CUDA toolkit not installed: nvptx part not run"
fi
omp19 amd19 gfx90a,gfx942
# a target ID with features: LLVM 19 LTO gets the processor, the images the features
omp19 amdx19 gfx90a:xnack+

# Device code is taken per arch: archhelper.o's gfx942 image is needed
# (helper), its gfx90a image is not, and would be unresolved (other)
LSRC=$OFL_SRC/tests/e2e/link_src
for f in archmain archhelper; do
	"$LLVM19/clang" -fopenmp --offload-arch=gfx90a,gfx942 -nogpulib -fPIC -c "$LSRC/$f.c" -o $f.o ||
		fail "compile $f"
done
ar rcs libarch.a archhelper.o
cc -rdynamic stub.o archmain.o -L. -larch -L"$RTLIB" -ldl -o perarch -B"$GCCDIR" \
	-Wl,--explain=perarch.explain || fail "per-arch selection: link"
grep -q "libarch.a(archhelper.o): device code taken for device symbol 'helper' (amdgcn-amd-amdhsa gfx942)" \
	perarch.explain && ! grep -q "archhelper.o): device code taken.*gfx90a" perarch.explain ||
	{ cat perarch.explain; fail "per-arch selection: archhelper.o"; }
STUB_ENTRY=32 LD_LIBRARY_PATH=$RTLIB ./perarch >perarch.log && grep -q "2 images" perarch.log ||
	fail "per-arch selection: registration"

# LLVM 19 runtime not found: an error naming it and where it was looked for
expect_fail cc -rdynamic stub.o amd19.o -ldl -o missing19 -B"$GCCDIR"
grep -q "LLVM 19's OpenMP device runtime libomptarget.devicertl.a is not beside the libomptarget.so the link uses (looked in .*llvm-19/lib)" \
	"$SCRATCH/err" || { cat "$SCRATCH/err"; fail "missing LLVM 19 runtime: wrong message"; }
# a dir both given with -L and the LLVM's own is named once
LLVM19LIB=${LLVM19%/bin}/lib
expect_fail cc -rdynamic stub.o amd19.o -L"$LLVM19LIB" -ldl -o missing19 -B"$GCCDIR"
[ "$(grep -o "looked in .*" "$SCRATCH/err" | grep -o "[^ ,]*llvm-19/lib\b" | sort | uniq -d)" = "" ] ||
	{ cat "$SCRATCH/err"; fail "missing LLVM 19 runtime: a directory named twice"; }

# the opt-out, against clang 19 -nogpulib (undefined runtime symbols
# allowed on both sides; clang 19 passes -Xoffload-linker-<triple> values
# to the device clang as they are, and unscoped ones not to amdgcn links)
mkdir -p ref_no19 ours_no19
"$LLVM19/clang" -fopenmp --offload-arch=gfx90a,gfx942 -nogpulib stub.o amd19.o -L"$RTLIB" \
	-Xoffload-linker-amdgcn-amd-amdhsa -Wl,--unresolved-symbols=ignore-all -rdynamic -ldl \
	-o ref_no19/prog ||
	fail "clang 19 -nogpulib link"
cc -rdynamic stub.o amd19.o -L"$RTLIB" -ldl -o ours_no19/prog -B"$GCCDIR" \
	-Wl,--nogpulib \
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all || fail "opt-out (19)"
compare ref_no19 ours_no19 32

# LLVM 22: a stand-in install whose clang is LLVM 22's and whose lib/
# holds a stand-in device runtime, bitcode defining the entry points
# generated kernels call (LLVM 20+ builds libompdevice.a for no particular
# GPU: the device link's LTO compiles it for the arch)
TRIPLES=amdgcn-amd-amdhsa
ARCHS=gfx90a
if [ -x "$CUDA/bin/nvlink" ]; then
	TRIPLES+=" nvptx64-nvidia-cuda"
	ARCHS+=,sm_80
fi
standin_llvm22 llvm22 $TRIPLES
REF_L=()
for t in $TRIPLES; do
	REF_L+=(-Xoffload-linker-$t -L"$PWD/llvm22/lib/$t")
done
"$LLVM22/clang" -fopenmp --offload-arch=$ARCHS -nogpulib -fPIC -c "$STUB/omp.c" -o o22.o ||
	fail "clang 22 -c"
mkdir -p ref_22 ours_22 compat_22
"$LLVM22/clang" -fopenmp --offload-arch=$ARCHS stub.o o22.o "${REF_L[@]}" -rdynamic -ldl \
	-o ref_22/prog || fail "clang 22 link"
cc -rdynamic stub.o o22.o -ldl -o ours_22/prog -B"$GCCDIR" \
	-Wl,--device-compiler="$PWD/llvm22/bin/clang" || fail "ld.offlink with LLVM 22's runtime"
compare ref_22 ours_22 56
"$LLVM22/clang" -B"$OFL_COMPAT" -fopenmp --offload-arch=$ARCHS stub.o o22.o "${REF_L[@]}" \
	-rdynamic -ldl -o compat_22/prog || fail "clang 22 -B<compat> link"
compare ref_22 compat_22 56

# the real install has no libompdevice.a: an error naming it
if [ ! -e "${LLVM22%/bin}/lib/amdgcn-amd-amdhsa/libompdevice.a" ]; then
	expect_fail cc -rdynamic stub.o o22.o -ldl -o missing22 -B"$GCCDIR"
	grep -q "LLVM 22's OpenMP device runtime .*/lib/amdgcn-amd-amdhsa/libompdevice.a is not installed" \
		"$SCRATCH/err" || { cat "$SCRATCH/err"; fail "missing LLVM 22 runtime: wrong message"; }
fi

# the opt-out, against clang 22 -nogpulib
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o a22.o ||
	fail "clang 22 -c gfx90a"
mkdir -p ref_no22 ours_no22
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib stub.o a22.o \
	-Xoffload-linker --unresolved-symbols=ignore-all -rdynamic -ldl -o ref_no22/prog ||
	fail "clang 22 -nogpulib link"
cc -rdynamic stub.o a22.o -ldl -o ours_no22/prog -B"$GCCDIR" -Wl,--nogpulib \
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all || fail "opt-out (22)"
compare ref_no22 ours_no22 56
echo "GPU OpenMP: device runtimes linked per arch, images equal to clang's links"
