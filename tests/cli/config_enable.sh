#!/usr/bin/env bash
# offlink enable / disable / status against copies of clang 19 and 22 in a
# folder of the test's own (never the system's clang): the files enable
# writes are the ones the real clang then reads (its own "Configuration
# file:" lines), for clang, clang++ and the versioned names, for the
# spellings of the native target a build gives --target= (CMake's
# CMAKE_<LANG>_COMPILER_TARGET: x86_64-unknown-linux-gnu, x86_64-linux-gnu),
# and not for other targets (-m32, a cross --target); status says what
# clang reads, per spelling; compiles through them stay warning-free under
# -Werror (an offload compile too); a link without device code goes
# through ld.offlink, whose --explain names the file, with and without
# --target=; disable removes exactly what enable wrote: a line the user
# added to offlink's file stays, through enable and disable.  A config
# file of the user's that clang reads: enable writes nothing and says what
# to add; done as it says (the lines read from its message), enable
# completes, clang and clang++ link through offlink, disable leaves the
# user's file.  Refusals: no write access, a clang that reads no default
# config (15 and older); CLANG_NO_DEFAULT_CONFIG.
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

# the native target's spellings: clang's own (x86_64-pc-linux-gnu) and
# the one clang reads for --target=x86_64-unknown-linux-gnu and
# --target=x86_64-linux-gnu
spellings() {
	triple=$("$1" --version | sed -n 's/^Target: //p')
	[ -n "$triple" ] || fail "no target in $1 --version"
	alt=$(sed 's/^\([^-]*\)-[^-]*-/\1-unknown-/' <<<"$triple")
	[ "$alt" != "$triple" ] || fail "clang's own target $triple has the vendor unknown: test on x86_64 Debian"
	cfgs=("$triple-clang" "$triple-clang++" "$alt-clang" "$alt-clang++")
}

# follow_advice: appends the lines enable's message (err) says to add to
# the file it names, as a user would
follow_advice() {
	local file
	file=$(sed -n '1s/.* add these lines to \([^ ]*\) instead, then run offlink enable again$/\1/p; 1s/^offlink: error: \([^ ]*\) is not offlink.s, .*add these lines to it, .*/\1/p' err)
	[ -f "$file" ] || { cat err; fail "enable's message names no file to add to"; }
	sed -n '2,$s/^ *//p' err >>"$file"
}

for v in 22 19; do
	farm $v
	B=$PWD/c$v/bin
	spellings "$B/clang"
	"$OFFLINK" status "$B/clang" >st.out || fail "$v: status"
	grep -q "^$B/clang: clang $v, target $triple$" st.out || { cat st.out; fail "$v: status head"; }
	[ "$(grep -c 'no default config file: links through offlink only where' st.out)" = 4 ] ||
		{ cat st.out; fail "$v: status before enable"; }

	"$OFFLINK" enable "$B/clang-$v" >en.out || fail "$v: enable"
	printf "$B/clang: wrote $B/%s.cfg\n" "${cfgs[@]}" | diff -u - en.out || fail "$v: enable said"
	for f in "${cfgs[@]}"; do
		{
			echo "# offlink enable: clang links through offlink (offlink status; offlink disable removes this file)"
			tr ' ' '\n' <<<"$ldflags"
		} | diff -u - "$B/$f.cfg" || fail "$v: $f.cfg"
	done
	# clang reads what enable wrote, by every name and native spelling;
	# other targets nothing
	for n in clang clang-$v clang++ clang++-$v; do
		m=clang
		[[ $n == clang++* ]] && m=clang++
		[ "$(reads "$B/$n")" = "$B/$triple-$m.cfg" ] || { reads "$B/$n"; fail "$v: $n reads"; }
		[ "$(reads "$B/$n" --target="$triple")" = "$B/$triple-$m.cfg" ] || fail "$v: $n --target=$triple reads"
		for t in "$alt" "${alt/-unknown-/-}"; do
			[ "$(reads "$B/$n" --target="$t")" = "$B/$alt-$m.cfg" ] || { reads "$B/$n" --target="$t"; fail "$v: $n --target=$t reads"; }
		done
	done
	[ -z "$(reads "$B/clang" -m32)" ] || fail "$v: -m32 reads a config"
	[ -z "$(reads "$B/clang" --target=aarch64-linux-gnu)" ] || fail "$v: a cross target reads a config"
	"$OFFLINK" status "$B/clang" >st.out || fail "$v: status"
	printf '%s\n' "$B/clang: clang $v, target $triple" \
		"  clang    $B/$triple-clang.cfg (default config, offlink's): links through offlink" \
		"  clang++  $B/$triple-clang++.cfg (default config, offlink's): links through offlink" \
		"  clang    --target=$alt (or ${alt/-unknown-/-}): $B/$alt-clang.cfg (default config, offlink's): links through offlink" \
		"  clang++  --target=$alt (or ${alt/-unknown-/-}): $B/$alt-clang++.cfg (default config, offlink's): links through offlink" |
		diff -u - st.out || fail "$v: status after enable"
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
	# the spellings CMake's CMAKE_<LANG>_COMPILER_TARGET puts on link lines
	for t in "$alt" "${alt/-unknown-/-}"; do
		for n in clang-$v clang++-$v; do
			m=clang o=hello.o
			[[ $n == clang++* ]] && m=clang++ o=hellocpp.o
			"$B/$n" --target="$t" $o -o prog -Wl,--explain=ex.log || fail "$v: $n --target=$t link"
			grep -q "^link flags: .*-fuse-ld=offlink from $B/$alt-$m.cfg$" ex.log ||
				{ cat ex.log; fail "$v: $n --target=$t did not link through offlink"; }
		done
	done
	# CLANG_NO_DEFAULT_CONFIG: clang reads none, and status says so
	[ -z "$(CLANG_NO_DEFAULT_CONFIG=1 reads "$B/clang")" ] || fail "$v: CLANG_NO_DEFAULT_CONFIG"
	CLANG_NO_DEFAULT_CONFIG=1 "$OFFLINK" status "$B/clang" | grep -q "CLANG_NO_DEFAULT_CONFIG is set here" ||
		fail "$v: status under CLANG_NO_DEFAULT_CONFIG"
	CLANG_NO_DEFAULT_CONFIG=1 "$B/clang" hello.o -o hello -Wl,--explain=ex.log 2>/dev/null &&
		fail "$v: linked through ld.offlink without the config"

	"$OFFLINK" disable "$B/clang++" >dis.out || fail "$v: disable"
	[ "$(sort dis.out)" = "$(printf "$B/clang: removed $B/%s.cfg\n" "${cfgs[@]}" | sort)" ] ||
		{ cat dis.out; fail "$v: disable said"; }
	[ -z "$(ls "$B"/*.cfg 2>/dev/null)" ] || fail "$v: disable left files"
	[ -z "$(reads "$B/clang")" ] || fail "$v: clang still reads a config"
	"$OFFLINK" disable "$B/clang" | grep -q "^$B/clang: not enabled" || fail "$v: disable again"
done

# A line the user added to offlink's file stays: enable (again, or from
# another install) rewrites offlink's lines around it; disable leaves it,
# in a file that is the user's from then on.
B=$PWD/c22/bin
spellings "$B/clang"
"$OFFLINK" enable "$B/clang" >/dev/null || fail "enable"
f=$B/$triple-clang.cfg
printf '%s\n' "-L$PWD/mylib" '# mine' >>"$f"
cp "$f" mine.cfg
"$OFFLINK" enable "$B/clang" >en.out || fail "enable with the user's lines"
grep -q "^$B/clang: already enabled$" en.out || { cat en.out; fail "enable with the user's lines said"; }
same mine.cfg "$f"
sed -i "s|^-B$(dirname "$OFFLINK")\$|-B/old/prefix/bin|; s|^-B[^ ]*/libexec/offlink/compat\$|-B/old/prefix/libexec/offlink/compat|" "$f"
grep -q "^-B/old/prefix/bin$" "$f" || { cat "$f"; fail "no file of another install"; }
"$OFFLINK" enable "$B/clang" >en.out || fail "enable over another install's file"
[ "$(cat en.out)" = "$B/clang: wrote $f, keeping the lines you added" ] || { cat en.out; fail "enable over another install's file said"; }
same mine.cfg "$f"
"$OFFLINK" disable "$B/clang" >dis.out || fail "disable with the user's lines"
grep -qx "$B/clang: removed offlink's lines from $f; the lines you added stay (the file is yours now)" dis.out ||
	{ cat dis.out; fail "disable with the user's lines said"; }
[ "$(cat "$f")" = "$(printf '%s\n' "-L$PWD/mylib" '# mine')" ] || { cat "$f"; fail "disable dropped the user's lines"; }
[ "$(ls "$B"/*.cfg)" = "$f" ] || fail "disable left offlink's files"
rm "$f"

# A config file of the user's that clang reads: enable writes nothing and
# says what to add; done as it says, enable completes (with clang 22's
# copy and 19's).  disable leaves the user's file.
for v in 22 19; do
	B=$PWD/c$v/bin
	spellings "$B/clang"
	echo "-Wall" >"$B/clang.cfg"
	expect_fail "$OFFLINK" enable "$B/clang"
	grep -q "^offlink: error: clang reads $B/clang.cfg: with offlink's $B/$triple-clang.cfg it would read that one alone; add these lines to $B/clang.cfg instead, then run offlink enable again$" err ||
		{ cat err; fail "$v: enable over clang.cfg: message"; }
	[ "$(sed -n '2,$p' err | sed 's/^ *//' | tr '\n' ' ' | sed 's/ $//')" = "$ldflags" ] || { cat err; fail "$v: the lines to add"; }
	[ "$(ls "$B"/*.cfg)" = "$B/clang.cfg" ] || fail "$v: enable wrote beside the user's clang.cfg"
	"$OFFLINK" disable "$B/clang" >/dev/null || fail "$v: disable with the user's clang.cfg"
	[ -e "$B/clang.cfg" ] || fail "$v: disable removed the user's clang.cfg"
	follow_advice
	"$OFFLINK" enable "$B/clang" >en.out 2>err || { cat err; fail "$v: enable refuses after its advice was followed"; }
	printf '%s\n' "$B/clang: wrote $B/$triple-clang++.cfg" "$B/clang: wrote $B/$alt-clang++.cfg" \
		"$B/clang: $B/clang.cfg (yours) links through offlink: left as it is" | diff -u - en.out ||
		fail "$v: enable after the advice said"
	"$OFFLINK" status "$B/clang" >st.out
	grep -q "^  clang    $B/clang.cfg (default config): links through offlink$" st.out &&
		grep -q "^  clang++  $B/$triple-clang++.cfg (default config, offlink's): links through offlink$" st.out ||
		{ cat st.out; fail "$v: status of the user's own clang.cfg"; }
	[ "$(grep -c ': links through offlink$' st.out)" = 4 ] || { cat st.out; fail "$v: not every spelling links through offlink"; }
	for n in clang-$v clang++-$v; do
		o=hello.o
		[[ $n == clang++* ]] && o=hellocpp.o
		"$B/$n" "$o" -o prog -Wl,--explain=ex.log 2>ld.err || { cat ld.err; fail "$v: $n does not link through offlink"; }
	done
	"$OFFLINK" enable "$B/clang" >en.out || fail "$v: enable again"
	grep -qx "$B/clang: already enabled" en.out || { cat en.out; fail "$v: enable again said"; }
	"$OFFLINK" disable "$B/clang" >/dev/null || fail "$v: disable"
	[ "$(ls "$B"/*.cfg)" = "$B/clang.cfg" ] || fail "$v: disable left offlink's files or removed clang.cfg"
	rm "$B/clang.cfg"
done

# a file of the user's under the name enable writes: nothing written, nor
# one without the mark taken for offlink's; with the lines added as told,
# enable completes and leaves it as it is
B=$PWD/c22/bin
spellings "$B/clang"
echo "-Wall" >"$B/$triple-clang++.cfg"
expect_fail "$OFFLINK" enable "$B/clang"
grep -q "^offlink: error: $B/$triple-clang++.cfg is not offlink's, and clang++ reads it alone: add these lines to it, then run offlink enable again$" err ||
	{ cat err; fail "enable over <triple>-clang++.cfg: message"; }
[ "$(ls "$B"/*.cfg)" = "$B/$triple-clang++.cfg" ] || fail "enable wrote one file of two"
follow_advice
cp "$B/$triple-clang++.cfg" mine.cfg
"$OFFLINK" enable "$B/clang" >/dev/null || fail "enable after the advice on <triple>-clang++.cfg"
same mine.cfg "$B/$triple-clang++.cfg"
[ "$(ls "$B"/*.cfg | wc -l)" = 4 ] || fail "enable did not write the other files"
"$OFFLINK" disable "$B/clang" >/dev/null && [ "$(ls "$B"/*.cfg)" = "$B/$triple-clang++.cfg" ] ||
	fail "disable removed a file without the mark, or left its own"
same mine.cfg "$B/$triple-clang++.cfg"
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
[ "$(ls "$B"/*.cfg | wc -l)" = 4 ] || fail "disable without write access removed"
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
