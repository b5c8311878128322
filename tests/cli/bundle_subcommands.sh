# offlink's own spellings: bundle/unbundle/list with types guessed from file
# names and contents, help for every command, and the dispatcher's errors.
source "$OFL_SRC/tests/lib.sh"

printf 'host bytes' >host.bin
printf 'device bytes\n' >dev.bin
T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu

# the type follows the output's extension; list and unbundle detect it
"$OFFLINK" bundle -t $T -o out.bc host.bin dev.bin
[ "$(head -c 24 out.bc)" = __CLANG_OFFLOAD_BUNDLE__ ] || fail "binary bundle expected"
"$OFFLINK" list out.bc >ids
printf '%s\n' openmp-x86_64-unknown-linux-gnu- host-x86_64-unknown-linux-gnu- | cmp - ids || fail "list order"
"$OFFLINK" unbundle out.bc --targets=openmp-x86_64-unknown-linux-gnu -o d.out
same d.out dev.bin

"$OFFLINK" bundle --targets=$T -o out.ll host.bin dev.bin
head -2 out.ll | grep -q '^; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-$' || fail "text bundle"
cp out.ll noext
"$OFFLINK" list noext >ids2
[ "$(wc -l <ids2)" -eq 2 ] || fail "text bundle type not detected from content"
"$OFFLINK" unbundle noext --targets=$T -o h.out -o d.out
same h.out host.bin; same d.out dev.bin

# standard input: the type must be given (guessing would consume it)
"$OFFLINK" list --type=bc - <out.bc >ids3
same ids ids3
expect_fail "$OFFLINK" list - <out.bc
expect_err_line "give --type when the bundle comes from standard input"

# compression: zlib and zstd, any level, both read back
for m in zstd zlib; do
	"$OFFLINK" bundle --type=bc --compress --method=$m --level=5 -t $T -o z.$m host.bin dev.bin
	[ "$(head -c 4 z.$m)" = CCOB ] || fail "CCOB expected"
	"$OFFLINK" unbundle z.$m -t $T -o h.out -o d.out
	same h.out host.bin; same d.out dev.bin
done
"$OFFLINK" bundle --type=bc --compress --format-version=2 -t $T -o z2 host.bin dev.bin
[ "$(xxd -s 4 -l 2 -p z2)" = 0200 ] || fail "--format-version=2"

# errors from the dispatcher and the subcommands
expect_fail "$OFFLINK" frobnicate
expect_err_line "^offlink: error: 'frobnicate' is not an offlink command"
expect_fail "$OFFLINK" bundle -t $T -o out.xyz host.bin dev.bin
expect_err_line "cannot tell the bundle type from 'out.xyz'"
expect_fail "$OFFLINK" bundle -t $T host.bin dev.bin
expect_err_line "no output file given"
expect_fail "$OFFLINK" bundle --type=bc -t $T -o o host.bin
expect_err_line "number of input files and targets should match"
expect_fail "$OFFLINK" unbundle --type=bc -t $T -o a -o b missing.bin
expect_err_line "missing.bin: No such file or directory"
expect_fail "$OFFLINK" list dev.bin
expect_err_line "dev.bin: not a bundle"

# help everywhere, and the version
"$OFFLINK" --help | grep -q '^  bundle ' || fail "offlink --help"
"$OFFLINK" --version | grep -q '^offlink [0-9]' || fail "--version"
for c in bundle unbundle list package inspect wrap; do
	"$OFFLINK" $c --help >help.txt || fail "offlink $c --help failed"
	grep -qi 'usage' help.txt || fail "offlink $c --help has no usage"
done
"$OFFLINK" unbundle --help | grep -q -- '--allow-missing' || fail "unbundle help incomplete"
"$OFL_COMPAT/clang-offload-bundler" --help >help.txt
for o in type targets input output unbundle list allow-missing-bundles bundle-align check-input-archive hip-openmp-compatible compress compression-level verbose; do
	grep -q -- "--$o" help.txt || fail "clang-offload-bundler --help lacks --$o"
done
echo ok
