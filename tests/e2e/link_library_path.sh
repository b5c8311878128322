#!/usr/bin/env bash
# LIBRARY_PATH reaches the device links alike whoever drives the link and
# whichever front end runs it: clang's device link passes its folders to
# nvlink as -L (LLVM's does so, and nvlink records them in the cubin), and
# a device library found only there is linked.  gcc rewrites the variable
# for its linker (its own folders among the user's): the device links get
# the user's value, as gcc got it (before, none: the plugin, which gcc
# drives, and ld.offlink under gcc missed the library, and their sm_90
# image differed from the one of a link clang drives).  ld.offlink and the
# plugin, each under clang and gcc; CUDA new driver, sm_90; installed
# prefix; a stub runtime.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" cc ld.bfd ar
CUDA=/usr/local/cuda
for t in ptxas nvlink fatbinary; do
	[ -x $CUDA/bin/$t ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "CUDA's $t missing"; skip "CUDA's $t missing"; }
done
installed_prefix
unset CUDA_PATH
SRC=$OFL_SRC/tests/e2e/plugin_src
cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
cuda() { "$LLVM22/clang" -x cuda -fgpu-rdc -nocudainc -nocudalib --cuda-path=$CUDA --offload-arch=sm_90 "$@" 2>/dev/null; }
cuda --offload-new-driver -fPIC -c "$SRC/cumain.cu" -o cumain.o || fail "compile cumain.cu"
# the device library: culib.cu's device code alone, in a folder that only
# LIBRARY_PATH names
mkdir devlibs
cuda --cuda-device-only -c "$SRC/culib.cu" -o culib.cubin || fail "compile culib.cu"
ar rcs devlibs/libdcul.a culib.cubin
export LIBRARY_PATH=$SCRATCH/devlibs
PLUGIN=$P/lib/offlink/offlink-plugin.so

# ulink NAME DRIVER ARGS...: cumain.o, whose device code calls the library's
# lib_cube, linked and run against the stub; its sm_90 image in NAME.img
ulink() {
	local name=$1 driver=$2
	shift 2
	plink $driver -rdynamic stub.o cumain.o -ldl "$@" -o $name 2>$name.err ||
		{ cat $name.err; fail "$name: link (the device library in LIBRARY_PATH not found?)"; }
	STUB_ENTRY=56 ./$name >$name.log || fail "$name: exited with $?"
	grep -q RegisterFatBinary $name.log || fail "$name: nothing registered"
	mkdir $name.x && (cd $name.x && "$P/bin/offlink" inspect --extract-all=img ../$name >/dev/null) ||
		fail "$name: inspect"
	cp $name.x/img/*sm_90.cubin $name.img || fail "$name: no sm_90 image"
}
DL=nvptx64-nvidia-cuda=-ldcul
ulink ld_clang "$LLVM22/clang" -B"$P/bin" -fuse-ld=offlink -Wl,--device-linker=$DL
ulink ld_gcc cc -B"$P/libexec/offlink/gcc/" -Wl,--device-linker=$DL
ulink plugin_gcc cc -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,device-linker=$DL
ulink plugin_clang "$LLVM22/clang" -fuse-ld=bfd -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,device-linker=$DL
for n in ld_gcc plugin_gcc plugin_clang; do
	cmp ld_clang.img $n.img || fail "$n: its sm_90 image differs from ld.offlink's under clang"
done
echo "LIBRARY_PATH reaches nvlink through every front end, under clang and gcc"
