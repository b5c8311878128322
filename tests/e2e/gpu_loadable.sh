#!/usr/bin/env bash
# What will fail at run time, said before it runs.  OpenMP programs built
# here by clang 19 for sm_90 hold cubins that CUDA 13's tools wrote in the
# new ELF header, which LLVM 19's offload runtime does not read: every
# offlink route's link warns once, naming the image, the toolkit, the
# releases that read it and what to do; objects made by clang 19 for
# gfx90a and CUDA programs (the driver reads either header) link without
# it.  offlink inspect --runtime --gpu says which images of a program,
# object or archive would load, in words and JSON.
source "$OFL_SRC/tests/lib.sh"
RT=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$LLVM19/clang" "$LLVM22/clang++" "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" python3
[ -e "$RT/libomptarget.devicertl.a" ] || {
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "$RT/libomptarget.devicertl.a missing"
	skip "$RT/libomptarget.devicertl.a missing (run scripts/bootstrap)"
}
export OFFLINK_CACHE=0
unset LIBRARY_PATH
cat >omp.c <<'C'
int main(void)
{
	int x = 0;
#pragma omp target map(tofrom : x)
	x = 42;
	return x != 42;
}
C
"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -nogpulib -c omp.c -o nv.o || fail "clang 19 sm_90"
"$LLVM19/clang" -fopenmp --offload-arch=gfx90a -nogpulib -c omp.c -o amd.o || fail "clang 19 gfx90a"
"$LLVM19/clang" -fopenmp --offload-arch=gfx90a:xnack+ -nogpulib -c omp.c -o amdx.o ||
	fail "clang 19 gfx90a:xnack+"

WARN="nvptx64-nvidia-cuda sm_90 image: CUDA 13\.[0-9]+'s tools wrote its cubin with the new ELF header \(ABI version 8\), which LLVM 19's offload runtime, the one this program registers with, does not read \(LLVM 22's does"
# one warning, through ld.offlink and the personality alike
"$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" nv.o -L"$RT" -o p1 2>err1 || fail "ld.offlink"
"$LLVM19/clang" -B"$OFL_COMPAT" -fopenmp --offload-arch=sm_90 nv.o -L"$RT" -o p2 2>err2 ||
	fail "personality"
for e in err1 err2; do
	[ "$(grep -c warning $e)" = 1 ] || { cat $e; fail "$e: one warning"; }
	grep -Eq "warning: $WARN" $e || { cat $e; fail "$e: the warning"; }
	grep -q "link its device code with a CUDA 12 toolkit's ptxas and nvlink .*, or build and link it with an LLVM 22 or later that has the NVPTX device runtime" $e ||
		fail "$e: what to do"
done
# AMD code: no cubin, no warning
"$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" amd.o -L"$RT" -o pa 2>erra || {
	cat erra
	fail "ld.offlink gfx90a"
}
! grep -q warning erra || { cat erra; fail "a warning for gfx90a"; }

# the inspector: LLVM 19 loads nothing, 22 the cubin; the SM rule
expect_fail "$OFFLINK" inspect --runtime=19 --gpu=sm_90 p1
grep -Eq "^  no   p1/\.llvm\.offloading\[0\] \(nvptx64-nvidia-cuda sm_90\): LLVM 19's offload runtime does not read the new cubin header \(EI_OSABI 0x41, ABI version 8, CUDA 13" out ||
	{ cat out; fail "inspect 19"; }
grep -q "0 of 1 image(s) load" out || fail "inspect 19 count"
expect_err_line "error: p1: no image loads on sm_90 with LLVM 19"
"$OFFLINK" inspect --runtime=22 --gpu=sm_90 p1 nv.o >out || fail "inspect 22"
[ "$(grep -c "^  yes .*cubin for sm_90$" out)" = 2 ] || { cat out; fail "inspect 22: program and object"; }
expect_fail "$OFFLINK" inspect --runtime=22 --gpu=sm_80 p1
grep -q "a cubin for sm_90 does not run on sm_80" out || fail "SM rule"
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 --json p1 nv.o >j.json && fail "json: exit 0"
python3 - j.json <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert [f["file"] for f in d["gpu"]] == ["p1", "nv.o"], d
im = d["gpu"][0]["images"][0]
assert im["loader"] == "llvm" and im["code"] == "cubin" and im["sm"] == 90, im
assert im["cubin_header"] == "new" and im["abi_version"] == 8 and im["osabi"] == 65, im
assert im["first_runtime"] == 22 and im["loads"] == "no" and im["toolkit"].startswith("13."), im
assert d["gpu"][0]["loadable"] == 0
PY
# a file that does not parse is an error, and the list stays JSON
printf '\x10\xff\x10\xad\x01\x00\x00\x00\xff\xff' >bad.o # a cut OffloadBinary
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 --json bad.o p1 >j2.json 2>j2.err && fail "json: bad file, exit 0"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert [f["file"] for f in d["gpu"]] == ["p1"], d' \
	j2.json || { cat j2.json; fail "json after a file that does not parse"; }
# AMD: any xnack loads on either; xnack+ needs a GPU whose target ID says so
"$OFFLINK" inspect --runtime=19 --gpu=gfx90a:sramecc+:xnack- pa >out || fail "gfx90a"
grep -q "^  yes  pa/.llvm.offloading\[0\] (amdgcn-amd-amdhsa gfx90a): gfx90a$" out ||
	{ cat out; fail "gfx90a line"; }
expect_fail "$OFFLINK" inspect --runtime=19 --gpu=gfx942 pa
ar rcs libamd.a amdx.o
"$OFFLINK" inspect --runtime=19 --gpu=gfx90a:sramecc+:xnack+ libamd.a >out || fail "xnack+"
grep -q "^  yes  libamd.a(amdx.o)/.llvm.offloading\[0\] .*gfx90a:xnack+" out ||
	{ cat out; fail "xnack+ line"; }
expect_fail "$OFFLINK" inspect --runtime=19 --gpu=gfx90a:sramecc+:xnack- libamd.a
grep -q "the image needs xnack+, the GPU has the other" out || { cat out; fail "xnack-"; }

# CUDA: the fat binary's cubin is the driver's, which reads either header
cat >k.cu <<'CU'
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main() { k<<<1, 1>>>(nullptr); return 0; }
CU
"$LLVM22/clang++" -x cuda --cuda-path="$CUDA" --offload-new-driver -fgpu-rdc --offload-arch=sm_90 \
	-Wno-unknown-cuda-version -c k.cu -o k.o || fail "clang 22 cuda"
"$LLVM22/clang++" -fuse-ld=offlink -B"$OFL_BUILD/bin" k.o -L"$CUDA/lib64" -lcudart -o cu 2>errc ||
	{ cat errc; fail "cuda link"; }
! grep -q warning errc || { cat errc; fail "a warning for CUDA"; }
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 cu >out || { cat out; fail "cuda inspect"; }
grep -q "^  yes  cu/.nv_fatbin\[0\] (nvptx64-nvidia-cuda sm_90): cubin for sm_90" out ||
	{ cat out; fail "cuda fatbin line"; }
expect_fail "$OFFLINK" inspect --runtime=19 --gpu=sm_100 cu

# options
expect_fail "$OFFLINK" inspect --gpu=sm_90 p1
expect_err_line "--gpu and --runtime go together"
expect_fail "$OFFLINK" inspect --runtime=9 --gpu=sm_90 p1
expect_err_line "--runtime is an LLVM release"
expect_fail "$OFFLINK" inspect --runtime=19 --gpu=sm_90 --check sm_90 p1
expect_err_line "use one of --extract, --extract-all, --check and --gpu"
