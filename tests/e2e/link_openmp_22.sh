#!/usr/bin/env bash
# ld.offlink end to end with clang 22 and its libomptarget.
source "$OFL_SRC/tests/lib.sh"
CLANG=$LLVM22/clang
RTLIB=/usr/lib/llvm-22/lib
OMP_CFLAGS=()
source "$OFL_SRC/tests/e2e/link_openmp.bash"
