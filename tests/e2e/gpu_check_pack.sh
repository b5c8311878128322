#!/usr/bin/env bash
# scripts/gpu-check pack, without a GPU: every program and route built (a
# failed link recorded as that route's result, not an abort), the runtime
# libraries a plain system lacks packed (Z3 and ICU as stubs, libLLVM
# compressed), all under 60 MiB.  The expected outputs are checked against
# LLVM's programs run on the host (OMP_TARGET_OFFLOAD=DISABLED); DIR/run
# runs here too (no GPU: every program fails alike), its cubin header shim
# makes images LLVM 19's runtime reads (offlink inspect says so), and the
# report reads its results.  Running DIR/run on a GPU is manual
# (docs/gpu-check.md).
source "$OFL_SRC/tests/lib.sh"
RT=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
CUDA=${CUDA_PATH:-/usr/local/cuda}
need "$LLVM19/clang" "$LLVM22/clang++" "$CUDA/bin/ptxas" "$CUDA/bin/nvlink" python3 xz ar
[ -e "$RT/libomptarget.so.19.1" ] || {
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "$RT/libomptarget.so.19.1 missing"
	skip "$RT/libomptarget.so.19.1 missing (run scripts/bootstrap)"
}
GC=$OFL_SRC/scripts/gpu-check
export OFL_BUILD

"$GC" pack pack >pack.log 2>&1 || { cat pack.log; fail "pack"; }
cat pack.log
expect_fail "$GC" pack pack
grep -q "pack exists" err || fail "pack over an existing folder"

# size, contents
size=$(du -sb pack | cut -f1)
[ "$size" -le $((60 * 1024 * 1024)) ] || fail "pack is $size bytes"
for f in run manifest.tsv info.txt lib/libomptarget.so.19.1 lib/libomp.so.5 \
	lib/libLLVM.so.19.1.xz lib/libcudart.so.13 lib/libz3.so.4 lib/libicuuc.so.72; do
	[ -s pack/$f ] || fail "pack/$f missing"
done
[ ! -e pack/lib/libicudata.so.72 ] || fail "ICU data packed"
[ -x pack/run ] || fail "run is not executable"

[ "$(wc -l <pack/manifest.tsv)" = 56 ] || fail "14 programs x 4 routes"
while IFS=$'\t' read -r name _ route status; do
	case $status in
	linked) [ -x "pack/bin/$name.$route" ] || fail "$name.$route: no program" ;;
	link-failed) [ -s "pack/bin/$name.$route.link-failed" ] || fail "$name.$route: no log" ;;
	*) fail "$name.$route: status '$status'" ;;
	esac
	[ -s "pack/expected/$name.txt" ] || fail "$name: no expected output"
done <pack/manifest.tsv
# LLVM's own link of every program must work, or there is nothing to compare
[ -z "$(awk '$3 == "llvm" && $4 != "linked"' pack/manifest.tsv)" ] || fail "LLVM's link failed"

# the libraries the runtime loads are all there, or plain on the system
mkdir l
cp pack/lib/* l/ && xz -d l/libLLVM.so.19.1.xz
! LD_LIBRARY_PATH=$PWD/l ldd l/libomptarget.so.19.1 | grep "not found" || fail "unresolved"
# the stub defines every Z3 function libLLVM imports
nm -D --undefined-only l/libLLVM.so.19.1 | awk '$2 ~ /^Z3_/ {print $2}' | sort >z3.want
nm -D --defined-only pack/lib/libz3.so.4 | awk '$3 ~ /^Z3_/ {print $3}' | sort >z3.have
[ -s z3.want ] && cmp z3.want z3.have || fail "the Z3 stub lacks symbols"

# the expected outputs are what the programs print, run on the host
ln -s libomp.so.5 l/libomp.so
for p in omp_target omp_globals omp_archive omp_virtual omp_lto omp_notarget omp_parts; do
	OMP_TARGET_OFFLOAD=DISABLED LD_LIBRARY_PATH=$PWD/l "pack/bin/$p.llvm" >$p.host ||
		fail "$p on the host"
	case $p in
	omp_target) sed -i 's/on the host/on the device/' $p.host ;;
	omp_notarget) sed -i 's/devices none/devices some/' $p.host ;;
	esac
	diff -u "pack/expected/$p.txt" $p.host || fail "$p: expected output"
done

# offlink's routes linked the *_parts programs in partitions, LLVM's not:
# the string literal's global (a local of LLVM's image, ".str" renamed
# for PTX) is one of the image's globals
for r in llvm ld.offlink personality plugin; do
	mkdir x.$r
	(cd x.$r && "$OFFLINK" inspect --extract-all=img ../pack/bin/cuda_parts.$r >/dev/null) ||
		fail "cuda_parts.$r: no image"
	n=$("$LLVM22/llvm-readelf" -s x.$r/img/* | grep -c ' GLOBAL .* _\$_str$' || true)
	if [ "$r" = llvm ]; then
		[ "$n" = 0 ] || fail "cuda_parts: partitions in LLVM's link"
	else
		[ "$n" != 0 ] || fail "cuda_parts.$r: no partitions"
	fi
done

# the link said what will fail at run time: LLVM 19's runtime, CUDA 13 cubins
grep -l "does not read" pack/logs/omp_target.ld.offlink.txt >/dev/null || fail "no warning"

# DIR/run here, without a GPU
python3 pack/run res >run.log 2>&1 || { cat run.log; fail "run"; }
for row in $(awk '{print $1 "." $3}' pack/manifest.tsv); do
	[ -s "res/out/$row.rc" ] || fail "$row: no result"
done
[ "$(grep -c rewritten res/shim.txt)" = 28 ] || { cat res/shim.txt; fail "shim: 28 programs"; }
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 pack/bin/omp_target.llvm >insp.out &&
	fail "LLVM 19 loads the new header"
"$OFFLINK" inspect --runtime=19 --gpu=sm_90 res/shim/omp_target.llvm >insp.out ||
	fail "LLVM 19 does not load the shimmed header"
rc=0
"$GC" report res >report.txt || rc=$?
cat report.txt
[ $rc -le 1 ] || fail "report exit $rc"
grep -q "shim: 28 OpenMP programs" report.txt || fail "report: no shim line"
[ "$(grep -cE '^(omp|cuda|hip)_' report.txt)" = 14 ] || fail "report: 14 programs"
# without an AMD GPU the HIP program is skipped, every route alike
[ "$(cat res/out/hip_parts.*.rc | sort -u)" = skipped ] || fail "hip_parts: not skipped"
