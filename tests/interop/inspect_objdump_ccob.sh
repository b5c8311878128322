# inspect --format=llvm-objdump on bundles in sections, against
# llvm-objdump 22 --offloading and clang-offload-bundler 22: an ELF
# .hip_fatbin holding a CCOB v3 extracts the entries' real bytes (LLVM 22
# prints the same lines but copies its bytes from the object at the inflated
# offsets); a CCOB whose zstd stream holds "CCOB" ends at its total size, not
# at those bytes; two CCOBs back to back give bundles 0 and 1; a COFF
# .hip_fatbin extracts as for ELF (LLVM 22 refuses COFF); Mach-O gets
# LLVM's warning and exit 0.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-objdump" "$LLVM22/clang" "$LLVM22/clang-offload-bundler" \
	"$LLVM22/llvm-objcopy" python3
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a
randbytes 1 3000 >h.bin
randbytes 2 5000 >d.bin
"$LLVM22/clang-offload-bundler" -type=bc -targets=$T -input=h.bin -input=d.bin -output=c.ccob \
	-compress
# the same CCOB with a skippable frame holding "CCOB" in front of its stream
python3 - <<'PY'
import struct
d = open("c.ccob", "rb").read()
skip = b"\x50\x2a\x4d\x18" + struct.pack("<I", 12) + b"CCOBjunkjunk"
hdr = d[:8] + struct.pack("<Q", len(d) + len(skip)) + d[16:32]
open("s.ccob", "wb").write(hdr + skip + d[32:])
PY
cat c.ccob c.ccob >two.ccob
echo 'int x;' >p.c
"$LLVM22/clang" -c p.c -o p.o
"$LLVM22/clang" -target x86_64-pc-windows-msvc -c p.c -o w.o
"$LLVM22/clang" -target x86_64-apple-darwin -c p.c -o m.o
"$LLVM22/clang" -target arm64-apple-darwin -c p.c -o ma.o
for s in c s two; do
	"$LLVM22/llvm-objcopy" --add-section .hip_fatbin=$s.ccob p.o e$s.o
	"$LLVM22/llvm-objcopy" --add-section .hip_fatbin=$s.ccob w.o w$s.o
done

# run DIR TOOL FILE: stdout, stderr (program name dropped) and exit status
run() {
	mkdir "$1"
	cp "$3" "$1/"
	(cd "$1" && "$2" --offloading "$3" >out 2>err.raw && echo 0 >rc || echo $? >rc
	 sed 's/^[^ ]*: \(error\|warning\): /\1: /' err.raw >err)
}
objdump() { "$OFFLINK" inspect --format=llvm-objdump "${@:2}"; }

run l1 "$LLVM22/llvm-objdump" ec.o
run o1 objdump ec.o
for f in out err rc; do same l1/$f o1/$f; done
same o1/ec.o.0.host-x86_64-unknown-linux-gnu- h.bin
same o1/ec.o.0.hip-amdgcn-amd-amdhsa--gfx90a d.bin

for m in m.o ma.o; do
	run l-$m "$LLVM22/llvm-objdump" $m
	run o-$m objdump $m
	for f in out err rc; do same l-$m/$f o-$m/$f; done
	[ "$(cat o-$m/rc)" = 0 ] || fail "Mach-O must exit 0"
	[ -s o-$m/err ] || fail "Mach-O must warn"
done

# what LLVM 22 gets wrong: "CCOB" inside the stream, COFF
for o in es.o etwo.o wc.o ws.o wtwo.o; do
	run o-$o objdump $o
	[ "$(cat o-$o/rc)" = 0 ] || { cat o-$o/err; fail "$o: exit $(cat o-$o/rc)"; }
	same o-$o/$o.0.host-x86_64-unknown-linux-gnu- h.bin
	same o-$o/$o.0.hip-amdgcn-amd-amdhsa--gfx90a d.bin
done
for o in etwo.o wtwo.o; do
	same o-$o/$o.1.host-x86_64-unknown-linux-gnu- h.bin
	same o-$o/$o.1.hip-amdgcn-amd-amdhsa--gfx90a d.bin
done
# the COFF file-format line is llvm-objdump's
run l-wc "$LLVM22/llvm-objdump" wc.o
same l-wc/out <(head -n 2 o-wc.o/out)
echo ok
