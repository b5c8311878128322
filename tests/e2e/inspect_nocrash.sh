#!/bin/bash
# offlink inspect never crashes: it runs (tree, JSON and objdump views) over
# every seed of the fuzz corpora, objects clang builds here, and a sample of
# the system's shared libraries; each run must end with status 0 or 1.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang"

printf 'int g(int n) { int s = 0;\n#pragma omp target map(tofrom: s)\ns = n;\nreturn s; }\n' >o.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c o.c -o omp.o
"$LLVM22/clang" -c o.c -o plain.o
"$LLVM22/clang" -c -emit-llvm o.c -o o.bc
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c -emit-llvm o.c -o omp.bc \
	2>/dev/null || true
"$LLVM22/clang" --target=x86_64-pc-windows-msvc -c o.c -o coff.obj

files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$OFL_SRC/tests/fuzz/corpus" -type f -print0)
files+=(omp.o plain.o o.bc coff.obj)
[ -e omp.bc ] && files+=(omp.bc)
# A sample of shared libraries, at most 4 MiB each, to stay well inside 20 s.
n=0
for f in /usr/lib/x86_64-linux-gnu/*.so*; do
	[ -f "$f" ] && [ "$(stat -Lc %s "$f")" -lt 4194304 ] || continue
	files+=("$f")
	n=$((n + 1))
	[ $n -lt 300 ] || break
done

# The objdump view runs as LLVM 19's, which writes no files (22's writes the
# entries of bundles beside their object, here into the source tree).
runs=0
for f in "${files[@]}"; do
	for mode in "" --json "--format=llvm-objdump --llvm-version=19"; do
		rc=0
		"$OFFLINK" inspect $mode "$f" >/dev/null 2>err || rc=$?
		[ $rc -le 1 ] || { cat err; fail "inspect $mode '$f' ended with status $rc"; }
		runs=$((runs + 1))
	done
done
echo "$runs runs over ${#files[@]} files"
[ $runs -gt 300 ] || fail "too few files were inspected"
"$OFFLINK" inspect o.bc | grep -q '^o.bc: llvm bitcode, ' || fail "bitcode is recognised"
