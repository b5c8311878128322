#!/usr/bin/env bash
# offlink's clang-linker-wrapper and ld.offlink chained, as clang runs them
# under $(offlink --ldflags) with offload flags on the link line
# (--linker-path=<prefix>/bin/ld.offlink): the personality does ld.offlink's
# part and runs the host linker ld.offlink would (--offlink-linker,
# OFFLINK_LINKER, else ld), once; a --linker-path that is another linker
# is used as it is, one that does not exist is an error; an ld.offlink run
# by an offlink (OFFLINK_LINKER_CHAIN set) runs the real linker with its
# line unchanged, device code or not.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang"
LD_OFFLINK=$OFL_BUILD/bin/ld.offlink
CLW=$OFL_COMPAT/clang-linker-wrapper
# host linkers that log what they were given and link nothing
for n in fake other; do
	printf '#!/bin/sh\necho "%s $*" >>%s/ran\n' $n "$SCRATCH" >$n
	chmod +x $n
done
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c -x c - -o dev.o <<'EOF2' || fail "compile"
int main(void) { int x = 0;
#pragma omp target map(tofrom: x)
  x = 1;
  return !x; }
EOF2
H=--host-triple=x86_64-pc-linux-gnu
export OFFLINK_DEVICE_LAUNCHER=$SCRATCH/launch OFFLINK_CACHE=0
printf '#!/bin/sh\necho "$*" >>%s/device-links\nexec "$@"\n' "$SCRATCH" >launch
chmod +x launch

# ran WHO: the one host link that ran was WHO's; none of ld.offlink's options
ran() {
	[ "$(wc -l <ran)" -eq 1 ] || { cat ran; fail "$2: not one host link"; }
	grep -q "^$1 " ran || { cat ran; fail "$2: the host linker is not $1"; }
	! grep -q -- "--offlink-linker\|--explain" ran || { cat ran; fail "$2: ld.offlink's options reached the host linker"; }
	rm -f ran
}

"$CLW" $H --linker-path="$LD_OFFLINK" dev.o -o p --offlink-linker="$PWD/fake" || fail "--offlink-linker"
ran fake "-Wl,--offlink-linker"
[ "$(wc -l <device-links)" -eq 1 ] || fail "the personality did not link the device code once"
OFFLINK_LINKER=$PWD/fake "$CLW" $H --linker-path="$LD_OFFLINK" dev.o -o p --explain=explain ||
	fail "OFFLINK_LINKER"
ran fake OFFLINK_LINKER
grep -q "^host link: \"$PWD/fake\"" explain || { cat explain; fail "--explain from the link flags"; }
# the driver's own choice of a real linker stands
OFFLINK_LINKER=$PWD/fake "$CLW" $H --linker-path="$PWD/other" dev.o -o p || fail "--linker-path=other"
ran other "--linker-path=other"
expect_fail "$CLW" $H --linker-path="$PWD/missing" dev.o -o p
expect_err_line "error: the host linker '$PWD/missing' does not exist\$"

# an ld.offlink run by an offlink: the line as it is, no device link
rm -f device-links
OFFLINK_LINKER_CHAIN=/elsewhere/bin/offlink OFFLINK_LINKER=$PWD/fake "$LD_OFFLINK" dev.o -o p ||
	fail "chained ld.offlink"
[ "$(cat ran)" = "fake dev.o -o p" ] || { cat ran; fail "chained ld.offlink changed the line"; }
[ ! -e device-links ] || fail "chained ld.offlink linked device code"
echo ok
