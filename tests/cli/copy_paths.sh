#!/bin/bash
# The bytes of big (mapped) inputs reach outputs the same way whichever path
# the copy takes: copy_file_range (pages lined up), the 1 MiB buffer (pages
# not lined up: text markers, an OffloadBinary's head; another file system;
# a pipe), for bundle, unbundle, package and wrap.
source "$OFL_SRC/tests/lib.sh"

randbytes 1 1500000 >a.bin
randbytes 2 2300001 >b.bin
T=host-x86_64-unknown-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx90a

# Text bundle: the bodies follow markers of odd lengths.
"$OFFLINK" bundle --type=ll --targets=$T -o t.ll a.bin b.bin
{
	printf '\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n'
	cat a.bin
	printf '\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n'
	printf '\n; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\n'
	cat b.bin
	printf '\n; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n'
} >expect.ll
same expect.ll t.ll

# Packaging to a file and through a pipe give the same bytes; the image
# bytes sit right after the 8-aligned head.
IM="--image=file=a.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a --image=file=b.bin,triple=x"
"$OFFLINK" package -o p.bin $IM
"$OFFLINK" package -o - $IM | cat >p.pipe
same p.bin p.pipe
"$OFFLINK" package p.bin --image=triple=x,file=b.out
same b.bin b.out

# Another file system, when there is one: nothing can be shared or spliced.
OTHER=${OFL_OTHER_FS:-/dev/shm}
if [ -d "$OTHER" ] && [ -w "$OTHER" ] && [ "$(stat -c %d "$OTHER")" != "$(stat -c %d .)" ]; then
	X=$(mktemp -d "$OTHER/ofl-test-XXXXXX")
	trap 'rm -rf "$SCRATCH" "$X"' EXIT
	"$OFFLINK" bundle --type=bc --targets=$T -o b.bc a.bin b.bin
	"$OFFLINK" bundle --type=bc --targets=$T -o "$X/b.bc" a.bin b.bin
	same b.bc "$X/b.bc"
	"$OFFLINK" unbundle --type=bc --targets=$T b.bc -o "$X/a.out" -o "$X/b.out"
	same a.bin "$X/a.out"
	same b.bin "$X/b.out"
	"$OFFLINK" bundle --type=ll --targets=$T -o "$X/t.ll" a.bin b.bin
	same expect.ll "$X/t.ll"
	"$OFFLINK" package -o "$X/p.bin" $IM
	same p.bin "$X/p.bin"
	"$OFFLINK" wrap -o w.o a.bin b.bin
	"$OFFLINK" wrap -o "$X/w.o" a.bin b.bin
	same w.o "$X/w.o"
fi
echo ok
