#!/usr/bin/env bash
# The clang-linker-wrapper personality acting as LLVM 23's: its verbose dry
# run prints the steps 23 runs as tools (clang-linker-wrapper 23's
# linker-wrapper-verbose.c, re-done): the images taken out of each input
# by llvm-offload-binary (archive members named), the device links, OpenMP
# images packed by llvm-offload-binary, the fat binary tools, then
# llvm-offload-wrapper and the clang that compiles its bitcode; 22's dry
# run prints none of the new steps.  Its --save-temps folder is beside the
# output.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/llvm-ar"
W=$OFL_COMPAT/clang-linker-wrapper
echo 'int x;' >x.c
"$LLVM22/clang" -cc1 x.c -triple x86_64-unknown-linux-gnu -emit-obj -o elf.o

# embed IMAGE... : h.o with one binary of the images (kind,triple,arch)
embed() {
	local args=() i
	for i in "$@"; do
		args+=("--image=file=elf.o,$i")
	done
	"$OFFLINK" package --llvm-version=23 -o h.bin "${args[@]}" || fail "package $*"
	"$LLVM22/clang" -cc1 x.c -triple x86_64-unknown-linux-gnu -emit-obj -o h.o \
		-fembed-offload-object=h.bin || fail "embed $*"
}
# dry FILE ARGS...: the verbose dry run as 23 into FILE
dry() {
	local f=$1
	shift
	"$W" --llvm-version=23 --host-triple=x86_64-unknown-linux-gnu --wrapper-verbose --save-temps \
		--dry-run --linker-path=/usr/bin/ld "$@" -o a.out >"$f" 2>&1 || { cat "$f"; fail "dry run $*"; }
}
# checks FILE REGEX...: each regex matches a line after the last one's
# match, as FileCheck's CHECK lines do; (?P<N>...) and (?P=N) as its
# [[N:...]] and [[N]]
checks() {
	python3 - "$@" <<'EOF' || fail "$1 does not read as LLVM 23's"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
at, named = 0, {}
for pat in sys.argv[2:]:
    for k, v in named.items():
        pat = pat.replace("(?P=%s)" % k, re.escape(v))
    rx = re.compile(pat)
    for i in range(at, len(lines)):
        m = rx.search(lines[i])
        if m:
            named.update(m.groupdict())
            at = i + 1
            break
    else:
        print("no match after line %d: %s" % (at, pat))
        print("\n".join(lines))
        sys.exit(1)
EOF
}

embed kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70 kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a
dry omp.log h.o
checks omp.log \
	'llvm-offload-binary.* .*\.o --image=kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70,file=.*\.o --image=kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a,file=.*\.o' \
	'clang.* --target=nvptx64-nvidia-cuda -march=sm_70' \
	'clang.* --target=amdgcn-amd-amdhsa -mcpu=gfx90a' \
	'llvm-offload-binary.* -o .*\.offload --image=file=.*\.img,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70' \
	'llvm-offload-binary.* -o .*\.offload --image=file=.*\.img,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a' \
	'llvm-offload-wrapper.* --kind=openmp --triple=x86_64-unknown-linux-gnu -o (?P<BC>.*)\.bc .*\.offload .*\.offload' \
	'clang.* --no-default-config --target=x86_64-unknown-linux-gnu -c -fPIC -o .*\.openmp\.image\.wrapper.*\.o (?P=BC)\.bc'
# the files the steps name are the ones the device links read
python3 - omp.log <<'EOF' || fail "the extracted names are not the device links' inputs"
import re, sys
t = open(sys.argv[1]).read()
files = re.findall(r"file=(\S+\.o)\b", t.splitlines()[0])
links = [l for l in t.splitlines() if "-dumpdir" in l]
assert len(files) == 2 and all(f in l for f, l in zip(files, links)), (files, links)
EOF

embed kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70
dry reloc.log -r h.o
checks reloc.log 'llvm-offload-wrapper.* --kind=openmp --triple=x86_64-unknown-linux-gnu -o .*\.bc --relocatable .*\.offload'

embed kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70 kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52
dry cuda.log h.o
checks cuda.log \
	'llvm-offload-binary.* .*\.o --image=kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70,file=.*\.o --image=kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52,file=.*\.o' \
	'clang.* --target=nvptx64-nvidia-cuda -march=sm_70' \
	'clang.* --target=nvptx64-nvidia-cuda -march=sm_52' \
	'fatbinary.*--create (?P<FB>.*)\.fatbin .*--image3=kind=elf,sm=70.*--image3=kind=elf,sm=52' \
	'llvm-offload-wrapper.* --kind=cuda --triple=x86_64-unknown-linux-gnu -o (?P<BC>.*)\.bc (?P=FB)\.fatbin' \
	'clang.* --no-default-config --target=x86_64-unknown-linux-gnu -c -fPIC -o .*\.cuda\.image\.wrapper.*\.o (?P=BC)\.bc'

embed kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx908
dry hip.log h.o
checks hip.log \
	'llvm-offload-binary.* .*\.o --image=kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a,file=.*\.o --image=kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx908,file=.*\.o' \
	'clang.* --target=amdgcn-amd-amdhsa -mcpu=gfx90a' \
	'clang.* --target=amdgcn-amd-amdhsa -mcpu=gfx908' \
	'clang-offload-bundler.*-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908.*-output=(?P<FB>.*)\.hipfb' \
	'llvm-offload-wrapper.* --kind=hip --triple=x86_64-unknown-linux-gnu -o (?P<BC>.*)\.bc (?P=FB)\.hipfb' \
	'clang.* --no-default-config --target=x86_64-unknown-linux-gnu -c -fPIC -o .*\.hip\.image\.wrapper.*\.o (?P=BC)\.bc'

embed kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70
"$LLVM22/llvm-ar" rcs t.a h.o
dry ar.log --should-extract=sm_70 t.a
checks ar.log 'llvm-offload-binary.* .*\.a --image=kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70,member=.*\.o,file=.*\.o'

# 22 (the default) prints the device links and the host link only
"$W" --host-triple=x86_64-unknown-linux-gnu --wrapper-verbose --save-temps --dry-run \
	--linker-path=/usr/bin/ld h.o -o a.out >22.log 2>&1 || fail "22's dry run"
grep -q "llvm-offload-wrapper\|llvm-offload-binary" 22.log && { cat 22.log; fail "22 prints 23's steps"; }
grep -q -- "--target=nvptx64-nvidia-cuda -march=sm_70" 22.log || fail "22's device link"

# --save-temps: 23 keeps the temporaries beside the output (#198679), 22
# in $TMPDIR, each told in one line
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c -o omp.o \
	"$OFL_SRC/tests/e2e/wrap_openmp_src/kern.c" || fail "compile omp.o"
mkdir -p out tmp
for v in 23 22; do
	TMPDIR=$PWD/tmp "$W" --llvm-version=$v --host-triple=x86_64-unknown-linux-gnu --save-temps \
		--linker-path=/bin/true omp.o -L"$(dirname "$(readlink -f "$LLVM22/clang")")/../lib" -lomp \
		-o out/a.$v 2>kept.$v || { cat kept.$v; fail "$v: link"; }
	d=$(sed -n 's/.*temporaries kept in //p' kept.$v)
	want=$([ $v = 23 ] && echo out || echo "$PWD/tmp")
	[ "$(dirname "$d")" = "$want" ] && ls "$d"/*.img >/dev/null ||
		{ cat kept.$v; fail "$v: temporaries kept in '$d', not in $want"; }
done

# --no-canonical-prefixes (#184160, 23): the device clang is the one beside
# the wrapper as invoked, its links not resolved, and gets
# -no-canonical-prefixes (LLVM's linker-wrapper-canonical-prefixes.c, its
# CHECK line first); 22 has no such option and hands it to the host linker
mkdir -p test_dir
touch test_dir/clang
chmod +x test_dir/clang
ln -s "$W" test_dir/clang-linker-wrapper
embed kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908
for v in 23 22; do
	test_dir/clang-linker-wrapper --llvm-version=$v --host-triple=x86_64-unknown-linux-gnu --dry-run \
		--linker-path=/usr/bin/ld h.o -o a.out --no-canonical-prefixes >canon.$v 2>&1 ||
		{ cat canon.$v; fail "$v: --no-canonical-prefixes"; }
done
grep -q 'test_dir/clang"' canon.23 || { cat canon.23; fail "23: not the clang beside the wrapper"; }
checks canon.23 \
	'^ "test_dir/clang" --no-default-config .* --target=amdgcn-amd-amdhsa -no-canonical-prefixes -mcpu=gfx908 ' \
	'^ "/usr/bin/ld" h\.o -o a\.out \S+\.o$'
grep -q 'test_dir/clang"\|-no-canonical-prefixes -mcpu' canon.22 &&
	{ cat canon.22; fail "22: took --no-canonical-prefixes"; }
checks canon.22 '^ "/usr/bin/ld" h\.o -o a\.out \S+\.o --no-canonical-prefixes$'
# a real link: the device clang runs under the name beside the wrapper
mkdir -p cas
ln -s "$(readlink -f "$LLVM22/clang")" cas/clang
ln -s "$W" cas/clang-linker-wrapper
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fPIC -c -o ompic.o \
	"$OFL_SRC/tests/e2e/wrap_openmp_src/kern.c" || fail "compile ompic.o"
cas/clang-linker-wrapper --llvm-version=23 --host-triple=x86_64-unknown-linux-gnu --wrapper-verbose \
	--linker-path=/usr/bin/ld -shared ompic.o -L"$(dirname "$(readlink -f "$LLVM22/clang")")/../lib" \
	-lomp -o cas.so --no-canonical-prefixes 2>cas.log || { cat cas.log; fail "23: real link"; }
grep -q '^ "cas/clang" .* -no-canonical-prefixes ' cas.log || { cat cas.log; fail "23: device clang"; }
