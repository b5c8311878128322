#!/usr/bin/env bash
# docs/integration.md's examples run as written: every block fenced as
# ```sh tested, in order, in one directory holding docs/examples (there, as
# from the source tree) and its sources (main.c, kern.c), with the build
# tree's offlink and ld.offlink first on PATH.  Each command must succeed,
# the programs run with OMP_TARGET_OFFLOAD=MANDATORY, and no link may have
# been done by LLVM's clang-linker-wrapper instead of offlink (ld.offlink's
# warning), as the optimisation level's example once was.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need clang-22 clang-19 make "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas"
[ -e /usr/lib/llvm-22/lib/libomptarget.so ] ||
	{ [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget 22 missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }
need_libomp19

DOC=$OFL_SRC/docs/integration.md
awk '/^```sh tested$/ { on = 1; next } /^```$/ { on = 0 } on' "$DOC" >examples.sh
[ "$(grep -c '^```sh tested$' "$DOC")" -ge 3 ] && [ -s examples.sh ] || fail "no tested examples in $DOC"
mkdir docs
cp -r "$OFL_SRC/docs/examples" docs/examples
cp "$OFL_SRC"/docs/examples/src/*.c .
PATH=$OFL_BUILD/bin:$PATH bash -euo pipefail -x examples.sh >run.log 2>&1 ||
	{ cat run.log; fail "an example of docs/integration.md failed"; }
grep -qx 'vec_add: sum 1498500 on the device' run.log || { cat run.log; fail "no program ran on the device"; }
! grep -q "linked by LLVM's clang-linker-wrapper" run.log || { cat run.log; fail "an example bypassed offlink"; }
[ -x prog-sm90 ] || fail "no sm_90 program"
echo ok
