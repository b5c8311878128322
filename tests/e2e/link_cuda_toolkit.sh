#!/usr/bin/env bash
# One CUDA toolkit per link: the fatbinary that bundles a CUDA program's
# images comes from the toolkit whose ptxas and nvlink linked them.  A
# second toolkit, whose bin/ holds wrappers that log and run the real
# tools, is the one clang's driver would find (its ptxas first on PATH,
# CUDA_PATH unset): the device link runs its nvlink, and (before, from
# /usr/local/cuda) its fatbinary.  ld.offlink and the plugin; clang 22,
# installed prefix, a stub runtime.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" cc ld.bfd
CUDA=/usr/local/cuda
for t in ptxas nvlink fatbinary; do
	[ -x $CUDA/bin/$t ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "CUDA's $t missing"; skip "CUDA's $t missing"; }
done
installed_prefix
unset CUDA_PATH LIBRARY_PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
mkdir -p cuda2/bin cuda2/nvvm/libdevice
ln -s "$(realpath $CUDA/include)" cuda2/include
ln -s "$(realpath $CUDA/nvvm/libdevice)"/libdevice*.bc cuda2/nvvm/libdevice/
for t in ptxas nvlink fatbinary; do
	printf '#!/bin/sh\necho %s >>%s/tools.log\nexec %s "$@"\n' $t "$SCRATCH" "$(realpath $CUDA/bin/$t)" >cuda2/bin/$t
	chmod +x cuda2/bin/$t
done
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path=$CUDA \
	--offload-arch=sm_90 -fPIC -c "$STUB/gpu.cu" -o gpu.o 2>/dev/null || fail "clang -x cuda"
export PATH=$SCRATCH/cuda2/bin:$PATH

# clink NAME ARGS...: the CUDA program linked, run against the stub; the
# toolkit's tools that ran in tools.log
clink() {
	local name=$1
	shift
	rm -f tools.log
	plink "$LLVM22/clang" -rdynamic stub.o gpu.o -ldl "$@" -o $name 2>$name.err ||
		{ cat $name.err; fail "$name: link"; }
	STUB_ENTRY=56 ./$name >$name.log || fail "$name: exited with $?"
	grep -q "__cudaRegisterFunction(h, _Z19__device_stub__kernPi" $name.log ||
		{ cat $name.log; fail "$name: kernel not registered"; }
	grep -qx nvlink tools.log || fail "$name: the device link did not run the toolkit clang's driver finds"
	grep -qx fatbinary tools.log || { cat tools.log; fail "$name: fatbinary from another toolkit than nvlink's"; }
}
clink ld.offlink -B"$P/bin" -fuse-ld=offlink
clink plugin -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so"
echo "fatbinary from the toolkit of ptxas and nvlink"
