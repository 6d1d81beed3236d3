"""The per-element cost of data auto mode moved to the host: a loop of ``a[i]`` reads and
``a[i] = v`` writes on an array a loop moved there, against the same loop on a NumPy array,
in microseconds per access. Runs on the NumPy-backed CuPy stand-in (tests/support/fakecupy.py) in
auto mode: the move and the accesses after it are xpshim's own code on either backend.

    python benchmarks/access_cost.py [--out DIR] [--tag NAME]

Writes <out>/<tag>.json and <tag>.md (default benchmarks/results/access-cost.*).
"""

import argparse
import json
import os
import platform
import sys
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))

import fakecupy  # noqa: E402
import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402

N = 100_000
ACCESSES = 20_000


def _best(f, reps=7):
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best / ACCESSES * 1e6


def cases(a, row):
    """The loops timed, on arrays ``a`` (1-d) and ``row`` (2-d): NumPy arrays, or xpshim arrays
    moved to the host."""

    def reads():
        for i in range(ACCESSES):
            a[i]

    def writes():
        for i in range(ACCESSES):
            a[i] = 1.5

    def reads_2d():
        for i in range(ACCESSES):
            row[i % 100, i % 1000]

    def read_modify_write():
        for i in range(ACCESSES):
            a[i] = a[i] + 1.0

    return {"a[i]": reads, "a[i] = v": writes, "a[i, j]": reads_2d, "a[i] = a[i] + v": read_modify_write}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="access-cost")
    args = ap.parse_args()

    ref = cases(numpy.arange(float(N)), numpy.arange(float(N)).reshape(100, -1))
    _backend.install(fakecupy, "NumPy-backed stand-in", placement=True)
    x, y = xpshim.arange(float(N)), xpshim.ones((100, N // 100))
    for i in range(64):  # a loop's element reads: auto mode moves the data to the host
        x[i], y[i % 100, i]
    assert x._h is not None and y._h is not None, "the loop did not move the arrays to the host"
    got = cases(x, y)
    rows = []
    for name in ref:
        t_np, t_x = _best(ref[name]), _best(got[name])
        rows.append({"loop": name, "numpy_us": round(t_np, 4), "xpshim_moved_us": round(t_x, 4),
                     "ratio": round(t_np / t_x, 3)})
    meta = {"python": sys.version.split()[0], "numpy": numpy.__version__, "machine": platform.processor() or
            platform.machine(), "elements": N, "accesses": ACCESSES, "backend": "stand-in, auto mode"}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.tag}.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=2)
    lines = [f"# Per-access cost of data moved to the host ({meta['backend']})", "",
             f"Python {meta['python']}, NumPy {meta['numpy']}; best of 7 runs of {ACCESSES} accesses.", "",
             "| loop | NumPy µs | xpshim (moved) µs | NumPy's speed × |", "|---|---:|---:|---:|"]
    lines += [f"| `{r['loop']}` | {r['numpy_us']} | {r['xpshim_moved_us']} | {r['ratio']} |" for r in rows]
    with open(os.path.join(args.out, f"{args.tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
