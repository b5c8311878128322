#!/usr/bin/env bash
# ld.offlink as a GNU make jobserver client: under `make -j2` (one token
# beyond the job's own) at most two device links run at once, whatever -j
# ld.offlink is given; without make, -j is the bound.  A launcher counts the
# device links running at the same time.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" make flock
export PATH=$(dirname "$OFFLINK"):$PATH
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 --offload-arch=gfx908 --offload-arch=gfx942 -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o || fail "compile"
cat >count.sh <<'SH'
#!/bin/sh
# running count in ./now, highest seen in ./max
bump() { flock lock sh -c "n=\$((\$(cat now) $1)); echo \$n >now; [ \$n -gt \$(cat max) ] && echo \$n >max; true"; }
bump +1
sleep 0.4
"$@"; rc=$?
bump -1
exit $rc
SH
chmod +x count.sh
run() { # EXPECTED-MAX COMMAND...
	echo 0 >now; echo 0 >max
	"${@:2}" || fail "link: ${*:2}"
	[ "$(cat max)" = "$1" ] || fail "$(cat max) device links at once, expected $1: ${*:2}"
}
LINK="ld.offlink hip.o -shared -o libh.so --device-launcher=$PWD/count.sh"
run 4 $LINK -j4
run 1 $LINK -j1
printf 'all:\n\t+%s -j4\n' "$LINK" >Makefile
run 2 make -s -j2
# make -j1 offers no jobserver: the recipe's own -j4 holds
run 4 make -s -j1
echo "jobserver: ok"
