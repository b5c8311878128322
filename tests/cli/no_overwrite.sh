# No command writes over one of its inputs: bundle, unbundle, package (pack
# and extract), inspect --extract and wrap all refuse, say so in one line and
# leave the input as it was.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang"

printf 'int f(void) { return 1; }\n' >f.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c f.c -o omp.o
cp omp.o keep.o
randbytes 5 5000 >img
cp img keep.img
T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu

refused() { # the last command must have failed with the one-line message
	expect_err_line "$1: output file is also an input"
}
expect_fail "$OFFLINK" bundle --type=bc -t $T -o img img omp.o
refused img
expect_fail "$OFFLINK" package omp.o --image=file=omp.o,kind=openmp
refused omp.o
expect_fail "$OFFLINK" package -o img --image=file=img,triple=x86_64-pc-linux-gnu
refused img
expect_fail "$OFFLINK" inspect omp.o --extract omp.o/.llvm.offloading -o omp.o
refused omp.o
expect_fail "$OFFLINK" wrap -o img --image=file=img,triple=x86_64-pc-linux-gnu
refused img
ln img link.img
expect_fail "$OFFLINK" wrap -o link.img --image=file=img,triple=x86_64-pc-linux-gnu
refused link.img
same omp.o keep.o
same img keep.img
echo ok
