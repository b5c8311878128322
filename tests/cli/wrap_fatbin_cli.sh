#!/usr/bin/env bash
# offlink wrap making CUDA fat binaries with stand-in fatbinary tools (no
# CUDA toolkit needed): where the tool is looked up, the option spelling
# chosen by probing --help, -32/-64, and the errors.
source "$OFL_SRC/tests/lib.sh"

# An ELF "cubin" (any ELF bytes do for the stand-ins)
printf '\177ELF\002\001\001' >a.cubin
head -c 200 /dev/zero >>a.cubin
cp a.cubin b.cubin
printf '.version 8.8\n.target sm_75\n' >c.ptx

# fakecuda-NAME/bin/fatbinary: logs its arguments, answers --help with HELP,
# and writes an empty but well-formed fat binary (16-byte header).
fake() {
	mkdir -p "fake$1/bin"
	cat >"fake$1/bin/fatbinary" <<-EOF2
		#!/bin/sh
		if [ "\$1" = --help ]; then echo '$2'; exit 0; fi
		echo "\$@" >>"$PWD/fake$1.log"
		while [ \$# -gt 0 ]; do [ "\$1" = --create ] && out=\$2; shift; done
		printf '\120\355\125\272\001\000\020\000\000\000\000\000\000\000\000\000' >"\$out"
	EOF2
	chmod +x "fake$1/bin/fatbinary"
}
fake new '--image3 <image spec>,...                          (-image3)'
fake old '--image <image spec>,...                           (-image)'

"$OFFLINK" wrap --kind=cuda --cuda-path=fakenew -o new.fatbin --image=file=a.cubin,arch=sm_75 \
	--image=file=c.ptx,arch=sm_90 || fail "wrap with --image3 tool"
printf '\120\355\125\272\001\000\020\000\000\000\000\000\000\000\000\000' >empty.fatbin
same empty.fatbin new.fatbin
grep -Eq '^-64 --create [^ ]+\.fatbin --image3=kind=ptx,sm=90,file=c\.ptx --image3=kind=elf,sm=75,file=a\.cubin$' \
	fakenew.log || fail "new spelling: $(cat fakenew.log)"

CUDA_PATH=$PWD/fakeold "$OFFLINK" wrap --kind=cuda --host-triple=i686-pc-linux-gnu -o old.o \
	--image=file=a.cubin,arch=sm_75 --image=file=c.ptx,arch=sm_90 2>err &&
	fail "i686 has no direct object writer"
CUDA_PATH=$PWD/fakeold "$OFFLINK" wrap --kind=cuda --host-triple=i686-pc-linux-gnu -o old.ll \
	--image=file=a.cubin,arch=sm_75 --image=file=c.ptx,arch=sm_90 || fail "wrap with old tool"
grep -Eq '^-32 --create [^ ]+ --image=profile=compute_90,file=c\.ptx --image=profile=sm_75,file=a\.cubin$' \
	fakeold.log || fail "old spelling: $(cat fakeold.log)"
grep -q 'x86_64\|i686' old.ll || fail "no IR"

# --fatbinary-syntax overrides the probe; PATH is the last resort
rm -f fakeold.log
PATH=$PWD/fakeold/bin:$PATH CUDA_PATH=$PWD/nowhere "$OFFLINK" wrap --kind=cuda \
	--fatbinary-syntax=image3 -o x.fatbin --image=file=b.cubin,arch=sm_80 || fail "PATH lookup"
grep -q -- '--image3=kind=elf,sm=80,file=b.cubin' fakeold.log || fail "override: $(cat fakeold.log)"

# errors
PATH=/usr/bin:/bin
expect_fail "$OFFLINK" wrap --kind=cuda --cuda-path=nowhere -o x.o --image=file=a.cubin,arch=sm_80
expect_err_line "cannot find 'fatbinary' in 'nowhere/bin' or on PATH"
expect_fail "$OFFLINK" wrap --kind=cuda --cuda-path=fakenew -o x.o --image=file=a.cubin,arch=gfx90a
expect_err_line "a.cubin: cuda image needs an arch of the form sm_NN, got 'gfx90a'"
mkdir -p failing/bin
printf '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "fatbinary fatal   : Unknown option -image" >&2\nexit 1\n' \
	>failing/bin/fatbinary
chmod +x failing/bin/fatbinary
expect_fail "$OFFLINK" wrap --kind=cuda --cuda-path=failing -o x.o --image=file=a.cubin,arch=sm_80
expect_err_line "failing/bin/fatbinary' failed \(exit status 1\): fatbinary fatal   : Unknown option -image"
expect_fail "$OFFLINK" wrap --kind=cuda --cuda-path=fakenew -o x.c --image=file=a.cubin,arch=sm_80
expect_err_line 'write the fat binary with --emit=fatbin'
expect_fail "$OFFLINK" wrap --kind=openmp --emit=fatbin -o x a.cubin
expect_err_line 'emit=fatbin is for cuda and hip'
expect_fail "$OFFLINK" wrap --kind=hip --compress --compression-level=99 -o x.o a.cubin
expect_err_line 'compression-level=99 is out of range'
expect_fail "$OFL_COMPAT/llvm-offload-wrapper" --kind=hip --emit=fatbin -o x a.cubin
expect_err_line 'emit must be obj, ll, bc or c'
# the personalities take the input as the finished fat binary, ELF or not
"$OFL_COMPAT/llvm-offload-wrapper" --kind=cuda -o p.o a.cubin || fail "llvm-offload-wrapper"
"$OFFLINK" wrap --kind=cuda -o q.o --emit=obj new.fatbin || fail "finished fatbin"
"$OFFLINK" wrap --help | grep -q -- '--emit=obj|ll|bc|c|fatbin' || fail "help lacks fatbin"
