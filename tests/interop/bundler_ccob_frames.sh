# A CCOB's zstd payload may hold skippable frames (magic 50 2A 4D 18, any
# bytes inside, "CCOB" included) before, between and after its data frames,
# as zstd allows: LLVM 22 lists and unbundles them, and so must we.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" zstd python3
B=$OFL_COMPAT/clang-offload-bundler
T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
randbytes 1 3000 >h.bin
randbytes 2 5000 >d.bin
"$LLVM22/clang-offload-bundler" -type=bc -targets=$T -input=h.bin -input=d.bin -output=raw
head -c 4000 raw >part1
tail -c +4001 raw >part2
zstd -q -19 part1 -o f1.zst
zstd -q -19 part2 -o f2.zst
zstd -q -19 raw -o all.zst

# ccob OUT FRAME... : a v3 zstd CCOB of raw whose payload is the frames given
# ("skip" for a skippable frame holding the bytes "CCOB" and padding)
ccob() {
	python3 - "$@" <<'PY'
import hashlib, struct, sys
raw = open("raw", "rb").read()
skip = b"CCOB\x03\x00\x01\x00" + b"\x00" * 24
pay = b"".join(b"\x50\x2a\x4d\x18" + struct.pack("<I", len(skip)) + skip
              if f == "skip" else open(f, "rb").read() for f in sys.argv[2:])
h = hashlib.md5(raw).digest()[:8]
hdr = b"CCOB" + struct.pack("<HHQQ", 3, 1, 32 + len(pay), len(raw)) + h
open(sys.argv[1], "wb").write(hdr + pay)
PY
}
ccob before skip all.zst
ccob after all.zst skip
ccob between f1.zst skip f2.zst
ccob both skip f1.zst skip f2.zst skip
for f in before after between both; do
	"$LLVM22/clang-offload-bundler" -list -type=bc -input=$f >l.llvm
	"$B" -list -type=bc -input=$f >l.ours || fail "$f: -list refused"
	same l.llvm l.ours
	[ "$(wc -l <l.ours)" -eq 2 ] || fail "$f: two IDs expected"
	"$LLVM22/clang-offload-bundler" -unbundle -type=bc -targets=$T -input=$f -output=lh -output=ld
	"$B" -unbundle -type=bc -targets=$T -input=$f -output=oh -output=od
	same lh h.bin; same ld d.bin; same oh h.bin; same od d.bin
	"$OFFLINK" list $f >ids
	same ids l.ours
done
echo ok
