# llvm-offload-wrapper's messages for a missing --kind and an input that
# cannot be read are LLVM 22's (program name aside), with its exit status.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-offload-wrapper"
ln -s "$LLVM22/llvm-offload-wrapper" llvm-w
ln -s "$OFFLINK" llvm-offload-wrapper
compare() {
	local lrc=0 orc=0
	./llvm-w "$@" >l.out 2>l.err || lrc=$?
	./llvm-offload-wrapper "$@" >o.out 2>o.err || orc=$?
	sed -i 's/^[^ ]*llvm-w:/PROG:/' l.err
	sed -i 's/^[^ ]*llvm-offload-wrapper:/PROG:/' o.err
	[ "$lrc" = "$orc" ] || fail "exit $orc, LLVM $lrc: $*"
	same l.err o.err
	same l.out o.out
}
compare --kind=openmp nope -o x.o
compare nope -o x.o
[ ! -e x.o ] || fail "no output after an error"
echo ok
