"""Where the time of small host<->device copies goes (16 KiB to 4 MiB), side by side.

    python benchmarks/probe_small_copies.py [--reps 15] [--out DIR] [--tag NAME]

The copies benchmark (run.py, results/h200-v9.md) read xpshim 14 us slower than CuPy's own
copy for 256 KiB up from pageable memory, 23 us slower from pinned memory (where xpshim's
path below 1 MiB is CuPy's) and 13 us slower down. This probe times, per size, CuPy's
copies, the raw CUDA steps they are made of, xpshim's public calls, and xpshim's internal
paths (its pinned staging, its direct pinned copy, its bookkeeping alone), every call followed
by a synchronisation (what a user waits for); then a cProfile of xpshim's calls at 256 KiB.
Needs a CUDA GPU and CuPy. Writes JSON and Markdown.
"""

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import weakref

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import xpshim  # noqa: E402
from xpshim import _pinned, _transfer  # noqa: E402

SIZES = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]


def per_call(fn, sync, reps, inner):
    """Median (and min) microseconds of one call of ``fn`` followed by ``sync``."""
    for _ in range(inner):
        fn()
        sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
            sync()
        ts.append((time.perf_counter() - t0) / inner * 1e6)
    return {"median_us": statistics.median(ts), "min_us": min(ts)}


def cases(cp, nbytes):
    n = nbytes // 8
    h = numpy.random.default_rng(1).random(n)
    p = _pinned.empty_pinned(cp, (n,), numpy.float64, "C")
    p[...] = h
    c = cp.asarray(h)
    stream = cp.cuda.get_current_stream()
    rt = cp.cuda.runtime

    def raw_up_pinned():
        out = cp.empty(n)
        rt.memcpyAsync(out.data.ptr, p.ctypes.data, nbytes, 1, stream.ptr)
        return out

    def raw_down_pinned():
        mem = cp.cuda.alloc_pinned_memory(nbytes)
        rt.memcpyAsync(mem.ptr, c.data.ptr, nbytes, 2, stream.ptr)
        return mem

    def staged_up():
        return _pinned.to_device_runs(cp, [_pinned._bytes_of(h)], h.shape, h.dtype)

    def finalize_only():
        b = numpy.empty(1)
        weakref.finalize(b, int)
        return b

    x = xpshim.asarray(h)
    up = {
        "cupy asarray, pageable": lambda: cp.asarray(h),
        "cupy asarray, pinned": lambda: cp.asarray(p),
        "raw: empty + memcpyAsync from pinned": raw_up_pinned,
        "xpshim staged path (_pinned.to_device_runs), pageable": staged_up,
        "xpshim direct pinned path (_pinned.to_device)": lambda: _pinned.to_device(cp, p),
        "xpshim _transfer.to_device, pageable": lambda: _transfer.to_device(h, "probe"),
        "xpshim.asarray, pageable": lambda: xpshim.asarray(h),
        "xpshim.asarray, pinned": lambda: xpshim.asarray(p),
        "cupy empty alone": lambda: cp.empty(n),
        "xpshim bookkeeping alone (_transfer._record)": lambda: _transfer._record("host_to_device", nbytes, "probe"),
        "is_pinned check alone": lambda: _pinned.is_pinned(cp, h),
    }
    down = {
        "cupy get, pageable": lambda: c.get(),
        "cupy get(out=pinned)": lambda: c.get(out=p),
        "raw: alloc_pinned_memory + memcpyAsync": raw_down_pinned,
        "xpshim pinned path (_pinned.to_host)": lambda: _pinned.to_host(cp, c),
        "xpshim.asnumpy": lambda: xpshim.asnumpy(x),
        "alloc_pinned_memory alone": lambda: cp.cuda.alloc_pinned_memory(nbytes),
        "weakref.finalize alone": finalize_only,
    }
    return up, down, (h, p, x)


def profile(fn, calls=3000):
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    buf = io.StringIO()
    pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(14)
    return "\n".join(buf.getvalue().splitlines()[4:26])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="copies-small-probe")
    args = ap.parse_args(argv)
    import cupy as cp

    sync = cp.cuda.get_current_stream().synchronize
    res = {"sizes": {}, "profiles": {}}
    with xpshim.device("gpu"):
        for nbytes in SIZES:
            inner = 200 if nbytes <= 256 << 10 else 40
            up, down, keep = cases(cp, nbytes)
            row = {}
            for group, table in (("H2D", up), ("D2H", down)):
                for name, fn in table.items():
                    row[f"{group} {name}"] = per_call(fn, sync, args.reps, inner)
            res["sizes"][f"{nbytes >> 10} KiB"] = row
            print(f"{nbytes >> 10} KiB:", {k: round(v["median_us"], 1) for k, v in row.items()}, flush=True)
            if nbytes == 256 << 10:
                h, p, x = keep
                xpshim.reset_stats()
                res["profiles"]["xpshim.asarray(pageable 256 KiB)"] = profile(lambda: (xpshim.asarray(h), sync()))
                res["profiles"]["xpshim.asarray(pinned 256 KiB)"] = profile(lambda: (xpshim.asarray(p), sync()))
                res["profiles"]["xpshim.asnumpy(256 KiB)"] = profile(lambda: xpshim.asnumpy(x))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.tag}.json"), "w") as f:
        json.dump(res, f, indent=1)
    names = list(next(iter(res["sizes"].values())))
    lines = [f"# {args.tag}: small copies, microseconds per call (median of {args.reps}, each call synchronised)", "",
             "| case | " + " | ".join(res["sizes"]) + " |", "|---|" + "---:|" * len(res["sizes"])]
    for nm in names:
        lines.append(f"| {nm} | " + " | ".join(f"{r[nm]['median_us']:.1f}" for r in res["sizes"].values()) + " |")
    for k, v in res["profiles"].items():
        lines += ["", f"## cProfile: {k}, 3000 calls", "", "```", v, "```"]
    with open(os.path.join(args.out, f"{args.tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
