"""What an element read costs on the GPU: CuPy's ``a[3]`` (a 0-d view) beside xpshim's (NumPy's
scalar: a value, the element copied on the device in stream order), and the ways of making that
copy, in one process, interleaved; medians of 31 rounds of 2000 calls, with the quartiles.

    python benchmarks/element_read.py [--out benchmarks/results]

Writes ``element-read.json`` and ``element-read.md`` to ``--out`` (the latest run only). Needs a
GPU (``--stand-in`` runs it on the simulated GPU, to check the script, not to time anything).
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy  # noqa: E402

import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402


def per_call_us(f, rounds=31, inner=2000, sync=lambda: None):
    times = []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(inner):
            f()
        sync()
        times.append((time.perf_counter() - t0) / inner * 1e6)
    q = statistics.quantiles(times, n=4)
    return {"median": statistics.median(times), "q1": q[0], "q3": q[2]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--stand-in", action="store_true", help="the simulated GPU (checks the script only)")
    args = ap.parse_args()
    if args.stand_in:
        from xpshim import _simgpu

        _backend.install(_simgpu.module(), "stand-in")
    elif not _backend.gpu_status().usable:
        sys.exit(f"element_read.py needs a GPU: {_backend.gpu_status().reason} (--stand-in checks the script)")
    cp = _backend.xp
    h = numpy.random.default_rng(0).random(16)
    raw = cp.asarray(h)
    with xpshim.device("gpu"):
        x = xpshim.asarray(h)
    v = raw[3]
    cases = {
        "CuPy a[3] (a view)": lambda: raw[3],
        "CuPy a[3].copy() (a kernel)": lambda: raw[3].copy(),
        "CuPy empty + memcpy of a[3]": lambda: _memcpy(cp, raw[3]),
        "xpshim a[3] (a value)": lambda: x[3],
        "xpshim a[i, j] (a value)": lambda: x2[1, 2],
        "xpshim float(a[3])": lambda: float(x[3]),
        "CuPy float(a[3])": lambda: float(raw[3]),
    }
    with xpshim.device("gpu"):
        x2 = xpshim.asarray(h.reshape(4, 4))
    sync = cp.cuda.Device().synchronize if hasattr(cp, "cuda") and hasattr(cp.cuda, "Device") else (lambda: None)
    del v
    out = {}
    with xpshim.device("gpu"):  # (the GPU path: in auto mode a loop of reads moves the array to the host)
        for _ in range(2):  # (two interleaved passes; the second kept: warm caches, kernels loaded)
            for name, f in cases.items():
                if name.startswith("CuPy empty") and not hasattr(raw.data, "copy_from_device_async"):
                    continue
                out[name] = per_call_us(f, sync=sync)
    base = out["CuPy a[3] (a view)"]["median"]
    lines = ["| call | µs per call (median, quartiles) | over CuPy's a[3] |", "|---|---|---|"]
    for name, r in out.items():
        lines.append(f"| {name} | {r['median']:.2f} ({r['q1']:.2f}-{r['q3']:.2f}) | {r['median'] - base:+.2f} |")
    dev = "stand-in" if args.stand_in else _backend.gpu_status().reason
    md = f"# Element reads ({dev})\n\n" + "\n".join(lines) + "\n"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "element-read.json"), "w") as f:
        json.dump({"device": dev, "results": out}, f, indent=1)
    with open(os.path.join(args.out, "element-read.md"), "w") as f:
        f.write(md)
    print(md)


def _memcpy(cp, r):
    c = cp.empty((), r.dtype)
    c.data.copy_from_device_async(r.data, r.itemsize)
    return c


if __name__ == "__main__":
    main()
