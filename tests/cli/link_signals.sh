#!/usr/bin/env bash
# SIGTERM, SIGINT and SIGHUP to ld.offlink at random moments (gathering,
# device links, host link): it dies by that signal, no process it started
# runs on (device links, what they started, the host linker) and its
# temporary directory is gone, files its device links made there included.
# The device launcher takes its time, starts a grandchild and writes a
# temporary next to its output, as lld does; the host linker takes its
# time too.  Every process of the test has the scratch directory in its
# command line.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need "$LLVM22/clang" ld pgrep
export PATH=$(dirname "$OFFLINK"):$PATH
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 --offload-arch=gfx908 --offload-arch=gfx942 -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o || fail "compile"
cp "$(command -v sleep)" sleeper
cat >launcher.sh <<SH
#!/bin/sh
$PWD/sleeper 30 </dev/null >/dev/null 2>&1 &
grandchild=\$!
out=; prev=
for a; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
echo partial >"\$out.tmp\$\$"
sleep 1.5
"\$@"; rc=\$?
rm -f "\$out.tmp\$\$"
kill \$grandchild
exit \$rc
SH
printf '#!/bin/sh\nsleep 1\nexec ld "$@"\n' >slowld.sh
chmod +x launcher.sh slowld.sh
mkdir tmp
export TMPDIR=$PWD/tmp

# the same link, undisturbed
ld.offlink hip.o -shared -o libh.so -j4 --device-launcher="$PWD/launcher.sh" \
	--offlink-linker="$PWD/slowld.sh" || fail "link"
[ -z "$(ls tmp)" ] || fail "temporaries left by a link"

# job control: background jobs keep SIGINT (else the shell ignores it for them)
set -m
RANDOM=7
sigs=(TERM INT HUP)
for run in $(seq 30); do
	sig=${sigs[run % 3]}
	# before the link can end (1.5 s of device link, 1 s of host link)
	ms=$((RANDOM % 2500))
	delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
	ld.offlink hip.o -shared -o libh.so -j4 --device-launcher="$PWD/launcher.sh" \
		--offlink-linker="$PWD/slowld.sh" 2>err &
	pid=$!
	sleep "$delay"
	kill -s "$sig" $pid
	rc=0
	wait $pid || rc=$?
	[ $rc = $((128 + $(kill -l "$sig"))) ] || { cat err; fail "run $run: SIG$sig after ${delay}s: exit status $rc"; }
	# killed, what the device links started dies at once too (a moment to
	# be reaped; orphaned, the launcher would sleep on for longer)
	for _ in $(seq 20); do
		pgrep -f "$SCRATCH" >/dev/null || break
		sleep 0.05
	done
	left=$(pgrep -af "$SCRATCH" || true)
	[ -z "$left" ] || fail "run $run: SIG$sig after ${delay}s: processes left: $left"
	[ -z "$(ls tmp)" ] || fail "run $run: SIG$sig after ${delay}s: temporaries left: $(ls -R tmp)"
done
echo "signals: ok"
