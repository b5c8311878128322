#!/bin/bash
# ELF objects whose .llvm.offloading contents, or whose section table, lie
# past the end of the file (truncated, or an offset or size set too far):
# llvm-objdump --offloading and llvm-offload-binary say what LLVM 22's own
# tools say, in the same run, byte for byte (stdout, stderr with the
# program name aside, exit status): the object refused on opening it
# (section table), the end of the file met reading the section, a member of
# an archive named as LLVM names it.  offlink used to print the file
# format of a truncated object and exit 0.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-objdump" "$LLVM22/llvm-offload-binary" "$LLVM19/llvm-objdump" "$LLVM22/clang" \
	python3 ar

mkdir L L19 O O19
ln -s "$LLVM22/llvm-objdump" L/llvm-objdump
ln -s "$LLVM22/llvm-offload-binary" L/llvm-offload-binary
ln -s "$LLVM19/llvm-objdump" L19/llvm-objdump
ln -s "$OFFLINK" O/llvm-objdump
ln -s "$OFFLINK" O/llvm-offload-binary
ln -s "$OFFLINK" O19/llvm-objdump-19

cat >k.c <<'C'
int f(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
# little- and big-endian, 64 and 32 bits: LLVM reads each in its own order
for t in x86_64-pc-linux-gnu i386-pc-linux-gnu powerpc64-unknown-linux-gnu; do
	"$LLVM22/clang" --target=$t -fopenmp -fopenmp-targets=$t -c k.c -o "k-${t%%-*}.o"
done

mkdir in
python3 - k-*.o <<'PY'
import struct, sys
for src in sys.argv[1:]:
    b = bytes(open(src, "rb").read())
    c64, e = b[4] == 2, "<" if b[5] == 1 else ">"
    so, no, w = (0x28, 0x3c, "Q") if c64 else (0x20, 0x30, "I")
    shoff = struct.unpack_from(e + w, b, so)[0]
    shsize = 64 if c64 else 40
    base = src[2:-2]
    def out(name, data):
        open(f"in/{base}-{name}.o", "wb").write(bytes(data))
    def patch(name, off, fmt, v):
        z = bytearray(b); struct.pack_into(e + fmt, z, off, v); out(name, z)
    # truncated: inside the header, the sections, the table
    for n in (60, 700, shoff, shoff + shsize, len(b) - 1):
        out(f"cut{n}", b[:n])
    # the offloading section's header: its contents out of the file
    strtab = struct.unpack_from(e + w, b, shoff + struct.unpack_from(e + "H", b, no + 2)[0] * shsize + (0x18 if c64 else 0x10))[0]
    for i in range(struct.unpack_from(e + "H", b, no)[0]):
        h = shoff + i * shsize
        name = b[strtab + struct.unpack_from(e + "I", b, h)[0]:].split(b"\0")[0]
        if name == b".llvm.offloading":
            off = h + (0x18 if c64 else 0x10)
            patch("offset", off, w, len(b) + 16)
            patch("size", off + (8 if c64 else 4), w, len(b))
            z = bytearray(b); struct.pack_into(e + w + w, z, off, len(b) + 16, 0); out("empty", z)
    patch("noshoff", so, w, 0)
    patch("entsize", no - 2, "H", 32)
    patch("shnum", no, "H", 0xffff)
    patch("core", 16, "H", 4)
    if c64:
        # e_shnum 0: the count is section 0's size, here overflowing
        z = bytearray(b); struct.pack_into(e + "H", z, no, 0)
        struct.pack_into(e + "Q", z, shoff + 0x20, 1 << 60); out("count", z)
        struct.pack_into(e + "Q", z, shoff + 0x20, (1 << 58) - 1); out("wrap", z)
PY
# archive members: the member's own name, or lib.a(m.o)
cp in/x86_64-offset.o member_offset.o
head -c 3000 k-x86_64.o >member_cut.o
ar rc in/lib-offset.a k-x86_64.o member_offset.o
ar rc in/lib-cut.a k-x86_64.o member_cut.o 2>/dev/null

# Runs $1 (L, L19 or O, O19's tool) on the remaining arguments from a
# fresh directory: exit status, stdout and stderr (program name replaced)
run_in() {
	local dir=$1 tool=$2 rc=0
	shift 2
	(cd "$dir" && "./$tool" "$@" >out 2>err) || rc=$?
	sed -i "s|^\./$tool: |PROG: |" "$dir/err"
	echo "$rc" >"$dir/rc"
}

compared=0 failed=0
check() {
	local l=$1 o=$2 lt=$3 ot=$4
	shift 4
	run_in "$l" "$lt" "$@"
	run_in "$o" "$ot" "$@"
	if ! cmp -s "$l/rc" "$o/rc" || ! cmp -s "$l/out" "$o/out" || ! cmp -s "$l/err" "$o/err"; then
		echo "differs from LLVM: $ot $*" >&2
		diff "$l/err" "$o/err" >&2 || true
		diff "$l/out" "$o/out" >&2 || true
		failed=$((failed + 1))
	fi
	compared=$((compared + 1))
}
for f in in/*; do
	check L O llvm-objdump llvm-objdump --offloading "../$f"
	check L O llvm-offload-binary llvm-offload-binary "../$f" --image=triple=t
done
# 19 the same (one byte order is enough)
for f in in/x86_64-* in/lib-*; do
	check L19 O19 llvm-objdump llvm-objdump-19 --offloading "../$f"
done
[ "$failed" = 0 ] || fail "$failed of $compared runs differ from LLVM"
# what the issue met: a truncated object, silently passed
run_in O llvm-objdump --offloading ../in/x86_64-cut700.o
[ "$(cat O/rc)" = 1 ] && grep -q "section header table goes past the end of the file" O/err ||
	fail "a truncated object is not an error"
# offlink inspect showed such an object as one without sections
expect_fail "$OFFLINK" inspect in/x86_64-cut700.o
expect_err_line "^offlink: error: in/x86_64-cut700\.o: malformed ELF file: section header table goes past the end of the file: e_shoff = 0x[0-9a-f]+ at offset 40$"
echo "$compared runs identical to LLVM 19/22"
