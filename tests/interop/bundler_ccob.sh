# Compressed bundles: byte-identical to clang-offload-bundler 19 (v2) and 22
# (v3, and v2 on request) at the same level; each tool decompresses the
# other's; offlink bundle's multi-threaded default is readable by LLVM and
# the same for any worker count.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler"
ln -s "$OFFLINK" clang-offload-bundler-19
ln -s "$OFFLINK" clang-offload-bundler-22

# real code bytes compress like real device code does
head -c 3000000 "$(readlink -f "$LLVM22/clang")" >host.bin
tail -c 1500000 "$(readlink -f "$LLVM22/clang")" >dev.bin
T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
IN="-input=host.bin -input=dev.bin"

for lvl in 1 3 9; do
	"$LLVM22/clang-offload-bundler" -type=bc -targets=$T $IN -output=l22 -compress -compression-level=$lvl
	./clang-offload-bundler-22 -type=bc -targets=$T $IN -output=o22 -compress -compression-level=$lvl
	same l22 o22
	"$LLVM19/clang-offload-bundler" -type=bc -targets=$T $IN -output=l19 -compress -compression-level=$lvl
	./clang-offload-bundler-19 -type=bc -targets=$T $IN -output=o19 -compress -compression-level=$lvl
	same l19 o19
done
head -c 4 o22 | grep -q CCOB || fail "not a CCOB"
[ "$(xxd -s 4 -l 2 -p o22)" = 0300 ] || fail "22 writes v3"
[ "$(xxd -s 4 -l 2 -p o19)" = 0200 ] || fail "19 writes v2"
COMPRESSED_BUNDLE_FORMAT_VERSION=2 "$LLVM22/clang-offload-bundler" -type=bc -targets=$T $IN -output=l22v2 -compress
COMPRESSED_BUNDLE_FORMAT_VERSION=2 ./clang-offload-bundler-22 -type=bc -targets=$T $IN -output=o22v2 -compress
same l22v2 o22v2
"$LLVM22/clang-offload-bundler" -type=bc -targets=$T $IN -output=l22 -compress
OFFLOAD_BUNDLER_COMPRESS=1 ./clang-offload-bundler-22 -type=bc -targets=$T $IN -output=env
same env l22
OFFLOAD_BUNDLER_COMPRESS=1 ./clang-offload-bundler-22 -type=bc -targets=$T $IN -output=off -compress=false
[ "$(head -c 4 off)" = __CL ] || fail "-compress=false must win over the environment"

# each side decompresses the other's
for f in l22 l19 o22 o19; do
	v=22; [ $f = l19 ] || [ $f = o19 ] && v=19
	./clang-offload-bundler-$v -unbundle -type=bc -targets=$T -input=$f -output=h -output=d
	same h host.bin; same d dev.bin
	"$(eval echo \$LLVM$v)/clang-offload-bundler" -unbundle -type=bc -targets=$T -input=$f -output=h -output=d
	same h host.bin; same d dev.bin
done

# -list of a compressed bundle (only its header is inflated) agrees with LLVM
for f in l22 l19; do
	v=22; [ $f = l19 ] && v=19
	"$(eval echo \$LLVM$v)/clang-offload-bundler" -list -type=bc -input=$f >l.llvm
	./clang-offload-bundler-$v -list -type=bc -input=$f >l.ours
	same l.llvm l.ours
	[ "$(wc -l <l.ours)" -eq 2 ] || fail "two IDs expected"
done
"$OFFLINK" bundle --type=bc --compress --method=zlib --targets=$T host.bin dev.bin -o zl
"$OFFLINK" list zl >l.zlib
"$LLVM22/clang-offload-bundler" -list -type=bc -input=zl >l.llvm
same l.llvm l.zlib

# offlink bundle: zstd workers by default; same bytes for 1, 2 and 4 workers
"$OFFLINK" bundle --type=bc --targets=$T host.bin dev.bin -o mt1 --compress --threads=1
"$OFFLINK" bundle --type=bc --targets=$T host.bin dev.bin -o mt2 --compress --threads=2
"$OFFLINK" bundle --type=bc --targets=$T host.bin dev.bin -o mt4 --compress --threads=4
same mt1 mt2; same mt1 mt4
"$LLVM22/clang-offload-bundler" -unbundle -type=bc -targets=$T -input=mt2 -output=h -output=d
same h host.bin; same d dev.bin
"$OFFLINK" bundle --type=bc --targets=$T host.bin dev.bin -o li --compress --llvm-identical
same li l22

# what LLVM gets wrong: CCOBs back to back, and zero padding after one
cat o22 o22 >two
head -c 13 /dev/zero >>two
"$OFFLINK" list two >ids
[ "$(sort -u ids | wc -l)" -eq 2 ] || fail "list of concatenated CCOBs"
./clang-offload-bundler-22 -unbundle -type=bc -targets=$T -input=two -output=h -output=d
same h host.bin; same d dev.bin
echo ok
