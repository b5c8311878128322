#!/usr/bin/env bash
# offlink wrap --kind=cuda building the fat binary with the CUDA toolkit's
# fatbinary from nvcc cubins/PTX and from clang-linker-wrapper 22's linked
# images: it must parse (ours, cuobjdump), equal fatbinary run by hand
# with the linker wrapper's command line, equal the .fatbin
# clang-linker-wrapper 22 writes, and register like its wrapper object.
# CI machines may have no CUDA: then this test is skipped.
source "$OFL_SRC/tests/lib.sh"
CUDA=${CUDA_PATH:-/usr/local/cuda}
[ -x "$CUDA/bin/nvcc" ] && [ -x "$CUDA/bin/fatbinary" ] || skip "no CUDA toolkit in $CUDA"
need cc "$LLVM22/clang" "$LLVM22/clang-linker-wrapper"
export PATH=$CUDA/bin:$PATH
SRC=$OFL_SRC/tests/interop/wrap_stub_src
T=x86_64-pc-linux-gnu

cat >k.cu <<'CU'
__device__ int table[4];
__global__ void fill(int *p) { p[threadIdx.x] = table[threadIdx.x & 3]; }
CU
for a in 80 90; do
	nvcc -cubin -arch=sm_$a k.cu -o k$a.cubin || fail "nvcc sm_$a"
done
nvcc -ptx -arch=compute_90 k.cu -o k90.ptx || fail "nvcc -ptx"

# Given in ascending order; the linker wrapper sorts by arch, descending
"$OFFLINK" wrap --kind=cuda --cuda-path="$CUDA" -o k.fatbin \
	--image=file=k80.cubin,arch=sm_80 --image=file=k90.cubin,arch=sm_90 || fail "wrap cubins"
fatbinary -64 --create hand.fatbin --image3=kind=elf,sm=90,file=k90.cubin \
	--image3=kind=elf,sm=80,file=k80.cubin || fail "fatbinary by hand"
same hand.fatbin k.fatbin
"$OFFLINK" inspect k.fatbin >k.txt || fail "inspect"
grep -Eq '^  \[0\]: cubin sm_90, ' k.txt && grep -Eq '^  \[1\]: cubin sm_80, ' k.txt ||
	{ cat k.txt; fail "our parser does not see sm_90 then sm_80"; }
if command -v cuobjdump >/dev/null; then
	cuobjdump --list-elf k.fatbin >elf.txt || fail "cuobjdump"
	grep -q sm_90 elf.txt && grep -q sm_80 elf.txt || fail "cuobjdump: $(cat elf.txt)"
fi
"$OFFLINK" wrap --kind=cuda -o k2.fatbin --image=file=k80.cubin,arch=sm_80 \
	--image=file=k90.cubin,arch=sm_90 || fail "wrap again"
same k.fatbin k2.fatbin # deterministic

# PTX next to a cubin: kind=ptx
"$OFFLINK" wrap --kind=cuda -o p.fatbin --image=file=k90.ptx,arch=sm_90 \
	--image=file=k80.cubin,arch=sm_80 || fail "wrap ptx"
fatbinary -64 --create hand_p.fatbin --image3=kind=ptx,sm=90,file=k90.ptx \
	--image3=kind=elf,sm=80,file=k80.cubin || fail "fatbinary ptx by hand"
same hand_p.fatbin p.fatbin
"$OFFLINK" inspect p.fatbin | grep -q '\[0\]: ptx sm_90' || fail "no ptx entry"

# OffloadBinary input: the image is written out for fatbinary
"$OFFLINK" package -o k90.bin --image=file=k90.cubin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda ||
	fail "package"
"$OFFLINK" wrap --kind=cuda -o ob.fatbin k90.bin --image=file=k80.cubin,arch=sm_80 ||
	fail "wrap OffloadBinary"
same hand.fatbin ob.fatbin

# clang-linker-wrapper 22 on an RDC program for sm_80 and sm_90
"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path="$CUDA" \
	--offload-arch=sm_80 --offload-arch=sm_90 -fPIC -c "$SRC/gpu.cu" -o cu.o 2>/dev/null ||
	fail "clang-22 -x cuda"
"$LLVM22/clang-linker-wrapper" --host-triple=$T --linker-path=/bin/true --save-temps \
	--cuda-path="$CUDA" -o cu cu.o >/dev/null 2>&1 || fail "clang-linker-wrapper 22"
dev=(--image=file=cu.nvptx64.sm_80.img,arch=sm_80 --image=file=cu.nvptx64.sm_90.img,arch=sm_90)
"$OFFLINK" wrap --kind=cuda --emit=fatbin "${dev[@]}" -o cu.ours.fatbin || fail "wrap --emit=fatbin"
same cu.fatbin cu.ours.fatbin
"$OFFLINK" wrap --kind=cuda "${dev[@]}" -o cu.ours.o || fail "wrap images"
"$OFFLINK" wrap --kind=cuda cu.fatbin -o cu.fb.o || fail "wrap .fatbin"
same cu.fb.o cu.ours.o
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.o || fail "compile stub"
for w in ref:cu.cuda.image.wrapper.o ours:cu.ours.o; do
	cc -rdynamic stub.o cu.o "${w#*:}" -o "${w%%:*}.exe" -ldl || fail "link ${w%%:*}"
	STUB_ENTRY=56 "./${w%%:*}.exe" >"${w%%:*}.log" || fail "${w%%:*}.exe failed"
done
grep -q '__cudaRegisterFunction(h, .*_Z4kernPi' ours.log || fail "no kernel registered"
grep -q '__cudaRegisterFatBinaryEnd(h)' ours.log || fail "no end call"
diff -u ref.log ours.log || fail "registration differs from clang-linker-wrapper 22's"
