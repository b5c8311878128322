# Fat objects (-type=o with an ELF host): our object is read by LLVM 19/22
# and theirs by us; the host entry comes back as a linkable object.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler" "$LLVM22/clang" readelf objdump cc
BUNDLER=$OFL_COMPAT/clang-offload-bundler

cat >main.c <<'C'
#include <stdio.h>
int twice(int x);
int main(void) { printf("%d\n", twice(21)); return 0; }
C
cat >host.c <<'C'
static int counter;
int twice(int x) { counter++; return 2 * x; }
C
"$LLVM22/clang" -O1 -c host.c -o host.o
cc -c main.c -o main.o
# a real device code object from clang, and some raw bytes
cat >k.hip <<'C'
#define __global__ __attribute__((global))
extern "C" __global__ void scale(float *x, float a) {
#ifdef __HIP_DEVICE_COMPILE__
  x[__builtin_amdgcn_workitem_id_x()] *= a;
#endif
}
C
"$LLVM22/clang" -x hip --offload-arch=gfx90a -nogpulib -nogpuinc --cuda-device-only -c k.hip -o dev.bundle
"$LLVM22/clang-offload-bundler" -unbundle -type=o -input=dev.bundle -targets=hipv4-amdgcn-amd-amdhsa--gfx90a -output=gfx90a.co
randbytes 7 3000 >omp.bin
T=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,openmp-x86_64-unknown-linux-gnu

check_host() { # the host entry is the object minus the bundle sections
	! readelf -SW "$1" | grep -q __CLANG_OFFLOAD_BUNDLE__ || fail "$1 still has bundle sections"
	[ "$(objdump -d "$1" | tail -n +3)" = "$(objdump -d host.o | tail -n +3)" ] || fail "$1: code differs"
	[ "$(nm "$1")" = "$(nm host.o)" ] || fail "$1: symbols differ"
	cc main.o "$1" -o prog && [ "$(./prog)" = 42 ] || fail "$1 does not link and run"
}

$BUNDLER -type=o -targets=$T -input=host.o -input=gfx90a.co -input=omp.bin -output=ours.o
[ -z "$(readelf -a ours.o 2>&1 >/dev/null)" ] || fail "readelf warns about ours.o"
readelf -SW ours.o | grep -q '__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx90a' || fail "missing section"
readelf -SW ours.o | awk '/__CLANG_OFFLOAD_BUNDLE__/ { if ($(NF-3) != "E" || $NF != 1) bad=1 } END { exit bad }' ||
	fail "bundle sections must have flags E and alignment 1"
cc main.o ours.o -o prog && [ "$(./prog)" = 42 ] || fail "fat object does not link"

for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	"$llvm" -type=o -targets=$T -input=host.o -input=gfx90a.co -input=omp.bin -output=llvm.$v.o
	"$llvm" -list -type=o -input=ours.o >l.llvm
	$BUNDLER -list -type=o -input=llvm.$v.o >l.ours
	same l.llvm l.ours
	printf '%s\n' host-x86_64-unknown-linux-gnu- hipv4-amdgcn-amd-amdhsa--gfx90a openmp-x86_64-unknown-linux-gnu- | cmp - l.ours ||
		fail "section order"
	"$llvm" -unbundle -type=o -targets=$T -input=ours.o -output=h.llvm -output=g.llvm -output=o.llvm
	$BUNDLER -unbundle -type=o -targets=$T -input=llvm.$v.o -output=h.ours -output=g.ours -output=o.ours
	same g.llvm gfx90a.co; same o.llvm omp.bin
	same g.ours gfx90a.co; same o.ours omp.bin
	check_host h.ours
	check_host h.llvm
done

# a real clang-built bundle (HIP device compile) lists and unbundles like LLVM
"$LLVM22/clang" -x hip --offload-arch=gfx90a --offload-arch=gfx908:xnack+ -nogpulib -nogpuinc --cuda-device-only -c k.hip -o fat.bundle
"$LLVM22/clang-offload-bundler" -list -type=o -input=fat.bundle >l.llvm
$BUNDLER -list -type=o -input=fat.bundle >l.ours
same l.llvm l.ours
"$LLVM22/clang-offload-bundler" -unbundle -type=o -input=fat.bundle -targets=hipv4-amdgcn-amd-amdhsa--gfx908:xnack+ -output=x.llvm
$BUNDLER -unbundle -type=o -input=fat.bundle -targets=hipv4-amdgcn-amd-amdhsa--gfx908:xnack+ -output=x.ours
same x.llvm x.ours
readelf -h x.ours | grep -q 'AMD GPU' || fail "expected an AMDGPU code object"
echo ok
