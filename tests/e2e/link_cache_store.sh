#!/usr/bin/env bash
# The device-link cache's local store, where it is not the user's alone
# (issue 23, items 5, 10 and 12), through real clang 22 links:
#  - a store owned by someone else, or writable by anyone, is not used
#    (one warning, the link goes on uncached); a group's shared store
#    (setgid, not writable by others) is, its entries made 0660 and its
#    folders 02770 less the umask; a private store's 0600 and 0700;
#  - an entry under another key's name is a miss, and whatever lies under
#    an entry's name (a FIFO) does not stop the link;
#  - a size in OFFLINK_CACHE_MAX_SIZE that is none (5GB, 1.5G) fails no
#    link: ld.offlink, the clang-linker-wrapper personality and the plugin
#    warn once and link uncached; a host-only link and OFFLINK_CACHE=0 say
#    nothing;
#  - a stats file another process keeps locked never holds a link up;
#  - the temporaries an interrupted store leaves are counted by `offlink
#    cache stats` and swept (older than 5 minutes, not locked) by trim,
#    clear and, at most once an hour, by a link.
# The stores of other users are made with chown (numeric ids): as root.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" gcc python3 cmp timeout mkfifo
counted_omp_program
# olink OUT [ARGS...]: an ld.offlink link that must finish within a minute
# (a FIFO under an entry's name once blocked it for good); stderr in OUT.err
olink() {
	local out=$1
	shift
	rm -f ran
	timeout -k 5 60 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
		-Wl,--device-launcher="$PWD/launch" "$@" -o "$out" 2>"$out.err" ||
		{ cat "$out.err"; fail "link $out"; }
}
# warned_once OUT PATTERN: OUT.err holds exactly one warning, matching
warned_once() {
	[ "$(grep -c 'warning' "$1.err")" = 1 ] && grep -q -- "$2" "$1.err" ||
		{ cat "$1.err"; fail "$1: not one warning matching '$2'"; }
}
export OFFLINK_CACHE_DIR=$PWD/own
umask 022

# ---- a private store: 0600 entries in 0700 folders --------------------------
olink cold
[ "$(ran)" = 1 ] || fail "cold link"
entry=$(cache_entries own)
[ -f "$entry" ] || fail "no entry stored"
[ "$(stat -c %a "$entry")" = 600 ] && [ "$(stat -c %a "$(dirname "$entry")")" = 700 ] &&
	[ "$(stat -c %a own/v1)" = 700 ] || { ls -lR own; fail "a private store's modes"; }
olink warm
[ "$(ran)" = 0 ] && cmp cold warm || fail "warm link"

# ---- an entry under another key's name: a miss ------------------------------
olink other -Wl,--device-linker=-O1
[ "$(ran)" = 1 ] || fail "another key hit"
other=$(cache_entries own | tail -1)
[ "$other" != "$entry" ] || fail "no second entry"
cp "$entry" "$other"
olink moved -Wl,--device-linker=-O1
[ "$(ran)" = 1 ] && grep -q 'corrupt entry was removed' moved.err ||
	{ cat moved.err; fail "an entry under another key's name was a hit"; }

# ---- a FIFO under an entry's name: a miss, the link finishes ----------------
rm -f "$entry" && mkfifo "$entry"
olink fifo
[ "$(ran)" = 1 ] && cmp cold fifo || fail "the link with a FIFO under the entry's name"
[ -f "$entry" ] || fail "the FIFO was not replaced by the entry"

# ---- a stats file another process holds locked: the link does not wait ------
# (a link stopped with ^Z while it trimmed once hung every other link, and
# SIGTERM did not end them: they waited for the lock at exit)
python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open("stats.locked", "w").close()
time.sleep(600)' own/v1/stats &
HOLDER=$!
for _ in $(seq 100); do [ -e stats.locked ] && break; sleep 0.1; done
[ -e stats.locked ] || fail "the stats file was not locked"
timeout -k 2 20 "$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
	-Wl,--device-linker=-O3 -o held 2>held.err || { cat held.err; fail "a link waited for the stats lock"; }
kill $HOLDER
wait $HOLDER 2>/dev/null || true

# ---- stores that are not to be trusted --------------------------------------
if [ "$(id -u)" = 0 ]; then
	stranger=54321 # no such user needed: chown takes the number
	# another user's store, holding an entry for this very link
	mkdir -p s-theirs && cp -a own/. s-theirs/ && chown -R $stranger:$stranger s-theirs
	OFFLINK_CACHE_DIR=$PWD/s-theirs olink theirs
	[ "$(ran)" = 1 ] || fail "another user's store was used"
	warned_once theirs "no device-link cache: .*theirs: the cache directory is not ours"
	[ -z "$(find s-theirs -user 0)" ] || fail "something was written to another user's store"
	# our own, writable by anyone
	mkdir -m 1777 s-open
	OFFLINK_CACHE_DIR=$PWD/s-open olink open
	[ "$(ran)" = 1 ] && [ ! -e s-open/v1 ] || fail "a store anyone may write was used"
	warned_once open "the cache directory is not ours"
	# a v1 folder of another user's in our store
	mkdir -p s-mixed/v1 && chown $stranger s-mixed/v1
	OFFLINK_CACHE_DIR=$PWD/s-mixed olink mixed
	[ "$(ran)" = 1 ] || fail "a store with another user's v1 was used"
	warned_once mixed "mixed/v1: the cache directory is not ours"
	# a group's shared store: another user's, setgid, our group (0): used,
	# entries 0660 and folders 02770 less the umask (002 here, 027 after)
	mkdir s-team && chown $stranger:0 s-team && chmod 2770 s-team
	(umask 002 && OFFLINK_CACHE_DIR=$PWD/s-team olink team1)
	[ "$(ran)" = 1 ] && [ ! -s team1.err ] || { cat team1.err; fail "the shared store"; }
	shared=$(cache_entries s-team)
	[ "$(stat -c %a "$shared")" = 660 ] && [ "$(stat -c %a "$(dirname "$shared")")" = 2770 ] &&
		[ "$(stat -c %a s-team/v1)" = 2770 ] || { ls -lR s-team; fail "a shared store's modes"; }
	(umask 027 && OFFLINK_CACHE_DIR=$PWD/s-team olink team2 -Wl,--device-linker=-O1)
	newest=$(cache_entries s-team | tail -1)
	[ "$(stat -c %a "$newest")" = 640 ] || { ls -lR s-team; fail "the umask was not applied"; }
	OFFLINK_CACHE_DIR=$PWD/s-team olink team3
	[ "$(ran)" = 0 ] && cmp cold team3 || fail "no hit from the shared store"
	# the same store without setgid: another user's, not used
	chmod g-s s-team
	OFFLINK_CACHE_DIR=$PWD/s-team olink team4
	[ "$(ran)" = 1 ] || fail "another user's store without setgid was used"
	warned_once team4 "the cache directory is not ours"
else
	echo "not root: stores of other users not tried (chown needs root)"
fi

# ---- a size that is none: a warning, no failure -----------------------------
for size in 5GB 1.5G; do
	OFFLINK_CACHE_MAX_SIZE=$size olink size
	[ "$(ran)" = 1 ] || fail "OFFLINK_CACHE_MAX_SIZE=$size: cached"
	warned_once size "no device-link cache: OFFLINK_CACHE_MAX_SIZE: '$size': expected a size such as 5G, 500M"
	cmp cold size || fail "the program linked with OFFLINK_CACHE_MAX_SIZE=$size"
done
OFFLINK_CACHE=0 OFFLINK_CACHE_MAX_SIZE=5GB olink size0
[ "$(ran)" = 1 ] && [ ! -s size0.err ] || { cat size0.err; fail "OFFLINK_CACHE=0 warned"; }
printf 'int main(void) { return 0; }\n' >host.c
"$LLVM22/clang" -c host.c -o host.o || fail "compile host.c"
OFFLINK_CACHE_MAX_SIZE=5GB "$LLVM22/clang" -fuse-ld=offlink -B"$OFL_BUILD/bin" host.o -o host \
	2>host.err || { cat host.err; fail "a host-only link failed"; }
[ ! -s host.err ] || { cat host.err; fail "a host-only link warned"; }
# the personality (clang finds it through -B) and the plugin (ld prints its
# plugins' warnings on stdout)
OFFLINK_CACHE_MAX_SIZE=5GB timeout -k 5 60 "$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
	-B"$OFL_COMPAT" main.o kern.o -L$RT -o wrapper 2>wrapper.err ||
	{ cat wrapper.err; fail "the personality failed"; }
warned_once wrapper "clang-linker-wrapper: warning: no device-link cache: OFFLINK_CACHE_MAX_SIZE: '5GB'"
OFFLINK_CACHE_MAX_SIZE=5GB plink timeout -k 5 60 gcc main.o kern.o -L$RT -lomp \
	-Wl,-plugin,"$OFL_BUILD/lib/offlink-plugin.so" -o plugin >plugin.err 2>&1 ||
	{ cat plugin.err; fail "the plugin failed"; }
warned_once plugin "no device-link cache: OFFLINK_CACHE_MAX_SIZE: '5GB'"
./plugin >plugin.out && diff -u "$SRC/expected.txt" plugin.out || fail "the plugin's program"

# ---- temporaries of interrupted stores --------------------------------------
rm -rf own
olink fresh
dir=$(dirname "$(cache_entries own)")
key=$(basename "$(cache_entries own)")
rm own/v1/stats # a store that was never swept
for t in stale1 locked recent; do head -c 1000 /dev/urandom >"$dir/.$key.ofl-$t"; done
touch -d '1 hour ago' "$dir/.$key.ofl-stale1" "$dir/.$key.ofl-locked"
"$OFFLINK" cache stats >stats1.out || fail "cache stats"
grep -Eq '^temporaries +3 \(2\.9 KiB\)$' stats1.out || { cat stats1.out; fail "stats: temporaries"; }
# a store under way holds its temporary's lock
python3 -c '
import fcntl, sys, time
f = open(sys.argv[1])
fcntl.flock(f, fcntl.LOCK_EX)
open("locked.ready", "w").close()
time.sleep(600)' "$dir/.$key.ofl-locked" &
LOCKER=$!
for _ in $(seq 100); do [ -e locked.ready ] && break; sleep 0.1; done
[ -e locked.ready ] || fail "the temporary was not locked"
olink sweep1
[ ! -e "$dir/.$key.ofl-stale1" ] || fail "a link did not sweep a stale temporary"
[ -e "$dir/.$key.ofl-locked" ] && [ -e "$dir/.$key.ofl-recent" ] ||
	fail "a link swept a temporary being written"
kill $LOCKER
wait $LOCKER 2>/dev/null || true
# at most once an hour: the next link leaves it to trim
head -c 10 /dev/urandom >"$dir/.$key.ofl-later1" && touch -d '1 hour ago' "$dir/.$key.ofl-later1"
olink sweep2
[ -e "$dir/.$key.ofl-later1" ] || fail "a link swept twice within the hour"
"$OFFLINK" cache trim >trim.out || fail "cache trim"
[ ! -e "$dir/.$key.ofl-later1" ] && [ ! -e "$dir/.$key.ofl-locked" ] &&
	[ -e "$dir/.$key.ofl-recent" ] || { ls -la "$dir"; fail "trim: stale temporaries"; }
grep -Eq '^temporaries +1 ' trim.out || { cat trim.out; fail "trim: temporaries left"; }
head -c 10 /dev/urandom >"$dir/.$key.ofl-clear1" && touch -d '1 hour ago' "$dir/.$key.ofl-clear1"
"$OFFLINK" cache clear || fail "cache clear"
[ ! -e "$dir/.$key.ofl-clear1" ] && [ -e "$dir/.$key.ofl-recent" ] || fail "clear: stale temporaries"
echo "device-link cache store: trusted stores only, FIFOs and moved entries missed, bad sizes warned, temporaries swept"
