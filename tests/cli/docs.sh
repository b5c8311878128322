# The man pages and the docs agree with each other and with the program:
# every page renders without a warning, all have one footer form with the
# project's version, refer only to pages that exist, offlink(1) lists every
# command and page; docs/integration.md's table names every environment
# variable the front ends read; the README's install list names what
# `cmake --install` installs; examples name a clang that can do the job.
source "$OFL_SRC/tests/lib.sh"
need man groff
MAN=$OFL_SRC/docs/man
version=$(sed -n 's/^project(offlink VERSION \([0-9.]*\).*/\1/p' "$OFL_SRC/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"

pages=()
for f in "$MAN"/*.1; do pages+=("$(basename "$f" .1)"); done
[ ${#pages[@]} -ge 6 ] || fail "man pages missing: ${pages[*]}"

for p in "${pages[@]}"; do
	f=$MAN/$p.1
	# renders at 80 columns without a warning
	w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null) || fail "$p: man failed"
	[ -z "$w" ] || fail "$p: man warns: $w"
	# one footer form: .TH NAME 1 "date" "offlink X.Y.Z" "offlink manual"
	upper=$(tr '[:lower:]' '[:upper:]' <<<"$p")
	th=$(head -n1 "$f")
	[[ "$th" =~ ^\.TH\ ${upper//./\\.}\ 1\ \"([^\"]+)\"\ \"offlink\ ${version//./\\.}\"\ \"offlink\ manual\"$ ]] ||
		fail "$p: '$th' is not .TH $upper 1 \"<date>\" \"offlink $version\" \"offlink manual\""
	echo "${BASH_REMATCH[1]}" >>dates
	# references to pages: offlink's own must exist
	for ref in $(grep -oE '^\.BR [a-z.\\-]+ \(1\)' "$f" | sed -E 's/^\.BR ([^ ]+) .*/\1/; s/\\-/-/g'); do
		case $ref in
		ld | clang | gcc | llvm-objdump | make) ;;
		*) [ -f "$MAN/$ref.1" ] || fail "$p refers to $ref(1), which does not exist" ;;
		esac
	done
	# names in NAME that look like offlink pages are pages
	for n in $(sed -n '/^\.SH NAME/{n;p}' "$f" | sed 's/ \\- .*//; s/\\-/-/g; s/,/ /g'); do
		[[ $n != offlink-* ]] || [ -f "$MAN/$n.1" ] || [ "$n" = offlink-plugin.so ] ||
			fail "$p: NAME lists $n, no such page"
	done
	# examples: plain `clang` is clang 14 on Debian 12
	! sed -n '/^\.nf/,/^\.fi/p' "$f" | grep -Eq '^ *clang( |$)' || fail "$p: an example runs plain clang"
done
[ "$(sort -u dates | wc -l)" = 1 ] || fail "man page dates differ: $(sort -u dates | tr '\n' ' ')"

# offlink(1): a synopsis line for every command of `offlink --help`, and
# every other page in SEE ALSO
sed -n '/^Commands:/,/^$/p' <("$OFFLINK" --help) | awk 'NF { print $1 }' | grep -v Commands: >commands
[ -s commands ] || fail "no commands in offlink --help"
while read -r c; do
	grep -q "^\.B offlink $c\$" "$MAN/offlink.1" || fail "offlink(1)'s synopsis lacks 'offlink $c'"
done <commands
grep -q '^\.B offlink \\-\\-ldflags$' "$MAN/offlink.1" || fail "offlink(1)'s synopsis lacks --ldflags"
sed -n '/^\.SH SEE ALSO/,$p' "$MAN/offlink.1" >see
for p in "${pages[@]}"; do
	[ "$p" = offlink ] || grep -q "^\.BR ${p//-/\\\\-} (1)" see || grep -q "^\.BR $p (1)" see ||
		fail "offlink(1)'s SEE ALSO lacks $p(1)"
done

# docs/integration.md: a table row for every variable the front ends read
INT=$OFL_SRC/docs/integration.md
# (and the OFFLINK_ variables the library reads from the environment the
# front ends pass it)
{
	grep -ohE '(getenv|env_is)\("[A-Z_]+"' "$OFL_SRC"/tools/*.c \
		"$OFL_SRC"/plugin/*.c
	grep -ohE '"OFFLINK_[A-Z_]+"' "$OFL_SRC"/linkwrap/*/*.c "$OFL_SRC"/core/*.c || :
} | sed -E 's/.*\("//; s/^"//; s/"$//' | sort -u >vars
[ "$(wc -l <vars)" -ge 8 ] || fail "getenv calls not found"
while read -r v; do
	grep -Eq "^\|.*\`$v\`.*\|" "$INT" || fail "docs/integration.md's table lacks $v"
done <vars
! grep -q '<root>' "$INT" || fail "docs/integration.md uses <root>"

# code blocks of the README and integration.md: no plain clang either
for d in "$OFL_SRC/README.md" "$INT"; do
	! awk '/^```/ { on = !on; next } on' "$d" | grep -Eq '^ *clang( |$)' || fail "$d: an example runs plain clang"
	# a device link launcher is what runs a link: not ccache or distcc
	! grep -Eiq 'launcher=(ccache|distcc)|launchers? \((ccache|distcc)' "$d" || fail "$d suggests ccache or distcc as launcher"
done
! grep -Eq 'device\\-launcher= .*\(ccache|\(ccache, distcc' "$MAN"/*.1 || fail "a man page suggests ccache as launcher"

# README: what `cmake --install` installs, and every compat personality
for w in bin/ld.offlink libexec/offlink/gcc/ld lib/offlink/offlink-plugin.so lib/pkgconfig/offlink.pc \
	lib/cmake/offlink 'scripts/bootstrap --build-only'; do
	grep -qF -- "$w" "$OFL_SRC/README.md" || fail "README.md does not mention $w"
done
sed -n '/^set(OFL_PERSONALITIES/,/)/p' "$OFL_SRC/tools/CMakeLists.txt" | tr '() ' '\n\n\n' |
	grep -vE '^(set|OFL_PERSONALITIES)?$' >personalities
[ "$(wc -l <personalities)" -ge 7 ] || fail "personalities not found in tools/CMakeLists.txt"
while read -r t; do
	grep -q "\`$t" "$OFL_SRC/README.md" || fail "README.md's compat list lacks $t"
done <personalities
echo ok
