#!/usr/bin/env bash
# offlink wrap --abi=llvm19 with clang 19 and libomptarget 19, which
# scripts/bootstrap unpacks into /opt/offlink-deps/libomp19.
source "$OFL_SRC/tests/lib.sh"
CLANG=$LLVM19/clang
PACKAGER=$LLVM19/clang-offload-packager
RTLIB=${OFL_LIBOMP19:-/opt/offlink-deps/libomp19/usr/lib/llvm-19/lib}
ABI=llvm19
DEVLIBS=(-lomptarget.devicertl)
OMP_CFLAGS=(-isystem "${RTLIB%/lib}/lib/clang/19/include")
source "$OFL_SRC/tests/e2e/wrap_openmp.bash"
