#!/usr/bin/env bash
# LLVM 23's SYCL registration (docs/abi.md): one OffloadBinary, embedded
# whole, __sycl_register_lib(start, size) before main at priority 1 and
# __sycl_unregister_lib(start, size) at exit.  Every form offlink writes --
# the object for x86_64 and aarch64 (run under qemu), C, IR text and
# bitcode compiled by llc 22, llvm-offload-wrapper acting as 23 -- must hand
# a stand-in runtime the binary's exact bytes, 16-aligned, once each way.
# The IR is checked against the module LLVM 23's offload-wrapper.ll states
# (re-implemented); LLVM 22's tool has no sycl kind, nor has its personality.
source "$OFL_SRC/tests/lib.sh"
need cc python3 "$LLVM22/llc" "$LLVM22/llvm-dis" "$LLVM22/llvm-offload-wrapper" \
	aarch64-linux-gnu-gcc qemu-aarch64 readelf

SRC=$OFL_SRC/tests/interop/wrap_stub_src
X=x86_64-unknown-linux-gnu
SYSROOT=${OFL_AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
# two SPIR-V-shaped images, one > 64 KiB so aarch64 builds the size in two moves
printf 'spirv image one' >a.spv
randbytes 5 70000 >b.spv
"$OFFLINK" package --llvm-version=23 -o bin.obin \
	--image=file=a.spv,triple=spirv64-intel,kind=sycl \
	--image=file=b.spv,triple=spirv64-unknown-unknown,kind=sycl || fail "package"
size=$(stat -c %s bin.obin)
fnv=$(python3 -c '
import sys
h = 1469598103934665603
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%016x" % h)' bin.obin)
printf 'register %s magic 10ff10ad fnv %s aligned16 1\nmain\nunregister %s same 1\n' \
	"$size" "$fnv" "$size" >want.log

cc -O1 -c "$SRC/sycl_stub.c" -o stub.o || fail "compile stub"
run() { # NAME OBJ: link with the stand-in runtime, run, compare its log
	cc stub.o "$2" -o "$1.exe" || fail "$1: link"
	"./$1.exe" >"$1.log" || fail "$1: run"
	diff -u want.log "$1.log" || fail "$1: registration differs"
}

"$OFFLINK" wrap --kind=sycl --host-triple=$X bin.obin -o obj.o || fail "wrap obj"
readelf -SW obj.o | grep -Eq ' \.llvm\.offloading +LOOS\+0xfff4c0b .* A +0 +0 +16$' ||
	fail "image section: type, flags or 16-byte alignment"
readelf -SW obj.o | grep -q ' \.init_array\.1 ' || fail "constructor at priority 1"
readelf -SW obj.o | grep -q ' \.fini_array\.1 ' || fail "destructor at priority 1"
run obj obj.o
"$OFFLINK" wrap --kind=sycl --host-triple=$X bin.obin -o c.c || fail "wrap c"
cc -c -fPIC -Wall -Wextra -Werror c.c -o c.o || fail "our C does not compile"
run c c.o
for form in ll bc; do
	"$OFFLINK" wrap --kind=sycl --host-triple=$X bin.obin -o w.$form || fail "wrap $form"
	"$LLVM22/llc" -filetype=obj -relocation-model=pic w.$form -o $form.o || fail "llc $form"
	run $form $form.o
done

# llvm-offload-wrapper as 23: bitcode whose module is 23's, line for line
ln -s "$OFFLINK" llvm-offload-wrapper-23
./llvm-offload-wrapper-23 --triple=$X --kind=sycl bin.obin -o p.bc || fail "personality"
"$LLVM22/llvm-dis" p.bc -o p.ll || fail "llvm-dis"
n='[[:digit:]]+'
expect_lines() { # FILE REGEX...: each regex matches the next non-blank line
	local f=$1
	shift
	grep -v -e '^$' -e '^;' -e '^source_filename' -e '^target' "$f" >lines
	local i=0 re
	for re in "$@"; do
		i=$((i + 1))
		sed -n "${i}p" lines | grep -Eq "^$re\$" || { cat lines; fail "$f line $i: $re"; }
	done
	[ "$(wc -l <lines)" = $i ] || { cat lines; fail "$f: more lines than 23 writes"; }
}
expect_lines p.ll \
	"@\.sycl_offloading\.binary = internal unnamed_addr constant \[$size x i8\] c\".*\", section \"\.llvm\.offloading\"" \
	'@llvm\.global_ctors = appending global \[1 x \{ i32, ptr, ptr \}\] \[\{ i32, ptr, ptr \} \{ i32 1, ptr @sycl\.descriptor_reg, ptr null \}\]' \
	'@llvm\.global_dtors = appending global \[1 x \{ i32, ptr, ptr \}\] \[\{ i32, ptr, ptr \} \{ i32 1, ptr @sycl\.descriptor_unreg, ptr null \}\]' \
	'define internal void @sycl\.descriptor_reg\(\) section "\.text\.startup" \{' 'entry:' \
	"  call void @__sycl_register_lib\(ptr @\.sycl_offloading\.binary, i64 $size\)" \
	'  ret void' '\}' 'declare void @__sycl_register_lib\(ptr, i64\)' \
	'define internal void @sycl\.descriptor_unreg\(\) section "\.text\.startup" \{' 'entry:' \
	"  call void @__sycl_unregister_lib\(ptr @\.sycl_offloading\.binary, i64 $size\)" \
	'  ret void' '\}' 'declare void @__sycl_unregister_lib\(ptr, i64\)'
# 23's tool embeds any file for SYCL as it is: its test wraps itself, IR
# text; so does the personality (offlink wrap checks the binary, below)
printf '; RUN: llvm-offload-wrapper --triple=%s -kind=sycl %%s -o %%t.bc\n' $X >lit.ll
./llvm-offload-wrapper-23 --triple=$X -kind=sycl lit.ll -o lit.bc || fail "a text file for sycl"
"$LLVM22/llvm-dis" lit.bc -o lit.dis || fail "llvm-dis lit"
lsize=$(stat -c %s lit.ll)
text=$(sed 's/\\/\\5C/g; s/"/\\22/g' lit.ll)
grep -Fq "@.sycl_offloading.binary = internal unnamed_addr constant [$lsize x i8] c\"$text\\0A\", section \".llvm.offloading\"" lit.dis ||
	{ cat lit.dis; fail "the text file is not embedded as it is"; }
grep -q "call void @__sycl_register_lib(ptr @.sycl_offloading.binary, i64 $lsize)" lit.dis ||
	fail "registered size"
# our IR text reads as LLVM prints the bitcode
"$OFFLINK" wrap --kind=sycl --host-triple=$X bin.obin -o t.ll
sed 's/^; ModuleID = .*//' t.ll | grep -v '^$' >t.lines
sed 's/^; ModuleID = .*//' p.ll | grep -v '^$' >p.lines
diff -u p.lines t.lines || fail "IR text differs from the bitcode's"
"$LLVM22/llc" -filetype=obj -relocation-model=pic p.bc -o p.o || fail "llc personality"
run personality p.o

# aarch64: the same registration under qemu
aarch64-linux-gnu-gcc -O1 -c "$SRC/sycl_stub.c" -o stub.a64.o || fail "cross-compile stub"
"$OFFLINK" wrap --kind=sycl --host-triple=aarch64-linux-gnu bin.obin -o a64.o || fail "wrap a64"
aarch64-linux-gnu-gcc stub.a64.o a64.o -o a64.exe || fail "link a64"
qemu-aarch64 -L "$SYSROOT" ./a64.exe >a64.log || fail "run a64"
diff -u want.log a64.log || fail "aarch64: registration differs"

# what is refused, one line each
expect_fail ./llvm-offload-wrapper-23 --kind=sycl bin.obin bin.obin -o two.bc
expect_err_line 'sycl takes exactly one OffloadBinary, got 2'
expect_fail "$OFFLINK" wrap --kind=sycl a.spv -o raw.bc
expect_err_line 'a\.spv: not an OffloadBinary \(SYCL registers one, as clang-sycl-linker writes it\) at offset 0$'
head -c 100 bin.obin >cut.obin
expect_fail "$OFFLINK" wrap --kind=sycl cut.obin -o cut.o
grep -q 'cut.obin: .* at offset' "$SCRATCH/err" || fail "truncated binary: no file and offset"
expect_fail "$OFFLINK" wrap --kind=sycl --abi=llvm19 bin.obin -o old.o
expect_err_line "sycl has LLVM 23's registration only \\(llvm20 ABI\\), not relocatable$"
expect_fail "$OFFLINK" wrap --kind=sycl --relocatable bin.obin -o rel.o
expect_err_line "sycl has LLVM 23's registration only \\(llvm20 ABI\\), not relocatable$"
expect_fail "$OFFLINK" wrap --kind=sycl --host-triple=x86_64-pc-windows-msvc bin.obin -o w.obj
expect_err_line 'COFF wrapper objects are written for OpenMP'
expect_fail "$OFFLINK" wrap --kind=sycl bin.obin -o s.fatbin --emit=fatbin
expect_err_line '--emit=fatbin is for cuda and hip'
for f in two.bc raw.bc cut.o old.o rel.o w.obj s.fatbin; do
	[ ! -e $f ] || fail "$f written"
done
# LLVM 22's tool knows no sycl kind; its personality says what it says
"$LLVM22/llvm-offload-wrapper" --kind=sycl bin.obin -o x22.bc 2>llvm.err && fail "LLVM 22 took sycl"
"$OFL_COMPAT/llvm-offload-wrapper" --kind=sycl bin.obin -o y22.bc 2>ours.err && fail "22 personality took sycl"
diff -u llvm.err ours.err || fail "22's message for --kind=sycl"
