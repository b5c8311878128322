#!/bin/bash
# offlink package's own behaviour: --llvm-version picks the kind numbering
# and required keys, no --image extracts everything, version 2 and 3 inputs
# are read, stdin works, errors name the file and offset and write nothing.
source "$OFL_SRC/tests/lib.sh"
C=$OFL_SRC/tests/fuzz/corpus

printf 'device code' >dev.o
"$OFFLINK" package -o hip22.bin --image=file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
"$OFFLINK" package --llvm-version=19 -o hip19.bin \
	--image=file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip
[ "$(od -An -tu2 -j34 -N2 hip22.bin | tr -d ' ')" = 4 ] || fail "22 writes HIP as 4"
[ "$(od -An -tu2 -j34 -N2 hip19.bin | tr -d ' ')" = 3 ] || fail "19 writes HIP as 3"
expect_fail "$OFFLINK" package --llvm-version=19 -o x.bin --image=file=dev.o
expect_err_line "^offlink: error: 'file' and 'triple' are required image arguments$"
[ ! -e x.bin ] || fail "output written on error"
expect_fail "$OFFLINK" package --llvm-version=20 -o x.bin --image=file=dev.o

# stdin as the image
printf 'from stdin' | "$OFFLINK" package -o in.bin --image=file=-,triple=t
grep -q 'from stdin' in.bin || fail "stdin image"

# No --image: everything, with LLVM's generated names.
cat hip22.bin in.bin >both.bin
mkdir all && (cd all && "$OFFLINK" package ../both.bin)
[ "$(ls all | tr '\n' ' ')" = "both-amdgcn-amd-amdhsa-gfx90a.0.o both-t-.1. " ] ||
	fail "names: $(ls all)"
same dev.o all/both-amdgcn-amd-amdhsa-gfx90a.0.o
# The personality follows LLVM 22 and extracts nothing.
mkdir none && (cd none && "$OFL_COMPAT/llvm-offload-binary" ../both.bin)
[ -z "$(ls none)" ] || fail "LLVM extracts nothing without --image"

# Version 3 (zstd) and 2: we read them, the LLVM personality refuses them.
cat "$C/offload_binary/v3zstd" "$C/offload_binary/v2" >v.bin
"$OFFLINK" package v.bin --image=arch=gfx9,file=g.bc
[ "$(cat g.bc)" = def ] || fail "last match of the v2 entries"
mkdir v3 && (cd v3 && "$OFFLINK" package ../v.bin --image=kind=cuda)
[ "$(ls v3 | tr '\n' ' ')" = "v--gfx9.0.bc v--gfx9.1.bc " ] || fail "v3 names: $(ls v3)"
[ "$(cat v3/v--gfx9.0.bc)" = def ] || fail "v3 image bytes"
expect_fail "$OFL_COMPAT/llvm-offload-binary" v.bin --image=kind=cuda
expect_err_line "llvm-offload-binary: error: Invalid data was encountered while parsing the file$"

# Errors: file and offset, nothing written.
head -c 100 hip22.bin >trunc.bin
mkdir e && cd e
expect_fail "$OFFLINK" package ../trunc.bin --image=triple=amdgcn-amd-amdhsa
expect_err_line "^offlink: error: \.\./trunc\.bin: offload binary: size [0-9]+ does not fit the 100 bytes left at offset 8$"
[ -z "$(ls)" ] || fail "output left behind"
expect_fail "$OFFLINK" package ../missing.bin --image=triple=t
expect_err_line "^offlink: error: .*missing\.bin.*No such file or directory"
