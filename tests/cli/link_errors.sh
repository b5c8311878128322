#!/usr/bin/env bash
# ld.offlink when things go wrong: a missing device toolchain, an image for a
# target no linker exists for, a library nobody can find, a host linker
# that would be ld.offlink itself, a truncated shared object, and SIGTERM in the middle of a device
# link.  Every failure is a clear message, a non-zero exit, no output file
# and no temporaries left.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld
BIN=$(dirname "$OFFLINK")
T=x86_64-pc-linux-gnu
RT=/usr/lib/llvm-22/lib
export PATH=$BIN:$PATH
mkdir tmp
export TMPDIR=$PWD/tmp

"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -fPIC -c "$OFL_SRC/tests/e2e/wrap_openmp_src/kern.c" \
	-o kern.o || fail "compile"
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -fPIC -c "$OFL_SRC/tests/e2e/wrap_openmp_src/main.c" \
	-o main.o || fail "compile"
# ld.offlink the way clang's driver calls a linker, shortened
olink() {
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink main.o kern.o -L$RT "$@"
}
no_temps() {
	[ -z "$(ls tmp)" ] || { ls -R tmp; fail "temporaries left: $1"; }
}

# the device compiler named does not exist
expect_fail olink -o out1 -Wl,--device-compiler=/nonexistent/clang
grep -q "ld.offlink: error: .*'/nonexistent/clang'" err || { cat err; fail "missing compiler"; }
[ ! -e out1 ] || fail "output written without device code"
no_temps "missing compiler"

# an image for a target no device linker exists for (raw OffloadBinary input)
printf 'x' >img.bin
"$OFFLINK" package -o weird.obin --image=file=img.bin,triple=wasm99-unknown-none,arch=x,kind=openmp ||
	fail "package"
expect_fail ld.offlink -o out2 weird.obin
grep -q "no device linker for target 'wasm99-unknown-none'" err || { cat err; fail "unknown target"; }
no_temps "unknown target"

# a library nobody can find: the host linker's error and exit status
expect_fail olink -o out3 -lnosuchlibrary_ofl
grep -q "cannot find -lnosuchlibrary_ofl" err || { cat err; fail "missing library"; }
! grep -q "ld.offlink: error" err || { cat err; fail "ld.offlink failed early on a library"; }
no_temps "missing library"

# a shared object that is not one: an error naming it, before any device link
head -c 56 /usr/lib/x86_64-linux-gnu/libc.so.6 >libbad.so
expect_fail olink -o out6 ./libbad.so
grep -q "^ld.offlink: error: ./libbad.so: .* at offset 0" err || { cat err; fail "bad shared object"; }
[ ! -e out6 ] || fail "output written with a bad shared object"
no_temps "bad shared object"

# an `ld` on PATH that is ld.offlink itself is skipped
mkdir fake
ln -s "$OFFLINK" fake/ld
PATH=$PWD/fake:$PATH olink -o out4 || fail "ld link in PATH"
[ -x out4 ] || fail "no output"
no_temps "a successful link"
expect_fail ld.offlink --offlink-linker="$BIN/ld.offlink" -o out5 main.o
grep -q "is ld.offlink itself" err || { cat err; fail "recursion not refused"; }

# SIGTERM while a device link runs: ld.offlink dies, its temporaries go
cat >slow.sh <<SH
#!/bin/sh
touch "$PWD/slow.started"
exec sleep 30
SH
chmod +x slow.sh
ld.offlink -o out6 main.o kern.o --device-compiler="$PWD/slow.sh" -L$RT -lomp &
pid=$!
for _ in $(seq 100); do [ -e slow.started ] && break; sleep 0.1; done
[ -e slow.started ] || fail "the device link never started"
kill -TERM $pid
wait $pid && fail "ld.offlink survived SIGTERM"
pkill -f "sleep 30" || true
no_temps "SIGTERM"
[ ! -e out6 ] || fail "output written after SIGTERM"
echo "ld.offlink failures: all clear"
