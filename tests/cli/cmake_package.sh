# The CMake package of an installed offlink: a project configured with only
# -DCMAKE_PREFIX_PATH=<prefix> finds it (find_package(offlink 0.1 REQUIRED)),
# links an OpenMP offloading program through offlink::link, and the program
# runs its kernels on the device and holds the device image.  With clang
# driving the link (-fuse-ld=offlink) and with gcc (host objects from clang,
# -B<prefix>/libexec/offlink/gcc/); offlink::plugin and offlink::compat too.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
CLANG=$LLVM22/clang
RTLIB=/usr/lib/llvm-22/lib
need cmake gcc "$CLANG"
[ -e "$RTLIB/libomptarget.so" ] ||
	{ [ -n "${CI:-}" ] && fail "$RTLIB/libomptarget.so missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }

P=$SCRATCH/prefix
cmake --install "$OFL_BUILD" --prefix "$P" >install.log || { cat install.log; fail "cmake --install"; }
[ -f "$P/lib/cmake/offlink/offlinkConfig.cmake" ] && [ -f "$P/lib/cmake/offlink/offlinkConfigVersion.cmake" ] ||
	fail "no CMake package in $P/lib/cmake/offlink"
# nothing of the build tree on the way: the installed tools must do it all
export PATH=/usr/local/bin:/usr/bin:/bin
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RTLIB
echo "vec_add: sum 1498500 on the device" >expected
cp -r "$OFL_SRC/docs/examples/src" src

# project NAME TARGET PROG-SETUP: a consumer linking prog against TARGET
project() {
	cmake_consumer "$1" "$2" "$3
target_link_options(prog PRIVATE -L$RTLIB)"
}

# build NAME CC: configure with only the prefix, build, run, inspect
build() {
	CC=$2 cmake -S "$1" -B "$1/build" -DCMAKE_PREFIX_PATH="$P" >"$1.log" 2>&1 ||
		{ cat "$1.log"; fail "$1: configure"; }
	cmake --build "$1/build" --verbose >>"$1.log" 2>&1 || { cat "$1.log"; fail "$1: build"; }
	"$1/build/prog" >run.out 2>run.err || { cat run.err; fail "$1: prog exited with $?"; }
	diff -u expected run.out || fail "$1: prog printed the wrong line"
	"$P/bin/offlink" inspect "$1/build/prog" >inspect.out || fail "$1: offlink inspect"
	grep -q 'triple = "x86_64-pc-linux-gnu"' inspect.out || { cat inspect.out; fail "$1: no device image in prog"; }
}

omp_sources='add_executable(prog ${CMAKE_CURRENT_SOURCE_DIR}/../src/main.c ${CMAKE_CURRENT_SOURCE_DIR}/../src/kern.c)
target_compile_options(prog PRIVATE -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
target_link_options(prog PRIVATE -fopenmp)'

# clang links: -B<prefix>/bin -fuse-ld=offlink
project clang offlink::link "$omp_sources"
build clang "$CLANG"
grep -q -- "-B$P/bin -B$P/libexec/offlink/compat -fuse-ld=offlink" clang.log || { cat clang.log; fail "clang: the link does not go through ld.offlink"; }

# gcc links the objects clang compiled: -B<prefix>/libexec/offlink/gcc/
"$CLANG" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c src/main.c src/kern.c || fail "compile"
project gcc "offlink::link omp" "add_executable(prog $PWD/main.o $PWD/kern.o)
set_target_properties(prog PROPERTIES LINKER_LANGUAGE C)"
build gcc gcc
grep -q -- "-B$P/libexec/offlink/gcc/" gcc.log || { cat gcc.log; fail "gcc: the link does not go through ld.offlink"; }
! grep -q -- "-fuse-ld=offlink" gcc.log || fail "gcc got clang's flags"

# the plugin inside ld.bfd (a sanitizer build's plugin needs the linker
# preloaded: plugin_openmp.sh)
if [[ "$(ldd "$P/lib/offlink/offlink-plugin.so")" != *libasan* ]]; then
	project plugin offlink::plugin "$omp_sources"
	build plugin "$CLANG"
	grep -q -- "-Wl,-plugin,$P/lib/offlink/offlink-plugin.so" plugin.log || fail "plugin: not loaded"
fi

# a link line that keeps -fopenmp-targets: offlink's clang-linker-wrapper
project compat offlink::compat "$omp_sources
target_link_options(prog PRIVATE -fopenmp-targets=x86_64-pc-linux-gnu)"
build compat "$CLANG"
grep -q -- "-B$P/libexec/offlink/compat" compat.log || fail "compat: not offlink's clang-linker-wrapper"

# an older offlink than asked for is refused
project newer offlink::link "$omp_sources"
sed -i 's/find_package(offlink 0.1 REQUIRED)/find_package(offlink 9.0 REQUIRED)/' newer/CMakeLists.txt
! CC=$CLANG cmake -S newer -B newer/build -DCMAKE_PREFIX_PATH="$P" >newer.log 2>&1 || fail "offlink 9.0 found"
grep -q 'offlinkConfig.cmake, version: 0\.1\.0' newer.log || { cat newer.log; fail "version check"; }
echo ok
