#!/usr/bin/env bash
# Outputs of the host linker that name its inputs never name a temporary of
# the link (the wrapper objects live in the link's temporary directory):
# --dependency-file (CMake 3.27+ passes it) and -Map, through ld.offlink
# with ld.bfd, gold and lld and through the plugin in ld.bfd and gold.  A
# dependency file naming a file that is gone makes make relink on every
# build; here a second `make` must do nothing.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" make gcc
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
RT=/usr/lib/llvm-22/lib
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT
mkdir tmp
export TMPDIR=$PWD/tmp
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$SRC/$f.c" -o $f.o ||
		fail "compile $f"
done

# check NAME: NAME.d and NAME.map name the inputs and no temporary, and
# the program runs
check() {
	grep -q '^ *main.o' "$1.d" && grep -q '^ *kern.o' "$1.d" || { cat "$1.d"; fail "$1: inputs missing"; }
	! grep -n "$TMPDIR" "$1.d" "$1.map" || fail "$1: a temporary is named"
	grep -q 'openmp.wrapper.o' "$1.map" || fail "$1: the map lost the wrapper object"
	./"$1" >"$1.out" || fail "$1 did not run"
	diff -u "$SRC/expected.txt" "$1.out" || fail "$1 printed wrong results"
	[ -z "$(ls tmp)" ] || fail "$1: temporaries left"
}
OUTS=(-Wl,--dependency-file=NAME.d -Wl,-Map=NAME.map)
for ld in bfd gold "$LLVM22/ld.lld"; do
	n=ld_$(basename "$ld")
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
		-Wl,--offlink-linker="$ld" "${OUTS[@]//NAME/$n}" -o $n || fail "ld.offlink with $ld"
	check $n
done
for ld in bfd gold; do
	n=plugin_$ld
	gcc -fuse-ld=$ld main.o kern.o -L$RT -lomp -Wl,-plugin,"$PLUGIN" "${OUTS[@]//NAME/$n}" -o $n ||
		fail "plugin in $ld"
	check $n
done

# A Makefile that includes the dependency file: the second make is a no-op.
cat >Makefile <<EOF
prog: main.o kern.o
	$LLVM22/clang -fopenmp -fuse-ld=offlink -B$OFL_BUILD/bin main.o kern.o -L$RT \\
		-Wl,--dependency-file=prog.d -o prog
-include prog.d
EOF
make -s >make1.out || fail "first make"
[ -x prog ] || fail "make did not link"
make -q prog || { cat prog.d; fail "make finds prog out of date right after linking it"; }
touch -d '1 minute ago' prog
touch -d '2 minutes ago' main.o kern.o
make -s -n >make2.out || fail "second make -n"
[ ! -s make2.out ] || { cat make2.out; fail "a no-op build relinks"; }
echo "dependency and map files: no temporary named"
