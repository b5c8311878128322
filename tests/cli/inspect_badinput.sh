#!/bin/bash
# offlink inspect on bad input: one error line naming the file and the offset
# of the bad field, a non-zero exit, and nothing written by --extract or
# --extract-all.  Covers OffloadBinary headers, nested layers (a bundle or a
# CCOB inside an image, nesting too deep), CUDA fatbinaries and archives.
source "$OFL_SRC/tests/lib.sh"
need python3

printf 'abcdefgh' >img
"$OFFLINK" package -o r.bin --image=file=img,triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
python3 - <<'PY'
import struct
r = open("r.bin", "rb").read()
open("trunc", "wb").write(r[:40])
b = bytearray(r); struct.pack_into("<Q", b, 8, len(r) + 100); open("sizepast", "wb").write(b)
eo = struct.unpack_from("<Q", r, 16)[0]
so = struct.unpack_from("<Q", r, eo + 8)[0]
b = bytearray(r); struct.pack_into("<Q", b, so, 0xffff); open("strpast", "wb").write(b)
b = bytearray(r); struct.pack_into("<I", b, 4, 9); open("newer", "wb").write(b)
# A version-2 binary claiming 2^64-1 entries.
b = bytearray(r); struct.pack_into("<IQ", b, 4, 2, len(r)); struct.pack_into("<Q", b, 24, 2**64 - 1)
open("count", "wb").write(b)
e = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x101, 64, 1000, 0, 0, 8, 1, 80, 0, 0, 0x11, 0, 0)
open("fb-past", "wb").write(struct.pack("<IHHQ", 0xba55ed50, 1, 16, len(e) + 8) + e + b"\0" * 8)
open("fb-trunc", "wb").write(struct.pack("<IHH", 0xba55ed50, 1, 16))
open("fb-big", "wb").write(struct.pack("<IHHQ", 0xba55ed50, 1, 16, 1 << 63))
open("badbundle", "wb").write(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 5))
open("bad.ccob", "wb").write(b"CCOB\x03\x00\x01\x00" + struct.pack("<Q", 1 << 40) + b"\0" * 40)
open("bad.a", "wb").write(b"!<arch>\nm.o/            0           0     0     644     999999    `\n")
PY
"$OFFLINK" package -o nb.bin --image=file=badbundle,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
"$OFFLINK" package -o nc.bin --image=file=bad.ccob,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip

check() { # file, pattern of the message after "offlink: error: "
	expect_fail "$OFFLINK" inspect "$1"
	expect_err_line "^offlink: error: $2\$"
	expect_fail "$OFFLINK" inspect --extract-all "out-$1" "$1"
	[ ! -e "out-$1" ] || fail "--extract-all wrote something for $1"
	expect_fail "$OFFLINK" inspect --extract "$1[0]" -o "x-$1"
	[ ! -e "x-$1" ] || fail "--extract wrote something for $1"
}
check trunc 'trunc: offload binary: size 160 does not fit the 40 bytes left at offset 8'
check sizepast 'sizepast: offload binary: size 260 does not fit the 160 bytes left at offset 8'
check strpast 'strpast: offload binary: key offset 65535 is past the end \(160 bytes\) at offset 72'
check newer 'newer: offload binary: version 9 is not one offlink knows \(1 to 3\): a newer LLVM wrote it at offset 4'
check count 'count: offload binary: 18446744073709551615 entries at 32 do not fit in 160 bytes at offset 24'
check fb-past 'fb-past: fatbinary entry of 1000 bytes runs past the end of the fatbinary at offset 24'
check fb-trunc 'fb-trunc: truncated fatbinary header at offset 0'
check fb-big 'fb-big: fatbinary of 9223372036854775808 bytes runs past the end of its data at offset 8'
# Layers inside an image: offsets count from the start of the file.
check nb.bin 'nb.bin: bundle entry count 5 does not fit in the file at offset 168'
check nc.bin 'nc.bin: .* at offset 1[0-9][0-9]'
check bad.a 'bad.a: .* at offset [0-9]+'

# Sixteen nested OffloadBinaries are read; the seventeenth layer is refused,
# as a layer containing itself would be.
cp r.bin n1
for i in $(seq 2 17); do
	"$OFFLINK" package -o "n$i" --image=file="n$((i - 1))",triple="t$i",kind=openmp
done
"$OFFLINK" inspect n16 >deep.txt
grep -q '^ \{32\}\[0\]: image <none>, producer openmp, 8 bytes' deep.txt ||
	{ cat deep.txt; fail "16 layers"; }
check n17 'n17: layers nested more than 16 deep \(a layer that contains itself\?\) at offset [0-9]+'
