#!/usr/bin/env bash
# Host LTO: `clang -flto -fopenmp -fopenmp-targets=...` objects are LLVM
# bitcode whose module holds the OffloadBinary in a global placed in
# .llvm.offloading.  Every route reads it there: ld.offlink with ld.bfd and
# gold (which load LLVMgold.so) and lld, the plugin (behind LLVMgold.so,
# which claims the bitcode first), the clang-linker-wrapper personality;
# full and thin LTO, clang 19 and 22, objects and archive members (a
# host-only main pulling a library of kernels).  Programs run on the
# offload device under OMP_TARGET_OFFLOAD=MANDATORY.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM19/clang" "$LLVM22/ld.lld" "$LLVM19/ld.lld" ld.bfd ld.gold
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
export OMP_TARGET_OFFLOAD=MANDATORY
mkdir tmp
export TMPDIR=$PWD/tmp
printf 'int main(void) { int vec_scale(int *, int); int v[1] = {2};\n return !vec_scale(v, 1) || v[0] != 12; }\n' >hostmain.c

run_check() { # PROG
	"./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$SRC/expected.txt" "$1.out" || fail "$1 printed wrong results"
}

for v in 22 19; do
	CLANG=$(eval echo \$LLVM$v)/clang RT=/usr/lib/llvm-22/lib CF=()
	[ $v = 19 ] && RT=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib} &&
		CF=(-isystem "${RT%/lib}/lib/clang/19/include")
	export LD_LIBRARY_PATH=$RT
	for lto in full thin; do
		p=${v}_$lto
		for f in main kern; do
			"$CLANG" -flto=$lto -fopenmp -fopenmp-targets=$T -fPIC "${CF[@]}" -c "$SRC/$f.c" \
				-o $f$p.o || fail "compile $f ($p)"
		done
		[ "$(head -c 2 main$p.o)" = BC ] || fail "$p: not bitcode"
		for ld in bfd gold lld; do
			"$CLANG" -flto=$lto -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main$p.o kern$p.o \
				-L"$RT" -Wl,--offlink-linker=$ld -o ld_${p}_$ld || fail "ld.offlink, $ld ($p)"
			run_check ld_${p}_$ld
		done
		for ld in bfd gold; do
			"$CLANG" -flto=$lto -fopenmp -fuse-ld=$ld main$p.o kern$p.o -L"$RT" \
				-Wl,-plugin,"$PLUGIN" -o plugin_${p}_$ld || fail "plugin in $ld ($p)"
			run_check plugin_${p}_$ld
		done
		"$CLANG" -flto=$lto -B"$OFL_COMPAT" -fopenmp -fopenmp-targets=$T main$p.o kern$p.o -L"$RT" \
			-o compat_$p || fail "clang-linker-wrapper personality ($p)"
		run_check compat_$p
	done
	# a library of bitcode kernels pulled by a bitcode main without device
	# code of its own: the member is taken by the host link's rules
	"$CLANG" -flto -c hostmain.c -o hostmain$v.o || fail "compile hostmain ($v)"
	rm -f libk$v.a && ar rcs libk$v.a kern${v}_full.o
	"$CLANG" -flto -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" hostmain$v.o -L. -lk$v -L"$RT" \
		-Wl,--offlink-linker=lld -Wl,--explain="$PWD/lib$v.explain" -o hostonly$v ||
		fail "host-only main + bitcode library ($v)"
	./hostonly$v || fail "hostonly$v: the library's kernel did not run on the device"
	grep -q "libk$v.a(kern${v}_full.o): device code taken: the host link pulls it" lib$v.explain ||
		{ cat lib$v.explain; fail "explain: bitcode member ($v)"; }
	"$CLANG" -flto -fopenmp -fuse-ld=bfd hostmain$v.o -L. -lk$v -L"$RT" -Wl,-plugin,"$PLUGIN" \
		-o hostonly_plugin$v || fail "plugin: host-only main + bitcode library ($v)"
	./hostonly_plugin$v || fail "hostonly_plugin$v"
done
[ -z "$(ls tmp)" ] || fail "temporaries left"
echo "host LTO: every route, clang 19 and 22, full and thin"
