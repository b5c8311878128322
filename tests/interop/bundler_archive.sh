# Heterogeneous archives (-type=a): our device-specific archives are
# byte-identical to clang-offload-bundler 19/22's, symbol index included.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM19/clang-offload-bundler" "$LLVM22/clang-offload-bundler" "$LLVM22/clang" ar
BUNDLER=$OFL_COMPAT/clang-offload-bundler

printf 'int twice(int x) { return 2 * x; }\nint g_data = 3;\n' >host.c
"$LLVM22/clang" -c host.c -o host.o
randbytes 11 333 >d1; randbytes 12 1001 >d2; randbytes 13 64 >d3; randbytes 14 5 >d4
L22=$LLVM22/clang-offload-bundler
$L22 -type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,openmp-x86_64-unknown-linux-gnu \
	-input=host.o -input=d1 -input=d2 -output=a1.o
$L22 -type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,hipv4-amdgcn-amd-amdhsa--gfx908 \
	-input=/dev/null -input=d3 -input=d4 -output=b2.bc
COMPRESSED_BUNDLE_FORMAT_VERSION=2 $L22 -type=bc -targets=host-x86_64-unknown-linux-gnu,openmp-nvptx64-nvidia-cuda--sm_70,openmp-x86_64-unknown-linux-gnu \
	-input=/dev/null -input=d4 -input=d1 -output=nvb.o -compress
echo "plain text member" >notes.txt
mkdir sub && cp b2.bc sub/a_very_long_member_name.bc
ar rc lib.a a1.o b2.bc nvb.o notes.txt sub/a_very_long_member_name.bc

T=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908:xnack+,openmp-x86_64-unknown-linux-gnu,openmp-nvptx64-nvidia-cuda--sm_70,host-x86_64-unknown-linux-gnu
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)/clang-offload-bundler"
	"$llvm" -unbundle -type=a -targets=$T -input=lib.a -output=l.gfx90a.a -output=l.gfx908.a -output=l.omp.a -output=l.nv.a -output=l.host.a
	$BUNDLER -unbundle -type=a -targets=$T -input=lib.a -output=o.gfx90a.a -output=o.gfx908.a -output=o.omp.a -output=o.nv.a -output=o.host.a
	for t in gfx90a gfx908 omp nv; do same l.$t.a o.$t.a; done
	# the host member is the fat object minus its bundle sections; LLVM's
	# objcopy lays it out differently, so compare what the archive holds
	[ "$(ar t l.host.a)" = "$(ar t o.host.a)" ] || fail "host member names"
	(mkdir -p xo && cd xo && ar x ../o.host.a && nm a1-host-x86_64-unknown-linux-gnu-a1.o) >nm.ours
	nm host.o | cmp - nm.ours || fail "host object lost its symbols"
	nm -s o.host.a >idx
	grep -q 'twice in' idx || fail "host archive has no symbol index"
done
ar t o.gfx90a.a | grep -qx 'a1-hip-amdgcn-amd-amdhsa--gfx90aa1.bc' || fail "member naming"

# missing targets: an error naming the target, or an empty archive
expect_fail $BUNDLER -unbundle -type=a -targets=openmp-amdgcn-amd-amdhsa--gfx1030 -input=lib.a -output=m.a
grep -q "no compatible code object found for the target 'openmp-amdgcn-amd-amdhsa--gfx1030' in heterogeneous archive library: lib.a" "$SCRATCH/err" || fail "message"
[ ! -e m.a ] || fail "no output expected"
$BUNDLER -unbundle -type=a -targets=openmp-amdgcn-amd-amdhsa--gfx1030 -input=lib.a -output=m.a -allow-missing-bundles
"$L22" -unbundle -type=a -targets=openmp-amdgcn-amd-amdhsa--gfx1030 -input=lib.a -output=m2.a -allow-missing-bundles
same m.a m2.a
[ "$(cat m.a)" = '!<arch>' ] || fail "empty archive"

# -check-input-archive: a member holding gfx90a and gfx90a:xnack+ conflicts
# (clang-offload-bundler refuses to write such a bundle, so build it here)
python3 - <<'PY'
import struct
ids = [b"host-x86_64-unknown-linux-gnu-", b"hip-amdgcn-amd-amdhsa--gfx90a", b"hip-amdgcn-amd-amdhsa--gfx90a:xnack+"]
datas = [b"", b"AAAA", b"BBBBBB"]
hdr = 32 + sum(24 + len(i) for i in ids)
out, recs, off = b"", b"", hdr
for i, d in zip(ids, datas):
    recs += struct.pack("<QQQ", off, len(d), len(i)) + i
    off += len(d)
open("c1.bc", "wb").write(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids)) + recs + b"".join(datas))
PY
ar rc bad.a c1.bc
"$L22" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+ -input=bad.a -output=x.llvm.a
$BUNDLER -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+ -input=bad.a -output=x.ours.a
same x.llvm.a x.ours.a
expect_fail $BUNDLER -unbundle -type=a -check-input-archive -targets=hip-amdgcn-amd-amdhsa--gfx90a -input=bad.a -output=x.a
expect_err_line "conflicting TargetIDs \\[hip-amdgcn-amd-amdhsa--gfx90a, hip-amdgcn-amd-amdhsa--gfx90a:xnack\\+\\] found in c1.bc of bad.a"
[ ! -e x.a ] || fail "no output expected"
if "$L22" -unbundle -type=a -check-input-archive -targets=hip-amdgcn-amd-amdhsa--gfx90a -input=bad.a -output=x2.a 2>llvm.err; then
	fail "LLVM accepted the conflicting archive"
fi
grep -q 'conflicting TargetIDs' llvm.err || fail "LLVM's message changed"
# Device bitcode members (HIP -fgpu-rdc fat objects of clang's default
# driver): the archive index lists their symbols, read from the irsymtab,
# exactly as LLVM's (clang 19's and 22's bitcode, each bundler)
for v in 19 22; do
	llvm="$(eval echo \$LLVM$v)"
	"$llvm/clang" -x hip -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a -c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip$v.o ||
		fail "clang-$v -x hip"
	rm -f hda$v.a && ar rc hda$v.a hip$v.o
	"$llvm/clang-offload-bundler" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa--gfx90a \
		-input=hda$v.a -output=lbc$v.a || fail "LLVM $v bitcode archive"
	$BUNDLER -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa--gfx90a -input=hda$v.a -output=obc$v.a
	same lbc$v.a obc$v.a
	"$LLVM22/llvm-nm" --print-armap obc$v.a | grep '^_Z4kernPi in ' >/dev/null || fail "no bitcode symbol indexed ($v)"
done
echo ok
