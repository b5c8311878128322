#!/usr/bin/env bash
# CPU device links are reproducible whichever linker they get: two links of
# the same inputs give the same program.  A device compiler with no ld.lld
# beside it links with gold, which named the image's base version after its
# output path (the link's temporary directory) until the image got a soname
# of its own; a device compiler named bare (clang-22, found on PATH) gets
# the ld.lld beside the clang that PATH finds, as that clang runs it.
# ld.offlink and the plugin, clang 22, installed prefix, no cache.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ld.gold ld.bfd readelf
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
unset OFFLINK_LINKER
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$SRC/$f.c" -o $f.o || fail "compile $f"
done
mkdir cc22 t1 t2
printf '#!/bin/sh\nexec %s "$@"\n' "$LLVM22/clang" >cc22/clang
chmod +x cc22/clang

# twice NAME LINKER-ARGS...: two links (each its own TMPDIR) give the same
# program, which runs on the device; the device link's linker in $used
# (--explain: $EXPLAIN, the front end's spelling)
EXPLAIN=-Wl,--explain=
twice() {
	local name=$1 i
	shift
	for i in 1 2; do
		TMPDIR=$PWD/t$i plink "$LLVM22/clang" -fopenmp main.o kern.o -L$RT "$@" \
			"$EXPLAIN$PWD/$name.$i.explain" -o $name.$i 2>$name.err ||
			{ cat $name.err; fail "$name: link $i"; }
	done
	LD_LIBRARY_PATH=$RT ./$name.1 >$name.out || fail "$name: exited with $?"
	diff -u "$SRC/expected.txt" $name.out || fail "$name: wrong output"
	used=$(grep -o '"-fuse-ld=[a-z]*"' $name.1.explain || true)
	cmp $name.1 $name.2 || fail "$name: two links of the same inputs differ (device link $used)"
}
twice gold -B"$P/bin" -fuse-ld=offlink -Wl,--device-compiler="$PWD/cc22/clang"
[ "$used" = '"-fuse-ld=gold"' ] || fail "gold: the device link used $used"
EXPLAIN=-Wl,-plugin-opt,explain= twice gold_plugin -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so" \
	-Wl,-plugin-opt,device-compiler="$PWD/cc22/clang"
PATH=/usr/bin:$PATH twice bare -B"$P/bin" -fuse-ld=offlink -Wl,--device-compiler=clang-22
[ "$used" = '"-fuse-ld=lld"' ] || fail "bare clang-22: the device link used $used, not the ld.lld beside it"
echo "CPU device links: the same program twice, with gold and with lld"
