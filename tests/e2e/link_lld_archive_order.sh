#!/usr/bin/env bash
# lld searches every archive for a symbol still undefined, wherever the
# archive stands on the line (GNU ld and gold only those after the
# reference): with -lk before main.o, lld pulls libk.a(kern.o), whose
# kernel the program runs.  Its device code is linked through ld.offlink,
# the clang-linker-wrapper personality and gcc with lld as the host linker.
# Before, the replay of the host link kept GNU ld's order: kern.o's device
# code was left out and the program stopped at its kernel, where LLVM 22's
# own link runs.  clang 22, installed prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" gcc ar
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
export LD_LIBRARY_PATH=$RT PATH=$PATH:/usr/lib/llvm-22/bin # lld for -fuse-ld=lld
T=x86_64-pc-linux-gnu
printf '#include <omp.h>\nint kern(int x)\n{\n\tint r = 0;\n#pragma omp target map(from : r)\n\tr = x * 10 + (omp_is_initial_device() ? 1000 : 0);\n\treturn r;\n}\n' >kern.c
printf '#include <omp.h>\n#include <stdio.h>\nint kern(int);\nint main(void)\n{\n\tint r = 0;\n#pragma omp target map(from : r)\n\tr = omp_is_initial_device();\n\tprintf("host %%d kern %%d\\n", r, kern(2));\n\treturn 0;\n}\n' >main.c
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c $f.c || fail "compile $f"
done
ar rcs libk.a kern.o
echo "host 0 kern 20" >expected

# olink NAME DRIVER ARGS...: -lk before main.o, lld; the program runs
olink() {
	local name=$1 rc=0
	shift
	"$@" -L. -Wl,-lk main.o -L$RT -o $name 2>$name.err || { cat $name.err; failed_case $name "link"; return; }
	./$name >$name.out 2>$name.run || rc=$?
	[ $rc = 0 ] || { cat $name.run; failed_case $name "exited with $rc"; return; }
	diff -u expected $name.out || failed_case $name "wrong output"
}
olink llvm "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -fuse-ld=lld
olink ld.offlink "$LLVM22/clang" -fopenmp $("$P/bin/offlink" --ldflags) -Wl,--offlink-linker=lld
olink personality "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -fuse-ld=lld -B"$P/libexec/offlink/compat"
# gcc's -fuse-ld=lld names the host linker (the tests' OFFLINK_LINKER would win)
olink gcc env -u OFFLINK_LINKER gcc -B"$P/libexec/offlink/gcc/" -fuse-ld=lld -lomp
check_all "an archive before its reference, lld"
echo "lld's archive members, wherever they stand: their device code linked"
