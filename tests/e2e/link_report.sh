#!/usr/bin/env bash
# What a link tells its user: --save-temps says where the temporaries are
# (ld.offlink and the plugin); the plugin's dry-run prints the device link
# commands and says that the linker still writes its output; a link line
# that keeps -fopenmp-targets (LLVM's clang-linker-wrapper does the device
# work, then runs ld.offlink) says so with -v and --explain; --explain's
# memory figure is the process peak; `offlink --ldflags --compat` is the
# route for such link lines that puts offlink in LLVM's place.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
CLANG=$LLVM22/clang
RTLIB=/usr/lib/llvm-22/lib
need "$CLANG" ld.bfd ld.gold
[ -e "$RTLIB/libomptarget.so" ] ||
	{ [ -n "${CI:-}" ] && fail "$RTLIB/libomptarget.so missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }
T=x86_64-pc-linux-gnu
BIN=$OFL_BUILD/bin
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
export OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RTLIB
mkdir tmp
export TMPDIR=$PWD/tmp
cp "$OFL_SRC"/docs/examples/src/*.c .
"$CLANG" -fopenmp -fopenmp-targets=$T -c main.c kern.c || fail "compile"
echo "vec_add: sum 1498500 on the device" >expected
run_check() {
	"./$1" >run.out 2>run.err || { cat run.err; fail "$1 exited with $?"; }
	diff -u expected run.out || fail "$1 printed the wrong line"
}

# ld.offlink --save-temps: one line naming the directory, which holds the
# device link's files
"$CLANG" -fopenmp -B"$BIN" -fuse-ld=offlink main.o kern.o -o prog -Wl,--save-temps 2>err ||
	{ cat err; fail "link with --save-temps"; }
grep -E '^ld\.offlink: temporaries kept in ' err >kept || { cat err; fail "--save-temps does not say where"; }
[ "$(wc -l <err)" = 1 ] || { cat err; fail "--save-temps printed more than its line"; }
dir=$(sed 's/^ld\.offlink: temporaries kept in //' kept)
[[ "$dir" == "$TMPDIR"/offlink-* ]] && [ -n "$(ls "$dir")" ] || fail "$dir: not the kept temporaries"
run_check prog
rm -rf "${TMPDIR:?}"/*

# --explain: each phase's time and the process's peak memory so far
"$CLANG" -fopenmp -B"$BIN" -fuse-ld=offlink main.o kern.o -o prog -Wl,--explain=explain.log ||
	fail "link with --explain"
grep -Eq '^time: gather [0-9.]+ ms \(process peak memory so far [0-9]+ KiB\)$' explain.log ||
	{ cat explain.log; fail "--explain's memory label"; }

# -fopenmp-targets kept on the link line: LLVM's clang-linker-wrapper links
# the device code and runs ld.offlink, which says it has nothing to do
msg="device code was linked by LLVM's clang-linker-wrapper already: nothing to do"
"$CLANG" -fopenmp -fopenmp-targets=$T -B"$BIN" -fuse-ld=offlink main.o kern.o -o prog \
	-Wl,--offlink-verbose,--explain=explain.log 2>err || { cat err; fail "link through LLVM's wrapper"; }
grep -qx "ld.offlink: $msg" err || { cat err; fail "-v does not say that LLVM did the device work"; }
grep -qx "$msg" explain.log || { cat explain.log; fail "--explain does not say that LLVM did the device work"; }
run_check prog
# the same line through offlink instead: offlink --ldflags --compat
# shellcheck disable=SC2046
"$CLANG" -fopenmp -fopenmp-targets=$T $("$OFFLINK" --ldflags --compat) main.o kern.o -o prog \
	-### 2>err || fail "clang -###"
grep -q "\"$(realpath "$BIN/..")/libexec/offlink/compat/clang-linker-wrapper\"" err || { cat err; fail "--compat: not offlink's clang-linker-wrapper"; }
# shellcheck disable=SC2046
"$CLANG" -fopenmp -fopenmp-targets=$T $("$OFFLINK" --ldflags --compat) main.o kern.o -o prog ||
	fail "link with --ldflags --compat"
run_check prog

# The plugin (plink: tests/lib.sh)
for ld in bfd gold; do
	# save-temps: the linker's info line names the directory
	plink "$CLANG" -fopenmp -fuse-ld=$ld -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,save-temps main.o kern.o \
		-o prog_$ld >out 2>&1 || { cat out; fail "$ld: plugin save-temps"; }
	grep -E '^offlink: temporaries kept in ' out >kept || { cat out; fail "$ld: save-temps does not say where"; }
	dir=$(sed 's/^offlink: temporaries kept in //' kept)
	[[ "$dir" == "$TMPDIR"/offlink-* ]] && [ -n "$(ls "$dir")" ] || fail "$ld: $dir: not the kept temporaries"
	run_check prog_$ld
	# dry-run: the device link command, and a warning that the linker
	# still writes its output (no plugin hook can stop it)
	rm -f dry_$ld
	plink "$CLANG" -fopenmp -fuse-ld=$ld -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,dry-run main.o kern.o \
		-o dry_$ld >out 2>&1 || { cat out; fail "$ld: plugin dry-run"; }
	grep -Eq "^offlink: \"$CLANG\" .*\"--target=$T\"" out || { cat out; fail "$ld: dry-run prints no device link"; }
	grep -Eq "warning: offlink: dry-run: the device links were printed, not run; the linker still writes dry_$ld, with empty device images\$" out ||
		{ cat out; fail "$ld: dry-run does not say that the output is written"; }
done
echo ok
