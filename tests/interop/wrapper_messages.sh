# llvm-offload-wrapper's messages for a missing --kind and an input that
# cannot be read are LLVM 22's (program name aside), with its exit status.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-offload-wrapper"
ln -s "$LLVM22/llvm-offload-wrapper" llvm-w
ln -s "$OFFLINK" llvm-offload-wrapper
compare() { same_as_llvm llvm-w llvm-offload-wrapper "$@"; }
compare --kind=openmp nope -o x.o
compare nope -o x.o
[ ! -e x.o ] || fail "no output after an error"
echo ok
