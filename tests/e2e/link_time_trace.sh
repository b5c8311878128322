#!/usr/bin/env bash
# --time-trace on every route (docs/integration.md, "Where the time went"):
# ld.offlink (its option, lld's --time-trace-file= spelling, the default
# file beside -o and a.out's, OFFLINK_TIME_TRACE), the clang-linker-wrapper
# personality (-Wl, on clang's line, LLVM's --wrapper-time-trace=, the
# variable) and the plugin (-plugin-opt=time-trace[=FILE]) write Chrome
# trace-event JSON that loads: the plan, the device links, the wrap and the
# host link on the link's track, one track per device action with its key,
# cache lookup and each command (tool, command, exit status), nested
# spans; a cache hit runs no command; a failed link still writes it; an
# unwritable file fails the link before anything runs; the program is the
# same with and without a trace.
source "$OFL_SRC/tests/lib.sh"
need "$LLVM22/clang" gcc ld.bfd python3 cmp
PLUGIN=$OFL_BUILD/lib/offlink-plugin.so
SRC=$OFL_SRC/tests/e2e/wrap_openmp_src
T=x86_64-pc-linux-gnu
RT=/usr/lib/llvm-22/lib
[ -e $RT/libomptarget.so ] || fail "$RT/libomptarget.so missing"
export PATH=$(dirname "$OFFLINK"):$PATH OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=$RT
unset OFFLINK_TIME_TRACE
mkdir tmp
export TMPDIR=$PWD/tmp

# check TRACE ACTIONS HOST [CACHE]: TRACE is valid trace-event JSON with
# the link's steps on track 1 (HOST: the name of its host link span), ACTIONS
# device action tracks (each its own tid and name) whose spans nest, each
# with what the cache did (CACHE, default "cache miss"; "any": a hit or a
# miss), its key and cache lookup unless "not cached", and unless a hit the
# commands it ran, each with a command and exit status 0
check() {
	python3 - "$@" <<'PY' || fail "$1: not the trace expected"
import json, sys
path, nactions, host = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cache = sys.argv[4] if len(sys.argv) > 4 else "cache miss"
d = json.load(open(path))
assert isinstance(d["beginningOfTime"], int) and d["beginningOfTime"] > 0
ev = d["traceEvents"]
spans = [e for e in ev if e["ph"] == "X"]
meta = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"], "no process name"
for e in spans:
    assert isinstance(e["ts"], int) and isinstance(e["dur"], int) and e["ts"] >= 0 and e["dur"] >= 0, e
    assert e["tid"] in meta, f"track {e['tid']} has no name"
    assert len({x["pid"] for x in spans}) == 1
main = [e["name"] for e in spans if e["tid"] == 1]
for step in ("gather", "plan", "select members", "device actions", "device links", "wrap", host):
    assert step in main, f"no '{step}' span on the link's track: {main}"
# spans of a track nest: each one inside the last open one, or after it
for tid in meta:
    open_ = []
    for e in sorted((e for e in spans if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
        while open_ and e["ts"] >= open_[-1]["ts"] + open_[-1]["dur"]:
            open_.pop()
        assert not open_ or e["ts"] + e["dur"] <= open_[-1]["ts"] + open_[-1]["dur"], \
            f"{e['name']} overlaps {open_[-1]['name']} on track {tid}"
        open_.append(e)
links = next(e for e in spans if e["tid"] == 1 and e["name"] == "device links")
actions = {t: n for t, n in meta.items() if n.startswith("device link for") and not n.endswith("cache store")}
assert len(actions) == nactions and len(set(actions.values())) == nactions, actions
for tid, name in actions.items():
    mine = [e for e in spans if e["tid"] == tid]
    whole = [e for e in mine if e["name"] == name]
    assert len(whole) == 1, f"{name}: {len(whole)} spans for the action"
    a = whole[0]
    assert links["ts"] <= a["ts"] and a["ts"] + a["dur"] <= links["ts"] + links["dur"], name
    said = a["args"]["cache"]
    assert said == cache or (cache == "any" and said in ("cache hit", "cache miss")), a
    names = [e["name"] for e in mine]
    if said != "not cached":
        assert len(a["args"]["key"]) == 12 and "key" in names and "cache lookup" in names, a
    jobs = [e for e in mine if e["name"] not in ("key", "cache lookup", name)]
    if said == "cache hit":
        assert not jobs, f"{name}: a hit ran {jobs}"
    else:
        assert jobs and all(j["args"]["status"] == 0 and j["args"]["command"] for j in jobs), jobs
        assert jobs[0]["name"] in ("ld.lld", "clang", "clang-nvlink-wrapper", "ptxas", "nvlink"), jobs
PY
}

# HIP for three GPUs: three device links (AMDGPU's ld.lld), in parallel
"$LLVM22/clang" -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a \
	--offload-arch=gfx1030 --offload-arch=gfx908 -fPIC \
	-c "$OFL_SRC/tests/interop/wrap_stub_src/gpu.cu" -o hip.o || fail "compile hip"
OFFLINK_CACHE=0 ld.offlink hip.o -shared -o plain.so || fail "link without a trace"
[ ! -e plain.so.time-trace.json ] || fail "a trace nobody asked for"

# ld.offlink: the default file beside -o; the program the same as without
OFFLINK_CACHE=0 ld.offlink hip.o -shared -o libh.so -j2 --time-trace || fail "ld.offlink --time-trace"
same plain.so libh.so
check libh.so.time-trace.json 3 "host link" "not cached"
# a hit runs nothing; lld's spelling; stores on their own tracks
ld.offlink hip.o -shared -o libh.so --time-trace-file=miss.json || fail "--time-trace-file"
check miss.json 3 "host link"
python3 - miss.json <<'PY' || fail "no cache store spans"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
tracks = {e["tid"] for e in ev if e["ph"] == "X" and e["name"] == "cache store"}
assert len(tracks) == 3 and 1 not in tracks, tracks
PY
OFFLINK_TIME_TRACE=$PWD/hit.json ld.offlink hip.o -shared -o libh.so || fail "OFFLINK_TIME_TRACE=FILE"
check hit.json 3 "host link" "cache hit"
# a.out's beside it without -o; the variable's 1; an option wins over it
mkdir d && (cd d && OFFLINK_TIME_TRACE=1 ld.offlink ../hip.o -shared) || fail "no -o"
check d/a.out.time-trace.json 3 "host link" "cache hit"
OFFLINK_TIME_TRACE=$PWD/not.json ld.offlink hip.o -shared -o libh.so --time-trace=opt.json ||
	fail "option and variable"
[ -e opt.json ] && [ ! -e not.json ] || fail "the variable won over --time-trace=FILE"

# a failed link writes its trace: the command that failed, its status (no
# cache: clang's driver is the command)
printf '#!/bin/sh\nexit 3\n' >failing.sh
chmod +x failing.sh
expect_fail ld.offlink hip.o -shared -o bad.so -j1 --device-launcher="$PWD/failing.sh" \
	--no-device-cache --time-trace
python3 - bad.so.time-trace.json <<'PY' || fail "the failed link's trace"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ran = [e for e in ev if e["ph"] == "X" and "status" in e.get("args", {})]
assert ran and ran[0]["args"]["status"] == 3 and "failing.sh" in ran[0]["args"]["command"], ran
assert not [e for e in ev if e["ph"] == "X" and e["name"] in ("wrap", "host link")]
PY

# a file that cannot be written: one line, before anything runs
printf '#!/bin/sh\necho ran >>%s/ran\nexec "$@"\n' "$PWD" >count.sh
chmod +x count.sh
expect_fail ld.offlink hip.o -shared -o never.so --device-launcher="$PWD/count.sh" \
	--no-device-cache --time-trace="$PWD/nodir/t.json"
expect_err_line "^ld.offlink: error: $PWD/nodir/t.json: cannot create output: No such file or directory$"
[ ! -e never.so ] && [ ! -e ran ] || fail "the link went on without its trace"

# The same program linked three ways, each traced; it runs.
for f in main kern; do
	"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -fPIC -O1 -c "$SRC/$f.c" -o $f.o || fail "compile $f"
done
run_check() {
	"./$1" >"$1.out" 2>&1 || { cat "$1.out"; fail "$1 exited with $?"; }
	diff -u "$SRC/expected.txt" "$1.out" || fail "$1 printed wrong results"
}
# ld.offlink through clang's -fuse-ld
"$LLVM22/clang" -fopenmp -fuse-ld=offlink main.o kern.o -L$RT -o p_ld -Wl,--time-trace ||
	fail "clang -fuse-ld=offlink"
run_check p_ld
check p_ld.time-trace.json 1 "host link"
# the personality: ld.offlink's option in the link flags, the variable
"$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" main.o kern.o -L$RT -o p_cw \
	-Wl,--time-trace=cw.json || fail "personality -Wl,--time-trace"
run_check p_cw
check cw.json 1 "host link" any
grep -q '"name":"process_name","args":{"name":"clang-linker-wrapper"}' cw.json ||
	fail "the personality's trace names another process"
rm -rf "$OFFLINK_CACHE_DIR"
OFFLINK_TIME_TRACE=1 "$LLVM22/clang" -fopenmp -fopenmp-targets=$T -B"$OFL_COMPAT" main.o kern.o \
	-L$RT -o p_env || fail "personality OFFLINK_TIME_TRACE=1"
run_check p_env
check p_env.time-trace.json 1 "host link"
# LLVM's own option of the wrapper
"$OFL_COMPAT/clang-linker-wrapper" --wrapper-time-trace=wt.json --linker-path=/usr/bin/ld \
	--host-triple=$T -shared main.o kern.o -L$RT -lomp -o libwt.so || fail "--wrapper-time-trace"
check wt.json 1 "host link" any
# the plugin in ld.bfd
plink gcc -fuse-ld=bfd main.o kern.o -L$RT -lomp -Wl,-plugin,"$PLUGIN" -Wl,-plugin-opt,time-trace \
	-o p_pl || fail "plugin time-trace"
run_check p_pl
check p_pl.time-trace.json 1 "linker: output" any
grep -q '"name":"process_name","args":{"name":"ld.bfd + offlink plugin"}' p_pl.time-trace.json ||
	fail "the plugin's trace does not name the linker"
expect_fail plink gcc -fuse-ld=bfd main.o kern.o -L$RT -lomp -Wl,-plugin,"$PLUGIN" \
	-Wl,-plugin-opt,time-trace="$PWD/nodir/t.json" -o p_never
grep -q "offlink: $PWD/nodir/t.json: cannot create output: No such file or directory" err ||
	{ cat err; fail "the plugin's unwritable trace"; }
[ ! -e p_never ] || fail "the plugin's link went on without its trace"
[ -z "$(ls tmp)" ] || fail "temporaries left: $(ls tmp)"
echo "time trace: ok"
