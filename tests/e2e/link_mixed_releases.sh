#!/usr/bin/env bash
# Objects made by LLVM 19 and 22 need different registrations and cannot be
# linked into one program: ld.offlink and the plugin both say so before any
# device link runs, naming one object of each release, and write nothing.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM19/clang" gcc
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
RT19=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
mkdir tmp
export TMPDIR=$PWD/tmp
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c "$SRC/main.c" -o main22.o || fail "compile main"
"$LLVM19/clang" -fopenmp -fopenmp-targets=$T -isystem "${RT19%/lib}/lib/clang/19/include" \
	-c "$SRC/kern.c" -o kern19.o || fail "compile kern"
# a launcher that records every device link started
printf '#!/bin/sh\necho "$@" >>%s/started\nexec "$@"\n' "$PWD" >launch
chmod +x launch
msg='objects made by different LLVM releases need different registrations: kern19.o \(LLVM 19\) and main22.o \(LLVM 20-22\)'

expect_fail "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main22.o kern19.o \
	-L/usr/lib/llvm-22/lib -Wl,--device-launcher="$PWD/launch" -o prog
grep -Eq "^ld.offlink: error: $msg" err || { cat err; fail "ld.offlink's message"; }
expect_fail gcc main22.o kern19.o -L/usr/lib/llvm-22/lib -lomp -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
	-Wl,-plugin-opt,device-launcher="$PWD/launch" -o progp
grep -Eq "offlink: $msg" err || { cat err; fail "the plugin's message"; }
[ ! -e started ] || { cat started; fail "a device link ran before the error"; }
[ ! -e prog ] && [ ! -e progp ] || fail "an output was written"
[ -z "$(ls tmp)" ] || fail "temporaries left"
echo "mixed releases: one clear error before any device link"
