"""Shared helpers for offlink's benchmark scripts: run commands side by side
with the LLVM tool doing the same work, take the median wall time and the
peak RSS of each whole process, and print ratios.  Absolute times drift on
shared machines, so only ratios within one run mean anything."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

LLVM19 = os.environ.get("LLVM19", "/usr/lib/llvm-19/bin")
LLVM22 = os.environ.get("LLVM22", "/usr/lib/llvm-22/bin")
REPEAT = int(os.environ.get("OFL_BENCH_REPEAT", "5"))


def run_once(cmd, cwd=None, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd once; returns (seconds, peak RSS in MiB; see peak_rss for
    why that one is too high for small commands)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"benchmark command failed ({p.returncode}): {' '.join(cmd)}\n{err}")
    return dt, ru.ru_maxrss / 1024.0


def peak_rss(cmd, cwd=None, env=None, stdout=subprocess.DEVNULL):
    """Peak RSS in MiB of one run of cmd, as /usr/bin/time reports it.  A
    child of this script cannot tell: the kernel keeps the high-water mark
    of the copy of Python it was forked from (tens of MiB) across exec."""
    with tempfile.NamedTemporaryFile("r") as f:
        run_once(["/usr/bin/time", "-f", "%M", "-o", f.name] + cmd, cwd=cwd, env=env, stdout=stdout)
        return int(f.read().split()[-1]) / 1024.0


def measure(cmd, repeat=REPEAT, setup=None, **kw):
    """Median time over `repeat` runs, after one warm-up run that gives the
    peak RSS."""
    if setup:
        setup()
    rss = peak_rss(cmd, **kw)
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        times.append(run_once(cmd, **kw)[0])
    return statistics.median(times), rss


class Table:
    def __init__(self, title):
        self.title = title
        self.rows = []

    def add(self, name, ours, ref, refname):
        (to, mo), (tr, mr) = ours, ref
        self.rows.append((name, to, mo, refname, tr, mr))

    def print(self):
        print(f"\n## {self.title}\n")
        print("| operation | offlink | peak MiB | reference | ref time | ref MiB | time ratio (ref/ours) | memory ratio (ours/ref) |")
        print("|---|---|---|---|---|---|---|---|")
        for name, to, mo, refname, tr, mr in self.rows:
            print(f"| {name} | {fmt_t(to)} | {mo:.0f} | {refname} | {fmt_t(tr)} | {mr:.0f} | "
                  f"{tr / to:.2f}x | {mo / mr:.2f} |")
        sys.stdout.flush()


def fmt_t(t):
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def real_code(path, size, offset=0):
    """size bytes of real machine code/data from an installed library."""
    with open(path, "rb") as f:
        f.seek(offset)
        data = f.read(size)
    while len(data) < size:
        data += data[: size - len(data)]
    return data


LIBS = ["/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1", "/usr/lib/x86_64-linux-gnu/libLLVM.so.19.1"]
MiB = 1 << 20


def make_inputs(work, count, size):
    """count files of size bytes of real code (alternating libLLVM 22 and
    19, different offsets) in directory work; returns their paths."""
    names = []
    for i in range(count):
        lib = LIBS[i % 2]
        off = (i // 2) * size % max(1, os.path.getsize(lib) - size)
        n = os.path.join(work, f"in{count}_{i}")
        with open(n, "wb") as f:
            f.write(real_code(lib, size, off))
        names.append(n)
    return names


def clear_entries(cache):
    """Removes a device-link cache's entries, keeping its memos (what a link
    learnt of files and of clang's driver, this machine's): a miss as every
    link after a machine's first meets it."""
    for r, _, ns in os.walk(cache):
        for n in ns:
            if len(n) == 64 and all(c in "0123456789abcdef" for c in n):
                os.unlink(os.path.join(r, n))
