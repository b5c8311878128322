#!/usr/bin/env bash
# What a link reads from its inputs never steers it: a triple or arch from
# an OffloadBinary reaches no command line unless it is a target's name (a
# path in a triple made clang run ./x86_64-dir/../pwn-gcc), control
# characters from inputs never reach a terminal or forge a diagnostic line,
# and @file expansion is bounded (files naming each other grew to 4M words;
# @/dev/zero read until memory ran out).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ar timeout
BIN=$(dirname "$OFFLINK")
mkdir tmp
export TMPDIR=$PWD/tmp
printf 'x' >img
printf '#!/bin/sh\necho "$@" >>%s/started\nexec "$@"\n' "$PWD" >launch
chmod +x launch
pkg() { # NAME TRIPLE ARCH
	"$OFFLINK" package -o "$1" --image=file=img,triple="$2",arch="$3",kind=openmp || fail "package $1"
}

# a triple or arch that is no target's name: one error line, naming the
# input and offset, before any process starts
pkg path.obin 'x86_64-dir/../pwn' x
pkg opt.obin x86_64-pc-linux-gnu '-fuse-ld=/tmp/x'
pkg space.obin 'x86_64-pc-linux-gnu -B.' ''
for f in path opt space; do
	expect_fail "$BIN/ld.offlink" --device-launcher="$PWD/launch" -o prog $f.obin
	expect_err_line "^ld.offlink: error: $f.obin: invalid target in an offload binary: .* at offset 0$"
done
[ ! -e started ] || { cat started; fail "a device link ran for an invalid target"; }
[ ! -e prog ] && [ -z "$(ls tmp)" ] || fail "output or temporaries left"

# control characters: escaped, one line, nothing for the terminal
pkg ctl.obin $'x86_64\n\033[8mld.offlink: error: forged' x
expect_fail "$BIN/ld.offlink" -o prog ctl.obin
expect_err_line 'triple .x86_64\\n\\x1b\[8mld.offlink: error: forged.'
! grep -q $'\033' err || fail "an escape character reached stderr"
# ... also in what --explain writes (an archive member's name)
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c \
	"$OFL_SRC/tests/e2e/wrap_openmp_src/kern.c" -o $'k\033[2J.o' || fail "compile"
ar rcs libctl.a $'k\033[2J.o'
"$BIN/ld.offlink" --dry-run --whole-archive libctl.a --explain=ctl.explain -o prog 2>/dev/null || true
grep -q 'libctl.a(k\\x1b\[2J.o)' ctl.explain && ! grep -q $'\033' ctl.explain ||
	{ cat -v ctl.explain; fail "--explain printed a control character"; }

# @file: bounded in files, bytes and words; only regular files are read
printf 'x %.0s' $(seq 1 300) >r4
for p in 3:4 2:3 1:2 0:1; do
	printf "@r${p#*:} %.0s" $(seq 1 100) >r${p%:*}
done
expect_fail "$BIN/ld.offlink" @r0 -o prog
expect_err_line 'ld.offlink: error: r[0-9]: response file is one too many: response files name each other over 2000 times'
expect_fail "$BIN/ld.offlink" @/dev/zero -o prog
expect_err_line '^ld.offlink: error: /dev/zero: response file is not a regular file$'
mkfifo fifo
expect_fail timeout 10 "$BIN/ld.offlink" @fifo -o prog
expect_err_line '^ld.offlink: error: fifo: response file is not a regular file$'
expect_fail "$OFFLINK" bundle @/dev/zero
expect_err_line 'error: /dev/zero: response file is not a regular file$'
echo "untrusted inputs: no command steered, nothing forged, expansion bounded"
