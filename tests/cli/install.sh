# cmake --install puts offlink on bin/ and its LLVM personalities only in
# libexec/offlink/compat/, where they work through the relative link; every
# file it puts in the prefix, links included, is in install_manifest.txt
# (what packagers and uninstallers read; everything is in the
# default component).
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
# the component's own manifest: other tests install from the same build at
# the same time, and each rewrites install_manifest.txt
cmake --install "$OFL_BUILD" --prefix "$SCRATCH/p" --component Unspecified >/dev/null
[ -x p/bin/offlink ] || fail "bin/offlink missing"
[ "$(ls p/bin | tr '\n' ' ')" = "ld.offlink offlink " ] || fail "only offlink and ld.offlink belong on PATH"
[ "$(readlink p/bin/ld.offlink)" = offlink ] || fail "bin/ld.offlink is not a link to offlink"
[ -L p/libexec/offlink/gcc/ld ] && [ "$(realpath p/libexec/offlink/gcc/ld)" = "$(realpath p/bin/offlink)" ] ||
	fail "libexec/offlink/gcc/ld missing"
[ "$(p/bin/offlink --ldflags)" = "-B$(realpath p/bin) -B$(realpath p)/libexec/offlink/compat -fuse-ld=offlink" ] ||
	fail "--ldflags"
[ "$(p/bin/offlink --ldflags --compat)" = "-B$(realpath p)/libexec/offlink/compat" ] || fail "--ldflags --compat"
[ "$(p/bin/offlink --ldflags --cc=gcc)" = "-B$(realpath p)/libexec/offlink/gcc/" ] || fail "--ldflags --cc=gcc"
# pkg-config's flags are offlink --ldflags' folders, also after the prefix
# moves (the file names its prefix from its own place)
pc_flags() { # prefix
	# shellcheck disable=SC2046 # one word each
	resolved_flags $(PKG_CONFIG_PATH=$SCRATCH/$1/lib/pkgconfig pkg-config --libs offlink)
}
need pkg-config
[ "$(pc_flags p)" = "$(p/bin/offlink --ldflags)" ] || fail "pkg-config --libs offlink is not offlink --ldflags"
cp -a p moved
[ "$(pc_flags moved)" = "$(moved/bin/offlink --ldflags)" ] && [ "$(pc_flags moved)" != "$(pc_flags p)" ] ||
	fail "pkg-config --libs offlink names the old prefix after a move: $(pc_flags moved)"
rm -rf moved
[ -f p/share/man/man1/ld.offlink.1 ] && [ -f p/share/man/man1/offlink-plugin.1 ] ||
	fail "ld.offlink or plugin man page missing"
[ -f p/lib/offlink/offlink-plugin.so ] || fail "lib/offlink/offlink-plugin.so missing"
[ "$(p/bin/offlink --ldflags --plugin)" = "-fuse-ld=bfd -Wl,-plugin,$(realpath p)/lib/offlink/offlink-plugin.so" ] ||
	fail "--ldflags --plugin of the installed offlink"
for t in clang-offload-bundler clang-offload-packager llvm-offload-binary clang-offload-wrapper llvm-offload-wrapper clang-linker-wrapper llvm-objdump; do
	[ -L p/libexec/offlink/compat/$t ] || fail "$t link missing"
done
printf 'h' >h; printf 'd' >d
p/libexec/offlink/compat/clang-offload-bundler -type=bc -targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu -input=h -input=d -output=b
[ "$(p/bin/offlink list b | wc -l)" -eq 2 ] || fail "installed personality does not work"
[ -f p/share/man/man1/offlink.1 ] || fail "man page missing"
find p ! -type d | sort >installed
sort "$OFL_BUILD/install_manifest_Unspecified.txt" | sed "s|^$SCRATCH/||" >manifest
[ "$(wc -l <installed)" -ge 20 ] || fail "too few files installed"
comm -23 installed manifest >unlisted
[ ! -s unlisted ] || { cat unlisted; fail "installed but not in install_manifest.txt"; }
echo ok
