#!/usr/bin/env bash
# ld.offlink and the plugin as GNU make jobserver clients: under `make -j2`
# (one token beyond the job's own) at most two device links run at once,
# whatever -j ld.offlink is given, also across two links side by side (which
# hung when each waited for a token the other held); under make without a
# jobserver one at a time unless -j says otherwise; without make, -j is the
# bound; a make 4.4 fifo jobserver works as a pipe does, and every token
# taken is given back; the same with each group's code generation in
# partitions (actions of one group side by side).  A launcher counts the device links running at the
# same time.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need "$LLVM22/clang" make flock timeout ld.bfd
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
mkdir tmp
export TMPDIR=$PWD/tmp
run() { # EXPECTED-MAX COMMAND...: a hang fails instead of hanging ctest
	echo 0 >now; echo 0 >max
	timeout 120 "${@:2}" 2>err || { cat err; fail "link failed or hung: ${*:2}"; }
	[ "$(cat max)" = "$1" ] || fail "$(cat max) device links at once, expected $1: ${*:2}"
	! grep -q "jobserver tokens" err || { cat err; fail "tokens lost: ${*:2}"; }
	[ -z "$(ls tmp)" ] || fail "temporaries left: ${*:2}"
}
LINK="ld.offlink hip.o -shared --device-launcher=$PWD/count.sh"
run 4 $LINK -o libh.so -j4
run 1 $LINK -o libh.so -j1
printf 'all:\n\t+%s -o libh.so -j4\n' "$LINK" >Makefile
run 2 make -s -j2
# no jobserver (make -j1, or a recipe without '+'): the recipe's own -j
# holds, else one at a time
run 4 make -s -j1
printf 'all:\n\t+%s -o libh.so\n' "$LINK" >Makefile
run 1 make -s -j1
run 1 make -s
printf 'all:\n\t%s -o libh.so\n' "$LINK" >Makefile
run 1 make -s -j2
# two links side by side, each with make's implicit token only
printf 'all: a b\na:\n\t+%s -o liba.so -j4\nb:\n\t+%s -o libb.so -j4\n' "$LINK" "$LINK" >Makefile
run 2 make -s -j2
run 3 make -s -j3
# code generation in partitions: a group's partitions run side by side,
# within the tokens as the groups do
PARTS="$LINK --device-partitions=3"
printf 'all:\n\t+%s -o libh.so -j4\n' "$PARTS" >Makefile
run 2 make -s -j2
run 3 $PARTS -o libh.so -j3

# The plugin in ld.bfd, the same way.  A sanitizer build's plugin needs its
# runtime preloaded into the (uninstrumented) linker.
PRELOAD=
if [[ "$(ldd "$OFL_BUILD/lib/offlink-plugin.so")" == *libasan* ]]; then
	PRELOAD="env LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
	PRELOAD+=" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
fi
PLINK="$PRELOAD $LLVM22/clang $("$OFFLINK" --ldflags --plugin) hip.o -shared"
PLINK+=" -Wl,-plugin-opt,device-launcher=$PWD/count.sh"
printf 'all: a b\na:\n\t+%s -o liba.so\nb:\n\t+%s -o libb.so\n' "$PLINK" "$PLINK" >Makefile
run 2 make -s -j2
printf 'all:\n\t+%s -o liba.so\n' "$PLINK" >Makefile
run 1 make -s -j1

# make 4.4's fifo jobserver (make 4.3 here: MAKEFLAGS set as 4.4 sets it),
# the fifo held open here with its tokens
mkfifo fifo
exec 9<>fifo
tokens() { # how many the fifo holds now, put back
	local n
	n=$(timeout 1 dd if=fifo bs=1 count=16 iflag=nonblock 2>/dev/null | wc -c)
	printf '%*s' "$n" '' | tr ' ' + >&9
	echo "$n"
}
printf ++ >&9
run 3 env MAKEFLAGS=" -j3 --jobserver-auth=fifo:$PWD/fifo" $LINK -o libh.so
[ "$(tokens)" = 2 ] || fail "fifo: tokens not given back"
# two links side by side, no token to share: each links alone
dd if=fifo bs=1 count=2 iflag=nonblock 2>/dev/null >/dev/null
run 2 sh -c "MAKEFLAGS=' -j2 --jobserver-auth=fifo:$PWD/fifo'; export MAKEFLAGS;
	$LINK -o liba.so -j4 & $LINK -o libb.so -j4 && wait \$!"
[ "$(tokens)" = 0 ] || fail "fifo: tokens made up"
echo "jobserver: ok"
