#!/usr/bin/env bash
# Leftovers of killed links cannot pile up.  ld.bfd running the plugin,
# killed (SIGKILL: nothing can clean up) during a device link: the device
# link dies with it (PR_SET_PDEATHSIG) and its temporary directory stays;
# the next link removes it, and only it: the directory of a link still
# running stays, as do a symbolic link, another user's directory, a
# directory without owner file until it is a day old; one whose owner's pid
# now belongs to another process (another start time) goes.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need "$LLVM22/clang" ld.bfd pgrep
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
export PATH=$(dirname "$OFFLINK"):$PATH
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o ||
	fail "compile"
mkdir tmp
export TMPDIR=$PWD/tmp
cp "$(command -v sleep)" sleeper
printf '#!/bin/sh\nexec %s/sleeper 60\n' "$PWD" >stuck.sh
printf '#!/bin/sh\nwhile [ ! -e %s/go ]; do sleep 0.05; done\nexec "$@"\n' "$PWD" >waiting.sh
chmod +x stuck.sh waiting.sh
PRELOAD=()
if [[ "$(ldd "$PLUGIN")" == *libasan* ]]; then
	PRELOAD=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
		ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0)
fi
until_true() { # up to 10 s
	for _ in $(seq 200); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
running() { pgrep -f "$1" >/dev/null; }

# the plugin's linker killed during a device link
"${PRELOAD[@]}" ld.bfd -plugin "$PLUGIN" -plugin-opt "device-launcher=$PWD/stuck.sh" -shared hip.o \
	-o liba.so &
ld=$!
until_true running "$PWD/sleeper" || fail "the device link did not start"
kill -KILL $ld
wait $ld || true
until_true eval '! running "$PWD/sleeper"' || fail "the device link outlived the linker"
dead=$(ls tmp)
[ -d "tmp/$dead" ] || fail "no directory left by the killed link: $dead"

# a link running meanwhile
ld.offlink hip.o -shared -o libb.so --device-launcher="$PWD/waiting.sh" 2>b.err &
b=$!
# (its own command line names waiting.sh too: wait for its directory)
others() { ls tmp | grep -vx "$dead" || true; }
until_true eval '[ -n "$(others)" ]' || fail "the running link did not start"
live=$(others)

# other directories: owner pid alive but another start time; no owner
# file, new and old; another user's; a symbolic link to a stale one
boot=$(cat /proc/sys/kernel/random/boot_id)
ns=$(readlink /proc/self/ns/pid)
mkdir tmp/offlink-reused tmp/offlink-noown1 tmp/offlink-noown2 victim
echo "$$ 1 $boot $ns" >tmp/offlink-reused/owner
touch -d '2 days ago' tmp/offlink-noown2
cp tmp/offlink-reused/owner victim/
ln -s "$PWD/victim" tmp/offlink-linkd1
kept=("$live" offlink-noown1 offlink-linkd1)
if [ "$(id -u)" = 0 ]; then
	mkdir tmp/offlink-other1
	cp tmp/offlink-reused/owner tmp/offlink-other1/
	chown -R nobody tmp/offlink-other1
	kept+=(offlink-other1)
fi

ld.offlink hip.o -shared -o libc.so || fail "the next link"
[ ! -e "tmp/$dead" ] || fail "the killed link's directory stayed"
[ ! -e tmp/offlink-reused ] || fail "a directory whose owner's pid was reused stayed"
[ ! -e tmp/offlink-noown2 ] || fail "an old directory without owner stayed"
for d in "${kept[@]}"; do
	[ -e "tmp/$d" ] || fail "$d was removed"
done
[ -f victim/owner ] || fail "a symbolic link was followed"
touch go
wait $b || { cat b.err; fail "the running link failed"; }
[ ! -e "tmp/$live" ] || fail "the running link left its directory"
echo "stale: ok"
