#!/bin/bash
# offlink inspect --format=llvm-objdump prints what llvm-objdump --offloading
# 19 and 22 print: clang -fopenmp objects, an ld -r merge of 20 of them, raw
# packager output (HIP kinds differ between 19 and 22), objects without
# offloading, archives (a nested one is an error after the members before
# it; a thin one is read beside it), and the errors for bad input (the
# program name aside).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/llvm-objdump" "$LLVM22/llvm-objdump" "$LLVM19/clang" "$LLVM22/clang" \
	"$LLVM22/llvm-offload-binary" ld ar python3

cat >omp.c <<'C'
int FN(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
for i in $(seq 1 20); do
	v=$((i % 2 ? 19 : 22))
	"$(eval echo \$LLVM$v)/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -DFN=f$i \
		-c omp.c -o "omp$i.o"
done
ld -r omp*.o -o merged20.o
echo 'int x;' >plain.c
"$LLVM22/clang" -c plain.c -o plain.o
randbytes 1 21 >a.o
"$LLVM22/llvm-offload-binary" -o raw.bin --image=file=a.o,triple=t,arch=gfx90a,kind=hip \
	--image=file=a.o,triple=u,kind=sycl --image=file=a.o,kind=cuda,triple=v,arch=sm_90
printf 'not an object' >junk
python3 - <<'PY'
import struct
raw = open("raw.bin", "rb").read()
n = struct.unpack_from("<Q", raw, 8)[0]
open("trunc.bin", "wb").write(raw[:n - 8])
open("trailing.bin", "wb").write(raw + b"\0" * 8)
open("short.bin", "wb").write(raw[:40])
PY

ar rc lib.a omp1.o omp2.o
ar rc nested.a omp3.o lib.a omp4.o
ar rcT thin.a omp5.o plain.o

checked=0
for v in 19 22; do
	for f in omp1.o omp2.o merged20.o plain.o lib.a nested.a thin.a raw.bin junk trunc.bin \
		trailing.bin short.bin; do
		"$(eval echo \$LLVM$v)/llvm-objdump" --offloading "$f" >l.out 2>l.err && rl=0 || rl=$?
		"$OFFLINK" inspect --format=llvm-objdump --llvm-version=$v "$f" >o.out 2>o.err &&
			ro=0 || ro=$?
		[ "$rl" = "$ro" ] || fail "$f ($v): exit $ro, llvm-objdump $rl"
		same l.out o.out
		sed -i 's/^[^ ]*: error: /error: /' l.err o.err
		same l.err o.err
		checked=$((checked + 1))
	done
done
[ "$(grep -c 'OFFLOADING IMAGE' <("$OFFLINK" inspect --format=llvm-objdump merged20.o))" = 20 ] ||
	fail "the merge must hold 20 images"
echo "$checked outputs identical to llvm-objdump --offloading"
