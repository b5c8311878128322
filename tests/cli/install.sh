# cmake --install puts offlink on bin/ and its LLVM personalities only in
# libexec/offlink/compat/, where they work through the relative link.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
cmake --install "$OFL_BUILD" --prefix "$SCRATCH/p" >/dev/null
[ -x p/bin/offlink ] || fail "bin/offlink missing"
[ "$(ls p/bin)" = offlink ] || fail "only offlink belongs on PATH"
for t in clang-offload-bundler clang-offload-packager llvm-offload-binary clang-offload-wrapper llvm-offload-wrapper; do
	[ -L p/libexec/offlink/compat/$t ] || fail "$t link missing"
done
printf 'h' >h; printf 'd' >d
p/libexec/offlink/compat/clang-offload-bundler -type=bc -targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu -input=h -input=d -output=b
[ "$(p/bin/offlink list b | wc -l)" -eq 2 ] || fail "installed personality does not work"
[ -f p/share/man/man1/offlink.1 ] || fail "man page missing"
echo ok
