#!/usr/bin/env bash
# The driver's intent reaches the device link on every route, as it does
# LLVM's (compile and link only, no GPU needed):
#
#  - -O3 -foffload-lto for sm_90 with clang 19 and LLVM 19's device
#    runtime: the image equals clang 19's own link's, byte for byte,
#    through offlink's clang-linker-wrapper (the driver's --opt-level=O3),
#    ld.offlink under -flto (the driver's -plugin-opt=O3) and ld.offlink
#    given --device-opt-level=O3; without the level it differs (O2);
#  - CUDA's bin/ off PATH: ld.offlink finds the toolkit as clang does
#    (/usr/local/cuda) and the personality forwards the driver's
#    --cuda-path, both giving LLVM's image; a toolkit that is not there
#    gets a hint naming it and what to set;
#  - -fopenmp-target-jit (--embed-bitcode): the image is the linked
#    bitcode, LLVM 22's byte for byte; LLVM 19's the same module (value
#    names aside: llvm-lto2 keeps them where LLVM 19's in-process LTO
#    drops them, so both are compared through opt --discard-value-names);
#  - --wrapper-verbose with -v for the device tools: LLVM's lit check
#    (clang/test/Driver/linker-wrapper-hip-no-rdc.c:20), device images
#    named as LLVM names them and the ld.lld lines of clang -v shown, for
#    LLVM 22's wrapper and ours alike.
source "$OFL_SRC/tests/lib.sh"
export OFFLINK_CACHE=0
CUDA=${CUDA_PATH:-/usr/local/cuda}
need cc "$LLVM19/clang" "$LLVM19/llvm-lto2" "$LLVM19/opt" "$LLVM22/clang" \
	"$LLVM22/clang-linker-wrapper" "$LLVM22/llvm-offload-binary" "$LLVM22/ld.lld" \
	"$CUDA/bin/nvlink" "$CUDA/bin/ptxas"
need_libomp19
# nvlink records a LIBRARY_PATH in the cubin
unset LIBRARY_PATH
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
# a PATH without CUDA's bin/ (nor anything else holding ptxas)
NOCUDA=/usr/bin:/bin
PATH=$NOCUDA command -v ptxas >/dev/null && skip "ptxas in /usr/bin: no PATH without CUDA"

cat >k.c <<'EOF'
int main(void)
{
	int a[64], s = 0;
#pragma omp target teams distribute parallel for map(from : a)
	for (int i = 0; i < 64; i++)
		a[i] = i * i;
	for (int i = 0; i < 64; i++)
		s += a[i];
	return s != 85344;
}
EOF

# image PROG: its device image, extracted (one)
image() {
	rm -rf img_$1
	"$OFFLINK" inspect --extract-all=img_$1 $1 >/dev/null || fail "$1: inspect"
	[ "$(ls img_$1 | wc -l)" = 1 ] || fail "$1: expected one image"
	echo img_$1/*
}
# same REF PROG: PROG's image is REF's, byte for byte
same() {
	cmp "$(image $1)" "$(image $2)" || fail "$2: the image differs from $1's"
}

# -O3 -foffload-lto, LLVM 19
O3=(-O3 -fopenmp --offload-arch=sm_90 -foffload-lto)
"$LLVM19/clang" "${O3[@]}" -fPIC -c k.c -o k.o || fail "clang 19 -c"
"$LLVM19/clang" "${O3[@]}" k.o -L"$RTLIB" -o ref || fail "clang 19's link"
"$LLVM19/clang" "${O3[@]}" -B"$OFL_COMPAT" k.o -L"$RTLIB" -o compat || fail "clang 19 -B<compat>"
same ref compat
"$LLVM19/clang" -O3 -flto -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" k.o -L"$RTLIB" -o plugopt ||
	fail "ld.offlink under -flto -O3"
same ref plugopt
# the plugin, behind LLVMgold, reads the level from LLVMgold's -plugin-opt
plink "$LLVM19/clang" -O3 -flto -fopenmp -fuse-ld=bfd k.o -L"$RTLIB" \
	-Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" -o plugin || fail "the plugin under -flto -O3"
same ref plugin
cc k.o -L"$RTLIB" -lomp -lomptarget -o level -B"$GCCDIR" -Wl,--device-opt-level=O3 ||
	fail "ld.offlink --device-opt-level=O3"
same ref level
cc k.o -L"$RTLIB" -lomp -lomptarget -o o2 -B"$GCCDIR" || fail "ld.offlink, no level"
cmp -s "$(image ref)" "$(image o2)" && fail "-O3 made no difference: the test proves nothing"
# LLVM 22 code: -O<n> after the inputs, as clang 22's driver has the
# wrapper pass it (--device-compiler=<triple>=-O3); the toolkit last
"$LLVM22/clang" "${O3[@]}" -nogpulib -fPIC -c k.c -o k22.o || fail "clang 22 -c"
cc k22.o -o dry22 -B"$GCCDIR" -Wl,--dry-run -Wl,--nogpulib -Wl,--device-opt-level=O3 2>dry22.log ||
	fail "ld.offlink --dry-run, LLVM 22 code"
grep -q '"--target=nvptx64-nvidia-cuda" "-march=sm_90" "[^"]*\.o" "-O3" "--cuda-path=/' dry22.log ||
	{ cat dry22.log; fail "LLVM 22 device link: no -O3 or --cuda-path"; }
expect_fail cc k.o -L"$RTLIB" -o bad -B"$GCCDIR" -Wl,--device-opt-level=3
grep -q "device-opt-level: expected O0, O1, O2 or O3, got '3'" err || { cat err; fail "bad level"; }

# CUDA's bin/ off PATH: LLVM's link, ld.offlink's (clang -fuse-ld and gcc
# -B) and the personality's give the same image
PATH=$NOCUDA "$LLVM19/clang" "${O3[@]}" k.o -L"$RTLIB" -o ref_np || fail "clang 19, CUDA off PATH"
same ref ref_np
PATH=$NOCUDA "$LLVM19/clang" "${O3[@]}" -B"$OFL_COMPAT" k.o -L"$RTLIB" -o compat_np ||
	fail "clang 19 -B<compat>, CUDA off PATH"
same ref_np compat_np
PATH=$NOCUDA cc k.o -L"$RTLIB" -lomp -lomptarget -o ld_np -B"$GCCDIR" -Wl,--device-opt-level=O3 \
	-Wl,--explain=ld_np.explain || fail "ld.offlink, CUDA off PATH"
same ref_np ld_np
grep -q "the CUDA toolkit of NVPTX device links" ld_np.explain || fail "ld.offlink: toolkit not named"
PATH=$NOCUDA "$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" k.o -L"$RTLIB" \
	-o fuse_np || fail "clang -fuse-ld=offlink, CUDA off PATH"
# the toolkit under another name, given to clang: the personality forwards it
ln -s "$(readlink -f "$CUDA")" othercuda
PATH=$NOCUDA "$LLVM19/clang" "${O3[@]}" --cuda-path="$PWD/othercuda" -B"$OFL_COMPAT" k.o \
	-L"$RTLIB" -o compat_other || fail "clang 19 --cuda-path=<elsewhere> -B<compat>"
same ref_np compat_other
# on PATH: found by its ptxas, as clang does
PATH=$PWD/othercuda/bin:$NOCUDA cc k.o -L"$RTLIB" -o other -B"$GCCDIR" \
	-Wl,--explain=other.explain || fail "ld.offlink, CUDA elsewhere on PATH"
grep -q "^$(readlink -f "$CUDA"): the CUDA toolkit" other.explain || fail "not found by ptxas"
# not there: the hint says which toolkit and what to set
expect_fail env CUDA_PATH=$PWD/nowhere PATH=$NOCUDA cc k.o -L"$RTLIB" -o x -B"$GCCDIR"
grep -q "next: CUDA's tools (ptxas, nvlink) failed or are not in $PWD/nowhere/bin, the CUDA toolkit of this link (given); name another with CUDA_PATH" \
	err || { cat err; fail "no CUDA: hint"; }
expect_fail env PATH=$NOCUDA "$OFL_COMPAT/clang-linker-wrapper" --host-triple=x86_64-pc-linux-gnu \
	--linker-path=/usr/bin/ld k.o -L"$RTLIB" -lomptarget.devicertl -o x
grep -q "next: no CUDA toolkit given (.*): put its bin/ on PATH or name it with clang's --cuda-path" \
	err || { cat err; fail "personality without --cuda-path: hint"; }

# -fopenmp-target-jit: the linked bitcode is the image
JIT=(-fopenmp --offload-arch=sm_90 -fopenmp-target-jit)
"$LLVM22/clang" "${JIT[@]}" -nogpulib -fPIC -c k.c -o j22.o || fail "clang 22 -c (jit)"
N22=(-nogpulib -Xoffload-linker --unresolved-symbols=ignore-all)
"$LLVM22/clang" "${JIT[@]}" "${N22[@]}" j22.o -o jref22 || fail "clang 22's link (jit)"
"$LLVM22/clang" "${JIT[@]}" "${N22[@]}" -B"$OFL_COMPAT" j22.o -o jcompat22 ||
	fail "clang 22 -B<compat> (jit)"
same jref22 jcompat22
"$OFFLINK" inspect jcompat22 | grep -q "image llvm ir" || fail "jit 22: not a bitcode image"
"$LLVM19/clang" "${JIT[@]}" -fPIC -c k.c -o j19.o || fail "clang 19 -c (jit)"
"$LLVM19/clang" "${JIT[@]}" j19.o -L"$RTLIB" -o jref19 || fail "clang 19's link (jit)"
"$LLVM19/clang" "${JIT[@]}" -B"$OFL_COMPAT" j19.o -L"$RTLIB" -o jcompat19 ||
	fail "clang 19 -B<compat> (jit)"
"$OFFLINK" inspect jcompat19 | grep -q "image llvm ir" || fail "jit 19: not a bitcode image"
for p in jref19 jcompat19; do
	"$LLVM19/opt" --discard-value-names -passes=verify "$(image $p)" -o $p.bc || fail "$p: opt"
done
cmp jref19.bc jcompat19.bc || fail "jit 19: the module differs from LLVM's"

# LLVM 19's wrapper: its dry run's device link, --opt-level, -v for
# --wrapper-verbose and --cuda-path in LLVM 19's words
"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -nogpulib -fPIC -c k.c -o k19.o || fail "clang 19 -c (no LTO)"
D19=(--dry-run --wrapper-verbose --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld
	--cuda-path=/elsewhere --opt-level=O3 k19.o -o a.out)
for w in "$LLVM19/clang-linker-wrapper" "$OFL_COMPAT/clang-linker-wrapper"; do
	"$w" "${D19[@]}" 2>&1 | sed -n 1p | sed -E 's#/tmp/(offlink-[^/]*/)?##g; s/-[0-9a-f]{6}\././g'
done >dry19.log
[ "$(sort -u dry19.log | wc -l)" = 1 ] && grep -q ' -O3 .* -v --cuda-path=/elsewhere$' dry19.log ||
	{ cat dry19.log; fail "LLVM 19 dry run: device link differs from LLVM 19's"; }

# LLVM's lit check linker-wrapper-hip-no-rdc.c:20 (CMD-LINUX-DAG lines)
echo '__attribute__((visibility("protected"), used)) int x;' >x.c
"$LLVM22/clang" -cc1 x.c -triple amdgcn-amd-amdhsa -emit-llvm-bc -o x.bc || fail "x.bc"
"$LLVM22/llvm-offload-binary" -o x.out \
	--image=file=x.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx9-4-generic:xnack+ \
	--image=file=x.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx1200 || fail "x.out"
for w in "$LLVM22/clang-linker-wrapper" "$OFL_COMPAT/clang-linker-wrapper"; do
	"$w" --wrapper-verbose --device-linker=amdgcn-amd-amdhsa=-v --device-compiler=-v \
		--emit-fatbin-only --linker-path=/usr/bin/ld x.out -o x.hipfb >v.log 2>&1 ||
		{ cat v.log; fail "$w: --emit-fatbin-only"; }
	for a in 'gfx9-4-generic:xnack\+' gfx1200; do
		for tool in 'clang' 'ld\.lld'; do
			grep -Eq "$tool.* -o .*hipfb\.amdgcn\.$a.*\.img" v.log ||
				{ cat v.log; fail "$w: no '$tool ... -o ...hipfb.amdgcn.$a...img' line"; }
		done
	done
done
echo "driver intent: opt level, CUDA toolkit, JIT bitcode and verbose output as LLVM's"
