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
kern_setup

mkdir -p beside lone lib
kern_value beside/k 42    # beside the script that names it
kern_value k 7            # the working folder's
kern_value lib/k 99       # in a library folder
printf 'INPUT(k.o)\n' >beside/s.ld
printf 'INPUT(k.o)\n' >lone/s.ld # no k.o beside this one

LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
for ld in bfd lld gold; do
	run_k beside-$ld 42 "${LD[@]}" -Wl,--offlink-linker=$ld -Llib beside/s.ld
done
run_k lone-bfd 7 "${LD[@]}" -Wl,--offlink-linker=bfd -Llib lone/s.ld
run_k lone-lld 7 "${LD[@]}" -Wl,--offlink-linker=lld -Llib lone/s.ld
run_k lone-gold 99 "${LD[@]}" -Wl,--offlink-linker=gold -Llib lone/s.ld
for ld in bfd gold; do
	run_k plugin-$ld 42 -fuse-ld=$ld -Wl,-plugin,"$PLUGIN" -Llib beside/s.ld
done
run_k plugin-lone-gold 99 -fuse-ld=gold -Wl,-plugin,"$PLUGIN" -Llib lone/s.ld
echo "script folder: the script's own k.o is linked"
