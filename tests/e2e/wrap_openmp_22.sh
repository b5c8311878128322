#!/usr/bin/env bash
# offlink wrap --abi=llvm20 with clang 22 and libomptarget 22 (liboffload-22).
source "$OFL_SRC/tests/lib.sh"
CLANG=$LLVM22/clang
PACKAGER=$LLVM22/clang-offload-packager
RTLIB=${LLVM22%/bin}/lib
ABI=llvm20
DEVLIBS=()
OMP_CFLAGS=()
source "$OFL_SRC/tests/e2e/wrap_openmp.bash"
