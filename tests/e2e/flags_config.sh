#!/usr/bin/env bash
# Builds that change nothing but the compiler, from an installed prefix:
# a Makefile with its own LDFLAGS (-lm, for ceil), as real HPC Makefiles
# have, built with make CC="clang-N --config=$(offlink --config-file)"
# alone (clang 22 and 19: its link line keeps the offload flags, so
# offlink's clang-linker-wrapper links), and with plain make CC=clang-N
# where N is a copy of clang that offlink enable was run on (a link line
# with -fopenmp only: ld.offlink links, and the device links, given that
# enabled clang, read no config: --no-default-config).  Each: offlink did
# the one device link (the launcher's log), one host link with the
# Makefile's -lm, -Werror compiles and the link print nothing, the program
# runs its kernels on the device.  make LDFLAGS="$(offlink --ldflags)"
# loses the Makefile's -lm: that way fails.  CMake: CC="clang-22
# --config=...", CMAKE_C_FLAGS, and docs/integration.md's toolchain file as
# written there, for a C project and a C++ one (which a toolchain file
# setting the C compiler alone sends to g++ with clang's --config=); an
# enabled clang under CMAKE_C_COMPILER_TARGET (x86_64-linux-gnu,
# x86_64-unknown-linux-gnu).
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need make cmake ninja "$LLVM22/clang" "$LLVM19/clang"
[ -e /usr/lib/llvm-22/lib/libomptarget.so ] ||
	{ [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget 22 missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }
need_libomp19

installed_prefix
cfg=$("$P/bin/offlink" --config-file) || fail "offlink --config-file"
[ "$cfg" = "$P/share/offlink/offlink.cfg" ] || fail "--config-file: $cfg"
# (folders named from the file's own, <CFGDIR>: flags_config_moved.sh)
[ "$(grep -v '^#' "$cfg" | sed "s|^-B<CFGDIR>/../..|-B$(realpath "$P")|" | tr '\n' ' ' | sed 's/ $//')" = "$("$P/bin/offlink" --ldflags)" ] ||
	{ cat "$cfg"; fail "offlink.cfg does not hold offlink --ldflags's flags"; }

cp "$OFL_SRC/docs/examples/src/kern.c" .
cat >main.c <<'EOF'
#include <math.h>
#include <stdio.h>

void vec_add(int n, const int *a, const int *b, int *c);
int runs_on_device(void);

int main(int argc, char **argv)
{
	enum { N = 1000 };
	static int a[N], b[N], c[N];
	(void)argv;
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	vec_add(N, a, b, c);
	long sum = 0;
	for (int i = 0; i < N; i++)
		sum += c[i];
	printf("vec_add: sum %ld on the %s, ceil %g\n", sum, runs_on_device() ? "device" : "host",
	       ceil(argc + 0.5));
	return 0;
}
EOF
echo "vec_add: sum 1498500 on the device, ceil 2" >expected
cat >Makefile <<'EOF'
# a Makefile of its own, nothing of offlink in it
CFLAGS = -O2 -Wall -Werror -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $(OMP_CFLAGS)
LDFLAGS = -lm -L$(RTLIB)
LINKFLAGS = $(CFLAGS)

prog: main.o kern.o
	$(CC) $(LINKFLAGS) $(LDFLAGS) $^ -o $@
EOF

# counts WHAT: one device link and one host link (the program's, with the
# Makefile's -lm) since the logs were cleared, and the program runs
counts() {
	touch device-links host-links # (none: no link logged)
	[ "$(wc -l <device-links)" -eq 1 ] || { cat device-links; fail "$1: not one device link by offlink"; }
	[ "$(wc -l <host-links)" -eq 1 ] || { cat host-links; fail "$1: not one host link"; }
	grep -q -- "-lm .*-o prog \|-o prog .*-lm " host-links || { cat host-links; fail "$1: the Makefile's -lm is lost"; }
	LD_LIBRARY_PATH=$RTLIB ./prog >run.out 2>run.err || { cat run.err; fail "$1: prog exited with $?"; }
	diff -u expected run.out || fail "$1: prog printed the wrong line"
}

# build WHAT MAKE-ARGS...: a clean make, quiet, then counts
build() {
	local what=$1
	shift
	rm -f ./*.o prog device-links host-links
	make "$@" RTLIB="$RTLIB" OMP_CFLAGS="$OMP_CFLAGS" >make.out 2>make.err ||
		{ cat make.out make.err; fail "$what: make"; }
	[ ! -s make.err ] || { cat make.err; fail "$what: the build printed messages"; }
	counts "$what"
}

for v in 22 19; do
	RTLIB=/usr/lib/llvm-22/lib OMP_CFLAGS=
	if [ $v = 19 ]; then
		RTLIB=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
		OMP_CFLAGS="-isystem $RTLIB/clang/19/include"
	fi
	clang=$(eval echo "\$LLVM$v")/clang
	build "$v CC=--config" CC="$clang --config=$cfg"
	grep -q -- "--config=$cfg .*-fopenmp-targets=.* -lm .*-o prog" make.out || { cat make.out; fail "$v: the link line"; }

	# a copy of clang with offlink enable run on it: the Makefile as it is
	# (LLVM's offload tools beside it, as in its install)
	mkdir -p "c$v/bin"
	cp -L "$clang" "c$v/bin/clang"
	ln -sf "$(dirname "$(dirname "$clang")")/lib" "c$v/lib"
	ln -sf clang "c$v/bin/clang-$v"
	for t in llvm-offload-binary clang-offload-packager clang-linker-wrapper ld.lld; do
		[ ! -e "$(dirname "$clang")/$t" ] || ln -sf "$(dirname "$clang")/$t" "c$v/bin/$t"
	done
	"$P/bin/offlink" enable "$PWD/c$v/bin/clang" >enable.out || fail "$v: enable"
	build "$v enabled" CC="$PWD/c$v/bin/clang-$v" LINKFLAGS="-O2 -fopenmp -Wl,--device-compiler=$PWD/c$v/bin/clang"
	grep -q "^$PWD/c$v/bin/clang --no-default-config " device-links ||
		{ cat device-links; fail "$v enabled: the device link did not run the enabled clang with --no-default-config"; }
	"$P/bin/offlink" disable "$PWD/c$v/bin/clang" >/dev/null || fail "$v: disable"
done

# the way the docs gave before: the Makefile's LDFLAGS replaced, ceil lost
RTLIB=/usr/lib/llvm-22/lib OMP_CFLAGS=
rm -f ./*.o prog
make CC="$LLVM22/clang" LDFLAGS="$("$P/bin/offlink" --ldflags)" >make.out 2>make.err &&
	fail "make LDFLAGS=... kept the Makefile's -lm?"
grep -q "undefined reference to .*ceil" make.err || { cat make.err; fail "make LDFLAGS=...: not the ceil error"; }

# CMake: projects of their own, their link options with -lm; cm in C,
# cmcxx in C++ (the same sources)
# cmake_project DIR LANG EXT
cmake_project() {
	mkdir "$1"
	cp main.c "$1/main.$3"
	cp kern.c "$1/kern.$3"
	cat >"$1/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(p $2)
add_executable(prog main.$3 kern.$3)
target_compile_options(prog PRIVATE -Wall -Werror -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
target_link_options(prog PRIVATE -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -L$RTLIB)
target_link_libraries(prog PRIVATE m)
EOF
}
cmake_project cm C c
cmake_project cmcxx CXX cpp
# the toolchain file as docs/integration.md has it
sed -n '/^# offlink.cmake: /,/^```$/p' "$OFL_SRC/docs/integration.md" | sed '$d' >toolchain.cmake
grep -q CMAKE_C_FLAGS_INIT toolchain.cmake || { cat toolchain.cmake; fail "no toolchain file in docs/integration.md"; }
# cmake_build WHAT GENERATOR [CMAKE-ARGS...]: configure the project $SRC
# (default cm), build, counts (the build's links only)
cmake_build() {
	local what=$1 g=$2 b=${SRC:-cm}/build
	shift 2
	rm -rf "$b" prog
	cmake -S "${SRC:-cm}" -B "$b" -G "$g" "$@" >cmake.log 2>&1 || { cat cmake.log; fail "$what: configure"; }
	# (CMake's compiler checks linked through ld.offlink too)
	rm -f device-links host-links
	cmake --build "$b" --verbose >build.out 2>build.err || { cat build.out build.err; fail "$what: build"; }
	[ ! -s build.err ] || { cat build.err; fail "$what: the build printed messages"; }
	cp "$b/prog" prog
	counts "$what"
}
CC="$LLVM22/clang --config=$cfg" cmake_build "CC=--config, Ninja" Ninja
CC="$LLVM22/clang --config=$cfg" cmake_build "CC=--config, Make" "Unix Makefiles"
cmake_build "CMAKE_C_FLAGS" Ninja -DCMAKE_C_COMPILER="$LLVM22/clang" -DCMAKE_C_FLAGS="--config=$cfg"
PATH=$P/bin:$PATH cmake_build "toolchain file" Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchain.cmake"
PATH=$P/bin:$PATH SRC=cmcxx cmake_build "toolchain file, C++" Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/toolchain.cmake"
grep -q "clang++-22 --config=$cfg .*-o prog" build.out || { cat build.out; fail "C++: not linked by clang++ with the config file"; }
# an enabled clang given the target as CMake's CMAKE_C_COMPILER_TARGET
# does (--target= on every line, spelt as the build likes): it reads the
# files enable wrote for that spelling
"$P/bin/offlink" enable "$PWD/c22/bin/clang" >enable.out || fail "enable"
for t in x86_64-linux-gnu x86_64-unknown-linux-gnu; do
	cmake_build "CMAKE_C_COMPILER_TARGET=$t" Ninja -DCMAKE_C_COMPILER="$PWD/c22/bin/clang-22" -DCMAKE_C_COMPILER_TARGET=$t
	grep -q -- "--target=$t .*-o prog" build.out || { cat build.out; fail "$t: no --target= on the link line"; }
done
"$P/bin/offlink" disable "$PWD/c22/bin/clang" >/dev/null || fail "disable"
echo ok
