#!/usr/bin/env bash
# Archive members pulled by --defsym and --wrap, as GNU ld, gold and lld
# pull them: --defsym=myk2=k2 references k2; with --wrap=foo a reference to
# foo is one to __wrap_foo (whose member calls k3 in another member), and
# __real_foo one to foo.  Each member has a kernel; the program runs all
# three on the device through ld.offlink (bfd, gold and lld as its host
# linker), the clang-linker-wrapper personality, the plugin and gcc.
# Before, the replay of the host link read neither option: k2's and k3's
# device code was left out ("the host link does not use it") and the
# program stopped at their kernels (every route but the plugin, which also
# hears what the linker loaded).  clang 22, installed prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" gcc ar ld.bfd ld.gold
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
export LD_LIBRARY_PATH=$RT
T=x86_64-pc-linux-gnu

# kernel NAME SCALE: NAME(x) runs x * SCALE on the device (+1000 on the host)
kernel() {
	printf '#include <omp.h>\nint %s(int x)\n{\n\tint r = 0;\n#pragma omp target map(from : r)\n\tr = x * %s + (omp_is_initial_device() ? 1000 : 0);\n\treturn r;\n}\n' \
		"$1" "$2" >"$1.c"
}
kernel k2 10
kernel k3 100
kernel foo 1
printf 'int k3(int);\nint __real_foo(int);\nint __wrap_foo(int x) { return k3(x) + __real_foo(x); }\n' >wrap.c
printf '#include <stdio.h>\nint myk2(int);\nint foo(int);\nint main(void)\n{\n\tprintf("k2 %%d foo %%d\\n", myk2(2), foo(3));\n\treturn 0;\n}\n' >main.c
for f in main k2 k3 foo wrap; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c $f.c || fail "compile $f"
done
ar rcs libk.a k2.o wrap.o k3.o foo.o
echo "k2 20 foo 303" >expected
SYMS=(-Wl,--defsym=myk2=k2 -Wl,--wrap=foo)

# dlink NAME DRIVER ARGS...: main.o with libk.a through DRIVER; one device
# link, and the program runs every kernel on the device
dlink() {
	local name=$1 rc=0
	shift
	rm -f device-links
	plink "$@" main.o -L. "${SYMS[@]}" -lk -L$RT -o $name 2>$name.err ||
		{ cat $name.err; failed_case $name "link"; return; }
	[ "$(wc -l <device-links)" = 1 ] || failed_case $name "not one device link by offlink"
	./$name >$name.out 2>$name.run || rc=$?
	[ $rc = 0 ] || { cat $name.run; failed_case $name "exited with $rc"; return; }
	diff -u expected $name.out || failed_case $name "wrong output"
}
dlink ld.offlink "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags)
PATH=$PATH:/usr/lib/llvm-22/bin dlink ld.offlink-lld "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags) \
	-Wl,--offlink-linker=lld
dlink ld.offlink-gold "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags) -Wl,--offlink-linker=gold
dlink personality "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$P/libexec/offlink/compat"
dlink plugin "$LLVM22/clang" -fopenmp -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
dlink gcc gcc $("$P/bin/offlink" --ldflags --cc=gcc) -lomp
check_all "members pulled by --defsym or --wrap"
echo "members pulled by --defsym and --wrap: their device code linked on every route"
