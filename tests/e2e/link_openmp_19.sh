#!/usr/bin/env bash
# ld.offlink end to end with clang 19 and libomptarget 19, which
# scripts/bootstrap unpacks into /opt/offlink-deps/libomp19.
source "$OFL_SRC/tests/lib.sh"
CLANG=$LLVM19/clang
RTLIB=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
OMP_CFLAGS=(-isystem "${RTLIB%/lib}/lib/clang/19/include")
source "$OFL_SRC/tests/e2e/link_openmp.bash"
