#!/usr/bin/env bash
# The personalities act as the LLVM release of the clang that runs them.
# clang-19 compiling and linking in one command with offlink's flags runs
# offlink's clang-offload-packager, which must not print LLVM 22's
# deprecation warning (LLVM 19's packager never does).  A clang named
# clang-23 (clang-22's program under that name: Debian 12 has no clang-23)
# gets LLVM 23's version-2 binaries from offlink's llvm-offload-binary, and
# the program links through offlink's clang-linker-wrapper and runs with
# LLVM 22's runtime.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang" "$LLVM22/clang"
need_libomp19
R19=$RTLIB
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
export OMP_TARGET_OFFLOAD=MANDATORY
FLAGS=$("$OFFLINK" --ldflags)

run_check() { # PROG LIBDIR
	LD_LIBRARY_PATH=$2 "./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$SRC/expected.txt" "$1.out" || fail "$1 printed wrong results"
}

# clang-19, one command: compile (the packager) and link (the wrapper)
"$LLVM19/clang" -fopenmp -fopenmp-targets=$T -isystem "${R19%/lib}/lib/clang/19/include" $FLAGS \
	"$SRC/main.c" "$SRC/kern.c" -L"$R19" -o p19 2>p19.log || { cat p19.log; fail "clang-19 build"; }
[ ! -s p19.log ] || { cat p19.log; fail "clang-19's build printed something"; }
run_check p19 "$R19"

# clang-23: the packager writes one version-2 binary per object
mkdir -p fake/bin
cp "$(realpath "$LLVM22/clang")" fake/bin/clang-23
CLANG23=(fake/bin/clang-23 -resource-dir "$("$LLVM22/clang" -print-resource-dir)")
for f in main kern; do
	"${CLANG23[@]}" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" -c "$SRC/$f.c" -o $f.o ||
		fail "clang-23 compile of $f"
	"$OFFLINK" inspect $f.o | grep -q "OffloadBinary v2" ||
		{ "$OFFLINK" inspect $f.o; fail "$f.o holds no version-2 binary"; }
done
"${CLANG23[@]}" -fopenmp -fopenmp-targets=$T $FLAGS main.o kern.o -L/usr/lib/llvm-22/lib -o p23 ||
	fail "clang-23 link"
run_check p23 /usr/lib/llvm-22/lib
# the same compile by clang-22 gets version 1, as LLVM 22 writes
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" -c "$SRC/main.c" -o main22.o
"$OFFLINK" inspect main22.o | grep -q "OffloadBinary v1" || fail "clang-22 got no version 1"
