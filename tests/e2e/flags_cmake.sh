#!/usr/bin/env bash
# The shape of CMake projects whose options add the offload flags to the
# link options too (target_link_options), linked through offlink::link of
# an installed prefix (find_package(offlink)), with the Make and the Ninja
# generators: clang runs offlink's clang-linker-wrapper, whose host linker
# is ld.offlink; offlink links the device code once (a launcher logs each
# device link), the real host linker runs once (OFFLINK_LINKER, a logging
# script), the link prints nothing, and the program runs its kernels on the
# device.  Then offlink::link and offlink::compat at once, and a project
# whose link options have no offload flags.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
CLANG=$LLVM22/clang
RTLIB=/usr/lib/llvm-22/lib
need cmake make ninja "$CLANG"
[ -e "$RTLIB/libomptarget.so" ] ||
	{ [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "$RTLIB/libomptarget.so missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }

# nothing of the build tree on the way: the installed tools must do it all
installed_prefix
echo "vec_add: sum 1498500 on the device" >expected
cp -r "$OFL_SRC/docs/examples/src" src

# project NAME TARGETS LINK-OPTIONS
project() {
	cmake_consumer "$1" "$2" "set(OFFLOAD -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
add_executable(prog \${CMAKE_CURRENT_SOURCE_DIR}/../src/main.c \${CMAKE_CURRENT_SOURCE_DIR}/../src/kern.c)
target_compile_options(prog PRIVATE \${OFFLOAD})
target_link_options(prog PRIVATE $3 -L$RTLIB)"
}

# build NAME GENERATOR: configure with only the prefix, build, count the
# links, run
build() {
	local b=$1/build-${2// /}
	rm -f device-links host-links
	CC=$CLANG cmake -S "$1" -B "$b" -G "$2" -DCMAKE_PREFIX_PATH="$P" >"$b.log" 2>&1 ||
		{ cat "$b.log"; fail "$1 $2: configure"; }
	cmake --build "$b" --verbose >"$b.out" 2>"$b.err" || { cat "$b.out" "$b.err"; fail "$1 $2: build"; }
	[ ! -s "$b.err" ] || { cat "$b.err"; fail "$1 $2: the build printed messages"; }
	grep -q -- "-B$P/bin -B$P/libexec/offlink/compat -fuse-ld=offlink" "$b.out" ||
		{ cat "$b.out"; fail "$1 $2: no offlink::link flags on the link line"; }
	[ "$(wc -l <device-links)" -eq 1 ] || { cat device-links; fail "$1 $2: not one device link by offlink"; }
	[ "$(wc -l <host-links)" -eq 1 ] || { cat host-links; fail "$1 $2: not one host link"; }
	LD_LIBRARY_PATH=$RTLIB "$b/prog" >run.out 2>run.err || { cat run.err; fail "$1 $2: prog exited with $?"; }
	diff -u expected run.out || fail "$1 $2: prog printed the wrong line"
}

project link offlink::link '${OFFLOAD}'
project both "offlink::link offlink::compat" '${OFFLOAD}'
project plain offlink::link -fopenmp
for g in "Unix Makefiles" Ninja; do
	build link "$g"
	grep -q -- "-fopenmp-targets=x86_64-pc-linux-gnu.*-fuse-ld=offlink" "link/build-${g// /}.out" ||
		fail "link $g: the link line has no offload flags"
	build both "$g"
	build plain "$g"
done
echo ok
