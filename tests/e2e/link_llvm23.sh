#!/usr/bin/env bash
# Objects as clang-23 makes them: one version-2 OffloadBinary holding every
# offload target's image (llvm-offload-binary 23 packs all --image into
# one), here written by offlink's own packager acting as 23 and put into
# clang-22's host objects in place of 22's binaries.  They link and run,
# with LLVM 22's runtime, through ld.offlink, the clang-linker-wrapper
# personality and the plugin, from objects, an archive and a relocatable
# object where version 1 and 2 binaries sit side by side; what a release
# newer than 23 would write is a one-line error naming the file.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/llvm-objcopy" "$LLVM22/llvm-offload-binary" gcc ld.bfd ar
RTLIB=/usr/lib/llvm-22/lib
[ -e $RTLIB/libomptarget.so ] || skip "$RTLIB/libomptarget.so missing (run scripts/bootstrap)"
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
TARGETS=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RTLIB:$PWD

run_check() { # PROG
	"./$1" >"$1.out" 2>"$1.err" || { cat "$1.err"; fail "$1 exited with $?"; }
	diff -u "$SRC/expected.txt" "$1.out" || fail "$1 printed wrong results"
}

# as23 IN OUT: IN's offloading section replaced by one version-2 binary
# of its images, packed as clang-23's driver runs llvm-offload-binary
as23() {
	local args=() i=0 t
	for t in ${TARGETS//,/ }; do
		"$LLVM22/llvm-offload-binary" "$1" --image=file=$1.$i.o,triple=$t ||
			fail "extract $t from $1"
		args+=("--image=file=$1.$i.o,triple=$t,arch=generic,kind=openmp")
		i=$((i + 1))
	done
	"$OFL_COMPAT/llvm-offload-binary" --llvm-version=23 -o "$1.bin" "${args[@]}" ||
		fail "pack $1 as 23"
	"$LLVM22/llvm-objcopy" --update-section .llvm.offloading="$1.bin" "$1" "$2" ||
		fail "objcopy $2"
}

for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=$TARGETS -fPIC -O1 -c "$SRC/$f.c" -o $f.o ||
		fail "compile $f"
	as23 $f.o ${f}23.o
done
# the section holds one binary, version 2, two entries; the second image
# is not 8-aligned when the first's size is not a multiple of 8
"$OFFLINK" inspect --json main23.o >main23.json
python3 - main23.json main.o.bin <<'EOF' || fail "main23.o is not clang-23-shaped"
import json, struct, sys
doc = json.load(open(sys.argv[1]))
imgs = []
def walk(n):
    if n["kind"] == "image":
        imgs.append(n)
    for c in n["children"]:
        walk(c)
walk(doc["files"][0])
assert [i["version"] for i in imgs] == [2, 2], imgs
assert len({i["binary_offset"] for i in imgs}) == 1
assert [i["triple"] for i in imgs] == ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"]
b = open(sys.argv[2], "rb").read()
assert struct.unpack_from("<IQQQ", b, 4) == (2, len(b), 32, 2)
EOF
LLVM22_OBJDUMP_ERR=$("$LLVM22/llvm-objdump" --offloading main23.o 2>&1 >/dev/null || true)
[[ "$LLVM22_OBJDUMP_ERR" == *"Invalid data"* ]] || fail "LLVM 22 reads version 2 (the premise)"

# ld.offlink, its explain log saying who made the code
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" main23.o kern23.o -L$RTLIB \
	-o p_ld -Wl,--explain=explain.log || fail "ld.offlink link"
run_check p_ld
grep -q "device link 0: x86_64-pc-linux-gnu generic, 2 image(s), LLVM 23" explain.log ||
	{ cat explain.log; fail "the images are LLVM 23's"; }
# the program embeds version 2 binaries, as clang-linker-wrapper 23 does
"$OFFLINK" inspect p_ld | grep -q "OffloadBinary v2" || fail "p_ld embeds no version 2 binary"

# the personality, as clang runs it when the link line has offload targets
"$LLVM22/clang" -fopenmp -fopenmp-targets=$TARGETS $("$OFFLINK" --ldflags) main23.o kern23.o \
	-L$RTLIB -o p_pers || fail "personality link"
run_check p_pers

# the plugin inside ld.bfd
plink gcc -fuse-ld=bfd main23.o kern23.o -L$RTLIB -lomp \
	-Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" -o p_plug || fail "plugin link"
run_check p_plug

# an archive member's binary, taken per member
ar rcs libk23.a kern23.o
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" main23.o -L. -lk23 \
	-L$RTLIB -o p_ar || fail "archive link"
run_check p_ar

# ld -r: a version 1 and a version 2 binary in one section, back to back
ld.bfd -r main.o kern23.o -o mixed.o || fail "ld -r"
"$OFFLINK" inspect mixed.o | grep -c "OffloadBinary v[12]" | grep -qx 4 ||
	{ "$OFFLINK" inspect mixed.o; fail "mixed.o holds not 2 v1 and 2 v2 images"; }
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" mixed.o -L$RTLIB -o p_mixed ||
	fail "link of the ld -r object"
run_check p_mixed
plink gcc -fuse-ld=bfd mixed.o -L$RTLIB -lomp -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
	-o p_mixed_plug || fail "plugin link of the ld -r object"
run_check p_mixed_plug
# LLVM's relocatable mode over version 2 inputs
"$OFFLINK" link -r --offload-relocatable main23.o kern23.o -L$RTLIB -o reloc.o || fail "--offload-relocatable"
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" reloc.o -L$RTLIB -o p_reloc ||
	fail "link of the relocatable object"
run_check p_reloc

# a nested binary (an image that is itself an OffloadBinary, which 23's
# tools make and look inside): its images are the ones linked
"$OFL_COMPAT/llvm-offload-binary" --llvm-version=23 -o nested.bin \
	--image=file=main.o.bin,triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
"$LLVM22/llvm-objcopy" --update-section .llvm.offloading=nested.bin main.o main_nested.o
"$OFFLINK" inspect main_nested.o | grep -c "OffloadBinary v2" | grep -qx 3 ||
	{ "$OFFLINK" inspect main_nested.o; fail "the inspector does not show the inner images"; }
"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" main_nested.o kern23.o \
	-L$RTLIB -o p_nested -Wl,--explain=nested.log || fail "link through a nested binary"
run_check p_nested
grep -q "device link 1: x86_64-unknown-linux-gnu generic, 2 image(s)" nested.log ||
	{ cat nested.log; fail "the inner images were not linked"; }

# a binary of a release newer than offlink knows: one line naming the file
python3 - main.o.bin v4.bin k16.bin <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
v4 = bytearray(b); v4[4] = 4
open(sys.argv[2], "wb").write(v4)
k16 = bytearray(b); struct.pack_into("<H", k16, 34, 16)
open(sys.argv[3], "wb").write(k16)
EOF
for bad in v4 k16; do
	"$LLVM22/llvm-objcopy" --update-section .llvm.offloading=$bad.bin main.o $bad.o
	expect_fail "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$(dirname "$OFFLINK")" $bad.o \
		kern23.o -L$RTLIB -o p_$bad
	grep -v "^clang" "$SCRATCH/err" >err1 && mv err1 "$SCRATCH/err"
	[ ! -e p_$bad ] || fail "p_$bad written"
done
expect_fail "$OFFLINK" link v4.o -o p_v4
expect_err_line "^ld.offlink: error: v4.o: .*version 4 is not one offlink knows .*a newer LLVM wrote it"
expect_fail "$OFFLINK" link k16.o -o p_k16
expect_err_line "^ld.offlink: error: k16.o: .*offload kind 16: a newer LLVM wrote it"

# SYCL device code (kind 8) at the target of OpenMP code: LLVM links
# images of every kind by target, and stops with its error (SYCL's own
# device link and registration: e2e.link_sycl); never registered as OpenMP
"$OFL_COMPAT/llvm-offload-binary" --llvm-version=23 -o sycl.bin \
	--image=file=main.o.0.o,triple=x86_64-pc-linux-gnu,kind=sycl || fail "pack sycl"
"$LLVM22/llvm-objcopy" --update-section .llvm.offloading=sycl.bin main.o sycl.o
sycl_err="Linking images of SYCL offload kind with images of any other kind is not supported$"
expect_fail "$OFFLINK" link sycl.o kern23.o -o p_sycl
expect_err_line "^ld.offlink: error: $sycl_err"
expect_fail "$LLVM22/clang" -fopenmp -fopenmp-targets=$TARGETS $("$OFFLINK" --ldflags) sycl.o \
	kern23.o -L$RTLIB -o p_sycl
grep -Eq "error: $sycl_err" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "personality: SYCL"; }
expect_fail plink gcc -fuse-ld=bfd sycl.o kern23.o -L$RTLIB -lomp \
	-Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" -o p_sycl
grep -Eq "error: offlink: $sycl_err" "$SCRATCH/err" || { cat "$SCRATCH/err"; fail "plugin: SYCL"; }
[ ! -e p_sycl ] || fail "p_sycl written"
