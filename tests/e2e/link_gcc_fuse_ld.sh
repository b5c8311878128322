#!/usr/bin/env bash
# gcc's own -fuse-ld=bfd|gold|lld|mold with offlink's gcc directory
# (-B<prefix>/libexec/offlink/gcc/, `offlink --ldflags --cc=gcc`): gcc runs
# ld.<X> from there, which is ld.offlink over that host linker, so the
# device code is linked and the program runs on the device (before, gcc
# found only `ld` there and ran the system's ld.<X>: no device image).
# --offlink-linker and OFFLINK_LINKER still win over the name; a linker
# that is not installed (mold here) is a clear error, not a loop.  clang 22
# objects, installed prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" gcc ld.bfd ld.gold "$LLVM22/ld.lld"
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
unset OFFLINK_LINKER
export PATH=$PATH:/usr/lib/llvm-22/bin # an ld.lld on PATH, as gcc's -fuse-ld=lld needs
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$SRC/$f.c" -o $f.o || fail "compile $f"
done
GCCDIR=$P/libexec/offlink/gcc/
for x in bfd gold lld mold; do
	[ -L "$GCCDIR/ld.$x" ] || fail "$GCCDIR/ld.$x not installed"
done

# glink X ARGS...: gcc -fuse-ld=X through offlink's directory; the program
# runs on the device; the host link in X.explain
glink() {
	local x=$1
	shift
	rm -f device-links
	gcc main.o kern.o -B"$GCCDIR" -fuse-ld=$x -L$RT -lomp -Wl,--explain="$PWD/$x.explain" "$@" \
		-o prog_$x 2>$x.err || { cat $x.err; fail "gcc -fuse-ld=$x: link"; }
	LD_LIBRARY_PATH=$RT ./prog_$x >$x.out 2>$x.run || { cat $x.run; fail "gcc -fuse-ld=$x: exited with $?"; }
	diff -u "$SRC/expected.txt" $x.out || fail "gcc -fuse-ld=$x: wrong output"
	[ "$(wc -l <device-links)" -eq 1 ] || fail "gcc -fuse-ld=$x: offlink did not link the device code"
}
for x in bfd gold lld; do
	glink $x
	host=$(sed -n 's/^host link: "\([^"]*\)".*/\1/p' $x.explain)
	[ "$(basename "$host")" = ld.$x ] || { cat $x.explain; fail "gcc -fuse-ld=$x: host linker $host"; }
done
# an explicit choice still wins over the name
rm -f host-links
OFFLINK_LINKER=$SCRATCH/host-ld glink gold
[ -s host-links ] || fail "OFFLINK_LINKER did not win over ld.gold's name"
rm -f host-links
glink gold -Wl,--offlink-linker="$SCRATCH/host-ld"
[ -s host-links ] || fail "--offlink-linker did not win over ld.gold's name"
if command -v mold >/dev/null; then
	glink mold
else
	expect_fail gcc main.o kern.o -B"$GCCDIR" -fuse-ld=mold -L$RT -lomp -o prog_mold
	grep -q "^ld\.offlink: error: cannot find the host linker 'mold' on PATH" "$SCRATCH/err" ||
		{ cat "$SCRATCH/err"; fail "-fuse-ld=mold without mold: not a clear error"; }
fi
echo "gcc -fuse-ld=X through offlink's directory links the device code with host linker X"
