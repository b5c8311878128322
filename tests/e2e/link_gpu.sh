#!/usr/bin/env bash
# GPU targets without a GPU: HIP and CUDA -fgpu-rdc programs and an OpenMP
# program for amdgcn-amd-amdhsa, compiled by clang 22 (new offload driver),
# link through ld.offlink (gcc -B route).  The images registered in the
# result must equal those of clang 22's own link of the same objects (the
# driver's options to clang-linker-wrapper included: for HIP
# -flto-partitions=8), compared layer by layer with `offlink inspect
# --extract-all`; a stub runtime that logs every registration call (image
# digest included) must log the same for both programs; and the device
# link commands must be LLVM's, paths aside (--dry-run of both).
source "$OFL_SRC/tests/lib.sh"
need cc "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/ld.lld"

# a LIBRARY_PATH reaches nvlink, which records it in the cubin: both links
# run without one (under gcc, ld.offlink leaves out the one gcc sets)
unset LIBRARY_PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
T=x86_64-pc-linux-gnu
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
hip_runtime_standin

# compare NAME ENTRYSIZE: ref_NAME/prog (LLVM's link) and ours_NAME/prog
# log the same registration and hold the same images
compare() {
	local name=$1 es=$2 d
	for d in ref_$name ours_$name; do
		(cd $d && STUB_ENTRY=$es LD_LIBRARY_PATH=.. ./prog >log &&
			"$OFFLINK" inspect --extract-all=img prog >/dev/null) || fail "$name: $d run or inspect"
	done
	diff -u ref_$name/log ours_$name/log || fail "$name: registration differs from LLVM's"
	grep -Eq 'Register(FatBinary|Function)|register_lib' ours_$name/log || fail "$name: nothing registered"
	[ -n "$(ls ours_$name/img)" ] || fail "$name: no image extracted"
	diff -r ref_$name/img ours_$name/img || fail "$name: images differ from LLVM's"
}

# device_cmds FILE: the device clang commands of a dry run (clang-linker-
# wrapper's --wrapper-verbose lines or ld.offlink's), quotes, inputs,
# outputs and clang's directory taken out, sorted
device_cmds() {
	grep -- '--no-default-config' "$1" |
		sed -E 's/"//g; s/^ +//; s|^[^ ]*/clang |clang |; s/ -o [^ ]+/ -o OUT/;
			s/ -dumpdir [^ ]+/ -dumpdir OUT./; s| /[^ ]+\.o( \|$)| IN\1|g' | sort
}

# driver_check NAME ENTRYSIZE CLANG-ARGS -- LD.OFFLINK-ARGS: clang 22's own
# link (CLANG-ARGS) against ld.offlink's (gcc -B, LD.OFFLINK-ARGS), run and
# dry run
driver_check() {
	local name=$1 es=$2 ref=() ours=()
	shift 2
	while [ "$1" != -- ]; do ref+=("$1"); shift; done
	shift
	ours=("$@")
	mkdir -p ref_$name ours_$name
	"$LLVM22/clang" "${ref[@]}" -L. -Wl,-rpath,"$PWD" -rdynamic -ldl -o ref_$name/prog ||
		fail "$name: clang link"
	cc -rdynamic "${ours[@]}" -L. -ldl -o ours_$name/prog -B"$GCCDIR" || fail "$name: ld.offlink link"
	compare $name $es
	local wrapper
	wrapper=$("$LLVM22/clang" "${ref[@]}" -L. -o dry -### 2>&1 | grep clang-linker-wrapper) ||
		fail "$name: no clang-linker-wrapper in clang -###"
	eval "$wrapper --dry-run --wrapper-verbose" 2>ref_$name.dry || fail "$name: LLVM's dry run"
	cc "${ours[@]}" -L. -o dry -B"$GCCDIR" -Wl,--dry-run 2>ours_$name.dry || fail "$name: our dry run"
	device_cmds ref_$name.dry >ref_$name.cmds
	device_cmds ours_$name.dry >ours_$name.cmds
	[ -s ours_$name.cmds ] || fail "$name: no device link in the dry run"
	diff -u ref_$name.cmds ours_$name.cmds || fail "$name: device link commands differ from LLVM's"
}

# check NAME ENTRYSIZE OBJ [DEVICE-LINKER-ARGS...]: LLVM's wrapper object
# (clang-linker-wrapper run by itself, no host link) and ld.offlink's
# program compared
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

# HIP, two GPUs: one device link each, bundled into one .hipfb; the
# reference is clang's --hip-link, whose driver adds -flto-partitions=8
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 -fPIC -c "$STUB/gpu.cu" -o hip.o || fail "clang -x hip"
mv hip.o hipobj.o
driver_check hip 56 --offload-new-driver -fgpu-rdc --hip-link --offload-arch=gfx90a \
	--offload-arch=gfx1030 stub.o hipobj.o -- stub.o hipobj.o
grep -q "__hipRegisterFunction(h, _Z4kernPi" ours_hip/log || fail "hip: kernel not registered"
[ "$(ls ours_hip/img | grep -c amdgcn)" = 2 ] || fail "hip: expected two code objects"
grep -q -- "-flto-partitions=8" ours_hip.cmds || fail "hip: no -flto-partitions=8"

# CUDA (needs the CUDA toolkit's nvlink and fatbinary); clang 22's driver
# gives clang-linker-wrapper nothing for a CUDA link but --should-extract
# (checked with -###), so the wrapper run by itself is the reference
CUDA=${CUDA_PATH:-/usr/local/cuda}
if [ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/fatbinary" ]; then
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib \
		--offload-arch=sm_80 -fPIC -c "$STUB/gpu.cu" -o cuobj.o 2>/dev/null || fail "clang -x cuda"
	check cuda 56 cuobj.o
	grep -q "__cudaRegisterFunction(h, _Z19__device_stub__kernPi" ours_cuda/log ||
		fail "cuda: kernel not registered"
	# without CUDA's tools: the failure says where they were looked for
	expect_fail env CUDA_PATH=/nonexistent PATH=/usr/bin:/bin "$OFL_BUILD/bin/ld.offlink" \
		--no-device-cache -shared cuobj.o -o nocuda.so
	grep -q '^  device code of: cuobj.o$' err &&
		grep -q "next: CUDA's tools (ptxas, nvlink) failed or are not in /nonexistent/bin, the CUDA toolkit of this link (given); name another with CUDA_PATH" err ||
		{ cat err; fail "cuda: no next step without CUDA's tools"; }
else
	echo "CUDA toolkit not installed: CUDA part not run"
fi

# OpenMP for amdgcn: Debian ships no device runtime for GPUs, so both
# links go without it (clang -nogpulib, ld.offlink --nogpulib) and leave
# its symbols unresolved (tests/e2e/link_gpu_omp.sh links runtimes)
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o ompobj.o ||
	fail "clang -fopenmp --offload-arch=gfx90a"
driver_check omp 56 -fopenmp --offload-arch=gfx90a -nogpulib stub.o ompobj.o \
	-Xoffload-linker-amdgcn-amd-amdhsa --unresolved-symbols=ignore-all -- stub.o ompobj.o \
	-Wl,--nogpulib -Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all
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
	-L/usr/lib/llvm-22/lib -o gdev -Wl,--explain=gdev.explain -Wl,--nogpulib \
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all || fail "bitcode device symbols"
grep -q "libgdev.a(gdevhelper.o): device code taken for device symbol 'helper'" gdev.explain &&
	grep -q "libgdev.a(gunused.o): device code left out" gdev.explain ||
	{ cat gdev.explain; fail "bitcode device symbol rule"; }

# HIP with clang's default (old) driver: fat objects with one
# __CLANG_OFFLOAD_BUNDLE__ section per target; the host objects register
# through __hip_fatbin_<cuid>, which ld.offlink defines as the driver does.
# The reference is clang's own --hip-link (with the stand-in libamdhip64).
"$LLVM22/clang" -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a --offload-arch=gfx1030 \
	-fPIC -c "$STUB/gpu.cu" -o old.o || fail "clang -x hip (old driver)"
echo 'extern void _Z4kernPi(int *); void *ofl_keep = (void *)_Z4kernPi;' >caller.c
cc -c caller.c -o caller.o || fail "compile caller"
ar rcs libold.a old.o
# hip_syms PROG: the __hip_gpubin_handle_/__hip_fatbin_ symbols, by name,
# with type, binding, visibility, size and which of the set's addresses
# each has (aliases share one)
hip_syms() {
	readelf -sW "$1" | awk '$8 ~ /^__hip_(gpubin_handle|fatbin)_/ {print $8, $2, $3, $4, $5, $6}' |
		sort | awk '{ if (!($2 in at)) at[$2] = n++; print $1, $3, $4, $5, $6, "address", at[$2] }'
}
# old_check NAME INPUTS...: clang --hip-link and ld.offlink, same inputs:
# same registration (one __hipRegisterFatBinary: every TU shares one
# handle), images and symbols
old_check() {
	local name=$1
	shift
	mkdir -p ref_$name ours_$name
	"$LLVM22/clang" --hip-link -fgpu-rdc --offload-arch=gfx90a --offload-arch=gfx1030 stub.o \
		"$@" -L. -Wl,-rpath,"$PWD" -rdynamic -ldl -o ref_$name/prog 2>/dev/null ||
		fail "$name: clang --hip-link"
	cc -rdynamic stub.o "$@" -L. -ldl -o ours_$name/prog -B"$GCCDIR" || fail "$name: ld.offlink"
	compare $name 56
	grep -q "__hipRegisterFunction(h, _Z4kernPi" ours_$name/log || fail "$name: no kernel"
	[ "$(grep -c RegisterFatBinary ours_$name/log)" = 1 ] || fail "$name: not registered once"
	[ "$(ls ours_$name/img | grep -c hipv4-amdgcn)" = 2 ] || fail "$name: expected two code objects"
	hip_syms ref_$name/prog >ref_$name.syms
	hip_syms ours_$name/prog >ours_$name.syms
	[ -s ours_$name.syms ] || fail "$name: no __hip_ symbols"
	diff -u ref_$name.syms ours_$name.syms || fail "$name: __hip_ symbols differ from clang's"
}
old_check old old.o
# a static library of fat objects (a heterogeneous device archive), pulled
# by a host-only caller
old_check oldlib caller.o -lold
# two translation units (two CUIDs): one handle, one fat binary, aliases
sed 's/kern/kernB/g; s/[dcm]var/&B/g' "$STUB/gpu.cu" >gpu2.cu
"$LLVM22/clang" -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a --offload-arch=gfx1030 \
	-fPIC -c gpu2.cu -o old2.o || fail "clang -x hip (old driver, second TU)"
old_check old2 old.o old2.o
grep -c RegisterFunction ours_old2/log | grep -qx 4 || fail "old2: expected the kernels of both TUs"
echo 'extern void _Z4kernPi(int *), _Z5kernBPi(int *);
void *ofl_keep[] = {(void *)_Z4kernPi, (void *)_Z5kernBPi};' >caller2.c
cc -c caller2.c -o caller2.o || fail "compile caller2"
ar rcs libold2.a old.o old2.o
old_check oldlib2 caller2.o -lold2
echo "GPU targets: images and registration equal to LLVM 22's"
