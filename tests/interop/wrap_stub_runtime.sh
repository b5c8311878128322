#!/usr/bin/env bash
# offlink wrap against LLVM's wrappers, by behaviour: the same host objects
# are linked once with LLVM's wrapper object and once with ours, against a
# stub runtime that logs every registration call with its arguments (image
# digests, entry tables, kernel/variable registrations); the logs must be
# equal.  References: clang-linker-wrapper 19 and 22 (--save-temps),
# llvm-offload-wrapper 22 and clang-offload-wrapper 14 compiled with llc.
# Our --emit=ll and --emit=bc outputs, compiled with llc 22, must behave
# the same too.
source "$OFL_SRC/tests/lib.sh"
LLVM14=${LLVM14:-/usr/lib/llvm-14/bin}
need cc "$LLVM22/clang" "$LLVM19/clang" "$LLVM22/clang-linker-wrapper" \
	"$LLVM19/clang-linker-wrapper" "$LLVM22/llvm-offload-wrapper" "$LLVM22/llc" \
	"$LLVM22/ld.lld" "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler"

SRC=$OFL_SRC/tests/interop/wrap_stub_src
T=x86_64-pc-linux-gnu
cc -O1 -fPIC -c "$SRC/stub.c" -o stub.o || fail "compile stub"
echo 'int device_image_stand_in = 42;' >img.c
cc -c img.c -o img.o # an ELF file for --override-image

# run_log OUT ENTRYSIZE OBJ...: link with the stub and log the registration
run_log() {
	local out=$1 es=$2
	shift 2
	cc -rdynamic stub.o "$@" -o "$out.exe" -ldl || fail "link $out"
	STUB_ENTRY=$es "./$out.exe" >"$out.log" || fail "$out.exe failed"
	grep -q '^main$' "$out.log" || fail "$out: no main"
}

# compare NAME ENTRYSIZE REF.o HOST.o -- OFFLINK-WRAP-ARGS...
compare() {
	local name=$1 es=$2 ref=$3 host=$4
	shift 5
	"$OFFLINK" wrap --host-triple=$T "$@" -o "$name.ours.o" || fail "$name: offlink wrap"
	"$OFFLINK" wrap --host-triple=$T "$@" -o "$name.ours.ll" || fail "$name: offlink wrap ll"
	"$LLVM22/llc" -filetype=obj -relocation-model=pic "$name.ours.ll" -o "$name.ll.o" ||
		fail "$name: llc rejects our IR"
	"$OFFLINK" wrap --host-triple=$T "$@" -o "$name.ours.bc" || fail "$name: offlink wrap bc"
	"$LLVM22/llc" -filetype=obj -relocation-model=pic "$name.ours.bc" -o "$name.bc.o" ||
		fail "$name: llc rejects our bitcode"
	"$OFFLINK" wrap --host-triple=$T "$@" -o "$name.ours.c" || fail "$name: offlink wrap c"
	cc -c -fPIC -Wall -Wextra -Werror "$name.ours.c" -o "$name.c.o" || fail "$name: C does not compile"
	run_log "$name.ref" "$es" "$host" "$ref"
	run_log "$name.ours" "$es" "$host" "$name.ours.o"
	run_log "$name.ll" "$es" "$host" "$name.ll.o"
	run_log "$name.bc" "$es" "$host" "$name.bc.o"
	run_log "$name.c" "$es" "$host" "$name.c.o"
	diff -u "$name.ref.log" "$name.ours.log" || fail "$name: registration differs from LLVM's"
	diff -u "$name.ref.log" "$name.ll.log" || fail "$name: our IR registers differently"
	diff -u "$name.ref.log" "$name.bc.log" || fail "$name: our bitcode registers differently"
	diff -u "$name.ref.log" "$name.c.log" || fail "$name: our C registers differently"
	grep -Eq 'entries: [1-9]|Register(Function|Var|Surface|Texture)' "$name.ref.log" || fail "$name: no entries seen"
}

# clang-linker-wrapper without a host link: its wrapper object is kept
clw() {
	local llvm=$1 out=$2
	shift 2
	"$llvm/clang-linker-wrapper" --host-triple=$T --linker-path=/bin/true --save-temps \
		-o "$out" "$@" >/dev/null 2>&1 || fail "clang-linker-wrapper ($llvm) $*"
}

# OpenMP, LLVM 22 and 19: the image given with --override-image
for v in 22 19; do
	llvm=LLVM$v
	llvm=${!llvm}
	"$llvm/clang" -fopenmp -fopenmp-targets=$T -fPIC -c "$SRC/omp.c" -o omp$v.o ||
		fail "clang-$v -fopenmp"
	clw "$llvm" omp$v --override-image=openmp=img.o omp$v.o
	abi=llvm20 es=56
	[ $v = 19 ] && abi=llvm19 es=32
	compare omp$v $es omp$v.openmp.image.wrapper.o omp$v.o -- --abi=$abi \
		--image=file=img.o,triple=$T
	grep -q "entries: 4" omp$v.ours.log || fail "omp$v: expected 4 entries"
done

# llvm-offload-wrapper (22) on a raw image, compiled by llc
"$LLVM22/llvm-offload-wrapper" --kind=openmp --triple=$T -o lw.bc img.o || fail "llvm-offload-wrapper"
"$LLVM22/llc" -filetype=obj -relocation-model=pic lw.bc -o lw.o || fail "llc"
compare lw 56 lw.o omp22.o -- --abi=llvm20 img.o

# OpenMP, LLVM 14 (old driver): clang-offload-wrapper + llc-14
if [ -x "$LLVM14/clang-offload-wrapper" ] && [ -x "$LLVM14/llc" ]; then
	"$LLVM14/clang" -fopenmp -fopenmp-targets=$T -fPIC -c "$SRC/omp.c" -o omp14.o ||
		fail "clang-14"
	"$LLVM14/clang-offload-wrapper" -target=$T -o w14.bc img.o || fail "clang-offload-wrapper"
	"$LLVM14/llc" -filetype=obj -relocation-model=pic w14.bc -o w14.o || fail "llc-14"
	compare omp14 32 w14.o omp14.o -- --abi=llvm14 img.o
	# AMD variant: the same plus one image info per image, before registration
	"$OFFLINK" wrap --abi=amd -o amd.o --image=file=img.o,arch=gfx906 \
		--image=file=stub.o,arch=gfx90a:xnack+ || fail "wrap --abi=amd"
	run_log amd 32 omp14.o amd.o
	cat >amd.expected <<-'EOF'
		__tgt_register_image_info: v1 image 0 of 2 arch 'gfx906' opts null
		__tgt_register_image_info: v1 image 1 of 2 arch 'gfx90a:xnack+' opts null
		__tgt_register_lib: 2 images, unwinds to __libc_start_main
	EOF
	grep -v requires amd.log | head -3 | diff -u amd.expected - || fail "amd: image infos"
	readelf -p .offload_arch_list amd.exe | grep -q 'gfx90a:xnack+' || fail "no arch list"
	# the same through C, compiled by --host-cc
	"$OFFLINK" wrap --abi=amd --host-cc=cc -o amd_c.o --image=file=img.o,arch=gfx906 \
		--image=file=stub.o,arch=gfx90a:xnack+ || fail "wrap --abi=amd --host-cc"
	run_log amd_c 32 omp14.o amd_c.o
	diff -u amd.log amd_c.log || fail "amd: C registers differently"
fi

# HIP: clang-linker-wrapper links the amdgcn image and bundles it (.hipfb)
for v in 22 19; do
	llvm=LLVM$v
	llvm=${!llvm}
	"$llvm/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib \
		--offload-arch=gfx90a -fPIC -c "$SRC/gpu.cu" -o hip$v.o 2>/dev/null ||
		fail "clang-$v -x hip"
	clw "$llvm" hip$v hip$v.o
	abi=llvm20 es=56
	[ $v = 19 ] && abi=llvm19 es=32
	compare hip$v $es hip$v.hip.image.wrapper.o hip$v.o -- --kind=hip --abi=$abi hip$v.hipfb
	grep -q '__hipRegisterFunction(h, .*_Z4kernPi' hip$v.ours.log || fail "hip$v: no kernel"
done
grep -q '__hipRegisterManagedVar' hip22.ours.log || fail "hip22: no managed variable"

# CUDA 22: llvm-offload-wrapper on a fat binary
randbytes 7 300 >cu.fatbin
"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc --cuda-host-only -nocudainc -nocudalib \
	--cuda-gpu-arch=sm_70 -fPIC -c "$SRC/gpu.cu" -o cuda22.o 2>/dev/null || fail "clang -x cuda"
"$LLVM22/llvm-offload-wrapper" --kind=cuda --triple=$T -o cw.bc cu.fatbin || fail "wrapper cuda"
"$LLVM22/llc" -filetype=obj -relocation-model=pic cw.bc -o cw.o || fail "llc"
compare cuda22 56 cw.o cuda22.o -- --kind=cuda --abi=llvm20 cu.fatbin
grep -q '__cudaRegisterFatBinaryEnd(h)' cuda22.ours.log || fail "cuda22: no end call"

# CUDA 19: clang-linker-wrapper with a stand-in fatbinary (no CUDA toolkit)
mkdir -p fakecuda/bin
cat >fakecuda/bin/fatbinary <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --create ] && out=$2; shift; done
head -c 256 "$0" >"$out"
EOF
chmod +x fakecuda/bin/fatbinary
"$LLVM19/clang" -x cuda --offload-new-driver -fgpu-rdc --cuda-host-only -nocudainc -nocudalib \
	--cuda-gpu-arch=sm_70 -fPIC -c "$SRC/gpu.cu" -o cuda19.o 2>/dev/null || fail "clang-19 -x cuda"
clw "$LLVM19" cuda19 --cuda-path="$PWD/fakecuda" --override-image=cuda=img.o cuda19.o
compare cuda19 32 cuda19.cuda.image.wrapper.o cuda19.o -- --kind=cuda --abi=llvm19 cuda19.fatbin

# Surfaces, textures and entries of other kinds (hand-made tables), HIP 22
# via llvm-offload-wrapper and HIP 19 via clang-linker-wrapper's object.
cc -fPIC -c "$SRC/texsurf.c" -o ts22.o || fail "compile texsurf"
"$LLVM22/llvm-offload-wrapper" --kind=hip --triple=$T -o hw.bc hip22.hipfb || fail "wrapper hip"
"$LLVM22/llc" -filetype=obj -relocation-model=pic hw.bc -o hw.o || fail "llc"
compare ts22 56 hw.o ts22.o -- --kind=hip --abi=llvm20 hip22.hipfb
grep -q "__hipRegisterSurface(h, surf_a, 'surf_a', 'surf_a', type 5, ext 1)" ts22.ours.log ||
	fail "ts22: surface"
grep -q "__hipRegisterTexture(h, tex_b, 'tex_b', 'tex_b', type 7, norm 1, ext 0)" ts22.ours.log ||
	fail "ts22: texture"
! grep -Eq 'omp_d|kernel_e' ts22.ours.log || fail "ts22: registered another kind's entry"
cc -fPIC -DV19 -c "$SRC/texsurf.c" -o ts19.o || fail "compile texsurf 19"
compare ts19 32 hip19.hip.image.wrapper.o ts19.o -- --kind=hip --abi=llvm19 hip19.hipfb
grep -q "__hipRegisterTexture(h, tex_c, 'tex_c', 'tex_c', type 9, norm 0, ext 1)" ts19.ours.log ||
	fail "ts19: texture"
grep -q "__hipRegisterFunction(h, kernel_e" ts19.ours.log || fail "ts19: kernel"

# --for: the flavour follows from the host objects' entry tables
auto() {
	local host=$1 expect=$2 img=$3
	"$OFFLINK" wrap --host-triple=$T --for="$host" -o auto.o "$img" || fail "--for=$host"
	cmp auto.o "$expect" || fail "--for=$host chose another flavour than $expect"
}
auto omp22.o omp22.ours.o img.o
auto omp19.o omp19.ours.o img.o
auto hip22.o hip22.ours.o hip22.hipfb
auto hip19.o hip19.ours.o hip19.hipfb
auto cuda22.o cuda22.ours.o cu.fatbin
auto cuda19.o cuda19.ours.o cuda19.fatbin
[ -e omp14.o ] && auto omp14.o omp14.ours.o img.o
expect_fail "$OFFLINK" wrap --for=omp19.o,omp22.o -o x.o img.o
expect_err_line 'different LLVM releases \(llvm19 and llvm20\)'
expect_fail "$OFFLINK" wrap --for=ts22.o -o x.o img.o
expect_err_line 'several offload kinds; name --kind'
"$OFFLINK" wrap --for=ts22.o --kind=hip -o auto.o hip22.hipfb || fail "--for with --kind"
cmp auto.o ts22.ours.o || fail "--for=ts22.o --kind=hip"
expect_fail "$OFFLINK" wrap --for=stub.o -o x.o img.o
expect_err_line 'no offload entry tables'

# Our .eh_frame lets unwinders walk out of the constructors (the stub
# unwinds from inside each registration call).
! grep -l 'UNWINDING STOPS' ./*.log || fail "an unwinder stopped inside a wrapper function"
grep -q 'RegisterFunction.*unwinds to __libc_start_main' hip22.ours.log || fail "no unwind check"
