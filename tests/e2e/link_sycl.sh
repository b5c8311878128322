#!/usr/bin/env bash
# SYCL device code (clang-22 -fsycl: SPIR-V bitcode, offload kind 8) linked
# as LLVM 22 and 23 link it: the device link through clang --sycl-link
# (clang-sycl-linker), registered as each release does.  The personality's
# dry runs print LLVM 22's commands and wrapper module line for line; real
# links on ld.offlink, the plugin and the personality make programs whose
# registration, as a stand-in libsycl sees it, is the one of LLVM 22's own
# link (22's __sycl.tgt_bin_desc), or as 23 the linked OffloadBinary whole
# (__sycl_register_lib(start, size)); the device link is cached; what LLVM
# cannot link is an error, never a program (before, offlink refused SYCL
# device code on every route).
source "$OFL_SRC/tests/lib.sh"
need cc ar python3 "$LLVM22/clang++" "$LLVM22/clang-linker-wrapper" "$LLVM22/clang-sycl-linker" \
	"$LLVM22/llc" "$LLVM22/llvm-offload-binary" "$LLVM22/llvm-objcopy"
if ! "$LLVM22/llc" --version | grep -q ' spirv64 '; then
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "LLVM 22 has no SPIR-V target"
	skip "LLVM 22 has no SPIR-V target (clang-sycl-linker needs it)"
fi
S=$OFL_SRC/tests/e2e/sycl_src
STUB=$OFL_SRC/tests/interop/wrap_stub_src
H=(--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld)
for f in main more; do
	"$LLVM22/clang++" -fsycl -c "$S/$f.cpp" -o $f.o || fail "clang++ -fsycl $f.cpp"
done
ar rcs libmore.a more.o
cc -O1 -fPIC -c "$STUB/sycl22_stub.c" -o stub22.o || fail "compile the 22 stand-in"
cc -O1 -fPIC -DOFL_STUB_NO_MAIN -c "$STUB/sycl_stub.c" -o stub23.o ||
	fail "compile the 23 stand-in"

# norm FILE: temporary folders and LLVM's random digits out
norm() {
	sed -E -i "s|$TMPDIR/offlink-[A-Za-z0-9]{6}/|TMP/|g; s|$TMPDIR/|TMP/|g;
		s/-[0-9a-f]{6}\.(img|o|bc)/.\1/g; s|^[^ ]*clang-linker-wrapper: |PROG: |" "$1"
}
# same NAME ARGS...: LLVM 22's clang-linker-wrapper and the personality
# with ARGS: the same exit status and lines
same() {
	local name=$1 lrc=0 orc=0
	shift
	"$LLVM22/clang-linker-wrapper" "$@" >$name.llvm 2>&1 || lrc=$?
	"$OFL_COMPAT/clang-linker-wrapper" "$@" >$name.ours 2>&1 || orc=$?
	norm $name.llvm
	norm $name.ours
	[ "$lrc" = "$orc" ] || { cat $name.ours; fail "$name: exit $orc, LLVM $lrc"; }
	diff -u $name.llvm $name.ours || fail "$name: output differs from LLVM 22's"
}
export TMPDIR=$SCRATCH
D=("${H[@]}" --dry-run)
same link "${D[@]}" main.o more.o -o p
same archive "${D[@]}" main.o libmore.a -o p
same options "${D[@]}" --wrapper-verbose --device-compiler=spirv64-unknown-unknown=-O2 \
	--device-linker=spirv64-unknown-unknown=--foo -mllvm -inline-threshold=10 main.o more.o -o p
same module "${D[@]}" --print-wrapped-module main.o more.o -o p
same module-r "${D[@]}" --print-wrapped-module -r main.o more.o -o p.o
grep -q '^@.sycl_offloading.descriptor = internal constant %__sycl.tgt_bin_desc ' module.ours ||
	fail "no 22 descriptor in the wrapper module"
same fatbin "${D[@]}" --emit-fatbin-only main.o more.o -o p.fb
for n in link archive options module module-r fatbin; do
	grep -Eq -- '--sycl-link -Xlinker -triple=spirv64-unknown-unknown -Xlinker -arch=( |$)' $n.llvm ||
		fail "$n: no SYCL device link"
done
"$LLVM22/clang-linker-wrapper" "${D[@]}" --emit-fatbin-only main.o more.o -o llvm.fb
"$OFL_COMPAT/clang-linker-wrapper" "${D[@]}" --emit-fatbin-only main.o more.o -o ours.fb
cmp llvm.fb ours.fb || fail "--emit-fatbin-only's dry run wrote another binary than LLVM 22's"

# The real links: clang finds clang-sycl-linker on PATH alone, for LLVM's
# link as for offlink's
export PATH=$LLVM22:$PATH
"$LLVM22/clang++" -fsycl main.o more.o stub22.o -o ref || fail "LLVM 22's link"
./ref >ref.log || fail "LLVM 22's program"
grep -q '^register v1 images 1 ' ref.log && grep -q 'kernel .* name _ZTS2KB ' ref.log ||
	{ cat ref.log; fail "LLVM 22's program: no descriptor seen"; }
# route NAME CMD...: NAME linked by CMD registers as LLVM 22's program
route() {
	local name=$1
	shift
	"$@" -o $name 2>$name.err || { cat $name.err; fail "$name: link"; }
	./$name >$name.log || fail "$name: run"
	diff -u ref.log $name.log || failed_case $name "not LLVM 22's registration"
}
route ld "$LLVM22/clang++" -B"$OFL_BUILD/bin" -fuse-ld=offlink main.o more.o stub22.o \
	-Wl,--explain="$PWD/ld.explain"
grep -q '^  runs: .*/clang-sycl-linker" ' ld.explain || failed_case ld "no clang-sycl-linker run"
grep -q '^  not cached' ld.explain && failed_case ld "the device link is not cached"
grep -q "^sycl wrapper: 1 image(s), LLVM 22's SYCL registration$" ld.explain ||
	failed_case ld "--explain does not say the registration"
route ld-archive "$LLVM22/clang++" -B"$OFL_BUILD/bin" -fuse-ld=offlink main.o -L. -lmore \
	stub22.o
route personality "$LLVM22/clang++" -fsycl $("$OFFLINK" --ldflags) main.o more.o stub22.o
route plugin plink "$LLVM22/clang++" -fuse-ld=bfd -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
	main.o more.o stub22.o
route cached "$LLVM22/clang++" -B"$OFL_BUILD/bin" -fuse-ld=offlink main.o more.o stub22.o \
	-Wl,--explain="$PWD/cached.explain"
grep -q '1 device link(s) in .*, 1 from the cache' cached.explain ||
	failed_case cached "the second link's device link not from the cache"
cmp -s ld cached || failed_case cached "a cache hit made another program"
check_all "routes unlike LLVM 22's link"
# --emit-fatbin-only: the linked image itself, clang-sycl-linker's
"$LLVM22/clang-linker-wrapper" "${H[@]}" --emit-fatbin-only main.o more.o -o llvm.img ||
	fail "LLVM 22: --emit-fatbin-only"
"$OFL_COMPAT/clang-linker-wrapper" "${H[@]}" --emit-fatbin-only main.o more.o -o ours.img ||
	fail "--emit-fatbin-only"
cmp llvm.img ours.img || fail "--emit-fatbin-only: not LLVM 22's image"

# As 23: the image clang-sycl-linker wrote, whole (LLVM 22's, kept)
mkdir kept
(cd kept && "$LLVM22/clang-linker-wrapper" "${H[@]}" --save-temps ../main.o ../more.o -o p \
	>/dev/null 2>&1) || true
img=$(ls kept/p.spirv64..img) || fail "LLVM 22 kept no image"
fnv=$(python3 -c '
import sys
h = 1469598103934665603
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%016x" % h)' "$img")
size=$(stat -c %s "$img")
printf 'register %s magic 10ff10ad fnv %s aligned16 1\nmain\nunregister %s same 1\n' \
	"$size" "$fnv" "$size" >want23.log
OFFLINK_LLVM_VERSION=23 "$LLVM22/clang++" -fsycl $("$OFFLINK" --ldflags) main.o more.o stub23.o \
	-o p23 || fail "as 23: link"
./p23 >p23.log || fail "as 23: run"
diff -u want23.log p23.log || fail "as 23: not the linked OffloadBinary whole"

# Several images: a stand-in clang-sycl-linker writes two binaries (a
# "\r\n" line end, a blank line, a lone "\r" kept, a kernel in both): the
# module LLVM 22 prints (its globals' unique names) and the registration
# are LLVM 22's
printf 'spirv one' >one.spv
printf 'spirv two!' >two.spv
"$LLVM22/llvm-offload-binary" -o one.bin \
	--image=file=one.spv,kind=sycl,triple=spirv64-unknown-unknown,symbols=$'KA\r\nKB\n\nKC\r' &&
	"$LLVM22/llvm-offload-binary" -o two.bin \
		--image=file=two.spv,kind=sycl,triple=spirv64-unknown-unknown,symbols=$'KB\nKD' ||
	fail "pack the stand-in's binaries"
cat one.bin two.bin >images.bin
mkdir fake
printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && exec cp %s "$2"; shift; done\nexit 1\n' \
	"$PWD/images.bin" >fake/clang-sycl-linker
chmod +x fake/clang-sycl-linker
PATH=$PWD/fake:$PATH same several --host-triple=x86_64-pc-linux-gnu --linker-path=/bin/true \
	--print-wrapped-module main.o more.o -o several
grep -q '^@.sycl_offloading.entries_arr.6 = ' several.ours || fail "several: 22's names not seen"
PATH=$PWD/fake:$PATH "$LLVM22/clang++" -fsycl main.o more.o stub22.o -o several-ref ||
	fail "several: LLVM 22's link"
./several-ref >ref.log || fail "several: LLVM 22's program"
PATH=$PWD/fake:$PATH route several-ld "$LLVM22/clang++" -B"$OFL_BUILD/bin" -fuse-ld=offlink \
	main.o more.o stub22.o
check_all "several images"

# What LLVM cannot link: an error, no program.  Without clang-sycl-linker
# on PATH clang's own error, as in LLVM's link
expect_fail env PATH=/usr/bin:/bin "$LLVM22/clang++" -B"$OFL_BUILD/bin" -fuse-ld=offlink \
	main.o more.o stub22.o -o nolinker
grep -q 'clang: error: unable to execute command' "$SCRATCH/err" ||
	{ cat "$SCRATCH/err"; fail "no clang-sycl-linker: not clang's error"; }
# SYCL code for two targets: LLVM registers the first alone
"$LLVM22/llvm-offload-binary" main.o --image=file=dev.bc,kind=sycl || fail "extract"
"$LLVM22/llvm-offload-binary" -o two.bin \
	--image=file=dev.bc,kind=sycl,triple=spirv64-unknown-unknown,arch=generic \
	--image=file=dev.bc,kind=sycl,triple=spirv32-unknown-unknown,arch=generic ||
	fail "pack two targets"
"$LLVM22/llvm-objcopy" --update-section .llvm.offloading=two.bin main.o two.o
expect_fail "$OFFLINK" link two.o more.o -o two
expect_err_line "^ld.offlink: error: SYCL device code for two targets \(spirv64-unknown-unknown generic, spirv32-unknown-unknown generic\): LLVM registers one SYCL image only$"
# a relocatable link: LLVM's llvm-objcopy fails on its own registration
expect_fail "$OFL_COMPAT/clang-linker-wrapper" "${H[@]}" -r main.o more.o -o rel.o
expect_err_line "SYCL device code in a relocatable link \(-r\): LLVM's fails"
for f in nolinker two rel.o; do
	[ ! -e $f ] || fail "$f written"
done
echo "SYCL device code linked and registered as LLVM 22 and 23 do"
