#!/usr/bin/env bash
# offlink inspect --extract-all DIR makes DIR and the directories above it
# that are missing (mkdir -p), as it does the last one; a path through a
# file is an error naming it.
source "$OFL_SRC/tests/lib.sh"
F=$OFL_SRC/tests/fixtures/llvm22/bundle.raw
"$OFFLINK" inspect --extract-all a/b/c "$F" >out || fail "--extract-all a/b/c"
[ -d a/b/c ] && [ -n "$(ls a/b/c)" ] || fail "nothing extracted into a/b/c"
[ "$(wc -l <out)" -eq "$(ls a/b/c | wc -l)" ] || fail "the names printed are not the files written"
# again into the same place: the directories exist
"$OFFLINK" inspect --extract-all a/b/c "$F" >/dev/null || fail "--extract-all into an existing directory"
"$OFFLINK" inspect --extract-all "$PWD/x/y" "$F" >/dev/null || fail "--extract-all with an absolute path"
[ -n "$(ls x/y)" ] || fail "nothing extracted into x/y"
: >file
expect_fail "$OFFLINK" inspect --extract-all file/d "$F"
expect_err_line "^offlink: error: cannot create 'file/d': "
echo ok
