#!/usr/bin/env bash
# An installed prefix moved elsewhere (a package unpacked somewhere else, a
# toolchain folder copied) still links through its config file, as its
# --ldflags and CMake package do: offlink.cfg names its folders from its own
# (<CFGDIR>).  With clang 22 and 19, after the move: a link line with
# -fopenmp only (ld.offlink of the moved prefix, its --explain naming the
# config file) and one that keeps -fopenmp-targets (offlink's
# clang-linker-wrapper from the moved compat folder) each do one device link
# by offlink, and the program runs its kernels on the device.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need "$LLVM22/clang" "$LLVM19/clang"
[ -e /usr/lib/llvm-22/lib/libomptarget.so ] ||
	{ [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget 22 missing"; skip "libomptarget 22 missing (run scripts/bootstrap)"; }
need_libomp19
RTLIB19=$RTLIB

installed_prefix
mv "$P" "$SCRATCH/moved"
P=$SCRATCH/moved
cfg=$("$P/bin/offlink" --config-file) || fail "offlink --config-file"
[ "$cfg" = "$P/share/offlink/offlink.cfg" ] || fail "--config-file: $cfg"
! grep -q "$SCRATCH/prefix" "$cfg" || { cat "$cfg"; fail "offlink.cfg names the old prefix"; }

cp "$OFL_SRC"/docs/examples/src/*.c .
echo "vec_add: sum 1498500 on the device" >expected
targets=-fopenmp-targets=x86_64-pc-linux-gnu
for v in 22 19; do
	clang=$(eval echo "\$LLVM$v")/clang rt=/usr/lib/llvm-22/lib inc=
	[ $v = 19 ] && rt=$RTLIB19 inc="-isystem $RTLIB19/clang/19/include"
	# shellcheck disable=SC2086
	"$clang" -fopenmp $targets $inc -c main.c kern.c || fail "$v: compile"
	for link in "-fopenmp" "-fopenmp $targets"; do
		rm -f prog device-links ex.log
		# shellcheck disable=SC2086
		"$clang" --config="$cfg" $link main.o kern.o -L"$rt" -o prog -Wl,--explain=ex.log 2>link.err ||
			{ cat link.err; fail "$v $link: the link through the moved config file"; }
		[ "$(wc -l <device-links)" -eq 1 ] || { cat device-links; fail "$v $link: not one device link by offlink"; }
		LD_LIBRARY_PATH=$rt ./prog >run.out 2>run.err || { cat run.err; fail "$v $link: prog exited with $?"; }
		diff -u expected run.out || fail "$v $link: prog printed the wrong line"
		[ "$link" != -fopenmp ] ||
			grep -q "^link flags: clang .* read .*$cfg (--config, offlink's); -fuse-ld=offlink from $cfg$" ex.log ||
			{ cat ex.log; fail "$v: --explain does not name the moved config file"; }
	done
done
echo ok
