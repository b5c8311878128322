#!/usr/bin/env bash
# Issue 31: the device-link cache's defects, one case each, through real
# clang 22 links (ld.offlink, -fuse-ld=offlink) with a cache of their own.
# A "stale hit" case fills the cache, changes ONE thing the device link
# reads that the old key did not hold, and relinks: the cached relink must
# give the bytes of a link without the cache (each case checks that the
# change does reach the image, or it would test nothing).  The other cases
# check the behaviour the redesign states.  Every case runs; the failures
# are listed at the end, by defect number.
#
# What the redesign (each device link a hermetic action planned before it
# runs, its key the action: argv, a complete environment, every file it
# may read) must do, case by case, is said above each.  Not here: defect 5
# (a stats file another process holds locked: tests/e2e/link_cache_store.sh)
# and defect 10 (the remote's time limit: tests/e2e/link_cache_remote.sh),
# both fixed with their tests.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/ld.lld" "$LLVM22/llvm-ar" /usr/bin/ld.gold /usr/bin/ld.bfd cc cmp \
	timeout mkfifo
counted_omp_program
export OFFLINK_CACHE_DIR=$PWD/cache
# an empty folder on PATH, there from the first link on: PATH is keyed as
# a string, so a stale hit must come from what appears in it
mkdir pbin
export PATH=$PWD/pbin:$PATH
STUB=$OFL_SRC/tests/interop/wrap_stub_src
for v in 1 2; do
	printf 'int extra_marker = %s;\n' $v >extra$v.c
	cc -fPIC -c extra$v.c -o extra$v.o || fail "compile extra$v"
	cc -shared -Wl,-soname,libfoo$v.so extra$v.o -o libfoo$v.so || fail "libfoo$v"
	"$LLVM22/llvm-ar" rcs libbar$v.a extra$v.o || fail "libbar$v.a"
done
[ "$(stat -c %s extra1.o)" = "$(stat -c %s extra2.o)" ] || fail "extra1.o and extra2.o differ in size"
"$LLVM22/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC -c "$STUB/omp.c" -o gpu.o ||
	fail "compile for gfx90a"
cc -O1 -fPIC -c "$STUB/stub.c" -o stub.o || fail "compile stub"
# a marked linker: LINKER with a symbol of its own, so its images differ
# marked NAME LINKER MARK
marked() {
	printf '#!/bin/sh\nexec %s --defsym=%s_marker=0x%s "$@"\n' "$2" "$(basename "$1" | tr -c 'a-z0-9\n' _)" \
		"$3" >"$1"
	chmod +x "$1"
}
within2s() { [ $(($(date +%s%N) - $1)) -lt 1900000000 ]; }
settle

# the program links: CPU (main.o kern.o, libomp's), or AMDGPU (gfx90a
# without a device runtime, its symbols left unresolved: the stub runtime
# logs registration only)
CPU=(main.o kern.o -L"$RT")
AMD=(stub.o gpu.o -rdynamic -ldl -Wl,--nogpulib
	-Wl,--device-linker=amdgcn-amd-amdhsa=--unresolved-symbols=ignore-all)
OBJS=("${CPU[@]}")
# ---- 1: a triple-prefixed linker on PATH ----------------------------------
# clang's driver runs <triple>-ld.lld from its program folders, then from
# PATH, before the plain ld.lld (Gentoo ships them in /usr/bin).  The
# action must resolve its linker as clang does: every name clang tries, in
# its order, is keyed (the one found) or keyed absent (those before it).
# (a copy of lld with one byte changed: its name, which it writes into
# the image's .comment; a script would not be cached at all)
LLDZ=("Debian LLD 2" "Debian LLE 2")
stale "defect 1" prefixed-cpu \
	'flipped_copy "$(readlink -f "$LLVM22/ld.lld")" pbin/x86_64-pc-linux-gnu-ld.lld "${LLDZ[@]}"'
rm pbin/x86_64-pc-linux-gnu-ld.lld
OBJS=("${AMD[@]}")
stale "defect 1" prefixed-amdgpu \
	'flipped_copy "$(readlink -f "$LLVM22/ld.lld")" pbin/amdgcn-amd-amdhsa-ld.lld "${LLDZ[@]}"'
rm pbin/amdgcn-amd-amdhsa-ld.lld
OBJS=("${CPU[@]}")

# ---- 2: library options the key did not read --------------------------------
# --library-path=DIR, -L DIR as two words, --library=NAME: the action's
# library search must read every spelling ld takes, and key the libraries
# found and the names looked for and absent in the folders before; a
# library appearing later in an earlier folder is a miss.
mkdir -p la lb
cp libfoo1.so lb/libfoo.so
settle
stale "defect 2" library-path "cp libfoo2.so la/libfoo.so" -Wl,--device-linker=--library-path="$PWD/la" \
	-Wl,--device-linker=--library-path="$PWD/lb" -Wl,--device-linker=--library=foo
rm la/libfoo.so
stale "defect 2" L-two-words "cp libfoo2.so la/libfoo.so" -Wl,--device-linker=-L -Wl,--device-linker="$PWD/la" \
	-Wl,--device-linker=-L -Wl,--device-linker="$PWD/lb" -Wl,--device-linker=-lfoo
rm la/libfoo.so
# -Bstatic: ld then takes lib<name>.a only.  (Given in a response file:
# on the command line the old key made any -B word uncached, defect 13.)
# la has libbar.so, lb libbar.a; a libbar.a put in la is the one taken.
cp libfoo1.so la/libbar.so
cp libbar1.a lb/libbar.a
printf -- '-Bstatic\n-Wl,--undefined=extra_marker -lbar -Wl,-Bdynamic\n' >static.rsp
settle
stale "defect 2" Bstatic "cp libbar2.a la/libbar.a" -Wl,--device-linker=-L"$PWD/la" \
	-Wl,--device-linker=-L"$PWD/lb" -Wl,--device-linker=@"$PWD/static.rsp"
rm -r la lb

# ---- 3: a CPU device link through gold --------------------------------------
# gold is the CPU linker wherever clang-N has no lld-N beside it.  It (and
# bfd 2.40) writes --dependency-file as lld does: the action must learn
# what it read (a linker script's INPUT, crt files) the same way, or key
# it; here the script's member is rebuilt.  A clang of its own without
# ld.lld beside it: a copy of clang 22's (RUNPATH $ORIGIN/../lib).
clang_without_lld tree
TREE=-Wl,--device-compiler="$PWD/tree/bin/clang"
# (gold names the image's base version after its output, a temporary: a
# soname keeps the image the same from link to link)
SONAME=-Wl,--device-linker=--soname=img.so
printf 'INPUT(scr_impl.o)\n' >libscr.so
cp extra1.o scr_impl.o
settle
stale "defect 3" gold-script "cp extra2.o scr_impl.o; settle" "$TREE" $SONAME -Wl,--device-linker=-L"$PWD" \
	-Wl,--device-linker=-lscr
grep -q '"-fuse-ld=gold"' gold-script.2.explain || fail "gold-script: the tree's link did not use gold"

# ---- 4: an input rewritten while the device link runs ------------------------
# The key is taken before the command runs; a launcher (here: a build
# step racing the link) rewrites extra.o, named in the command, before
# the linker reads it.  The entry must hold what the link read: the
# action checks its inputs are still what it keyed once it has run (or
# links a copy it keyed), else it stores nothing.
printf '#!/bin/sh\n[ -e %s/rewrite ] && /bin/cp %s/extra2.o %s/extra.o\necho run >>%s/ran\nexec "$@"\n' \
	"$PWD" "$PWD" "$PWD" "$PWD" >rewriting
chmod +x rewriting
cp extra1.o extra.o
touch rewrite
counted_link rw.0 -Wl,--device-launcher="$PWD/rewriting" -Wl,--device-linker="$PWD/extra.o"
rm rewrite
cp extra1.o extra.o
counted_link rw.1 -Wl,--device-launcher="$PWD/rewriting" -Wl,--device-linker="$PWD/extra.o"
counted_uncached rw.2 -Wl,--device-linker="$PWD/extra.o"
cmp -s rw.0 rw.2 && fail "rw: the rewrite did not reach the image"
cmp -s rw.1 rw.2 ||
	failed_case "defect 4" "an input rewritten while the link ran: stored under its old bytes, the relink a stale $(state rw.1)"

# ---- 6: LLD_VERSION and LD_RUN_PATH ------------------------------------------
# lld writes LLD_VERSION into .comment; bfd takes LD_RUN_PATH as -rpath.
# Both must be in the action's environment (keyed: key env lines).
stale "defect 6" lld-version "export LLD_VERSION=offlink-test-lld"
unset LLD_VERSION
# bfd: the tree's link (gold) with an ld.gold on PATH that is bfd (a link:
# the key reads the tool as the file it runs)
mkdir -p bfd
ln -s /usr/bin/ld.bfd bfd/ld.gold
PATH0=$PATH
export PATH=$PWD/bfd:$PATH
settle
stale "defect 6" ld-run-path "export LD_RUN_PATH=/offlink-test-run-path" "$TREE" $SONAME
unset LD_RUN_PATH
export PATH=$PATH0

# ---- 7: a side output (-Map) -------------------------------------------------
# The map was keyed as an input (absent, then its last bytes, which hold
# temporary paths: every relink a new entry) and a hit wrote none.  A
# device link with a side output is not cached, said in --explain.
for i in 0 1 2; do
	rm -f dev.map
	counted_link map.$i -Wl,--device-linker=-Map="$PWD/dev.map"
	[ -s dev.map ] || { failed_case "defect 7" "link $i with -Map wrote no map (a hit)"; break; }
done
not_cached_said map.1 || failed_case "defect 7" "a device link with -Map: no 'not cached:' line in --explain"

# ---- 8: names lld normalises in its dependency file --------------------------
# lld writes sym/../impl.o as impl.o, another file than the one it read
# (sym a link to a folder elsewhere).  What the action read must be known
# as the kernel resolved it (keyed by what was opened, not by a name made
# from it).
mkdir -p n8/deep/sub
ln -s deep/sub n8/sym
cp extra1.o n8/deep/impl.o
cp extra1.o n8/impl.o
printf 'INPUT(sym/../impl.o)\n' >n8/libn8.so
settle
stale "defect 8" normalised "cp extra2.o n8/deep/impl.o; settle" -Wl,--device-linker=-L"$PWD/n8" \
	-Wl,--device-linker=-ln8

# ---- 9: a thin archive's members ---------------------------------------------
# A thin archive holds its members' names and sizes, not their bytes: a
# member rebuilt at the same size leaves it as it was.  The action must
# key each member (content or identity).
cp extra1.o thin1.o
"$LLVM22/llvm-ar" rcs --thin libthin.a thin1.o || fail "thin archive"
cp libthin.a libthin.before
settle
stale "defect 9" thin "cp extra2.o thin1.o; settle" -Wl,--device-linker=--whole-archive \
	-Wl,--device-linker="$PWD/libthin.a" -Wl,--device-linker=--no-whole-archive
cmp -s libthin.a libthin.before || fail "thin: the member's rebuild changed the archive"

# ---- 11: a response file that is a FIFO --------------------------------------
# The key's open took the writer's bytes, and the device clang then
# waited for another writer for ever (uncached, the link succeeds).  A
# non-regular input is not opened to key it: the action is not cached
# (said), and the link finishes.
mkfifo dev.fifo
{ printf -- '--soname=fifo.so\n' >dev.fifo; } &
WRITER=$!
rc=0
timeout -k 5 20 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" "${OBJS[@]}" \
	-Wl,--explain="$PWD/fifo.explain" -Wl,--device-linker=@"$PWD/dev.fifo" -o fifo 2>fifo.err || rc=$?
kill $WRITER 2>/dev/null || true
wait $WRITER 2>/dev/null || true
if [ $rc = 124 ] || [ $rc = 137 ]; then
	failed_case "defect 11" "a FIFO response file: the link hung (killed after 20 s)"
elif [ $rc != 0 ]; then
	cat fifo.err >&2
	failed_case "defect 11" "a FIFO response file: the link failed (exit $rc)"
else
	not_cached_said fifo || failed_case "defect 11" "a FIFO response file: no 'not cached:' line in --explain"
fi

# ---- 12: -B from CCC_OVERRIDE_OPTIONS ----------------------------------------
# The variable is keyed as a string, but the -B<dir> it adds to every
# clang command is where clang looks for its linker first: the action
# must apply it (or refuse it: not cached) as for a -B word.
mkdir -p bdir
export CCC_OVERRIDE_OPTIONS="+-B$PWD/bdir"
stale "defect 12" ccc-override "marked bdir/ld.lld $LLVM22/ld.lld 1"
unset CCC_OVERRIDE_OPTIONS

# ---- 13: -B linker options ---------------------------------------------------
# -Xlinker -Bsymbolic, -Bstatic, -Bdynamic are the linker's (the key read
# them as the driver's -B<dir>, and cached no such link): cached, and
# right.
for b in -Bsymbolic -Bdynamic; do
	counted_link b13$b.0 -Wl,--device-linker=$b
	counted_link b13$b.1 -Wl,--device-linker=$b
	[ "$(ran)" = 0 ] && ! not_cached_said b13$b.1 ||
		failed_case "defect 13" "--device-linker=$b: the relink was not a hit ($(state b13$b.1))"
	counted_uncached b13$b.2 -Wl,--device-linker=$b
	cmp -s b13$b.1 b13$b.2 || failed_case "defect 13" "--device-linker=$b: the relink differs from an uncached link"
done

# ---- a file that has not settled ---------------------------------------------
# A library the device link takes (the host link's -L. -l<name>, which
# CPU device links get) made by ar just now: keyed by its content, not
# left uncached; the relink hits.
cp extra1.o fresh.o
t=$(date +%s%N)
"$LLVM22/llvm-ar" rcs libfresh.a fresh.o || fail "libfresh.a"
counted_link fresh.0 -L. -lfresh
if within2s $t; then
	counted_link fresh.1 -L. -lfresh
	[ "$(ran)" = 0 ] ||
		failed_case "defect settle" "a link right after ar: not stored ($(state fresh.0))"
	counted_uncached fresh.2 -L. -lfresh
	cmp -s fresh.1 fresh.2 || failed_case "defect settle" "a link right after ar: the relink differs from an uncached link"
else
	echo "the link after ar came 2 s late (a slow machine): the case not judged"
fi

check_all "device-link cache defects not fixed"
echo "device-link cache: every defect's case links as an uncached link does"
