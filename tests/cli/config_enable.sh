#!/usr/bin/env bash
# offlink enable / disable / status against copies of clang 19 and 22 in a
# folder of the test's own (never the system's clang): the files enable
# writes are the ones the real clang then reads (its own "Configuration
# file:" lines), for clang, clang++ and the versioned names, and not for
# other targets (-m32, a cross --target); status says what clang reads;
# compiles through them stay warning-free under -Werror (an offload compile
# too); a link without device code goes through ld.offlink, whose
# --explain names the file; disable removes exactly what enable wrote.
# Refusals: a config file of the user's that clang reads (enable writes
# nothing, says what to add, disable leaves it), no write access, a clang
# that reads no default config (15 and older); CLANG_NO_DEFAULT_CONFIG.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM19/clang" setpriv

printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >hello.c
printf '#include <cstdio>\n#include <vector>\nint main() { std::vector<int> v{1}; std::printf("%%d\\n", v[0]); }\n' >hello.cpp
cp "$OFL_SRC"/docs/examples/src/kern.c .
ldflags=$("$OFFLINK" --ldflags)

# farm V: cV/bin/clang, a copy of LLVM V's clang (its lib/ beside it, so
# it finds its libraries and resource folder), and its usual names
farm() {
	local llvm
	llvm=$(eval echo "\$LLVM$1")
	mkdir -p "c$1/bin"
	cp -L "$llvm/clang" "c$1/bin/clang"
	ln -s "$(dirname "$llvm")/lib" "c$1/lib"
	for n in clang++ "clang-$1" "clang++-$1"; do ln -s clang "c$1/bin/$n"; done
}

# reads PROGRAM [ARGS]: the config files the real clang reads, one a line
reads() { "$@" --version | sed -n 's/^Configuration file: //p'; }

for v in 22 19; do
	farm $v
	B=$PWD/c$v/bin
	triple=$("$B/clang" --version | sed -n 's/^Target: //p')
	[ -n "$triple" ] || fail "$v: no target in clang --version"
	"$OFFLINK" status "$B/clang" >st.out || fail "$v: status"
	grep -q "^$B/clang: clang $v, target $triple$" st.out || { cat st.out; fail "$v: status head"; }
	[ "$(grep -c 'no default config file: links through offlink only where' st.out)" = 2 ] ||
		{ cat st.out; fail "$v: status before enable"; }

	"$OFFLINK" enable "$B/clang-$v" >en.out || fail "$v: enable"
	printf '%s\n' "$B/clang: wrote $B/$triple-clang.cfg" "$B/clang: wrote $B/$triple-clang++.cfg" |
		diff -u - en.out || fail "$v: enable said"
	for m in clang clang++; do
		{
			echo "# offlink enable: clang links through offlink (offlink status; offlink disable removes this file)"
			tr ' ' '\n' <<<"$ldflags"
		} | diff -u - "$B/$triple-$m.cfg" || fail "$v: $m.cfg"
	done
	# clang reads what enable wrote, by every name; other targets nothing
	for n in clang clang-$v clang++ clang++-$v; do
		m=clang
		[[ $n == clang++* ]] && m=clang++
		[ "$(reads "$B/$n")" = "$B/$triple-$m.cfg" ] || { reads "$B/$n"; fail "$v: $n reads"; }
	done
	[ -z "$(reads "$B/clang" -m32)" ] || fail "$v: -m32 reads a config"
	[ -z "$(reads "$B/clang" --target=aarch64-linux-gnu)" ] || fail "$v: a cross target reads a config"
	"$OFFLINK" status "$B/clang" >st.out || fail "$v: status"
	grep -q "^  clang    $B/$triple-clang.cfg (default config, offlink's): links through offlink$" st.out &&
		grep -q "^  clang++  $B/$triple-clang++.cfg (default config, offlink's): links through offlink$" st.out ||
		{ cat st.out; fail "$v: status after enable"; }
	cp "$B/$triple-clang.cfg" before.cfg
	"$OFFLINK" enable "$B/clang" >en.out || fail "$v: enable again"
	grep -q "^$B/clang: already enabled" en.out || { cat en.out; fail "$v: enable again said"; }
	same before.cfg "$B/$triple-clang.cfg"

	# compiles: warning-free under -Werror (clang ignores the link flags
	# of a config file when it compiles), offload compiles too
	omp=
	[ $v = 19 ] && omp="-isystem ${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}/clang/19/include"
	# shellcheck disable=SC2086
	"$B/clang-$v" -Werror -Wall -c hello.c -o hello.o 2>cc.err &&
		"$B/clang++-$v" -Werror -Wall -c hello.cpp -o hellocpp.o 2>>cc.err &&
		"$B/clang-$v" -Werror -Wall -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $omp -c kern.c 2>>cc.err &&
		"$B/clang-$v" -Werror -S -o /dev/null hello.c 2>>cc.err || { cat cc.err; fail "$v: compile"; }
	[ ! -s cc.err ] || { cat cc.err; fail "$v: compiles printed messages"; }
	# a link without device code: through ld.offlink, unchanged
	"$B/clang-$v" hello.o -o hello -Wl,--explain=ex.log 2>ld.err || { cat ld.err; fail "$v: link"; }
	[ ! -s ld.err ] || { cat ld.err; fail "$v: the link printed messages"; }
	[ "$(./hello)" = hello ] || fail "$v: hello"
	grep -qx "link flags: clang $B/clang read $B/$triple-clang.cfg (default config, offlink's); -fuse-ld=offlink from $B/$triple-clang.cfg" ex.log ||
		{ cat ex.log; fail "$v: --explain does not name the config file"; }
	grep -q "no device code: the host link runs unchanged" ex.log || fail "$v: not through ld.offlink"
	"$B/clang++-$v" hellocpp.o -o hellocpp -Wl,--explain=ex.log || fail "$v: clang++ link"
	[ "$(./hellocpp)" = 1 ] || fail "$v: hellocpp"
	grep -q "^link flags: .*-fuse-ld=offlink from $B/$triple-clang++.cfg$" ex.log || { cat ex.log; fail "$v: clang++ --explain"; }
	# CLANG_NO_DEFAULT_CONFIG: clang reads none, and status says so
	[ -z "$(CLANG_NO_DEFAULT_CONFIG=1 reads "$B/clang")" ] || fail "$v: CLANG_NO_DEFAULT_CONFIG"
	CLANG_NO_DEFAULT_CONFIG=1 "$OFFLINK" status "$B/clang" | grep -q "CLANG_NO_DEFAULT_CONFIG is set here" ||
		fail "$v: status under CLANG_NO_DEFAULT_CONFIG"
	CLANG_NO_DEFAULT_CONFIG=1 "$B/clang" hello.o -o hello -Wl,--explain=ex.log 2>/dev/null &&
		fail "$v: linked through ld.offlink without the config"

	"$OFFLINK" disable "$B/clang++" >dis.out || fail "$v: disable"
	[ "$(sort dis.out)" = "$(printf '%s\n' "$B/clang: removed $B/$triple-clang++.cfg" "$B/clang: removed $B/$triple-clang.cfg")" ] ||
		{ cat dis.out; fail "$v: disable said"; }
	[ -z "$(ls "$B"/*.cfg 2>/dev/null)" ] || fail "$v: disable left files"
	[ -z "$(reads "$B/clang")" ] || fail "$v: clang still reads a config"
	"$OFFLINK" disable "$B/clang" | grep -q "^$B/clang: not enabled" || fail "$v: disable again"
done

# Refusals, with clang 22's copy.  A config file of the user's that clang
# reads: enable writes nothing and says what to add; disable leaves it.
B=$PWD/c22/bin
triple=$("$B/clang" --version | sed -n 's/^Target: //p')
echo "-Wall" >"$B/clang.cfg"
expect_fail "$OFFLINK" enable "$B/clang"
grep -q "^offlink: error: clang reads $B/clang.cfg: with offlink's $B/$triple-clang.cfg it would read that one alone; add these lines to $B/clang.cfg instead$" err ||
	{ cat err; fail "enable over clang.cfg: message"; }
[ "$(sed -n '2,$p' err | sed 's/^ *//' | tr '\n' ' ' | sed 's/ $//')" = "$ldflags" ] || { cat err; fail "the lines to add"; }
[ "$(ls "$B"/*.cfg)" = "$B/clang.cfg" ] || fail "enable wrote beside the user's clang.cfg"
"$OFFLINK" disable "$B/clang" >/dev/null || fail "disable with the user's clang.cfg"
[ -e "$B/clang.cfg" ] || fail "disable removed the user's clang.cfg"
# the lines added as told: clang links through offlink, not by offlink's file
tr ' ' '\n' <<<"$ldflags" >>"$B/clang.cfg"
"$OFFLINK" status "$B/clang" | grep -q "^  clang    $B/clang.cfg (default config): links through offlink$" ||
	fail "status of the user's own clang.cfg"
rm "$B/clang.cfg"
# a file of the user's under the name enable writes: neither file written,
# nor one without the mark taken for offlink's
echo "-Wall" >"$B/$triple-clang++.cfg"
expect_fail "$OFFLINK" enable "$B/clang"
grep -q "^offlink: error: $B/$triple-clang++.cfg is not offlink's, and clang++ reads it alone: add these lines to it$" err ||
	{ cat err; fail "enable over <triple>-clang++.cfg: message"; }
[ "$(ls "$B"/*.cfg)" = "$B/$triple-clang++.cfg" ] || fail "enable wrote one file of two"
tr ' ' '\n' <<<"$ldflags" >"$B/$triple-clang++.cfg"
expect_fail "$OFFLINK" enable "$B/clang"
"$OFFLINK" disable "$B/clang" >/dev/null && [ -e "$B/$triple-clang++.cfg" ] || fail "disable removed a copy without the mark"
rm "$B/$triple-clang++.cfg"

# no write access (root writes anywhere: run as nobody)
chmod 755 "$SCRATCH"
as_other() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		chmod a-w "$B"
		"$@"
		chmod u+w "$B"
	fi
}
as_other "$OFFLINK" enable "$B/clang" >out 2>err && fail "enable without write access"
grep -q "^offlink: error: cannot write in $B (Permission denied): offlink enable $B/clang needs its owner (root: sudo); for one build instead, CC=\"$B/clang --config=\$(offlink --config-file)\"$" err ||
	{ cat err; fail "enable without write access: message"; }
[ -z "$(ls "$B"/*.cfg 2>/dev/null)" ] || fail "enable without write access wrote"
"$OFFLINK" enable "$B/clang" >/dev/null || fail "enable"
as_other "$OFFLINK" disable "$B/clang" >out 2>err && fail "disable without write access"
grep -q "^offlink: error: cannot write in $B (Permission denied): offlink disable" err || { cat err; fail "disable message"; }
[ "$(ls "$B"/*.cfg | wc -l)" = 2 ] || fail "disable without write access removed"
"$OFFLINK" disable "$B/clang" >/dev/null || fail "disable"

# a clang that reads no default config file (15 and older: this one says
# it is 15)
mkdir old
printf '#!/bin/sh\nprintf "clang version 15.0.7\\nTarget: x86_64-pc-linux-gnu\\n"\n' >old/clang
chmod +x old/clang
expect_fail "$OFFLINK" enable "$PWD/old/clang"
expect_err_line "^offlink: error: $PWD/old/clang is clang 15, which reads no default config file \(clang 16 and later do\)"
[ -z "$(ls old/*.cfg 2>/dev/null)" ] || fail "enable wrote beside clang 15"
expect_fail "$OFFLINK" enable no-such-clang
expect_err_line "^offlink: error: no-such-clang: no such program$"
expect_fail "$OFFLINK" enable --all
expect_err_line "unknown option '--all'"
echo ok
