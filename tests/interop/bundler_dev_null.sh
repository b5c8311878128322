#!/usr/bin/env bash
# clang bundles every HIP fat binary with -input=/dev/null as its host
# entry: offlink's bundler reads a character device (and a pipe) as a
# stream, as clang-offload-bundler 19/22 do, and writes the same bytes.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler"
ln -s "$OFFLINK" clang-offload-bundler-19
ln -s "$OFFLINK" clang-offload-bundler-22

randbytes 1 3000 >dev1.bin
randbytes 2 77 >dev2.bin
T=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1030
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	for type in o bc; do
		for extra in -bundle-align=4096 -compress; do
			args=(-type=$type -targets=$T -input=/dev/null -input=dev1.bin -input=dev2.bin $extra)
			"$llvm" "${args[@]}" -output=llvm.$v.$type$extra || fail "LLVM $v -type=$type $extra"
			./clang-offload-bundler-$v "${args[@]}" -output=ours.$v.$type$extra ||
				fail "ours $v -type=$type $extra"
			same llvm.$v.$type$extra ours.$v.$type$extra
		done
	done
	# a device entry from /dev/null, the host from a pipe
	args=(-type=o -targets=$T -input=dev1.bin -input=/dev/null)
	"$llvm" "${args[@]}" -input=<(cat dev2.bin) -output=llvm.$v.pipe || fail "LLVM $v pipe"
	./clang-offload-bundler-$v "${args[@]}" -input=<(cat dev2.bin) -output=ours.$v.pipe ||
		fail "ours $v pipe"
	same llvm.$v.pipe ours.$v.pipe
	# each unbundles the other's: the host entry is empty
	./clang-offload-bundler-$v -unbundle -type=o -targets=$T -input=llvm.$v.o-bundle-align=4096 \
		-output=h -output=d1 -output=d2 || fail "unbundle $v"
	[ ! -s h ] && cmp -s d1 dev1.bin && cmp -s d2 dev2.bin || fail "unbundled $v differs"
done
# an output is renamed over: one that is no regular file (a FIFO here,
# /dev/null for root) is refused, never replaced by a file
mkfifo fifo
expect_fail "$OFFLINK" bundle -type=o -targets=$T -input=/dev/null -input=dev1.bin \
	-input=dev2.bin -output=fifo
expect_err_line 'fifo: cannot create output: not a regular file'
[ -p fifo ] || fail "the FIFO was replaced"
echo "/dev/null and pipes as inputs: same bundles as LLVM 19 and 22"
