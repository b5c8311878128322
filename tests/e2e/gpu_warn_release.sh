#!/usr/bin/env bash
# The link's "will this run" warning for programs registered with LLVM 20's
# registration (20 to 22): the offload runtime that loads them is the
# device code's LLVM's (its libomptarget is the one the link adds), and
# LLVM 20 and 21 (21.0 builds, 21.1 before the backport of the fix) read
# only the old cubin header, which CUDA 13's tools no longer write.  Device
# code from clang 22 made to say 20 and 21 (its bitcode's producer) warns
# once, with what to do; as it is (22), it does not.
source "$OFL_SRC/tests/lib.sh"
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$LLVM22/clang" "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" python3 ar
export OFFLINK_CACHE=0
unset LIBRARY_PATH
t=nvptx64-nvidia-cuda
standin_llvm22 llvm22 $t
cat >omp.c <<'C'
int main(void)
{
	int x = 0;
#pragma omp target map(tofrom : x)
	x = 42;
	return x != 42;
}
C
"$LLVM22/clang" -fopenmp --offload-arch=sm_90 -foffload-lto -nogpulib -c omp.c -o v22.o ||
	fail "clang 22 sm_90"
# the device bitcode's version strings (its producer among them) made 20's and 21's
ver=$("$LLVM22/clang" -dumpversion)
"$OFFLINK" inspect --json v22.o >v22.json || fail "inspect"
python3 - "$ver" <<'PY' || fail "patch the producer"
import json, sys
ver = sys.argv[1].encode()
img = json.load(open("v22.json"))["files"][0]["children"][0]["children"][0]
at, size = img["offset"], img["size"]
d = open("v22.o", "rb").read()
body = d[at:at + size]
assert body.startswith(b"BC\xc0\xde") and ver in body, img
for v in (b"20", b"21"):
    new = v + ver[2:]
    open("v%s.o" % v.decode(), "wb").write(d[:at] + body.replace(ver, new) + d[at + size:])
PY
# what to do names what a system without LLVM's GPU runtime has (Debian's
# LLVM 22 has none): a CUDA 12 toolkit, or an LLVM that has the runtime
WARN="nvptx64-nvidia-cuda sm_90 image: CUDA 13\.[0-9]+'s tools wrote its cubin with the new ELF header \(ABI version 8\), which LLVM %s's offload runtime, the one this program is linked with, does not read \(LLVM 22's does, and the 21\.1 point releases from the one with llvm-project#159451\): it will stop with 'No images found compatible with the installed hardware'; link its device code with a CUDA 12 toolkit's ptxas and nvlink \(CUDA_PATH, or clang's --cuda-path, naming it\), or build and link it with an LLVM 22 or later that has the NVPTX device runtime \(lib/nvptx64-nvidia-cuda/libompdevice\.a: Debian's LLVM packages have none\)$"
for v in 22 21 20; do
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" v$v.o \
		-Wl,--device-compiler="$PWD/llvm22/bin/clang" -Wl,--explain=ex$v -o p$v 2>err$v ||
		{ cat err$v; fail "link $v"; }
	grep -q "device link 0: $t sm_90, 1 image(s), LLVM $v$" ex$v || { cat ex$v; fail "$v: the group's LLVM"; }
	grep -q "openmp wrapper: 1 image(s), LLVM 20-22 registration" ex$v || fail "$v: registration"
	if [ $v = 22 ]; then
		! grep -q warning err$v || { cat err$v; fail "a warning for LLVM 22"; }
		continue
	fi
	[ "$(grep -c warning err$v)" = 1 ] || { cat err$v; fail "$v: one warning"; }
	# shellcheck disable=SC2059
	grep -Eq "warning: $(printf "$WARN" $v)" err$v || { cat err$v; fail "$v: the warning"; }
done
echo "LLVM 20 and 21 runtimes warned about, 22 not"
