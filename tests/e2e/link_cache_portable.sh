#!/usr/bin/env bash
# Issue 37: a device link stored by one machine is a remote hit on every
# other with the same toolchain.  This machine plays the second one: a
# mount namespace (unshare -m, as root) in which every file the first
# machine's device links read is a byte-identical copy bound over the
# original (another inode, other modification and change times: installed
# at another time), the loader's cache made afresh by ldconfig (with a
# folder more: other bytes), and PATH (CUDA's bin/ on it), HOME, USER, TMPDIR, the build
# folder and the local store others.  The remote is nginx's WebDAV on
# 127.0.0.1.  There every everyday link is a remote hit giving the first
# machine's program: OpenMP CPU with an archive, a thin archive, -l
# libraries and a linker script (LLVM 22, 19, and 23-shaped objects;
# ld.offlink, the clang-linker-wrapper personality, the plugin in ld.bfd),
# AMDGPU (22 with LLVM 22's device runtime, 19 with its own and its LTO
# step), NVPTX (19, CUDA's tools), HIP and CUDA (22).  Then with one byte
# changed in a tool (ld.lld), a library it loads (libz), a device runtime
# (libompdevice.a), a crt file (crtbeginS.o) or a linker script (libc.so),
# the links that read it miss.  The links of a machine run as a batch.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM19/clang" "$LLVM22/llvm-ar" "$LLVM22/llvm-objcopy" \
	"$LLVM22/llvm-offload-binary" "$LLVM19/llvm-lto2" nginx curl cc gcc ld.bfd ldconfig unshare cmp \
	python3
need_libomp19
has_namespaces || skip "no mount namespace (unshare -m, as root)"
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" "$CUDA/bin/fatbinary"
RT22=/usr/lib/llvm-22/lib
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
unset LIBRARY_PATH # nvlink writes it into the cubin: a setting both machines share
# the first machine finds CUDA where clang looks by default (a CI image),
# the second by the ptxas on its PATH (a developer's shell): one toolkit
unset CUDA_PATH
PATH=$(tr : '\n' <<<"$PATH" | grep -vx "$CUDA/bin" | paste -sd:)

# ---- the first machine's build folder ---------------------------------------
mkdir -p a/build
cd a/build
archive_omp_objects c22 "$LLVM22/clang"
# (Debian's LLVM 19 has no omp.h of its own: the unpacked runtime's)
archive_omp_objects c19 "$LLVM19/clang" -isystem "${RTLIB%/lib}/lib/clang/19/include"
cp cpu.expected ../..
# objects as clang-23 makes them: one version-2 OffloadBinary of the images
# (link_llvm23.sh)
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fPIC -O1 \
		-c "$OFL_SRC/tests/e2e/wrap_openmp_src/$f.c" -o $f.o || fail "compile $f"
	"$LLVM22/llvm-offload-binary" $f.o --image=file=$f.img,triple=x86_64-pc-linux-gnu ||
		fail "extract from $f.o"
	"$OFL_COMPAT/llvm-offload-binary" --llvm-version=23 -o $f.bin \
		--image=file=$f.img,triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp || fail "pack $f as 23"
	"$LLVM22/llvm-objcopy" --update-section .llvm.offloading=$f.bin $f.o ${f}23.o || fail "${f}23.o"
done
HAVE_CUDA=1 stub_gpu_objects
cd ../..
# LLVM 22 with an AMDGPU device runtime (Debian ships none: a stand-in)
standin_llvm22 llvm22 amdgcn-amd-amdhsa

# every_link OUT [NAME...]: the everyday links (all, or those named) of
# the build folder here, each program and its --explain in OUT/; the
# first that fails ends the test
every_link() {
	local o=$1 cpu=(-fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin") gpu=(-rdynamic -ldl)
	shift
	local only=" ${*:-${LINKS[*]}} "
	mkdir -p "$o"
	# run_link NAME COMMAND...: when NAME is asked for
	run_link() {
		local name=$1
		shift
		[[ "$only" == *" $name "* ]] || return 0
		"$@" -o "$o/$name" 2>"$o/$name.err" || { cat "$o/$name.err"; fail "link $name"; }
	}
	run_link cpu22 "$LLVM22/clang" "${cpu[@]}" c22/amain.o -Lc22 -la -ls -L$RT22 \
		-Wl,--explain="$o/cpu22.explain"
	run_link cpu19 "$LLVM19/clang" "${cpu[@]}" c19/amain.o -Lc19 -la -ls -L"$RTLIB" \
		-Wl,--explain="$o/cpu19.explain"
	run_link llvm23 "$LLVM22/clang" "${cpu[@]}" main23.o kern23.o -L$RT22 \
		-Wl,--explain="$o/llvm23.explain"
	run_link personality "$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
		-B"$OFL_COMPAT" c22/amain.o -Lc22 -la -ls -L$RT22 -Wl,--explain="$o/personality.explain"
	run_link plugin plink gcc -fuse-ld=bfd c22/amain.o -Lc22 -la -ls -L$RT22 -lomp -lomptarget \
		-Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,explain="$o/plugin.explain"
	run_link amdgpu22 "$LLVM22/clang" "${cpu[@]}" stub.o amd22.o "${gpu[@]}" \
		-Wl,--device-compiler="$ROOT/llvm22/bin/clang" \
		-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all \
		-Wl,--explain="$o/amdgpu22.explain"
	run_link amdgpu19 "$LLVM19/clang" "${cpu[@]}" stub.o amd19.o -L"$RTLIB" "${gpu[@]}" \
		-Wl,--explain="$o/amdgpu19.explain"
	run_link nvptx19 "$LLVM19/clang" "${cpu[@]}" stub.o nv19.o -L"$RTLIB" "${gpu[@]}" \
		-Wl,--explain="$o/nvptx19.explain"
	run_link hip "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" stub.o hip.o -L. "${gpu[@]}" \
		-Wl,--explain="$o/hip.explain"
	run_link cuda "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" stub.o cuda.o "${gpu[@]}" \
		-Wl,--explain="$o/cuda.explain"
}
LINKS=(cpu22 cpu19 llvm23 personality plugin amdgpu22 amdgpu19 nvptx19 hip cuda)
# states EXPLAIN: what the cache did for each of its device actions
states() { sed -n 's/^\(device link\|LTO\) for .*: [0-9.]* s, \(cache [a-z]*\( (remote)\)\?\|not cached\).*/\2/p' "$1"; }

port=$(free_port)
start_nginx $port
export OFFLINK_CACHE_REMOTE=http://127.0.0.1:$port/
ROOT=$PWD

# ---- the first machine: every link stored --------------------------------------
(cd a/build && OFFLINK_CACHE_DIR=$ROOT/a/local every_link "$ROOT/a/out")
LD_LIBRARY_PATH=$RT22 a/out/cpu22 | diff -u cpu.expected - || fail "the first machine's cpu22"
for l in "${LINKS[@]}"; do
	[ -n "$(states a/out/$l.explain)" ] || fail "$l: no device action"
	! grep -q '^  not cached:' a/out/$l.explain || fail "$l: $(grep '^  not cached:' a/out/$l.explain)"
	! states a/out/$l.explain | grep -vqx 'cache miss' || fail "$l: $(states a/out/$l.explain)"
done
[ -n "$(ls ngx/www/ac)" ] || fail "nothing stored on the remote"

# the files the first machine's device actions read (not the links' own,
# nor the build folder's)
sed -n 's/^  key file: //p' a/out/*.explain | while read -r f; do
	[ -e "$f" ] && case $f in "$ROOT"/a/*) ;; *) readlink -f "$f" ;; esac
done | sort -u >toolchain.files
[ "$(wc -l <toolchain.files)" -gt 40 ] || fail "few files keyed: $(cat toolchain.files)"

# ---- the second machine -----------------------------------------------------------
mkdir -p b/files b/bin b/home b/tmp b/libs
cp -r a/build b/build
printf 'int ofl_portable_unrelated;\n' >unrelated.c
cc -shared -fPIC -Wl,-soname,libofl-unrelated.so.1 unrelated.c -o b/libs/libofl-unrelated.so.1
printf 'include /etc/ld.so.conf\n%s\n' "$ROOT/b/libs" >b/ld.so.conf
printf '#!/bin/sh\necho unrelated\n' >b/bin/unrelated
chmod +x b/bin/unrelated
# second_machine: this namespace made the second machine
second_machine() {
	local f
	while read -r f; do
		mkdir -p "b/files${f%/*}"
		cp "$f" "b/files$f"
		mount --bind "b/files$f" "$f"
	done <toolchain.files
	ldconfig -X -C b/ld.so.cache -f b/ld.so.conf
	! cmp -s b/ld.so.cache /etc/ld.so.cache || fail "ldconfig made the same cache"
	mount --bind b/ld.so.cache /etc/ld.so.cache
}
# flip FILE OLD NEW: FILE with the first OLD in it made NEW (a copy bound
# over it)
flip() {
	local copy=b/flip-${1//\//_}
	flipped_copy "$1" "$copy" "$2" "$3"
	mount --bind "$copy" "$1"
}
# relink NAME CASE: link NAME again, with a local store of its own: each
# of its device actions must miss
relink() {
	(cd b/build && OFFLINK_CACHE_DIR=$ROOT/b/local-$2 every_link "$ROOT/b/$2" $1)
	states b/$2/$1.explain | grep -qx 'cache miss' &&
		! states b/$2/$1.explain | grep -vqx 'cache miss' ||
		failed_case "$2" "$1: $(states b/$2/$1.explain | sort | uniq -c | tr -s ' \n' ' ')"
}
in_namespace ROOT RT22 RTLIB PLUGIN LLVM22 LLVM19 OFL_BUILD OFL_COMPAT LINKS FAILED -- '
	second_machine
	export PATH=$ROOT/b/bin:/usr/local/cuda/bin:/usr/bin:/bin HOME=$ROOT/b/home USER=portable \
		TMPDIR=$ROOT/b/tmp
	(cd b/build && OFFLINK_CACHE_DIR=$ROOT/b/local every_link "$ROOT/b/out")
	for l in "${LINKS[@]}"; do
		! states b/out/$l.explain | grep -vqx "cache hit (remote)" ||
			failed_case "remote hit" "$l: $(states b/out/$l.explain | sort | uniq -c | tr -s " \n" " ")"
		cmp -s a/out/$l b/out/$l || failed_case "remote hit" "$l: another program than the first machine'"'"'s"
	done
	LD_LIBRARY_PATH=$RT22 b/out/cpu22 | diff -u cpu.expected - || fail "the second machine'"'"'s cpu22"
	# one byte changed: a miss
	flip "$(readlink -f "$LLVM22/ld.lld")" "Debian LLD 2" "Debian LLE 2"
	relink cpu22 tool
	umount "$(readlink -f "$LLVM22/ld.lld")"
	flip "$(readlink -f /lib/x86_64-linux-gnu/libz.so.1)" "Jean-loup" "Jean-Loup"
	relink cpu22 library
	umount "$(readlink -f /lib/x86_64-linux-gnu/libz.so.1)"
	rt=$ROOT/llvm22/lib/amdgcn-amd-amdhsa/libompdevice.a
	flip "$rt" "0           " "1           " # a member'"'"'s date
	relink amdgpu22 runtime
	umount "$rt"
	crt=$(readlink -f "$("$LLVM22/clang" -print-file-name=crtbeginS.o)")
	flip "$crt" "GCC: (" "GCC: ["
	relink cpu22 crt
	umount "$crt"
	flip "$(readlink -f /usr/lib/x86_64-linux-gnu/libc.so)" "GNU ld script" "GNU ld scrip!"
	relink cpu22 script
	declare -p FAILED >$ROOT/b/failed'
source b/failed
check_all "the second machine"
echo "device-link cache: every everyday link a remote hit on a second machine; one byte changed, a miss"
