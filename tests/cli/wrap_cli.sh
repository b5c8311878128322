#!/usr/bin/env bash
# offlink wrap and the clang-offload-wrapper / llvm-offload-wrapper
# personalities: options, outputs, errors.
source "$OFL_SRC/tests/lib.sh"
need readelf "$LLVM22/llvm-offload-wrapper" "$LLVM22/llvm-dis" "$LLVM22/llvm-objcopy"

randbytes 1 1000 >a.img
randbytes 2 333 >b.img

"$OFFLINK" wrap --help >help.txt
grep -q 'LLVM IR text when its name ends in .ll, LLVM bitcode' help.txt ||
	fail "help does not name .ll and .bc"
grep -q -- '--abi=llvm14|amd|llvm19|llvm20' help.txt || fail "help lacks --abi"
"$OFL_COMPAT/llvm-offload-wrapper" --help | grep -q 'relocatable object: COFF for a Windows host' ||
	fail "personality help does not describe the output"

# -o - writes the same bytes as a file
"$OFFLINK" wrap -o w.o a.img
"$OFFLINK" wrap -o - a.img >w_stdout.o
same w.o w_stdout.o
readelf -h w.o | grep -q 'REL (Relocatable file)' || fail "not a relocatable object"

# --image= metadata and positional images mix; order is kept (options first)
"$OFFLINK" wrap --abi=amd -o amd.o --image=file=a.img,arch=gfx906,triple=amdgcn-amd-amdhsa b.img
readelf -p .offload_arch_list amd.o | grep -q gfx906 || fail "arch list"

# clang-offload-wrapper: --offload-arch names the image after it (AMD flavour)
"$OFL_COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu -o cow.o \
	--offload-arch=gfx906 a.img --offload-arch=gfx90a:xnack+ b.img
readelf -x .offload_arch_list cow.o >arch.hex
python3 - cow.o <<'EOF' || fail "clang-offload-wrapper arch list"
import subprocess, sys
out = subprocess.run(["readelf", "-W", "-S", sys.argv[1]], capture_output=True, text=True).stdout
line = [l for l in out.splitlines() if ".offload_arch_list" in l][0].split()
i = line.index(".offload_arch_list")
off, size = int(line[i + 3], 16), int(line[i + 4], 16)
data = open(sys.argv[1], "rb").read()[off:off + size]
assert data == b"gfx906\0gfx90a:xnack+\0", data
EOF
readelf -S -W cow.o | grep -q ' \.fini_array\.1 ' || fail "old flavour has .fini_array.1"
# without --offload-arch: the LLVM 14 flavour, no arch list
"$OFL_COMPAT/clang-offload-wrapper" --target=x86_64-pc-linux-gnu -o=co14.o a.img
! readelf -S -W co14.o | grep -q offload_arch_list || fail "llvm14 flavour has an arch list"
readelf -s -W co14.o | grep -q '__dummy.omp_offloading.entry' || fail "llvm14 dummy"

# llvm-offload-wrapper: our IR text equals LLVM's module (disassembled),
# apart from the ModuleID comment llvm-dis takes from the file name
"$LLVM22/llvm-offload-wrapper" --kind=openmp --triple=x86_64-pc-linux-gnu -o ref.bc a.img b.img
"$LLVM22/llvm-dis" ref.bc -o ref.ll
"$OFL_COMPAT/llvm-offload-wrapper" --kind=openmp --triple=x86_64-pc-linux-gnu -o ours.ll \
	a.img b.img
diff <(tail -n +2 ref.ll) <(tail -n +2 ours.ll) || fail "IR differs from llvm-offload-wrapper's"
"$OFL_COMPAT/llvm-offload-wrapper" --kind=hip --triple=aarch64-linux-gnu -o hip.o a.img
readelf -h hip.o | grep -q AArch64 || fail "--triple=aarch64 gives another machine"
readelf -S -W hip.o | grep -q ' \.hipFatBinSegment ' || fail "hip wrapper section"

# errors, one line each
expect_fail "$OFL_COMPAT/llvm-offload-wrapper" -o x.o a.img
expect_err_line 'for the --kind option: must be specified at least once!'
expect_fail "$OFFLINK" wrap --kind=cuda -o x.o a.img b.img
expect_err_line 'exactly one fat binary, got 2'
expect_fail "$OFFLINK" wrap --kind=openacc -o x.o a.img
expect_err_line "unknown offload kind 'openacc' \\(openmp, cuda, hip or sycl\\)$"
expect_fail "$OFFLINK" wrap --kind=sycl -o x.o a.img
expect_err_line "a\\.img: not an OffloadBinary .* at offset 0$"
expect_fail "$OFFLINK" wrap --kind=hip --abi=llvm14 -o x.o a.img
expect_err_line 'exist only for openmp'
expect_fail "$OFFLINK" wrap --host-triple=powerpc64le-linux-gnu -o x.o a.img
expect_err_line "host triple 'powerpc64le-linux-gnu' is not supported"
# .bc is LLVM bitcode (tests/interop/wrap_bitcode.sh checks it with LLVM)
"$OFFLINK" wrap -o w.bc a.img
[ "$(head -c 4 w.bc | od -An -tx1 | tr -d ' ')" = 4243c0de ] || fail ".bc is not bitcode"
"$OFFLINK" wrap --emit=bc -o - a.img >w_stdout.bc
same w.bc w_stdout.bc
expect_fail "$OFFLINK" wrap a.img
expect_err_line 'no output file'
expect_fail "$OFFLINK" wrap -o x.o missing.img
expect_err_line 'missing.img'
expect_fail "$OFFLINK" wrap -o x.o --image=triple=x
expect_err_line "'file=' is required"
# OffloadBinary inputs: ImageStart past the header, as llvm-offload-wrapper
# (the IR is the same text), and their arch serves the AMD flavour
"$LLVM22/clang-offload-packager" -o ob.bin \
	--image=file=a.img,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp 2>/dev/null
"$LLVM22/llvm-offload-wrapper" --kind=openmp --triple=x86_64-pc-linux-gnu -o ob.bc ob.bin
"$LLVM22/llvm-dis" ob.bc -o ob_ref.ll
"$OFFLINK" wrap -o ob.ll ob.bin
diff <(tail -n +2 ob_ref.ll) <(tail -n +2 ob.ll) || fail "OffloadBinary input: IR differs"
"$OFFLINK" wrap -o ob.o ob.bin
readelf -r -W ob.o | grep -q '\.llvm\.offloading + [0-9a-f]*$' || fail "no image relocation"
[ "$(readelf -r -W ob.o | awk '/\.llvm\.offloading \+/ {print $NF; exit}')" != 0 ] ||
	fail "ImageStart not past the OffloadBinary header"
"$OFFLINK" wrap --abi=amd -o ob_amd.o ob.bin
readelf -p .offload_arch_list ob_amd.o | grep -q gfx906 || fail "arch from the OffloadBinary"
printf '\x10\xff\x10\xad\x01\x00\x00\x00' >obin.bin
expect_fail "$OFFLINK" wrap -o x.o obin.bin
expect_err_line 'obin.bin'
# --pack: raw images become OffloadBinaries; not for fat binaries
"$OFFLINK" wrap --pack -o pk.o --image=file=a.img,triple=x86_64-pc-linux-gnu
"$LLVM22/llvm-objcopy" -O binary --only-section=.llvm.offloading pk.o pk.sec
"$LLVM22/clang-offload-packager" pk.sec --image=file=pk_out.img,triple=x86_64-pc-linux-gnu \
	2>/dev/null || fail "--pack does not give an OffloadBinary"
same a.img pk_out.img
expect_fail "$OFFLINK" wrap --pack --kind=hip -o x.o a.img
expect_err_line 'pack is for openmp images'
[ ! -e x.o ] || fail "failed runs left an output behind"

# A big image (copied file to file, 64 KiB-aligned at the end of the object): the section
# holds exactly the input, readelf is happy, and -o - gives the same bytes.
randbytes 3 300000 >big.img
"$OFFLINK" wrap -o big.o big.img
"$LLVM22/llvm-objcopy" -O binary --only-section=.llvm.offloading big.o big.sec
same big.img big.sec
readelf -a -W big.o >/dev/null 2>re.err && [ ! -s re.err ] || fail "readelf warns on big.o"
readelf -S -W big.o | grep ' \.llvm\.offloading ' | grep -q ' 010000 ' ||
	fail "big image section not at offset 0x10000"
"$OFFLINK" wrap -o - big.img >big_stdout.o
same big.o big_stdout.o

# Hosts without a direct writer go through C: --emit=c, or --host-cc
expect_fail "$OFFLINK" wrap --host-triple=riscv64-linux-gnu -o x.o a.img
expect_err_line "give --host-cc=<compiler> to go through C: host triple 'riscv64-linux-gnu'"
"$OFFLINK" wrap --host-triple=riscv64-linux-gnu --kind=hip -o w.c a.img
grep -q '__hipRegisterFatBinary(&wrapper)' w.c || fail "no HIP registration in the C source"
grep -q ".incbin \\\\\"$PWD/a.img\\\\\",0,1000" w.c || fail "C source does not include the image"
"$OFFLINK" wrap --emit=c -o w2.txt a.img
grep -q 'init_array.101' w2.txt || fail "--emit=c"
expect_fail "$OFFLINK" wrap --host-cc=/nonexistent/cc -o x.o a.img
expect_err_line "cannot run '/nonexistent/cc'"
[ ! -e x.o ] || fail "failed runs left an output behind"
cp a.img 'we"ird.img'
expect_fail "$OFFLINK" wrap --emit=c -o x.c 'we"ird.img'
expect_err_line "quotes, backslashes or control characters"
expect_fail "$OFL_COMPAT/llvm-offload-wrapper" --kind=openmp --emit=s -o x.o a.img
expect_err_line "emit must be obj, ll, bc or c"
