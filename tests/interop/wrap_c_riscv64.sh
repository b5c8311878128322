#!/usr/bin/env bash
# A host offlink has no direct object writer for (riscv64): the wrapper goes
# through C (--host-cc), is cross-linked with gcc-riscv64-linux-gnu and runs
# under qemu-riscv64 with the stub runtime.  Its log must equal the x86_64
# log of the same sources with our directly written object, for OpenMP and
# HIP tables in both entry layouts.
source "$OFL_SRC/tests/lib.sh"
need riscv64-linux-gnu-gcc qemu-riscv64 cc

SRC=$OFL_SRC/tests/interop/wrap_stub_src
R=riscv64-linux-gnu
X=x86_64-pc-linux-gnu
SYSROOT=${OFL_RISCV64_SYSROOT:-/usr/riscv64-linux-gnu}
randbytes 5 4000 >img.bin
riscv64-linux-gnu-gcc -O1 -fPIC -fasynchronous-unwind-tables -c "$SRC/stub.c" -o stub.rv.o || fail "cross-compile stub"
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.x86.o || fail "compile stub"

expect_fail "$OFFLINK" wrap --host-triple=$R -o x.o img.bin
expect_err_line 'give --host-cc'

for v in 22 19; do
	es=56 abi=llvm20 def=
	[ $v = 19 ] && es=32 abi=llvm19 def=-DV19
	riscv64-linux-gnu-gcc -fPIC $def -c "$SRC/texsurf.c" -o ts.rv.o || fail "texsurf riscv64"
	cc -fPIC $def -c "$SRC/texsurf.c" -o ts.x86.o || fail "texsurf x86_64"
	for kind in hip openmp; do
		n=$kind$v
		"$OFFLINK" wrap --host-triple=$R --host-cc=riscv64-linux-gnu-gcc --kind=$kind \
			--abi=$abi -o $n.rv.w.o img.bin || fail "$n: wrap for riscv64"
		readelf -h $n.rv.w.o | grep -q RISC-V || fail "$n: not a RISC-V object"
		"$OFFLINK" wrap --host-triple=$X --kind=$kind --abi=$abi -o $n.x86.w.o img.bin ||
			fail "$n: wrap for x86_64"
		riscv64-linux-gnu-gcc -rdynamic stub.rv.o ts.rv.o $n.rv.w.o -o $n.rv.exe -ldl ||
			fail "$n: link riscv64"
		cc -rdynamic stub.x86.o ts.x86.o $n.x86.w.o -o $n.x86.exe -ldl || fail "$n: link x86_64"
		STUB_ENTRY=$es qemu-riscv64 -L "$SYSROOT" ./$n.rv.exe >$n.rv.log || fail "$n: run riscv64"
		STUB_ENTRY=$es ./$n.x86.exe >$n.x86.log || fail "$n: run x86_64"
		diff -u $n.x86.log $n.rv.log || fail "$n: riscv64 and x86_64 logs differ"
		grep -Eq 'entries: [1-9]|RegisterSurface' $n.rv.log || fail "$n: nothing registered"
	done
done
