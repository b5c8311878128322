#!/usr/bin/env bash
# Which host linker ld.offlink runs: lld of the LLVM release that made the
# link's bitcode or of the clang that drives the link (Debian's PATH has lld
# 14, which cannot read LLVM 22 bitcode), as clang's -fuse-ld=lld finds it;
# and two copies of ld.offlink named `ld` on PATH never run each other
# forever: each skips the copies that ran it.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM19/clang" "$LLVM22/ld.lld" "$LLVM19/ld.lld" gcc timeout
BIN=$(dirname "$OFFLINK")
printf 'int helper(void);\nint main(void) { return helper() - 42; }\n' >main.c
printf 'int helper(void) { return 42; }\n' >helper.c

# host LTO objects through ld.offlink with lld: the lld of the objects'
# release (no device code here: the host link is all there is)
for v in 22 19; do
	CLANG=$(eval echo \$LLVM$v)/clang
	"$CLANG" -flto -c main.c helper.c || fail "compile -flto ($v)"
	# clang drives: the lld beside it
	"$CLANG" -flto -fuse-ld=offlink -B"$BIN" main.o helper.o -Wl,--offlink-linker=lld \
		-Wl,--explain=clang$v.explain -o prog_clang$v || fail "clang $v -flto link with lld"
	grep -q "^host link: \"/usr/lib/llvm-$v/bin/ld.lld\"" clang$v.explain ||
		{ cat clang$v.explain; fail "clang $v: not lld $v"; }
	./prog_clang$v || fail "prog_clang$v"
	# gcc drives (the linker plugin is the user's business; lld reads
	# bitcode itself): the lld of the bitcode's release
	OFFLINK_LINKER=lld gcc main.o helper.o -B"$OFL_BUILD/libexec/offlink/gcc" \
		-Wl,--explain=gcc$v.explain -o prog_gcc$v || fail "gcc link of LLVM $v bitcode with lld"
	grep -q "^host link: \"/usr/lib/llvm-$v/bin/ld.lld\"" gcc$v.explain ||
		{ cat gcc$v.explain; fail "gcc, LLVM $v bitcode: not lld $v"; }
	./prog_gcc$v || fail "prog_gcc$v"
done

# two copies of ld.offlink, each an `ld` of its own -B dir and on PATH
gcc -c main.c helper.c || fail "compile"
mkdir d1 d2
cp "$OFFLINK" d1/ld && cp "$OFFLINK" d2/ld
PATH=$PWD/d1:$PWD/d2:$PATH timeout 20 gcc -B"$PWD/d1/" main.o helper.o -o copies \
	-Wl,--explain=copies.explain || fail "two copies of ld.offlink: link failed or looped"
./copies || fail "copies"
# the first copy cannot tell the second from a real ld; the second skips it
grep -q "^host link: \"$PWD/d2/ld\"" copies.explain || { cat copies.explain; fail "copies: not d2/ld"; }
# a chain that long can only be a loop: a clear error, not another exec
expect_fail env OFFLINK_LINKER_CHAIN="$(printf '/x%d:' $(seq 1 16))/y" "$BIN/ld.offlink" main.o -o x
grep -q 'copies of ld.offlink ran each other as the host linker' err || { cat err; fail "long chain"; }
echo "host linker: the release's lld; copies of ld.offlink skip each other"
