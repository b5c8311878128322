#!/usr/bin/env bash
# Many device link groups: 40 000 OffloadBinaries of distinct arches make
# 40 000 groups, grouped, chosen and ordered in linear time (it was
# quadratic: 30 s here; scripts/bench/groups measures it, nothing here
# does).  And once a device link fails, no other starts.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need "$LLVM22/clang" python3
export PATH=$(dirname "$OFFLINK"):$PATH
mkdir tmp
export TMPDIR=$PWD/tmp

echo 'int k;' | "$LLVM22/clang" -x c -c - -o k.o || fail "compile"
# OffloadBinary v1 (docs/formats.md 5.1), one per arch, back to back
python3 - k.o many.obin 40000 <<'PY'
import struct, sys
image = open(sys.argv[1], "rb").read()
triple = b"x86_64-pc-linux-gnu"
with open(sys.argv[2], "wb") as f:
    for i in range(int(sys.argv[3])):
        arch = b"arch%06d" % i
        strs = b"\0triple\0arch\0" + triple + b"\0" + arch + b"\0"
        s = 72 + 32
        at = (s + len(strs) + 7) & ~7
        size = (at + len(image) + 7) & ~7
        b = b"\x10\xff\x10\xad" + struct.pack("<IQQQ", 1, size, 32, 40)
        b += struct.pack("<HHIQQQQ", 1, 1, 0, 72, 2, at, len(image))
        b += struct.pack("<QQQQ", s + 1, s + 13, s + 8, s + 14 + len(triple)) + strs
        b += b"\0" * (at - len(b)) + image
        f.write(b + b"\0" * (size - len(b)))
PY
# a generous bound, for a hang only: this takes about a second
timeout 300 ld.offlink --dry-run many.obin -o prog 2>dry.log || fail "dry run"
[ "$(grep -c -- '"--target=x86_64-pc-linux-gnu" "-march=arch' dry.log)" = 40000 ] ||
	fail "$(grep -c -- --target= dry.log) device links, expected 40000"
grep -q -- '"-march=arch039999"' dry.log || fail "the last arch is not linked"
[ -z "$(ls tmp)" ] || fail "temporaries left"

# a failing device link: no other starts after it
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 --offload-arch=gfx908 --offload-arch=gfx942 -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o || fail "compile hip"
printf '#!/bin/sh\necho run >>%s/runs\nexit 1\n' "$PWD" >failing.sh
chmod +x failing.sh
for j in 1 2; do
	rm -f runs
	expect_fail ld.offlink hip.o -shared -o libh.so -j$j --device-launcher="$PWD/failing.sh"
	[ "$(wc -l <runs)" -le $j ] || fail "-j$j: $(wc -l <runs) device links ran after a failure"
done
[ -z "$(ls tmp)" ] || fail "temporaries left after failures"
echo "many groups: ok"
