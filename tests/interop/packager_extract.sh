#!/bin/bash
# What LLVM 19 and 22 pack we extract to the same files with the same names
# (raw streams, clang -fopenmp objects, ld -r merges), with the same warnings;
# bad binaries give LLVM's message in the personality, a one-line error with
# file and offset from offlink package, and no output either way.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-packager" "$LLVM22/llvm-offload-binary" "$LLVM19/clang" \
	"$LLVM22/clang" ld python3

mkdir bin
O19=$PWD/bin/clang-offload-packager-19
ln -s "$OFFLINK" "$O19"
O22=$PWD/bin/llvm-offload-binary
ln -s "$OFFLINK" "$O22"

randbytes 1 100 >a.o
randbytes 2 33 >b.bc
randbytes 3 7 >c.cubin
randbytes 4 0 >d

# Extracts with LLVM's tool ($1) and ours ($2) from input $3 (made absolute)
# with the remaining arguments, in two fresh directories, and compares the
# files written, their names, the exit status and stderr.
compare_extract() {
	local llvm=$1 ours=$2 in=$3
	shift 3
	rm -rf L O
	mkdir L O
	(cd L && "$llvm" "$in" "$@" 2>../l.err) && rl=0 || rl=$?
	(cd O && "$ours" "$in" "$@" 2>../o.err) && ro=0 || ro=$?
	if [ "$rl" -ge 128 ]; then
		# LLVM crashed (it reads string offsets unchecked): we must fail
		# cleanly with one line and write nothing.
		[ "$ro" = 1 ] && [ "$(wc -l <o.err)" = 1 ] && [ -z "$(ls O)" ] ||
			fail "no clean error where LLVM crashes: $in $*"
		crashed=$((crashed + 1))
		return
	fi
	[ "$rl" = "$ro" ] || fail "exit $ro vs LLVM $rl: $in $*"
	sed "s|^$llvm:|TOOL:|" l.err >l.norm
	sed "s|^$ours:|TOOL:|" o.err >o.norm
	same l.norm o.norm
	[ "$(ls L)" = "$(ls O)" ] || fail "files differ: $(ls L) vs $(ls O) for $in $*"
	for f in L/*; do [ -e "$f" ] && same "$f" "O/${f#L/}"; done
	checked=$((checked + 1))
}

checked=0 crashed=0
for v in 19 22; do
	if [ $v = 19 ]; then L=$LLVM19/clang-offload-packager O=$O19; else L=$LLVM22/llvm-offload-binary O=$O22; fi
	"$L" -o "multi$v.bin" \
		--image=file=a.o,triple=t1,arch=x,kind=openmp \
		--image=file=b.bc,triple=t1,arch=y,kind=hip,extra=1 \
		--image=file=c.cubin,file=d,triple=t2,kind=cuda \
		--image=file=a.o,triple=t1,arch=x,kind=sycl 2>/dev/null
	for filters in "--image=triple=t1" "--image=triple=t2" "--image=kind=hip" \
		"--image=kind=cuda --image=triple=t1,arch=x" "--image=file=one.o,triple=t1" \
		"--image=file=sub.bin,arch=" "--image=extra=1" "--image=nomatch=1" "" \
		"--image=kind=openmp,kind=cuda" "--image=arch=x --image=arch=x"; do
		read -ra args <<<"$filters"
		compare_extract "$L" "$O" "$PWD/multi$v.bin" "${args[@]}"
	done
	# Objects from clang, and an ld -r merge of two of them.
	cat >omp.c <<'C'
int f(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
	"$(dirname "$L")/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o "omp$v.o"
	"$(dirname "$L")/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -Df=g -c omp.c -o "omp$v-b.o"
	ld -r "omp$v.o" "omp$v-b.o" -o "merged$v.o"
	for obj in "omp$v.o" "merged$v.o"; do
		compare_extract "$L" "$O" "$PWD/$obj" --image=triple=x86_64-pc-linux-gnu
		compare_extract "$L" "$O" "$PWD/$obj" --image=kind=openmp,file=dev.o
	done
	# An object without offloading sections yields nothing; so does junk.
	echo 'int x;' >plain.c
	"$(dirname "$L")/clang" -c plain.c -o plain.o
	compare_extract "$L" "$O" "$PWD/plain.o" --image=triple=t1
	printf 'not an object at all' >junk
	compare_extract "$L" "$O" "$PWD/junk" --image=triple=t1
done

# Bad binaries.  Each case: a file, the LLVM message class.
python3 - multi22.bin <<'PY'
import struct, sys
good = open(sys.argv[1], "rb").read()
first = good[:struct.unpack_from("<Q", good, 8)[0]]
def put(b, off, v):
    b = bytearray(b); struct.pack_into("<Q", b, off, v); return bytes(b)
open("bad-trunc-header.bin", "wb").write(first[:40])
open("bad-size.bin", "wb").write(first[:len(first) - 8])
open("bad-stroff.bin", "wb").write(put(first, 72, 0x100000))
open("bad-count.bin", "wb").write(put(first, 48, 1 << 60))
open("bad-trailing.bin", "wb").write(first + b"\0" * 8)
open("bad-second.bin", "wb").write(first + first[:60])
PY
for b in bad-trunc-header bad-size bad-stroff bad-count bad-trailing bad-second; do
	for v in 19 22; do
		if [ $v = 19 ]; then L=$LLVM19/clang-offload-packager O=$O19; else L=$LLVM22/llvm-offload-binary O=$O22; fi
		compare_extract "$L" "$O" "$PWD/$b.bin" --image=triple=t1
		[ -z "$(ls O)" ] || fail "$b: output left behind"
	done
	rm -rf N && mkdir N
	(cd N && expect_fail "$OFFLINK" package "../$b.bin" --image=triple=t1)
	expect_err_line "^offlink: error: \.\./$b\.bin: offload binary: .* at offset [0-9]+$"
	[ -z "$(ls N)" ] || fail "$b: offlink package left output"
done
[ "$checked" -ge 40 ] || fail "only $checked comparisons"
echo "$checked extractions identical to LLVM; $crashed cases where LLVM crashed and we did not"
