#!/usr/bin/env bash
# The device-link cache: a relink whose device code did not change runs no
# device link and gives the same bytes; what decides the output (the
# inputs, the device linker's arguments, the toolchain, the environment)
# changes the key; a corrupt entry is a miss and is replaced; the cache can
# be turned off; `offlink cache` shows, trims and clears it.  The shared
# remote cache is a real nginx with WebDAV on 127.0.0.1: a second client
# with an empty local cache links from it with no device link run; a
# read-only client writes nothing; a remote that is down, silent or
# answers garbage costs at most its timeout and the link goes on.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" nginx python3 cmp
counted_omp_program
# olink OUT [ARGS...]: a link with explain, launcher, no remote unless set
olink() {
	local out=$1
	shift
	rm -f ran
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
		-Wl,--device-launcher="$PWD/launch" -Wl,--explain="$PWD/$out.explain" "$@" -o "$out" ||
		fail "link $out"
}
export OFFLINK_CACHE_DIR=$PWD/local

olink cold
[ "$(ran)" = 1 ] && grep -q 'generic: .*, cache miss' cold.explain || fail "cold link: no miss"
olink warm
[ "$(ran)" = 0 ] || fail "warm link ran a device link"
grep -q 'generic: .*, cache hit (cache' warm.explain || { cat warm.explain; fail "warm link: no hit"; }
cmp cold warm || fail "a cached link differs from the cold one"
./warm >warm.out && diff -u "$SRC/expected.txt" warm.out || fail "the cached program"

# what decides the output is in the key
olink arg -Wl,--device-linker=-O1
[ "$(ran)" = 1 ] || fail "another device linker argument hit the cache"
LIBRARY_PATH=/nonexistent olink env
[ "$(ran)" = 1 ] || fail "another LIBRARY_PATH hit the cache"
mkdir -p copy && cp "$(readlink -f "$LLVM22/clang")" copy/clang && touch -d "2 days ago" copy/clang
olink tool1 -Wl,--device-compiler="$PWD/copy/clang"
[ "$(ran)" = 1 ] || fail "another device compiler hit the cache"
# a changed device compiler is asked again what it runs (clang -###, its
# answer kept beside the entries as a memo, once what it depends on has
# settled); running the same linker command, its link is the same
# action: a hit
touch copy/clang
settle
memos() { cache_memos local | wc -l; }
n=$(memos)
olink tool2 -Wl,--device-compiler="$PWD/copy/clang"
[ "$(memos)" -gt "$n" ] || fail "a changed device compiler was not asked what it runs"
[ "$(ran)" = 0 ] && cmp tool1 tool2 || fail "the same device link command did not hit"

# a corrupt entry: a miss, replaced
for e in local/v1/*/*; do printf 'garbage' | dd of="$e" bs=1 seek=60 conv=notrunc 2>/dev/null; done
olink corrupt 2>corrupt.err
[ "$(ran)" = 1 ] && grep -q 'corrupt entry was removed' corrupt.err || { cat corrupt.err; fail "corrupt entry"; }
cmp cold corrupt || fail "the program after a corrupt entry"
olink healed
[ "$(ran)" = 0 ] || fail "the corrupt entry was not replaced"

# a link without device code opens no cache: no directory made
printf 'int main(void) { return 0; }\n' >host.c
"$LLVM22/clang" -c host.c -o host.o || fail "compile host.c"
OFFLINK_CACHE_DIR=$PWD/hostonly "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" host.o -o host ||
	fail "host-only link"
[ ! -e hostonly ] || fail "a link without device code made the cache directory"

# off: OFFLINK_CACHE=0, --no-device-cache, the plugin's no-device-cache
OFFLINK_CACHE=0 olink off1
[ "$(ran)" = 1 ] || fail "OFFLINK_CACHE=0 used the cache"
olink off2 -Wl,--no-device-cache
[ "$(ran)" = 1 ] || fail "--no-device-cache used the cache"
# (gcc's link line differs from clang's: its own first link is a miss)
for p in plug0 plug1; do
	rm -f ran
	plink gcc main.o kern.o -L$RT -lomp -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
		-Wl,-plugin-opt,device-launcher="$PWD/launch" -o $p || fail "plugin link"
done
[ "$(ran)" = 0 ] || fail "the plugin did not use the cache"
rm -f ran
plink gcc main.o kern.o -L$RT -lomp -Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" \
	-Wl,-plugin-opt,device-launcher="$PWD/launch" -Wl,-plugin-opt,no-device-cache -o plug2 ||
	fail "plugin link without cache"
[ "$(ran)" = 1 ] || fail "the plugin's no-device-cache used the cache"

# offlink cache: stats, trim, clear; the store is private
[ "$(stat -c %a local)" = 700 ] || fail "the cache directory is not 0700"
"$OFFLINK" cache stats >stats.out || fail "cache stats"
grep -Eq '^entries +[1-9]' stats.out && grep -Eq '^hits +[1-9]' stats.out || { cat stats.out; fail "stats"; }
"$OFFLINK" cache trim --max-size=1 >trim.out || fail "cache trim"
grep -Eq '^entries +0$' trim.out || { cat trim.out; fail "trim left entries"; }
olink again
"$OFFLINK" cache clear && "$OFFLINK" cache stats >clear.out || fail "cache clear"
grep -Eq '^entries +0$' clear.out && grep -Eq '^hits +0 ' clear.out || { cat clear.out; fail "clear"; }
expect_fail "$OFFLINK" cache trim --max-size=lots
expect_err_line 'expected a size such as 5G'

# past OFFLINK_CACHE_MAX_SIZE a link trims the store when it ends, the
# least recently used entries first: a limit one byte short of what the
# store holds after a third link, less all that is older than the first
# entry, drops that entry (what the third link adds: what a store of its
# own holds that this one does not)
rm -rf local
OFFLINK_CACHE_DIR=$PWD/sizing olink lru0 -Wl,--device-linker=-O2
olink lru1 -Wl,--device-linker=-O1
oldest=$(cache_entries local)
# (memos are older than the entry: what the link learnt of its files and
# of clang's driver on its way)
olink lru2
limit=$(python3 - "$oldest" <<'EOF'
import glob, os, sys
local = {os.path.basename(p): p for p in glob.glob("local/v1/*/*")}
sizing = {os.path.basename(p): p for p in glob.glob("sizing/v1/*/*")}
first = os.stat(sys.argv[1]).st_mtime_ns
size = lambda p: os.stat(p).st_size
held = sum(size(p) for p in local.values())
added = sum(size(p) for n, p in sizing.items() if n not in local)
older = sum(size(p) for p in local.values() if os.stat(p).st_mtime_ns < first)
print(held + added - older - 1)
EOF
)
OFFLINK_CACHE_MAX_SIZE=$limit olink lru3 -Wl,--device-linker=-O2
[ "$(ran)" = 1 ] || fail "the link past the limit did not run"
[ ! -e "$oldest" ] && [ "$(cache_entries local | wc -l)" = 2 ] ||
	{ ls -lR local; fail "a link past OFFLINK_CACHE_MAX_SIZE did not trim the oldest entry"; }
olink lru4
[ "$(ran)" = 0 ] || fail "trimming removed more than the oldest entry"

# LLVM 19 links bitcode by LTO first: a command writes only the inputs it
# reads, so a device link that misses after an LTO step that hit writes
# no bitcode (kept temporaries show what was written)
RT19=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
if [ -x "$LLVM19/llvm-lto2" ] && [ -e "$RT19/libomptarget.devicertl.a" ]; then
	cc -O1 -fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/stub.c" -o stub.o || fail "compile stub"
	"$LLVM19/clang" -fopenmp --offload-arch=gfx90a -nogpulib -fPIC \
		-c "$OFL_SRC/tests/interop/wrap_stub_src/omp.c" -o omp19.o || fail "clang 19 -c"
	mkdir -p tmp19
	for x in cold19 hit19; do
		TMPDIR=$PWD/tmp19 "$LLVM19/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" stub.o \
			omp19.o -L"$RT19" -rdynamic -ldl -Wl,--save-temps -Wl,--explain=$x.explain \
			$([ $x = hit19 ] && echo -Wl,--device-linker=-O1) -o $x 2>$x.err || fail "link $x"
	done
	grep -q 'LTO for .*, cache hit' hit19.explain && grep -q 'device link for .*, cache miss' hit19.explain ||
		{ cat hit19.explain; fail "LLVM 19: not an LTO hit and a device-link miss"; }
	kept=$(sed -n 's/.*temporaries kept in //p' hit19.err)
	[ -d "$kept" ] && ! ls "$kept" | grep -Eq '^[0-9a-f]{16}\.o$' ||
		{ ls -l "$kept"; fail "LLVM 19: the device link wrote the LTO step's inputs"; }
else
	echo "LLVM 19's llvm-lto2 or device runtime missing: the LLVM 19 part not run"
fi

# two links at once on one cache: both whole
rm -rf local
olink par1 & olink par2 & wait
cmp par1 cold && cmp par2 cold || fail "concurrent links"

# ---- the shared remote cache: nginx with WebDAV -----------------------------
port=$(free_port)
start_nginx $port
export OFFLINK_CACHE_REMOTE=http://127.0.0.1:$port/team/
OFFLINK_CACHE_DIR=$PWD/client1 olink remote1
[ "$(ran)" = 1 ] || fail "client 1 did not link"
[ -n "$(ls ngx/www/team/ac)" ] && [ -n "$(ls ngx/www/team/cas)" ] || fail "nothing stored on the remote"
OFFLINK_CACHE_DIR=$PWD/client2 olink remote2
[ "$(ran)" = 0 ] && grep -q 'cache hit (remote)' remote2.explain || { cat remote2.explain; fail "client 2 did not link from the remote"; }
cmp remote1 remote2 && cmp remote1 cold || fail "the program from the remote differs"
# and client 2 keeps it locally
OFFLINK_CACHE_REMOTE= OFFLINK_CACHE_DIR=$PWD/client2 olink remote3
[ "$(ran)" = 0 ] || fail "a remote hit was not kept locally"
# read-only: reads, writes nothing
rm -rf ngx/www/team
OFFLINK_CACHE_REMOTE_READ_ONLY=1 OFFLINK_CACHE_DIR=$PWD/client3 olink ro
[ "$(ran)" = 1 ] && [ ! -e ngx/www/team ] || fail "a read-only client wrote to the remote"
# garbage in the store: an action that is no ActionResult, bytes that are
# not what the action names
OFFLINK_CACHE_DIR=$PWD/client4 olink refill
for f in ngx/www/team/cas/*; do printf 'not the image' >"$f"; done
OFFLINK_CACHE_DIR=$PWD/client5 olink badcas 2>badcas.err
[ "$(ran)" = 1 ] && grep -q 'bytes that are not what the entry names' badcas.err || { cat badcas.err; fail "bad CAS bytes"; }
cmp badcas cold || fail "the program after a bad remote entry"
for f in ngx/www/team/ac/*; do printf 'garbage' >"$f"; done
OFFLINK_CACHE_DIR=$PWD/client6 olink badac 2>badac.err
[ "$(ran)" = 1 ] && grep -q 'not an ActionResult' badac.err || { cat badac.err; fail "bad action entry"; }
kill $NGINX
wait $NGINX 2>/dev/null || true

# down, and silent (accepts, never answers): the link goes on after at
# most the timeout, the remote skipped from then on
OFFLINK_CACHE_DIR=$PWD/client7 olink down 2>down.err
[ "$(ran)" = 1 ] && grep -q "not used for the rest of this link" down.err || { cat down.err; fail "remote down"; }
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open("silent.ready", "w").close()
kept = []
end = time.time() + 30
s.settimeout(0.2)
while time.time() < end:
    try:
        kept.append(s.accept()[0])
    except OSError:
        pass
' "$port" &
SILENT=$!
# listening before the link starts (python is slow to start on a loaded machine)
for _ in $(seq 100); do [ -e silent.ready ] && break; sleep 0.1; done
[ -e silent.ready ] || fail "the silent server did not start"
OFFLINK_CACHE_REMOTE_TIMEOUT_MS=500 OFFLINK_CACHE_DIR=$PWD/client8 olink silent 2>silent.err
kill $SILENT
[ "$(ran)" = 1 ] && grep -q "Timeout was reached; not used for the rest" silent.err || { cat silent.err; fail "silent remote"; }
cmp silent cold || fail "the program after a silent remote"
# a remote that is no URL: said, and the link goes on without a cache
OFFLINK_CACHE_REMOTE=ftp://x olink nourl 2>nourl.err
grep -q "no device-link cache: remote cache 'ftp://x': expected an http:// or https:// URL" nourl.err ||
	{ cat nourl.err; fail "a remote that is no URL"; }
echo "device-link cache: local and remote, hits byte-identical"
