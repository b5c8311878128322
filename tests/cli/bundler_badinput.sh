# Malformed input: one error line naming the file (and the offset for
# format errors), a non-zero exit, no output left behind, input untouched.
source "$OFL_SRC/tests/lib.sh"
BUNDLER=$OFL_COMPAT/clang-offload-bundler

python3 - <<'PY'
import struct
M = b"__CLANG_OFFLOAD_BUNDLE__"
def bundle(recs, data=b"", count=None):
    body = b"".join(struct.pack("<QQQ", o, s, len(i)) + i for o, s, i in recs)
    return M + struct.pack("<Q", len(recs) if count is None else count) + body + data
H = b"host-x86_64-unknown-linux-gnu-"
D = b"openmp-x86_64-unknown-linux-gnu-"
hdr = 32 + 24 + len(H) + 24 + len(D)
good = bundle([(hdr, 4, H), (hdr + 4, 4, D)], b"hostdev!")
files = {
    "truncated": M + b"\x02\x00\x00",
    "past_end": bundle([(hdr, 4, H), (hdr + 4, 400, D)], b"hostdev!"),
    "overlap": bundle([(hdr, 6, H), (hdr + 2, 6, D)], b"hostdev!"),
    "count": bundle([(hdr, 4, H)], b"host", count=1 << 60),
    "dup": bundle([(hdr, 4, H), (hdr + 4, 4, H)], b"hostdev!"),
    "idlen": M + struct.pack("<QQQQ", 1, 56, 0, 1 << 40),
    "good": good,
}
for k, v in files.items():
    open(k + ".bundle", "wb").write(v)
PY

T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
check_bad() { # name expected-offset
	cp "$1.bundle" orig
	expect_fail $BUNDLER -unbundle -type=bc -targets=$T -input=$1.bundle -output=h -output=d
	expect_err_line "$1.bundle: .* at offset $2\$"
	[ ! -e h ] && [ ! -e d ] || fail "$1: output left behind"
	same orig "$1.bundle"
	expect_fail "$OFFLINK" list "$1.bundle"
	expect_err_line "$1.bundle: .* at offset $2\$"
	expect_fail $BUNDLER -list -type=bc -input=$1.bundle
	expect_err_line "at offset $2\$"
}
check_bad truncated 24
check_bad past_end 86
check_bad overlap 86
check_bad count 24
check_bad dup 86
check_bad idlen 48
ls -A | grep -q '\.ofl-' && fail "temporary file left behind"

# a file that is not a bundle: LLVM's -list prints nothing and succeeds,
# offlink list says so
echo "just text" >plain.bin
$BUNDLER -list -type=bc -input=plain.bin >out
[ ! -s out ] || fail "personality should print nothing"
expect_fail "$OFFLINK" list --type=bc plain.bin
expect_err_line "plain.bin: not a bundle"
expect_fail $BUNDLER -unbundle -type=bc -targets=$T -input=plain.bin -output=h -output=d
expect_err_line "Can't find bundles for host-x86_64-unknown-linux-gnu- and openmp-x86_64-unknown-linux-gnu-"

# corrupt CCOB: wrong sizes and damaged stream
$BUNDLER -type=bc -targets=$T -input=good.bundle -input=plain.bin -output=z.ccob -compress
python3 - <<'PY'
d = bytearray(open("z.ccob", "rb").read())
a = bytearray(d); a[16] ^= 0x55; open("rawsize.ccob", "wb").write(a)      # uncompressed size
b = bytearray(d); b[8] = 0xff; b[9] = 0xff; open("total.ccob", "wb").write(b)  # total size
c = bytearray(d); c[40:48] = b"\xde\xad\xbe\xef" * 2; open("stream.ccob", "wb").write(c)
open("short.ccob", "wb").write(bytes(d[:20]))
e = bytearray(d); e[6] = 7; open("method.ccob", "wb").write(e)
PY
for f in rawsize total stream short method; do
	expect_fail $BUNDLER -unbundle -type=bc -targets=$T -input=$f.ccob -output=h -output=d
	expect_err_line "$f.ccob: "
	[ ! -e h ] || fail "$f: output left behind"
done

# bad target IDs are errors, not crashes
expect_fail $BUNDLER -type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack \
	-input=good.bundle -input=good.bundle -output=o
expect_err_line "xnack"
expect_fail $BUNDLER -type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+:xnack- \
	-input=good.bundle -input=good.bundle -output=o
expect_err_line "xnack"
expect_fail $BUNDLER -type=bc -targets=host-x86_64-unknown-linux-gnu,bogus-x86_64-unknown-linux-gnu \
	-input=good.bundle -input=good.bundle -output=o
expect_err_line "unknown offloading kind 'bogus'"
[ ! -e o ] || fail "output written despite bad targets"

# the output may not overwrite an input
cp good.bundle keep
expect_fail $BUNDLER -type=bc -targets=$T -input=good.bundle -input=plain.bin -output=good.bundle
expect_err_line "good.bundle: output file is also an input"
same keep good.bundle
expect_fail $BUNDLER -unbundle -type=bc -targets=$T -input=good.bundle -output=good.bundle -output=d
same keep good.bundle
expect_fail $BUNDLER -type=bc -bundle-align=0 -targets=$T -input=good.bundle -input=plain.bin -output=o
expect_err_line "bundle-align"
# a fat object whose host part is bad: the error names the fat object
printf 'int f(void) { return 1; }\n' >h.c
printf 'dev' >d.bin
cc -c h.c -o h.o || fail "compile h.c"
$BUNDLER -type=o -targets=$T -input=h.o -input=d.bin -output=fat.o || fail "bundle fat.o"
python3 - <<'PY'
import struct
b = bytearray(open("fat.o", "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
entsize, = struct.unpack_from("<H", b, 0x3a)
struct.pack_into("<Q", b, shoff + 2 * entsize + 0x18, len(b) + 1000)  # section 2's sh_offset
open("badfat.o", "wb").write(b)
PY
expect_fail $BUNDLER -unbundle -type=o -targets=host-x86_64-unknown-linux-gnu -input=badfat.o -output=ho
expect_err_line "error: badfat.o: section \[index 2\] .* greater than the file size .* at offset [0-9]+$"
[ ! -e ho ] || fail "host object written from a bad fat object"
ar rc badlib.a badfat.o 2>/dev/null || fail "ar badlib.a"
expect_fail $BUNDLER -unbundle -type=a -targets=host-x86_64-unknown-linux-gnu -input=badlib.a -output=ha
expect_err_line "error: badlib.a: archive member 'badfat.o': section \[index 2\] .* at offset [0-9]+$"
[ ! -e ha ] || fail "archive written from a bad fat object"

# the release it acts as: 23 reads main's amdgpu triples, 22 refuses them,
# a release offlink does not play is an error (not 22 in silence)
printf 'int h;\n' >h.i
printf 'int d;\n' >d.i
A=host-x86_64-unknown-linux-gnu,hip-amdgpu9.0a-amd-amdhsa--gfx90a
$BUNDLER --offlink-llvm-version=23 -type=i -targets=$A -input=h.i -input=d.i -output=b23.i ||
	fail "as 23: an amdgpu9.0a entry refused"
expect_fail $BUNDLER --offlink-llvm-version=22 -type=i -targets=$A -input=h.i -input=d.i -output=b22.i
expect_err_line "unknown target triple"
expect_fail $BUNDLER --offlink-llvm-version=21 -type=i -targets=$A -input=h.i -input=d.i -output=b21.i
expect_err_line "--offlink-llvm-version must be 19, 22 or 23"
echo ok
