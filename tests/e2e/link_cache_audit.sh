#!/usr/bin/env bash
# Issue 31's audit, with issue 37's: every file a device action opens or
# executes is in its key, and every place it looks for one and finds
# empty; everything clang's driver looks at when asked what a device link
# runs (`clang -###`) is in its memo's key.  Everyday links run with
# scripts/cache-audit as their device and probe launcher (strace of each:
# what it opened, executed, looked at, real paths), and `cache-audit check
# --cached` compares each action with the `key file:`, `key looked:` lines
# of its `device action:` block in --explain, each probe with the `driver
# key` lines of its `driver probe:` block: a file opened or a place looked
# at but not keyed, an action without a block or not cached, a file
# written outside the action's directory is a failure.  Each link is also
# one of the everyday-cached list of docs (PLAN31): a miss, then on a
# relink a hit (no device action runs), the same bytes, no `not cached:`
# line.  Every program runs (CPU programs for real, GPU ones with the stub
# runtime logging their registration).
#   - CPU OpenMP (x86_64) with an archive, a thin archive and a linker
#     script, clang 22 and clang 19, through ld.offlink (clang 22 also
#     with gold, a clang without lld beside it); clang 22 through
#     clang-linker-wrapper's personality (-B<compat>) and the plugin (bfd);
#   - AMDGPU OpenMP gfx90a: clang 22 -nogpulib; clang 19 with LLVM 19's
#     device runtime (its LTO step an action too);
#   - NVPTX OpenMP sm_90 with CUDA's tools, clang 19 with its runtime;
#   - HIP (new driver, gfx90a) and CUDA (new driver, sm_90), clang 22;
#   - code generation in partitions (issue 38): CUDA sm_90 with
#     -foffload-lto (the LTO step, the split, each partition's PTX names,
#     code generation and ptxas, the link of their objects), HIP gfx90a
#     (AMDGPU's splitter, which leaves partitions unwritten), gfx90a by
#     clang 19 (llvm-lto2 stopped before code generation).
# Every case runs; the failures are listed at the end, by case.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" "$LLVM22/llvm-ar" "$LLVM19/clang" "$LLVM19/llvm-lto2" \
	strace python3 cc gcc ld.bfd cmp
need_libomp19
AUDIT=$OFL_SRC/scripts/cache-audit
# the interpreter itself: a launcher of python's (pyenv's shim) would put
# folders of its own first on the tools' PATH
PY=$(python3 -c 'import sys; print(sys.executable)')
STUB=$OFL_SRC/tests/interop/wrap_stub_src
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
CUDA=${CUDA_PATH:-/usr/local/cuda}
RT22=/usr/lib/llvm-22/lib
T=x86_64-pc-linux-gnu
export OMP_TARGET_OFFLOAD=MANDATORY
# a LIBRARY_PATH reaches nvlink, which records it in the cubin
unset LIBRARY_PATH

problem() { failed_case "$@"; }

# count DIR EXT: the files DIR/*.EXT
count() {
	local f=("$1"/*."$2")
	[ -e "${f[0]}" ] && echo ${#f[@]} || echo 0
}

# audited NAME RUN LINK...: LINK (its words; @OUT@ and @EXPLAIN@ stand for
# the program and the --explain file) twice with an empty cache of its
# own, each device action and the driver's probe traced (one launcher for
# both links: its words are keyed); RUN (evaluated, in NAME/, $PROG the
# program) must succeed.  The first link: each action and probe audited;
# the second: a hit for every action, the same bytes.
audited() {
	local name=$1 run=$2 i w n
	shift 2
	mkdir $name
	export OFFLINK_CACHE_DIR=$PWD/$name/cache
	for i in 1 2; do
		local cmd=()
		for w in "$@"; do
			w=${w//@OUT@/$PWD/$name/prog$i}
			cmd+=("${w//@EXPLAIN@/$PWD/$name/explain$i}")
		done
		OFFLINK_DEVICE_LAUNCHER="$PY $AUDIT trace $PWD/$name/traces" \
			OFFLINK_PROBE_LAUNCHER="$PY $AUDIT trace $PWD/$name/traces" "${cmd[@]}" 2>$name/err$i ||
			{ cat $name/err$i; fail "$name: link $i"; }
		[ -s $name/explain$i ] || fail "$name: link $i wrote no explain"
		[ $i = 2 ] || n=$(count $name/traces trace)
	done
	# the trace step itself (today's code too): one record per action, each
	# action as it would have run
	[ "$n" -gt 0 ] || fail "$name: no device action traced"
	[ "$(count $name/traces json)" = "$n" ] || fail "$name: an action traced, not recorded"
	! grep -q '"status": [1-9]' $name/traces/*.json || fail "$name: a traced action failed"
	grep -q '"probe": true' $name/traces/*.json || fail "$name: the driver's probe was not traced"
	(cd $name && PROG=prog1 && eval "$run") || fail "$name: the program ($run)"
	# the audit
	"$AUDIT" check --cached $name/traces $name/explain1 >$name/audit 2>&1 ||
		{ cat $name/audit >&2; problem $name "the audit (above)"; }
	# cached: a miss, then a hit, the same bytes, never `not cached:`
	! grep -q '^  not cached:' $name/explain1 $name/explain2 ||
		problem $name "$(grep -h '^  not cached:' $name/explain1 $name/explain2 | sort -u | tr -s ' ')"
	n=$(($(count $name/traces trace) - n))
	[ "$n" = 0 ] || problem $name "the relink ran $n device action(s): no hit"
	cmp -s $name/prog1 $name/prog2 || problem $name "the relink's program differs from the first"
}

# ---- CPU: an archive, a thin archive, a linker script -----------------------
archive_omp_objects c22 "$LLVM22/clang"
# (Debian's LLVM 19 has no omp.h of its own: the unpacked runtime's)
archive_omp_objects c19 "$LLVM19/clang" -isystem "${RTLIB%/lib}/lib/clang/19/include"
# gold, the CPU linker wherever clang-N has no lld-N beside it: a clang
# 22 of its own without ld.lld beside it, a copy of the binary (RUNPATH
# $ORIGIN/../lib)
clang_without_lld tree
# (files keyed by identity must have settled, else a link is not stored)
sleep 2.1
CPURUN='LD_LIBRARY_PATH=$LIBS ./$PROG >out && diff -u ../cpu.expected out'
LIBS=$RT22
audited cpu22 "$CPURUN" "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" c22/amain.o \
	-Lc22 -la -ls -L$RT22 -Wl,--explain=@EXPLAIN@ -o @OUT@
LIBS=$RTLIB
audited cpu19 "$CPURUN" "$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" c19/amain.o \
	-Lc19 -la -ls -L"$RTLIB" -Wl,--explain=@EXPLAIN@ -o @OUT@
LIBS=$RT22
audited gold "$CPURUN" "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" c22/amain.o -Lc22 \
	-la -ls -L$RT22 -Wl,--device-compiler="$PWD/tree/bin/clang" -Wl,--explain=@EXPLAIN@ -o @OUT@
grep -q '"-fuse-ld=gold"' gold/explain1 || fail "gold: the tree's clang did not link with gold"
audited personality "$CPURUN" "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" c22/amain.o \
	-Lc22 -la -ls -L$RT22 -Wl,--explain=@EXPLAIN@ -o @OUT@
audited plugin "$CPURUN" plink gcc -fuse-ld=bfd c22/amain.o -Lc22 -la -ls -L$RT22 -lomp -lomptarget \
	-Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,explain=@EXPLAIN@ -o @OUT@

# ---- GPUs: the stub runtime logs registration --------------------------------
# gpurun ENTRYSIZE PATTERN: the program registers, its log has PATTERN
gpurun() { echo "STUB_ENTRY=$1 LD_LIBRARY_PATH=..:\$LIBS ./\$PROG >log && grep -Eq '$2' log"; }
HAVE_CUDA=
if [ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/ptxas" ] && [ -x "$CUDA/bin/fatbinary" ]; then
	HAVE_CUDA=1
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -foffload-lto -nocudainc -nocudalib \
		--offload-arch=sm_90 -fPIC -c "$STUB/gpu.cu" -o cudalto.o 2>/dev/null ||
		fail "clang -x cuda -foffload-lto"
elif [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ]; then
	fail "CUDA's tools missing in $CUDA"
fi
stub_gpu_objects
sleep 2.1
LIBS=$RT22
audited amdgpu22 "$(gpurun 56 __tgt_register_lib)" "$LLVM22/clang" -fopenmp -fuse-ld=offlink \
	-B"$OFL_BUILD/bin" stub.o amd22.o -rdynamic -ldl -Wl,--nogpulib \
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all -Wl,--explain=@EXPLAIN@ -o @OUT@
LIBS=$RTLIB
audited amdgpu19 "$(gpurun 32 __tgt_register_lib)" "$LLVM19/clang" -fopenmp -fuse-ld=offlink \
	-B"$OFL_BUILD/bin" stub.o amd19.o -L"$RTLIB" -rdynamic -ldl -Wl,--explain=@EXPLAIN@ -o @OUT@
LIBS=$RT22
audited hip "$(gpurun 56 __hipRegisterFunction)" "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" \
	stub.o hip.o -L. -rdynamic -ldl -Wl,--explain=@EXPLAIN@ -o @OUT@
if [ -n "$HAVE_CUDA" ]; then
	LIBS=$RTLIB
	audited nvptx19 "$(gpurun 32 __tgt_register_lib)" "$LLVM19/clang" -fopenmp -fuse-ld=offlink \
		-B"$OFL_BUILD/bin" stub.o nv19.o -L"$RTLIB" -rdynamic -ldl -Wl,--explain=@EXPLAIN@ -o @OUT@
	LIBS=$RT22
	audited cuda "$(gpurun 56 __cudaRegisterFunction)" "$LLVM22/clang" -fuse-ld=offlink \
		-B"$OFL_BUILD/bin" stub.o cuda.o -rdynamic -ldl -Wl,--explain=@EXPLAIN@ -o @OUT@
	audited cudap "$(gpurun 56 __cudaRegisterFunction)" "$LLVM22/clang" -fuse-ld=offlink \
		-B"$OFL_BUILD/bin" stub.o cudalto.o -rdynamic -ldl -Wl,--device-partitions=3 \
		-Wl,--explain=@EXPLAIN@ -o @OUT@
	grep -q '^device action: ptxas of partition 3/3' cudap/explain1 || problem cudap "no partitions"
else
	echo "CUDA's tools not installed: the NVPTX and CUDA cases not run"
fi
audited hipp "$(gpurun 56 __hipRegisterFunction)" "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" \
	stub.o hip.o -L. -rdynamic -ldl -Wl,--device-partitions=4 -Wl,--explain=@EXPLAIN@ -o @OUT@
grep -q '^device action: code generation of partition 4/4' hipp/explain1 || problem hipp "no partitions"
LIBS=$RTLIB
audited amdgpu19p "$(gpurun 32 __tgt_register_lib)" "$LLVM19/clang" -fopenmp -fuse-ld=offlink \
	-B"$OFL_BUILD/bin" stub.o amd19.o -L"$RTLIB" -rdynamic -ldl -Wl,--device-partitions=3 \
	-Wl,--explain=@EXPLAIN@ -o @OUT@
grep -q '^device action: code generation of partition 3/3' amdgpu19p/explain1 ||
	problem amdgpu19p "no partitions"

check_all "device actions not audited clean"
echo "device-link cache audit: every file a device action reads is in its key; every link cached"
