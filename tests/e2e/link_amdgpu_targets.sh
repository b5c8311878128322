#!/usr/bin/env bash
# AMDGPU device code grouped, and archive members chosen, as the LLVM that
# wrote it does (issue 36, items 2 and 6), without a GPU.  HIP objects of
# clang 22 (new driver, -fgpu-rdc) and the same objects re-spelled as LLVM
# main writes them (amdgpu9.0a-amd-amdhsa with no arch, amdgpu-amd-amdhsa),
# linked through ld.offlink (gcc -B), the linker plugin (ld.bfd) and the
# clang-linker-wrapper personality acting as 22 and 23; the code objects'
# symbols say what each link took, and the personality's dry run is LLVM
# 22's own, device link for device link:
#   - LLVM 22's rule: a plain gfx90a member the host link takes is linked
#     into the gfx90a:xnack+ and gfx90a:xnack- links (no gfx90a link of its
#     own, which offlink made and the HIP bundle refused), a generic member
#     into every link;
#   - main's: one ISA spelled amdgpu9.0a (no arch), amdgpu and amdgcn is
#     one link (clang 22 gets it as amdgcn with -mcpu from the
#     sub-architecture); members join every link they serve; offlink inspect
#     --gpu judges such an image for that processor.
source "$OFL_SRC/tests/lib.sh"
need cc ld.bfd objcopy ar "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" \
	"$LLVM22/llvm-offload-binary" "$LLVM22/llvm-readelf"
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
[ -f "$PLUGIN" ] || fail "$PLUGIN not built"
export OFFLINK_CACHE=0
unset LIBRARY_PATH
mkdir tmp
export TMPDIR=$PWD/tmp
STUB=$OFL_SRC/tests/interop/wrap_stub_src
GCCDIR=$OFL_BUILD/libexec/offlink/gcc
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
hip_runtime_standin

# Kernels in HIP (no headers), a library kernel its host code hands out,
# and a generic member's device variable (device bitcode for no processor,
# packed with arch=generic as LLVM's own tests pack one)
kernel() { # NAME: NAME.hip, a kernel NAMEk and extern "C" NAME_keep
	cat >$1.hip <<EOF
#define __global__ __attribute__((global))
typedef struct { unsigned x, y, z; } dim3;
typedef struct stream *stream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, stream_t);
__global__ void ${1}k(int *p) { *p = 1; }
extern "C" void *${1}_keep(void) { return (void *)${1}k; }
EOF
}
HIPC=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib -fPIC -c)
for k in app app2 lib; do kernel $k; done
"$LLVM22/clang" "${HIPC[@]}" --offload-arch=gfx90a:xnack+ --offload-arch=gfx90a:xnack- app.hip \
	-o app.o || fail "clang -x hip app"
"$LLVM22/clang" "${HIPC[@]}" --offload-arch=gfx90a app2.hip -o app2.o || fail "clang -x hip app2"
"$LLVM22/clang" "${HIPC[@]}" --offload-arch=gfx90a lib.hip -o lib.o || fail "clang -x hip lib"
echo '__attribute__((visibility("protected"), used)) int gen_var = 5;' >gen_dev.c
echo 'void *gen_keep(void) { return 0; }' >gen_host.c
"$LLVM22/clang" -cc1 gen_dev.c -triple amdgcn-amd-amdhsa -emit-llvm-bc -o gen.bc || fail "gen.bc"
# embed OBJ HOST-SRC IMAGE-SPEC...: OBJ, HOST-SRC's code with the images
embed() {
	local obj=$1 src=$2
	shift 2
	"$LLVM22/llvm-offload-binary" -o $obj.bin "${@/#/--image=}" || fail "pack $obj"
	"$LLVM22/clang" -cc1 $src -triple x86_64-unknown-linux-gnu -emit-obj -mrelocation-model pic \
		-pic-level 2 -fembed-offload-object=$obj.bin -o $obj || fail "embed $obj"
}
embed gen.o gen_host.c file=gen.bc,kind=hip,triple=amdgcn-amd-amdhsa,arch=generic
ar rcs libk.a lib.o gen.o
# the host link takes both members for the caller's references only
printf 'void *lib_keep(void); void *gen_keep(void);\n%s\n' \
	'void *(*ofl_keep[])(void) = {lib_keep, gen_keep};' >caller.c
cc -fPIC -c caller.c || fail "compile caller"

# code PROG: each code object of PROG's HIP bundle (its entry ID) and the
# functions and variables it defines, kernel descriptors left out
code() {
	local f
	rm -rf img
	"$OFFLINK" inspect --extract-all=img "$1" >/dev/null || fail "inspect $1"
	for f in img/*hip-amdgcn*; do
		echo "${f##*--}: $("$LLVM22/llvm-readelf" -sW "$f" |
			awk '($4 == "FUNC" || $4 == "OBJECT") && $8 !~ /\.kd$|^__hip_cuid/ {print $8}' |
			sort -u | tr '\n' ' ')"
	done
}

# links NAME WANT OBJS...: the program of OBJS (with the caller, the stub
# runtime and libk.a) through ld.offlink and the plugin: its code objects
# as WANT (a file) lists them
links() {
	local name=$1 want=$2
	shift 2
	mkdir -p ld_$name pl_$name
	cc -rdynamic stub.o caller.o "$@" -L. -lk -ldl -B"$GCCDIR" -o ld_$name/prog ||
		fail "$name: ld.offlink"
	plink cc -fuse-ld=bfd -rdynamic stub.o caller.o "$@" -L. -lk -ldl -Wl,-plugin,"$PLUGIN" \
		-o pl_$name/prog || fail "$name: the plugin"
	for d in ld_$name pl_$name; do
		code $d/prog >$d.code
		diff -u $want $d.code || fail "$name: $d: the code objects are not those LLVM links"
	done
}

# wrapper CLANG-LINK-ARGS...: clang 22's clang-linker-wrapper command
# for a HIP link of those arguments (to WRAPPER)
wrapper() {
	WRAPPER=$("$LLVM22/clang" --offload-new-driver -fgpu-rdc --hip-link -rdynamic "$@" -L. -lk \
		-ldl -o prog -### 2>&1 | grep clang-linker-wrapper) || fail "no clang-linker-wrapper in -###"
}

# ours: WRAPPER running the personality
ours() { sed "s|$LLVM22/clang-linker-wrapper|$OFL_COMPAT/clang-linker-wrapper|" <<<"$WRAPPER"; }

# dry LLVM|22|23 OUT: WRAPPER's --dry-run by LLVM 22's wrapper, or by the
# personality acting as 22 or 23: its device links (-dumpdir), temporary folders and
# LLVM's random digits out
dry() {
	local w=$WRAPPER
	[ "$1" = LLVM ] || w=$(ours)
	[ "$1" = LLVM ] || export OFFLINK_LLVM_VERSION=$1
	eval "$w --dry-run --wrapper-verbose" 2>$2.raw || fail "$1: dry run"
	unset OFFLINK_LLVM_VERSION
	grep -- ' -dumpdir ' $2.raw |
		sed -E "s|$TMPDIR/offlink-[A-Za-z0-9]{6}/||g; s|$TMPDIR/||g; s/-[0-9a-f]{6}\.(img|o)/.\1/g" |
		sort >$2
}

# ---- LLVM 22's rule ---------------------------------------------------------
cat >want22 <<'EOF'
gfx90a_xnack+.o: _Z4appkPi _Z4libkPi gen_var 
gfx90a_xnack-.o: _Z4appkPi _Z4libkPi gen_var 
EOF
links r22 want22 app.o
X=(--offload-arch=gfx90a:xnack+ --offload-arch=gfx90a:xnack-)
wrapper "${X[@]}" stub.o caller.o app.o
dry LLVM r22.llvm
[ "$(wc -l <r22.llvm)" = 2 ] || { cat r22.llvm; fail "LLVM 22's dry run: two device links expected"; }
for v in 22 23; do
	dry $v r22.$v
	diff -u r22.llvm r22.$v || fail "acting as $v: the device links are not LLVM 22's"
done
# the personality's own link: the code LLVM 22 links
eval "$(ours)" || fail "the personality's link"
code prog >cw22.code
diff -u want22 cw22.code || fail "the personality's code objects are not LLVM 22's"
# objects: a gfx90a object read after the xnack ones is in all three links
# (the order LLVM's wrapper reads them in)
wrapper "${X[@]}" --offload-arch=gfx90a stub.o caller.o app.o app2.o
dry LLVM r22b.llvm
dry 22 r22b.22
[ "$(wc -l <r22b.llvm)" = 3 ] && diff -u r22b.llvm r22b.22 ||
	fail "three objects: the device links are not LLVM 22's"

# ---- main's spellings ---------------------------------------------------------
# respell OBJ OUT IMAGE-SPEC...: OBJ with its device code packed anew as the
# specs say (file=<extracted image>)
respell() {
	local obj=$1 out=$2
	shift 2
	"$LLVM22/llvm-offload-binary" -o $out.bin "${@/#/--image=}" || fail "repack $out"
	cp $obj $out
	objcopy --update-section .llvm.offloading=$out.bin $out || fail "respell $out"
}
"$LLVM22/llvm-offload-binary" app.o --image=file=on.bc,arch=gfx90a:xnack+ \
	--image=file=off.bc,arch=gfx90a:xnack- || fail "extract app.o"
"$LLVM22/llvm-offload-binary" app2.o --image=file=app2.bc,arch=gfx90a || fail "extract app2.o"
respell app.o app24.o file=on.bc,kind=hip,triple=amdgpu9.0a-amd-amdhsa,arch=gfx90a:xnack+ \
	file=off.bc,kind=hip,triple=amdgpu9.0a-amd-amdhsa,arch=gfx90a:xnack-
respell app2.o app2_24.o file=app2.bc,kind=hip,triple=amdgpu9.0a-amd-amdhsa
embed gen24.o gen_host.c file=gen.bc,kind=hip,triple=amdgpu-amd-amdhsa,arch=generic
# app2 alone (arch-less amdgpu9.0a) with app (amdgpu, gfx90a) and the
# members (amdgcn gfx90a, amdgpu generic): one link
respell app2.o app2_gfx90a.o file=app2.bc,kind=hip,triple=amdgpu-amd-amdhsa,arch=gfx90a
mv libk.a libk22.a
ar rcs libk.a lib.o gen24.o
cat >want_one <<'EOF'
gfx90a.o: _Z4libkPi _Z5app2kPi gen_var 
EOF
links one want_one app2_24.o
# the device link ld.offlink runs: clang 22 takes the legacy spelling, the
# processor the sub-architecture names
cc -rdynamic stub.o caller.o app2_24.o -L. -lk -ldl -B"$GCCDIR" -Wl,--dry-run -o dry 2>one.ours ||
	fail "one: ld.offlink --dry-run"
grep -c -- '--no-default-config' one.ours | grep -qx 1 &&
	grep -q '"--target=amdgcn-amd-amdhsa" "-mcpu=gfx90a"' one.ours ||
	{ cat one.ours; fail "one: not one device link for amdgcn-amd-amdhsa, -mcpu=gfx90a"; }
# the personality prints main's own command: the triple as written, no
# -mcpu, the sub-architecture in the names
wrapper --offload-arch=gfx90a stub.o caller.o app2_24.o
dry 23 one.23
[ "$(wc -l <one.23)" = 1 ] && grep -q -- '-dumpdir prog.amdgpu9.0a..img. --target=amdgpu9.0a-amd-amdhsa -flto -Wl,--no-undefined [^ ]*app2_24-amdgpu9.0a-amd-amdhsa-.o [^ ]*lib-amdgcn-amd-amdhsa-gfx90a.o [^ ]*gen24-amdgpu-amd-amdhsa-generic.o' one.23 ||
	{ cat one.23; fail "one, acting as 23: not main's device link"; }
# three spellings of gfx90a (amdgpu9.0a, amdgpu, amdgcn): one link, named
# after the first
cc -rdynamic stub.o caller.o app2_24.o app2_gfx90a.o lib.o -B"$GCCDIR" -Wl,--dry-run \
	-Wl,--explain=spell.explain -o dry 2>/dev/null || fail "three spellings: ld.offlink --dry-run"
grep -q '^device link 0: amdgpu9.0a-amd-amdhsa (no arch), 3 image(s)' spell.explain &&
	! grep -q '^device link 1:' spell.explain ||
	{ cat spell.explain; fail "amdgpu9.0a, amdgpu and amdgcn gfx90a: not one link"; }
# xnack: the plain gfx90a member (amdgcn, as 22 wrote it) serves both links
links x24 want22 app24.o
wrapper "${X[@]}" stub.o caller.o app24.o
dry 23 x24.23
[ "$(wc -l <x24.23)" = 2 ] && [ "$(grep -c 'lib-amdgcn-amd-amdhsa-gfx90a.o' x24.23)" = 2 ] ||
	{ cat x24.23; fail "xnack, acting as 23: the gfx90a member not in both links"; }
eval "$(ours)" || fail "the personality's link of main's objects"
code prog >cw24.code
diff -u want22 cw24.code || fail "the personality's code objects (main's objects)"

# offlink inspect --gpu: an image of main's with no arch is for the
# processor its triple's sub-architecture names
echo 'int x;' | "$LLVM22/clang" --target=amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -x c -c - \
	-o amd.o || fail "compile for gfx90a"
"$LLVM22/llvm-offload-binary" -o amd24.bin \
	--image=file=amd.o,kind=openmp,triple=amdgpu9.0a-amd-amdhsa || fail "pack amd24.bin"
"$OFFLINK" inspect --runtime=22 --gpu=gfx90a amd24.bin >out || { cat out; fail "gfx90a: no load"; }
expect_fail "$OFFLINK" inspect --runtime=22 --gpu=gfx942 amd24.bin
grep -q 'gfx90a image, gfx942 GPU' out || { cat out; fail "gfx942: not said why"; }
