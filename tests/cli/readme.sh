# The README's examples run as written: every block fenced as ```sh tested,
# in order, in one directory holding docs/examples/src, with the build
# tree's offlink and ld.offlink first on PATH.  Each command must succeed;
# the programs run with OMP_TARGET_OFFLOAD=MANDATORY, so a program without
# its device image fails.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need clang-22 gcc
[ -e /usr/lib/llvm-22/lib/libomptarget.so ] ||
	{ [ -n "${CI:-}" ] && fail "libomptarget 22 missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }

awk '/^```sh tested$/ { on = 1; next } /^```$/ { on = 0 } on' "$OFL_SRC/README.md" >examples.sh
[ "$(grep -c '^```sh tested$' "$OFL_SRC/README.md")" -ge 2 ] && [ -s examples.sh ] ||
	fail "no tested examples in README.md"
cp "$OFL_SRC"/docs/examples/src/*.c .
PATH=$OFL_BUILD/bin:$PATH bash -euo pipefail -x examples.sh >run.log 2>&1 ||
	{ cat run.log; fail "a README example failed"; }
grep -qx 'vec_add: sum 1498500 on the device' run.log || { cat run.log; fail "the program did not run on the device"; }
grep -q 'triple = "x86_64-pc-linux-gnu"' run.log || { cat run.log; fail "offlink inspect shows no image"; }
echo ok
