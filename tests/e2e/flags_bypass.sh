#!/usr/bin/env bash
# Never silently bypassed: a link line with offload flags and only
# -fuse-ld=offlink (no -B to the compat directory) has clang run LLVM's own
# clang-linker-wrapper, which links the device code before ld.offlink
# runs.  ld.offlink says so in one warning line naming what to add, once
# per link; --no-bypass-warning and OFFLINK_NO_BYPASS_WARNING=1 silence it;
# with $(offlink --ldflags) there is nothing to say, as offlink does the
# device link.  The linker plugin warns the same way.  clang 22 and 19,
# from an installed prefix.
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"

P=$SCRATCH/prefix
cmake --install "$OFL_BUILD" --prefix "$P" >install.log || { cat install.log; fail "cmake --install"; }
export PATH=/usr/local/bin:/usr/bin:/bin OMP_TARGET_OFFLOAD=MANDATORY OFFLINK_CACHE=0
export OFFLINK_DEVICE_LAUNCHER=$SCRATCH/launch
unset OFFLINK_NO_BYPASS_WARNING
printf '#!/bin/sh\necho "$*" >>%s/device-links\nexec "$@"\n' "$SCRATCH" >launch
chmod +x launch
echo "vec_add: sum 1498500 on the device" >expected
OFFLOAD=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)

# olink WHAT ARGS...: links main.o and kern.o with the offload flags; the
# program runs; stderr in link.err, offlink's device links counted in
# $links
olink() {
	local what=$1
	shift
	rm -f device-links prog
	"$clang" "${OFFLOAD[@]}" main.o kern.o -L"$rtlib" "$@" -o prog 2>link.err ||
		{ cat link.err; fail "$v $what: link"; }
	links=0
	[ ! -f device-links ] || links=$(wc -l <device-links)
	LD_LIBRARY_PATH=$rtlib ./prog >run.out 2>run.err || { cat run.err; fail "$v $what: prog exited with $?"; }
	diff -u expected run.out || fail "$v $what: prog printed the wrong line"
}

ran=0
for v in 22 19; do
	rtlib=/usr/lib/llvm-22/lib cflags=()
	if [ $v = 19 ]; then
		rtlib=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
		cflags=(-isystem "${rtlib%/lib}/lib/clang/19/include")
	fi
	clang=$(eval echo \$LLVM$v)/clang
	if [ ! -x "$clang" ] || [ ! -x "${clang%/clang}/clang-linker-wrapper" ] ||
		[ ! -e "$rtlib/libomptarget.so" ]; then
		[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "clang $v, its clang-linker-wrapper or libomptarget missing"
		continue
	fi
	ran=$((ran + 1))
	"$clang" "${OFFLOAD[@]}" "${cflags[@]}" -c "$OFL_SRC/docs/examples/src/main.c" \
		"$OFL_SRC/docs/examples/src/kern.c" || fail "$v: compile"

	olink bypassed -B"$P/bin" -fuse-ld=offlink
	cp link.err err
	expect_err_line "^ld\.offlink: warning: the device code was linked by LLVM's clang-linker-wrapper, not by offlink .*add \\$\(offlink --ldflags\)"
	[ "$links" -eq 0 ] || fail "$v: offlink linked device code that LLVM had linked"

	olink "silenced by the option" -B"$P/bin" -fuse-ld=offlink -Wl,--no-bypass-warning
	[ ! -s link.err ] || { cat link.err; fail "$v: --no-bypass-warning does not silence it"; }
	OFFLINK_NO_BYPASS_WARNING=1 olink "silenced by the variable" -B"$P/bin" -fuse-ld=offlink
	[ ! -s link.err ] || { cat link.err; fail "$v: OFFLINK_NO_BYPASS_WARNING=1 does not silence it"; }

	# the plugin says the same, in ld.bfd's words (on stdout), and is
	# silenced by its own option
	plink olink "plugin" -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so" >link.out
	grep -q "^/usr/bin/ld.bfd: warning: offlink: the device code was linked by LLVM's clang-linker-wrapper" \
		link.out link.err || { cat link.out link.err; fail "$v: the plugin did not warn"; }
	plink olink "plugin silenced" -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so" \
		-Wl,-plugin-opt,no-bypass-warning >link.out
	[ ! -s link.err ] && [ ! -s link.out ] || { cat link.out link.err; fail "$v: the plugin's no-bypass-warning"; }

	olink "through offlink" $("$P/bin/offlink" --ldflags)
	[ ! -s link.err ] || { cat link.err; fail "$v: a link through offlink printed messages"; }
	[ "$links" -eq 1 ] || fail "$v: offlink did not link the device code once ($links)"
	# the plugin too, in the linker offlink runs: offlink's own wrapper
	# objects are no bypass
	plink olink "through offlink, plugin too" $("$P/bin/offlink" --ldflags) \
		-Wl,-plugin,"$P/lib/offlink/offlink-plugin.so" >link.out
	[ ! -s link.err ] && [ ! -s link.out ] || { cat link.out link.err; fail "$v: the plugin behind offlink warned"; }
	[ "$links" -eq 1 ] || fail "$v: the device code not linked once with the plugin behind offlink ($links)"
done
[ "$ran" -gt 0 ] || skip "neither clang 22 nor clang 19 with clang-linker-wrapper and libomptarget is installed"
echo ok
