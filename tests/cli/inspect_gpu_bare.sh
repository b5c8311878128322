#!/usr/bin/env bash
# offlink inspect --gpu judges a cubin or PTX file given as it is (ptxas's
# output), for LLVM's offload runtime and for the CUDA driver: CUDA 13's
# ptxas writes the new cubin header, which LLVM 19, 20 and 21 do not read
# and 22 and the driver do; the old header (CUDA 12's) every release reads;
# PTX only the driver, which compiles it.
source "$OFL_SRC/tests/lib.sh"
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$CUDA/bin/ptxas" python3
PTX=$OFL_SRC/tests/fixtures/gpu/sm90.ptx
"$CUDA/bin/ptxas" -arch=sm_90 "$PTX" -o new.cubin || fail "ptxas"
[ "$(od -An -tu1 -j8 -N1 new.cubin | tr -d ' ')" = 8 ] || fail "ptxas wrote no new header (CUDA 13)"
# the old header, as CUDA 12's ptxas writes it for sm_90: EI_OSABI 0x33,
# ABI version 7, the SM in e_flags bits 0-7, 64-bit addressing
python3 - <<'PY'
d = bytearray(open("new.cubin", "rb").read())
d[7], d[8] = 0x33, 7
d[0x30:0x34] = (90 | 0x500 | 90 << 16).to_bytes(4, "little")
open("old.cubin", "wb").write(d)
PY

for r in 19 20 21; do
	"$OFFLINK" inspect --runtime=$r --gpu=sm_90 new.cubin >out || fail "new.cubin, LLVM $r: the driver loads it"
	grep -q "^  no   new.cubin (cubin, LLVM $r's offload runtime): LLVM $r's offload runtime does not read the new cubin header (EI_OSABI 0x41, ABI version 8, CUDA 13" out ||
		{ cat out; fail "new.cubin, LLVM $r"; }
	grep -q "^  yes  new.cubin (cubin, the CUDA driver): cubin for sm_90$" out || { cat out; fail "driver"; }
	grep -q "^  1 of 1 image(s) load$" out || { cat out; fail "count"; }
done
grep -q "LLVM 22 and later do, and 21.1 from the point release with llvm-project#159451" out ||
	{ cat out; fail "which releases read it"; }
"$OFFLINK" inspect --runtime=22 --gpu=sm_90 new.cubin >out || fail "new.cubin, LLVM 22"
[ "$(grep -c "^  yes  new.cubin (cubin, .*): cubin for sm_90$" out)" = 2 ] || { cat out; fail "LLVM 22"; }
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 old.cubin >out || fail "old.cubin"
[ "$(grep -c "^  yes  old.cubin (cubin, .*): cubin for sm_90$" out)" = 2 ] || { cat out; fail "old.cubin"; }
# the SM rule: nothing loads, exit 1
expect_fail "$OFFLINK" inspect --runtime=22 --gpu=sm_80 old.cubin
grep -q "a cubin for sm_90 does not run on sm_80" out || { cat out; fail "SM rule"; }
expect_err_line "error: old.cubin: no image loads on sm_80"

cp "$PTX" k.ptx
"$OFFLINK" inspect --runtime=22 --gpu=sm_100 k.ptx >out || fail "ptx"
grep -q "^  no   k.ptx (ptx, LLVM 22's offload runtime): LLVM's offload runtime loads no PTX$" out &&
	grep -q "^  jit  k.ptx (ptx, the CUDA driver): the driver compiles PTX for sm_90$" out ||
	{ cat out; fail "ptx lines"; }
expect_fail "$OFFLINK" inspect --runtime=22 --gpu=sm_89 k.ptx
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 --json new.cubin k.ptx >j.json || fail "json"
python3 - j.json <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
cub, ptx = d["gpu"]
assert [(i["loader"], i["loads"]) for i in cub["images"]] == [("llvm", "no"), ("cuda", "yes")], cub
assert cub["images"][0]["cubin_header"] == "new" and cub["images"][0]["first_runtime"] == 22, cub
assert cub["loadable"] == 1 and ptx["loadable"] == 1, d
assert [(i["code"], i["loads"]) for i in ptx["images"]] == [("ptx", "no"), ("ptx", "jit")], ptx
PY
echo "bare cubins and PTX judged for both loaders"
