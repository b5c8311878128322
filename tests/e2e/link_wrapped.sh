#!/usr/bin/env bash
# An object made by `offlink wrap` registers device code linked before the
# link: offlink's wrapper objects say so in their .comment ("offlink
# <version>"), so ld.offlink and the plugin leave the device code as it is
# (nothing linked again) and add the OpenMP runtime, as for any OpenMP
# link, without a word.  Before, they took the object for LLVM's wrapper
# ("the link line has offload flags": it had none) and left out
# -lomptarget, so the link failed.  clang 22, OpenMP for the x86_64 host
# device, installed prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.bfd
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
SRC=$OFL_SRC/docs/examples/src
T=x86_64-pc-linux-gnu
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c "$SRC/main.c" "$SRC/kern.c" || fail "compile"
echo "vec_add: sum 1498500 on the device" >expected
# the device image, linked by offlink, wrapped by offlink wrap
"$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags) main.o kern.o -L$RT -o ref || fail "ref: link"
mkdir x && (cd x && "$P/bin/offlink" inspect --extract-all=img ../ref >/dev/null) || fail "inspect"
"$P/bin/offlink" wrap --for=main.o,kern.o --pack --image=file="$(ls x/img/*)",triple=$T -o wrap.o ||
	fail "offlink wrap"

# wlink NAME ARGS...: main.o, kern.o and wrap.o with -fopenmp only; no
# message, no device link, the program runs on the device
wlink() {
	local name=$1
	shift
	rm -f device-links
	plink "$LLVM22/clang" -fopenmp main.o kern.o wrap.o -L$RT "$@" -o $name >$name.out 2>$name.err ||
		{ cat $name.out $name.err; fail "$name: link"; }
	[ ! -s $name.err ] && [ ! -s $name.out ] || { cat $name.out $name.err; fail "$name: said something"; }
	[ ! -e device-links ] || fail "$name: the device code was linked again"
	LD_LIBRARY_PATH=$RT ./$name >$name.run || fail "$name: exited with $?"
	diff -u expected $name.run || fail "$name: wrong output"
}
wlink ld.offlink $("$P/bin/offlink" --ldflags)
wlink plugin -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
readelf -p .comment wrap.o | grep -q "offlink $("$P/bin/offlink" --version | sed -n 's/^offlink //p')" ||
	fail "wrap.o has no offlink .comment"
echo "offlink wrap's objects: the runtime added, nothing linked again, nothing said"
