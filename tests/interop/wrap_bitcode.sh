#!/usr/bin/env bash
# llvm-offload-wrapper -o x.bc: the personality writes LLVM bitcode (as
# LLVM's tool does) for every offload kind.  LLVM 19 and 22 read it
# (llvm-dis, llvm-bcanalyzer, llc); what they read is the module
# llvm-offload-wrapper 22 writes for the same inputs, line for line,
# @llvm.compiler.used included; llc 19 and 22 compile it into objects that
# link and register the same images as LLVM's own (stub runtime).
source "$OFL_SRC/tests/lib.sh"
need cc readelf "$LLVM22/llvm-offload-wrapper" "$LLVM22/llvm-dis" "$LLVM19/llvm-dis" \
	"$LLVM22/llvm-bcanalyzer" "$LLVM22/llc" "$LLVM19/llc" "$LLVM22/clang-offload-packager"

T=x86_64-pc-linux-gnu
cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
randbytes 1 1000 >a.img
randbytes 2 333 >b.img
printf 'q"\\\0\n\177' >c.img # bytes the IR text escapes
head -c 64 /dev/zero >z.img   # all zeros: LLVM keeps zeroinitializer
: >e.img                      # empty
# an OffloadBinary: the image starts past its header
"$LLVM22/clang-offload-packager" -o ob.bin \
	--image=file=b.img,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp 2>/dev/null

# dis FILE.bc OUT VERSION: llvm-dis of that release, which must not complain
dis() {
	local v=LLVM$3
	"${!v}/llvm-dis" "$1" -o "$2" 2>dis.err || { cat dis.err; fail "llvm-dis-$3 rejects $1"; }
	[ ! -s dis.err ] || { cat dis.err; fail "llvm-dis-$3 warns about $1"; }
}

# log NAME OBJ: the registrations of a program linked with OBJ
log() {
	cc -rdynamic stub.o "$2" -o "$1.exe" -ldl || fail "link $1"
	STUB_ENTRY=56 "./$1.exe" >"$1.log" || fail "$1.exe failed"
	grep -q '^main$' "$1.log" || fail "$1: main did not run"
}

for kind in openmp cuda hip; do
	imgs=(a.img)
	[ $kind = openmp ] && imgs=(a.img b.img c.img z.img e.img ob.bin)
	"$LLVM22/llvm-offload-wrapper" --kind=$kind --triple=$T -o ref.bc "${imgs[@]}" ||
		fail "llvm-offload-wrapper $kind"
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o $kind.bc "${imgs[@]}" ||
		fail "personality -o $kind.bc"
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o again.bc "${imgs[@]}"
	same $kind.bc again.bc
	# as LLVM's tool, bitcode whatever the name, and to standard output;
	# only a name ending in .o asks for an object
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o noext "${imgs[@]}"
	same $kind.bc noext
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o - "${imgs[@]}" >stdout.bc
	same $kind.bc stdout.bc
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o $kind.o "${imgs[@]}"
	[ "$(head -c 4 $kind.o | od -An -c | tr -d ' ')" = '177ELF' ] || fail "$kind.o is no ELF object"
	"$LLVM22/llvm-bcanalyzer" $kind.bc >bca.out 2>&1 || { cat bca.out; fail "bcanalyzer $kind"; }

	# the same module as LLVM's, read by either release; only the ModuleID
	# comment differs (llvm-dis takes it from the file name)
	dis ref.bc ref.ll 22
	for v in 19 22; do
		dis $kind.bc $kind.$v.ll $v
		diff <(tail -n +2 ref.ll) <(tail -n +2 $kind.$v.ll) ||
			fail "$kind: llvm-dis-$v of our bitcode differs from LLVM 22's module"
	done
	grep -qF '@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.llvm_offload_entries], section "llvm.metadata"' \
		$kind.22.ll || fail "$kind: no @llvm.compiler.used"
	# and the IR text the personality writes is that module too
	"$OFL_COMPAT/llvm-offload-wrapper" --kind=$kind --triple=$T -o $kind.ll "${imgs[@]}"
	diff <(tail -n +2 ref.ll) <(tail -n +2 $kind.ll) || fail "$kind: our .ll differs"

	# llc of either release compiles it; the program registers what LLVM's does
	"$LLVM22/llc" -filetype=obj -relocation-model=pic ref.bc -o ref.o || fail "llc ref.bc"
	log $kind.ref ref.o
	for v in 19 22; do
		llvm=LLVM$v
		"${!llvm}/llc" -filetype=obj -relocation-model=pic $kind.bc -o $kind.$v.o ||
			fail "llc-$v rejects our $kind bitcode"
		log $kind.$v $kind.$v.o
		diff -u $kind.ref.log $kind.$v.log || fail "$kind: llc-$v's object registers differently"
	done
	# @llvm.compiler.used keeps the dummy without retaining it: llc's section
	# for it is plain A, LOCAL symbol, as in offlink's own object
	"$OFFLINK" wrap --kind=$kind --host-triple=$T -o direct.o "${imgs[@]}" || fail "wrap $kind"
	for o in ref.o $kind.22.o direct.o; do
		readelf -S -W $o | sed -n 's/^ *\[ *[0-9]*\] //p' |
			awk '$1 == "llvm_offload_entries" {print $2, $(NF-3), $NF}' >$o.sec
		readelf -s -W $o | awk '$8 == "__dummy.llvm_offload_entries" {print $5, $6}' >$o.sym
		[ "$(cat $o.sec)" = "PROGBITS A 8" ] || fail "$o: dummy section is '$(cat $o.sec)'"
		[ "$(cat $o.sym)" = "LOCAL DEFAULT" ] || fail "$o: dummy symbol is '$(cat $o.sym)'"
	done
done
grep -q "image 4: 0 bytes" openmp.ref.log || fail "the empty image was not registered"

# The older flavours write bitcode too, which LLVM 19 reads
for abi in llvm14 amd llvm19; do
	"$OFFLINK" wrap --abi=$abi --host-triple=$T -o $abi.bc a.img c.img || fail "wrap --abi=$abi"
	"$OFFLINK" wrap --abi=$abi --host-triple=$T -o $abi.ll a.img c.img
	dis $abi.bc $abi.dis.ll 19
	diff <(tail -n +2 $abi.ll) <(tail -n +2 $abi.dis.ll) || fail "$abi: bitcode and IR text differ"
done

# Images go into the bitcode as blobs copied from their files, 32-bit
# aligned whatever their size: sizes 0, 1, 3, 4 and 5 (alignment edges) and
# a multi-MiB one of odd size.  LLVM 19 and 22 read the module LLVM 22
# writes, and llc's object holds each image's bytes as they were.
randbytes 4 1 >s1.img
randbytes 5 3 >s3.img
randbytes 6 4 >s4.img
randbytes 7 5 >s5.img
randbytes 8 $((3 << 20 | 1)) >big3.img
edges=(e.img s1.img s3.img s4.img s5.img big3.img)
"$LLVM22/llvm-offload-wrapper" --kind=openmp --triple=$T -o edges.ref.bc "${edges[@]}" ||
	fail "llvm-offload-wrapper edges"
"$OFL_COMPAT/llvm-offload-wrapper" --kind=openmp --triple=$T -o edges.bc "${edges[@]}" ||
	fail "personality -o edges.bc"
dis edges.ref.bc edges.ref.ll 22
for v in 19 22; do
	dis edges.bc edges.$v.ll $v
	diff -q <(tail -n +2 edges.ref.ll) <(tail -n +2 edges.$v.ll) ||
		fail "edges: llvm-dis-$v of our bitcode differs from LLVM 22's module"
done
"$LLVM22/llc" -filetype=obj -relocation-model=pic edges.bc -o edges.o || fail "llc edges.bc"
# image i is the symbol .omp_offloading.device_image[.i]: its bytes lie in
# its section (llc puts the 4-byte one in a mergeable section of its own) at
# its value (readelf writes large sizes in hex, 0x...); the empty one,
# zeroinitializer, has no bytes to check
readelf -S -W edges.o | sed -n 's/^ *\[ *\([0-9]*\)\] /\1 /p' | awk '{print $1, $5}' >edges.secs
readelf -s -W edges.o | awk '$8 ~ /^\.omp_offloading\.device_image\.[0-9]+$/ {print $8, $2, $3, $7}' \
	>edges.syms
for i in 1 2 3 4 5; do
	read -r _ value size ndx < <(grep -E "device_image\.$i " edges.syms) ||
		fail "edges: no symbol for image $i"
	read -r _ secoff < <(grep -E "^$ndx " edges.secs) || fail "edges: no section $ndx"
	dd if=edges.o of=got.$i iflag=skip_bytes,count_bytes bs=1M \
		skip=$((16#$secoff + 16#$value)) count=$((size)) status=none
	same got.$i "${edges[$i]}"
done

# to standard output (a pipe: no copy_file_range) the same bytes
"$OFFLINK" wrap --host-triple=$T -o edges.file.bc "${edges[@]}" || fail "wrap -o edges.file.bc"
"$OFFLINK" wrap --host-triple=$T --emit=bc -o - "${edges[@]}" | cat >edges.pipe.bc
same edges.file.bc edges.pipe.bc

# An output that cannot be written whole leaves nothing behind, with one
# line saying why (a file size limit stops the write midway).
randbytes 3 300000 >big.img
expect_fail bash -c "trap '' XFSZ; ulimit -f 64; exec \"\$0\" --kind=openmp -o big.bc big.img" \
	"$OFL_COMPAT/llvm-offload-wrapper"
expect_err_line 'llvm-offload-wrapper: error: big.bc: cannot write: File too large$'
[ ! -e big.bc ] || fail "a partial big.bc was left behind"
[ -z "$(ls -A | grep '\.ofl-' || true)" ] || fail "temporary files left behind"
