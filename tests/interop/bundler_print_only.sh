# -### as clang-offload-bundler 22 treats it: for a fat object (-type=o
# with an ELF host) the llvm-objcopy command it would run is printed in
# LLVM's form and no bundle is written (LLVM leaves an empty file); for
# any other bundle -### changes nothing.  The printed command, run, makes
# LLVM's fat object.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" "$LLVM22/llvm-objcopy" "$LLVM22/clang"
B=$OFL_COMPAT/clang-offload-bundler
echo 'int x;' >p.c
"$LLVM22/clang" -c p.c -o p.o
randbytes 1 300 >d.bin
randbytes 2 200 >h.bin
T=-targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
mkdir tmp
export TMPDIR=$PWD/tmp

"$LLVM22/clang-offload-bundler" -### -type=o $T -input=p.o -input=d.bin -output=l.o 2>l.err
"$B" -### -type=o $T -input=p.o -input=d.bin -output=o.o 2>o.err
[ ! -e o.o ] || fail "-### must write nothing"
sed -i 's|^"[^"]*llvm-objcopy"|"llvm-objcopy"|; s|clang-offload-bundler-[0-9a-f]*\.tmp|clang-offload-bundler-host.tmp|; s|"l.o"$|"o.o"|' l.err
same l.err o.err
[ "$(wc -l <o.err)" = 1 ] || fail "one command line"

# the command is the one LLVM runs: its result is LLVM's fat object
printf '\0' >tmp/clang-offload-bundler-host.tmp
eval "PATH=$LLVM22:\$PATH $(cat o.err)"
"$LLVM22/clang-offload-bundler" -type=o $T -input=p.o -input=d.bin -output=l.o
same l.o o.o

# other types: -### is ignored and the bundle written, as by LLVM
for ty in bc o; do
	"$LLVM22/clang-offload-bundler" -### -type=$ty $T -input=h.bin -input=d.bin -output=l.b 2>l.err
	"$B" -### -type=$ty $T -input=h.bin -input=d.bin -output=o.b 2>o.err
	same l.b o.b
	[ ! -s o.err ] || fail "-type=$ty: nothing to print"
done
echo ok
