# A typo gets the nearest command or option; a bad value says which values
# are allowed; --ldflags takes compilers by name or path.  Each case is one
# error (two lines for LLVM's option tables, as LLVM's tools print them).
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need ld gcc

LD_OFFLINK=$OFL_BUILD/bin/ld.offlink
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so

# subcommands
expect_fail "$OFFLINK" lnk
expect_err_line "^offlink: error: 'lnk' is not an offlink command; did you mean 'link'\?\$"
expect_fail "$OFFLINK" isnpect x.o
expect_err_line "did you mean 'inspect'\?\$"
expect_fail "$OFFLINK" frobnicate
expect_err_line "^offlink: error: 'frobnicate' is not an offlink command; see 'offlink --help'\$"

# options of a subcommand or personality: LLVM's message and its suggestion
expect_fail "$OFFLINK" inspect --frmat=json x.o
cat >want <<'EOF'
offlink: Unknown command line argument '--frmat=json'.  Try: 'offlink --help'
offlink: Did you mean '--format=json'?
EOF
diff -u want "$SCRATCH/err" || fail "inspect --frmat=json"
# LLVM's parser names the program by its base name, the command as run in
# its hint (clang-offload-bundler 22 prints the same two lines)
expect_fail "$OFL_COMPAT/clang-offload-bundler" -tpye=bc
cat >want <<EOF
clang-offload-bundler: Unknown command line argument '-tpye=bc'.  Try: '$OFL_COMPAT/clang-offload-bundler --help'
clang-offload-bundler: Did you mean '--type=bc'?
EOF
diff -u want "$SCRATCH/err" || fail "clang-offload-bundler -tpye=bc"
expect_fail "$OFFLINK" wrap --hots-triple=x -o w.o
grep -qx "offlink: Did you mean '--host-triple=x'?" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "wrap --hots-triple"; }

# values: what is allowed
expect_fail "$OFFLINK" inspect --format=xml x.o
expect_err_line "unknown --format 'xml': use tree, json or llvm-objdump\$"
printf h >h
expect_fail "$OFFLINK" list --type=zz h
expect_err_line "^offlink: error: --type: 'zz' is no bundle type; the types are i ii cui hipi d ll s bc gch ast o a\$"
expect_fail "$OFFLINK" wrap --emit=elf -o w.o h
expect_err_line "^offlink: error: --emit must be obj, ll, bc, c or fatbin\$"
expect_fail "$OFFLINK" wrap --fatbinary-syntax=image2 -o w.o h
expect_err_line "^offlink: error: --fatbinary-syntax must be image3 or image, not 'image2'\$"

# ld.offlink: an option meant to be ours never reaches ld ("unrecognized
# option"); ld's own options still pass
printf 'int main(void){return 0;}\n' >m.c
gcc -c m.c
expect_fail "$LD_OFFLINK" --offlink-linkr=gold m.o -o m
expect_err_line "^ld\.offlink: error: unknown option '--offlink-linkr=gold'; did you mean '--offlink-linker=gold'\?\$"
expect_fail gcc -B"$OFL_BUILD/libexec/offlink/gcc/" m.o -Wl,--device-lnker=-lm -o m
grep -qx "ld.offlink: error: unknown option '--device-lnker=-lm'; did you mean '--device-linker=-lm'?" "$SCRATCH/err" ||
	{ cat "$SCRATCH/err"; fail "gcc -Wl,--device-lnker"; }
expect_fail "$LD_OFFLINK" --offlink-frob m.o -o m
expect_err_line "^ld\.offlink: error: unknown option '--offlink-frob'; see ld.offlink --help\$"
expect_fail "$LD_OFFLINK" --offlink-linker=gld m.o -o m
expect_err_line "the host linker is bfd, gold, lld, mold, a program on PATH or a path\$"
gcc -B"$OFL_BUILD/libexec/offlink/gcc/" m.o -Wl,--gc-sections,--as-needed -o m || fail "ld's options"

# the plugin: a bad value says what is allowed, a typo the option meant
# (plink: tests/lib.sh)
expect_fail plink ld -plugin "$PLUGIN" -plugin-opt jobs=0 m.o -o m
expect_err_line "^ld: error: offlink: plugin option 'jobs=0': jobs is a number from 1 to 4096\$"
# the plugin, ld.offlink and the personality read a jobs value alike
expect_fail plink ld -plugin "$PLUGIN" -plugin-opt jobs=4x m.o -o m
expect_err_line "^ld: error: offlink: plugin option 'jobs=4x': jobs is a number from 1 to 4096\$"
for j in 4x 0 4097; do
	expect_fail "$LD_OFFLINK" -j $j m.o -o m
	expect_err_line "^ld\.offlink: error: -j: expected a number of jobs from 1 to 4096, got '$j'\$"
	expect_fail "$OFL_COMPAT/clang-linker-wrapper" --wrapper-jobs=$j --linker-path=/usr/bin/ld m.o -o m
	expect_err_line "clang-linker-wrapper: error: --wrapper-jobs=$j: expected a positive integer or 'jobserver', got '$j'\$"
done
"$OFL_COMPAT/clang-linker-wrapper" --wrapper-jobs=JobServer --linker-path=/usr/bin/ld m.o -o m ||
	fail "--wrapper-jobs=JobServer"
expect_fail plink ld -plugin "$PLUGIN" -plugin-opt jbos=4 m.o -o m
expect_err_line "^ld: error: offlink: unknown plugin option 'jbos=4'; did you mean 'jobs=4'\?\$"
expect_fail plink ld -plugin "$PLUGIN" -plugin-opt frob m.o -o m
expect_err_line "unknown plugin option 'frob' \(jobs=N, device-compiler=, .*dry-run.*\)\$"

# --ldflags: compilers by name or path
clang_form="-B$(realpath "$OFL_BUILD/bin") -B$(realpath "$OFL_BUILD")/libexec/offlink/compat -fuse-ld=offlink"
gcc_form="-B$(realpath "$OFL_BUILD")/libexec/offlink/gcc/"
for cc in clang clang-22 /usr/lib/llvm-22/bin/clang clang++ x86_64-linux-gnu-clang++-19; do
	[ "$("$OFFLINK" --ldflags --cc="$cc")" = "$clang_form" ] || fail "--ldflags --cc=$cc"
done
for cc in gcc g++ gcc-12 /usr/bin/gcc x86_64-linux-gnu-g++-12; do
	[ "$("$OFFLINK" --ldflags --cc="$cc")" = "$gcc_form" ] || fail "--ldflags --cc=$cc"
done
# cc and c++ by what they are links to
mkdir bin
ln -s "$(command -v gcc)" bin/c++
[ "$("$OFFLINK" --ldflags --cc="$PWD/bin/c++")" = "$gcc_form" ] || fail "--ldflags --cc=c++ (gcc)"
mkdir tc && : >tc/clang-22 && chmod +x tc/clang-22 && ln -s ../tc/clang-22 bin/cc
[ "$(PATH=$PWD/bin:$PATH "$OFFLINK" --ldflags --cc=cc)" = "$clang_form" ] || fail "--ldflags --cc=cc (clang)"
expect_fail "$OFFLINK" --ldflags --cc=icx
expect_err_line "^offlink: error: --ldflags: cannot tell which compiler 'icx' is; --cc takes clang or gcc, by name or path"
expect_fail "$OFFLINK" --ldflags --compt
expect_err_line "unknown argument '--compt'; did you mean '--compat'\?\$"
[ "$("$OFFLINK" --ldflags --compat)" = "-B$(realpath "$OFL_BUILD")/libexec/offlink/compat" ] || fail "--ldflags --compat"
expect_fail "$OFFLINK" --ldflags --compat --cc=gcc
expect_err_line "only clang runs clang-linker-wrapper"
echo ok
