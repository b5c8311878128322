#!/usr/bin/env bash
# The script -T (--script) names is read where it stands on the line, as
# ld.bfd 2.40 and ld.lld 22 read it: its INPUT and GROUP names are the
# link's inputs there, and their device code is linked.  The script is
# found in the working folder, then the library folders; ld.lld finds its
# names beside it, ld.bfd as if it stood in the working folder.  ld.bfd
# takes a full script (its default one with an INPUT added) or one that
# INSERTs, ld.lld also one with INPUT only (gold 2.40 parses none of
# these).  --default-script (-dT) is read after the line, and only where no
# -T script replaces it (ld.lld: no -T; ld.bfd: the -T scripts all
# INSERT).  The programs print what the right k.o computes, on the device,
# through ld.offlink (bfd, lld), the clang-linker-wrapper personality and
# the plugin (bfd).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.bfd ld.lld ar
kern_setup

mkdir -p sub
kern_value k5 5 && ar rcs libk.a k5.o
kern_value k7 7 && ar rcs libk7.a k7.o
kern_value sub/k 42 # beside the script in sub/
kern_value k 3      # in the working folder
INSERT='SECTIONS { .offlink_t : { *(.offlink_t) } } INSERT AFTER .data;'
printf 'INPUT(libk.a)\n' >input.ld
printf 'INPUT(libk.a)\n%s\n' "$INSERT" >insert.ld
printf 'GROUP(libk7.a)\n%s\n' "$INSERT" >insert7.ld
printf 'INPUT(k.o)\n%s\n' "$INSERT" >sub/s.ld
printf '%s\n' "$INSERT" >bare.ld
ld.bfd -pie --verbose | sed -n '/^=====/,/^=====/p' | sed '1d;$d' >default.ld
[ -s default.ld ] || fail "no default script from ld.bfd --verbose"
{ cat default.ld && echo 'INPUT(libk.a)'; } >full.ld

LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
BFD=("${LD[@]}" -Wl,--offlink-linker=bfd)
LLD=("${LD[@]}" -Wl,--offlink-linker=lld)
run_k full-bfd 5 "${BFD[@]}" -Wl,-T,full.ld
run_k input-lld 5 "${LLD[@]}" -Wl,-T,input.ld
for ld in bfd lld; do
	L=BFD[@]
	[ $ld = lld ] && L=LLD[@]
	run_k insert-$ld 5 "${!L}" -Wl,--script=insert.ld
	# where it stands: before libk7.a, its libk.a gives k; after, libk7.a
	run_k before-$ld 5 "${!L}" -Wl,-T,insert.ld libk7.a
	run_k after-$ld 7 "${!L}" libk7.a -Wl,-T,insert.ld
done
# its names: ld.lld finds them beside it, ld.bfd in the working folder
# first, found there (-T sub/s.ld) or in a library folder (-Lsub -T s.ld)
for at in "-Wl,-T,sub/s.ld" "-Lsub -Wl,-T,s.ld"; do
	run_k place-bfd 3 "${BFD[@]}" $at
	run_k place-lld 42 "${LLD[@]}" $at
done
run_k insert-personality 5 "${OMP[@]}" -B"$OFL_COMPAT" -Wl,-T,insert.ld
run_k insert-plugin 5 -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" -Wl,-T,insert.ld

# --default-script: after the line's inputs (libk7.a first), read
run_k dt-bfd 7 "${BFD[@]}" -Wl,-dT,full.ld libk7.a
run_k dt-lld 7 "${LLD[@]}" -Wl,--default-script=input.ld libk7.a
run_k dt-only-lld 5 "${LLD[@]}" -Wl,--default-script=input.ld
# ld.bfd reads it after a -T script that INSERTs
{ cat default.ld && echo 'INPUT(libk7.a)'; } >full7.ld
run_k dt-insert-bfd 7 "${BFD[@]}" -Wl,-dT,full7.ld -Wl,-T,bare.ld -Wl,--explain=dt-insert-bfd.explain
grep -q "libk7.a(k7.o): device code taken" dt-insert-bfd.explain ||
	{ cat dt-insert-bfd.explain; fail "dt-insert-bfd: libk7.a not read"; }
# not after one that replaces it (ld.bfd), nor after any (ld.lld)
for ld in bfd lld; do
	L=BFD[@]
	[ $ld = lld ] && L=LLD[@]
	T=full.ld
	[ $ld = lld ] && T=insert.ld
	run_k dt-replaced-$ld 5 "${!L}" -Wl,-dT,insert7.ld -Wl,-T,$T -Wl,--explain=dt-replaced-$ld.explain
	grep -q "insert7.ld: not read: a -T script replaces it" dt-replaced-$ld.explain ||
		{ cat dt-replaced-$ld.explain; fail "dt-replaced-$ld: read"; }
done

# cached: the device link's key holds the images the -T script's archive
# gives; new ones there are a miss, not the old program's device code
for v in 5 6; do
	kern_value k5 $v && rm libk.a && ar rcs libk.a k5.o
	OFFLINK_CACHE=1 run_k cached-$v $v "${LLD[@]}" -Wl,-T,input.ld -Wl,--explain=cached-$v.explain
	grep -qF "libk.a(k5.o): device code taken" cached-$v.explain ||
		{ cat cached-$v.explain; fail "cached-$v: libk.a's device code not taken"; }
done
echo "script -T: the -T scripts' device code is linked"
