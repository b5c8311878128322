# Shared helpers for the shell tests (cli/, interop/, e2e/).  Each test runs
# in its own scratch directory; exit 77 means "skipped" to ctest.
set -euo pipefail

: "${OFFLINK:?OFFLINK must point at build/bin/offlink}"
: "${OFL_COMPAT:?OFL_COMPAT must point at build/bin/compat}"
: "${OFL_SRC:?OFL_SRC must point at the source tree}"
LLVM19=${LLVM19:-/usr/lib/llvm-19/bin}
LLVM22=${LLVM22:-/usr/lib/llvm-22/bin}

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ofl-test-XXXXXX")
# background jobs a test leaves (a failing test does) are stopped: they would
# hold ctest's pipes open, and ctest would wait for them until its timeout
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"
# each test its own device-link cache: none is shared with the user's or
# another test's (a test that checks the cache sets its own)
export OFFLINK_CACHE_DIR=$SCRATCH/device-cache
unset OFFLINK_CACHE OFFLINK_CACHE_REMOTE OFFLINK_CACHE_MAX_SIZE

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "skipped: $*"
	exit 77
}

# A missing external tool skips the test on a developer machine but fails in
# CI, where scripts/bootstrap installs everything: an interop test must never
# pass silently without the tool it checks against.
need() {
	local t
	for t in "$@"; do
		if [ ! -x "$t" ] && ! command -v "$t" >/dev/null 2>&1; then
			if [ -n "${CI:-}" ] || [ -n "${OFL_REQUIRE_TOOLS:-}" ]; then
				fail "required tool '$t' is missing"
			fi
			skip "'$t' not installed"
		fi
	done
}

# resolved_flags WORDS...: the words with each -B folder resolved (the
# pkg-config module names its folders from its own place, <pc>/../../bin)
resolved_flags() {
	local w out=
	for w in "$@"; do
		case $w in -B*) w=-B$(realpath "${w#-B}")$([ "${w%/}" != "$w" ] && echo /) ;; esac
		out+="$w "
	done
	echo "${out% }"
}

# need_libomp19: RTLIB, LLVM 19's OpenMP offload libraries with its NVPTX
# device runtime (scripts/bootstrap unpacks them: libomp-19-dev conflicts
# with 22's); missing, the test fails in CI and is skipped elsewhere
need_libomp19() {
	RTLIB=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
	if [ ! -e "$RTLIB/libomptarget.devicertl.a" ]; then
		[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "$RTLIB/libomptarget.devicertl.a missing"
		skip "$RTLIB/libomptarget.devicertl.a missing (run scripts/bootstrap)"
	fi
}

# expect_fail CMD...: the command must exit non-zero; its stderr is kept in
# $SCRATCH/err for inspection.
expect_fail() {
	if "$@" 2>"$SCRATCH/err" >"$SCRATCH/out"; then
		fail "expected failure: $*"
	fi
}

# Checks that stderr holds exactly one line and that it matches a pattern.
expect_err_line() {
	local pat=$1
	[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "expected one error line"; }
	grep -Eq -- "$pat" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "error does not match '$pat'"; }
}

same() {
	cmp "$1" "$2" || fail "$1 and $2 differ"
}

# same_as_llvm LLVM OURS ARGS...: runs ./LLVM (a link to LLVM's tool) and
# ./OURS (a link to offlink named for the personality) with the same
# arguments: same exit status, stdout and stderr, program names aside.
same_as_llvm() {
	local llvm=$1 ours=$2 lrc=0 orc=0
	shift 2
	"./$llvm" "$@" >l.out 2>l.err || lrc=$?
	"./$ours" "$@" >o.out 2>o.err || orc=$?
	sed -i "s|^[^ ]*$llvm:|PROG:|" l.err
	sed -i "s|^[^ ]*$ours:|PROG:|" o.err
	[ "$lrc" = "$orc" ] || fail "exit $orc, LLVM $lrc: $*"
	cmp -s l.err o.err || { diff l.err o.err >&2; fail "stderr differs: $*"; }
	cmp -s l.out o.out || fail "stdout differs: $*"
}

# Deterministic pseudo-random bytes: randbytes SEED SIZE > file
randbytes() {
	python3 -c 'import random,sys; r=random.Random(int(sys.argv[1])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[2])))' "$1" "$2"
}

# plink CMD...: runs a link that loads the build's linker plugin.  A
# sanitizer build's plugin needs its runtime loaded first in the linker
# (ld.bfd and gold are not instrumented): preloaded, leak checks off (the
# linkers' own allocations are not ours).
plink() {
	local plugin=$OFL_BUILD/lib/offlink-plugin.so
	if [[ "$(ldd "$plugin")" == *libasan* ]]; then
		LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
			ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "$@"
	else
		"$@"
	fi
}

# installed_prefix: installs the build into $SCRATCH/prefix ($P), as users
# do, and sets the tests up to see every link: a device launcher logging
# each device link offlink runs to device-links, a host linker (ld) logging
# each host link to host-links; PATH without the build tree, no cache
installed_prefix() {
	P=$SCRATCH/prefix
	cmake --install "$OFL_BUILD" --prefix "$P" >install.log || { cat install.log; fail "cmake --install"; }
	export PATH=/usr/local/bin:/usr/bin:/bin OMP_TARGET_OFFLOAD=MANDATORY OFFLINK_CACHE=0
	export OFFLINK_DEVICE_LAUNCHER=$SCRATCH/launch OFFLINK_LINKER=$SCRATCH/host-ld
	unset OFFLINK_NO_BYPASS_WARNING
	printf '#!/bin/sh\necho "$*" >>%s/device-links\nexec "$@"\n' "$SCRATCH" >launch
	printf '#!/bin/sh\necho "$*" >>%s/host-links\nexec /usr/bin/ld "$@"\n' "$SCRATCH" >host-ld
	chmod +x launch host-ld
}

# cmake_consumer NAME TARGETS BODY: NAME/CMakeLists.txt, a C project that
# finds the installed offlink (find_package(offlink 0.1 REQUIRED)), makes
# prog as BODY (CMake) says and links it against TARGETS
cmake_consumer() {
	mkdir "$1"
	cat >"$1/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project($1 LANGUAGES C)
find_package(offlink 0.1 REQUIRED)
$3
target_link_libraries(prog PRIVATE $2)
EOF
}

# counted_omp_program: main.o and kern.o of the OpenMP example for the
# x86_64 host device (clang 22; $SRC, $RT, the program's environment), a
# device launcher ./launch counting the device links that run, and ran,
# which prints that count
counted_omp_program() {
	SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
	RT=/usr/lib/llvm-22/lib
	export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT
	local f
	for f in main kern; do
		"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$SRC/$f.c" -o $f.o ||
			fail "compile $f"
	done
	printf '#!/bin/sh\necho run >>%s/ran\nexec "$@"\n' "$PWD" >launch
	chmod +x launch
}
ran() { [ -e ran ] && wc -l <ran || echo 0; }

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx PORT [LOCATIONS]: a real nginx on 127.0.0.1:PORT serving
# ngx/www with WebDAV PUT (a remote cache), LOCATIONS (nginx location
# blocks) added to its server; $NGINX is its pid, stopped when the test ends
start_nginx() {
	mkdir -p ngx/www ngx/tmp
	cat >ngx/nginx.conf <<NGX
worker_processes 1;
daemon off;
error_log $PWD/ngx/error.log;
pid $PWD/ngx/nginx.pid;
events {}
http {
	access_log $PWD/ngx/access.log;
	client_body_temp_path $PWD/ngx/tmp;
	server {
		listen 127.0.0.1:$1;
		root $PWD/ngx/www;
		client_max_body_size 0;
		location / {
			dav_methods PUT;
			create_full_put_path on;
		}
${2:-}
	}
}
NGX
	[ "$(id -u)" = 0 ] && sed -i 's/^worker_processes 1;/worker_processes 1;\nuser root root;/' ngx/nginx.conf
	nginx -c "$PWD/ngx/nginx.conf" -p "$PWD/ngx" 2>ngx/start.err &
	NGINX=$!
	trap 'kill $NGINX $(jobs -p) 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT
	for _ in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$1/" && break
		sleep 0.1
	done
}

# cache_entries DIR / cache_memos DIR: a device-link cache's entries (the
# images), and its memos (<key>.i: what clang's driver runs, large inputs'
# hashes), oldest first
cache_entries() { ls -tr "$1"/v1/??/* 2>/dev/null | grep -v '\.i$' || true; }
cache_memos() { ls -tr "$1"/v1/??/*.i 2>/dev/null || true; }

# clang_without_lld DIR: a clang 22 of its own at DIR/bin/clang with no
# ld.lld beside it (a copy of the binary, RUNPATH $ORIGIN/../lib), so its
# CPU device links use gold.
clang_without_lld() {
	local real l
	real=$(readlink -f "$LLVM22/clang")
	mkdir -p "$1/bin" "$1/lib"
	cp "$real" "$1/bin/clang"
	ln -s "$(dirname "$real")/../lib/clang" "$1/lib/clang"
	for l in $(ldd "$LLVM22/clang" | awk '$1 ~ /^lib(LLVM|clang-cpp)/ { print $3 }'); do
		ln -s "$l" "$1/lib/"
	done
}

# standin_llvm22 DIR TRIPLE...: a stand-in LLVM 22 install at DIR
# (bin/clang, LLVM 22's) whose lib/<triple>/libompdevice.a is a stand-in
# device runtime for each triple (Debian ships none for GPUs)
standin_llvm22() {
	local dir=$1 t
	shift
	mkdir -p "$dir/bin"
	ln -sf "$LLVM22/clang" "$dir/bin/clang"
	printf '%s\n' 'int __kmpc_target_init(void *env, void *launch_env) { return -1; }' \
		'void __kmpc_target_deinit(void) {}' >"$dir/rt.c"
	for t in "$@"; do
		mkdir -p "$dir/lib/$t"
		"$LLVM22/clang" --target=$t -nogpulib -flto -c "$dir/rt.c" -o "$dir/rt-$t.o" ||
			fail "stand-in device runtime for $t"
		"$LLVM22/llvm-ar" rcs "$dir/lib/$t/libompdevice.a" "$dir/rt-$t.o" ||
			fail "libompdevice.a for $t"
	done
}

# hip_runtime_standin: libamdhip64.so here, which HIP links name (a
# stand-in: no HIP runtime is installed)
hip_runtime_standin() {
	echo 'void ofl_hip_stand_in(void) {}' >hip_stand_in.c
	cc -shared -fPIC hip_stand_in.c -o libamdhip64.so || fail "libamdhip64 stand-in"
}

# hip_rdc_kernel CLANG: an old-driver HIP program's parts, CLANG's: k.o, a
# gfx90a -fgpu-rdc kernel (tests/e2e/opt_src/kern_o0.cu), stub.o, its host
# caller, and the runtime's stand-in (link: stub.o k.o -L. -rdynamic -ldl)
hip_rdc_kernel() {
	cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
	hip_runtime_standin
	"$1" -O2 -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a -fPIC \
		-c "$OFL_SRC/tests/e2e/opt_src/kern_o0.cu" -o k.o || fail "$1 -x hip"
}

# hip_link NAME CMD...: NAME/prog linked by CMD, its images in NAME/img
# (a gfx90a one among them)
hip_link() {
	local name=$1
	shift
	mkdir $name
	"$@" -o $name/prog 2>$name.err || { cat $name.err; fail "$name: link"; }
	(cd $name && "$OFFLINK" inspect --extract-all=img prog >/dev/null) || fail "$name: inspect"
	ls $name/img | grep -q gfx90a || fail "$name: no gfx90a image"
}

# stub_gpu_objects: device objects of tests/interop/wrap_stub_src, whose
# stub runtime logs registration (no GPU needed): stub.o, the HIP
# runtime's stand-in, OpenMP gfx90a by clang 22 (amd22.o) and 19
# (amd19.o), new-driver HIP gfx90a -fgpu-rdc (hip.o); with CUDA, nv19.o
# (OpenMP sm_90, clang 19) and cuda.o (CUDA sm_90 -fgpu-rdc, clang 22)
stub_gpu_objects() {
	local stub=$OFL_SRC/tests/interop/wrap_stub_src
	cc -O1 -fPIC -c "$stub/stub.c" -o stub.o || fail "compile stub"
	hip_runtime_standin
	"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$stub/omp.c" -o amd22.o ||
		fail "compile for gfx90a (22)"
	"$LLVM19/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$stub/omp.c" -o amd19.o ||
		fail "compile for gfx90a (19)"
	"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
		-fPIC -c "$stub/gpu.cu" -o hip.o || fail "clang -x hip"
	[ -n "${HAVE_CUDA:-}" ] || return 0
	"$LLVM19/clang" -fopenmp --offload-arch=sm_90 -nogpulib -fPIC -c "$stub/omp.c" -o nv19.o ||
		fail "compile for sm_90 (19)"
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_90 \
		-fPIC -c "$stub/gpu.cu" -o cuda.o 2>/dev/null || fail "clang -x cuda"
}

# settle: files made before it have settled for the device-link cache
# (their last change 2 s ago: keyed by identity, not content)
settle() { sleep 2.1; }

# archive_omp_objects DIR CLANG [CFLAGS...]: an OpenMP program for the
# x86_64 host device whose target regions lie in an archive's and a thin
# archive's members, compiled by CLANG into DIR: DIR/amain.o, liba.a
# (regular), libt.a (thin), libs.so (a linker script: INPUT(-lt)); the
# sources in ./, and ./cpu.expected what it prints (link: -LDIR -la -ls)
archive_omp_objects() {
	local dir=$1 cc=$2 f
	shift 2
	printf '%s\n' '#include <stdio.h>' 'int from_archive(int x);' 'int from_thin(int x);' \
		'int main(void)' '{' '	printf("%d %d\n", from_archive(1), from_thin(2));' \
		'	return 0;' '}' >amain.c
	for f in archive thin; do
		printf '%s\n' '#include <omp.h>' "int from_$f(int x)" '{' '	int r = 0;' \
			'#pragma omp target map(from : r) map(to : x)' \
			"	r = x + ${#f} + (omp_is_initial_device() ? 1000 : 0);" '	return r;' '}' >a$f.c
	done
	printf '8 6\n' >cpu.expected
	mkdir -p $dir
	for f in main archive thin; do
		"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fPIC "$@" -c a$f.c -o $dir/a$f.o ||
			fail "$dir: compile a$f.c"
	done
	(cd $dir && "$LLVM22/llvm-ar" rcs liba.a aarchive.o && "$LLVM22/llvm-ar" rcs --thin libt.a athin.o &&
		printf 'INPUT(-lt)\n' >libs.so) || fail "$dir: archives"
}

# flipped_copy FILE COPY OLD NEW: COPY, FILE's bytes with the first OLD in
# them made NEW (as long: a tool or library that still works, with one
# byte changed); COPY gets FILE's mode
flipped_copy() {
	python3 - "$@" <<'EOF' || fail "flipped_copy $*"
import sys
b = open(sys.argv[1], "rb").read()
old, new = sys.argv[3].encode(), sys.argv[4].encode()
assert len(old) == len(new) and old in b, sys.argv[1:]
open(sys.argv[2], "wb").write(b.replace(old, new, 1))
EOF
	chmod --reference="$1" "$2"
}

# in_namespace VAR... -- SCRIPT: SCRIPT run by bash in a mount namespace of
# its own (unshare -m, as root: what it mounts is its alone), with this
# shell's functions and the variables named (a variable it sets comes back
# only through a file)
in_namespace() {
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	{
		declare -f
		declare -p "${vars[@]}"
	} >"$SCRATCH/namespace.sh"
	unshare -m bash -c "set -euo pipefail; source '$SCRATCH/namespace.sh'; $2"
}
# has_namespaces: in_namespace can run here (else the test fails in CI,
# and says so elsewhere)
has_namespaces() {
	[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && return
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "no mount namespace (unshare -m, as root)"
	return 1
}

# Cases of the device-link cache (link_cache_defects.sh, link_cache_review.sh):
# links of OBJS through ld.offlink with the counting launcher (./launch,
# counted_omp_program).
# counted_link OUT ARGS...: a link and OUT.explain (./ran: the device links run);
# --no-device-cache in ARGS: uncached; it must finish within a minute
counted_link() {
	local out=$1
	shift
	rm -f ran
	timeout -k 5 60 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" "${OBJS[@]}" \
		-Wl,--device-launcher="$PWD/launch" -Wl,--explain="$PWD/$out.explain" "$@" -o "$out" \
		2>"$out.err" || { cat "$out.err" >&2; fail "link $out"; }
}
# counted_uncached OUT ARGS...
counted_uncached() { counted_link "$@" -Wl,--no-device-cache; }
# stale CASE NAME MUTATION ARGS...: fill the cache (a miss, or a hit of an
# earlier case's entry), mutate, relink cached (NAME.1) and uncached
# (NAME.2): the same bytes, else CASE failed; the mutation must change the
# image (NAME.0 against NAME.2)
stale() {
	local case=$1 name=$2 mutation=$3
	shift 3
	counted_link $name.0 "$@"
	eval "$mutation"
	counted_link $name.1 "$@"
	counted_uncached $name.2 "$@"
	cmp -s $name.0 $name.2 && fail "$name: the change did not reach the image (the case tests nothing)"
	cmp -s $name.1 $name.2 ||
		failed_case "$case" "$name: a stale hit: the cached relink ($(state $name.1)) differs from an uncached link"
}
# state OUT: what OUT.explain says of the cache (for messages)
state() { grep -o 'cache hit\|cache miss\|not cached.*' "$1.explain" | head -1; }
# not_cached_said OUT: the explain names a device action not cached, why
not_cached_said() { grep -q '^  not cached: ..*' "$1.explain"; }

# Failures collected, each said at once, the test failing at the end
# (check_all WHAT): every case runs even after one fails.
FAILED=()
failed_case() {
	echo "FAIL: $1: $2" >&2
	FAILED+=("$1")
}
check_all() { [ ${#FAILED[@]} = 0 ] || fail "$1: ${FAILED[*]}"; }

# Host-offload OpenMP programs that say whose device code was linked
# (e2e/link_script*.sh).  kern_value NAME VALUE: NAME.o, whose kernel k()
# computes VALUE on the device; kern_main: main.o, which prints k()'s
# result; run_k NAME EXPECTED ARGS...: ${MAIN:-main.o} and ARGS linked by
# clang 22 -fopenmp, run with the environment's OMP_TARGET_OFFLOAD, must
# print k=EXPECTED.
kern_value() {
	sed "s/VALUE/$2/" >$1.c <<'C'
#include <omp.h>
int k(void)
{
	int r = 0;
#pragma omp target map(from : r)
	r = omp_is_initial_device() ? -1 : VALUE;
	return r;
}
C
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c $1.c -o $1.o ||
		fail "compile $1"
}
# kern_setup: the linker-script tests' surroundings: RT (LLVM 22's
# runtime), PLUGIN, OMP (the compile's offload flags), programs run with
# offloading mandatory and uncached links; main.o (kern_main)
kern_setup() {
	RT=/usr/lib/llvm-22/lib
	PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
	OMP=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
	export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT OFFLINK_CACHE=0
	kern_main
}
kern_main() {
	printf '#include <stdio.h>\nint k(void);\nint main(void) { printf("k=%%d\\n", k()); return 0; }\n' >main.c
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c main.c ||
		fail "compile main.c"
}
run_k() {
	local name=$1 want=$2
	shift 2
	plink "$LLVM22/clang" -fopenmp ${MAIN:-main.o} "$@" -L/usr/lib/llvm-22/lib -o $name \
		>$name.log 2>&1 || { cat $name.log; fail "$name: link"; }
	./$name >$name.out 2>$name.err || { cat $name.err; fail "$name: the program failed"; }
	[ "$(cat $name.out)" = "k=$want" ] || fail "$name: printed $(cat $name.out), not k=$want"
}
