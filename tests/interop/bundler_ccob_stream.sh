# Unbundling a compressed bundle streams it: entries several MiB long (so
# they span many of the decoder's pieces), an empty one, some targets left
# out, entries whose records are not in offset order, zstd and zlib; every
# output must equal clang-offload-bundler 19's and 22's.  A stream damaged
# after the first entry leaves no output at all.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler" zstd python3
B=$OFL_COMPAT/clang-offload-bundler

# real code compresses like device code; one entry is empty
need "$LLVM22/obj2yaml" "$LLVM19/obj2yaml"
head -c 2500000 "$LLVM22/obj2yaml" >host.bin
tail -c 1300000 "$LLVM22/obj2yaml" >a.bin
: >b.bin
head -c 3100000 "$LLVM19/obj2yaml" >c.bin
[ "$(wc -c <c.bin)" -eq 3100000 ] || fail "inputs too small to span several pieces"
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx900,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx908
IN="-input=host.bin -input=a.bin -input=b.bin -input=c.bin"
"$LLVM22/clang-offload-bundler" -type=bc -targets=$T $IN -output=z22 -compress
"$LLVM19/clang-offload-bundler" -type=bc -targets=$T $IN -output=z19 -compress
"$OFFLINK" bundle --type=bc --compress --method=zlib --targets=$T host.bin a.bin b.bin c.bin -o zl

# unbundle TOOL INPUT TARGETS PREFIX [TYPE]: one output per target, PREFIX.1 ...
unbundle() {
	local outs="" i=0
	for t in ${3//,/ }; do
		i=$((i + 1))
		outs="$outs -output=$4.$i"
	done
	"$1" -unbundle -type=${5:-bc} -targets=$3 -input=$2 $outs
}

SUB=hip-amdgcn-amd-amdhsa--gfx908,host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906
SUB2=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx900
for z in z22 z19 zl; do
	v=22; [ $z = z19 ] && v=19
	for tg in "$T" "$SUB"; do
		unbundle "$(eval echo \$LLVM$v)/clang-offload-bundler" $z "$tg" llvm
		unbundle "$B" $z "$tg" ours
		for f in llvm.*; do
			same "$f" "ours.${f#llvm.}"
		done
		rm -f llvm.* ours.*
	done
done
unbundle "$B" z22 "$T" o
same o.1 host.bin; same o.2 a.bin; same o.3 b.bin; same o.4 c.bin
# offlink unbundle stages its outputs and renames them together
rm o.*
"$OFFLINK" unbundle --targets=$T -o o.1 -o o.2 -o o.3 -o o.4 zl
same o.1 host.bin; same o.2 a.bin; same o.3 b.bin; same o.4 c.bin

# -verbose reports the streamed bundle as LLVM does (but for the speed)
for z in z22 z19; do
	v=22; [ $z = z19 ] && v=19
	"$(eval echo \$LLVM$v)/clang-offload-bundler" -unbundle -verbose -type=bc -targets=$T \
		-input=$z -output=h -output=a -output=b -output=c 2>v.llvm
	"$B" -unbundle -verbose -type=bc -targets=$T -input=$z -output=h -output=a -output=b \
		-output=c 2>v.ours
	for f in v.llvm v.ours; do
		python3 -c 'import sys; print("".join(l for l in open(sys.argv[1]) if l.startswith(("Compressed bundle format", "Size ", "Stored hash", "Recalculated hash", "Hashes match"))), end="")' $f >$f.lines
	done
	same v.llvm.lines v.ours.lines
	[ "$(wc -l <v.ours.lines)" -eq 6 ] || fail "$z: -verbose lines missing"
done

# a hash with four leading zero digits is printed as LLVM 22 does
printf 'AAAAAAAA\n' >hz
printf 'y\n' >hy
"$LLVM22/clang-offload-bundler" -type=bc -targets=$SUB2 -input=hz -input=hy -output=hraw
python3 - <<'PY'
import hashlib
raw = bytearray(open("hraw", "rb").read())
i = raw.index(b"AAAAAAAA\n")
for n in range(1 << 26):
    raw[i:i + 9] = b"%08x\n" % n
    if hashlib.md5(raw).digest()[6:8] == b"\0\0":
        open("hz", "wb").write(raw[i:i + 9])
        break
PY
"$LLVM22/clang-offload-bundler" -verbose -type=bc -targets=$SUB2 -input=hz -input=hy -output=hl \
	-compress 2>v.llvm
"$B" -verbose -type=bc -targets=$SUB2 -input=hz -input=hy -output=ho -compress 2>v.ours
"$LLVM22/clang-offload-bundler" -unbundle -verbose -type=bc -targets=$SUB2 -input=hl -output=x \
	-output=y 2>>v.llvm
"$B" -unbundle -verbose -type=bc -targets=$SUB2 -input=hl -output=x -output=y 2>>v.ours
for f in v.llvm v.ours; do
	python3 -c 'import sys; print("".join(l for l in open(sys.argv[1]) if " hash:" in l), end="")' $f >$f.lines
done
same v.llvm.lines v.ours.lines
[ "$(wc -l <v.ours.lines)" -eq 3 ] || fail "hash lines missing"

# -type=o of inputs that are not objects makes a compressed binary bundle,
# unbundled the same way
"$LLVM22/clang-offload-bundler" -type=o -targets=$T $IN -output=zo -compress
unbundle "$LLVM22/clang-offload-bundler" zo "$SUB" llvm o
unbundle "$B" zo "$SUB" ours o
for f in llvm.*; do
	same "$f" "ours.${f#llvm.}"
done
rm -f llvm.* ours.*

# records not in offset order: the last record's data comes first
python3 - <<'PY'
import struct
ids = ["host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx900",
       "hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx908"]
data = [open(f, "rb").read() for f in ("host.bin", "a.bin", "b.bin", "c.bin")]
hdr = 32 + sum(24 + len(i) for i in ids)
off, offs = hdr, [0] * 4
for k in (3, 1, 0, 2):
    offs[k] = off
    off += len(data[k])
out = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 4)
for k in range(4):
    out += struct.pack("<QQQ", offs[k], len(data[k]), len(ids[k])) + ids[k].encode()
body = bytearray(off)
body[:len(out)] = out
for k in range(4):
    body[offs[k]:offs[k] + len(data[k])] = data[k]
open("shuffled.raw", "wb").write(body)
PY
zstd -q -3 --long=27 shuffled.raw -o shuffled.zst
python3 - <<'PY'
import hashlib, struct
raw, pay = open("shuffled.raw", "rb").read(), open("shuffled.zst", "rb").read()
hdr = b"CCOB" + struct.pack("<HHQQ", 3, 1, 32 + len(pay), len(raw)) + hashlib.md5(raw).digest()[:8]
open("shuffled", "wb").write(hdr + pay)
PY
for tg in "$T" "$SUB"; do
	unbundle "$LLVM22/clang-offload-bundler" shuffled "$tg" llvm
	unbundle "$B" shuffled "$tg" ours
	for f in llvm.*; do
		same "$f" "ours.${f#llvm.}"
	done
	rm -f llvm.* ours.*
done

# cut the stream after the first entries (the header's sizes made to
# agree): an error, and no output, not even those whose bytes came first
mkdir cut.z22 cut.zl
python3 - <<'PY'
import struct
for name in ("z22", "zl"):
    d = bytearray(open(name, "rb").read())
    n = len(d) * 3 // 4
    d = d[:n]
    d[8:16] = struct.pack("<Q", n)
    open("cut.%s/%s" % (name, name), "wb").write(d)
PY
for z in z22 zl; do
	(cd cut.$z && expect_fail "$B" -unbundle -type=bc -targets=$T -input=$z -output=h -output=a \
		-output=b -output=c)
	expect_err_line "clang-offload-bundler: error: $z: failed to decompress: .* at offset 32\$"
	[ "$(ls cut.$z)" = "$z" ] || fail "$z: outputs or temporaries left behind: $(ls cut.$z)"
done
echo ok
