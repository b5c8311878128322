#!/usr/bin/env bash
# The GNU linker plugin end to end: OpenMP programs compiled by clang 19 and
# 22 for the x86_64 offload device, linked by gcc and clang with ld.bfd and
# gold loading offlink-plugin.so, run with OMP_TARGET_OFFLOAD=MANDATORY and
# checked against what clang's own pipeline prints.  Also: archive members
# only when the linker pulls them, a shared library, a link without device
# code (the same bytes as without the plugin, nothing written), a corrupt
# blob and a failing device link (fatal messages, no output, no temps).
source "$OFL_SRC/tests/lib.sh"
need gcc ld.bfd ld.gold "$LLVM22/clang" "$LLVM19/clang" ar cmp
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
[ -f "$PLUGIN" ] || fail "$PLUGIN not built"
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
export OMP_TARGET_OFFLOAD=MANDATORY
mkdir tmp
export TMPDIR=$PWD/tmp

# only onload is exported
[ "$(nm -D --defined-only "$PLUGIN" | awk '{print $3}')" = onload ] ||
	{ nm -D --defined-only "$PLUGIN"; fail "the plugin exports more than onload"; }
# offlink --ldflags names the plugin for bfd and gold, never for lld
[ "$("$OFFLINK" --ldflags --plugin --linker=gold)" = "-fuse-ld=gold -Wl,-plugin,$(realpath "$PLUGIN")" ] ||
	fail "--ldflags --plugin"
expect_fail "$OFFLINK" --ldflags --plugin --linker=lld
grep -q "use ld.offlink" err || fail "--ldflags --plugin --linker=lld"

# A sanitizer build's plugin runs with its runtime preloaded (plink,
# tests/lib.sh); valgrind then is left to the Release run.  Pipelines into
# `grep -q` are avoided here: under pipefail the writer's SIGPIPE fails
# them at random.
ASAN_PRELOAD=
[[ "$(ldd "$PLUGIN")" == *libasan* ]] && ASAN_PRELOAD=1

run_check() { # PROG EXPECTED
	"./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$2" "$1.out" || fail "$1 printed wrong results"
}
no_temps() {
	[ -z "$(ls tmp)" ] || { ls -R tmp; fail "temporaries left: $1"; }
}

for v in 22 19; do
	CLANG=$(eval echo \$LLVM$v)/clang
	RT=/usr/lib/llvm-22/lib CF=()
	# LLVM 19's runtime, unpacked beside the system by scripts/bootstrap;
	# the plugin finds it through the link's own -L, as ld.offlink does
	[ $v = 19 ] && RT=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib} &&
		CF=(-isystem "${RT%/lib}/lib/clang/19/include")
	export LD_LIBRARY_PATH=$RT:$PWD
	for f in main kern lib; do
		"$CLANG" -fopenmp -fopenmp-targets=$T -fPIC -O1 "${CF[@]}" -c "$SRC/$f.c" -o $f$v.o ||
			fail "compile $f with clang-$v"
	done
	"$CLANG" -fopenmp -fopenmp-targets=$T -fPIC -O1 "${CF[@]}" -DWITH_LIB -c "$SRC/main.c" -o mainl$v.o
	for ld in bfd gold; do
		p=p${v}_$ld
		plink gcc -fuse-ld=$ld main$v.o kern$v.o -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" -o $p ||
			fail "gcc + $ld + plugin (clang $v objects)"
		run_check $p "$SRC/expected.txt"
		# a static library, pulled by the host link only
		rm -f libk$v.a && ar rcs libk$v.a kern$v.o lib$v.o
		plink gcc -fuse-ld=$ld main$v.o -L. -lk$v -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" \
			-Wl,-plugin-opt,explain="$PWD/$p.explain" -o ${p}_lib || fail "library with $ld"
		run_check ${p}_lib "$SRC/expected.txt"
		grep -Eq "libk$v.a\(kern$v.o\): device code taken" $p.explain &&
			[ "$(grep -c 'device code taken' $p.explain)" = 2 ] ||
			{ cat $p.explain; fail "the plugin did not take exactly main and kern ($ld)"; }
		# -u pulls a member: taken by the plugin and ld.offlink alike,
		# for the symbol (the replay knows -u; the linker's hint agrees)
		plink gcc -fuse-ld=$ld main$v.o -Wl,-u,lib_compute -L. -lk$v -L"$RT" -lomp \
			-Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,explain="$PWD/$p.uexplain" -o ${p}_u ||
			fail "-u with $ld"
		run_check ${p}_u "$SRC/expected.txt"
		gcc main$v.o -Wl,-u,lib_compute -L. -lk$v -L"$RT" -lomp -B"$OFL_BUILD/libexec/offlink/gcc" \
			-Wl,--explain="$PWD/$p.ldu" -o ${p}_ldu || fail "-u with ld.offlink"
		grep -q "libk$v.a(lib$v.o): device code taken: the host link pulls it for 'lib_compute'" \
			$p.uexplain || { cat $p.uexplain; fail "-u: lib$v.o not taken for lib_compute ($ld)"; }
		diff <(grep 'device code' $p.ldu) <(grep 'device code' $p.uexplain) ||
			fail "-u: the plugin and ld.offlink differ ($ld)"
		# a thin archive: the linker offers a member as its own file,
		# which is the archive's member, not one more input
		rm -f libkt$v.a && ar rcsT libkt$v.a kern$v.o lib$v.o
		plink gcc -fuse-ld=$ld main$v.o -L. -lkt$v -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" \
			-Wl,-plugin-opt,explain="$PWD/$p.texplain" -o ${p}_thin || fail "thin library with $ld"
		run_check ${p}_thin "$SRC/expected.txt"
		[ "$(grep -c 'device code taken' $p.texplain)" = 2 ] ||
			{ cat $p.texplain; fail "thin archive: not exactly main and kern ($ld)"; }
		# --whole-archive: the linker offers every member
		plink gcc -fuse-ld=$ld main$v.o -Wl,--whole-archive libk$v.a -Wl,--no-whole-archive \
			-L"$RT" -lomp -Wl,-plugin,"$PLUGIN" \
			-Wl,-plugin-opt,explain="$PWD/$p.wexplain" -o ${p}_whole ||
			fail "--whole-archive with $ld"
		run_check ${p}_whole "$SRC/expected.txt"
		[ "$(grep -c 'device code taken' $p.wexplain)" = 3 ] ||
			{ cat $p.wexplain; fail "--whole-archive: not every member taken ($ld)"; }
		# objects merged by ld -r first (two images in one section)
		ld -r main$v.o kern$v.o -o rel$v.o || fail "ld -r"
		plink gcc -fuse-ld=$ld rel$v.o -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" \
			-o ${p}_rel || fail "ld -r object with $ld"
		run_check ${p}_rel "$SRC/expected.txt"
		# a shared library with its own device code
		plink gcc -fuse-ld=$ld -shared lib$v.o -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" -o libol$v.so ||
			fail "shared library with $ld"
		plink gcc -fuse-ld=$ld mainl$v.o kern$v.o -L. -lol$v -L"$RT" -lomp \
			-Wl,-plugin,"$PLUGIN" -o ${p}_so || fail "program with a shared library ($ld)"
		run_check ${p}_so "$SRC/expected_lib.txt"
		no_temps "$ld, clang $v"
	done
	# C++ whose device code needs the C++ runtime (operator new, vtables,
	# exceptions): the CPU device link takes the host link's -lstdc++
	"$CLANG++" -fopenmp -fopenmp-targets=$T -fPIC -O1 "${CF[@]}" \
		-c "$OFL_SRC/tests/e2e/link_src/cxx_runtime.cpp" -o cxx$v.o || fail "compile C++ ($v)"
	echo "area 9 caught 1" >cxx.expected
	for ld in bfd gold; do
		plink g++ -fuse-ld=$ld cxx$v.o -L"$RT" -lomp -Wl,-plugin,"$PLUGIN" -o cxx${v}_$ld ||
			fail "C++ with $ld and the plugin (clang $v objects)"
		run_check cxx${v}_$ld cxx.expected
	done
	# clang as the driver
	plink "$CLANG" -fopenmp -fuse-ld=bfd main$v.o kern$v.o -L"$RT" -Wl,-plugin,"$PLUGIN" \
		-o p${v}_clang ||
		fail "clang $v with the plugin"
	run_check p${v}_clang "$SRC/expected.txt"
done

# The images registered are byte for byte those ld.offlink registers for
# the same link: both front ends give the CPU device link the same part of
# the host link (the plugin reads its linker's command line).
export LD_LIBRARY_PATH=/usr/lib/llvm-22/lib:$PWD
for prog in p22_bfd cxx22_bfd; do
	in=main22.o\ kern22.o drv=gcc
	[ $prog = cxx22_bfd ] && in=cxx22.o drv=g++
	# shellcheck disable=SC2086
	$drv $in -B"$OFL_BUILD/libexec/offlink/gcc" -L/usr/lib/llvm-22/lib -lomp \
		-Wl,-rpath,/usr/lib/llvm-22/lib -o ld_$prog || fail "ld.offlink link of $prog"
	plink $drv -fuse-ld=bfd $in -L/usr/lib/llvm-22/lib -lomp -Wl,-rpath,/usr/lib/llvm-22/lib \
		-Wl,-plugin,"$PLUGIN" -o $prog || fail "plugin link of $prog with -rpath"
	mkdir -p cmp_ld cmp_pl && cp ld_$prog cmp_ld/$prog && cp $prog cmp_pl/$prog
	for d in cmp_ld cmp_pl; do
		(cd $d && "$OFFLINK" inspect --extract-all=img_$prog $prog >/dev/null) || fail "inspect $d/$prog"
	done
	[ -n "$(ls cmp_pl/img_$prog)" ] && diff -r cmp_ld/img_$prog cmp_pl/img_$prog ||
		fail "the plugin registers other images than ld.offlink ($prog)"
	# the host link's run path reaches the CPU device image, as LLVM's
	readelf -d cmp_pl/img_$prog/* | grep -q 'R.*PATH.*/usr/lib/llvm-22/lib' ||
		fail "-rpath not given to the device link ($prog)"
done

# Under valgrind, the linker shows no invalid access and no leak from the
# plugin (ld.bfd's own allocations are not the plugin's business).
if [ -n "$ASAN_PRELOAD" ]; then
	echo "sanitizer build: valgrind part left to the Release run"
elif command -v valgrind >/dev/null; then
	# the host link clang would run, as ld.bfd's own command line
	"$LLVM22/clang" -fopenmp -fuse-ld=bfd main22.o kern22.o -L/usr/lib/llvm-22/lib -o vgprog \
		-Wl,-plugin,"$PLUGIN" -### 2>&1 | tail -n 1 >vg.cmd
	python3 -c 'import shlex,sys; print("\0".join(shlex.split(open(sys.argv[1]).read())), end="")' \
		vg.cmd >vg.argv
	xargs -0 -a vg.argv valgrind --trace-children=no --leak-check=full \
		--errors-for-leak-kinds=definite --log-file=vg.log || { cat vg.log; fail "ld.bfd under valgrind"; }
	! grep -E -A12 'Invalid (read|write)|definitely lost' vg.log | grep offlink-plugin.so >/dev/null ||
		{ cat vg.log; fail "valgrind: the plugin misbehaves"; }
	./vgprog >vg.out || fail "the program linked under valgrind"
	diff -u "$SRC/expected.txt" vg.out || fail "valgrind-linked program output"
else
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "valgrind missing"
	echo "valgrind not installed: that part not run"
fi
no_temps "valgrind"

# The plugin named twice (duplicated LDFLAGS): gold loads the same .so
# twice over one state, ld.bfd warns; the link is right, registered once.
export LD_LIBRARY_PATH=/usr/lib/llvm-22/lib:$PWD
for ld in bfd gold; do
	plink gcc -fuse-ld=$ld main22.o kern22.o -L/usr/lib/llvm-22/lib -lomp -Wl,-plugin,"$PLUGIN" \
		-Wl,-plugin,"$PLUGIN" -o twice_$ld || fail "the plugin twice in $ld"
	run_check twice_$ld "$SRC/expected.txt"
	"$OFFLINK" inspect twice_$ld >twice_$ld.insp || fail "inspect twice_$ld"
	[ "$(grep -c '\]: image' twice_$ld.insp)" = 1 ] || { cat twice_$ld.insp; fail "registered twice ($ld)"; }
done
no_temps "the plugin twice"

# No device code: the same bytes as without the plugin, nothing written.
printf 'int main(void) { return 0; }\n' >plain.c
plink gcc -c plain.c -o plain.o
for ld in bfd gold; do
	plink gcc -fuse-ld=$ld plain.o -o plain_$ld
	plink gcc -fuse-ld=$ld plain.o -Wl,-plugin,"$PLUGIN" -o plain_${ld}_p || fail "plain link with $ld"
	cmp plain_$ld plain_${ld}_p || fail "the plugin changed a link without device code ($ld)"
done
no_temps "no device code"

# A corrupt blob: fatal, naming the input; no output.
cp kern22.o bad.o
off=$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(b.index(b"\x10\xff\x10\xad"))' bad.o)
printf '\x10\xff\x10\xad\x01\x00\x00\x00\xff\xff' | dd of=bad.o bs=1 seek="$off" conv=notrunc 2>/dev/null
expect_fail plink gcc main22.o bad.o -L/usr/lib/llvm-22/lib -lomp -Wl,-plugin,"$PLUGIN" -o badp
grep -Eq 'offlink: bad.o: .*\.llvm\.offloading.* at offset [0-9]+' err || { cat err; fail "corrupt blob"; }
[ ! -e badp ] || fail "output written after a corrupt blob"
no_temps "corrupt blob"

# A failing device link: fatal with the reason, no output, no temps.
expect_fail plink gcc main22.o kern22.o -L/usr/lib/llvm-22/lib -lomp -Wl,-plugin,"$PLUGIN" \
	-Wl,-plugin-opt,device-linker=--no-such-flag -o failp
grep -Eq 'offlink: device link for x86_64-pc-linux-gnu generic: (clang|ld\.lld) failed' err && grep -q -- '--no-such-flag' err &&
	grep -q '^  device code of: main22.o, kern22.o$' err || { cat err; fail "device link failure"; }
[ ! -e failp ] || fail "output written after a failed device link"
no_temps "failed device link"

# An unknown plugin option is fatal.
expect_fail plink gcc plain.o -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,bogus=1 -o x
grep -q "unknown plugin option 'bogus=1'" err || { cat err; fail "unknown option"; }
echo "plugin: bfd and gold, clang 19 and 22: all passed"
