# offlink called as llvm-objdump: --offloading FILE... prints and writes
# what llvm-objdump 22 (or 19, as llvm-objdump-19) does; any other option
# is refused with a message that names the real llvm-objdump.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/llvm-objdump" "$LLVM22/llvm-objdump" "$LLVM22/clang" "$LLVM22/llvm-offload-binary" \
	"$LLVM22/clang-offload-bundler" "$LLVM22/llvm-objcopy"
cat >omp.c <<'C'
int f(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o omp.o
randbytes 1 200 >h.bin
randbytes 2 300 >d.bin
"$LLVM22/clang-offload-bundler" -type=bc -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a \
	-input=h.bin -input=d.bin -output=u.bndl
"$LLVM22/llvm-objcopy" --add-section .hip_fatbin=u.bndl omp.o fat.o
ln -s "$OFL_COMPAT/llvm-objdump" llvm-objdump-19
for v in 19 22; do
	ours=$OFL_COMPAT/llvm-objdump
	[ $v = 19 ] && ours=$PWD/llvm-objdump-19
	mkdir l$v o$v
	cp omp.o fat.o l$v/ && cp omp.o fat.o o$v/
	(cd l$v && "$(eval echo \$LLVM$v)/llvm-objdump" --offloading omp.o fat.o >out 2>err) ||
		fail "llvm-objdump $v failed"
	(cd o$v && "$ours" --offloading omp.o fat.o >out 2>err) || { cat o$v/err; fail "ours ($v) failed"; }
	diff -r l$v o$v || fail "llvm-objdump $v --offloading differs"
done
[ -e o22/fat.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a ] || fail "22 extracts bundles"
same o22/fat.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a d.bin
# a missing file: LLVM's message and status (program name aside)
"$LLVM22/llvm-objdump" --offloading nope 2>l.err && fail "LLVM accepted a missing file" || true
expect_fail "$OFL_COMPAT/llvm-objdump" --offloading nope
sed 's/^[^ ]*: error: /error: /' l.err >l.msg
sed 's/^[^ ]*: error: /error: /' err >o.msg
same l.msg o.msg
# anything else is the real llvm-objdump's
for opt in -d --syms -h; do
	expect_fail "$OFL_COMPAT/llvm-objdump" $opt omp.o
	expect_err_line "'$opt'.*LLVM's llvm-objdump"
done
expect_fail "$OFL_COMPAT/llvm-objdump" omp.o
expect_err_line "only does --offloading; run LLVM's llvm-objdump"
echo ok
