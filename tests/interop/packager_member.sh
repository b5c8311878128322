#!/bin/bash
# llvm-offload-binary's member= key (LLVM 23, #205170; its regression test
# llvm/test/tools/llvm-offload-binary/member-extract.test re-done here):
# extracting from a static archive, member=<name as `ar t` prints it>
# selects that member's images only.  Acting as 22 the key is an ordinary
# stored string, which nothing has: nothing is extracted, exit 0, as LLVM
# 22's own tool does in the same run; without member= several matches to
# one file warn and the last wins, as in both releases.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-offload-binary" "$LLVM22/llvm-ar" "$LLVM22/clang"

ln -s "$LLVM22/llvm-offload-binary" llvm22
ln -s "$OFFLINK" llvm-offload-binary
ln -s "$OFFLINK" llvm-offload-binary-23
printf 'aaaa\n' >contentA
printf 'bbbb\n' >contentB

# Runs ./$1 in a fresh directory $2 with the remaining arguments; the files
# it wrote are left there, its stdout and stderr in $2.out and $2.err.
extract_in() {
	local tool=$1 dir=$2
	shift 2
	rm -rf "$dir" && mkdir "$dir"
	(cd "$dir" && "../$tool" "$@" >"../$dir.out" 2>"../$dir.err")
}

# LLVM 22 and offlink as 22 on the same arguments: the same exit status,
# messages (program name aside) and files.
as_llvm22() {
	local lrc=0 orc=0
	extract_in llvm22 L "$@" || lrc=$?
	extract_in llvm-offload-binary O "$@" || orc=$?
	[ "$lrc" = "$orc" ] || fail "exit $orc, LLVM 22 $lrc: $*"
	sed -i 's|^[^ ]*llvm22:|PROG:|' L.err
	sed -i 's|^[^ ]*llvm-offload-binary:|PROG:|' O.err
	cmp -s L.err O.err || { diff L.err O.err >&2; fail "stderr differs: $*"; }
	[ "$(ls L)" = "$(ls O)" ] || fail "files differ: $(ls L) vs $(ls O): $*"
	for f in L/*; do [ -e "$f" ] && same "$f" "O/${f#L/}"; done
	return 0
}

# --- acting as 22, beside LLVM 22 ---------------------------------------
./llvm22 -o a.o --image=file=contentA,triple=x-y-z,arch=gfx90a,kind=openmp
./llvm22 -o b.o --image=file=contentB,triple=x-y-z,arch=gfx90a,kind=openmp
"$LLVM22/llvm-ar" rcs lib22.a a.o b.o
as_llvm22 ../lib22.a --image=member=a.o,triple=x-y-z,arch=gfx90a,kind=openmp,file=outA
[ -z "$(ls O)" ] || fail "22 extracted by member="
as_llvm22 ../lib22.a --image=member=a.o --archive --image=member=b.o,file=m.a
as_llvm22 ../lib22.a --image=triple=x-y-z,arch=gfx90a,kind=openmp,file=both
grep -q "Multiple inputs match to a single file, 'both'" O.err || fail "no warning"
same contentB O/both

# --- acting as 23: member-extract.test ----------------------------------
OB=./llvm-offload-binary-23
$OB -o a.o --image=file=contentA,triple=x-y-z,arch=gfx90a,kind=openmp
$OB -o b.o --image=file=contentB,triple=x-y-z,arch=gfx90a,kind=openmp
"$LLVM22/llvm-ar" rcs lib.a a.o b.o
$OB lib.a --image=member=a.o,triple=x-y-z,arch=gfx90a,kind=openmp,file=outA 2>err ||
	fail "member=a.o"
$OB lib.a --image=member=b.o,triple=x-y-z,arch=gfx90a,kind=openmp,file=outB 2>>err ||
	fail "member=b.o"
[ -s err ] && { cat err; fail "a single match warned"; }
same contentA outA
same contentB outB
$OB lib.a --image=triple=x-y-z,arch=gfx90a,kind=openmp,file=both 2>err || fail "no member="
[ "$(cat err)" = "$OB: warning: Multiple inputs match to a single file, 'both'" ] ||
	{ cat err; fail "the warning"; }
same contentB both
# a member no archive has: nothing, exit 0 (LLVM skips a filter that
# matches nothing)
extract_in llvm-offload-binary-23 N ../lib.a --image=member=c.o,file=none || fail "member=c.o"
[ -z "$(ls N)" ] && [ ! -s N.err ] || fail "member=c.o wrote or said something"

# clang-built objects under long names (the GNU name table), two of them
# with the same triple: member= picks one; --archive keeps its name; no
# file= names the output after the archive
cat >k.c <<'C'
int f(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
T=x86_64-pc-linux-gnu
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -c k.c -o kernel_number_one.o
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -Df=g -c k.c -o kernel_number_two.o
ar rcs libk.a kernel_number_one.o kernel_number_two.o
[ "$(ar t libk.a | tr '\n' ' ')" = "kernel_number_one.o kernel_number_two.o " ] || fail "ar t"
$OB kernel_number_two.o --image=triple=$T,file=two.img
$OB libk.a --image=member=kernel_number_two.o,triple=$T,file=got.img 2>err || fail "ELF member"
[ ! -s err ] && same two.img got.img
$OB kernel_number_one.o --image=triple=$T,file=one.img
cmp -s one.img two.img && fail "the two members' images are the same: the test proves nothing"
$OB libk.a --archive --image=member=kernel_number_one.o,file=one.a || fail "--archive"
[ "$(ar t one.a)" = kernel_number_one.o ] || fail "--archive took another member"
ar p one.a kernel_number_one.o | cmp -s - one.img || fail "--archive image"
extract_in llvm-offload-binary-23 X ../libk.a --image=member=kernel_number_one.o || fail "no file="
[ "$(cat X.out)" = "Extracted: libk-$T-generic.0.o" ] || { cat X.out; fail "Extracted: line"; }
same one.img "X/libk-$T-generic.0.o"

# --- offlink package takes member= in every release ----------------------
"$OFFLINK" package lib22.a --image=member=b.o,file=pkgB || fail "offlink package member="
same contentB pkgB
echo "member= as LLVM 23's test states; as 22 identical to LLVM 22"
