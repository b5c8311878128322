# --help and --version in every front end: offlink, each subcommand, each
# LLVM personality and ld.offlink.  Each exits 0, writes to stdout only, and
# its first line names the tool; nothing says the option is unknown.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need ld

LD_OFFLINK=$OFL_BUILD/bin/ld.offlink
for p in clang-offload-bundler clang-offload-packager llvm-offload-binary clang-offload-wrapper \
	llvm-offload-wrapper clang-linker-wrapper llvm-objdump; do
	[ -x "$OFL_COMPAT/$p" ] || fail "$OFL_COMPAT/$p missing"
done

refusal="unknown (command line )?argument|is required|not supported here"

# check NAME FIRST-LINE-PATTERN CMD...: exit 0, nothing on stderr, the first
# line matches, no line says the option is unknown or something is missing
check() {
	local name=$1 first=$2 rc=0
	shift 2
	"$@" >out 2>err || rc=$?
	[ "$rc" = 0 ] || { cat err out >&2; fail "$name: exit $rc"; }
	[ ! -s err ] || { cat err >&2; fail "$name: wrote to stderr"; }
	head -n1 out | grep -Eq -- "$first" || { head -n3 out >&2; fail "$name: first line"; }
	! grep -Eiq "$refusal" out || { cat out >&2; fail "$name: $(grep -Ei "$refusal" out)"; }
}

V='[0-9]+\.[0-9]+\.[0-9]+'
for a in --help --version; do
	[ $a = --help ] && first='^(usage|USAGE|OVERVIEW)' || first="^offlink $V\$"
	check "offlink $a" "$first" "$OFFLINK" $a
	for c in bundle unbundle list package inspect wrap cache enable disable status; do
		check "offlink $c $a" "$first" "$OFFLINK" $c $a
	done
	for p in clang-offload-bundler clang-offload-packager llvm-offload-binary clang-offload-wrapper \
		llvm-offload-wrapper clang-linker-wrapper llvm-objdump; do
		[ $a = --help ] && first='^(OVERVIEW|USAGE)' || first="^$p \(offlink $V\)\$"
		check "$p $a" "$first" "$OFL_COMPAT/$p" $a
	done
	[ $a = --help ] && first='^usage: ld\.offlink' || first="^ld\.offlink \(offlink $V\)\$"
	check "ld.offlink $a" "$first" "$LD_OFFLINK" $a
	check "offlink link $a" "$first" "$OFFLINK" link $a
done

# The help of a personality names it, and LLVM's one-dash spelling works.
"$OFL_COMPAT/clang-linker-wrapper" --help | grep -q -- '--linker-path=' || fail "clang-linker-wrapper --help lacks --linker-path"
check "clang-offload-wrapper -version" "^clang-offload-wrapper \(offlink $V\)" "$OFL_COMPAT/clang-offload-wrapper" -version

# offlink --help lists what a newcomer looks for.
"$OFFLINK" --help >help.txt
for w in --ldflags --compat --plugin ' link ' ld.offlink clang-linker-wrapper clang-offload-bundler \
	clang-offload-packager llvm-offload-binary clang-offload-wrapper llvm-offload-wrapper llvm-objdump; do
	grep -q -- "$w" help.txt || fail "offlink --help does not mention '$w'"
done

# ld.offlink --help: ours, short, every option of ours, and where the host
# linker's are; not GNU ld's 500 lines and bug address.
"$LD_OFFLINK" --help >help.txt
[ "$(wc -l <help.txt)" -lt 40 ] || fail "ld.offlink --help is $(wc -l <help.txt) lines"
for o in --offlink-linker= --device-compiler= --device-linker= --device-launcher= --offload-extract= \
	--offload-relocatable --jobs= --explain --dry-run --save-temps --offlink-verbose 'man ld.offlink'; do
	grep -q -- "$o" help.txt || fail "ld.offlink --help lacks $o"
done
tail -n1 help.txt | grep -Eq "^The host linker's options: (/usr)?/bin/ld --help\$" || { tail -n2 help.txt >&2; fail "the host linker's help is not pointed at"; }
! grep -qi 'bug' help.txt || fail "GNU ld's help leaked in"

# ld.offlink --version: ours, then the host linker's (its version line).
"$LD_OFFLINK" --version >v.txt
[ "$(sed -n 2p v.txt)" = "$(ld --version | head -n1)" ] || { cat v.txt >&2; fail "the host linker's version is not second"; }
"$LD_OFFLINK" -v >v.txt 2>/dev/null
[ "$(cat v.txt)" = "$(head -n1 <<<"$("$LD_OFFLINK" --version)")
$(ld -v)" ] || { cat v.txt >&2; fail "ld.offlink -v"; }
echo ok
