#!/usr/bin/env bash
# Device code generation in partitions (issue 38, docs/design.md,
# "Partitions"): the LTO step stops before code generation, the module is
# split, each partition's code generation (and ptxas) is a cached action of
# its own, then the device link of their objects.
#   - CUDA sm_90 (clang 22, -fgpu-rdc -foffload-lto, string literals whose
#     names PTX does not take): --device-partitions=1 writes LLVM's image
#     (clang-linker-wrapper's); 4 partitions write the same image under
#     `taskset -c 0` as with every core, and in two links; every kernel and
#     device global of the unpartitioned cubin is in the partitioned one;
#     the same link again is all cache hits; a relink after editing one
#     source hits the unchanged partitions'
#     actions (--explain says so) and writes the image a cold link does;
#     with too little memory (OFFLINK_DEVICE_MEMORY) fewer run at once,
#     --explain says so, the image the same, the largest partition's
#     actions first;
#     --explain says how many partitions and why (auto, the option, the
#     variable, which the option overrides); bad counts are errors;
#   - OpenMP x86_64 with -foffload-lto, clang 22 (tests/e2e/wrap_openmp_src,
#     docs/examples) and clang 19 (with its runtime): 4 partitions run with
#     LLVM's results; the image the same under `taskset -c 0`;
#   - OpenMP sm_90 and gfx90a, clang 19 with LLVM 19's device runtime
#     (llvm-lto2 stops before code generation), and HIP gfx90a (AMDGPU's
#     splitter, which writes fewer partitions than asked when it finds
#     fewer kernels; also through the personality, whose driver asks the
#     LTO step for 8 partitions of its own): the unpartitioned image's
#     symbols all there.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/llvm-readelf" "$LLVM22/llc" \
	"$LLVM22/llvm-split" "$LLVM22/opt" "$LLVM19/clang" "$LLVM19/llvm-lto2" "$LLVM19/llc" \
	"$LLVM19/llvm-split" taskset cmp
need_libomp19
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" "$CUDA/bin/fatbinary"
SRC=$OFL_SRC/tests/e2e/partition_src
T=x86_64-pc-linux-gnu
LD="$OFL_BUILD/bin/ld.offlink"
RT22=/usr/lib/llvm-22/lib
unset LIBRARY_PATH OFFLINK_DEVICE_PARTITIONS

# images DIR FILE: the device images FILE registers, extracted into DIR
images() {
	rm -rf "$1"
	mkdir "$1"
	(cd "$1" && "$OFFLINK" inspect --extract-all=img "../$2" >/dev/null) ||
		fail "$2: images not extracted"
	[ -n "$(ls "$1/img")" ] || fail "$2: no image"
}
# digests DIR: the images' SHA-256s (their names are their files')
digests() { sha256sum "$1"/img/* | cut -d' ' -f1 | sort; }
# same_images A B: the images of two files, byte for byte
same_images() {
	images ia "$1"
	images ib "$2"
	[ "$(digests ia)" = "$(digests ib)" ] || fail "$1 and $2 hold different device images"
}
# defined DIR: the functions and objects the ELF images in DIR define, by
# name (a HIP bundle's host entry is none)
defined() {
	local f elfs=()
	for f in "$1"/img/*; do
		[ "$(head -c4 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && elfs+=("$f")
	done
	"$LLVM22/llvm-readelf" -s --wide "${elfs[@]}" |
		awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && ($4 == "FUNC" || $4 == "OBJECT") { print $8 }' |
		sort -u
}
# all_kept NAME WHOLE PARTS: every symbol WHOLE's images define, PARTS' do
all_kept() {
	images whole "$2"
	images parts "$3"
	defined whole >whole.syms
	defined parts >parts.syms
	[ -s whole.syms ] || fail "$1: no symbols in the unpartitioned image"
	comm -23 whole.syms parts.syms >lost
	[ ! -s lost ] || { cat lost; fail "$1: symbols of the unpartitioned image lost"; }
}
# link_ok NAME CMD...: a link, its messages kept in NAME.err
link_ok() {
	local name=$1
	shift
	"$@" 2>"$name.err" || { cat "$name.err"; fail "$name: link"; }
}

# ---- CUDA sm_90, clang 22 ---------------------------------------------------
cuda_cc() { # OUT FID [FLAGS...]
	local out=$1 fid=$2
	shift 2
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -foffload-lto -nocudainc -nocudalib \
		-Wno-unknown-cuda-version --offload-arch=sm_90 -fPIC -O2 -DFID="$fid" "$@" \
		-c "$SRC/kern.cu" -o "$out" || fail "compile $out"
}
for f in 0 1 2 3; do cuda_cc k$f.o $f; done
CUOBJS=(k0.o k1.o k2.o k3.o)

# LLVM's link: clang-linker-wrapper by itself, its wrapper object kept
mkdir ref
(cd ref && "$LLVM22/clang-linker-wrapper" --host-triple=$T --linker-path=/bin/true --save-temps \
	-o w "${CUOBJS[@]/#/../}" >/dev/null 2>&1) || fail "clang-linker-wrapper"
cp ref/w.cuda.image.wrapper.o llvm.o
OFFLINK_CACHE_DIR=$PWD/c1 link_ok one "$LD" -shared "${CUOBJS[@]}" -o one.so \
	--device-partitions=1 --explain=one.explain
same_images llvm.o one.so
grep -q "^device partitions for nvptx64-nvidia-cuda sm_90: 1, as --device-partitions gives it: LLVM's link$" \
	one.explain || fail "explain: no partition count for --device-partitions=1"
! grep -q "code generation of partition" one.explain || fail "partitions with --device-partitions=1"

# 4 partitions: one core and all, two links, the same bytes
OFFLINK_CACHE_DIR=$PWD/ca link_ok p4a taskset -c 0 "$LD" -shared "${CUOBJS[@]}" -o p4a.so \
	--device-partitions=4 --explain=p4a.explain
OFFLINK_CACHE_DIR=$PWD/cb link_ok p4b "$LD" -shared "${CUOBJS[@]}" -o p4b.so \
	--device-partitions=4 --explain=p4b.explain
OFFLINK_CACHE=0 link_ok p4c "$LD" -shared "${CUOBJS[@]}" -o p4c.so --device-partitions=4
same_images p4a.so p4b.so
same_images p4b.so p4c.so
[ "$(grep -c '^code generation of partition [1-4]/4 for nvptx64-nvidia-cuda sm_90: .*cache miss' \
	p4b.explain)" = 4 ] || fail "not four partitions' code generation"
[ "$(grep -c '^ptxas of partition [1-4]/4 .*cache miss' p4b.explain)" = 4 ] ||
	fail "not four partitions' ptxas"
grep -q "^device partitions for nvptx64-nvidia-cuda sm_90: 4, as --device-partitions gives it$" \
	p4b.explain || fail "explain: no partition count"
all_kept cuda one.so p4b.so
# the same link again: every action from the cache, whichever order the
# first ran them in (the partitions' one rename map is keyed by its bytes,
# written or still to be written)
OFFLINK_CACHE_DIR=$PWD/ca link_ok p4d "$LD" -shared "${CUOBJS[@]}" -o p4d.so \
	--device-partitions=4 --explain=p4d.explain
[ "$(grep -c '^PTX names of partition [1-4]/4 .*cache hit' p4d.explain)" = 4 ] &&
	! grep -q 'cache miss' p4d.explain ||
	{ grep 'cache' p4d.explain; fail "the same link again: not every action from the cache"; }
same_images p4b.so p4d.so
# too little memory for two at once: one at a time, said; the same bytes
OFFLINK_CACHE=0 OFFLINK_DEVICE_MEMORY=1M link_ok mem "$LD" -shared "${CUOBJS[@]}" -o mem.so \
	--device-partitions=4 --explain=mem.explain
grep -q "^memory: .* more than the 1 MiB available (OFFLINK_DEVICE_MEMORY, else the machine's): fewer run at once$" \
	mem.explain || fail "explain: no memory line"
same_images p4b.so mem.so
# one at a time, the partitions' chains (PTX names, code generation,
# ptxas) start the largest module's first and run each to its end: the
# largest last would run alone while the other cores idle
cat >order <<'SH'
#!/bin/sh
case "${1##*/}" in
opt) eval "in=\${$#}" && echo "opt $(stat -c %s "$in")" >>"$ORDER_LOG" ;;
llc | ptxas) echo "${1##*/}" >>"$ORDER_LOG" ;;
esac
exec "$@"
SH
chmod +x order
ORDER_LOG=$PWD/order.log OFFLINK_CACHE=0 OFFLINK_DEVICE_MEMORY=1M link_ok order "$LD" -shared \
	"${CUOBJS[@]}" -o order.so --device-partitions=4 --device-launcher="$PWD/order"
same_images p4b.so order.so
[ "$(tr '\n' ' ' <order.log | sed 's/[0-9]\+/N/g')" = "$(printf 'opt N llc ptxas %.0s' 1 2 3 4)" ] ||
	fail "partitions' actions not chain by chain: $(tr '\n' ' ' <order.log)"
sed -n 's/^opt //p' order.log >sizes
sort -rn sizes | cmp -s - sizes || fail "partitions not the largest first: $(tr '\n' ' ' <sizes)"
[ "$(sort -u sizes | wc -l)" -gt 1 ] || fail "partitions of one size: the order shows nothing"
expect_fail env OFFLINK_DEVICE_MEMORY=lots "$LD" -shared k0.o -o bad.so
grep -q "OFFLINK_DEVICE_MEMORY: 'lots': expected a size" err || { cat err; fail "bad memory size"; }

# the count: auto (this program's bitcode is small), the variable, the
# option over the variable; bad values
OFFLINK_CACHE_DIR=$PWD/c1 link_ok auto "$LD" -shared "${CUOBJS[@]}" -o auto.so --explain=auto.explain
grep -Eq "^device partitions for nvptx64-nvidia-cuda sm_90: 1: [0-9]+ KiB of device bitcode, less than the 512 KiB worth splitting$" \
	auto.explain || fail "explain: no auto partition count"
same_images one.so auto.so
OFFLINK_CACHE_DIR=$PWD/cb OFFLINK_DEVICE_PARTITIONS=2 link_ok env "$LD" -shared "${CUOBJS[@]}" \
	-o env.so --explain=env.explain
grep -q "sm_90: 2, as OFFLINK_DEVICE_PARTITIONS gives it$" env.explain || fail "explain: the variable"
OFFLINK_CACHE_DIR=$PWD/cb OFFLINK_DEVICE_PARTITIONS=2 link_ok opt "$LD" -shared "${CUOBJS[@]}" \
	-o opt.so --device-partitions=3 --explain=opt.explain
grep -q "sm_90: 3, as --device-partitions gives it$" opt.explain || fail "explain: the option"
expect_fail "$LD" -shared k0.o -o bad.so --device-partitions=0
grep -q "error: --device-partitions: expected 'auto' or a number of partitions from 1 to 256, got '0'" \
	err || { cat err; fail "--device-partitions=0 accepted"; }
expect_fail env OFFLINK_DEVICE_PARTITIONS=many "$LD" -shared k0.o -o bad.so
grep -q "OFFLINK_DEVICE_PARTITIONS: expected 'auto' or a number" err || { cat err; fail "bad variable"; }

# a relink after an edit of one kernel: the other partitions from the cache,
# the image a cold link of the edited program writes
cuda_cc k2.o 2 -DEDIT=5
OFFLINK_CACHE_DIR=$PWD/cb link_ok re "$LD" -shared "${CUOBJS[@]}" -o re.so \
	--device-partitions=4 --explain=re.explain
hits=$(grep -c '^ptxas of partition .*cache hit' re.explain || true)
misses=$(grep -c '^ptxas of partition .*cache miss' re.explain || true)
[ "$misses" -ge 1 ] && [ "$hits" -ge 2 ] ||
	{ grep 'partition' re.explain; fail "relink: $hits ptxas hits and $misses misses"; }
grep -q '^LTO for nvptx64-nvidia-cuda sm_90: .*cache miss' re.explain || fail "relink: no LTO step"
OFFLINK_CACHE=0 link_ok cold "$LD" -shared "${CUOBJS[@]}" -o cold.so --device-partitions=4
same_images re.so cold.so

# ---- OpenMP x86_64 --------------------------------------------------------------
export OMP_TARGET_OFFLOAD=MANDATORY
# omp_run NAME CLANG RTLIB EXPECTED SRC... [-- CFLAGS...]: compiled with
# -foffload-lto, linked by LLVM (clang's own pipeline, LLVM_LINK its
# flags) and by ld.offlink in 4 partitions (one core, and all), run: the
# same output; the same image
omp_run() {
	local name=$1 cc=$2 rt=$3 expected=$4 objs=() f
	shift 4
	local srcs=() flags=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
	[ $# -gt 0 ] && shift && flags=("$@")
	for f in "${srcs[@]}"; do
		"$cc" -fopenmp -fopenmp-targets=$T -foffload-lto -fPIC -O1 "${flags[@]}" -c "$f" \
			-o "$name.$(basename "$f" .c).o" || fail "$name: compile $f"
		objs+=("$name.$(basename "$f" .c).o")
	done
	"$cc" -fopenmp -fopenmp-targets=$T "${objs[@]}" -L"$rt" -o "$name.llvm" "${LLVM_LINK[@]}" ||
		fail "$name: clang link"
	OFFLINK_CACHE_DIR=$PWD/$name.c1 link_ok $name "$cc" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" \
		"${objs[@]}" -L"$rt" -o "$name.ours" -Wl,--device-partitions=4 -Wl,--explain=$name.explain
	OFFLINK_CACHE_DIR=$PWD/$name.c2 link_ok $name.one taskset -c 0 "$cc" -fopenmp -fuse-ld=offlink \
		-B"$OFL_BUILD/bin" "${objs[@]}" -L"$rt" -o "$name.one" -Wl,--device-partitions=4
	[ "$(grep -c "^code generation of partition [1-4]/4 for $T" $name.explain)" = 4 ] ||
		fail "$name: not four partitions"
	for p in llvm ours; do
		LD_LIBRARY_PATH=$rt "./$name.$p" >"$name.$p.out" 2>&1 || { cat "$name.$p.out"; fail "$name.$p ran"; }
	done
	[ -z "$expected" ] || diff -u "$expected" "$name.llvm.out" || fail "$name: LLVM's program"
	diff -u "$name.llvm.out" "$name.ours.out" || fail "$name: results differ from LLVM's link"
	same_images "$name.ours" "$name.one"
}
WSRC=$OFL_SRC/tests/e2e/wrap_openmp_src
# LLVM 22's wrapper gives the CPU device link's bitcode to the default
# linker, which reads none: lld's LTO
LLVM_LINK=(-Wl,--device-compiler=$T=-fuse-ld=lld)
omp_run omp22 "$LLVM22/clang" $RT22 "$WSRC/expected.txt" "$WSRC/main.c" "$WSRC/kern.c"
omp_run ex22 "$LLVM22/clang" $RT22 "" "$OFL_SRC/docs/examples/src/main.c" \
	"$OFL_SRC/docs/examples/src/kern.c"
LLVM_LINK=()
omp_run omp19 "$LLVM19/clang" "$RTLIB" "$WSRC/expected.txt" "$WSRC/main.c" "$WSRC/kern.c" -- \
	-isystem "${RTLIB%/lib}/lib/clang/19/include"

# ---- GPUs: clang 19 with its device runtime, HIP --------------------------------
STUB=$OFL_SRC/tests/interop/wrap_stub_src
# gpu_parts NAME N LINK...: LINK with --device-partitions=1 and N, every
# symbol of the first image in the second
gpu_parts() {
	local name=$1 n=$2
	shift 2
	OFFLINK_CACHE_DIR=$PWD/$name.c link_ok $name.1 "$@" -o $name.1.so -Wl,--device-partitions=1
	OFFLINK_CACHE_DIR=$PWD/$name.c link_ok $name.n "$@" -o $name.n.so -Wl,--device-partitions=$n \
		-Wl,--explain=$name.explain
	grep -q "^code generation of partition $n/$n " $name.explain || fail "$name: no partitions"
	all_kept $name $name.1.so $name.n.so
}
"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -foffload-lto -nogpulib -fPIC -c "$STUB/omp.c" \
	-o nv19.o || fail "compile for sm_90 (19)"
gpu_parts nv19 3 "$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" -shared nv19.o \
	-L"$RTLIB"
grep -q '"--stop-before=pre-isel-intrinsic-lowering"' nv19.explain || fail "nv19: LTO went on"
"$LLVM19/clang" -fopenmp --offload-arch=gfx90a -foffload-lto -nogpulib -fPIC -c "$STUB/omp.c" \
	-o amd19.o || fail "compile for gfx90a (19)"
gpu_parts amd19 3 "$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" -shared amd19.o \
	-L"$RTLIB"
for f in 0 1; do
	"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
		-fPIC -O2 -DFID=$f -c "$SRC/kern.cu" -o hip$f.o || fail "clang -x hip"
done
# more partitions than kernels: AMDGPU's splitter writes fewer
gpu_parts hip 16 "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" -shared hip0.o hip1.o
grep -q '"--mtriple=amdgcn-amd-amdhsa" "--mcpu=gfx90a"' hip.explain || fail "hip: not AMDGPU's splitter"
# through clang-linker-wrapper's personality, whose driver asks the LTO
# step for partitions of its own (-flto-partitions=8): it writes the whole
# module all the same
hip_runtime_standin
OFFLINK_CACHE_DIR=$PWD/hipp.c OFFLINK_DEVICE_PARTITIONS=4 link_ok hipp "$LLVM22/clang" -B"$OFL_COMPAT" \
	--offload-new-driver -fgpu-rdc --hip-link -nogpulib --offload-arch=gfx90a -shared hip0.o hip1.o \
	-L. -o hipp.so -Wl,--explain=hipp.explain
grep -q -- '"--lto-partitions=8" .*"--lto-partitions=1"' hipp.explain || fail "hipp: LTO in partitions"
all_kept hipp hip.1.so hipp.so
echo "partitions: CUDA, OpenMP x86_64 (22, 19), sm_90 and gfx90a (19), HIP"
