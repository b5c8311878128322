# End to end for ld.offlink with the real OpenMP runtime, sourced by
# link_openmp_22.sh and link_openmp_19.sh after tests/lib.sh.  The caller
# sets CLANG, RTLIB (libomp and libomptarget of that release) and
# OMP_CFLAGS.  Every program is compiled by clang with -fopenmp-targets,
# linked by ld.offlink (host linkers bfd, gold and lld; routes -fuse-ld,
# gcc -B, a Makefile), run with OMP_TARGET_OFFLOAD=MANDATORY and checked
# against the output clang's own pipeline gives.

need "$CLANG" readelf cc gcc make ld.bfd ld.gold "$LLVM22/ld.lld" "$LLVM22/llvm-objdump" ar
for f in "$RTLIB"/libomptarget.so "$RTLIB"/libomp.so; do
	[ -e "$f" ] || { [ -n "${CI:-}" ] && fail "$f missing"; skip "$f missing (run scripts/bootstrap)"; }
done

SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
BIN=$(dirname "$OFFLINK")
export OMP_TARGET_OFFLOAD=MANDATORY
export LD_LIBRARY_PATH=$RTLIB:$PWD
export PATH=$BIN:$PATH

omp_cc() {
	"$CLANG" -fopenmp -fopenmp-targets=$T -fPIC -O1 "${OMP_CFLAGS[@]}" -c "$@" ||
		fail "compile $*"
}

# run PROG EXPECTED
run_check() {
	"./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$2" "$1.out" || fail "$1 printed wrong results"
}

# olink_quiet OUT ARGS...: the same, stderr the caller's
olink_quiet() {
	local out=$1
	shift
	"$CLANG" -fopenmp -fuse-ld=offlink "$@" -L"$RTLIB" -o "$out"
}

# olink OUT ARGS...: clang links through ld.offlink (-fuse-ld=offlink), no
# offload targets at link time, so clang itself does no device work
olink() {
	local out=$1
	shift
	"$CLANG" -fopenmp -fuse-ld=offlink "$@" -L"$RTLIB" -o "$out" 2>"$out.log" ||
		{ cat "$out.log"; fail "ld.offlink link of $out"; }
}

omp_cc "$SRC/main.c" -o main.o
omp_cc "$SRC/main.c" -DWITH_LIB -o mainl.o
omp_cc "$SRC/kern.c" -o kern.o
omp_cc "$SRC/lib.c" -o lib.o
printf 'int main(void) { int vec_scale(int *, int); int v[1] = {2};\n return !vec_scale(v, 1) || v[0] != 12; }\n' >hostmain.c
"$CLANG" -c hostmain.c -o hostmain.o || fail "compile hostmain"

# The reference: clang's own pipeline (clang-linker-wrapper).
"$CLANG" -fopenmp -fopenmp-targets=$T main.o kern.o -L"$RTLIB" -o ref || fail "clang link"
run_check ref "$SRC/expected.txt"

# Several translation units, each host linker.
for ld in bfd gold lld; do
	olink prog_$ld main.o kern.o -Wl,--offlink-linker=$ld
	run_check prog_$ld "$SRC/expected.txt"
done
"$LLVM22/llvm-objdump" --offloading prog_bfd | grep "triple.*$T" >/dev/null ||
	fail "llvm-objdump --offloading does not list the image"
# without device code in the wrapper the check can fail: same objects
# linked by the plain system linker do not run under MANDATORY
"$CLANG" -fopenmp main.o kern.o -L"$RTLIB" -lomptarget -o prog_none || fail "plain link"
if ./prog_none >none.out 2>&1; then fail "a program without registration ran"; fi

# Drop-in for LLVM: clang finds offlink's clang-linker-wrapper in -B.
"$CLANG" -B"$OFL_COMPAT" -fopenmp -fopenmp-targets=$T main.o kern.o -L"$RTLIB" -o prog_compat ||
	fail "clang -B<compat> link"
run_check prog_compat "$SRC/expected.txt"
# --dry-run prints the commands in LLVM's form (` "prog" arg ...`, as
# --wrapper-verbose does) and writes nothing
"$CLANG" -B"$OFL_COMPAT" -fopenmp -fopenmp-targets=$T main.o kern.o -L"$RTLIB" -o dry \
	-Wl,--dry-run 2>dry.err || true
grep -q '^ "[^"]*clang" --no-default-config -o [^ ]*\.img .*--target='$T' ' dry.err &&
	grep -q '^ "[^"]*ld" .* -o dry ' dry.err || { cat dry.err; fail "--dry-run output"; }
[ ! -e dry ] || fail "--dry-run wrote the output"

# Deterministic: same inputs, same bytes, whatever -j and temp names.
olink det1 main.o kern.o -Wl,-j1
TMPDIR=$PWD olink det2 main.o kern.o -Wl,-j2
cmp det1 det2 || fail "output depends on -j or the temporary directory"

# A static library of kernels: after the objects, --whole-archive, in a
# group before the object, and with a host-only main.
ar rcs libkern.a kern.o
olink lib_after main.o -L. -lkern
run_check lib_after "$SRC/expected.txt"
olink lib_whole -Wl,--whole-archive libkern.a -Wl,--no-whole-archive main.o
run_check lib_whole "$SRC/expected.txt"
olink lib_group -Wl,--start-group -L. -lkern main.o -Wl,--end-group
run_check lib_group "$SRC/expected.txt"
olink hostonly hostmain.o libkern.a -Wl,--explain="$PWD/hostonly.explain"
./hostonly || fail "host-only main: the library's kernel did not run on the device"
grep -q 'libkern.a(kern.o): device code taken: the host link pulls it' hostonly.explain ||
	{ cat hostonly.explain; fail "explain does not say why kern.o was taken"; }
# a thin archive (ar rcsT): its members are files beside it, read as the
# host linker reads them; in a subdirectory, so names resolve against the
# archive's directory, not ours
mkdir -p thin/obj && cp kern.o thin/obj/kern.o && (cd thin && ar rcsT libthin.a obj/kern.o)
olink thin_lib main.o -Lthin -lthin -Wl,--explain="$PWD/thin.explain"
run_check thin_lib "$SRC/expected.txt"
grep -q 'libthin.a(obj/kern.o): device code taken' thin.explain ||
	{ cat thin.explain; fail "thin archive member's device code not taken"; }
olink thin_host hostmain.o thin/libthin.a
./thin_host || fail "host-only main with a thin archive"
# a member nothing pulls stays out, and the explain log says so
omp_cc "$SRC/lib.c" -o unused.o
ar rcs libmixed.a kern.o unused.o
olink mixed hostmain.o libmixed.a -Wl,--explain="$PWD/mixed.explain"
./mixed || fail "mixed archive"
grep -q 'libmixed.a(unused.o): device code left out' mixed.explain ||
	{ cat mixed.explain; fail "unused member's device code was taken"; }

# The device symbol rule: a member the host link does not pull (its host
# part defines nothing) is taken because the device code needs its helper.
LSRC=$OFL_SRC/tests/e2e/link_src
omp_cc "$LSRC/devmain.c" -o devmain.o
omp_cc "$LSRC/devhelper.c" -o devhelper.o
"$CLANG" -fPIC -c "$LSRC/hosthelper.c" -o hosthelper.o || fail "compile hosthelper"
ar rcs libdevh.a devhelper.o unused.o
olink devsym devmain.o hosthelper.o -L. -ldevh -Wl,--explain="$PWD/devsym.explain"
./devsym >devsym.out || fail "devsym exited with $?"
[ "$(cat devsym.out)" = "helper: 42, on device: 1" ] || { cat devsym.out; fail "device helper"; }
grep -q "libdevh.a(devhelper.o): device code taken for device symbol 'helper'" devsym.explain &&
	grep -q "libdevh.a(unused.o): device code left out" devsym.explain ||
	{ cat devsym.explain; fail "device symbol rule"; }

# Objects merged with ld -r first (two OffloadBinaries in one section).
ld -r main.o kern.o -o rel.o || fail "ld -r"
olink prog_rel rel.o
run_check prog_rel "$SRC/expected.txt"
# ld.offlink -r is ld -r: the blobs stay for the final link
ld.offlink -r main.o kern.o -o rel2.o || fail "ld.offlink -r"
[ "$("$OFFLINK" inspect rel2.o | grep -c 'OffloadBinary v1')" = 2 ] ||
	fail "ld.offlink -r did not keep both device images"
olink prog_rel2 rel2.o
run_check prog_rel2 "$SRC/expected.txt"

# --offload-relocatable: LLVM's -r mode, device code linked and registered
# now, the input images gone and the entry table private to the object
ld.offlink -r --offload-relocatable main.o kern.o -L"$RTLIB" -o orel.o || fail "--offload-relocatable"
readelf -SW orel.o >orel.sec
grep -Eq ' (llvm_offload|omp_offloading)_entries_[0-9a-f]{1,16} ' orel.sec ||
	{ cat orel.sec; fail "entry table not made private"; }
! grep -Eq ' \.llvm\.offloading ' orel.sec || { cat orel.sec; fail "input images left in"; }
readelf -sW orel.o | grep -E '__start_(llvm_offload|omp_offloading)_entries_[0-9a-f]{1,16}' >/dev/null ||
	fail "__start_ symbol not renamed"
olink prog_orel orel.o
run_check prog_orel "$SRC/expected.txt"
ld.offlink -r --offload-relocatable main.o kern.o -L"$RTLIB" -o orel2.o -j1 || fail "again"
cmp orel.o orel2.o || fail "--offload-relocatable is not deterministic"
# without -o, ld's a.out; never over an input, never half-made
mkdir -p noout && (cd noout && ld.offlink -r --offload-relocatable ../main.o ../kern.o -L"$RTLIB") ||
	fail "--offload-relocatable without -o"
readelf -SW noout/a.out >noout.sec
grep -Eq ' (llvm_offload|omp_offloading)_entries_[0-9a-f]{1,16} ' noout.sec &&
	! grep -Eq ' \.llvm\.offloading ' noout.sec ||
	{ cat noout.sec; fail "--offload-relocatable without -o: a.out is not the finished object"; }
cp kern.o inout.o
expect_fail ld.offlink -r --offload-relocatable main.o inout.o -L"$RTLIB" -o inout.o
grep -q "inout.o: the output is also an input" err || { cat err; fail "output over an input"; }
cmp kern.o inout.o || fail "an input was written over"

# A shared library with its own device code, and a program using it.
for ld in bfd gold lld; do
	"$CLANG" -fopenmp -fuse-ld=offlink -shared lib.o -Wl,--offlink-linker=$ld -L"$RTLIB" \
		-o libk.so || fail "shared library with $ld"
	olink progl_$ld mainl.o kern.o -L. -lk -Wl,--offlink-linker=$ld
	run_check progl_$ld "$SRC/expected_lib.txt"
done

# gcc reaches it with -B (gcc accepts only fixed -fuse-ld names).
GCCDIR=$(dirname "$BIN")/libexec/offlink/gcc
gcc main.o kern.o -B"$GCCDIR" -L"$RTLIB" -lomp -o prog_gcc || fail "gcc -B link"
run_check prog_gcc "$SRC/expected.txt"
# gcc adds no OpenMP runtime of LLVM's: ld.offlink adds -lomp with
# -lomptarget, as clang's route does (the -L only for LLVM 19's runtime,
# which is not where Debian's package puts it)
gcc main.o kern.o -B"$GCCDIR" -L"$RTLIB" -o prog_gcc_plain || fail "gcc -B link without -lomp"
run_check prog_gcc_plain "$SRC/expected.txt"
readelf -d prog_gcc_plain | grep -q 'NEEDED.*libomp\.so' || fail "gcc route: libomp not linked"

# A Makefile that adds `offlink --ldflags` to LDFLAGS.
cat >Makefile <<MK
LDFLAGS += \$(shell $OFFLINK --ldflags --cc=clang) -L$RTLIB
prog_make: main.o kern.o
	$CLANG -fopenmp \$(LDFLAGS) \$^ -o \$@
MK
make -s prog_make || fail "Makefile route"
run_check prog_make "$SRC/expected.txt"

# A launcher prefixes every device link, and only device links.
cat >launch.sh <<'SH'
#!/bin/sh
echo "$@" >>"$LAUNCH_LOG"
exec "$@"
SH
chmod +x launch.sh
# (no cache: a hit would run no device link for the launcher to prefix)
# (device links get only the variables the plan lists: the launcher's own
# are named in OFFLINK_DEVICE_LAUNCHER_ENV)
OFFLINK_CACHE=0 LAUNCH_LOG=$PWD/launch.log OFFLINK_DEVICE_LAUNCHER=$PWD/launch.sh \
	OFFLINK_DEVICE_LAUNCHER_ENV=LAUNCH_LOG olink prog_launch main.o kern.o
run_check prog_launch "$SRC/expected.txt"
[ "$(wc -l <launch.log)" = 1 ] && grep -q -- "--target=$T" launch.log ||
	{ cat launch.log; fail "the launcher did not run exactly the device link"; }
cmp prog_launch det1 || fail "a launcher changed the output"

# A failing device link: its command and stderr shown, no output, no temps.
mkdir -p tmp
if TMPDIR=$PWD/tmp "$CLANG" -fopenmp -fuse-ld=offlink main.o kern.o -L"$RTLIB" \
	-Wl,--device-linker=--no-such-flag -o bad 2>bad.err; then
	fail "a failing device link succeeded"
fi
grep -Eq 'device link for x86_64-pc-linux-gnu.*: (clang|ld\.lld) failed' bad.err &&
	grep -q -- '--no-such-flag' bad.err && grep -q '^  device code of: main.o, kern.o$' bad.err ||
	{ cat bad.err; fail "the device link failure is not explained"; }
[ ! -e bad ] || fail "output written although the link failed"
[ -z "$(ls tmp)" ] || { ls -R tmp; fail "temporaries left after a failure"; }
# the inputs by their names, not the hash-named files the command reads; a
# library the CPU device link cannot find gets the next step
cat >undef.c <<'SRC'
#pragma omp declare target
int missing_helper(int);
int use(int x) { return missing_helper(x); }
#pragma omp end declare target
SRC
omp_cc undef.c -o undef.o
ar rcs libundef.a undef.o
printf 'int main(void) { int use(int); return use(1); }\n' >callundef.c
"$CLANG" -c callundef.c -o callundef.o || fail "compile callundef"
if olink_quiet undef callundef.o -L. -lundef 2>undef.err; then
	fail "an undefined device symbol linked"
fi
grep -q '^  device code of: ./libundef.a(undef.o)$' undef.err &&
	grep -q 'libundef.a(undef.o):(use)' undef.err &&
	! grep -Eq '[0-9a-f]{16}\.[oa]|offlink-' undef.err ||
	{ cat undef.err; fail "the failure names temporaries, or not the inputs"; }
[ "$(wc -l <undef.err)" -le 20 ] || { cat undef.err; fail "the failure is not short"; }
if olink_quiet undef callundef.o -L. -lundef -Wl,--device-linker=-lnothere 2>nolib.err; then
	fail "a device link without its library linked"
fi
grep -q "next: the device link cannot find libnothere" nolib.err || { cat nolib.err; fail "no next step"; }

# A corrupt blob: an error naming the object, section and offset.
cp kern.o bad.o
off=$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(b.index(b"\x10\xff\x10\xad"))' bad.o)
printf '\x10\xff\x10\xad\x01\x00\x00\x00\xff\xff' | dd of=bad.o bs=1 seek="$off" conv=notrunc 2>/dev/null
if "$CLANG" -fopenmp -fuse-ld=offlink main.o bad.o -L"$RTLIB" -o badblob 2>blob.err; then
	fail "a corrupt blob was accepted"
fi
grep -Eq 'offlink: error: bad.o: .*\.llvm\.offloading.* at offset [0-9]+' blob.err ||
	{ cat blob.err; fail "corrupt blob error"; }
echo "ld.offlink end to end: all routes passed"
