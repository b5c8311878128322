#!/usr/bin/env bash
# Linker scripts among the inputs: device code the host link reaches
# through a script (a library that is "GROUP ( libk.a )", a script given as
# a file with "INPUT(kern.o)", a script naming another with -l, AS_NEEDED)
# is linked and registered, through ld.offlink and the plugin, and the
# programs run on the device; a text file that is no script is the host
# linker's to report.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ar
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
RT=/usr/lib/llvm-22/lib
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT OFFLINK_CACHE=0
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$SRC/main.c" "$SRC/kern.c" ||
	fail "compile"
ar rcs libk.a kern.o
printf 'GROUP ( libk.a )\n' >libkk.so
printf '/* a script given as a file */\nINPUT(kern.o)\n' >kscript
printf 'INPUT ( -lkk AS_NEEDED ( libm.so.6 ) )\n' >libouter.so

# olink NAME ARGS...: main.o and ARGS through ld.offlink (or the plugin:
# ARGS say), run; the kernel's device code taken from where the script says
olink() {
	local name=$1
	shift
	plink "$LLVM22/clang" -fopenmp main.o "$@" -L$RT -o $name || fail "$name: link"
	./$name >$name.out || fail "$name: the program failed (device code left out?)"
	diff -u "$SRC/expected.txt" $name.out || fail "$name: output"
}
LD=(-fuse-ld=offlink -B"$OFL_BUILD/bin")
olink group "${LD[@]}" -L. -lkk -Wl,--explain=group.explain
grep -q "libk.a(kern.o): device code taken" group.explain || { cat group.explain; fail "group: kern.o not taken"; }
olink input "${LD[@]}" kscript
olink nested "${LD[@]}" -L. -louter
olink plugin -fuse-ld=bfd -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" -L. -lkk

# EXTERN in a script pulls a member no object calls: its device code too
cat >ext.c <<'C'
int ext_fn(int x)
{
	int r = 0;
#pragma omp target map(from : r)
	r = x + 1;
	return r;
}
C
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c ext.c || fail "compile ext.c"
ar rcs libext.a ext.o
printf 'EXTERN(ext_fn)\n' >extern.ld
olink extern "${LD[@]}" kern.o extern.ld -L. -lext -Wl,--explain=extern.explain
grep -q "libext.a(ext.o): device code taken" extern.explain || { cat extern.explain; fail "extern: ext.o not taken"; }
nm extern | grep -q " T ext_fn" || fail "extern: the host link did not pull ext_fn"

# text that is no script: ld's error, not offlink's
printf 'hello ( world\n' >notascript
expect_fail "$LLVM22/clang" -fopenmp "${LD[@]}" main.o kern.o notascript -L$RT -o bad
grep -q "notascript" "$SCRATCH/err" && ! grep -q "^ld.offlink: error" "$SCRATCH/err" ||
	{ cat "$SCRATCH/err"; fail "not a script: not the host linker's error"; }
echo "linker scripts: device code reached through them is linked"
