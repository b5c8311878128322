#!/usr/bin/env bash
# The device-link cache's third review (issue 37, item 3): one case per
# defect, through real clang 22 links with a cache of their own; each case
# failed before its fix.  Stale hits: a relative INPUT(x.o) of a linker
# script (found beside the script first), INCLUDE (the script it reads and
# what that names), the launcher's own words, a GCC installation beside
# clang or in /opt/rh (clang's choice of crt files); needless misses: host
# -flto=full|thin (CMake's IPO), variables no tool reads; a side output of
# ld.lld's -mllvm.  (A trickling remote: link_cache_remote.sh.)  Every
# case runs; the failures are listed at the end.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" /usr/bin/ld.gold cc ld cmp timeout
counted_omp_program
export OFFLINK_CACHE_DIR=$PWD/cache
for v in 1 2 3; do
	printf 'int extra_marker = %s;\n' $v >extra$v.c
	cc -fPIC -c extra$v.c -o extra$v.o || fail "compile extra$v"
done
OBJS=(main.o kern.o -L"$RT")

# ---- a relative INPUT of a linker script: beside the script first ----------
# ld.lld, ld.bfd and gold all take sd/x.o for sd/libsd.so's INPUT(x.o) when
# the working folder has an x.o too (tried); the key held the working
# folder's, and a rebuilt sd/x.o was a stale hit.
mkdir sd
cp extra1.o sd/x.o
cp extra3.o x.o
printf 'INPUT(x.o)\n' >sd/libsd.so
stale "script folder" script-folder "cp extra2.o sd/x.o" -Wl,--device-linker=-L"$PWD/sd" \
	-Wl,--device-linker=-lsd

# a command whose effect offlink does not follow (SEARCH_DIR: where the
# library names after it are looked for): not cached
printf 'SEARCH_DIR(%s)\nINPUT(-lsd)\n' "$PWD/sd" >sdir.ld
counted_link sdir -Wl,--device-linker="$PWD/sdir.ld"
not_cached_said sdir || failed_case "SEARCH_DIR" "a script with SEARCH_DIR was cached ($(state sdir))"

# ---- INCLUDE: the script it reads, and what that names ---------------------
# (ld.lld and ld.bfd find it in the working folder, then the library
# folders; its INPUT beside it)
mkdir si
printf '/* the device link reads */ INCLUDE inc.ld\n' >si/t.ld
printf 'INPUT(y.o)\n' >inc.ld
cp extra1.o y.o
cp extra3.o z.o
stale "include" include-input "cp extra2.o y.o" -Wl,--device-linker="$PWD/si/t.ld"
stale "include" include-script "printf 'INPUT(z.o)\n' >inc.ld" -Wl,--device-linker="$PWD/si/t.ld"

# ---- the launcher's own words ----------------------------------------------
# "env LLD_VERSION=B" before ld.lld writes B into the image's .comment:
# another link than A's
# vlink OUT VERSION ARGS...: a link under env LLD_VERSION=VERSION
vlink() {
	local out=$1 v=$2
	shift 2
	OFFLINK_DEVICE_LAUNCHER="env LLD_VERSION=$v" timeout -k 5 60 "$LLVM22/clang" -fopenmp \
		-fuse-ld=offlink -B"$OFL_BUILD/bin" "${OBJS[@]}" -Wl,--explain="$PWD/$out.explain" "$@" \
		-o "$out" || fail "link $out"
}
vlink words.0 offlink-A
vlink words.1 offlink-B
vlink words.2 offlink-B -Wl,--no-device-cache
cmp -s words.0 words.2 && fail "words: LLD_VERSION did not reach the image"
cmp -s words.1 words.2 ||
	failed_case "launcher words" "a stale hit: env LLD_VERSION=B gave A's image ($(state words.1))"

# ---- a GCC installation beside clang, and in /opt/rh ------------------------
# clang's driver takes the crt files and libgcc of the GCC installation it
# finds first: in <clang>/../lib/gcc, in Red Hat's toolsets, in /usr.  One
# made there is a new answer to `clang -###`; its crtbeginS.o here has a
# marker of its own, which reaches the image.  (Settled: a key of its files'
# times would not see them change, a key of their bytes does.)
printf 'int gcc_marker = 13;\n' >marker.c
cc -fPIC -c marker.c -o marker.o || fail "compile marker"
GCC12=$(dirname "$(cc -print-libgcc-file-name)")
# gcc_install DIR: a GCC 13 installation's crt files and libgcc in DIR
gcc_install() {
	mkdir -p "$1"
	cp "$GCC12"/crtbegin.o "$GCC12"/crtend.o "$GCC12"/crtendS.o "$GCC12"/libgcc.a \
		"$GCC12"/libgcc_s.so "$1"/ || fail "$1"
	ld -r "$GCC12/crtbeginS.o" marker.o -o "$1/crtbeginS.o" || fail "$1/crtbeginS.o"
}
clang_without_lld tree
# (gold names the image's base version after its output, a temporary: a
# soname keeps the image the same from link to link)
TREE=(-Wl,--device-compiler="$PWD/tree/bin/clang" -Wl,--device-linker=--soname=img.so)
stale "gcc beside clang" gcc-beside "gcc_install tree/lib/gcc/x86_64-linux-gnu/13; settle" "${TREE[@]}"
rm -r tree/lib/gcc
# /opt/rh in a mount namespace of its own (a tmpfs over /opt), as root
if has_namespaces; then
	in_namespace OBJS TREE RT LLVM22 OFL_BUILD GCC12 FAILED OFFLINK_CACHE_DIR -- '
		mount -t tmpfs tmpfs /opt
		stale "gcc in /opt/rh" gcc-rh \
			"gcc_install /opt/rh/gcc-toolset-13/root/usr/lib/gcc/x86_64-redhat-linux/13; settle" \
			"${TREE[@]}"
		declare -p FAILED >rh.failed'
	source ./rh.failed
else
	echo "no mount namespace (unshare -m, as root): /opt/rh not tried"
fi

# ---- host -flto=full|thin: cached ------------------------------------------
# CMake's IPO gives the driver -flto=full or thin, which it passes the
# clang-linker-wrapper personality as a device compiler word.
for m in full thin; do
	for i in 0 1; do
		rm -f ran
		OFFLINK_DEVICE_LAUNCHER=$PWD/launch "$LLVM22/clang" -fopenmp \
			-fopenmp-targets=x86_64-pc-linux-gnu -flto=$m -B"$OFL_COMPAT" main.o kern.o -L$RT \
			-Wl,--explain="$PWD/lto$m.$i.explain" -o lto$m.$i || fail "-flto=$m link $i"
	done
	! not_cached_said lto$m.1 && [ "$(ran)" = 0 ] ||
		failed_case "-flto=$m" "the relink ran $(ran) device link(s) ($(state lto$m.1))"
	cmp -s lto$m.0 lto$m.1 || failed_case "-flto=$m" "the relink differs"
done

# ---- variables no tool reads: not keyed -------------------------------------
# (another folder first on PATH, holding none of the tools; a date and a
# CUDA toolkit no CPU device link reads)
mkdir empty-bin
counted_link unread.0
PATH=$PWD/empty-bin:$PATH SOURCE_DATE_EPOCH=1 CUDA_HOME=/nowhere counted_link unread.1
[ "$(ran)" = 0 ] || failed_case "unread variables" "a miss ($(state unread.1))"

# ---- ld.lld's -mllvm: an option that writes a file is not cached -------------
# -time-passes writes its report to -info-output-file's file at the end of
# the device link's LTO (AMDGPU): a hit would write none.
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/omp.c" -o gpu.o || fail "compile for gfx90a"
cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
OBJS=(stub.o gpu.o -rdynamic -ldl -Wl,--nogpulib
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all)
for i in 0 1; do
	rm -f passes.txt
	counted_link mllvm.$i -Wl,--device-linker=-mllvm=-time-passes \
		-Wl,--device-linker=-mllvm=-info-output-file="$PWD/passes.txt"
	[ -s passes.txt ] || { failed_case "-mllvm" "link $i wrote no passes.txt ($(state mllvm.$i))"; break; }
done
not_cached_said mllvm.1 || failed_case "-mllvm" "no 'not cached:' line in --explain"

check_all "the third review's defects"
echo "device-link cache: the third review's cases link as an uncached link does"
