#!/usr/bin/env bash
# GPU targets without a GPU: HIP and CUDA -fgpu-rdc programs and an OpenMP
# program for amdgcn-amd-amdhsa, compiled by clang 22 (new offload driver),
# link through ld.offlink (gcc -B route).  The images registered in the
# result must equal those clang-linker-wrapper 22 produces from the same
# objects (compared layer by layer with `offlink inspect --extract-all`), and
# a stub runtime that logs every registration call (image digest included)
# must log the same for both programs.
source "$OFL_SRC/tests/lib.sh"
need cc "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/ld.lld"

# a LIBRARY_PATH reaches nvlink, which records it in the cubin: both links
# run without one (under gcc, ld.offlink leaves out the one gcc sets)
unset LIBRARY_PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
T=x86_64-pc-linux-gnu
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"

# check NAME ENTRYSIZE OBJ [DEVICE-LINKER-ARGS...]: LLVM's wrapper object
# (clang-linker-wrapper, no host link) and ld.offlink's program compared
check() {
	local name=$1 es=$2 obj=$3
	shift 3
	mkdir -p ref_$name ours_$name
	# --save-temps keeps the wrapper object, in the current directory
	(cd ref_$name && "$LLVM22/clang-linker-wrapper" --host-triple=$T --linker-path=/bin/true \
		--save-temps "${@/#/--device-linker=}" -o w "../$obj" >/dev/null 2>&1) ||
		fail "$name: clang-linker-wrapper"
	cc -rdynamic stub.o "$obj" ref_$name/w.*.image.wrapper.o -o ref_$name/prog -ldl ||
		fail "$name: reference link"
	cc -rdynamic stub.o "$obj" -o ours_$name/prog -ldl -B"$GCCDIR" \
		"${@/#/-Wl,--device-linker=}" || fail "$name: ld.offlink link"
	for d in ref_$name ours_$name; do
		(cd $d && STUB_ENTRY=$es ./prog >log && "$OFFLINK" inspect --extract-all=img prog >/dev/null) ||
			fail "$name: $d run or inspect"
	done
	diff -u ref_$name/log ours_$name/log || fail "$name: registration differs from LLVM's"
	grep -Eq 'Register(FatBinary|Function)|register_lib' ours_$name/log || fail "$name: nothing registered"
	[ -n "$(ls ours_$name/img)" ] || fail "$name: no image extracted"
	diff -r ref_$name/img ours_$name/img || fail "$name: images differ from clang-linker-wrapper's"
}

# HIP, two GPUs: one device link each, bundled into one .hipfb
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 -fPIC -c "$STUB/gpu.cu" -o hip.o || fail "clang -x hip"
mv hip.o hipobj.o
check hip 56 hipobj.o
grep -q "__hipRegisterFunction(h, _Z4kernPi" ours_hip/log || fail "hip: kernel not registered"
[ "$(ls ours_hip/img | grep -c amdgcn)" = 2 ] || fail "hip: expected two code objects"

# CUDA (needs the CUDA toolkit's nvlink and fatbinary)
CUDA=${CUDA_PATH:-/usr/local/cuda}
if [ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/fatbinary" ]; then
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib \
		--offload-arch=sm_80 -fPIC -c "$STUB/gpu.cu" -o cuobj.o 2>/dev/null || fail "clang -x cuda"
	check cuda 56 cuobj.o
	grep -q "__cudaRegisterFunction(h, _Z19__device_stub__kernPi" ours_cuda/log ||
		fail "cuda: kernel not registered"
else
	echo "CUDA toolkit not installed: CUDA part not run"
fi

# OpenMP for amdgcn: Debian ships no device runtime for GPUs, so both
# links leave its symbols unresolved (same arguments for both)
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o ompobj.o ||
	fail "clang -fopenmp --offload-arch=gfx90a"
check omp 56 ompobj.o amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all
grep -q "__tgt_register_lib" ours_omp/log || fail "omp: no registration"
# Device symbols of bitcode images come from their irsymtab: the member
# defining the device helper is taken, the unused one left out (LLVM 22
# takes every member with an amdgcn image)
LSRC=$OFL_SRC/tests/e2e/link_src
for f in devmain devhelper; do
	"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$LSRC/$f.c" -o g$f.o ||
		fail "compile $f for gfx90a"
done
cc -fPIC -c "$LSRC/hosthelper.c" -o hosthelper.o || fail "compile hosthelper"
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o gunused.o ||
	fail "compile unused"
ar rcs libgdev.a gdevhelper.o gunused.o
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" gdevmain.o hosthelper.o -L. -lgdev \
	-L/usr/lib/llvm-22/lib -o gdev -Wl,--explain=gdev.explain \
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all || fail "bitcode device symbols"
grep -q "libgdev.a(gdevhelper.o): device code taken for device symbol 'helper'" gdev.explain &&
	grep -q "libgdev.a(gunused.o): device code left out" gdev.explain ||
	{ cat gdev.explain; fail "bitcode device symbol rule"; }

# HIP with clang's default (old) driver: fat objects with one
# __CLANG_OFFLOAD_BUNDLE__ section per target; the host objects register
# through __hip_fatbin_<cuid>, which ld.offlink defines as the driver does.
# The reference is clang's own --hip-link (with a stand-in libamdhip64).
echo 'void ofl_hip_stand_in(void) {}' >e.c
cc -shared -fPIC e.c -o libamdhip64.so || fail "libamdhip64 stand-in"
"$LLVM22/clang" -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a --offload-arch=gfx1030 \
	-fPIC -c "$STUB/gpu.cu" -o old.o || fail "clang -x hip (old driver)"
echo 'extern void _Z4kernPi(int *); void *ofl_keep = (void *)_Z4kernPi;' >caller.c
cc -c caller.c -o caller.o || fail "compile caller"
ar rcs libold.a old.o
# old_check NAME INPUTS...: clang --hip-link and ld.offlink, same inputs
old_check() {
	local name=$1
	shift
	mkdir -p ref_$name ours_$name
	"$LLVM22/clang" --hip-link -fgpu-rdc --offload-arch=gfx90a --offload-arch=gfx1030 stub.o \
		"$@" -L. -Wl,-rpath,"$PWD" -rdynamic -ldl -o ref_$name/prog 2>/dev/null ||
		fail "$name: clang --hip-link"
	cc -rdynamic stub.o "$@" -L. -ldl -o ours_$name/prog -B"$GCCDIR" || fail "$name: ld.offlink"
	for d in ref_$name ours_$name; do
		(cd $d && STUB_ENTRY=56 LD_LIBRARY_PATH=.. ./prog >log &&
			"$OFFLINK" inspect --extract-all=img prog >/dev/null) || fail "$name: $d"
	done
	diff -u ref_$name/log ours_$name/log || fail "$name: registration differs from clang's"
	grep -q "__hipRegisterFunction(h, _Z4kernPi" ours_$name/log || fail "$name: no kernel"
	[ "$(ls ours_$name/img | grep -c hipv4-amdgcn)" = 2 ] || fail "$name: expected two code objects"
	diff -r ref_$name/img ours_$name/img || fail "$name: images differ from clang's"
}
old_check old old.o
# a static library of fat objects (a heterogeneous device archive), pulled
# by a host-only caller
old_check oldlib caller.o -lold
echo "GPU targets: images and registration equal to LLVM 22's"
