#!/usr/bin/env bash
# A linker script's relative INPUT(k.o) is found where the host linker
# finds it: beside the script first (ld.bfd, gold, ld.lld), then the
# working folder (bfd, lld) or the library folders (gold).  Another k.o in
# the working folder, with other kernels, must not be the one whose device
# code offlink links: the program prints what the script's k.o computes,
# on the device, through ld.offlink with bfd, lld and gold and through the
# plugin in bfd and gold.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.bfd ld.gold
RT=/usr/lib/llvm-22/lib
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT OFFLINK_CACHE=0
OMP=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)

# kern NAME VALUE: NAME.o, whose kernel k() computes VALUE on the device
kern() {
	cat >$1.c <<C
#include <omp.h>
int k(void)
{
	int r = 0;
#pragma omp target map(from : r)
	r = omp_is_initial_device() ? -1 : $2;
	return r;
}
C
	"$LLVM22/clang" "${OMP[@]}" -c $1.c -o $1.o || fail "compile $1"
}
printf '#include <stdio.h>\nint k(void);\nint main(void) { printf("k=%%d\\n", k()); return 0; }\n' >main.c
"$LLVM22/clang" "${OMP[@]}" -c main.c || fail "compile main.c"
mkdir -p beside lone lib
kern beside/k 42    # beside the script that names it
kern k 7            # the working folder's
kern lib/k 99       # in a library folder
printf 'INPUT(k.o)\n' >beside/s.ld
printf 'INPUT(k.o)\n' >lone/s.ld # no k.o beside this one

# olink NAME EXPECTED ARGS...: main.o and ARGS linked, run on the device
olink() {
	local name=$1 want=$2
	shift 2
	plink "$LLVM22/clang" -fopenmp main.o "$@" -L$RT -o $name >$name.log 2>&1 ||
		{ cat $name.log; fail "$name: link"; }
	./$name >$name.out 2>$name.err || { cat $name.err; fail "$name: the program failed"; }
	[ "$(cat $name.out)" = "k=$want" ] || fail "$name: printed $(cat $name.out), not k=$want"
}
LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
for ld in bfd lld gold; do
	olink beside-$ld 42 "${LD[@]}" -Wl,--offlink-linker=$ld -Llib beside/s.ld
done
olink lone-bfd 7 "${LD[@]}" -Wl,--offlink-linker=bfd -Llib lone/s.ld
olink lone-lld 7 "${LD[@]}" -Wl,--offlink-linker=lld -Llib lone/s.ld
olink lone-gold 99 "${LD[@]}" -Wl,--offlink-linker=gold -Llib lone/s.ld
for ld in bfd gold; do
	olink plugin-$ld 42 -fuse-ld=$ld -Wl,-plugin,"$PLUGIN" -Llib beside/s.ld
done
olink plugin-lone-gold 99 -fuse-ld=gold -Wl,-plugin,"$PLUGIN" -Llib lone/s.ld
echo "script folder: the script's own k.o is linked"
