#!/bin/bash
# The OpenMP wrapper object for MinGW and Cygwin hosts (x86_64 Windows of
# the GNU or Cygnus environment) is LLVM's, byte for byte: what
# llvm-offload-wrapper 22 + llc 22 write for the triple, and what
# clang-linker-wrapper 19 and 22 leave with --save-temps for a link with
# --host-triple=x86_64-w64-windows-gnu, against offlink wrap, the
# llvm-offload-wrapper personality and the clang-linker-wrapper
# personality.  Unlike MSVC's the constructor lies in .ctors.65434 and a
# .drectve section keeps the hidden __start_/__stop_ bounds out of a DLL's
# exports.  Also LLVM 19's MSVC object (its bounds are weak externals too).
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/llvm-offload-wrapper" "$LLVM22/llc" "$LLVM22/llvm-objcopy" "$LLVM22/llvm-objdump" \
	"$LLVM22/clang" "$LLVM19/clang" "$LLVM22/clang-linker-wrapper" \
	"$LLVM19/clang-linker-wrapper" "$LLVM22/ld.lld"

ln -s "$OFFLINK" llvm-offload-wrapper
ln -s "$OFFLINK" clang-linker-wrapper
randbytes 1 100 >a.img
randbytes 2 333 >b.img
"$OFFLINK" package -o c.obin --image=file=a.img,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp

checked=0
# same_bytes NAME REF OURS
same_bytes() {
	cmp -s "$2" "$3" || {
		"$LLVM22/llvm-objdump" -h -t "$2" >ref.txt
		"$LLVM22/llvm-objdump" -h -t "$3" >ours.txt
		diff ref.txt ours.txt >&2 || true
		fail "$1: the object differs from LLVM's"
	}
	checked=$((checked + 1))
}

# --- llvm-offload-wrapper 22 + llc 22 ------------------------------------
for t in x86_64-w64-windows-gnu x86_64-pc-windows-gnu x86_64-w64-windows-gnullvm \
	x86_64-pc-windows-cygnus x86_64-pc-windows-msvc; do
	for imgs in "a.img" "a.img b.img c.obin"; do
		read -ra in <<<"$imgs"
		"$LLVM22/llvm-offload-wrapper" --triple=$t --kind=openmp "${in[@]}" -o ref.bc ||
			fail "LLVM: $t"
		"$LLVM22/llc" -filetype=obj ref.bc -o ref.o || fail "llc: $t"
		"$OFFLINK" wrap --host-triple=$t "${in[@]}" -o ours.o || fail "offlink wrap: $t"
		same_bytes "offlink wrap --host-triple=$t $imgs" ref.o ours.o
		./llvm-offload-wrapper --triple=$t --kind=openmp "${in[@]}" -o p.o ||
			fail "personality: $t"
		same_bytes "llvm-offload-wrapper --triple=$t $imgs" ref.o p.o
	done
	sections=$("$LLVM22/llvm-objdump" -h ours.o | awk '$2 ~ /^\./ {print $2}' | tr '\n' ' ')
	case $t in
	*msvc) [[ $sections == *".CRT\$XCA00101 .pdata"* ]] ;;
	*) [[ $sections == *".ctors.65434 .drectve .pdata"* ]] ;;
	esac || fail "$t: sections $sections"
done

# --- clang-linker-wrapper 19 and 22, a link for a MinGW host -------------
cat >omp.c <<'C'
int f(int n) { int s = 0;
#pragma omp target map(tofrom: s)
	for (int i = 0; i < n; i++) s += i;
	return s; }
C
for v in 19 22; do
	for t in x86_64-w64-windows-gnu x86_64-pc-windows-msvc; do
		[ $v = 22 ] && [ $t = x86_64-pc-windows-msvc ] && continue # link_personality's
		L=$(eval echo \$LLVM$v)
		"$L/clang" --target=$t -nostdinc -fopenmp --offload-arch=gfx90a -nogpulib -c omp.c \
			-o omp$v.obj || fail "clang-$v --target=$t"
		# 19's device link goes through clang, 22's straight to ld.lld
		ignore=--unresolved-symbols=ignore-all
		[ $v = 19 ] && ignore=-Wl,$ignore
		rm -rf w && mkdir w
		(cd w && "$L/clang-linker-wrapper" --host-triple=$t --linker-path=/bin/true \
			--device-linker=amdgcn-amd-amdhsa=$ignore ../omp$v.obj -o w.exe --save-temps \
			>/dev/null 2>&1) || fail "clang-linker-wrapper $v: $t"
		ref=w/w.exe.openmp.image.wrapper.o
		"$LLVM22/llvm-objcopy" --dump-section=.llvm.offloading=img$v.obin $ref junk.o
		abi=llvm20
		[ $v = 19 ] && abi=llvm19
		"$OFFLINK" wrap --abi=$abi --host-triple=$t img$v.obin -o ours$v.o ||
			fail "offlink wrap --abi=$abi --host-triple=$t"
		same_bytes "clang-linker-wrapper $v, $t" $ref ours$v.o
		[ $v = 22 ] || continue
		# the personality links the same device code and wraps it the same
		./clang-linker-wrapper --host-triple=$t --linker-path=/bin/true \
			--device-linker=amdgcn-amd-amdhsa=$ignore omp$v.obj -o w.exe --save-temps \
			2>p.err || { cat p.err; fail "personality: $t"; }
		kept=$(sed -n 's/.*temporaries kept in //p' p.err)
		same_bytes "the clang-linker-wrapper personality, $t" $ref "$kept/openmp.wrapper.o"
		rm -rf "$kept"
	done
done
echo "$checked wrapper objects byte-identical to LLVM's"
