# The example projects of docs/examples, built as a user would against the
# build tree: the Makefile, which has nothing of offlink, through `make
# CC="clang --config=$(offlink --config-file)"`, the plugin's through its
# `offlink --ldflags --plugin`, both also with clang-19 and LLVM 19's OpenMP
# named by OMP_ROOT; the CMake project through offlink's CMake package
# (build/lib/cmake/offlink); the pkg-config module (build/lib/pkgconfig)
# gives the same flags.  Each program must run its kernels on the device and
# print the expected line.
. "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?OFL_BUILD must point at the build tree}"

CLANG=$LLVM22/clang
RTLIB=$(dirname "$LLVM22")/lib
need make cmake pkg-config "$CLANG"
[ -e "$RTLIB/libomptarget.so" ] ||
	{ [ -n "${CI:-}" ] && fail "$RTLIB/libomptarget.so missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }

EX=$OFL_SRC/docs/examples
export PKG_CONFIG_PATH=$OFL_BUILD/lib/pkgconfig
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RTLIB
echo "vec_add: sum 1498500 on the device" >expected

# run PROG: it must print exactly the expected line
run_check() {
	"$1" >run.out 2>run.err || { cat run.err; fail "$1 exited with $?"; }
	diff -u expected run.out || fail "$1 printed the wrong line"
}

# The pkg-config module and `offlink --ldflags` agree.
# shellcheck disable=SC2046 # one word each
[ "$(resolved_flags $(pkg-config --libs offlink))" = "$("$OFFLINK" --ldflags)" ] ||
	fail "pkg-config --libs offlink: $(pkg-config --libs offlink)"
# shellcheck disable=SC2046
[ "$(resolved_flags $(pkg-config --variable=ldflags_clang offlink))" = "$("$OFFLINK" --ldflags)" ] ||
	fail "ldflags_clang: $(pkg-config --variable=ldflags_clang offlink)"
# shellcheck disable=SC2046
[ "$(resolved_flags $(pkg-config --variable=ldflags_gcc offlink))" = "$("$OFFLINK" --ldflags --cc=gcc)" ] ||
	fail "ldflags_gcc: $(pkg-config --variable=ldflags_gcc offlink)"

# Make: compile and link with -fopenmp-targets, offlink's flags from its
# config file.
cp -r "$EX/make" make
cp -r "$EX/src" src
cfg=$("$OFFLINK" --config-file) || fail "offlink --config-file"
make -C make -s CC="$CLANG --config=$cfg" >make.log 2>&1 || { cat make.log; fail "make"; }
# offlink's clang-linker-wrapper did the device link: no bypass warning
[ ! -s make.log ] || { cat make.log; fail "make printed messages"; }
run_check make/vecadd
"$OFFLINK" inspect make/vecadd | grep -q 'triple = "x86_64-pc-linux-gnu"' || fail "no image in make/vecadd"

# clang-19, with LLVM 19's OpenMP where scripts/bootstrap unpacks it
# (OMP_ROOT, as the Makefiles say); the plugin's Makefile too
need "$LLVM19/clang"
rt22=$RTLIB
need_libomp19
rt19=$RTLIB RTLIB=$rt22
omp19=${rt19%/lib}
make -C make -s clean
make -C make -s CC="$LLVM19/clang --config=$cfg" OMP_ROOT="$omp19" >make.log 2>&1 ||
	{ cat make.log; fail "make CC=clang-19"; }
[ ! -s make.log ] || { cat make.log; fail "make CC=clang-19 printed messages"; }
LD_LIBRARY_PATH=$rt19 run_check make/vecadd

# The plugin: the same Makefile with one LDFLAGS line, ld.bfd loading
# offlink-plugin.so instead of ld.offlink.
# (A sanitizer build's plugin needs its runtime preloaded into the linker:
# plugin_openmp.sh does that; here it is left to the Release run.)
if [[ "$(ldd "$OFL_BUILD/lib/offlink-plugin.so")" != *libasan* ]]; then
	cp -r "$EX/plugin" plugin
	make -C plugin -s CC="$CLANG" OFFLINK="$OFFLINK" >plugin.log 2>&1 ||
		{ cat plugin.log; fail "make (plugin)"; }
	run_check plugin/vecadd
	"$OFFLINK" inspect plugin/vecadd | grep 'triple = "x86_64-pc-linux-gnu"' >/dev/null ||
		fail "no image from the plugin"
	make -C plugin -s clean
	make -C plugin -s CC="$LLVM19/clang" OMP_ROOT="$omp19" OFFLINK="$OFFLINK" >plugin.log 2>&1 ||
		{ cat plugin.log; fail "make CC=clang-19 (plugin)"; }
	LD_LIBRARY_PATH=$rt19 run_check plugin/vecadd
fi

# CMake: the same sources, linked through offlink::link, the build tree as
# the prefix.
cp -r "$EX/cmake" cmake
cmake -S cmake -B cmake/build -DCMAKE_C_COMPILER="$CLANG" -DCMAKE_PREFIX_PATH="$OFL_BUILD" \
	>cmake.log 2>&1 ||
	{ cat cmake.log; fail "cmake configure"; }
cmake --build cmake/build --verbose >build.log 2>&1 || { cat build.log; fail "cmake build"; }
grep -q -- "-fuse-ld=offlink" build.log || { cat build.log; fail "the CMake link does not use ld.offlink"; }
! grep -q "warning" build.log || { cat build.log; fail "the CMake build warned"; }
run_check cmake/build/vecadd
echo "examples: make, plugin and cmake projects built and ran on the device"
