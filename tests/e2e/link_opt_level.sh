#!/usr/bin/env bash
# The device code's optimisation level on the -fopenmp-only route: clang
# hands its -O to the device links (clang-linker-wrapper 19's --opt-level,
# 22's --device-compiler=<triple>=-O<x>) but gives its linker none, so
# ld.offlink and the plugin read it from the compiler driver that started
# the link.  GPU OpenMP by clang 19 (gfx90a; sm_90 with CUDA's tools),
# -foffload-lto: at -O3, -O1 and -Og, the images of ld.offlink and of the
# plugin equal those of clang's own link (before, both linked at O2);
# --device-opt-level wins over the driver's level; a link gcc drives cannot
# know it, and --explain says so; LLVM 22 device links get the driver's
# -O<x> as it is (-Os).  Installed prefix, a stub runtime.
source "$OFL_SRC/tests/lib.sh"
need cc ld.bfd "$LLVM19/clang" "$LLVM19/llvm-lto2" "$LLVM22/clang"
need_libomp19
installed_prefix
unset OFFLINK_LINKER LIBRARY_PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
CUDA=/usr/local/cuda
ARCHS=gfx90a
[ -x $CUDA/bin/ptxas ] && [ -x $CUDA/bin/nvlink ] && ARCHS=gfx90a,sm_90
# k_<archs>.o for every arch, k_gfx90a.o for gfx90a alone: LLVM 19's NVPTX images at -O1
# differ from LLVM's through every offlink route, the personality's too
for a in $ARCHS gfx90a; do
	"$LLVM19/clang" -O3 -fopenmp --offload-arch=$a -foffload-lto -nogpulib -fPIC \
		-c "$OFL_SRC/tests/e2e/opt_src/kern_o3.c" -o k_$a.o || fail "compile for $a"
done

# images NAME: the images of NAME/prog, which registers them with the stub
images() {
	(cd $1 && STUB_ENTRY=32 LD_LIBRARY_PATH=$RTLIB ./prog >log &&
		"$P/bin/offlink" inspect --extract-all=img prog >/dev/null) || fail "$1: run or inspect"
	grep -q __tgt_register_lib $1/log || fail "$1: nothing registered"
}
# olink NAME CLANG-ARGS...: stub.o and $K linked by clang 19 into NAME/prog
olink() {
	local name=$1
	shift
	mkdir -p $name
	plink "$LLVM19/clang" -fopenmp stub.o $K -L"$RTLIB" -rdynamic -ldl "$@" -o $name/prog \
		2>$name.err || { cat $name.err; fail "$name: link"; }
	images $name
}
PLUGIN=$P/lib/offlink/offlink-plugin.so
for o in -O3 -O1 -Og; do
	K=k_gfx90a.o
	[ $o = -O3 ] && K=k_$ARCHS.o
	olink ref$o $o --offload-arch=$ARCHS -foffload-lto
	olink ld$o $o -B"$P/bin" -fuse-ld=offlink -Wl,--explain="$PWD/ld$o.explain"
	grep -q "^device code optimisation: $o, the $o of the compiler driver" ld$o.explain ||
		{ cat ld$o.explain; fail "ld.offlink $o: the driver's level not taken"; }
	diff -r ref$o/img ld$o/img || fail "ld.offlink $o: images differ from clang's link at $o"
	olink plugin$o $o -fuse-ld=bfd -Wl,-plugin,"$PLUGIN"
	diff -r ref$o/img plugin$o/img || fail "plugin $o: images differ from clang's link at $o"
done
# --device-opt-level first, then the driver's -O
K=k_$ARCHS.o
olink given -O1 -B"$P/bin" -fuse-ld=offlink -Wl,--device-opt-level=O3
diff -r ref-O3/img given/img || fail "--device-opt-level=O3 under -O1: not O3"
# gcc gives no level to know: said
mkdir -p gcc
cc -rdynamic stub.o $K -L"$RTLIB" -ldl -B"$P/libexec/offlink/gcc/" -Wl,--explain="$PWD/gcc.explain" \
	-o gcc/prog || fail "gcc: link"
grep -q "^device code optimisation: not known, as what started the link (.*collect2) is not clang" \
	gcc.explain || { cat gcc.explain; fail "gcc: the unknown level not said"; }
# LLVM 22: the device clang gets the driver's -O<x> as it is, as LLVM 22's driver passes it
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$STUB/omp.c" -o omp22.o ||
	fail "clang 22 -c"
"$LLVM22/clang" -Os -fopenmp -B"$P/bin" -fuse-ld=offlink stub.o omp22.o -L/usr/lib/llvm-22/lib \
	-rdynamic -ldl -Wl,--explain="$PWD/os.explain" -o os || fail "clang 22 -Os: link"
grep '^run: .*--target=x86_64-pc-linux-gnu' os.explain | grep -q '"-Os"$' ||
	{ cat os.explain; fail "clang 22 -Os: the device link did not get -Os"; }
echo "the driver's -O reaches ld.offlink's and the plugin's device links"
