# Native commands with several outputs write every output or none (staged,
# renamed together at the end); the personalities keep LLVM 22's behaviour,
# which leaves the outputs written before the error.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" "$LLVM22/llvm-offload-binary" "$LLVM22/llvm-ar"
randbytes 1 300 >h.bin
randbytes 2 500 >d.bin
H=host-x86_64-unknown-linux-gnu
D=openmp-x86_64-unknown-linux-gnu
G=hip-amdgcn-amd-amdhsa--gfx90a
"$LLVM22/clang-offload-bundler" -type=bc -targets=$H,$D -input=h.bin -input=d.bin -output=b.bc
none_left() {
	local f
	for f in "$@"; do [ ! -e "$f" ] || fail "$f left behind"; done
	[ -z "$(ls -A | grep '\.ofl-' || true)" ] || fail "temporary files left behind"
}

# offlink unbundle: one target missing, nothing written
expect_fail "$OFFLINK" unbundle --targets=$H,$G,$D b.bc -o x -o y -o z
none_left x y z
"$OFFLINK" unbundle --targets=$H,$D b.bc -o x -o z
same x h.bin; same z d.bin
rm x z
# LLVM 22 keeps what it found before the error; so does the personality
"$LLVM22/clang-offload-bundler" -unbundle -type=bc -targets=$H,$G,$D -input=b.bc -output=lx \
	-output=ly -output=lz 2>/dev/null && fail "LLVM must fail"
expect_fail "$OFL_COMPAT/clang-offload-bundler" -unbundle -type=bc -targets=$H,$G,$D -input=b.bc \
	-output=x -output=y -output=z
for f in x y z; do
	[ -e l$f ] && { same l$f $f || fail "$f differs"; } || [ ! -e $f ] || fail "$f: LLVM wrote none"
done
rm -f x y z lx ly lz

# heterogeneous archives: a target no member has
"$LLVM22/clang-offload-bundler" -type=o -targets=$H,$D -input=h.bin -input=d.bin -output=m.o
"$LLVM22/llvm-ar" rc lib.a m.o
expect_fail "$OFFLINK" unbundle --type=a --targets=$D,$G lib.a -o x.a -o y.a
none_left x.a y.a
"$LLVM22/clang-offload-bundler" -unbundle -type=a -targets=$D,$G -input=lib.a -output=lx.a \
	-output=ly.a 2>/dev/null && fail "LLVM must fail"
expect_fail "$OFL_COMPAT/clang-offload-bundler" -unbundle -type=a -targets=$D,$G -input=lib.a \
	-output=x.a -output=y.a
for f in x.a y.a; do
	[ -e l$f ] && { same l$f $f || fail "$f differs"; } || [ ! -e $f ] || fail "$f: LLVM wrote none"
done

# offlink package extraction: the second image cannot be written
"$LLVM22/llvm-offload-binary" -o p.bin --image=file=h.bin,triple=x86_64-unknown-linux-gnu,kind=openmp \
	--image=file=d.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
expect_fail "$OFFLINK" package p.bin --image=kind=openmp,file=one.o --image=kind=hip,file=no/dir/two.o
none_left one.o
"$OFFLINK" package p.bin --image=kind=openmp,file=one.o --image=kind=hip,file=two.o
same one.o h.bin; same two.o d.bin
rm one.o
# the personality, like LLVM 22, keeps the first
"$LLVM22/llvm-offload-binary" p.bin --image=kind=openmp,file=one.o --image=kind=hip,file=no/dir/two.o \
	2>/dev/null && fail "LLVM must fail"
[ -e one.o ] || fail "LLVM 22 keeps the first output"
rm one.o
expect_fail "$OFL_COMPAT/llvm-offload-binary" p.bin --image=kind=openmp,file=one.o \
	--image=kind=hip,file=no/dir/two.o
[ -e one.o ] || fail "the personality keeps the first output, as LLVM 22 does"

# a termination signal that arrives while outputs are written: none is
# left (here it is pending, and blocked, from the start: exec keeps both)
pending_term() {
	python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
os.kill(os.getpid(), signal.SIGTERM)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}
rm -f one.o two.o
expect_fail pending_term "$OFFLINK" package p.bin --image=kind=openmp,file=one.o --image=kind=hip,file=two.o
expect_err_line "interrupted by a signal"
none_left one.o two.o
mkdir ex
expect_fail pending_term "$OFFLINK" inspect --extract-all ex p.bin
[ -z "$(ls -A ex)" ] || fail "inspect --extract-all left files after a signal"
echo ok
