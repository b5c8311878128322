#!/usr/bin/env bash
# The device-link cache never gives an image a fresh link would not: for
# each item of the key (docs/design.md, "Device-link cache"), a link fills
# the cache, ONE thing the device link reads is changed, and the relink
# must give the bytes of a link without the cache, by a miss whenever the
# change reaches the image (each case checks that it does).  Items whose
# change leaves the image alone (a library the tools load, an
# environment variable) must still miss.  A file keyed by its identity
# (a library, a tool) that changed in the last 2 s is keyed by its bytes
# instead: a link right after a change is stored, and right.  What clang's
# driver reads only decides what it runs (its answer kept as a memo): a
# change there asks it again, and the same command is the same link.  Real
# clang 22 (and 19) links.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" "$LLVM22/llvm-ar" "$LLVM19/clang" /usr/bin/ld.gold cc cmp
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
RT=/usr/lib/llvm-22/lib
OMP="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu"
export OFFLINK_CACHE_DIR=$PWD/cache
for f in main kern; do
	"$LLVM22/clang" $OMP -c "$SRC/$f.c" -o $f.o || fail "compile $f"
done
sed 's/int scale = 3;/int scale = 4;/' "$SRC/kern.c" >kern2.c
"$LLVM22/clang" $OMP -I"$SRC" -c kern2.c -o kern2.o || fail "compile kern2"
cp kern.o kern1.o
# objects and libraries for the device link, two versions of each
for v in 1 2; do
	printf 'int extra_marker = %s;\n' $v >extra$v.c
	cc -fPIC -c extra$v.c -o extra$v.o || fail "compile extra$v"
	cc -shared -Wl,-soname,libfoo$v.so extra$v.o -o libfoo$v.so || fail "libfoo$v"
done
cp extra1.o extra.o
cp libfoo1.so libfoo.so
cp libfoo1.so libbar.so
# a linker script names an object: the key reads the script
printf 'INPUT(scr_impl.o)\n' >libscr.so
cp extra1.o scr_impl.o
printf -- '--soname=one.so\n' >dev.rsp
# settle: files keyed by their identity are told by it only 2 s after
# their last change
settle

# olink OUT ARGS...: a cached link (--no-device-cache in ARGS: not)
olink() {
	local out=$1
	shift
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
		-Wl,--explain="$PWD/$out.explain" "$@" -o "$out" || fail "link $out"
}

# case NAME CHANGES MUTATION ARGS...: fill, mutate, relink cached and
# uncached; CHANGES is "image" (the mutation changes the image: the relink
# must miss) or "key" (it does not, but the key covers it: a miss too)
case_() {
	local name=$1 changes=$2 mutation=$3
	shift 3
	olink $name.0 "$@"
	grep -q 'device link for .*, cache \(miss\|hit\)' $name.0.explain ||
		{ cat $name.0.explain; fail "$name: not cached"; }
	eval "$mutation"
	olink $name.1 "$@"
	olink $name.2 "$@" -Wl,--no-device-cache
	cmp $name.1 $name.2 || fail "$name: the cached link differs from an uncached one (stale hit)"
	if [ $changes = image ]; then
		cmp -s $name.0 $name.2 && fail "$name: the mutation did not change the image"
	fi
	grep -q 'device link for .*, cache miss' $name.1.explain ||
		{ cat $name.1.explain; fail "$name: no miss after the mutation"; }
	olink $name.3 "$@"
	grep -q 'device link for .*, cache hit' $name.3.explain ||
		{ cat $name.3.explain; fail "$name: the relink did not hit"; }
}

# the link's own inputs: their bytes
case_ input image 'cp kern2.o kern.o'
cp kern1.o kern.o
# a file named by a relative path in a device linker argument
case_ relative image 'cp extra2.o extra.o' -Wl,--device-linker=extra.o
cp extra1.o extra.o
# a shared library named by a relative path on the host link (CPU device
# links take it): its SONAME reaches the image
case_ hostlib image 'cp libfoo2.so libfoo.so' libfoo.so
# a library found by -l in a -L folder
case_ library image 'cp libfoo2.so libbar.so; settle' -L. -lbar
# a link right after a change (a library, a script's object just made):
# keyed by the bytes, stored, and the image a fresh link's; once the file
# has settled, the next link has the same key (the bytes pinned)
for c in "libfoo1.so libbar.so" "extra2.o scr_impl.o"; do
	cp $c
	olink new.1 -L. -lbar -Wl,--device-linker=-L"$PWD" -Wl,--device-linker=-lscr
	olink new.2 -L. -lbar -Wl,--device-linker=-L"$PWD" -Wl,--device-linker=-lscr \
		-Wl,--no-device-cache
	cmp new.1 new.2 || fail "$c changed just now: stale image"
	sleep 2.1
	olink new.3 -L. -lbar -Wl,--device-linker=-L"$PWD" -Wl,--device-linker=-lscr
	grep -q 'device link for .*, cache hit' new.3.explain ||
		{ cat new.1.explain new.3.explain; fail "$c changed just now: no hit once settled"; }
done
cp extra1.o scr_impl.o
settle
# a response file: its content
case_ rsp image "printf -- '--soname=two.so\n' >dev.rsp" -Wl,--device-linker=@"$PWD/dev.rsp"
# a file a linker script names (its INPUT), read through the script
case_ script image 'cp extra2.o scr_impl.o; settle' -Wl,--device-linker=-L"$PWD" \
	-Wl,--device-linker=-lscr
# the same file reached through a link that is moved to another file
# while the first stays as it was (libfoo.so to a new version; one no link
# read before: bytes read before are the same key, a hit)
printf 'int extra_marker = 3;\n' >extra3.c
cc -fPIC -c extra3.c -o extra3.o || fail "compile extra3"
rm scr_impl.o
ln -s extra1.o scr_impl.o
case_ symlink image 'ln -sfn extra3.o scr_impl.o' -Wl,--device-linker=-L"$PWD" \
	-Wl,--device-linker=-lscr
rm scr_impl.o
cp extra1.o scr_impl.o
settle
# the environment the tools read
case_ env key 'export LIBRARY_PATH=/nonexistent'
unset LIBRARY_PATH
# a device compiler by bare name: found on the command's PATH (LLVM 19's
# clang links this image as 22's does, by gold: the image is the same)
# (gold names the image's base version after its output, a temporary: a
# soname keeps the image the same from link to link)
SONAME=-Wl,--device-linker=--soname=img.so
PATH22=$PATH
export PATH=$LLVM22:$PATH22
case_ path key 'export PATH=$LLVM19:$PATH22' -Wl,--device-compiler=clang $SONAME
export PATH=$PATH22

# tree DIR [copy]: a clang install of its own, a copy of clang 22's binary
# (whose RUNPATH is $ORIGIN/../lib) and links to the rest; with copy, the
# libraries it loads copied into DIR/lib; no ld.lld beside clang
tree() {
	local l
	mkdir -p $1/bin $1/lib
	cp "$(readlink -f "$LLVM22/clang")" $1/bin/clang
	mkdir -p $1/lib/clang
	ln -s "$RT"/clang/* $1/lib/clang/
	for l in $(readelf -d $1/bin/clang | sed -n 's/.*NEEDED.*\[\(lib\(LLVM\|clang-cpp\)[^]]*\)\].*/\1/p'); do
		l=$(ldd "$LLVM22/clang" | awk -v l=$l '$1 == l { print $3 }')
		if [ "${2:-}" = copy ]; then cp "$l" $1/lib/; else ln -s "$l" $1/lib/; fi ||
			fail "$1: $l"
	done
}
# the CPU link of a clang without ld.lld beside it takes gold, found on PATH
tree tree copy
[ -e tree/lib/libLLVM.so.22.1 ] || fail "clang 22 loads no libLLVM.so.22.1"
mkdir -p gold
cp /usr/bin/ld.gold gold/ld.gold
settle
export PATH=$PWD/gold:$PATH22
TREE=-Wl,--device-compiler="$PWD/tree/bin/clang"
case_ gold key "printf x >>gold/ld.gold" "$TREE" $SONAME
grep -q '"-fuse-ld=gold"' gold.1.explain || fail "the tree's link did not use gold"
grep -q "key file: $PWD/gold/ld.gold" gold.1.explain || fail "not the gold PATH finds"
# what the driver loads and reads to choose (its libraries, its resource
# folders) decides its answer, kept as a memo: a change asks it again, and
# the same command it gives is the same link
for m in 'touch tree/lib/libLLVM.so.22.1' 'mkdir tree/lib/clang/99'; do
	n=$(cache_memos cache | wc -l)
	eval "$m"
	settle
	olink driver.1 "$TREE" $SONAME
	[ "$(cache_memos cache | wc -l)" -gt "$n" ] || fail "$m: the driver was not asked again"
	grep -q 'device link for .*, cache hit' driver.1.explain || fail "$m: not the same link"
done
export PATH=$PATH22

# LLVM 22's OpenMP device runtime, lib/<triple>/libompdevice.a in clang's
# own install, which clang finds by itself (Debian ships none: a
# stand-in), rebuilt
STUB=$OFL_SRC/tests/interop/wrap_stub_src
tree llvm22
ln -s "$LLVM22/ld.lld" llvm22/bin/ld.lld
mkdir -p llvm22/lib/amdgcn-amd-amdhsa
for v in 1 2; do
	printf '%s\n' "int __kmpc_target_init(void *env, void *launch_env) { return -$v; }" \
		'void __kmpc_target_deinit(void) {}' >rt$v.c
	"$LLVM22/clang" --target=amdgcn-amd-amdhsa -nogpulib -flto -c rt$v.c -o rt$v.o ||
		fail "stand-in runtime $v"
	"$LLVM22/llvm-ar" rcs libompdevice$v.a rt$v.o || fail "libompdevice$v.a"
done
cp libompdevice1.a llvm22/lib/amdgcn-amd-amdhsa/libompdevice.a
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o gpu.o ||
	fail "compile for gfx90a"
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
settle
# glink OUT ARGS...: a GPU link through gcc's route to ld.offlink
glink() {
	local out=$1
	shift
	cc -rdynamic stub.o gpu.o -ldl -B"$OFL_BUILD/libexec/offlink/gcc" \
		-Wl,--device-compiler="$PWD/llvm22/bin/clang" -Wl,--explain="$PWD/$out.explain" "$@" \
		-o $out || fail "link $out"
}
glink rt.0
grep -q 'device link for .*, cache miss' rt.0.explain || fail "rt: not cached"
grep -q '"-L[^"]*/llvm22/lib/amdgcn' rt.0.explain && fail "rt: clang was told where its runtime is"
cp libompdevice2.a llvm22/lib/amdgcn-amd-amdhsa/libompdevice.a
settle
glink rt.1
glink rt.2 -Wl,--no-device-cache
cmp rt.1 rt.2 || fail "rt: a rebuilt libompdevice.a gave a stale image"
cmp -s rt.0 rt.2 && fail "rt: the rebuilt runtime did not change the image"
grep -q 'device link for .*, cache miss' rt.1.explain || fail "rt: no miss"

# clang-linker-wrapper's personality, with clang's spelling of a device
# linker argument: -Xoffload-linker extra.o
xlink() {
	"$LLVM22/clang" $OMP -B"$OFL_COMPAT" main.o kern.o -L$RT -Xoffload-linker extra.o "$@" ||
		fail "personality link $*"
}
xlink -o x.0
cp extra2.o extra.o
xlink -o x.1
OFFLINK_CACHE=0 xlink -o x.2
cmp x.1 x.2 || fail "personality: -Xoffload-linker extra.o rebuilt gave a stale image"
cmp -s x.0 x.2 && fail "personality: the rebuilt extra.o did not change the image"

# clang's COMPILER_PATH, where it finds its linker before its own folder:
# what it finds there is what runs, and is keyed (the gold case's entry,
# whose job it is, may answer)
COMPILER_PATH=$PWD/gold olink cpath.1 "$TREE" $SONAME
COMPILER_PATH=$PWD/gold olink cpath.2 "$TREE" $SONAME -Wl,--no-device-cache
cmp cpath.1 cpath.2 || fail "COMPILER_PATH: stale image"
grep -q "runs: \"$PWD/gold/ld.gold\"" cpath.1.explain || { cat cpath.1.explain; fail "COMPILER_PATH: not its gold"; }
grep -q "key file: $PWD/gold/ld.gold" cpath.1.explain || fail "COMPILER_PATH: its gold not keyed"
# the build folder: out of the key where the image does not depend on it
# (the same objects and library linked from another folder hit), in it
# where it does (a run path into it, which CPU device links take: another
# image, a miss)
TOP=$PWD
# bflink DIR OUT ARGS...: a link run in DIR, its library folder DIR/lib
bflink() {
	local dir=$1 out=$2
	shift 2
	(cd $dir && "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" $TOP/main.o $TOP/kern.o \
		-L$RT -L"$TOP/$dir/lib" -lfoo -Wl,--explain="$TOP/$out.explain" "$@" -o "$TOP/$out") ||
		fail "link $out"
}
mkdir -p bf1/lib bf2/lib
cp libfoo1.so bf1/lib/libfoo.so
cp libfoo1.so bf2/lib/libfoo.so
bflink bf1 bf.1
bflink bf2 bf.2
grep -q 'device link for .*, cache hit' bf.2.explain || { cat bf.2.explain; fail "another build folder: a miss"; }
bflink bf1 rpath.1 -Wl,-rpath,"$TOP/bf1/lib"
bflink bf2 rpath.2 -Wl,-rpath,"$TOP/bf2/lib"
bflink bf2 rpath.3 -Wl,-rpath,"$TOP/bf2/lib" -Wl,--no-device-cache
cmp rpath.2 rpath.3 || fail "a run path into the build folder: a stale image"
grep -q 'device link for .*, cache miss' rpath.2.explain || fail "a run path into the build folder: a hit"
# the loader's view: a folder more on LD_LIBRARY_PATH holding none of what
# the tools load changes nothing; a library of theirs put there (lld's
# libz, one byte changed) is another key
olink ldp.0
mkdir -p ldp
export LD_LIBRARY_PATH=$PWD/ldp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
olink ldp.1
grep -q 'device link for .*, cache hit' ldp.1.explain || { cat ldp.1.explain; fail "LD_LIBRARY_PATH: a miss"; }
case_ ldpath key 'flipped_copy "$(readlink -f /lib/x86_64-linux-gnu/libz.so.1)" ldp/libz.so.1 Jean-loup Jean-Loup'
grep -q "key file: $PWD/ldp/libz.so.1" ldpath.1.explain || fail "LD_LIBRARY_PATH: its libz not keyed"
rm ldp/libz.so.1

# a response file that includes itself: bounded work, and the link fails
# as clang fails it (not the cache's doing)
printf '@a.rsp @a.rsp @a.rsp @a.rsp @a.rsp @a.rsp\n' >a.rsp
rc=0
timeout -k 5 60 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
	-Wl,--device-linker=@a.rsp -o cyc 2>cyc.err || rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] || { cat cyc.err; fail "a self-including @file: exit $rc"; }
grep -q 'recursive expansion' cyc.err || { cat cyc.err; fail "a self-including @file: not clang's error"; }
echo "device-link cache: every key item's change misses, no stale image"
