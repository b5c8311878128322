#!/usr/bin/env bash
# Host LTO objects keep their device code as globals in section
# ".llvm.offloading" of the bitcode module.  ofl_bitcode_section_globals
# (through bitcode_src/bcglobals.c, built here against this build's
# library) must find exactly the bytes LLVM puts in that section when it
# compiles the module (llc, then objcopy --dump-section): clang 19 and 22,
# full and thin LTO, x86_64 and AMDGPU offloading, three
# -fembed-offload-object globals (CSTRING of char6 and of 7-bit elements,
# STRING), and llvm-cat -b's two modules.  The section names it lists are
# those llvm-dis prints; the entry tables' name tells 19 from 22.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?OFL_BUILD must point at the build tree}"
need cc objcopy pkg-config "$LLVM19/clang" "$LLVM22/clang" "$LLVM19/llc" "$LLVM22/llc" \
	"$LLVM22/llvm-dis" "$LLVM22/llvm-cat"

cache=$OFL_BUILD/CMakeCache.txt
CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache")
san=()
! grep -q '^OFL_SANITIZE:BOOL=ON' "$cache" || san=(-fsanitize=address,undefined)
# shellcheck disable=SC2046
"${CC:-cc}" "${san[@]}" -I"$OFL_SRC/core/include" "$OFL_SRC/tests/interop/bitcode_src/bcglobals.c" \
	"$OFL_BUILD/lib/libofflink.a" $(pkg-config --libs libelf zlib libzstd libxxhash libmd) \
	-lpthread -o bcglobals || fail "cannot build bcglobals"

# globals FILE: bcglobals' list in FILE.list, the globals' bytes laid out as
# a linker section (8-aligned, as clang aligns them) in FILE.sec
globals() {
	local n i
	./bcglobals "$1" .llvm.offloading "$1.g" >"$1.list" 2>err || { cat err; fail "bcglobals $1"; }
	n=$(grep -c '^global ' "$1.list") || fail "$1: no global in .llvm.offloading"
	: >"$1.sec"
	for ((i = 0; i < n; i++)); do
		[ $i -eq 0 ] || head -c $(((8 - $(stat -c %s "$1.sec") % 8) % 8)) /dev/zero >>"$1.sec"
		cat "$1.g$i" >>"$1.sec"
	done
}

# check FILE VERSION ENTRIES: FILE's globals are the section llc VERSION
# makes of it; its section names are llvm-dis's, the entry table's among them
check() {
	local f=$1 v=LLVM$2
	globals "$f"
	"${!v}/llc" -filetype=obj "$f" -o "$f.obj" || fail "llc-$2 $f"
	objcopy --dump-section .llvm.offloading="$f.ref" "$f.obj" junk.o ||
		fail "llc-$2 wrote no .llvm.offloading for $f"
	cmp "$f.sec" "$f.ref" || fail "$f: the globals are not the section llc-$2 writes"
	"$LLVM22/llvm-dis" "$f" -o - | sed -n 's/.*, section "\([^"]*\)".*/\1/p' | sort -u >dis.sec
	sed -n 's/^section 0 //p' "$f.list" | sort -u >our.sec
	diff dis.sec our.sec || fail "$f: section names differ from llvm-dis's"
	[ -z "${3:-}" ] || grep -qx "section 0 $3" "$f.list" || fail "$f: no $3"
}

printf 'hello_World.9\0' >c6.bin
printf 'Hi there!\0' >c7.bin
randbytes 3 3000 >s8.bin
cp "$OFL_SRC/tests/fixtures/bitcode/omp.c" "$OFL_SRC/tests/fixtures/bitcode/h.c" .
for v in 19 22; do
	cc=LLVM$v
	cc=${!cc}/clang
	entries=llvm_offload_entries
	[ $v = 22 ] || entries=omp_offloading_entries
	"$cc" -flto -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o full$v.bc
	"$cc" -flto=thin -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o thin$v.bc
	"$cc" -flto -fopenmp --offload-arch=gfx90a,gfx1030 -nogpulib -c omp.c -o amd$v.bc
	"$cc" -flto -c h.c -o embed$v.bc -Xclang -fembed-offload-object=c6.bin \
		-Xclang -fembed-offload-object=c7.bin -Xclang -fembed-offload-object=s8.bin
	check full$v.bc $v $entries
	check thin$v.bc $v $entries
	check amd$v.bc $v $entries
	check embed$v.bc $v
	[ "$(grep -c '^global ' embed$v.bc.list)" = 3 ] || fail "embed$v.bc: not three globals"
	cmp embed$v.bc.g0 c6.bin && cmp embed$v.bc.g1 c7.bin && cmp embed$v.bc.g2 s8.bin ||
		fail "embed$v.bc: the globals are not the embedded files"
	# one global holds both arches' OffloadBinaries, back to back
	"$OFFLINK" inspect amd$v.bc.g0 >inspect.out || fail "offlink inspect amd$v.bc.g0"
	[ "$(grep -cE '^    arch = "gfx(90a|1030)"$' inspect.out)" = 2 ] || fail "amd$v.bc: not two arches"
done

# llvm-cat -b: each module has its own numbering; module 1's globals are
# those of the second file, read alone
"$LLVM22/llvm-cat" -b -o cat.bc embed22.bc full22.bc || fail "llvm-cat -b"
globals cat.bc
cmp cat.bc.g0 embed22.bc.g0 && cmp cat.bc.g2 embed22.bc.g2 && cmp cat.bc.g3 full22.bc.g0 ||
	fail "cat.bc: the modules' globals differ from each file's"
grep -q '^global 1 llvm.embedded.object ' cat.bc.list || fail "cat.bc: no global in module 1"
grep -qx 'section 1 llvm_offload_entries' cat.bc.list || fail "cat.bc: module 1's sections"
echo "bitcode globals: clang 19 and 22, LTO and ThinLTO, x86_64 and AMDGPU, as llc lays them out"
