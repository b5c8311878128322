#!/usr/bin/env bash
# linkwrap/'s layers (docs/design.md, "Layers of the link pipeline"): base,
# cache, plan, run, each a folder.  From the symbols each object of
# libofflink_linkwrap.a defines and uses: no file calls a file of a higher
# layer, and no files call each other in a circle (the plan was once
# twelve files that all called each other).  The folders' include paths
# keep a lower layer from seeing a higher one's headers; this checks the
# calls themselves.
source "$OFL_SRC/tests/lib.sh"
need nm python3
LIB=$OFL_BUILD/lib/libofflink_linkwrap.a
[ -f "$LIB" ] || fail "$LIB missing"
python3 - "$OFL_SRC/linkwrap" "$LIB" <<'PY' || fail "linkwrap's layers"
import os, subprocess, sys
src, lib = sys.argv[1], sys.argv[2]
order = ["base", "cache", "plan", "run"]
layer = {}
for i, d in enumerate(order):
    for f in os.listdir(os.path.join(src, d)):
        if f.endswith(".c"):
            if f in layer:
                sys.exit(f"{f} is in two layers")
            layer[f] = i
out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
defs, uses = {}, {}
for line in out.splitlines():
    if not line.startswith(lib + ":"):
        continue
    member, _, rest = line[len(lib) + 1:].partition(":")
    name = member[:-2] if member.endswith(".o") else member
    parts = rest.split()
    if name not in layer:
        sys.exit(f"{member}: no source in {src}")
    if len(parts) == 3 and parts[1] in "TDBR":
        defs[parts[2]] = name
    elif len(parts) == 2 and parts[0] == "U":
        uses.setdefault(name, set()).add(parts[1])
edges = {f: sorted({defs[s] for s in syms if s in defs and defs[s] != f})
         for f, syms in uses.items()}
bad = [f"{f} ({order[layer[f]]}) calls {t} ({order[layer[t]]})"
       for f, ts in edges.items() for t in ts if layer[t] > layer[f]]
# circles: a depth-first search over the calls
state, stack, circles = {}, [], []
def visit(f):
    state[f] = 1
    stack.append(f)
    for t in edges.get(f, []):
        if state.get(t) == 1:
            circles.append(" -> ".join(stack[stack.index(t):] + [t]))
        elif t not in state:
            visit(t)
    stack.pop()
    state[f] = 2
sys.setrecursionlimit(10000)
for f in sorted(edges):
    if f not in state:
        visit(f)
for line in bad + [f"circle: {c}" for c in circles]:
    print(line, file=sys.stderr)
sys.exit(1 if bad or circles else 0)
PY
echo "linkwrap: $(ls "$OFL_SRC"/linkwrap/*/*.c | wc -l) files in 4 layers, no upward call, no circle"
