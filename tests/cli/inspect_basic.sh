#!/bin/bash
# offlink inspect: the tree and JSON views of binaries found in sections and
# by magic scan (v1, v2, compressed v3), and one-line errors with offsets.
source "$OFL_SRC/tests/lib.sh"
need python3
C=$OFL_SRC/tests/fuzz/corpus

cp "$C/offload_scan/garbage-between" mixed.bin
"$OFFLINK" inspect mixed.bin >tree.txt
grep -q '^mixed.bin: raw, 468 bytes, 3 offload binaries$' tree.txt || { cat tree.txt; fail "tree header"; }
grep -q 'OffloadBinary v1 at 0x6, 160 bytes' tree.txt || fail "first binary offset"
grep -q 'arch = "sm_70"' tree.txt || fail "strings"

cat "$C/offload_binary/v3zstd" "$C/offload_binary/v2" >v.bin
if "$OFFLINK" inspect --json v.bin elf-merged.o >/dev/null 2>&1; then fail "missing file accepted"; fi
cp "$C/offload_scan/elf-merged" elf-merged.o
"$OFFLINK" inspect --json v.bin elf-merged.o >out.json
python3 - <<'PY'
import json
d = json.load(open("out.json"))
v, elf = d["files"]
assert [b["version"] for b in v["binaries"]] == [3, 2], v
b3 = v["binaries"][0]
assert b3["compression"] == "zstd" and b3["inflated_size"] == 192, b3
assert b3["entries"][1]["strings"] == [["arch", "gfx9"]], b3
assert b3["entries"][1]["image_offset_in"] == "inflated" and b3["entries"][1]["image_offset"] == 187
assert v["binaries"][1]["offset"] == 136
assert v["binaries"][0]["entries"][0]["strings"] == [["arch", "g\u0000"]]
assert elf["format"] == "elf64-x86-64" and len(elf["binaries"]) == 2
assert all(b["section"] == 17 for b in elf["binaries"]), elf
assert elf["binaries"][1]["entries"][0]["strings"][0] == ["arch", "generic"]
PY
grep -q '"arch", "g\\u0000"' out.json || fail "NUL inside a v2 value must be escaped"

# A blob in an offloading section whose size runs past the section.
python3 - <<'PY'
import struct
d = bytearray(open("elf-merged.o", "rb").read())
struct.pack_into("<Q", d, 0x568 + 8, 0x100000)
open("bad.o", "wb").write(d)
PY
expect_fail "$OFFLINK" inspect bad.o
expect_err_line "^offlink: error: bad\.o: offload binary: size 1048576 does not fit the [0-9]+ bytes left at offset 1392$"
expect_fail "$OFFLINK" inspect --format=bogus bad.o
