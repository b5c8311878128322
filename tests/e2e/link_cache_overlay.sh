#!/usr/bin/env bash
# The memo of files' digests on an overlay (a CI container's file system):
# on a writable overlay with all layers on one file system, a file's
# identity is persistent (the kernel's overlayfs.rst), so a device action
# reading a library from a lower layer and one from the upper layer
# stores their digests' memos on the first link and takes them on the
# relink, which then reads neither.  A read-only overlay's files and a
# lower layer's on another file system (xino's layer index in the inode
# number) get none.  The overlays are mounted in a mount namespace of the
# test's own (unshare; a user namespace too when not root).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" unshare strace python3 ar
counted_omp_program
export OFFLINK_CACHE_DIR=$PWD/cache

# a library larger than the 32 KiB from which digests are remembered
printf 'int big[20000] = {1};\n' >big.c
"$LLVM22/clang" -c big.c -o big.o || fail "compile big.c"
mkdir -p lower upper work merged
ar rcs lower/libbig.a big.o
settle

as_root=(unshare -m)
[ "$(id -u)" = 0 ] || as_root=(unshare -rm)
"${as_root[@]}" true 2>/dev/null || skip "no mount namespace can be made here"

# inside NAME: the overlays mounted, then the links (in the namespace)
cat >inside.sh <<'SH'
set -eu
ux=
[ "$(id -u)" = 0 ] && [ -z "${USERNS:-}" ] || ux=,userxattr
mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/upper,workdir=$PWD/work$ux" merged ||
	exit 77
mkdir -p ro t x
mount -t overlay overlay -o "lowerdir=$PWD/lower:$PWD/upper" ro
mount -t tmpfs tmpfs t
mkdir t/upper t/work
mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/t/upper,workdir=$PWD/t/work,xino=on$ux" x
cp merged/libbig.a merged/libup.a # a new file: the upper layer's
sleep 2.1
link() { # OUT LIBDIR LIBS...: a link reading LIBS from LIBDIR
	local out=$1 dir=$2
	shift 2
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
		-Wl,--device-launcher="$PWD/launch" -L"$dir" "$@" -o "$out"
}
stat -c '%n %d %i' merged/libbig.a merged/libup.a ro/libbig.a x/libbig.a >ids
link first merged -lbig -lup
# (LeakSanitizer cannot check under ptrace)
strace -f -y -E ASAN_OPTIONS=detect_leaks=0 -e trace=execve,read,pread64 -o relink.trace -- \
	"$LLVM22/clang" -fopenmp -fuse-ld=offlink -B"$OFL_BUILD/bin" main.o kern.o -L$RT \
	-Wl,--device-launcher="$PWD/launch" -Lmerged -lbig -lup -o relink
link readonly ro -lbig
link xino x -lbig
SH
rc=0
"${as_root[@]}" env USERNS=$([ "$(id -u)" = 0 ] || echo 1) LLVM22="$LLVM22" OFL_BUILD="$OFL_BUILD" \
	RT="$RT" bash inside.sh || rc=$?
[ $rc = 77 ] && skip "overlayfs cannot be mounted here"
[ $rc = 0 ] || fail "the links on the overlay (exit $rc)"
./relink >relink.out && diff -u "$SRC/expected.txt" relink.out || fail "the relinked program"
[ "$(ran)" = 3 ] || fail "$(ran) device links ran: expected the first, the read-only's and xino's"

# memos[FILE]: whether a memo names the file's identity (device, inode)
python3 - ids cache >memos <<'PY'
import glob, struct, sys
ids = [l.split() for l in open(sys.argv[1])]
seen = set()
for m in glob.glob(sys.argv[2] + "/v1/??/*.i"):
    d = open(m, "rb").read()[32:]  # the payload, after the entry's head
    if len(d) == 105:  # a file digest's memo: identity, digest, tree
        seen.add(struct.unpack_from("<QQ", d, 0))
for name, dev, ino in ids:
    print(name, "memo" if (int(dev), int(ino)) in seen else "none")
PY
grep -qx "merged/libbig.a memo" memos || { cat memos; fail "no memo for a lower layer's file"; }
grep -qx "merged/libup.a memo" memos || { cat memos; fail "no memo for the upper layer's file"; }
grep -qx "ro/libbig.a none" memos || { cat memos; fail "a read-only overlay's file has a memo"; }
grep -qx "x/libbig.a none" memos || { cat memos; fail "a lower layer's file on another file system has a memo"; }

# the relink took the memos: ld.offlink read neither library (only the
# host linker, a process of its own, did)
python3 - relink.trace <<'PY' || fail "the relink hashed a library again"
import re, sys
tools, bad = set(), []
lines = open(sys.argv[1]).read().splitlines()
for l in lines:
    pid, call = l.split(None, 1)
    if call.startswith("execve(") and "ld.offlink" not in call.split(",")[0]:
        tools.add(pid)
for l in lines:
    pid, call = l.split(None, 1)
    if pid not in tools and re.search(r"(read|pread64)\(.*merged/lib(big|up)\.a>", call):
        bad.append(l)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
echo "overlay: memos stored and taken where its identities last"
