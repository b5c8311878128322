#!/usr/bin/env bash
# A response file is read once per link: the host command line's @FILE
# (ldcmd.c) and the device actions' (-Xlinker @FILE to each of three
# device links: the driver's key, the plan's grammar, the action's key)
# share one memo of its bytes.  ld.offlink's own process (not the tools
# it runs, which read it themselves) opens it once; the relink hits.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" strace python3
export PATH=$(dirname "$OFFLINK"):$PATH
export OFFLINK_CACHE_DIR=$PWD/cache

"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 --offload-arch=gfx908 -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o || fail "compile hip"
printf -- '-O1\n' >common.rsp
printf -- '-shared @common.rsp\n' >host.rsp
printf '#!/bin/sh\necho run >>%s/ran\nexec "$@"\n' "$PWD" >launch
chmod +x launch

# opens FILE TRACE: how often ld.offlink's own process opened FILE (its
# threads, not the programs it started)
opens() {
	python3 - "$1" "$2" <<'PY'
import sys
name, lines = sys.argv[1], open(sys.argv[2]).read().splitlines()
tools = {l.split()[0] for l in lines[1:] if " execve(" in l}
print(sum(1 for l in lines if l.split()[0] not in tools and "openat(" in l and f'/{name}"' in l))
PY
}
olink() { # OUT: the link, traced (LeakSanitizer cannot check under ptrace)
	strace -f -E ASAN_OPTIONS=detect_leaks=0 -e trace=execve,openat -o $1.trace \
		ld.offlink hip.o @"$PWD/host.rsp" --device-linker=@"$PWD/common.rsp" \
		--device-launcher="$PWD/launch" -o $1.so || fail "link $1"
}
olink cold
[ "$(wc -l <ran)" = 3 ] || fail "$(wc -l <ran) device links, expected 3"
[ "$(opens common.rsp cold.trace)" = 1 ] ||
	fail "common.rsp opened $(opens common.rsp cold.trace) times by ld.offlink, expected once"
[ "$(opens host.rsp cold.trace)" = 1 ] || fail "host.rsp opened $(opens host.rsp cold.trace) times"
grep -q 'execve(".*/clang".*"@/[^"]*common.rsp"' cold.trace || fail "the device links were not given @common.rsp"
rm ran
olink warm
[ ! -e ran ] || fail "the relink ran $(wc -l <ran) device links"
[ "$(opens common.rsp warm.trace)" = 1 ] || fail "common.rsp opened $(opens common.rsp warm.trace) times on the relink"
cmp cold.so warm.so || fail "the relink's output differs"
echo "response files: each read once per link"
