# Text bundles of every text type against clang-offload-bundler 19 and 22.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler"
ln -s "$OFFLINK" clang-offload-bundler-19
ln -s "$OFFLINK" clang-offload-bundler-22

printf 'host line1\nhost line2\n' >host.txt
printf 'dev line' >dev.txt
printf '\n\n' >nl.txt
T=host-x86_64-unknown-linux-gnu,openmp-nvptx64-nvidia-cuda--sm_70,hip-amdgcn-amd-amdhsa--gfx90a
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	for ty in i ii cui hipi d ll s; do
		"$llvm" -type=$ty -targets=$T -input=host.txt -input=dev.txt -input=nl.txt -output=llvm.$ty
		./clang-offload-bundler-$v -type=$ty -targets=$T -input=host.txt -input=dev.txt -input=nl.txt -output=ours.$ty
		same llvm.$ty ours.$ty
		"$llvm" -list -type=$ty -input=ours.$ty >l1
		./clang-offload-bundler-$v -list -type=$ty -input=llvm.$ty >l2
		same l1 l2
		for who in llvm ours; do
			./clang-offload-bundler-$v -unbundle -type=$ty -targets=$T -input=$who.$ty -output=a.$who -output=b.$who -output=c.$who
			"$llvm" -unbundle -type=$ty -targets=$T -input=$who.$ty -output=A.$who -output=B.$who -output=C.$who
			same a.$who host.txt; same b.$who dev.txt; same c.$who nl.txt
			same A.$who host.txt; same B.$who dev.txt; same C.$who nl.txt
		done
	done
done
# compressed text bundle: identical bytes (LLVM compresses text bundles too)
"$LLVM22/clang-offload-bundler" -type=ll -targets=$T -input=host.txt -input=dev.txt -input=nl.txt -output=llvm.z -compress
./clang-offload-bundler-22 -type=ll -targets=$T -input=host.txt -input=dev.txt -input=nl.txt -output=ours.z -compress
same llvm.z ours.z
echo ok
