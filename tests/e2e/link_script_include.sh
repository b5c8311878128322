#!/usr/bin/env bash
# A linker script given as an input that INCLUDEs another: ld.bfd and
# ld.lld read the included text in its place, so its INPUT and GROUP names
# are the link's inputs, and their device code is linked.  The INCLUDEd
# file is found in the working folder, then the library folders; a
# relative name it gives beside the input script (ld.bfd 2.40: the text
# stands there) or beside the included script (ld.lld 19 and 22), tried
# with each.  The programs print what the right k.o computes, on the
# device, through ld.offlink (bfd, lld), the clang-linker-wrapper
# personality and the plugin (bfd).  gold 2.40 crashes on such a script.
# An INCLUDE cycle is an error, no hang; so are too many scripts.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.bfd ar
kern_setup

mkdir -p sub inc lib
kern_value ar 5 && ar rcs libk.a ar.o
kern_value sub/k 42 # beside the input script
kern_value inc/k 7  # beside the included one
kern_value lib/k 99 # beside the one found in a library folder
printf 'INCLUDE group.ld\n' >libkk.so
printf 'GROUP ( libk.a )\n' >group.ld
printf 'INCLUDE inc/i.ld\n' >sub/s.ld
printf 'INPUT(k.o)\n' >inc/i.ld
printf 'INCLUDE l.ld\n' >sub/t.ld
printf 'INPUT(k.o)\n' >lib/l.ld
printf 'INPUT(none.o)\n' >sub/l.ld # beside the script: not where INCLUDE looks

LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
for ld in bfd lld; do
	run_k group-$ld 5 "${LD[@]}" -Wl,--offlink-linker=$ld -L. -lkk
done
run_k group-personality 5 "${OMP[@]}" -B"$OFL_COMPAT" -L. -lkk
run_k group-plugin 5 -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" -L. -lkk
run_k beside-bfd 42 "${LD[@]}" -Wl,--offlink-linker=bfd sub/s.ld
run_k beside-lld 7 "${LD[@]}" -Wl,--offlink-linker=lld sub/s.ld
run_k beside-plugin 42 -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" sub/s.ld
run_k libdir-bfd 42 "${LD[@]}" -Wl,--offlink-linker=bfd -Llib sub/t.ld
run_k libdir-lld 99 "${LD[@]}" -Wl,--offlink-linker=lld -Llib sub/t.ld

# a device link run by ld.bfd (the personality's device clang told
# -fuse-ld=bfd) keys the libx.a bfd reads: beside the input script
printf 'int x(void) { return 1; }\n' >x.c
"$LLVM22/clang" -c x.c || fail "compile x.c"
mkdir -p pw
ar rcs sub/libx.a x.o && ar rcs inc/libx.a x.o
printf 'INCLUDE inc/ix.ld\n' >sub/libss.so
printf 'INPUT(libx.a)\n' >inc/ix.ld
printf '#!/bin/sh\nexec %s/clang-linker-wrapper --device-compiler=-fuse-ld=bfd "$@"\n' "$OFL_COMPAT" \
	>pw/clang-linker-wrapper
chmod +x pw/clang-linker-wrapper
OFFLINK_CACHE=1 run_k key-bfd 5 "${OMP[@]}" -B"$PWD/pw" -L. -lkk -Lsub -lss -Wl,--explain=key-bfd.explain
for w in 'runs: "/usr/bin/ld.bfd"' "key file: $PWD/inc/ix.ld" "key file: $PWD/sub/libx.a"; do
	grep -qF "$w" key-bfd.explain || { cat key-bfd.explain; fail "key-bfd: no '$w'"; }
done

# in its place: u.o, included before libk.a, is what pulls k from it (in
# the replay of the host link too, not only as lld searches archives)
printf 'int k(void);\nint u(void) { return k(); }\n' >u.c
printf '#include <stdio.h>\nint u(void);\nint main(void) { printf("k=%%d\\n", u()); return 0; }\n' >mainu.c
"$LLVM22/clang" "${OMP[@]}" -c u.c mainu.c || fail "compile u.c"
printf 'INCLUDE u.ld\nINPUT(libk.a)\n' >order.ld
printf 'INPUT(u.o)\n' >u.ld
for ld in bfd lld; do
	MAIN=mainu.o run_k order-$ld 5 "${LD[@]}" -Wl,--offlink-linker=$ld order.ld \
		-Wl,--explain=order-$ld.explain
	grep -q "libk.a(ar.o): device code taken: the host link pulls it" order-$ld.explain ||
		{ cat order-$ld.explain; fail "order-$ld: not in its place"; }
done

# the device link reads the script too (-lkk): its key holds what it includes
OFFLINK_CACHE=1 run_k explain 5 "${LD[@]}" -Wl,--offlink-linker=lld -L. -lkk -Wl,--explain=explain.txt
for w in "libk.a(ar.o): device code taken" "key file: $PWD/group.ld" "key file: $PWD/libk.a"; do
	grep -qF "$w" explain.txt || { cat explain.txt; fail "explain: no '$w'"; }
done

# a cycle: ld.bfd says its includes are nested too deeply, ld.lld finds the
# cycle; offlink stops reading, as it does where scripts include others
# many times over (8^11 here)
printf 'INCLUDE b.ld\n' >a.ld
printf 'INCLUDE a.ld INCLUDE a.ld\n' >b.ld
for i in $(seq 0 10); do
	for n in 1 2 3 4 5 6 7 8; do echo "INCLUDE f$((i + 1)).ld"; done >f$i.ld
done
printf 'INPUT(ar.o)\n' >f11.ld
for ld in bfd lld; do
	for c in "a.ld:linker scripts nested more than 16 deep" "f0.ld:more than 1000 linker scripts read"; do
		expect_fail timeout 300 "$LLVM22/clang" -fopenmp "${LD[@]}" -Wl,--offlink-linker=$ld \
			main.o ${c%%:*} -L$RT -o cycle
		grep -q "^ld.offlink: error: ${c%%:*}: ${c#*:}" "$SCRATCH/err" ||
			{ cat "$SCRATCH/err"; fail "${c%%:*} with $ld: not offlink's error"; }
	done
done
echo "script include: the included scripts' device code is linked"
