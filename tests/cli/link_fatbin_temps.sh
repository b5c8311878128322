#!/usr/bin/env bash
# fatbinary's temporaries belong to the link's directory, so they go with
# it, also when ld.offlink is killed while fatbinary runs; `offlink wrap`
# keeps them beside its output.  Stand-ins for the device link and for
# fatbinary (no CUDA toolkit needed): the fatbinary logs its arguments and
# what $TMPDIR holds while it runs.
source "$OFL_SRC/tests/lib.sh"
# device links must run (counted, signalled): no device-link cache
export OFFLINK_CACHE=0
need "$LLVM22/clang" ld pgrep
export PATH=$(dirname "$OFFLINK"):$PATH
"$LLVM22/clang" -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_80 \
	-fPIC -c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o cu.o 2>/dev/null || fail "compile"
mkdir -p tmp fake/bin out
export TMPDIR=$PWD/tmp
cp "$(command -v sleep)" sleeper
cat >devlink.sh <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf '\177ELF\002\001\001' >"$out"
SH
cat >fake/bin/fatbinary <<SH
#!/bin/sh
if [ "\$1" = --help ]; then echo '--image3 <image spec>'; exit 0; fi
echo "\$@" >"$PWD/fatbinary.log"
ls "$TMPDIR" >"$PWD/tmpdir.log"
[ -e "$PWD/slow" ] && exec "$PWD/sleeper" 60
while [ \$# -gt 0 ]; do [ "\$1" = --create ] && out=\$2; shift; done
printf '\120\355\125\272\001\000\020\000\000\000\000\000\000\000\000\000' >"\$out"
SH
chmod +x devlink.sh fake/bin/fatbinary
export CUDA_PATH=$PWD/fake
LINK=(ld.offlink cu.o -shared -o libcu.so --device-launcher="$PWD/devlink.sh")

"${LINK[@]}" || fail "link"
dir=$(cat tmpdir.log)
[[ $dir =~ ^offlink-[A-Za-z0-9]{6}$ ]] || fail "\$TMPDIR held '$dir' while fatbinary ran"
grep -Eq -- "--create $TMPDIR/$dir/[^ ]+\.fatbin .*file=$TMPDIR/$dir/" fatbinary.log ||
	fail "fatbinary's files are not in the link's directory: $(cat fatbinary.log)"
[ -z "$(ls tmp)" ] || fail "temporaries left: $(ls tmp)"

# killed while fatbinary runs: fatbinary too, and nothing is left
touch slow
"${LINK[@]}" &
pid=$!
for _ in $(seq 200); do
	pgrep -f "$PWD/sleeper" >/dev/null && break
	sleep 0.05
done
kill -TERM $pid
rc=0
wait $pid || rc=$?
[ $rc = 143 ] || fail "exit status $rc after SIGTERM"
! pgrep -af "$PWD/sleeper" || fail "fatbinary left running"
[ -z "$(ls tmp)" ] || fail "temporaries left after SIGTERM: $(ls tmp)"
rm slow

# offlink wrap: beside its output
printf '\177ELF\002\001\001' >k.cubin
"$OFFLINK" wrap --kind=cuda -o out/k.fatbin --image=file=k.cubin,arch=sm_80 || fail "wrap"
grep -Eq -- "--create out/offlink-[A-Za-z0-9]{6}\.fatbin " fatbinary.log ||
	fail "offlink wrap: fatbinary's output not beside the output: $(cat fatbinary.log)"
[ -z "$(ls tmp)" ] && [ "$(ls out)" = k.fatbin ] || fail "offlink wrap left temporaries"
echo "fatbin temporaries: ok"
