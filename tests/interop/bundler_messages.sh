# Command-line mistakes give the same message and exit status as
# clang-offload-bundler 22 (program name aside), and missing bundles are
# reported in LLVM's words.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler"
ln -s "$LLVM22/clang-offload-bundler" llvm-bundler
ln -s "$OFFLINK" clang-offload-bundler

printf 'host' >h; printf 'dev' >d
H=host-x86_64-unknown-linux-gnu; D=openmp-x86_64-unknown-linux-gnu
./llvm-bundler -type=bc -targets=$H,$D -input=h -input=d -output=b

compare() { same_as_llvm llvm-bundler clang-offload-bundler "$@"; }

compare -targets=$H -input=h -output=x                              # no -type
compare -type=bc -unbundle -list -input=b
compare -type=bc -list -input=b -input=h
compare -type=bc -list -input=b -output=x
compare -type=bc -list -input=b -targets=$H
compare -type=bc -check-input-archive -targets=$H -input=h -output=x
compare -type=bc -unbundle -check-input-archive -targets=$H -input=b -output=x
compare -type=bc -targets=$H -input=h
compare -type=bc -input=h -output=x
compare -type=bc -unbundle -targets=$H -input=b -input=h -output=x
compare -type=bc -unbundle -targets=$H,$D -input=b -output=x
compare -type=a -targets=$H -input=h -output=x
compare -type=bc -targets=$H,$D -input=h -input=d -output=x -output=y
compare -type=bc -targets=$H,$D -input=h -output=x
compare -type=bc -targets=$H,$H -input=h -input=d -output=x
compare -type=bc -targets=$D,openmp-nvptx64-nvidia-cuda--sm_70 -input=h -input=d -output=x
compare -type=bc -targets=$H,$H,$D -input=h -input=d -input=d -output=x
compare -type=zz -targets=$H -input=h -output=x
compare -type=bc -targets=$H,bogus-x86_64-unknown-linux-gnu -input=h -input=d -output=x
compare -type=bc -targets=$H,openmp-foo-unknown-linux-gnu -input=h -input=d -output=x
compare -type=bc -targets=$H,bogus-foo-unknown-linux-gnu -input=h -input=d -output=x
compare -type=bc -targets=$H,openmp-x86_64-linux -input=h -input=d -output=x
compare -type=bc -targets=$H,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx90a:xnack+ -input=h -input=d -input=d -output=x
compare -type=bc -inputs=h,d -input=h -targets=$H,$D -output=x
compare -type=bc -unbundle -targets=$H,openmp-nvptx64-nvidia-cuda--sm_70,hip-amdgcn-amd-amdhsa--gfx90a -input=b -output=x -output=y -output=z
compare -type=bc -unbundle -targets=openmp-nvptx64-nvidia-cuda--sm_70,hip-amdgcn-amd-amdhsa--gfx90a -input=b -output=y -output=z
compare -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a -input=h -output=z
compare -type=bc -list -input=h
compare -type=bc -list -input=b
compare -type=bc -unbundle -allow-missing-bundles -targets=$H,hip-amdgcn-amd-amdhsa--gfx90a -input=h -output=y -output=z
cmp y h && [ ! -s z ] || fail "allow-missing-bundles on a non-bundle"
compare -type=bc -inputs=h,d -targets=$H,$D -output=x   # deprecated spelling warns
# a missing file is quoted; -type=a of anything but an archive is "too small"
rm -f x y
compare -type=bc -targets=$H,$D -input=nope -input=d -output=x
compare -type=bc -list -input=nope
compare -type=bc -unbundle -targets=$H,$D -input=nope -output=x -output=y
compare -type=a -unbundle -targets=$H,$D -input=nope -output=x -output=y
compare -type=a -unbundle -targets=$H,$D -input=h -output=x -output=y
compare -type=a -unbundle -targets=$H,$D -input=b -output=x -output=y
[ ! -e x ] && [ ! -e y ] || fail "outputs left after an error"
# --help is LLVM 22's, option order, wording and type list included, with
# the name it was invoked under
mkdir l && ln -s "$LLVM22/clang-offload-bundler" l/clang-offload-bundler
for h in --help -help; do
	l/clang-offload-bundler $h >l.out
	./clang-offload-bundler $h >o.out
	same l.out o.out
done
grep -q 'Current supported types are:' o.out || fail "type list"
ln -s "$OFFLINK" llvm-bundler-ours-clang-offload-bundler
./llvm-bundler-ours-clang-offload-bundler --help >o.out
grep -q '^USAGE: llvm-bundler-ours-clang-offload-bundler \[options\]$' o.out || fail "usage name"
echo ok
