#!/bin/bash
# offlink inspect never crashes: it runs (tree, JSON and objdump views) over
# every seed of the fuzz corpora, objects clang builds here, and a sample of
# the system's shared libraries; each run must end with status 0 or 1, each
# file inspected in each view.  inspect takes many files and stops at the
# first that does not parse (status 1), so a run takes all the files left
# and the next starts after the one it stopped at: a few runs instead of
# one per file and view (1,540 ASan starts were most of this test's time).
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

# inspect MODE FILE...: one run; its status in rc, its error in err (a crash
# fails the test, naming the file)
inspect() {
	local mode=$1
	shift
	rc=0
	# shellcheck disable=SC2086 # the mode's words
	"$OFFLINK" inspect $mode "$@" >/dev/null 2>err || rc=$?
	runs=$((runs + 1))
	[ $rc -le 1 ] && return
	[ $# = 1 ] || for f in "$@"; do inspect "$mode" "$f"; done
	cat err
	fail "inspect $mode '$1' ended with status $rc"
}

# stopped_at FILE...: the index of the file the error in err names (as
# given, or 'quoted', or with its archive member), or -1
stopped_at() {
	local line i=0 f
	line=$(grep -m1 '^offlink: error: ' err || true)
	for f in "$@"; do
		case $line in
		"offlink: error: $f:"* | "offlink: error: $f("* | "offlink: error: '$f'"* | "offlink: error: '$f("*)
			echo $i
			return
			;;
		esac
		i=$((i + 1))
	done
	echo -1
}

# The objdump view runs as LLVM 19's, which writes no files (22's writes the
# entries of bundles beside their object, here into the source tree).
runs=0 inspected=0
for mode in "" --json "--format=llvm-objdump --llvm-version=19"; do
	rest=("${files[@]}")
	while [ ${#rest[@]} -gt 0 ]; do
		inspect "$mode" "${rest[@]}"
		[ $rc = 1 ] || { inspected=$((inspected + ${#rest[@]})) && break; }
		i=$(stopped_at "${rest[@]}")
		# an error that names no file given: one file at a time to the one
		# that does not parse
		while [ "$i" -lt 0 ]; do
			[ ${#rest[@]} -gt 0 ] || fail "inspect $mode failed over files that each parse alone"
			inspect "$mode" "${rest[0]}"
			if [ $rc = 1 ]; then
				i=0
			else
				rest=("${rest[@]:1}")
				inspected=$((inspected + 1))
			fi
		done
		inspected=$((inspected + i + 1))
		rest=("${rest[@]:i+1}")
	done
done
echo "$inspected inspections of ${#files[@]} files in $runs runs"
[ $inspected = $((3 * ${#files[@]})) ] || fail "$inspected inspections, not 3 of each of ${#files[@]} files"
[ ${#files[@]} -gt 300 ] || fail "too few files were inspected"
"$OFFLINK" inspect o.bc | grep -q '^o.bc: llvm bitcode, ' || fail "bitcode is recognised"
