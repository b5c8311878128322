# -type=o keeps the host object's layout, as llvm-objcopy does for LLVM 22:
# our fat object of a clang-built host object is LLVM 22's byte for byte,
# and the host entry unbundled from it (directly, or from a heterogeneous
# archive) reads the same in obj2yaml as LLVM 22's: sections in the
# original file order, section header table where it was.  (obj2yaml of
# both differs from the original's only in the offset of an empty section
# that shared its offset with another.)
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" "$LLVM22/clang" "$LLVM22/obj2yaml" "$LLVM22/llvm-ar"
B=$OFL_COMPAT/clang-offload-bundler
cat >k.c <<'C'
int g = 3;
static int s;
int f(int x) { return x + g + s++; }
C
"$LLVM22/clang" -O1 -c k.c -o k.o
"$LLVM22/clang" -O0 -g -ffunction-sections -c k.c -o kg.o
randbytes 1 500 >d.bin
T=-targets=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
for o in k kg; do
	"$LLVM22/clang-offload-bundler" -type=o $T -input=$o.o -input=d.bin -output=l-$o.fat
	"$B" -type=o $T -input=$o.o -input=d.bin -output=o-$o.fat
	same l-$o.fat o-$o.fat
	"$LLVM22/clang-offload-bundler" -unbundle -type=o $T -input=l-$o.fat -output=l-$o.o -output=x
	"$B" -unbundle -type=o $T -input=o-$o.fat -output=o-$o.o -output=y
	same x d.bin; same y d.bin
	"$LLVM22/obj2yaml" l-$o.o >l.yaml
	"$LLVM22/obj2yaml" o-$o.o >o.yaml
	same l.yaml o.yaml
	# the original, but for offsets of empty sections
	"$LLVM22/obj2yaml" $o.o | grep -v '^    Offset: ' >orig.yaml || true
	grep -v '^    Offset: ' o.yaml >ours.yaml || true
	same orig.yaml ours.yaml
	grep -q '^  - Type:            SectionHeaderTable' o.yaml || fail "$o: section order lost"

	# from a heterogeneous archive
	rm -f lib.a && "$LLVM22/llvm-ar" rc lib.a o-$o.fat
	"$LLVM22/clang-offload-bundler" -unbundle -type=a -targets=host-x86_64-unknown-linux-gnu \
		-input=lib.a -output=l.a
	"$B" -unbundle -type=a -targets=host-x86_64-unknown-linux-gnu -input=lib.a -output=o.a
	rm -rf la oa && mkdir la oa
	(cd la && "$LLVM22/llvm-ar" x ../l.a) && (cd oa && "$LLVM22/llvm-ar" x ../o.a)
	[ "$(ls la)" = "$(ls oa)" ] || fail "member names differ"
	for m in la/*; do
		"$LLVM22/obj2yaml" "$m" >l.yaml
		"$LLVM22/obj2yaml" "oa/${m#la/}" >o.yaml
		same l.yaml o.yaml
	done
done
echo ok
