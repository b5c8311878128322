#!/usr/bin/env bash
# The entry point pulls the archive member that defines it, as ld pulls it
# (-e SYM, -eSYM, --entry=SYM, --entry SYM; tests/unit/test_link.c has each
# spelling): its device code is linked and registered.  A shared library
# whose only use of libk.a is its entry point, through ld.offlink and the
# plugin (before: the member linked, its device code left out, nothing
# registered).  clang 22, installed prefix.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" ar ld.bfd
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || { [ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "libomptarget missing"; skip "libomptarget missing"; }
installed_prefix
printf 'int ext_fn(int x)\n{\n\tint r = 0;\n#pragma omp target map(from : r)\n\tr = x + 1;\n\treturn r;\n}\n' >ext.c
"$LLVM22/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fPIC -c ext.c || fail "compile ext.c"
ar rcs libk.a ext.o
# elink NAME ARGS...: libNAME.so of libk.a alone, its entry ext_fn; it
# registers ext.o's image
elink() {
	local name=$1
	shift
	rm -f device-links
	plink "$LLVM22/clang" -shared -fopenmp -L. "$@" -lk -L$RT -o lib$name.so 2>$name.err ||
		{ cat $name.err; fail "$name: link"; }
	nm -D lib$name.so | grep -q " T ext_fn" || fail "$name: the host link did not pull ext.o"
	[ -s device-links ] || fail "$name: ext.o's device code not linked"
	mkdir $name && (cd $name && "$P/bin/offlink" inspect --extract-all=img ../lib$name.so >/dev/null) &&
		[ -n "$(ls $name/img)" ] || fail "$name: no image registered"
}
elink ld -B"$P/bin" -fuse-ld=offlink -Wl,--entry=ext_fn
elink plugin -fuse-ld=bfd -Wl,-plugin,"$P/lib/offlink/offlink-plugin.so" -Wl,-e,ext_fn
echo "the entry point's member: its device code linked"
