#!/usr/bin/env bash
# The llvm-offload-binary and llvm-objdump personalities acting as LLVM 23's
# tools, on the cases of 23's own regression tests
# (llvm/test/tools/llvm-offload-binary/llvm-offload-binary.ll,
# llvm-objdump/Offloading/nested-offload-binary*.test), re-done with
# offlink's writers: several --image make one version-2 binary; no --image
# extracts everything, nested binaries included, as "Extracted: <name>";
# --offloading prints each image's size and the images of nested binaries,
# a bad nested binary being a warning.  Also how the release is picked.
source "$OFL_SRC/tests/lib.sh"
ln -s "$OFFLINK" llvm-offload-binary-23
ln -s "$OFFLINK" llvm-objdump-23
OB=./llvm-offload-binary-23
OD=./llvm-objdump-23
printf 'some source\n' >src.ll

# --- llvm-offload-binary.ll ---------------------------------------------
$OB -o t --image=file=src.ll,arch=abc,triple=x-y-z || fail "pack"
$OD --offloading t >t.dump || fail "objdump t"
printf '\nOFFLOADING IMAGE [0]:\nkind            <none>\narch            abc\ntriple          x-y-z\nproducer        none\nimage size      12 bytes\n' >want
same want t.dump
$OB t --image=file=t2,arch=abc,triple=x-y-z || fail "extract file="
same src.ll t2
echo "-o t --image=file=src.ll,arch=abc,triple=x-y-z" >t.rsp
$OB @t.rsp && $OD --offloading t | cmp -s - t.dump || fail "response file"
$OB -o t3 --image=file=src.ll && $OB t3 --image=file=t4 || fail "no triple"
same src.ll t4
# no --image: everything, named <stem>-<triple>[-<arch>].<i>.<ext>
mkdir x && (cd x && ../$OB ../t >out) || fail "extract all"
[ "$(cat x/out)" = "Extracted: t-x-y-z-abc.0." ] || { cat x/out; fail "Extracted: line"; }
same src.ll "x/t-x-y-z-abc.0."
(cd x && ../$OB ../t3 >out3) && [ "$(cat x/out3)" = "Extracted: t3-.0." ] ||
	fail "an image without arch has no '-<arch>'"

# several --image: one binary, version 2, two entries
$OB -o t5 --image=file=src.ll,arch=abc,triple=x-y-z --image=file=src.ll,arch=def,triple=x-y-z
python3 - t5 <<'EOF' || fail "t5 is not one version-2 binary of two entries"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:4] == b"\x10\xff\x10\xad"
version, size, eoff, count = struct.unpack_from("<IQQQ", b, 4)
assert (version, size, eoff, count) == (2, len(b), 32, 2), (version, size, eoff, count)
io0, is0 = struct.unpack_from("<QQ", b, 32 + 24)
io1, is1 = struct.unpack_from("<QQ", b, 72 + 24)
assert io0 % 8 == 0 and io1 == io0 + is0 and is0 == is1 == 12
EOF
# nested: t6 holds t5; objdump shows both levels, extraction unwraps it
$OB -o t6 --image=file=t5,arch=nested,triple=x-y-z
$OD --offloading t6 >t6.dump
cat >want <<'EOF'

OFFLOADING IMAGE [0]:
kind            <none>
arch            nested
triple          x-y-z
producer        none
image size      SIZE bytes
nested images   2

  OFFLOADING IMAGE [0.0]:
  kind            <none>
  arch            abc
  triple          x-y-z
  producer        none
  image size      12 bytes

  OFFLOADING IMAGE [0.1]:
  kind            <none>
  arch            def
  triple          x-y-z
  producer        none
  image size      12 bytes
EOF
sed -i "s/SIZE/$(stat -c %s t5)/" want
same want t6.dump
# two levels: [0.1.0]
$OB -o t7 --image=file=src.ll,arch=abc,triple=x-y-z --image=file=t5,arch=nested,triple=x-y-z
$OB -o t8 --image=file=t7,arch=nested,triple=x-y-z --image=file=t5,arch=nested2,triple=x-y-z
$OD --offloading t8 >t8.dump
grep -E '^ *(OFFLOADING|arch|nested)' t8.dump >t8.tree
cat >want <<'EOF'
OFFLOADING IMAGE [0]:
arch            nested
nested images   2
  OFFLOADING IMAGE [0.0]:
  arch            abc
  OFFLOADING IMAGE [0.1]:
  arch            nested
  nested images   2
    OFFLOADING IMAGE [0.1.0]:
    arch            abc
    OFFLOADING IMAGE [0.1.1]:
    arch            def
OFFLOADING IMAGE [1]:
arch            nested2
nested images   2
  OFFLOADING IMAGE [1.0]:
  arch            abc
  OFFLOADING IMAGE [1.1]:
  arch            def
EOF
same want t8.tree
mkdir n && (cd n && ../$OB ../t6 >out) || fail "extract nested"
printf 'Extracted: t6-x-y-z-abc.0.\nExtracted: t6-x-y-z-def.1.\n' >want
same want n/out
$OB -o t7b --image=file=t5,arch=nested,triple=x-y-z --image=file=src.ll,arch=ghi,triple=x-y-z
mkdir m && (cd m && ../$OB ../t7b >out) || fail "extract mixed"
printf 'Extracted: t7b-x-y-z-abc.0.\nExtracted: t7b-x-y-z-def.1.\nExtracted: t7b-x-y-z-ghi.2.\n' >want
same want m/out
$OB t7b --image=file=t8b,arch=nested,triple=x-y-z && same t5 t8b
# malformed outer and inner binaries: LLVM's message, exit 1
printf '\x10\xff\x10\xad\n' >bad-offload.input
expect_fail $OB bad-offload.input
expect_err_line "^\./llvm-offload-binary-23: error: Invalid data was encountered while parsing the file$"
$OB -o t9 --image=file=bad-offload.input,arch=nested,triple=x-y-z
expect_fail $OB t9
expect_err_line "^\./llvm-offload-binary-23: error: Invalid data was encountered while parsing the file$"
# the old name keeps its deprecation warning, no prefix; a versioned name
# ("clang-offload-packager-22", Debian's) none, as LLVM matches the end of it
"$OFL_COMPAT/clang-offload-packager" --llvm-version=23 -o tp --image=file=src.ll 2>tp.err &&
	cmp -s tp t3 || fail "clang-offload-packager as 23"
[ "$(cat tp.err)" = "warning: 'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead." ] ||
	{ cat tp.err; fail "deprecation warning"; }

# --- nested-offload-binary.test -----------------------------------------
: >empty.bc
$OB -o inner.o --image=file=empty.bc,triple=x-y-z,arch=arch1,kind=openmp \
	--image=file=empty.bc,triple=x-y-z,arch=arch2,kind=openmp
$OB -o outer.bin --image=file=inner.o,triple=x-y-z,arch=none,kind=openmp \
	--image=file=inner.o,triple=a-b-c,arch=none,kind=openmp
$OD --offloading outer.bin >outer.dump
{
	for o in 0:x-y-z 1:a-b-c; do
		printf '\nOFFLOADING IMAGE [%s]:\nkind            elf\narch            none\n' "${o%%:*}"
		printf 'triple          %s\nproducer        openmp\n' "${o#*:}"
		printf 'image size      %s bytes\nnested images   2\n' "$(stat -c %s inner.o)"
		for i in 0 1; do
			printf '\n  OFFLOADING IMAGE [%s.%s]:\n  kind            llvm ir\n' "${o%%:*}" $i
			printf '  arch            arch%s\n  triple          x-y-z\n' $((i + 1))
			printf '  producer        openmp\n  image size      0 bytes\n'
		done
	done
} >want
same want outer.dump
# nested-offload-binary-fails.test: the outer image printed (7 lines), the
# inner binary a warning, exit 0
printf '\x10\xff\x10\xad' >bad.o
$OB -o fails.bin --image=file=bad.o,triple=x-y-z,arch=none,kind=openmp
$OD --offloading fails.bin >fails.out 2>fails.err || fail "a bad nested binary is an error"
[ "$(wc -l <fails.out)" = 7 ] || { cat fails.out; fail "7 lines"; }
grep -qx "\./llvm-objdump-23: warning: 'fails.bin': failed to extract nested OffloadBinary: Invalid data was encountered while parsing the file" fails.err ||
	{ cat fails.err; fail "nested warning"; }
# SPIR-V images have their name and extension from 23 on
printf 'spirv' >k.spv
$OB -o spv.bin --image=file=k.spv,triple=spirv64-intel,kind=openmp
$OD --offloading spv.bin | grep -qx "kind            spir-v" || fail "spir-v"
mkdir s && (cd s && ../$OB ../spv.bin >out) && [ "$(cat s/out)" = "Extracted: spv-spirv64-intel.0.spv" ] ||
	{ cat s/out; fail "SPIR-V extension"; }

# --- which release ---------------------------------------------------------
# 22 (the default, and a -22 name) writes two version-1 binaries and
# prints no image size; --llvm-version=23 and OFFLINK_LLVM_VERSION=23 act
# as 23 under any name
"$OFL_COMPAT/llvm-offload-binary" -o d5 --image=file=src.ll,arch=abc,triple=x-y-z \
	--image=file=src.ll,arch=def,triple=x-y-z
[ "$(od -An -tu4 -j4 -N4 d5 | tr -d ' ')" = 1 ] || fail "the default packs version 1"
"$OFL_COMPAT/llvm-objdump" --offloading t | grep -q "image size" && fail "22 prints image sizes"
"$OFL_COMPAT/llvm-offload-binary" --llvm-version=23 -o e5 --image=file=src.ll,arch=abc,triple=x-y-z \
	--image=file=src.ll,arch=def,triple=x-y-z && same t5 e5
OFFLINK_LLVM_VERSION=23 "$OFL_COMPAT/llvm-objdump" --offloading t | cmp -s - t.dump ||
	fail "OFFLINK_LLVM_VERSION=23"
expect_fail "$OFL_COMPAT/llvm-offload-binary" --llvm-version=21 -o x --image=file=src.ll
expect_err_line "llvm-offload-binary: error: --llvm-version must be 19, 22 or 23, not 21"
# 22 reads no version 2, as LLVM 22 does; offlink package reads any
expect_fail "$OFL_COMPAT/llvm-offload-binary" t5 --image=file=q
expect_err_line "error: Invalid data was encountered while parsing the file$"
"$OFFLINK" package t5 --image=file=q,arch=def && same src.ll q
"$OFFLINK" package --llvm-version=23 -o p5 --image=file=src.ll,arch=abc,triple=x-y-z \
	--image=file=src.ll,arch=def,triple=x-y-z && same t5 p5
"$OFFLINK" inspect --format=llvm-objdump --llvm-version=23 t6 | cmp -s - t6.dump ||
	fail "offlink inspect --llvm-version=23"

# --- llvm-offload-wrapper (offload-wrapper.ll) -----------------------------
# 23 has --relocatable (OpenMP images in .llvm.offloading.relocatable); 22
# does not know the option; 23's --kind=sycl: tests/interop/wrap_sycl.sh
ln -s "$OFFLINK" llvm-offload-wrapper-23
printf 'device image' >img
./llvm-offload-wrapper-23 --triple=x86_64-unknown-linux-gnu -kind=openmp --relocatable img -o r.ll ||
	fail "--relocatable"
grep -Eq '^@\.omp_offloading\.device_image = internal unnamed_addr constant \[12 x i8\] c"device image", section "\.llvm\.offloading\.relocatable", align 8$' r.ll ||
	{ grep device_image r.ll; fail "relocatable image section"; }
./llvm-offload-wrapper-23 --triple=x86_64-unknown-linux-gnu -kind=openmp img -o n.ll
grep -q 'section "\.llvm\.offloading", align 8$' n.ll || fail "plain image section"
expect_fail "$OFL_COMPAT/llvm-offload-wrapper" --kind=openmp --relocatable img -o r22.ll
grep -q "Unknown command line argument '--relocatable'" "$SCRATCH/err" || fail "22 knows --relocatable"
