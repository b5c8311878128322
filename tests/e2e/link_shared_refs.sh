#!/usr/bin/env bash
# A shared object's undefined symbol pulls the archive member that defines
# it, in GNU ld, gold and lld alike: libuse.so calls ext_fn, whose only
# definition (an OpenMP target region) is libk.a's member.  Its device code
# is linked and registered through every front end (ld.offlink, offlink's
# clang-linker-wrapper, the plugin in ld.bfd and gold), and the program runs
# on the device (before, the personality's program crashed without the
# image and ld.offlink's host link missed -lomptarget).  clang 22, installed
# prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" cc ar ld.bfd ld.gold
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
cat >ext.c <<'C'
#include <omp.h>
int ext_fn(int x)
{
	int r = 0, dev = 0;
#pragma omp target map(from : r, dev)
	{
		r = x + 1;
		dev = !omp_is_initial_device();
	}
	return dev ? r : -1;
}
C
printf 'int ext_fn(int x);\nint use(int x) { return ext_fn(x); }\n' >use.c
printf '#include <stdio.h>\nint use(int x);\nint main(void) { printf("%%d\\n", use(41)); return 0; }\n' >main.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fPIC -c ext.c || fail "compile ext.c"
ar rcs libk.a ext.o
cc -shared -fPIC use.c -o libuse.so || fail "libuse.so"
"$LLVM22/clang" -c main.c || fail "compile main.c"
echo 42 >expected

# olink NAME ARGS...: main.o against libuse.so and libk.a; the program runs
olink() {
	local name=$1
	shift
	rm -f device-links
	plink "$LLVM22/clang" -fopenmp main.o -L. -luse -lk -L$RT "$@" -o $name 2>$name.err ||
		{ cat $name.err; fail "$name: link"; }
	LD_LIBRARY_PATH=.:$RT ./$name >$name.out 2>$name.run || { cat $name.run; fail "$name: exited with $?"; }
	diff -u expected $name.out || fail "$name: the kernel did not run on the device"
	[ "$(wc -l <device-links)" -eq 1 ] || fail "$name: not one device link"
}
olink ld.offlink -B"$P/bin" -fuse-ld=offlink -Wl,--explain=ld.explain
grep -q "libk.a(ext.o): device code taken: the host link pulls it for 'ext_fn'" ld.explain ||
	{ cat ld.explain; fail "ld.offlink: the member's device code was not taken for libuse.so's ext_fn"; }
olink personality -fopenmp-targets=x86_64-pc-linux-gnu $("$P/bin/offlink" --ldflags)
for ld in bfd gold; do
	olink plugin_$ld -fuse-ld=$ld -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
done
echo "a shared object's reference pulls the member's device code, through every front end"
