#!/bin/bash
# Our packager's output equals clang-offload-packager 19's and
# llvm-offload-binary 22's byte for byte over many random argument sets:
# random keys (1 to 100 bytes, every hash length class), empty values,
# suffix-sharing strings, odd keys (=v, no '='), repeated keys, several
# file= keys, several images, every file extension, bitcode by content.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-packager" "$LLVM22/llvm-offload-binary" python3

mkdir bin
O19=$PWD/bin/clang-offload-packager-19 # the -19 suffix selects LLVM 19's rules
ln -s "$OFFLINK" "$O19"
O22=$OFL_COMPAT/llvm-offload-binary

for ext in o bc cubin fatbin s spv ll a; do randbytes 3$RANDOM 37 >"img.$ext"; done
randbytes 1 0 >empty.o
randbytes 2 1 >one
printf 'BC\xc0\xde\x01\x02' >bitcode.o      # bitcode whatever the extension
printf '\xde\xc0\x17\x0bxyz' >wrapped.spv

python3 - "$@" >cases.txt <<'PY'
import random
r = random.Random(1234)
files = ["img.o", "img.bc", "img.cubin", "img.fatbin", "img.s", "img.spv", "img.ll",
         "img.a", "empty.o", "one", "bitcode.o", "wrapped.spv"]
alpha = "abcdefghijklmnopqrstuvwxyz_-.:+0123456789ABCXYZ"
def word(lo, hi):
    return "".join(r.choice(alpha) for _ in range(r.randint(lo, hi)))
cases = []
for n in range(60):
    images = []
    for _ in range(r.randint(1, 3)):
        kv = ["file=" + r.choice(files)]
        if r.random() < 0.2:
            kv.append("file=" + r.choice(files))
        kv.append("triple=" + r.choice(["nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa",
                                        "x86_64-pc-linux-gnu", "", word(1, 40)]))
        if r.random() < 0.8:
            kv.append("arch=" + r.choice(["sm_70", "gfx90a:xnack+", "generic", "", word(1, 9)]))
        kv.append("kind=" + r.choice(["openmp", "cuda", "hip", "sycl", "none", "bogus"]))
        for _ in range(r.randint(0, 12 if n % 10 else 60)):
            key = word(1, r.choice([3, 8, 16, 32, 64, 100]))
            val = r.choice(["", word(0, 20), "x=y", key[-3:]])
            kv.append(key + "=" + val)
        if r.random() < 0.2:
            kv.append("novalue")
        if r.random() < 0.2:
            kv.append("=emptykey")
        if r.random() < 0.2:
            kv.append(kv[-1])               # repeated key: values joined by ','
        r.shuffle(kv)
        images.append("--image=" + ",".join(kv))
    cases.append(" ".join(images))
print("\n".join(cases))
PY

n=0 compared=0
while IFS= read -r line; do
	read -ra args <<<"$line"
	n=$((n + 1))
	"$LLVM19/clang-offload-packager" -o l19.bin "${args[@]}" 2>l19.err && r19=0 || r19=$?
	"$O19" -o o19.bin "${args[@]}" 2>o19.err && s19=0 || s19=$?
	[ "$r19" = "$s19" ] || fail "case $n: exit $s19, LLVM 19 exits $r19: $line"
	[ "$r19" != 0 ] || { same l19.bin o19.bin; compared=$((compared + 1)); }
	"$LLVM22/llvm-offload-binary" -o l22.bin "${args[@]}" 2>l22.err && r22=0 || r22=$?
	"$O22" -o o22.bin "${args[@]}" 2>o22.err && s22=0 || s22=$?
	[ "$r22" = "$s22" ] || fail "case $n: exit $s22, LLVM 22 exits $r22: $line"
	[ "$r22" != 0 ] || { same l22.bin o22.bin; compared=$((compared + 1)); }
	rm -f l19.bin o19.bin l22.bin o22.bin
done <cases.txt
[ "$n" -eq 60 ] && [ "$compared" -ge 100 ] || fail "ran $n cases, compared $compared outputs"

# Messages: missing keys, missing file, no images, both -o and an input.
"$LLVM19/clang-offload-packager" -o x --image=file=img.o 2>l.err && fail "19 accepted no triple"
"$O19" -o x --image=file=img.o 2>o.err && fail "we accepted no triple as 19"
same <(sed 's/^[^:]*: //' l.err) <(sed 's/^[^:]*: //' o.err)
"$O22" -o x --image=triple=t 2>o.err && fail "no file= accepted"
grep -qx "$O22: error: 'file' is a required image arguments" o.err || fail "22 message: $(cat o.err)"
"$O22" -o x --image=file=nonexistent 2>o.err && fail "missing file accepted"
grep -qx "$O22: error: No such file or directory" o.err || fail "missing file: $(cat o.err)"
[ ! -e x ] || fail "output written on error"
"$O22" -o zero.bin && [ -f zero.bin ] && [ ! -s zero.bin ] || fail "no --image must give an empty file"
"$O22" img.o -o x 2>o.err && fail "-o with an input accepted"
grep -q "Packaging to an output file and extracting from an input file are mutually exclusive.$" o.err

# The 22 deprecation warning, and help with nothing to do.
"$LLVM22/clang-offload-packager" -o w.bin --image=file=img.o 2>l.err
"$OFL_COMPAT/clang-offload-packager" -o w.bin --image=file=img.o 2>o.err
same l.err o.err
"$LLVM22/llvm-offload-binary" >l.out
"$O22" >o.out
same l.out o.out
"$LLVM22/llvm-offload-binary" --help >l.out
"$O22" --help >o.out
same l.out o.out
"$LLVM19/clang-offload-packager" --help >l.out
"$O19" --help | sed 's/clang-offload-packager-19 \[/clang-offload-packager [/' >o.out
same l.out o.out
echo "$n argument sets, $compared outputs identical to LLVM 19 and 22"
