"""xpshim's own Python work per call on the GPU path, measured without a GPU.

    python benchmarks/percall_overhead.py [--reps 201] [--out benchmarks/results]

What xpshim adds to a small GPU call (unwrapping its arrays, routing, edge cases, wrapping
the result, placement checks, counting) is the same code whether CuPy or the simulated GPU
(``xpshim._simgpu``: NumPy behind CuPy's API) is the backend. So each call below is timed twice
on the simulated GPU, interleaved: through xpshim on xpshim arrays, and as the same CuPy-API call
on the raw simulated-GPU arrays. The difference is xpshim's overhead; on a real GPU the backend's
own cost is CuPy's, and the difference is the same Python work. Arrays of 16 float64, as in
``run.py --only percall``. Timed by the thread's CPU time. Reported per call: the median of the paired differences (µs) with its
interquartile range, and both medians. The bar (issue: per-call cost over CuPy): median ≤ 1 µs.

Writes ``percall-overhead.json`` and ``percall-overhead.md`` to ``--out`` (the latest run only).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy  # noqa: E402

import xpshim  # noqa: E402
from xpshim import _backend, _simgpu  # noqa: E402

# (label, xpshim's statement, the raw CuPy-API statement): ``np`` is xpshim, ``cp`` the backend
# module; ``a``, ``b``, ``c`` (16 float64) and ``m`` (16 bool) are xpshim arrays, ``ra``, ``rb``,
# ``rc``, ``rm`` the backend's arrays they wrap.
CALLS = [
    ("a + a", "a + a", "ra + ra"),
    ("np.sqrt(a)", "np.sqrt(a)", "cp.sqrt(ra)"),
    ("np.sum(a, axis=0)", "np.sum(a, axis=0)", "cp.sum(ra, axis=0)"),
    ("float(a.sum())", "float(a.sum())", "float(ra.sum())"),
    ("np.zeros(16)", "np.zeros(16)", "cp.zeros(16)"),
    ("a[3]", "a[3]", "ra[3]"),
    ("a.reshape(4, 4)", "a.reshape(4, 4)", "ra.reshape(4, 4)"),
    ("np.add(a, b, out=c)", "np.add(a, b, out=c)", "cp.add(ra, rb, out=rc)"),
    ("a * 2.0", "a * 2.0", "ra * 2.0"),
    ("np.where(m, a, b)", "np.where(m, a, b)", "cp.where(rm, ra, rb)"),
    ("a.T", "a.T", "ra.T"),
    ("np.concatenate([a, a])", "np.concatenate([a, a])", "cp.concatenate([ra, ra])"),
    ("np.mean(a)", "np.mean(a)", "cp.mean(ra)"),
    ("a[1:5]", "a[1:5]", "ra[1:5]"),
    ("a.copy()", "a.copy()", "ra.copy()"),
]


def namespace():
    """The arrays of the calls, on the simulated GPU (installed by the caller)."""
    cp = _backend.xp
    rng = numpy.random.default_rng(0)
    h = {k: rng.random(16) for k in "abc"}
    h["m"] = h["a"] > 0.5
    ns = {"np": xpshim, "cp": cp}
    for k, v in h.items():
        ns[k] = xpshim.asarray(v)
        ns["r" + k] = ns[k]._a  # (the backend's array the xpshim array wraps)
    return ns


def _inner_for(timer):
    """Calls per timed run: about 0.3 ms of work (short runs, many of them: a run that another
    process's burst slows is one outlying pair, which the median leaves out)."""
    n = 1
    while True:
        if timer.timeit(n) > 3e-4 or n >= 1 << 16:
            return n
        n *= 2


def time_pair(ns, mine, raw, reps):
    """Interleaved runs of xpshim's and the raw call: per-call microseconds for each."""
    # (the thread's CPU time: on a shared machine, time spent descheduled is not the call's)
    t_x, t_r = (timeit.Timer(s, timer=time.thread_time, globals=ns) for s in (mine, raw))
    inner = _inner_for(t_r)
    t_x.timeit(inner), t_r.timeit(inner)  # (warm: first calls build routes and caches)
    xs, rs = [], []
    for i in range(reps):
        # (the order alternates, so that neither side always runs second in a pair)
        if i % 2:
            rs.append(t_r.timeit(inner) / inner * 1e6)
            xs.append(t_x.timeit(inner) / inner * 1e6)
        else:
            xs.append(t_x.timeit(inner) / inner * 1e6)
            rs.append(t_r.timeit(inner) / inner * 1e6)
    return xs, rs


def _quartiles(v):
    q = statistics.quantiles(v, n=4)
    return q[0], q[2]


def measure(reps):
    rows = []
    for label, mine, raw in CALLS:
        ns = namespace()
        xs, rs = time_pair(ns, mine, raw, reps)
        d = [x - r for x, r in zip(xs, rs)]
        q1, q3 = _quartiles(d)
        rows.append({"call": label, "xpshim_us": statistics.median(xs), "raw_us": statistics.median(rs),
                     "overhead_us": statistics.median(d), "overhead_q1": q1, "overhead_q3": q3})
    return rows


def report(rows, reps):
    med = statistics.median(r["overhead_us"] for r in rows)
    first7 = statistics.median(r["overhead_us"] for r in rows[:7])
    lines = ["# xpshim's per-call overhead on the GPU path (simulated GPU)", "",
             f"`python benchmarks/percall_overhead.py --reps {reps}`; Python {platform.python_version()}, "
             f"NumPy {numpy.__version__}, {platform.machine()}; arrays of 16 float64.", "",
             "Overhead: xpshim's call on xpshim arrays minus the same CuPy-API call on the simulated GPU's "
             "own arrays, paired and interleaved (median of the pairs, interquartile range in brackets). "
             "The backend's cost cancels; what is left is xpshim's Python work, as on real CuPy.", "",
             "| call | overhead µs | xpshim µs | raw µs |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['call']}` | {r['overhead_us']:.2f} ({r['overhead_q1']:.2f} to {r['overhead_q3']:.2f}) "
                     f"| {r['xpshim_us']:.2f} | {r['raw_us']:.2f} |")
    lines += ["", f"Median overhead over all {len(rows)} calls: **{med:.2f} µs**; over the first 7 "
              f"(`run.py --only percall`'s): **{first7:.2f} µs** (bar: ≤ 1 µs median).", ""]
    return "\n".join(lines), {"median_us": med, "median_first7_us": first7}


def profile(top):
    """Each call under cProfile: xpshim's functions by their own time per call (where the
    overhead goes, and how many times each function runs per call)."""
    import cProfile
    import pstats

    lines = ["", "## Where the time goes (cProfile; own time per call, calls per call)", ""]
    for label, mine, _ in CALLS:
        ns = namespace()
        n = 5000
        code = compile(f"for _ in range({n}):\n    {mine}", "<percall>", "exec")
        exec(code, ns)  # (warm)
        prof = cProfile.Profile()
        prof.runctx(code, ns, ns)
        st = pstats.Stats(prof).stats
        rows = sorted(((v[2], v[1], k) for k, v in st.items()), reverse=True)[:top]
        lines.append(f"`{label}`: " + "; ".join(
            f"{k[2]} ({os.path.basename(k[0])}:{k[1]}) {tt / n * 1e6:.2f} us x{nc / n:g}" for tt, nc, k in rows))
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=201)
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    p.add_argument("--real", action="store_true",
                   help="on a GPU machine: real CuPy as the backend instead of the simulated GPU")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="also list the N functions with the most own time in each call (cProfile)")
    args = p.parse_args(argv)
    if args.real:
        if not _backend.gpu_status().usable:
            p.error("--real needs a usable GPU with CuPy")
        ctx = xpshim.device("gpu")
        undo = ctx.__exit__
        ctx.__enter__()
    else:
        undo = _backend.install(_simgpu.module(), _simgpu.describe())  # (every array on the GPU: device "gpu")
    try:
        t0 = time.perf_counter()
        rows = measure(args.reps)
        md, summary = report(rows, args.reps)
        if args.real:
            md = md.replace("(simulated GPU)", "(real CuPy)", 1)
        if args.profile:
            md += profile(args.profile)
    finally:
        undo(None, None, None) if args.real else undo()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "percall-overhead.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "percall-overhead.json"), "w") as f:
        json.dump({"reps": args.reps, "rows": rows, **summary, "seconds": time.perf_counter() - t0}, f, indent=1)
    print(md)


if __name__ == "__main__":
    main()
