#!/usr/bin/env python3
"""scripts/gpu-check report RESULTS: each route's runs against LLVM's link
and the expected output.  Exit 0 when no route does worse than LLVM's link
on any program, 1 when one does, 2 when RESULTS is not a results folder."""
import os
import sys

ROUTES = ["llvm", "ld.offlink", "personality", "plugin"]


def read(path, default=None):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return default


def outcome(results, name, route, expected):
    """(verdict, what it printed): pass, link-failed, timeout, not-run,
    skipped (no GPU of its kind), exit N, wrong-output or missing."""
    base = os.path.join(results, "out", f"{name}.{route}")
    rc = read(base + ".rc")
    if rc is None:
        return "missing", None
    rc = rc.decode().strip()
    out = read(base + ".out", b"")
    if rc in ("link-failed", "timeout", "not-run", "skipped"):
        return rc, None
    if rc != "0":
        return f"exit {rc}", out
    return ("pass" if out == expected else "wrong-output"), out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gpu-check report RESULTS")
    results = sys.argv[1]
    manifest = read(os.path.join(results, "manifest.tsv"))
    if manifest is None or not os.path.isdir(os.path.join(results, "out")):
        print(f"gpu-check: error: {results}: no manifest.tsv and out/ (not a results folder)",
              file=sys.stderr)
        return 2
    programs = []
    for line in manifest.decode().splitlines():
        name = line.split("\t")[0]
        if name not in programs:
            programs.append(name)
    print(f"gpu-check report: {results}")
    for f in ("info.txt", "machine.txt"):
        for line in (read(os.path.join(results, f), b"").decode().splitlines()):
            print(f"  {line}")
    shim = read(os.path.join(results, "shim.txt"), b"none\n").decode().splitlines()
    if shim != ["none"]:
        print(f"shim: {len(shim)} OpenMP programs ran with their cubin headers rewritten to the "
              "old form, every route alike (LLVM 19's offload runtime reads no other; "
              "docs/gpu-check.md)")
        refused = 0
        for s in shim:
            prog = s.split(":")[0]
            err = read(os.path.join(results, "out", prog + ".unshimmed.err"), b"")
            rc = read(os.path.join(results, "out", prog + ".unshimmed.rc"), b"").strip()
            refused += rc != b"0" and b"No images found compatible" in err
        print(f"  unshimmed, as linked: {refused} of {len(shim)} stopped with 'No images found "
              "compatible with the installed hardware'")
    width = max([len(p) for p in programs] + [8])
    print(f"\n{'program':<{width}}  " + "  ".join(f"{r:<14}" for r in ROUTES))
    passed = {r: 0 for r in ROUTES}
    worse = {r: [] for r in ROUTES}
    differs = {r: [] for r in ROUTES}
    for name in programs:
        expected = read(os.path.join(results, "expected", name + ".txt"), b"")
        got = {r: outcome(results, name, r, expected) for r in ROUTES}
        cells = []
        for r in ROUTES:
            verdict, out = got[r]
            passed[r] += verdict == "pass"
            note = ""
            if r != "llvm" and got["llvm"][0] == "pass" and verdict != "pass":
                worse[r].append(name)
                note = " !"
            if r != "llvm" and out is not None and got["llvm"][1] is not None and \
                    out != got["llvm"][1]:
                differs[r].append(name)
            cells.append(f"{verdict + note:<14}")
        print(f"{name:<{width}}  " + "  ".join(cells))
    print()
    bad = False
    for r in ROUTES:
        line = f"{r}: {passed[r]} of {len(programs)} pass"
        if r != "llvm":
            line += f"; worse than LLVM's link: {len(worse[r])}"
            if worse[r]:
                line += " (" + ", ".join(worse[r]) + ")"
                bad = True
            if differs[r]:
                line += "; output differs from LLVM's: " + ", ".join(differs[r])
        print(line)
    # nothing of LLVM's ran: no GPU, no driver; no route was judged
    unjudged = not passed["llvm"]
    if unjudged:
        print("verdict: LLVM's link passed no program (no GPU or driver?): nothing judged")
    else:
        print("verdict: " + ("a route does worse than LLVM's link (marked !)" if bad
                             else "every route does what LLVM's link does"))
    return 1 if bad or unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
