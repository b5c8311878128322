#!/usr/bin/env bash
# scripts/gpu-check report over results folders made here: every route
# passing; a route that fails where LLVM's link passes (link failure, crash,
# timeout, wrong output); output that differs from LLVM's; LLVM itself
# failing (no route is worse then); LLVM passing nothing (nothing judged);
# the shim; not a results folder.
source "$OFL_SRC/tests/lib.sh"
need python3
GC=$OFL_SRC/scripts/gpu-check

# results DIR: two programs, four routes, all passing
results() {
	mkdir -p "$1/out" "$1/expected"
	printf 'a 1\n' >"$1/expected/p1.txt"
	printf 'b 2\n' >"$1/expected/p2.txt"
	: >"$1/manifest.tsv"
	for p in p1 p2; do
		for r in llvm ld.offlink personality plugin; do
			printf '%s\tc\t%s\tlinked\n' $p $r >>"$1/manifest.tsv"
			cp "$1/expected/$p.txt" "$1/out/$p.$r.out"
			: >"$1/out/$p.$r.err"
			echo 0 >"$1/out/$p.$r.rc"
		done
	done
	echo none >"$1/shim.txt"
}

results pass
"$GC" report pass >out || fail "all pass: exit $?"
grep -q "^plugin: 2 of 2 pass; worse than LLVM's link: 0$" out || { cat out; fail "pass counts"; }
grep -q "every route does what LLVM's link does" out || fail "pass verdict"
! grep -q "^shim" out || fail "no shim, yet a shim line"

results fail
echo link-failed >fail/out/p1.plugin.rc
echo 139 >fail/out/p2.personality.rc
echo timeout >fail/out/p2.plugin.rc
expect_fail "$GC" report fail
grep -Eq "^p1 +pass +pass +pass +link-failed !" out || { cat out; fail "link failure row"; }
grep -Eq "^p2 +pass +pass +exit 139 ! +timeout !" out || { cat out; fail "crash row"; }
grep -q "^plugin: 0 of 2 pass; worse than LLVM's link: 2 (p1, p2)$" out || fail "plugin line"
grep -q "a route does worse than LLVM's link" out || fail "fail verdict"

results mismatch
printf 'a 7\n' >mismatch/out/p1.ld.offlink.out
expect_fail "$GC" report mismatch
grep -Eq "^p1 +pass +wrong-output !" out || { cat out; fail "wrong output row"; }
grep -q "output differs from LLVM's: p1" out || fail "differs from LLVM"

# LLVM's link fails too: no route is worse; the shim and what it showed
results llvmfails
for r in llvm ld.offlink personality plugin; do echo 1 >llvmfails/out/p2.$r.rc; done
printf 'p1.llvm: 1 cubin header(s) rewritten (sm_90)\n' >llvmfails/shim.txt
echo 139 >llvmfails/out/p1.llvm.unshimmed.rc
echo "omptarget error: No images found compatible with the installed hardware." \
	>llvmfails/out/p1.llvm.unshimmed.err
"$GC" report llvmfails >out || { cat out; fail "LLVM failing too is no regression"; }
grep -q "^shim: 1 OpenMP programs" out || fail "shim line"
grep -q "unshimmed, as linked: 1 of 1 stopped" out || fail "unshimmed line"

# LLVM's link passes nothing (no GPU, no driver): nothing judged, a failure
results nogpu
for p in p1 p2; do for r in llvm ld.offlink personality plugin; do echo 1 >nogpu/out/$p.$r.rc; done; done
expect_fail "$GC" report nogpu
grep -q "verdict: LLVM's link passed no program (no GPU or driver?): nothing judged" out ||
	{ cat out; fail "nothing judged verdict"; }

# a result missing is reported as such
results missing
rm missing/out/p2.plugin.rc
expect_fail "$GC" report missing
grep -Eq "^p2 .*missing !" out || { cat out; fail "missing row"; }

mkdir empty
rc=0
"$GC" report empty >out 2>err || rc=$?
[ $rc = 2 ] || fail "not a results folder: exit $rc"
grep -q "not a results folder" err || fail "not a results folder: message"
expect_fail "$GC" report
expect_fail "$GC" frobnicate
