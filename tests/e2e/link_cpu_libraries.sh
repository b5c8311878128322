#!/usr/bin/env bash
# A CPU device link takes the host link's libraries as clang-linker-wrapper
# does: the host line replayed in order, archives and shared objects given
# by path, -l, -L, -rpath and the --whole-archive switches.  Device code
# calls helper(), which only a plain host archive defines, given by path,
# alone or under --whole-archive: LLVM 22's link runs, and so do those of
# ld.offlink, the plugin and the personality (before, offlink left archives
# given by path out and the device link failed: undefined symbol helper).
# An archive with device code under --whole-archive goes in as a plain
# archive: its device code is linked as such, and LLVM 22's copy of its
# host objects defines every declare-target symbol twice (its link fails).
source "$OFL_SRC/tests/lib.sh"
need cc ar ld.bfd "$LLVM22/clang"
T=x86_64-pc-linux-gnu
RT=$(dirname "$(readlink -f "$LLVM22/clang")")/../lib
SRC=$OFL_SRC/tests/e2e/link_src
OMP=$OFL_SRC/tests/e2e/wrap_openmp_src
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
export OMP_TARGET_OFFLOAD=MANDATORY
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c "$SRC/devmain.c" -o main.o || fail "compile devmain"
cc -fPIC -c "$SRC/hosthelper.c" -o help.o && ar rcs libhelp.a help.o || fail "libhelp.a"

# prog NAME EXPECTED CMD...: CMD links NAME, which runs and prints EXPECTED
prog() {
	local name=$1 want=$2
	shift 2
	"$@" -L"$RT" -o $name 2>$name.err || { cat $name.err; failed_case $name "link"; return; }
	[ "$(LD_LIBRARY_PATH=$RT ./$name)" = "$want" ] || failed_case $name "did not print '$want'"
}
WANT="helper: -20, on device: 1"
for how in plain whole; do
	A=(libhelp.a)
	[ $how = whole ] && A=(-Wl,--whole-archive libhelp.a -Wl,--no-whole-archive)
	prog llvm-$how "$WANT" "$LLVM22/clang" -fopenmp -fopenmp-targets=$T main.o "${A[@]}"
	prog ld-$how "$WANT" "$LLVM22/clang" -fopenmp -B"$OFL_BUILD/bin" -fuse-ld=offlink main.o "${A[@]}"
	prog plugin-$how "$WANT" plink "$LLVM22/clang" -fopenmp -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" \
		main.o "${A[@]}"
	prog personality-$how "$WANT" "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" \
		main.o "${A[@]}"
done

# an archive of device code under --whole-archive
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c "$OMP/$f.c" -o k$f.o || fail "compile $f"
done
ar rcs libk.a kkern.o
WANT=$(cat "$OMP/expected.txt")
A=(kmain.o -Wl,--whole-archive libk.a -Wl,--no-whole-archive)
prog ld-fat "$WANT" "$LLVM22/clang" -fopenmp -B"$OFL_BUILD/bin" -fuse-ld=offlink "${A[@]}"
prog personality-fat "$WANT" "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" "${A[@]}"
check_all "CPU device links without the host's libraries"
echo "CPU device links take the host link's libraries as LLVM's"
