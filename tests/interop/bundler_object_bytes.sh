#!/bin/bash
# -type=o, byte for byte: the fat object clang-offload-bundler 22 writes
# (llvm-objcopy --add-section: the string tables rebuilt in
# StringTableBuilder's order, a group with a local signature losing
# GRP_COMDAT) and the host object its unbundling leaves (llvm-objcopy
# --remove-section) are offlink's, for host objects clang-22 builds (C and
# C++, -O0 -g to -O2, function and data sections, four machines) and GCC
# builds (its C++ comdat groups), with one to three device entries in any
# order, and a binary bundle for a host LLVM cannot read.  offlink appended the new names to the string table (for a
# clang object the same bytes only while they sorted last).  The read-back
# is bundler_object.sh's.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang-offload-bundler" "$LLVM22/clang" "$LLVM22/llvm-objdump" g++
B=$OFL_COMPAT/clang-offload-bundler
cat >c.c <<'C'
int g = 3; static int s; const char *msg = "hello";
int f(int x) { return x + g + s++; }
C
cat >m.cpp <<'C'
#include <map>
#include <string>
#include <vector>
namespace ns { template <class T> struct Box { T v; T get() const { return v; } }; }
static int counter;
std::map<std::string, int> table;
int use(int x) {
	ns::Box<int> b{x};
	std::vector<std::string> v{"a", "b"};
	table[v[0]] = b.get();
	return (int)v.size() + counter++;
}
thread_local int tl = 3;
int get_tl() { return tl; }
C
# a group whose signature is a local symbol: GRP_COMDAT goes
printf '.section .text.foo,"axG",@progbits,foo,comdat\nfoo: ret\n.section .text.bar,"axG",@progbits,bar,comdat\n.globl bar\nbar: ret\n' >grp.s
C22=$LLVM22/clang
"$C22" -O1 -c c.c -o c-O1.o
"$C22" -O0 -g -ffunction-sections -c c.c -o c-g.o
"$C22" -O2 -ffunction-sections -fdata-sections -c m.cpp -o m-O2.o
"$C22" -O0 -g -c m.cpp -o m-g.o
"$C22" -c grp.s -o grp.o
g++ -O2 -c m.cpp -o m-gcc.o
hosts="c-O1 c-g m-O2 m-g grp m-gcc"
for t in aarch64-unknown-linux-gnu i386-pc-linux-gnu powerpc64-unknown-linux-gnu; do
	"$C22" --target=$t -O1 -g -c c.c -o "c-$t.o"
	hosts="$hosts c-$t"
done
randbytes 1 500 >d1
randbytes 2 300 >d2
randbytes 3 700 >d3

checked=0
# bytes NAME L O: LLVM's file and ours, the same bytes
bytes() {
	cmp -s "$2" "$3" || {
		"$LLVM22/llvm-objdump" -h "$2" >l.h
		"$LLVM22/llvm-objdump" -h "$3" >o.h
		diff l.h o.h >&2 || true
		fail "$1: $(cmp -l "$2" "$3" | wc -l) bytes differ from LLVM's"
	}
	checked=$((checked + 1))
}
# bundle HOSTOBJ TARGETS INPUTS...: LLVM's fat object and ours, and the host
# each unbundles from LLVM's
bundle() {
	local h=$1 targets=$2 host=${2%%,*}
	shift 2
	case $targets in host-*) ;; *) host=${targets##*,} ;; esac
	"$LLVM22/clang-offload-bundler" -type=o -targets=$targets "$@" -output=l.fat ||
		fail "LLVM: $h $targets"
	"$B" -type=o -targets=$targets "$@" -output=o.fat || fail "ours: $h $targets"
	bytes "$h -targets=$targets" l.fat o.fat
	"$LLVM22/clang-offload-bundler" -unbundle -type=o -targets=$host -input=l.fat -output=l.host ||
		fail "LLVM unbundle: $h"
	"$B" -unbundle -type=o -targets=$host -input=l.fat -output=o.host || fail "our unbundle: $h"
	bytes "$h: the host unbundled from -targets=$targets" l.host o.host
}
X=x86_64-unknown-linux-gnu
G=hipv4-amdgcn-amd-amdhsa
three=$G--gfx90a:xnack+,openmp-$X,hip-amdgcn-amd-amdhsa--gfx1100
for h in $hosts; do
	host=host-$X
	case $h in c-*-*) host=host-${h#c-} ;; esac
	bundle $h $host,$three -input=$h.o -input=d1 -input=d2 -input=d3
done
# one, two and three device entries, the host first or last (LLVM keeps
# the order given)
for h in c-O1 m-O2; do
	bundle $h host-$X,openmp-$X -input=$h.o -input=d1
	bundle $h host-$X,$G--gfx90a,$G--gfx906 -input=$h.o -input=d1 -input=d2
	bundle $h $G--gfx906,host-$X,openmp-$X -input=d2 -input=$h.o -input=d3
	bundle $h $three,host-$X -input=d1 -input=d2 -input=d3 -input=$h.o
done
# a host object LLVM cannot read (cut short: its section table gone) makes
# a binary bundle, as LLVM falls back to one
head -c 600 c-O1.o >cut.o
bundle cut host-$X,openmp-$X -input=cut.o -input=d1
echo "$checked fat objects and host objects byte-identical to LLVM 22's"
