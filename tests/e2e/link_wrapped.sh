#!/usr/bin/env bash
# An object made by `offlink wrap` registers device code linked before the
# link: offlink's wrapper objects say so in their .comment ("offlink
# <version>"), so ld.offlink and the plugin leave the device code as it is
# (nothing linked again) and add the OpenMP runtime, as for any OpenMP
# link, without a word.  Before, they took the object for LLVM's wrapper
# ("the link line has offload flags": it had none) and left out
# -lomptarget, so the link failed.  The same for a wrapper of a raw image
# (no --pack), through gcc too, with no -L of the runtime's folder: before,
# its runtime was not added (undefined __tgt_register_lib) while --explain
# said it was.  Its registration covers the program's whole entry table,
# so device code it does not register (k1.o) can be neither left out
# (before: silently, the program stopped in k1's region) nor registered a
# second time: every route stops with one line naming k1.o.  clang 22,
# OpenMP for the x86_64 host device, installed prefix.
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

# a raw image's wrapper, the runtime's folder not given: offlink adds both
"$P/bin/offlink" wrap --for=main.o,kern.o "$(ls x/img/*)" -o rawwrap.o || fail "offlink wrap (raw)"
# rlink NAME DRIVER ARGS...: main.o, kern.o and rawwrap.o; the program runs
rlink() {
	local name=$1 rc=0
	shift
	plink "$@" main.o kern.o rawwrap.o -o $name 2>$name.err ||
		{ cat $name.err; failed_case $name "link"; return; }
	LD_LIBRARY_PATH=$RT ./$name >$name.run 2>&1 || rc=$?
	[ $rc = 0 ] || { cat $name.run; failed_case $name "exited with $rc"; return; }
	diff -u expected $name.run || failed_case $name "wrong output"
}
rlink raw-ld.offlink "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags)
rlink raw-plugin "$LLVM22/clang" -fopenmp -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
rlink raw-gcc gcc $("$P/bin/offlink" --ldflags --cc=gcc)

# k1.o's device code, not in the image wrap1.o registers (main.o's and
# kern.o's)
printf '#include <omp.h>\nint k1(int x)\n{\n\tint r = 0;\n#pragma omp target map(from : r)\n\tr = x + omp_is_initial_device();\n\treturn r;\n}\n' >k1.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c k1.c || fail "compile k1.c"
"$P/bin/offlink" wrap --for=kern.o --pack --image=file="$(ls x/img/*)",triple=$T -o wrap1.o ||
	fail "offlink wrap --for=kern.o"
# klink NAME DRIVER ARGS...: main.o kern.o k1.o wrap1.o fails, naming k1.o
klink() {
	local name=$1
	shift
	if plink "$@" main.o kern.o k1.o wrap1.o -o $name >$name.out 2>$name.err; then
		failed_case $name "linked, leaving k1.o's device code out"
	elif ! grep -q "k1\.o: .*not registered by wrap1\.o" $name.err; then
		cat $name.err
		failed_case $name "the error does not name k1.o"
	fi
}
klink k1-ld.offlink "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags)
klink k1-personality "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$P/libexec/offlink/compat" -L$RT
klink k1-plugin "$LLVM22/clang" -fopenmp -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
klink k1-gcc gcc $("$P/bin/offlink" --ldflags --cc=gcc)
readelf -p .comment wrap.o | grep -q "offlink $("$P/bin/offlink" --version | sed -n 's/^offlink //p')" ||
	failed_case comment "wrap.o has no offlink .comment"
check_all "offlink wrap's objects"
echo "offlink wrap's objects: the runtime added, nothing linked again, nothing said; other device code an error"
