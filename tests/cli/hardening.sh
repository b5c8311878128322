#!/bin/bash
# Crafted inputs that once crashed, escaped the output folder or ran out of
# memory: each now gives one error line (or a bounded, correct result).
# Memory is bounded by ulimit (or ASan limits); timeout only guards hangs.
source "$OFL_SRC/tests/lib.sh"
need python3 timeout

# bounded CMD...: runs CMD with 1 MB of stack and 1 GB of memory (address
# space; under ASan, which reserves terabytes of shadow, RSS and malloc
# limits instead); timeout guards against a hang and is no speed test.
asan=$(grep -c __asan_init "$OFFLINK" || true)
bounded() {
	if [ "$asan" -gt 0 ]; then
		(ulimit -s 1024 && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1000:malloc_limit_mb=1000" exec timeout 20 "$@")
	else
		(ulimit -s 1024 -v 1000000 && exec timeout 20 "$@")
	fi
}

python3 - <<'PY'
import struct

def hdr(name, size):
    h = b"%-16s%-12s%-6s%-6s%-8s%-10s`\n" % (name, b"0", b"0", b"0", b"644", str(size).encode())
    assert len(h) == 60
    return h

def member(name, data):
    return hdr(name, len(data)) + data + (b"\n" if len(data) % 2 else b"")

def ar(*members):
    return b"!<arch>\n" + b"".join(members)

# 1. An archive whose first member is an archive, then another member.
inner = ar(member(b"i1.o/", b"inner"), member(b"i2.o/", b"inner2"))
open("nested.a", "wb").write(ar(member(b"in.a/", inner), member(b"b.o/", b"tail")))

# 2. Archives nested 200,000 deep (68 bytes a level, 13.6 MB).
n = 200000
with open("deep.a", "wb") as f:
    for k in range(n, 0, -1):
        f.write(b"!<arch>\n" + hdr(b"a/", 8 + 68 * (k - 1)))
    f.write(b"!<arch>\n")

# 3. An ELF object with a bundle section, inside an archive under a GNU
# long member name that is an absolute path.
# (parts joined once: bytes += is quadratic, 60,000 entries took minutes)
def bundle(entries):
    off = 24 + 8 + sum(24 + len(i) for i, _ in entries)
    out = [b"__CLANG_OFFLOAD_BUNDLE__", struct.pack("<Q", len(entries))]
    for i, d in entries:
        out += [struct.pack("<QQQ", off, len(d), len(i)), i]
        off += len(d)
    return b"".join(out + [d for _, d in entries])

def elf(section):
    # ELF64 header, the section's bytes, then 2 section headers (null, ours).
    sh_off = 64 + len(section)
    sh_off += (-sh_off) % 8
    eh = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack(
        "<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, sh_off, 0, 64, 0, 0, 64, 2, 0)
    body = eh + section
    body += b"\0" * (sh_off - len(body))
    return body + b"\0" * 64 + struct.pack("<IIQQQQIIQQ", 0, 1, 0, 0, 64, len(section), 0, 0, 1, 0)

obj = elf(bundle([(b"host-x86_64-unknown-linux-gnu", b"H"), (b"hip-amdgcn-amd-amdhsa--../esc", b"D")]))
open("obj.o", "wb").write(obj)
names = b"/tmp/x/pwned/\n"
open("longname.a", "wb").write(ar(member(b"//", names), member(b"/0", obj)))

# 4. OffloadBinary v2: 1,000 entries share one table of 7,000 strings whose
# values each name the same 10,000 bytes.
E, S, V = 1000, 7000, 10000
eo, so = 32, 32 + 80 * E
ko = so + 24 * S
vo = ko + 2
size = vo + V
b = bytearray(size)
struct.pack_into("<4sIQQQ", b, 0, b"\x10\xff\x10\xad", 2, size, eo, E)
for i in range(E):
    struct.pack_into("<HHIQQQQ", b, eo + 80 * i, 1, 1, 0, so, S, vo, 1)
for i in range(S):
    struct.pack_into("<QQQ", b, so + 24 * i, ko, vo, V)
b[ko:ko + 2] = b"k\0"
open("shared.bin", "wb").write(b)

# 6. A thin archive whose member is /dev/zero.
open("zero.a", "wb").write(b"!<thin>\n" + member(b"//", b"/dev/zero/\n") + hdr(b"/0", 100))

# 5. Many entries: a bundle of 60,000 (IDs in reverse order), a fatbinary
# of 100,000, and an object whose bundle section repeats the magic inside
# its entry IDs, so that each next bundle re-reads the entries after it.
ids = [b"openmp-x86_64-unknown-linux-gnu-%05d" % i for i in range(60000 - 1, -1, -1)]
open("many.bundle", "wb").write(bundle([(i, b"") for i in ids]))
e = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x101, 64, 0, 0, 0, 8, 1, 80, 0, 0, 0x11, 0, 0)
open("many.fatbin", "wb").write(struct.pack("<IHHQ", 0xba55ed50, 1, 16, 64 * 100000) + e * 100000)
M = b"__CLANG_OFFLOAD_BUNDLE__"
k = 3000
# Record j's ID is a bundle header counting the k - j - 1 records after it.
recs = b"".join(struct.pack("<QQQ", 0, 0, 32) + M + struct.pack("<Q", k - j - 1) for j in range(k))
open("overlap.o", "wb").write(elf(M + struct.pack("<Q", k) + recs))
PY

# 1: no use after free; the nested members are walked, nothing matches.
bounded "$OFFLINK" package --image=triple=x nested.a >out 2>err || { cat err >&2; fail "nested archive"; }

# 2: a clean error, within a small stack and address space; llvm-objdump
# opens no archive inside an archive, and neither does its format.
for cmd in "package --image=triple=x" "inspect"; do
	if bounded "$OFFLINK" $cmd deep.a >out 2>err; then
		fail "$cmd accepted 200,000 nested archives"
	fi
	expect_err_line "^offlink: error: deep\\.a.*: (archives|layers) nested (deeper|more) than 16"
done
if bounded "$OFFLINK" inspect --format=llvm-objdump deep.a >out 2>err; then
	fail "objdump format accepted a nested archive"
fi
expect_err_line "^offlink: error: 'deep\\.a': The file was not recognized as a valid object file\$"

# 3: names read from the input name no directory.
mkdir -p sub
(cd sub && "$OFFLINK" inspect --format=llvm-objdump ../longname.a >../out 2>../err) ||
	{ cat err >&2; fail "objdump of longname.a"; }
[ -f "sub/_tmp_x_pwned.0.host-x86_64-unknown-linux-gnu" ] || { ls -R sub >&2; fail "host entry not extracted"; }
[ -f "sub/_tmp_x_pwned.0.hip-amdgcn-amd-amdhsa--.._esc" ] || { ls -R sub >&2; fail "device entry not extracted"; }
[ ! -e /tmp/x/pwned.0.host-x86_64-unknown-linux-gnu ] || fail "wrote outside the folder"
[ ! -e esc ] || fail "a bundle ID escaped the folder"
printf 'abcdefgh' >img
"$OFFLINK" package -o evil.bin --image=file=img,triple=../../up/x,arch=a/b,kind=openmp
mkdir -p pk
(cd pk && "$OFFLINK" package ../evil.bin --image=triple=../../up/x) 2>err || { cat err >&2; fail "extract evil.bin"; }
[ -f "pk/evil-.._.._up_x-a_b.0." ] || { ls pk >&2; fail "packager extraction name not flattened"; }

# 4: strings read per entry are bounded by the input's size.
if bounded "$OFFLINK" inspect shared.bin >out 2>err; then
	fail "shared string tables accepted"
fi
expect_err_line "^offlink: error: shared\.bin: offload binary: string tables read more than 8 times the binary's size .* at offset [0-9]+\$"

# 6: a device as a thin member is refused, not read until memory runs out.
for cmd in "inspect" "inspect --format=llvm-objdump"; do
	if bounded "$OFFLINK" $cmd zero.a >out 2>err; then
		fail "$cmd read /dev/zero"
	fi
	expect_err_line "/dev/zero.*not a regular file"
done

# 5: work in O(n log n) (timeout guards against a hang only).
bounded "$OFFLINK" list many.bundle >out 2>err || { cat err >&2; fail "list many.bundle"; }
[ "$(wc -l <out)" -eq 60000 ] || fail "list many.bundle: $(wc -l <out) IDs, not 60000"
bounded "$OFFLINK" inspect --format=json many.fatbin >out 2>err || { cat err >&2; fail "inspect many.fatbin"; }
n=$(grep -c '"kind": *"fatbin' out || true)
[ "$n" -eq 100000 ] || fail "inspect many.fatbin: $n entries, not 100000"
mkdir -p ov
if (cd ov && bounded "$OFFLINK" inspect --format=llvm-objdump ../overlap.o) >out 2>err; then
	fail "re-read bundle entries accepted"
fi
expect_err_line "^offlink: error: '../overlap.o': while extracting offload FatBin bundles: bundle headers overlap so often that their entries exceed the input's size at offset [0-9]+\$"

echo ok
