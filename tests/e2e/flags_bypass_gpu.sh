#!/usr/bin/env bash
# CUDA and HIP links whose device code clang had linked before ld.offlink
# (or the plugin) runs are left as they are, with one line saying who
# linked it: a HIP (--offload-new-driver -fgpu-rdc --hip-link) or CUDA
# (new driver, -fgpu-rdc, sm_90) link line that keeps its offload flags
# with -B<prefix>/bin -fuse-ld=offlink runs LLVM's clang-linker-wrapper,
# whose wrapper object (.hip_fatbin/.nv_fatbin, .hip.fatbin_reg/
# .cuda.fatbin_reg) registers the device code; HIP's old offload driver
# (--hip-link -fgpu-rdc) links it itself and adds an object defining
# __hip_fatbin_<cuid> in .hip_fatbin.  Before, ld.offlink and the plugin
# linked the new driver's device code again (a stub runtime counted every
# registration twice) and said nothing of the old driver's.  Without
# --hip-link, ld.offlink links the old driver's fat objects itself.  clang
# 22, installed prefix, a stub runtime counting registrations.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" "$LLVM22/clang-linker-wrapper" "$LLVM22/clang-offload-bundler" cc ld.bfd
installed_prefix
unset OFFLINK_LINKER
cc -shared -fPIC "$OFL_SRC/tests/e2e/bypass_src/count_rt.c" -o libamdhip64.so || fail "stub runtime"
cp libamdhip64.so libcudart.so
printf 'int main(void) { return 0; }\n' >main.c
cc -c main.c || fail "compile main.c"
GPU=$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu
PLUGIN=$P/lib/offlink/offlink-plugin.so
hip() { "$LLVM22/clang" -x hip -fgpu-rdc --offload-arch=gfx90a -nogpulib -nogpuinc -fPIC "$@"; }
hip --offload-new-driver -c "$GPU" -o hip.o || fail "compile HIP (new driver)"
hip -c "$GPU" -o hipold.o || fail "compile HIP (old driver)"
CUDA=/usr/local/cuda
if [ -x $CUDA/bin/ptxas ] && [ -x $CUDA/bin/nvlink ] && [ -x $CUDA/bin/fatbinary ]; then
	"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc --offload-arch=sm_90 -nocudainc \
		-nocudalib --cuda-path=$CUDA -fPIC -c "$GPU" -o cuda.o 2>/dev/null || fail "compile CUDA"
else
	[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "CUDA's ptxas, nvlink or fatbinary missing"
	echo "CUDA toolkit not installed: the CUDA part not run"
fi

# glink NAME ARGS...: clang 22 links NAME (stderr and stdout in NAME.err,
# NAME.out: ld.bfd prints a plugin's warning on stdout); it runs against
# the stub, its counts in NAME.count; offlink's device links in $links
glink() {
	local name=$1
	shift
	rm -f device-links
	plink "$LLVM22/clang" -L. main.o "$@" -o $name >$name.out 2>$name.err || { cat $name.out $name.err; fail "$name: link"; }
	LD_LIBRARY_PATH=. ./$name >$name.count || fail "$name: exited with $?"
	links=0
	[ ! -f device-links ] || links=$(wc -l <device-links)
}

# bypassed KIND WHO ARGS...: LLVM's link (the reference), then the same line
# through ld.offlink and through the plugin: the same registrations, no
# device link of offlink's, one warning line saying WHO linked it, which
# --no-bypass-warning silences
bypassed() {
	local kind=$1 who=$2 fe
	shift 2
	glink ${kind}_ref "$@" -fuse-ld=lld
	for fe in ld plugin; do
		local f=(-B"$P/bin" -fuse-ld=offlink) quiet=-Wl,--no-bypass-warning
		[ $fe = plugin ] && f=(-fuse-ld=bfd -Wl,-plugin,"$PLUGIN") quiet=-Wl,-plugin-opt,no-bypass-warning
		glink ${kind}_$fe "$@" "${f[@]}"
		diff -u ${kind}_ref.count ${kind}_$fe.count || fail "$kind, $fe: registered otherwise than LLVM's link"
		[ "$links" -eq 0 ] || fail "$kind, $fe: offlink linked the device code again"
		[ "$(grep -c 'warning: .*the device code was linked by' ${kind}_$fe.out ${kind}_$fe.err |
			awk -F: '{s += $2} END {print s}')" -eq 1 ] &&
			grep -q "the device code was linked by $who, not by offlink" ${kind}_$fe.out ${kind}_$fe.err ||
			{ cat ${kind}_$fe.out ${kind}_$fe.err; fail "$kind, $fe: not one line saying $who linked it"; }
		glink ${kind}_${fe}_quiet "$@" "${f[@]}" $quiet
		[ ! -s ${kind}_${fe}_quiet.err ] && [ ! -s ${kind}_${fe}_quiet.out ] ||
			{ cat ${kind}_${fe}_quiet.out ${kind}_${fe}_quiet.err; fail "$kind, $fe: not silenced"; }
	done
}
bypassed hip "LLVM's clang-linker-wrapper" --offload-new-driver -fgpu-rdc --hip-link \
	--offload-arch=gfx90a -nogpulib hip.o
[ -f cuda.o ] && bypassed cuda "LLVM's clang-linker-wrapper" --offload-new-driver -fgpu-rdc \
	--offload-arch=sm_90 --cuda-path=$CUDA cuda.o -lcudart
bypassed hipold "clang" --hip-link -fgpu-rdc --offload-arch=gfx90a hipold.o
grep -q "link without --hip-link" hipold_ld.err || fail "hipold: the warning names no way through offlink"
# the old driver's fat objects without --hip-link: ld.offlink links them
glink hipold_offlink -B"$P/bin" -fuse-ld=offlink hipold.o -lamdhip64
diff -u hipold_ref.count hipold_offlink.count || fail "hipold without --hip-link: registered otherwise"
[ "$links" -eq 1 ] || fail "hipold without --hip-link: offlink did not link the device code"
echo "device code clang linked before offlink: left as it is, and said once"
