#!/usr/bin/env bash
# Backslashes in @FILE response files split as LLVM's GNU tokenizer splits
# them: a backslash escapes the next character bare, inside "..." and
# inside '...' too; one that ends the file stays.  Each case names a
# missing input, so clang-offload-bundler 22 and offlink's personality
# both print the word they made of it.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler"
ln -s "$LLVM22/clang-offload-bundler" llvm-bundler
ln -s "$OFFLINK" clang-offload-bundler
cases=(
	"'a\\'b'" "'a\\\\b'" "'a\\nb'" "'a\\ b'"
	'"a\"b"' '"a\\b"' '"a\nb"'
	"a\\'b" 'a\\b' 'a\ b' 'a\"b'
	"'a\\" '"a\' 'a\' "'a'\\"
)
for c in "${cases[@]}"; do
	printf -- '-type=o -targets=host-x86_64-unknown-linux-gnu -output=x.o -input=%s' "$c" >c.rsp
	same_as_llvm llvm-bundler clang-offload-bundler @c.rsp
	grep -q "error: 'a" o.err || { cat o.err; fail "no word echoed for $c"; }
done
echo "backslashes in response files: the words LLVM 22 makes"
