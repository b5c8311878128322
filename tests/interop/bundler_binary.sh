# Binary bundles against clang-offload-bundler 19 and 22, both directions:
# our bundle is byte-identical to LLVM's, each tool unbundles the other's
# output to the original inputs, and -list agrees.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler"
ln -s "$OFFLINK" clang-offload-bundler-19
ln -s "$OFFLINK" clang-offload-bundler-22

randbytes 1 1000 >host.bin
randbytes 2 4097 >dev1.bin
randbytes 3 7 >dev2.bin
: >empty.bin
T=host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,openmp-nvptx64-nvidia-cuda--sm_70
IN="-input=host.bin -input=dev1.bin -input=dev2.bin -input=empty.bin"

for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	ours=./clang-offload-bundler-$v
	for align in 1 3 8 4096; do
		"$llvm" -type=bc -targets=$T $IN -output=llvm.$v.$align -bundle-align=$align
		$ours -type=bc -targets=$T $IN -output=ours.$v.$align -bundle-align=$align
		same llvm.$v.$align ours.$v.$align
	done
	"$llvm" -list -type=bc -input=llvm.$v.1 >llvm.list
	$ours -list -type=bc -input=llvm.$v.1 >ours.list
	same llvm.list ours.list
	[ "$(wc -l <ours.list)" -eq 4 ] || fail "expected 4 IDs"
	# each tool unbundles the other's file to the original bytes (the
	# requests in a different order and spelling than the bundle)
	U=openmp-nvptx64-nvidia-cuda--sm_70,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu
	for who in llvm ours; do
		tool=$llvm
		[ $who = llvm ] && tool=$ours
		$tool -unbundle -type=bc -targets=$U -input=$who.$v.4096 \
			-output=u.$who.sm -output=u.$who.gfx -output=u.$who.host -output=u.$who.omp
		same u.$who.host host.bin
		same u.$who.omp dev1.bin
		same u.$who.gfx dev2.bin
		same u.$who.sm empty.bin
	done
done

# 19 and 22 spell some IDs differently; each dialect matches its tool
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	T2=host-x86_64-unknown-linux-gnu,openmp-nvptx64--cuda--sm_70,hip-amdgcn-amd-amdhsa-unknown-gfx90a,hip-amdgcn-amd-amdhsa--gfx9999
	"$llvm" -type=bc -targets=$T2 $IN -output=llvm.t2
	./clang-offload-bundler-$v -type=bc -targets=$T2 $IN -output=ours.t2
	same llvm.t2 ours.t2
done

# a hip-only bundle needs no host (the HIP driver's shape, empty host
# included as a device-less bundle)
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	"$llvm" -type=o -bundle-align=4096 -targets=hipv4-amdgcn-amd-amdhsa--gfx908,hipv4-amdgcn-amd-amdhsa--gfx90a -input=dev2.bin -input=dev1.bin -output=llvm.hip
	./clang-offload-bundler-$v -type=o -bundle-align=4096 -targets=hipv4-amdgcn-amd-amdhsa--gfx908,hipv4-amdgcn-amd-amdhsa--gfx90a -input=dev2.bin -input=dev1.bin -output=ours.hip
	same llvm.hip ours.hip
done
echo ok
