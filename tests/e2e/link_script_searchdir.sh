#!/usr/bin/env bash
# A linker script's SEARCH_DIR adds a library folder and a -T script's
# STARTUP an input, as ld.bfd 2.40, ld.lld 22 and gold 2.40 take them
# (tried): the folder is searched after every -L folder, a relative one in
# the working folder (not beside the script); ld.bfd and gold read a -T
# script's before looking for any library (an -l before the -T sees it),
# ld.lld where it stands; an input script's is seen by what comes after it
# (gold ignores it).  ld.bfd links STARTUP's file first, found in the
# working folder or a library folder.  Device code of a library found
# there is linked: the programs print what the right k.o computes, on the
# device, through ld.offlink (bfd, lld, gold), the clang-linker-wrapper
# personality and the plugin (bfd).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.bfd ld.lld ld.gold ar
kern_setup

mkdir -p libs sub/libs B st
kern_value libs/k 5 && ar rcs libs/libk.a libs/k.o
kern_value B/k 2 && ar rcs B/libk.a B/k.o         # an -L folder's: first
kern_value sub/libs/k 9 && ar rcs sub/libs/libk.a sub/libs/k.o # beside the script: not looked in
kern_value st/s 7
cp st/s.o start.o
INSERT='SECTIONS { .offlink_t : { *(.offlink_t) } } INSERT AFTER .data;'
printf 'SEARCH_DIR("libs")\nINPUT(-lk)\n' >libsd.so
printf 'SEARCH_DIR(libs)\n' >libdir.so
printf 'SEARCH_DIR("libs")\nINPUT(-lk)\n' >sub/libsub.so
printf 'SEARCH_DIR("libs")\n%s\n' "$INSERT" >dir.ld
printf 'SEARCH_DIR("libs")\n' >dironly.ld
printf 'STARTUP(start.o)\n%s\n' "$INSERT" >start.ld
printf 'STARTUP(s.o)\n%s\n' "$INSERT" >startl.ld
ld.bfd -pie --verbose | sed -n '/^=====/,/^=====/p' | sed '1d;$d' >default.ld
grep -q 'SEARCH_DIR("=/usr/local/lib64")' default.ld || fail "no SEARCH_DIR in ld.bfd's default script"
{ echo 'SEARCH_DIR("libs")' && cat default.ld; } >full.ld

LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
BFD=("${LD[@]}" -Wl,--offlink-linker=bfd)
LLD=("${LD[@]}" -Wl,--offlink-linker=lld)
PLUG=(-fuse-ld=bfd -Wl,-plugin,"$PLUGIN")
for ld in bfd lld; do
	L=BFD[@]
	[ $ld = lld ] && L=LLD[@]
	# an input script's: its own -l, a later one; after every -L folder
	run_k input-$ld 5 "${!L}" -L. -lsd
	run_k later-$ld 5 "${!L}" -L. -ldir -lk
	run_k after-L-$ld 2 "${!L}" -L. -lsd -LB
	run_k working-$ld 5 "${!L}" -Lsub -lsub
	# a -T script's
	run_k T-$ld 5 "${!L}" -Wl,-T,dir.ld -lk
	run_k T-after-L-$ld 2 "${!L}" -Wl,-T,dir.ld -lk -LB
done
# ld.bfd and gold read it before any library is looked for
run_k T-before-bfd 5 "${BFD[@]}" -lk -Wl,-T,dir.ld
run_k T-before-gold 5 "${LD[@]}" -Wl,--offlink-linker=gold -lk -Wl,-T,dironly.ld
# ld.bfd's full script (its SEARCH_DIRs in the sysroot, "=/usr/local/lib64")
run_k full-bfd 5 "${BFD[@]}" -lk -Wl,-T,full.ld
run_k full-default-bfd 5 "${BFD[@]}" -L. -lsd -Wl,-T,default.ld
run_k input-personality 5 "${OMP[@]}" -B"$OFL_COMPAT" -L. -lsd
run_k T-personality 5 "${OMP[@]}" -B"$OFL_COMPAT" -lk -Wl,-T,dir.ld
run_k input-plugin 5 "${PLUG[@]}" -L. -lsd
run_k T-plugin 5 "${PLUG[@]}" -lk -Wl,-T,dir.ld

# STARTUP (ld.bfd, -T scripts): its file first, in the working folder or
# a library folder; the plugin's linker offers it too: taken once
run_k startup-bfd 7 "${BFD[@]}" -Wl,-T,start.ld
run_k startup-L-bfd 7 "${BFD[@]}" -Lst -Wl,-T,startl.ld
run_k startup-plugin 7 "${PLUG[@]}" -Wl,-T,start.ld -Wl,-plugin-opt,explain=startup-plugin.explain
[ "$(grep -c 'start.o: device code taken' startup-plugin.explain)" = 1 ] ||
	{ cat startup-plugin.explain; fail "startup-plugin: start.o not taken once"; }

# cached: a change in the folder's library is a miss, not the old device code
for v in 5 6; do
	kern_value libs/k $v && rm libs/libk.a && ar rcs libs/libk.a libs/k.o
	OFFLINK_CACHE=1 run_k cached-$v $v "${LLD[@]}" -L. -lsd
done
echo "script SEARCH_DIR, STARTUP: the libraries found there and the STARTUP file are linked"
