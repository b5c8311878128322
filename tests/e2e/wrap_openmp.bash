# End to end for `offlink wrap` with the real OpenMP runtime, sourced by
# wrap_openmp_22.sh and wrap_openmp_19.sh after tests/lib.sh.  The caller sets
#   CLANG     the clang that compiles host and device code
#   PACKAGER  LLVM's clang-offload-packager of the same release
#   RTLIB     directory with libomp and libomptarget of that release
#   ABI       offlink's --abi value
#   DEVLIBS   extra libraries for the device link (array)
#   OMP_CFLAGS extra compile flags (array), e.g. where omp.h is
#
# Pipeline per program (what clang-linker-wrapper does, docs/design.md, "The link pipeline", with
# offlink doing the wrapping): compile with -fopenmp-targets, take the
# device objects out of each host object's .llvm.offloading (with offlink's
# packager, and LLVM's, which must agree),
# device-link them into one shared object the way the linker wrapper does
# for CPU targets, wrap it with `offlink wrap`, link with cc and the GNU
# and LLVM linkers, run with OMP_TARGET_OFFLOAD=MANDATORY.

need "$CLANG" "$PACKAGER" "${CLANG%/clang}/llc" readelf "$LLVM22/llvm-readobj" cc ld ld.gold "$LLVM22/ld.lld"
for f in "$RTLIB"/libomptarget.so "$RTLIB"/libomp.so; do
	[ -e "$f" ] || { [ -n "${CI:-}" ] && fail "$f missing"; skip "$f missing (run scripts/bootstrap)"; }
done

SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
export OMP_TARGET_OFFLOAD=MANDATORY
export LD_LIBRARY_PATH=$RTLIB:$PWD

omp_cc() {
	"$CLANG" -fopenmp -fopenmp-targets=$T -fPIC -O1 "${OMP_CFLAGS[@]}" -c "$@" ||
		fail "compile $*"
}

# extract HOST.o DEV.o: the x86_64 device object embedded in HOST.o, taken
# out by offlink's packager; LLVM's must extract the same bytes
extract() {
	"$OFL_COMPAT/clang-offload-packager" "$1" --image=file="$2",triple=$T,kind=openmp \
		2>/dev/null || fail "offlink's packager cannot extract from $1"
	[ -s "$2" ] || fail "no device code in $1"
	"$PACKAGER" "$1" --image=file="$2.llvm",triple=$T,kind=openmp 2>/dev/null ||
		fail "LLVM's packager cannot extract from $1"
	cmp "$2" "$2.llvm" || fail "offlink's packager extracts other bytes from $1"
}

# devlink OUT DEV.o...: the linker wrapper's CPU-target device link
devlink() {
	local out=$1
	shift
	"$CLANG" --no-default-config --target=$T -Wl,--no-undefined "$@" -Wl,-Bsymbolic -shared \
		-o "$out" -L"$RTLIB" -lomp -lomptarget "${DEVLIBS[@]}" || fail "device link $out"
}

# wrap OUT IMAGE: offlink's wrapper object, checked by readelf and llvm-readobj
wrap() {
	"$OFFLINK" wrap --host-triple=$T --kind=openmp --abi="$ABI" -o "$1" \
		--image=file="$2",triple=$T || fail "offlink wrap $2"
	readelf -a -W "$1" >/dev/null 2>readelf.err || fail "readelf $1"
	[ ! -s readelf.err ] || { cat readelf.err; fail "readelf warns about $1"; }
	"$LLVM22/llvm-readobj" --all "$1" >/dev/null 2>readobj.err || fail "llvm-readobj $1"
	[ ! -s readobj.err ] || { cat readobj.err; fail "llvm-readobj warns about $1"; }
}

# run PROG EXPECTED
run_check() {
	"./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$2" "$1.out" || fail "$1 printed wrong results"
}

link() {
	local out=$1
	shift
	cc "$@" -L"$RTLIB" -lomp -lomptarget -o "$out" || fail "link $out"
}

omp_cc "$SRC/main.c" -o main.o
omp_cc "$SRC/main.c" -DWITH_LIB -o mainl.o
omp_cc "$SRC/kern.c" -o kern.o
omp_cc "$SRC/lib.c" -o lib.o

# The reference: clang's own pipeline gives the expected output.
"$CLANG" -fopenmp -fopenmp-targets=$T main.o kern.o -L"$RTLIB" -o ref -save-temps ||
	fail "clang link"
run_check ref "$SRC/expected.txt"

# --pack re-packs the image clang-linker-wrapper linked exactly as it does:
# the embedded OffloadBinaries are the same bytes, and the program runs.
ref_img=$(ls ref.x86_64.*img)
"$OFFLINK" wrap --host-triple=$T --abi="$ABI" --pack -o wp.o --image=file="$ref_img",triple=$T ||
	fail "offlink wrap --pack"
"$LLVM22/llvm-objcopy" -O binary --only-section=.llvm.offloading wp.o ours.sec
"$LLVM22/llvm-objcopy" -O binary --only-section=.llvm.offloading ref.openmp.image.wrapper.o llvm.sec
cmp ours.sec llvm.sec || fail "--pack embeds other bytes than clang-linker-wrapper"
cc main.o kern.o wp.o -L"$RTLIB" -lomp -lomptarget -o prog_pack || fail "link prog_pack"
run_check prog_pack "$SRC/expected.txt"
"$LLVM22/llvm-objdump" --offloading prog_pack | grep -q "triple.*$T" ||
	fail "llvm-objdump --offloading does not list the packed image"

extract main.o main.dev.o
extract mainl.o mainl.dev.o
extract kern.o kern.dev.o
extract lib.o lib.dev.o
devlink prog.img main.dev.o kern.dev.o
devlink progl.img mainl.dev.o kern.dev.o
devlink lib.img lib.dev.o

wrap w.o prog.img
wrap w2.o prog.img
cmp w.o w2.o || fail "wrapping is not deterministic"
# the flavour chosen from the host objects is the one named
"$OFFLINK" wrap --host-triple=$T --for=main.o,kern.o -o w3.o --image=file=prog.img ||
	fail "offlink wrap --for"
cmp w.o w3.o || fail "--for chose another flavour than --abi=$ABI"

# The object registers the image bytes unchanged.
"$LLVM22/llvm-objcopy" -O binary --only-section=.llvm.offloading w.o sec.bin ||
	fail "objcopy"
cmp sec.bin prog.img || fail "embedded image differs from the input"

# Bitcode instead of the object, as clang-linker-wrapper's users do with
# llvm-offload-wrapper: the personality (our --emit=bc for older ABIs)
# writes it, this release's llc compiles it, and the program runs.
if [ "$ABI" = llvm20 ]; then
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=openmp --triple=$T -o wb.bc prog.img ||
		fail "llvm-offload-wrapper -o wb.bc"
else
	"$OFFLINK" wrap --host-triple=$T --abi="$ABI" -o wb.bc prog.img || fail "offlink wrap -o wb.bc"
fi
"${CLANG%/clang}/llc" -filetype=obj -relocation-model=pic wb.bc -o wb.o || fail "llc wb.bc"
link prog_bc main.o kern.o wb.o
run_check prog_bc "$SRC/expected.txt"

link prog_bfd main.o kern.o w.o -fuse-ld=bfd
run_check prog_bfd "$SRC/expected.txt"
link prog_gold main.o kern.o w.o -fuse-ld=gold
run_check prog_gold "$SRC/expected.txt"
link prog_lld main.o kern.o w.o -B"$LLVM22" -fuse-ld=lld
run_check prog_lld "$SRC/expected.txt"

# ld -r first, then a final link
ld -r main.o kern.o w.o -o rel.o || fail "ld -r"
link prog_r rel.o
run_check prog_r "$SRC/expected.txt"
# ld.lld -r merges same-named sections, so the inputs' excluded (E)
# .llvm.offloading would swallow ours, as it does clang-linker-wrapper's
# own object; its -r mode uses .llvm.offloading.relocatable, so do we.
"$OFFLINK" wrap --host-triple=$T --abi="$ABI" --relocatable -o wr.o --image=file=prog.img ||
	fail "offlink wrap --relocatable"
readelf -S -W wr.o | grep -q ' \.llvm\.offloading\.relocatable ' || fail "no relocatable section"
"$LLVM22/ld.lld" -r main.o kern.o wr.o -o rel_lld.o || fail "ld.lld -r"
link prog_rl rel_lld.o -fuse-ld=gold
run_check prog_rl "$SRC/expected.txt"

# A shared library with its own images beside the program's: each has its
# own hidden __start_/__stop_ table and its own descriptor.
wrap wl.o lib.img
wrap wm.o progl.img
for ld in bfd gold lld; do
	cc -shared -fPIC lib.o wl.o -B"$LLVM22" -fuse-ld=$ld -L"$RTLIB" -lomp -lomptarget \
		-o libk.so || fail "link libk.so with $ld"
	link progl_$ld mainl.o kern.o wm.o -B"$LLVM22" -fuse-ld=$ld -L. -lk
	run_check progl_$ld "$SRC/expected_lib.txt"
done

# Without the wrapper object the runtime has nothing to run: the check
# above can fail.
link prog_none main.o kern.o
if ./prog_none >none.out 2>&1; then
	fail "program without wrapper object ran under MANDATORY offload"
fi
