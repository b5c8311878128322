#!/usr/bin/env bash
# The linker plugin links what ld.offlink links: the same link, once through
# ld.offlink (gcc -B) and once through ld.bfd (and gold) loading
# offlink-plugin.so, takes the same device code, for the same reasons (the
# --explain decisions), and the programs register the same images, byte for
# byte (`offlink inspect --extract-all`, and a stub runtime's log).  No GPU
# needed: compile and link only, and the CPU device programs run.
#   - OpenMP for nvptx (sm_80+sm_90) and amdgcn (gfx90a+gfx942) by clang 19,
#     LLVM 19's device runtime found beside libomptarget;
#   - objects without a target region (data directives only), which say
#     nothing of the LLVM that made them: LLVM 19's, as the device runtime
#     on the link line tells, not the newest installed;
#   - -O2 SPMD kernels with libomptarget.devicertl.a on the link line (as
#     LLVM's own tests link): the runtime's members the device code needs;
#   - CUDA (clang 22, new driver, -fgpu-rdc): a __device__ function in a
#     static library called only from device code; without the library,
#     the failure's next step names the missing symbol, not CUDA's tools;
#     and the CUDA program of tests/e2e/link_gpu.sh;
#   - LLVM 22 OpenMP with a stand-in device runtime, and with --nogpulib;
#     LLVM 19's runtime missing: the same error;
#   - per-arch selection from a device archive (amdgcn gfx90a+gfx942);
#   - CPU: a device-only function in a static library, run;
#   - a bad setting in the environment ends both links alike.
source "$OFL_SRC/tests/lib.sh"
# both front ends must run their device links: no cache answers for them
export OFFLINK_CACHE=0
need cc ld.bfd ld.gold "$LLVM19/clang" "$LLVM19/llvm-lto2" "$LLVM22/clang" ar
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
[ -f "$PLUGIN" ] || fail "$PLUGIN not built"
need_libomp19
# a LIBRARY_PATH reaches nvlink, which records it in the cubin
unset LIBRARY_PATH
SRC=$OFL_SRC/tests/e2e/plugin_src
LSRC=$OFL_SRC/tests/e2e/link_src
STUB=$OFL_SRC/tests/interop/wrap_stub_src
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
CUDA=${CUDA_PATH:-/usr/local/cuda}
HAVE_CUDA=
[ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/ptxas" ] && [ -x "$CUDA/bin/fatbinary" ] && HAVE_CUDA=1
mkdir tmp
export TMPDIR=$PWD/tmp
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"

# decisions FILE: what an --explain says was taken and linked
decisions() {
	grep -E 'device code (taken|left out)|^device link [0-9]+:|wrapper: ' "$1" | sort
}

# same_link NAME ENTRYSIZE LD ARGS...: the program linked by ld.offlink
# (ld_NAME/prog) and by the plugin in LD (pl_NAME/prog) from the same
# arguments (and each front end's own options, OWN_LD and OWN_PL): same
# decisions, same registration with the stub runtime, same images
OWN_LD=() OWN_PL=()
same_link() {
	local name=$1 es=$2 ld=$3 d
	shift 3
	mkdir -p ld_$name pl_$name
	cc -rdynamic stub.o "$@" -ldl -B"$GCCDIR" -Wl,--explain="$PWD/ld_$name.explain" \
		"${OWN_LD[@]}" -o ld_$name/prog || fail "$name: ld.offlink"
	plink cc -fuse-ld=$ld -rdynamic stub.o "$@" -ldl -Wl,-plugin,"$PLUGIN" \
		-Wl,-plugin-opt,explain="$PWD/pl_$name.explain" "${OWN_PL[@]}" -o pl_$name/prog ||
		fail "$name: the plugin in ld.$ld"
	decisions ld_$name.explain >ld_$name.dec
	decisions pl_$name.explain >pl_$name.dec
	grep -q 'device code taken' pl_$name.dec || { cat pl_$name.explain; fail "$name: nothing taken"; }
	diff -u ld_$name.dec pl_$name.dec || fail "$name: the plugin decided otherwise than ld.offlink"
	for d in ld_$name pl_$name; do
		(cd $d && STUB_ENTRY=$es LD_LIBRARY_PATH=$RTLIB ./prog >log &&
			"$OFFLINK" inspect --extract-all=img prog >/dev/null) || fail "$name: $d run or inspect"
	done
	diff -u ld_$name/log pl_$name/log || fail "$name: registration differs from ld.offlink's"
	grep -Eq 'register_lib|RegisterFatBinary' pl_$name/log || fail "$name: nothing registered"
	[ -n "$(ls pl_$name/img)" ] || fail "$name: no image"
	diff -r ld_$name/img pl_$name/img || fail "$name: images differ from ld.offlink's"
	[ -z "$(ls tmp)" ] || { ls -R tmp; fail "$name: temporaries left"; }
}

# OpenMP, LLVM 19, nvptx and amdgcn: the runtime found beside libomptarget
c19() { # SRC OBJ ARCHS [ARGS...]
	local src=$1 obj=$2 archs=$3
	shift 3
	"$LLVM19/clang" -fopenmp --offload-arch=$archs -nogpulib -fPIC "$@" -c "$src" -o $obj ||
		fail "clang 19 -c $src ($archs)"
}
NV=
[ -n "$HAVE_CUDA" ] && NV=sm_80,sm_90
for archs in $NV gfx90a,gfx942; do
	c19 "$STUB/omp.c" omp_${archs//,/_}.o $archs
	same_link omp_${archs//,/_} 32 bfd omp_${archs//,/_}.o -L"$RTLIB"
done

# per-arch selection from a device archive: archhelper.o's gfx942 code
# only, the same through both front ends
for f in archmain archhelper; do
	c19 "$LSRC/$f.c" $f.o gfx90a,gfx942
done
ar rcs libarch.a archhelper.o
cat >perarch.c <<'EOF'
int run(int x);
void ofl_use(void) { run(1); }
EOF
cc -fPIC -c perarch.c -o perarch.o
same_link perarch 32 bfd perarch.o archmain.o -L. -larch -L"$RTLIB"
grep -q "libarch.a(archhelper.o): device code taken for device symbol 'helper' (amdgcn-amd-amdhsa gfx942)" \
	pl_perarch.explain && ! grep -q "archhelper.o): device code taken.*gfx90a" pl_perarch.explain ||
	{ cat pl_perarch.explain; fail "perarch: archhelper.o's device code"; }

if [ -n "$HAVE_CUDA" ]; then
	# no target region: LLVM 19, from the runtime on the link line
	c19 "$SRC/dataonly.c" dataonly.o sm_90
	same_link dataonly 32 bfd dataonly.o -L"$RTLIB" -lomptarget.devicertl
	grep -q '^device link 0: nvptx64-nvidia-cuda sm_90, .*LLVM 19$' pl_dataonly.explain ||
		{ cat pl_dataonly.explain; fail "dataonly: not linked as LLVM 19's"; }
	# -O2 SPMD kernels: the runtime's sm_90 member taken for them
	c19 "$SRC/spmd.c" spmd.o sm_90 -O2
	same_link spmd 32 bfd spmd.o -L"$RTLIB" -lomptarget -lomptarget.devicertl
	grep -q 'libomptarget.devicertl.a(devicertl-nvptx-sm_90.o): device code taken for device symbol' \
		pl_spmd.explain || { cat pl_spmd.explain; fail "spmd: no runtime member"; }

	# CUDA: the device function of a static library, in ld.bfd and gold
	for f in cumain culib; do
		"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib \
			--offload-arch=sm_90 -fPIC -c "$SRC/$f.cu" -o $f.o 2>/dev/null || fail "clang -x cuda $f"
	done
	ar rcs libcul.a culib.o
	same_link cuda_bfd 56 bfd cumain.o -L. -lcul
	same_link cuda_gold 56 gold cumain.o -L. -lcul
	grep -q "libcul.a(culib.o): device code taken for device symbol '_Z8lib_cubei'" \
		pl_cuda_bfd.explain || { cat pl_cuda_bfd.explain; fail "cuda: library member not taken"; }
	# the CUDA program of tests/e2e/link_gpu.sh (kernel, __device__ and
	# __constant__ variables)
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib \
		--offload-arch=sm_80 -fPIC -c "$STUB/gpu.cu" -o gpu.o 2>/dev/null || fail "clang -x cuda gpu.cu"
	same_link cuda_gpu 56 bfd gpu.o
	grep -q "__cudaRegisterFunction(h, _Z19__device_stub__kernPi" pl_cuda_gpu/log ||
		fail "cuda_gpu: kernel not registered"
	# without the library: the next step is the missing symbol's
	expect_fail plink cc -fuse-ld=bfd -rdynamic stub.o cumain.o -ldl -Wl,-plugin,"$PLUGIN" -o nolib
	grep -q "Undefined reference to '_Z8lib_cubei'" err &&
		grep -q 'next: device code refers to a symbol that no device code of the link defines' err &&
		! grep -q "CUDA's tools" err || { cat err; fail "cuda: wrong next step"; }
	# clang-nvlink-wrapper leaves its cubin in TMPDIR when nvlink fails
	rm -f tmp/*.cubin

	# LLVM 22 for nvptx: a stand-in install whose lib/ holds a stand-in
	# device runtime (Debian ships none), named by each front end's
	# --device-compiler; then --nogpulib, as clang -nogpulib
	# (nvlink has no way to leave the runtime's symbols undefined: amdgcn)
	t=nvptx64-nvidia-cuda
	standin_llvm22 llvm22 $t
	"$LLVM22/clang" -fopenmp --offload-arch=sm_80 -nogpulib -fPIC -c "$STUB/omp.c" -o omp22.o ||
		fail "clang 22 -c"
	OWN_LD=(-Wl,--device-compiler="$PWD/llvm22/bin/clang")
	OWN_PL=(-Wl,-plugin-opt,device-compiler="$PWD/llvm22/bin/clang")
	same_link omp22 56 bfd omp22.o
	a=amdgcn-amd-amdhsa
	"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o a22.o ||
		fail "clang 22 -c gfx90a"
	OWN_LD=(-Wl,--nogpulib -Wl,--device-linker=$a=--unresolved-symbols=ignore-all)
	OWN_PL=(-Wl,-plugin-opt,nogpulib -Wl,-plugin-opt,device-linker=$a=--unresolved-symbols=ignore-all)
	same_link omp22_nogpulib 56 bfd a22.o
	OWN_LD=() OWN_PL=()
	# LLVM 19's runtime not found: the same error as ld.offlink's (up to
	# the dirs looked in: gcc -B adds its own)
	expect_fail cc -rdynamic stub.o omp_sm_80_sm_90.o -ldl -B"$GCCDIR" -o missing_ld
	msg=$(sed -n 's/^ld\.offlink: error: \(.*\) (looked in .*/\1/p' err)
	expect_fail plink cc -fuse-ld=bfd -rdynamic stub.o omp_sm_80_sm_90.o -ldl \
		-Wl,-plugin,"$PLUGIN" -o missing_pl
	[[ "$msg" == *"LLVM 19's OpenMP device runtime libomptarget.devicertl.a is not beside"* ]] &&
		grep -qF "offlink: $msg" err || { cat err; fail "missing LLVM 19 runtime: not as ld.offlink"; }
else
	echo "CUDA toolkit not installed: nvptx and CUDA parts not run"
fi

# CPU: a device-only function in a static library (devhelper.c; the host's
# own helper is hosthelper.c), clang 19 and 22, ld.bfd and gold, run
export OMP_TARGET_OFFLOAD=MANDATORY
T=x86_64-pc-linux-gnu
cc -fPIC -c "$LSRC/hosthelper.c" -o hosthelper.o || fail "compile hosthelper"
for v in 19 22; do
	clang=$(eval echo \$LLVM$v)/clang RT=/usr/lib/llvm-22/lib CF=()
	[ $v = 19 ] && RT=$RTLIB CF=(-isystem "${RTLIB%/lib}/lib/clang/19/include")
	for f in devmain devhelper; do
		"$clang" -fopenmp -fopenmp-targets=$T -fPIC "${CF[@]}" -c "$LSRC/$f.c" -o $f$v.o ||
			fail "compile $f with clang $v"
	done
	rm -f libdevh$v.a && ar rcs libdevh$v.a devhelper$v.o
	gcc devmain$v.o hosthelper.o -L. -ldevh$v -L"$RT" -lomp -B"$GCCDIR" -o cpu${v}_ld ||
		fail "CPU, clang $v: ld.offlink"
	for ld in bfd gold; do
		p=cpu${v}_$ld
		plink gcc -fuse-ld=$ld devmain$v.o hosthelper.o -L. -ldevh$v -L"$RT" -lomp \
			-Wl,-plugin,"$PLUGIN" -o $p || fail "CPU, clang $v: the plugin in ld.$ld"
		LD_LIBRARY_PATH=$RT ./$p >$p.out || fail "$p exited with $?"
		echo "helper: 42, on device: 1" | diff -u - $p.out || fail "$p printed wrong results"
		mkdir -p cmp_$p/ld cmp_$p/pl && cp cpu${v}_ld cmp_$p/ld/prog && cp $p cmp_$p/pl/prog
		for d in ld pl; do
			(cd cmp_$p/$d && "$OFFLINK" inspect --extract-all=img prog >/dev/null) ||
				fail "$p: inspect"
		done
		[ -n "$(ls cmp_$p/pl/img)" ] && diff -r cmp_$p/ld/img cmp_$p/pl/img ||
			fail "$p: images differ from ld.offlink's"
	done
done

# A setting of the environment the cache cannot take: both links go on,
# uncached, and say why in the same words (ld prints a plugin's warnings
# on stdout)
env_link() { # NAME ARGS...
	local name=$1
	shift
	OFFLINK_CACHE=1 OFFLINK_CACHE_MAX_SIZE=bogus plink gcc devmain22.o hosthelper.o -L. -ldevh22 \
		-L/usr/lib/llvm-22/lib -lomp "$@" -o env_$name >env_$name.err 2>&1 ||
		{ cat env_$name.err; fail "bad environment: $name failed"; }
}
env_link ld -B"$GCCDIR"
env_link pl -fuse-ld=bfd -Wl,-plugin,"$PLUGIN"
msg=$(sed -n 's/^ld\.offlink: warning: //p' env_ld.err)
[ "$msg" = "no device-link cache: OFFLINK_CACHE_MAX_SIZE: 'bogus': expected a size such as 5G, 500M or a number of bytes" ] &&
	grep -qF "offlink: $msg" env_pl.err || { cat env_ld.err env_pl.err; fail "bad environment: the plugin says otherwise"; }
[ -z "$(ls tmp)" ] || { ls -R tmp; fail "temporaries left"; }
echo "plugin: the same device code as ld.offlink, nvptx, amdgcn, CUDA and CPU"
