#!/usr/bin/env bash
# HIP compiled and linked in one command (old driver, non-rdc; and
# -fgpu-rdc --hip-link), clang-22 running the installed offlink's
# clang-offload-bundler (-B<prefix>/libexec/offlink/compat): clang bundles
# each .hipfb with -input=/dev/null as its host entry.  The link succeeds
# and every file it leaves is the same as with LLVM's bundler.
source "$OFL_SRC/tests/lib.sh"
need cc "$LLVM22/clang" "$LLVM22/clang-offload-bundler" "$LLVM22/lld"
installed_prefix
SRC=$OFL_SRC/tests/interop/wrap_stub_src
COMPAT=$P/libexec/offlink/compat
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.o || fail "compile stub"
hip_runtime_standin

hip=("$LLVM22/clang" -x hip --offload-arch=gfx90a --offload-arch=gfx1030 -nogpulib -nogpuinc
	-cuid=same -save-temps)
"${hip[@]}" -B"$COMPAT" -### "$SRC/gpu.cu" 2>plan || fail "clang -###"
grep -q "\"$COMPAT/clang-offload-bundler\"" plan || fail "clang does not run offlink's bundler"
for mode in plain rdc; do
	extra=()
	[ $mode = rdc ] && extra=(-fgpu-rdc --hip-link)
	for who in llvm ours; do
		mkdir $mode.$who
		B=()
		[ $who = ours ] && B=(-B"$COMPAT")
		(cd $mode.$who && "${hip[@]}" "${extra[@]}" "${B[@]}" -L.. "$SRC/gpu.cu" -x none ../stub.o \
			-rdynamic -ldl -o prog) || fail "clang-22 $mode with the $who bundler"
	done
	ls $mode.ours/*.hipfb >/dev/null || fail "$mode: no .hipfb"
	diff -r $mode.llvm $mode.ours || fail "$mode: offlink's bundler made other files"
	LD_LIBRARY_PATH=$PWD $mode.ours/prog >$mode.log || fail "$mode: the program failed"
	grep -q "__hipRegisterFatBinary: .*__hipRegisterFunction(h, _Z4kernPi" <(tr '\n' ' ' <$mode.log) ||
		{ cat $mode.log; fail "$mode: no registration"; }
done
echo "HIP in one command with offlink's bundler: same fat binaries and programs as LLVM's"
