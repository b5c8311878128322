#!/bin/bash
# offlink inspect on real artefacts: clang-19/22 OpenMP objects, an ld -r
# merge of 20, static and thin libraries of them, an executable linked by
# clang, bundler fat objects in an archive, a compressed bundle, a HIP device
# bundle, and (where nvcc is installed) a CUDA object.  Checks the tree, the
# llvm-objdump format on archives against llvm-objdump 19 and 22, --extract
# and --extract-all against what LLVM's own tools extract, and --check.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang" "$LLVM22/clang" "$LLVM19/llvm-objdump" "$LLVM22/llvm-objdump" \
	"$LLVM22/llvm-ar" "$LLVM22/clang-offload-bundler" "$LLVM22/clang-offload-packager" ld \
	python3

cat >omp.c <<'C'
int FN(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
for i in $(seq 1 20); do
	v=$((i % 2 ? 19 : 22))
	"$(eval echo \$LLVM$v)/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -DFN=f$i \
		-c omp.c -o "omp$i.o"
done
ld -r omp*.o -o merged20.o
"$LLVM22/llvm-ar" rc libomp20.a omp1.o omp2.o omp3.o
mkdir sub && cp omp4.o omp5.o sub/
(cd sub && "$LLVM22/llvm-ar" rc --thin libthin.a omp4.o omp5.o)

# The tree of an archive: member -> section -> image, with the strings.
"$OFFLINK" inspect libomp20.a >tree.txt
grep -q '^libomp20.a: ar archive, ' tree.txt || { cat tree.txt; fail "archive line"; }
[ "$(grep -c '^  (omp[123].o): elf64-x86-64, ' tree.txt)" = 3 ] || fail "members"
[ "$(grep -c '^    /.llvm.offloading: offload binary, ' tree.txt)" = 3 ] || fail "sections"
[ "$(grep -c '^      \[0\]: image elf, producer openmp, ' tree.txt)" = 3 ] || fail "images"
grep -q '^        triple = "x86_64-pc-linux-gnu"$' tree.txt || fail "strings"

# llvm-objdump --offloading on archives (and a thin one), 19 and 22.
for v in 19 22; do
	for f in libomp20.a sub/libthin.a merged20.o; do
		"$(eval echo \$LLVM$v)/llvm-objdump" --offloading "$f" >l.out
		"$OFFLINK" inspect --format=llvm-objdump --llvm-version=$v "$f" >o.out
		cmp l.out o.out || { diff l.out o.out | head; fail "objdump format: $f ($v)"; }
	done
done

# Thin members are read beside the archive.
"$OFFLINK" inspect --json sub/libthin.a >thin.json
python3 - <<'PY'
import json
f = json.load(open("thin.json"))["files"][0]
assert f["format"] == "thin ar archive", f
m = f["children"][1]
assert m["selector"] == "sub/libthin.a(omp5.o)" and m["offset"] == 0, m
img = m["children"][0]["children"][0]
assert img["strings"]["triple"] == "x86_64-pc-linux-gnu" and img["image_kind_name"] == "elf"
PY

# --extract of an image equals what clang-offload-packager extracts.
"$OFFLINK" inspect --extract 'libomp20.a(omp2.o)/.llvm.offloading[0]' -o img2.o
"$LLVM22/clang-offload-packager" omp2.o --image=triple=x86_64-pc-linux-gnu,file=pk2.o
same img2.o pk2.o
"$OFFLINK" inspect --extract 'merged20.o/.llvm.offloading[19]' -o m19.o
python3 - <<'PY'
# The 20th image of the merge, found by walking the blobs by hand.
import struct
d = open("merged20.o", "rb").read()
pos, imgs = d.find(b"\x10\xff\x10\xad"), []
while pos >= 0 and len(imgs) < 20:
	size = struct.unpack_from("<Q", d, pos + 8)[0]
	eoff = struct.unpack_from("<Q", d, pos + 16)[0]
	ioff, isz = struct.unpack_from("<QQ", d, pos + eoff + 24)
	imgs.append(d[pos + ioff:pos + ioff + isz])
	pos = d.find(b"\x10\xff\x10\xad", pos + size)
assert len(imgs) == 20 and open("m19.o", "rb").read() == imgs[19]
PY
expect_fail "$OFFLINK" inspect --extract 'merged20.o/.llvm.offloading[20]' -o no.o
expect_err_line "names no layer of 'merged20.o'"
[ ! -e no.o ] || fail "nothing may be written for a missing selector"

# An executable linked by clang keeps its image in .llvm.offloading.
printf 'int f2(int);\nint main(void) { return f2(3) != 3; }\n' >main.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu omp2.o main.c -o exe \
	-L/usr/lib/llvm-22/lib -Wl,-rpath,/usr/lib/llvm-22/lib -DFN=x 2>link.err ||
	{ cat link.err >&2; fail "clang could not link the OpenMP executable"; }
"$OFFLINK" inspect exe >exe.txt
grep -q '^  /.llvm.offloading: offload binary, ' exe.txt || { cat exe.txt; fail "exe"; }
"$LLVM22/llvm-objdump" --offloading exe >l.out
"$OFFLINK" inspect --format=llvm-objdump exe >o.out
same l.out o.out
"$OFFLINK" inspect --check x86_64 exe >chk.txt
grep -q '^exact match: exe/.llvm.offloading\[0\] (x86_64-pc-linux-gnu)$' chk.txt ||
	{ cat chk.txt; fail "check exe"; }

# HIP device bundle, bundler fat objects in an archive, a compressed bundle.
printf '__attribute__((global)) void k(int *p) { *p = 1; }\n' >k.hip
"$LLVM22/clang" -x hip --offload-arch=gfx90a:xnack+ -nogpulib -nogpuinc --cuda-device-only \
	-c k.hip -o k.hipfb
printf 'int devcode;\n' >dev.c
"$LLVM22/clang" -c dev.c -o host.o
B="$LLVM22/clang-offload-bundler"
"$B" -type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+ \
	-input=host.o -input=k.hipfb -output=fat.o
"$LLVM22/llvm-ar" rc libfat.a fat.o
"$B" -type=bc -compress \
	-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+,hip-amdgcn-amd-amdhsa--gfx1030 \
	-input=k.hipfb -input=dev.c -output=c.bundle
"$OFFLINK" inspect libfat.a c.bundle >b.txt
grep -q '^  (fat.o): elf64-x86-64, ' b.txt || { cat b.txt; fail "fat member"; }
grep -q '^    /hip-amdgcn-amd-amdhsa--gfx90a:xnack+: bundle entry, bundle, ' b.txt || fail "entry"
grep -q '^      /hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+: bundle entry, elf64-amdgpu, ' b.txt ||
	fail "device code inside the entry"
grep -Eq '^c.bundle: compressed bundle, [0-9]+ bytes, zstd, [0-9]+ bytes inflated \(ratio [0-9.]+\)$' \
	b.txt || fail "ccob ratio"
grep -q '^  /hip-amdgcn-amd-amdhsa--gfx1030: bundle entry, data, 13 bytes at 0x[0-9a-f]* (inflated)$' \
	b.txt || { cat b.txt; fail "inflated entry"; }
"$B" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+ -input=c.bundle -output=u.bin
"$OFFLINK" inspect --extract 'c.bundle/hip-amdgcn-amd-amdhsa--gfx90a:xnack+' -o x.bin
same u.bin x.bin
"$OFFLINK" inspect --check amdgcn-amd-amdhsa--gfx90a:xnack+ libfat.a >chk.txt
grep -q '^exact match: libfat.a(fat.o)/hip-amdgcn-amd-amdhsa--gfx90a:xnack+/hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+$' \
	chk.txt || { cat chk.txt; fail "check exact"; }
"$OFFLINK" inspect --check gfx90a:xnack+:sramecc- k.hipfb >chk.txt
grep -q '^compatible: k.hipfb/hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+$' chk.txt ||
	{ cat chk.txt; fail "check compatible"; }
expect_fail "$OFFLINK" inspect --check amdgcn-amd-amdhsa--gfx90a:xnack- k.hipfb
grep -q "no image for 'amdgcn-amd-amdhsa--gfx90a:xnack-'; present:" err || fail "check none"
grep -q '^  k.hipfb/hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+$' err || fail "check lists images"

# llvm-objdump 22 also writes out the entries of bundles it finds at the
# start of sections (two bundles back to back in one, a CCOB in another):
# the same files, with the same bytes but for the CCOB's entries, which 22
# copies from the object at their inflated offsets and we inflate.
cat k.hipfb k.hipfb >two.bin
objcopy --add-section .hip_fatbin=c.bundle --add-section .two=two.bin host.o fat2.o
for f in libfat.a fat2.o; do
	mkdir -p "l22-$f" "o22-$f"
	cp "$f" "l22-$f/" && cp "$f" "o22-$f/"
	(cd "l22-$f" && "$LLVM22/llvm-objdump" --offloading "$f" >../l.out)
	(cd "o22-$f" && "$OFFLINK" inspect --format=llvm-objdump "$f" >../o.out)
	same l.out o.out
	[ "$(ls "l22-$f")" = "$(ls "o22-$f")" ] || fail "files llvm-objdump 22 writes: $f"
	for x in "l22-$f"/*; do
		case $x in *.2.hip-*) continue ;; esac
		same "$x" "o22-$f/${x#*/}"
	done
	[ "$(ls "l22-$f" | wc -l)" -ge 3 ] || fail "llvm-objdump 22 wrote no files for $f"
	"$LLVM19/llvm-objdump" --offloading "$f" >l.out
	"$OFFLINK" inspect --format=llvm-objdump --llvm-version=19 "$f" >o.out
	same l.out o.out
done
# Bundle headers cut short: the same output and error as llvm-objdump 22.
printf '__CLANG_OFFLOAD_BUNDLE__\005\0\0\0\0\0\0\0' >short1.bin
python3 -c 'import struct,sys; sys.stdout.buffer.write(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 0, 0, 5) + b"hi")' >short2.bin
for k in 1 2; do
	objcopy --add-section .hip_fatbin=short$k.bin host.o short$k.o
	"$LLVM22/llvm-objdump" --offloading short$k.o >l.out 2>l.err && fail "llvm accepted short$k.o"
	expect_fail "$OFFLINK" inspect --format=llvm-objdump short$k.o
	same l.out out
	[ "$(sed 's/^[^:]*: //' l.err)" = "$(sed 's/^[^:]*: //' err)" ] ||
		{ cat l.err err; fail "error for short$k.o"; }
done

"$OFFLINK" inspect --format=llvm-objdump fat2.o >o.out
grep -q '^Extracting offload bundle: fat2.o.2.hip-amdgcn-amd-amdhsa--gfx1030$' o.out ||
	fail "bundle numbering"
"$B" -type=bc -unbundle -targets=hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ -input=k.hipfb \
	-output=dev.co
same fat2.o.1.hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ dev.co
for t in hip-amdgcn-amd-amdhsa--gfx90a:xnack+ hip-amdgcn-amd-amdhsa--gfx1030; do
	"$B" -type=bc -unbundle -targets=$t -input=c.bundle -output=u.bin
	same fat2.o.2.$t u.bin
done

"$OFFLINK" inspect --extract-all all libfat.a c.bundle >list.txt
[ "$(wc -l <list.txt)" = 8 ] || { cat list.txt; fail "extract-all count"; }
same all/libfat.a_fat.o__hip-amdgcn-amd-amdhsa--gfx90a_xnack+.bin k.hipfb
same all/c.bundle_hip-amdgcn-amd-amdhsa--gfx90a_xnack+_hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.o \
	dev.co
same all/c.bundle_hip-amdgcn-amd-amdhsa--gfx1030.bin dev.c

# Bitcode: the embedded object sits at some bit offset; what inspect finds
# equals the @llvm.embedded.object constant llvm-dis prints.
need "$LLVM22/llvm-dis"
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c -emit-llvm -DFN=b omp.c -o omp.bc
"$OFFLINK" inspect omp.bc >bc.txt
grep -Eq '^  /.llvm.offloading: offload binary \(bitcode bytes shifted by [0-7] bits\), ' bc.txt ||
	{ cat bc.txt; fail "bitcode section"; }
grep -q '^    \[0\]: image llvm ir, producer openmp, ' bc.txt || fail "bitcode image"
"$OFFLINK" inspect --extract 'omp.bc/.llvm.offloading' -o bc.blob
# (from a file: a reader that stops early would fail the pipe under pipefail)
"$LLVM22/llvm-dis" omp.bc -o omp.ll
python3 - omp.ll <<'PY'
import sys
for l in open(sys.argv[1]):
	if l.startswith("@llvm.embedded.object"):
		s = l[l.index("c\"") + 2:]
		s = s[:s.index("\", section")]
		out, i = bytearray(), 0
		while i < len(s):
			if s[i] == "\\" and s[i + 1] == "\\":
				out.append(92); i += 2
			elif s[i] == "\\":
				out.append(int(s[i + 1:i + 3], 16)); i += 3
			else:
				out.append(ord(s[i])); i += 1
		assert out == open("bc.blob", "rb").read(), len(out)
		print("embedded object matches")
		break
else:
	sys.exit("no @llvm.embedded.object")
PY
"$OFFLINK" inspect --extract 'omp.bc/.llvm.offloading[0]' -o dev.bc
"$LLVM22/llvm-dis" dev.bc -o dev.ll
grep -q '^target triple = "x86_64-pc-linux-gnu"' dev.ll ||
	fail "the device image is bitcode"

# COFF objects, read through libbfd, alone and in an archive.
for v in 19 22; do
	"$(eval echo \$LLVM$v)/clang" --target=x86_64-pc-windows-msvc -fopenmp \
		-fopenmp-targets=x86_64-pc-windows-msvc -DFN=w -c omp.c -o coff$v.obj
done
"$LLVM22/llvm-ar" rc libcoff.a coff19.obj coff22.obj
for v in 19 22; do
	"$(eval echo \$LLVM$v)/llvm-objdump" --offloading coff$v.obj libcoff.a >l.out
	"$OFFLINK" inspect --format=llvm-objdump --llvm-version=$v coff$v.obj libcoff.a >o.out
	cmp l.out o.out || { diff l.out o.out | head; fail "objdump format: COFF ($v)"; }
done
"$OFFLINK" inspect libcoff.a >coff.txt
grep -q '^  (coff22.obj): pe-x86-64, ' coff.txt || { cat coff.txt; fail "COFF member"; }
grep -q '^      \[0\]: image elf, producer openmp, ' coff.txt || fail "COFF image"
"$OFFLINK" inspect --extract 'libcoff.a(coff22.obj)/.llvm.offloading[0]' -o w.img
"$LLVM22/clang-offload-packager" coff22.obj --image=file=w2.img,triple=x86_64-pc-windows-msvc \
	2>/dev/null
same w.img w2.img

# A CUDA object from nvcc: the .nv_fatbin entries (cubin and PTX).
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || NVCC=$(command -v nvcc) || skip "nvcc not installed (the rest passed)"
printf '__global__ void k(int *p) { *p = 1; }\n' >k.cu
"$NVCC" -c k.cu -o kcu.o -arch=sm_80 || skip "nvcc failed (the rest passed)"
"$OFFLINK" inspect kcu.o >cu.txt
grep -Eq '^  /.nv_fatbin: cuda fatbinary, [0-9]+ bytes at 0x' cu.txt || { cat cu.txt; fail "nv"; }
grep -Eq '^    \[0\]: cubin sm_80, [0-9]+ bytes at 0x' cu.txt || { cat cu.txt; fail "cubin"; }
"$OFFLINK" inspect --extract 'kcu.o/.nv_fatbin[0]' -o k.cubin
[ "$(head -c 4 k.cubin | od -An -c | tr -d ' ')" = '177ELF' ] || fail "the cubin is ELF"
"$OFFLINK" inspect --check sm_80 kcu.o | grep -q '^exact match: kcu.o/.nv_fatbin\[0\]' ||
	fail "check sm_80"
