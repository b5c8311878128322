#!/usr/bin/env bash
# The clang-linker-wrapper personality against LLVM 22's own
# clang-linker-wrapper, on the inputs of LLVM's regression tests for the
# tool (clang/test/Driver/linker-wrapper*.c: images packed by
# llvm-offload-binary, embedded by clang -cc1 -fembed-offload-object):
#
#  - --dry-run prints the same commands (device links, fatbinary,
#    clang-offload-bundler, the host link, relocatable mode's llvm-objcopy,
#    --print-wrapped-module's IR), the six random digits of LLVM's
#    temporary names and the temporary directory aside, with the same exit
#    status and the same messages;
#  - --emit-fatbin-only writes the same bytes, and a HIP compile through
#    clang -B<compat> (new offload driver, non-RDC) gives the same object;
#  - a Windows host: the same lld-link line, and the same wrapper object.
#
# Where offlink differs on purpose (docs/integration.md, "As
# clang-linker-wrapper") the inputs here avoid it: device code of one kind
# per target, archive members the link needs.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/llvm-offload-binary" \
	"$LLVM22/llvm-ar" "$LLVM22/ld.lld" "$LLVM22/lld-link"
# device links must run, in both tools
export OFFLINK_CACHE=0
unset LIBRARY_PATH
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
OURS=$OFL_COMPAT/clang-linker-wrapper
LW=$LLVM22/clang-linker-wrapper
H=--host-triple=x86_64-unknown-linux-gnu

# Inputs as LLVM's test makes them: a host object (which also serves as the
# device "image"), packed with a kind, triple and arch, embedded in a host
# object.
echo '__attribute__((visibility("protected"), used)) int x;' >x.c
"$LLVM22/clang" -cc1 x.c -triple x86_64-unknown-linux-gnu -emit-obj -o elf.o
# pack OUT IMAGE-SPEC...: OUT.o embeds the images
pack() {
	local out=$1
	shift
	"$LLVM22/llvm-offload-binary" -o $out.out "${@/#/--image=}" || fail "pack $out"
	"$LLVM22/clang" -cc1 x.c -triple x86_64-unknown-linux-gnu -emit-obj -o $out.o \
		-fembed-offload-object=$out.out || fail "embed $out"
}
img=file=elf.o,kind=openmp
pack nvptx $img,triple=nvptx64-nvidia-cuda,arch=sm_70 $img,triple=nvptx64-nvidia-cuda,arch=sm_70
pack amdgpu $img,triple=amdgcn-amd-amdhsa,arch=gfx908 $img,triple=amdgcn-amd-amdhsa,arch=gfx908
pack cpu $img,triple=x86_64-unknown-linux-gnu $img,triple=x86_64-unknown-linux-gnu
pack both $img,triple=amdgcn-amd-amdhsa,arch=gfx908 $img,triple=nvptx64-nvidia-cuda,arch=sm_70
pack cuda file=elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70 \
	file=elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52
pack hip file=elf.o,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a \
	file=elf.o,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx908
pack hip1 file=elf.o,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a \
	file=elf.o,kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a
pack cuda1 file=elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_89 \
	file=elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_89
# target IDs: archive members whose images run in several links (a member
# is taken when the device code needs it, here for 'y')
echo 'extern int y; int use(void) { return y; }' >use.c
echo 'int y = 1;' >def.c
"$LLVM22/clang" -cc1 use.c -triple x86_64-unknown-linux-gnu -emit-obj -o use.elf
"$LLVM22/clang" -cc1 def.c -triple x86_64-unknown-linux-gnu -emit-obj -o def.elf
g=kind=openmp,triple=amdgcn-amd-amdhsa
pack on file=use.elf,$g,arch=gfx90a:xnack+
pack off file=use.elf,$g,arch=gfx90a:xnack-
pack t1 file=use.elf,$g,arch=gfx90a
pack t2 file=use.elf,$g,arch=gfx908
pack lib file=def.elf,$g,arch=gfx90a
pack glib file=def.elf,$g,arch=generic
"$LLVM22/llvm-ar" rcs lib.a lib.o
"$LLVM22/llvm-ar" rcs cpu.a cpu.o
"$LLVM22/llvm-ar" rcs glib.a glib.o

# norm FILE: temporary directories and LLVM's random digits out, the
# program's own path out of its messages
norm() {
	sed -E -i "s|$TMPDIR/offlink-[A-Za-z0-9]{6}/|TMP/|g; s|$TMPDIR/|TMP/|g;
		s/-[0-9a-f]{6}\.(img|o|hipfb|fatbin)/.\1/g;
		s|^[^ ]*clang-linker-wrapper: |PROG: |" "$1"
}

# same NAME ARGS...: LLVM's and our clang-linker-wrapper with ARGS: the same
# exit status and the same lines on stderr (and stdout)
same() {
	local name=$1 lrc=0 orc=0
	shift
	"$LW" "$@" >$name.lout 2>$name.llvm || lrc=$?
	"$OURS" "$@" >$name.oout 2>$name.ours || orc=$?
	cat $name.lout >>$name.llvm
	cat $name.oout >>$name.ours
	norm $name.llvm
	norm $name.ours
	[ "$lrc" = "$orc" ] || { cat $name.ours; fail "$name: exit $orc, LLVM $lrc"; }
	diff -u $name.llvm $name.ours || fail "$name: output differs from LLVM 22's"
	[ -s $name.llvm ] || fail "$name: nothing printed"
}

D="$H --dry-run"
same nvptx-link $D --linker-path=/usr/bin/ld nvptx.o -o a.out
same amdgpu-link $D --linker-path=/usr/bin/ld amdgpu.o -o a.out
same device-debug $D --device-compiler=-g --linker-path=/usr/bin/ld nvptx.o -o a.out
same cpu-link $D --linker-path=/usr/bin/ld.lld cpu.o -o a.out
# the host line's archives and --whole-archive switches (LLVM's CPU-LINK)
same cpu-whole-archive $D --linker-path=/usr/bin/ld.lld --whole-archive cpu.a --no-whole-archive \
	cpu.o -o a.out
grep -q -- '-Wl,-Bsymbolic -shared -Wl,--whole-archive cpu.a -Wl,--no-whole-archive$' \
	cpu-whole-archive.ours || fail "cpu: the host's archive not in the device link"
# 23's --no-canonical-prefixes: 22 hands it to the host linker
same no-canonical $D --linker-path=/usr/bin/ld amdgpu.o -o a.out --no-canonical-prefixes
same host-link --dry-run $H -mllvm -openmp-opt-disable --linker-path=/usr/bin/ld.lld -a -b -c elf.o \
	-o a.out
# --wrapper-verbose in a dry run: every command once, the host link too
same host-link-verbose $D --wrapper-verbose --linker-path=/usr/bin/ld elf.o -o a.out
grep -c '"/usr/bin/ld" elf.o -o a.out' host-link-verbose.ours | grep -qx 1 ||
	fail "--dry-run --wrapper-verbose: the host link not printed once"
same nvptx-link-verbose $D --wrapper-verbose --linker-path=/usr/bin/ld nvptx.o -o a.out
same linker-args $D --linker-path=/usr/bin/ld --device-linker=foo=bar --device-linker=a \
	--device-linker=nvptx64-nvidia-cuda=b --device-compiler=foo both.o -o a.out
same cuda $D --linker-path=/usr/bin/ld cuda.o -o a.out
grep -q '"[^"]*fatbinary" -64 --create TMP/a.out.fatbin --image3=kind=elf,sm=70' cuda.ours ||
	fail "cuda: no fatbinary command"
# in parallel LLVM prints the device links in any order
"$OURS" $D --wrapper-jobs=4 --linker-path=/usr/bin/ld cuda.o -o a.out 2>cuda-par.ours ||
	fail "cuda, --wrapper-jobs=4"
grep -q '"[^"]*fatbinary" -64 --create ' cuda-par.ours || fail "cuda, --wrapper-jobs=4: no fatbinary"
# fatbinary as LLVM finds it: on PATH without --cuda-path (CUDA_PATH and
# /usr/local/cuda unread), in <cuda-path>/bin first with it, on PATH when
# not there, the bare name when nowhere
mkdir -p fakecuda/bin pathbin
printf '#!/bin/sh\nexit 0\n' >pathbin/fatbinary
cp pathbin/fatbinary fakecuda/bin/fatbinary
chmod +x pathbin/fatbinary fakecuda/bin/fatbinary
P=$PWD/pathbin:$PATH
CUDA_PATH=$PWD/fakecuda PATH=$P same cuda-on-path $D --linker-path=/usr/bin/ld cuda.o -o a.out
grep -q "\"$PWD/pathbin/fatbinary\" -64" cuda-on-path.ours || fail "fatbinary not found on PATH"
PATH=$P same cuda-path $D --cuda-path=$PWD/fakecuda --linker-path=/usr/bin/ld cuda.o -o a.out
grep -q "\"$PWD/fakecuda/bin/fatbinary\" -64" cuda-path.ours || fail "fatbinary not in --cuda-path"
PATH=$P same cuda-path-missing $D --cuda-path=$PWD/nowhere --linker-path=/usr/bin/ld cuda.o -o a.out
PATH=/usr/bin same cuda-nowhere $D --linker-path=/usr/bin/ld cuda.o -o a.out
grep -q '^ "fatbinary" -64' cuda-nowhere.ours || fail "fatbinary found nowhere: not the bare name"
same hip $D --compress --compression-level=6 --linker-path=/usr/bin/ld hip.o -o a.out
same hip-level $D --compression-level=9 --linker-path=/usr/bin/ld hip.o -o a.out
grep -q 'clang-offload-bundler" -type=o -bundle-align=4096 -compress -compression-level=6' hip.ours ||
	fail "hip: no clang-offload-bundler command"
same missing-library $D -ldummy --linker-path=/usr/bin/ld -o a.out
grep -qx 'PROG: error: unable to find library -ldummy' missing-library.ours || fail "-ldummy"
same no-linker-path
same wrapper-jobs $D --wrapper-jobs=4x --linker-path=/usr/bin/ld elf.o -o a.out
grep -qx "PROG: error: linker path missing, must pass 'linker-path'" no-linker-path.ours ||
	fail "no --linker-path"
same offload-opt $D --offload-opt=-pass-remarks=foo,bar --linker-path=/usr/bin/ld amdgpu.o -o a.out
grep -q -- '-Xlinker --plugin-opt=-pass-remarks=foo,bar' offload-opt.ours || fail "--offload-opt"
same mllvm $D -mllvm -pass-remarks=foo,bar --linker-path=/usr/bin/ld amdgpu.o -o a.out
grep -q -- '-Xlinker -mllvm=-pass-remarks=foo,bar' mllvm.ours || fail "-mllvm"
same amd-target-id $D --linker-path=/usr/bin/ld on.o off.o lib.a -o a.out
grep -c 'lib-amdgcn-amd-amdhsa-gfx90a.o' amd-target-id.ours | grep -qx 2 ||
	fail "the gfx90a member is not in both xnack links"
same arch-all $D --linker-path=/usr/bin/ld t1.o t2.o glib.a -o a.out
grep -c 'glib-amdgcn-amd-amdhsa-generic.o' arch-all.ours | grep -qx 2 ||
	fail "the generic member is not in both links"
for k in cpu hip1 cuda1; do
	same relocatable-$k $D --linker-path=/usr/bin/ld.lld -r $k.o $k.o -o a.out
done
grep -q '"[^"]*llvm-objcopy" a.out --remove-section .llvm.offloading --rename-section llvm_offload_entries=llvm_offload_entries_4b2008fd98c1dd4' \
	relocatable-cpu.ours || fail "-r: no llvm-objcopy"
for k in amdgpu cuda hip; do
	same wrapped-$k --print-wrapped-module $D --linker-path=/usr/bin/ld $k.o -o a.out
done
grep -q '^define internal void @.omp_offloading.descriptor_reg()' wrapped-amdgpu.ours ||
	fail "--print-wrapped-module"
# the host line as LLVM renders it (-l X, -L X, --rpath X, --relocatable)
same render $D --linker-path=/usr/bin/ld amdgpu.o --output=zz -L/usr/lib/x86_64-linux-gnu -lc \
	-rpath=/x -rpath /y -R/q -l:libc.so.6
# A Windows host: the wrapper object goes after -out:, in COFF
"$LLVM22/clang" -cc1 x.c -triple x86_64-unknown-windows-msvc -emit-obj -o coff.o \
	-fembed-offload-object=nvptx.out
same coff --host-triple=x86_64-unknown-windows-msvc --dry-run --linker-path=/usr/bin/lld-link coff.o \
	-libpath:./ -out:a.exe
grep -q '"/usr/bin/lld-link" coff.o -libpath:./ -out:a.exe TMP/a.exe.openmp.image.wrapper.o' coff.ours ||
	fail "coff: lld-link line"
same wrapped-coff --print-wrapped-module --host-triple=x86_64-unknown-windows-msvc --dry-run \
	--linker-path=/usr/bin/lld-link coff.o -out:a.exe
grep -q '^@__start_llvm_offload_entries = weak_odr hidden constant .*section "llvm_offload_entries$OA"' \
	wrapped-coff.ours || fail "coff: the entry table's bounds"

# --emit-fatbin-only: the dry run writes what LLVM's writes (an
# OffloadBinary with an empty image for OpenMP, nothing for CUDA and HIP)
for k in hip1 cuda1 cpu; do
	"$LW" $D --linker-path=/usr/bin/ld --emit-fatbin-only $k.o -o $k.llvm.fb 2>$k.fb.llvm
	"$OURS" $D --linker-path=/usr/bin/ld --emit-fatbin-only $k.o -o $k.ours.fb 2>$k.fb.ours ||
		fail "$k: --emit-fatbin-only"
	norm $k.fb.llvm
	norm $k.fb.ours
	sed -i "s/\.\(llvm\|ours\)\.fb/.fb/g" $k.fb.llvm $k.fb.ours
	diff -u $k.fb.llvm $k.fb.ours || fail "$k: --emit-fatbin-only dry run differs from LLVM's"
	cmp $k.llvm.fb $k.ours.fb || fail "$k: --emit-fatbin-only dry run wrote other bytes than LLVM"
done
# each kind's bundle in turn, the last one kept; two OpenMP images are no
# single bundle
same two-kinds $D --linker-path=/usr/bin/ld --emit-fatbin-only cpu.o hip.o -o x.fb
same two-bundles $D --linker-path=/usr/bin/ld --emit-fatbin-only cpu.o amdgpu.o -o x.fb
grep -q 'Expected a single bundled image for direct fat binary output' two-bundles.ours ||
	fail "two bundles: no error"

# Real runs, AMDGPU: the device links are LLVM's commands, so the bytes
# match.  The HIP compile of clang's new offload driver runs the wrapper
# with --emit-fatbin-only; through -B<compat> it runs ours (the CUID fixed:
# clang derives it from the command line, which -B changes).
STUB=$OFL_SRC/tests/interop/wrap_stub_src
HIPC=(-x hip --offload-new-driver --offload-arch=gfx90a,gfx1200 -nogpuinc -nogpulib -cuid=fixed -c)
"$LLVM22/clang" "${HIPC[@]}" "$STUB/gpu.cu" -o ref.o || fail "clang -x hip"
"$LLVM22/clang" -B"$OFL_COMPAT" "${HIPC[@]}" "$STUB/gpu.cu" -o ours.o || fail "clang -B<compat> -x hip"
"$LLVM22/clang" -B"$OFL_COMPAT" "${HIPC[@]}" "$STUB/gpu.cu" -o dry.o -### 2>hip.cmds
grep -q "\"$OFL_COMPAT/clang-linker-wrapper\" .*--emit-fatbin-only" hip.cmds || fail "clang does not run ours"
cmp ref.o ours.o || fail "HIP compile through -B<compat>: the object differs from LLVM's"
"$LLVM22/clang" "${HIPC[@]}" --offload-compress "$STUB/gpu.cu" -o refz.o || fail "compressed"
"$LLVM22/clang" -B"$OFL_COMPAT" "${HIPC[@]}" --offload-compress "$STUB/gpu.cu" -o oursz.o ||
	fail "compressed, -B<compat>"
cmp refz.o oursz.o || fail "HIP compile with --offload-compress: the object differs from LLVM's"
cmp ref.o refz.o >/dev/null && fail "--offload-compress compressed nothing"
# the fat binary by itself, from an object of the RDC flow
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 -c "$STUB/gpu.cu" -o rdc.o || fail "clang -fgpu-rdc"
R="$H --linker-path=/usr/bin/ld --device-compiler=amdgcn-amd-amdhsa=-flto-partitions=8"
"$LW" $R --emit-fatbin-only rdc.o -o rdc.llvm.hipfb || fail "LLVM's --emit-fatbin-only"
"$OURS" $R --emit-fatbin-only rdc.o -o rdc.ours.hipfb || fail "our --emit-fatbin-only"
cmp rdc.llvm.hipfb rdc.ours.hipfb || fail "--emit-fatbin-only: the .hipfb differs from LLVM's"
# CUDA: fatbinary's output, the same bytes (with CUDA's tools), and
# --wrapper-verbose names the fatbinary command that ran
CUDA=${CUDA_PATH:-/usr/local/cuda}
if [ -x "$CUDA/bin/nvlink" ] && [ -x "$CUDA/bin/fatbinary" ]; then
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_80 \
		-c "$STUB/gpu.cu" -o cu.o 2>/dev/null || fail "clang -x cuda"
	C="$H --linker-path=/usr/bin/ld --emit-fatbin-only"
	"$LW" $C cu.o -o cu.llvm.fatbin || fail "LLVM's --emit-fatbin-only (cuda)"
	"$OURS" $C --wrapper-verbose cu.o -o cu.ours.fatbin 2>cu.err || fail "our --emit-fatbin-only (cuda)"
	cmp cu.llvm.fatbin cu.ours.fatbin || fail "--emit-fatbin-only: the .fatbin differs from LLVM's"
	grep -q '"[^"]*fatbinary" -64 --create .* --image3=kind=elf,sm=80,file=' cu.err ||
		fail "--wrapper-verbose: no fatbinary command"
else
	echo "CUDA toolkit not installed: CUDA fat binary not compared"
fi
# --print-wrapped-module of a real run: the bundle's bytes are in the IR
"$LW" $R --print-wrapped-module --linker-path=/bin/true rdc.o -o w 2>wrapped.llvm >/dev/null ||
	fail "LLVM's --print-wrapped-module"
"$OURS" $R --print-wrapped-module --linker-path=/bin/true rdc.o -o w 2>wrapped.ours >/dev/null ||
	fail "our --print-wrapped-module"
diff -u wrapped.llvm wrapped.ours || fail "--print-wrapped-module differs from LLVM's"

# -r, linked: LLVM's relocatable mode, the entry table private under the
# same name (hash aside), the input images gone
RL=(--linker-path=/usr/bin/ld --device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all -r)
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o ompgpu.o ||
	fail "clang -fopenmp --offload-arch=gfx90a"
"$LW" $H "${RL[@]}" ompgpu.o -o rel.llvm.o || fail "LLVM -r"
"$OURS" $H "${RL[@]}" ompgpu.o -o rel.ours.o || fail "our -r"
for k in llvm ours; do
	readelf -SW rel.$k.o | sed -nE 's/.*\] ([^ ]+) .*/\1/p' |
		sed -E 's/_[0-9a-f]{1,16}$/_HASH/' | sort >rel.$k.sec
done
diff -u rel.llvm.sec rel.ours.sec || fail "-r: the sections differ from LLVM's"
grep -qx 'llvm_offload_entries_HASH' rel.ours.sec && ! grep -qx '.llvm.offloading' rel.ours.sec ||
	fail "-r: entry table not made private, or input images left"

# OpenMP's fat binary: the linked image as an OffloadBinary, LLVM's bytes
O="$H --linker-path=/usr/bin/ld --emit-fatbin-only --device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all"
"$LW" $O ompgpu.o -o omp.llvm.bin || fail "LLVM's --emit-fatbin-only (openmp)"
"$OURS" $O ompgpu.o -o omp.ours.bin || fail "our --emit-fatbin-only (openmp)"
cmp omp.llvm.bin omp.ours.bin || fail "--emit-fatbin-only: the OpenMP binary differs from LLVM's"

# A Windows host, linked: LLVM's wrapper object (--save-temps) and ours are
# the same bytes (amdgcn device code: the same device link)
"$LLVM22/clang" --target=x86_64-pc-windows-msvc -nostdinc -fopenmp --offload-arch=gfx90a -nogpulib \
	-c "$STUB/omp.c" -o omp.obj || fail "clang --target=x86_64-pc-windows-msvc -fopenmp"
W=(--host-triple=x86_64-pc-windows-msvc --linker-path=/bin/true
	--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all omp.obj -out:w.exe)
mkdir -p win && (cd win && "$LW" "${W[@]/#omp.obj/../omp.obj}" --save-temps) ||
	fail "LLVM: Windows host"
"$OURS" "${W[@]}" --save-temps 2>win.err || { cat win.err; fail "ours: Windows host"; }
kept=$(sed -n 's/.*temporaries kept in //p' win.err)
cmp win/w.exe.openmp.image.wrapper.o "$kept/openmp.wrapper.o" ||
	fail "Windows host: the COFF wrapper object differs from LLVM's"
echo "clang-linker-wrapper personality: the commands, bytes and exit status of LLVM 22's"
