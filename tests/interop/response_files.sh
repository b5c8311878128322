# @FILE arguments (GNU quoting, nested files) expand for every personality
# and subcommand as they do for LLVM 22's tools: the same outputs from the
# same response files.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" "$LLVM22/llvm-offload-binary"
randbytes 1 300 >"h one.bin"
randbytes 2 500 >'d"q.bin'
# nested files, quotes of both kinds, a backslash escape, an empty line
cat >inner.rsp <<'R'
"-input=h one.bin"
-input=d\"q.bin

R
cat >outer.rsp <<'R'
-type=bc '-targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu'
@inner.rsp
R
"$LLVM22/clang-offload-bundler" @outer.rsp -output=l.bndl
"$OFL_COMPAT/clang-offload-bundler" @outer.rsp -output=o.bndl
same l.bndl o.bndl
printf -- '-list -type=bc\n-input=o.bndl\n' >list.rsp
"$LLVM22/clang-offload-bundler" @list.rsp >l.ids
"$OFL_COMPAT/clang-offload-bundler" @list.rsp >o.ids
same l.ids o.ids
[ "$(wc -l <o.ids)" = 2 ] || fail "two IDs expected"

cat >pkg.rsp <<'R'
-o pkg.out
"--image=file=h one.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"
R
"$LLVM22/llvm-offload-binary" @pkg.rsp
mv pkg.out l.pkg
"$OFL_COMPAT/llvm-offload-binary" @pkg.rsp
same l.pkg pkg.out

# a native subcommand, and an @word naming no file stays a word
printf -- '--type=bc --targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu\n"h one.bin" d\\"q.bin -o n.bndl\n' >native.rsp
"$OFFLINK" bundle @native.rsp
same n.bndl l.bndl
expect_fail "$OFL_COMPAT/clang-offload-bundler" -list -type=bc -input=o.bndl @missing.rsp
grep -q "@missing.rsp" err || { cat err; fail "an unreadable @file stays a word"; }
# a file that names itself ends in an error, not in a loop
echo @self.rsp >self.rsp
expect_fail "$OFFLINK" list @self.rsp
expect_err_line "nested too deeply"
echo ok
