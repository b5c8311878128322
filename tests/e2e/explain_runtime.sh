#!/usr/bin/env bash
# --explain and LLVM 19's OpenMP device runtime, an archive with a member
# per GPU architecture: the members a link does not need are summed up in
# one line, not listed one by one; the member it takes is named.  A dry
# run (no CUDA tool runs).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang"
need_libomp19
"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -nogpulib -isystem "$RTLIB/clang/19/include" \
	-c "$OFL_SRC/docs/examples/src/kern.c" -o kern.o || fail "compile"
"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -nogpulib -isystem "$RTLIB/clang/19/include" \
	-c "$OFL_SRC/docs/examples/src/main.c" -o main.o || fail "compile"
"$LLVM19/clang" -fopenmp main.o kern.o -B"$OFL_BUILD/bin" -fuse-ld=offlink -L"$RTLIB" -o prog \
	-Wl,--dry-run,--explain=explain 2>err || { cat err; fail "link"; }
grep 'devicertl' explain | grep 'left out' >left || { cat explain; fail "nothing of the runtime left out"; }
[ "$(wc -l <left)" -eq 1 ] || { cat left; fail "the runtime's members left out are not one line"; }
grep -Eq "libomptarget\.devicertl\.a: device code of ([2-9]|[1-9][0-9]+) member\(s\) left out: no device link needs it\$" left ||
	{ cat left; fail "the summary line"; }
grep -q 'libomptarget.devicertl.a(devicertl-nvptx-sm_90.o): device code taken' explain ||
	{ cat explain; fail "the sm_90 member is not named as taken"; }
echo ok
