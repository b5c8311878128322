#!/usr/bin/env bash
# The shape most Makefiles have: one $(CFLAGS) with the offload flags for
# compiling and for linking, and LDFLAGS += $(offlink --ldflags) as
# docs/integration.md says, built with make -j2 (the jobserver) from an
# installed prefix, with clang 22 and clang 19.  clang runs offlink's
# clang-linker-wrapper (the link line has offload flags), whose host
# linker is ld.offlink: offlink links the device code once (a launcher
# logs each device link), the real host linker runs once (OFFLINK_LINKER,
# a logging script, still chooses it), nothing is printed, and the program
# runs its kernels on the device.  Then both flag forms at once
# ($(offlink --ldflags) and $(offlink --ldflags --compat)), and a link line
# without offload flags (ld.offlink does the device link itself, and adds
# -lomptarget before the C library, as clang's driver does).
source "$OFL_SRC/tests/lib.sh"
: "${OFL_BUILD:?}"
need make

# nothing of the build tree on the way: the installed tools must do it all
installed_prefix
echo "vec_add: sum 1498500 on the device" >expected

cat >Makefile <<'EOF'
CFLAGS = -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu $(OMP_CFLAGS)
LDFLAGS += $(shell $(OFFLINK) --ldflags) $(EXTRA_LDFLAGS) -L$(RTLIB)
LINKFLAGS = $(CFLAGS)
OBJS = main.o kern.o

# + hands make's jobserver to the link (docs/integration.md)
prog: $(OBJS)
	+$(CC) $(LINKFLAGS) $(LDFLAGS) $(OBJS) -o $@

%.o: $(SRC)/%.c
	$(CC) $(CFLAGS) -c $< -o $@
EOF

# build VERSION RTLIB WHAT [MAKE-VARIABLES...]: a clean build, one device
# link and one host link, a quiet link, a program that runs
build() {
	local v=$1 rtlib=$2 what=$3
	shift 3
	rm -f ./*.o prog device-links host-links
	make -j2 CC="$(eval echo \$LLVM$v)/clang" OFFLINK="$P/bin/offlink" SRC="$OFL_SRC/docs/examples/src" \
		RTLIB="$rtlib" "$@" >make.out 2>make.err || { cat make.out make.err; fail "$v $what: make"; }
	[ ! -s make.err ] || { cat make.err; fail "$v $what: the build printed messages"; }
	[ "$(wc -l <device-links)" -eq 1 ] || { cat device-links; fail "$v $what: not one device link by offlink"; }
	[ "$(wc -l <host-links)" -eq 1 ] || { cat host-links; fail "$v $what: not one host link"; }
	grep -q -- "-o prog " host-links || fail "$v $what: the host link is not the program's"
	# libomptarget before the C library, where clang's driver puts it
	[ "$(grep -oE -- ' -l(omptarget|c) ' host-links | head -1)" = " -lomptarget " ] ||
		{ cat host-links; fail "$v $what: -lomptarget is not before -lc"; }
	LD_LIBRARY_PATH=$rtlib ./prog >run.out 2>run.err || { cat run.err; fail "$v $what: prog exited with $?"; }
	diff -u expected run.out || fail "$v $what: prog printed the wrong line"
}

ran=0
for v in 22 19; do
	rtlib=/usr/lib/llvm-22/lib cflags=
	if [ $v = 19 ]; then
		rtlib=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
		cflags="-isystem ${rtlib%/lib}/lib/clang/19/include"
	fi
	clang=$(eval echo \$LLVM$v)/clang
	if [ ! -x "$clang" ] || [ ! -e "$rtlib/libomptarget.so" ]; then
		[ -n "${CI:-}${OFL_REQUIRE_TOOLS:-}" ] && fail "clang $v or its libomptarget missing"
		continue
	fi
	ran=$((ran + 1))
	build $v "$rtlib" "offload flags on the link line" OMP_CFLAGS="$cflags"
	grep -q -- "-fopenmp-targets=x86_64-pc-linux-gnu .*-B$P/libexec/offlink/compat -fuse-ld=offlink" make.out ||
		{ cat make.out; fail "$v: the link line is not the Makefile's"; }
	build $v "$rtlib" "both flag forms" OMP_CFLAGS="$cflags" EXTRA_LDFLAGS="$("$P/bin/offlink" --ldflags --compat)"
	# a link line without offload flags: ld.offlink links the device code
	build $v "$rtlib" "no offload flags on the link line" OMP_CFLAGS="$cflags" \
		LINKFLAGS="-O2 -fopenmp"
done
[ "$ran" -gt 0 ] || skip "neither clang 22 nor clang 19 with its libomptarget is installed"
echo ok
