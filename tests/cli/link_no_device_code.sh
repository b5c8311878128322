#!/usr/bin/env bash
# A link without device code costs next to nothing: ld.offlink reads each
# input once and looks for each -l once before it runs the host linker, and
# what only the pipeline needs (make's jobserver, the cache's settings) is
# not read where the host linker answers alone (--version, a plain -r).
source "$OFL_SRC/tests/lib.sh"
need gcc
BIN=$(dirname "$OFFLINK")
echo 'int f(void) { return 1; }' >f.c
gcc -fPIC -c f.c -o f.o || fail "compile"

# a bad cache setting matters to device links only
OFFLINK_CACHE_MAX_SIZE=bogus "$BIN/ld.offlink" --version >out || fail "--version read the cache's settings"
grep -q '^ld.offlink (offlink ' out || fail "--version: $(cat out)"
OFFLINK_CACHE_MAX_SIZE=bogus "$BIN/ld.offlink" -r f.o -o r.o || fail "a plain -r read the cache's settings"

if strace -o /dev/null true 2>/dev/null; then
	strace -o trace -e trace=openat,newfstatat,stat,execve "$BIN/ld.offlink" f.o -lm -shared -o f.so ||
		fail "link under strace"
	# ld.offlink's part: up to the host linker's execve
	awk '/^execve/ && n++ { exit } { print }' trace >ours
	[ "$(grep -c '^openat(.*"f\.o"' ours)" = 1 ] || { cat ours; fail "f.o not opened once"; }
	grep -q 'libm\.so"' ours || { cat ours; fail "-lm not looked for"; }
	for call in openat newfstatat; do
		dups=$(grep "^$call(" ours | grep -oE '"[^"]*/libm\.(so|a)"' | sort | uniq -d)
		[ -z "$dups" ] || { cat ours; fail "-lm looked for more than once ($call $dups)"; }
	done
fi
echo ok
