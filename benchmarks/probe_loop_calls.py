"""Where does auto mode lose time on a loop workload? Side by side, one process.

    python benchmarks/probe_loop_calls.py [--only rk4_oscillators --only lu_by_hand] [--rounds 20]

For each workload:
- the xpshim names one run calls, and how often;
- NumPy against xpshim auto alone, alternating, ``--rounds`` runs each (no GPU variant between
  them, whose seconds of launching would change the host's state), and both again with the
  garbage collector off during the run;
- the same with each xpshim function the workload calls swapped for NumPy's own, in an
  otherwise-xpshim namespace: if that closes the gap, the wrappers are the cost; if not,
  something else is (the arrays they return, the collector, the host).
And the cost of one call of each such function: NumPy's, and xpshim's in auto mode, on the
arguments the workload passes (timeit, best of 7). Writes JSON and Markdown.
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time
import timeit
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))


def xpshim_calls(mod, n, xpshim):
    """{name: calls} of the xpshim names one run of ``mod`` calls (through a counting namespace)."""
    counts = {}

    def counted(k, f):
        def g(*a, **kw):
            counts[k] = counts.get(k, 0) + 1
            return f(*a, **kw)
        return g

    class Counting:
        def __init__(self, m, prefix=""):
            self._m, self._p = m, prefix

        def __getattr__(self, k):
            f = getattr(self._m, k)
            if isinstance(f, types.ModuleType):  # np.linalg.norm
                return Counting(f, self._p + k + ".")
            return counted(self._p + k, f) if callable(f) and not isinstance(f, type) else f

    with xpshim.device("auto"):
        mod.run(Counting(xpshim), n)
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def hybrid(xpshim, numpy, names):
    """xpshim with ``names`` (``"linalg.norm"`` too) replaced by NumPy's own functions."""
    ns = types.SimpleNamespace(**{k: getattr(xpshim, k) for k in dir(xpshim) if not k.startswith("__")})
    for k in names:
        head, _, rest = k.partition(".")
        if rest:
            sub = getattr(ns, head)
            sub = types.SimpleNamespace(**{a: getattr(sub, a) for a in dir(sub) if not a.startswith("__")})
            setattr(sub, rest, getattr(getattr(numpy, head), rest))
            setattr(ns, head, sub)
        else:
            setattr(ns, k, getattr(numpy, k))
    return ns


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=None)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="loop-calls-probe")
    args = ap.parse_args(argv)
    import numpy

    import run as runner
    import workloads
    import xpshim
    from workloads import _data as data

    wl = runner.workloads_runner()
    gc.collect()
    gc.freeze()  # (as the suite does)
    res = {"machine": wl.machine(False), "python": sys.version.split()[0], "numpy": numpy.__version__,
           "workloads": {}}
    lines = [f"# {args.tag}: NumPy against xpshim auto alone, {args.rounds} alternating runs each", "",
             f"Python {res['python']}, NumPy {res['numpy']}, {res['machine']}", ""]
    warnings.simplefilter("ignore")
    for name in args.only or ["rk4_oscillators"]:
        mod = workloads.load(name)
        n = mod.SIZES["full"]
        calls = xpshim_calls(mod, n, xpshim)
        ns = hybrid(xpshim, numpy, [k for k in calls if k != "asarray"])
        mods = {"numpy": (numpy, True), "xpshim": (xpshim, True), "xpshim, its functions NumPy's": (ns, True),
                "numpy, collector off": (numpy, False), "xpshim, collector off": (xpshim, False)}
        times = {k: [] for k in mods}
        for k, (m, _) in mods.items():  # warm-up
            with xpshim.device("auto"):
                mod.run(m, n)
        for _ in range(args.rounds):
            for k, (m, collector) in mods.items():
                data.renew()
                gc.collect()
                if not collector:
                    gc.disable()
                with xpshim.device("auto"):
                    t0 = time.perf_counter()
                    mod.run(m, n)
                    times[k].append(time.perf_counter() - t0)
                gc.enable()
        med = {k: statistics.median(v) for k, v in times.items()}
        entry = {"n": n, "calls": calls, "times": times, "median": med}
        lines += [f"## {name} (n={n})", "", "| namespace | median ms | min | max | NumPy / it |", "|---|---:|---:|---:|---:|"]
        for k, v in times.items():
            lines.append(f"| {k} | {med[k] * 1e3:.2f} | {min(v) * 1e3:.2f} | {max(v) * 1e3:.2f} | {med['numpy'] / med[k]:.3f} |")
        lines += ["", "| xpshim name | calls in one run |", "|---|---:|"]
        lines += [f"| {k} | {c} |" for k, c in calls.items()]
        lines.append("")
        print("\n".join(lines[-(len(calls) + len(times) + 8):]), flush=True)
        res["workloads"][name] = entry
    # one call, on arguments shaped as the loops pass them
    v = numpy.random.default_rng(0).uniform(size=5)
    w = v * 2
    a = numpy.random.default_rng(1).uniform(size=(60, 60))
    cases = {
        "concatenate((v, w))": lambda m: m.concatenate((v, w)),
        "dot(a[3], a[:, 3])": lambda m: m.dot(a[3], a[:, 3]),
        "linalg.norm(v)": lambda m: m.linalg.norm(v),
        "sqrt(a[3, 3])": lambda m: m.sqrt(a[3, 3]),
        "abs(v)": lambda m: m.abs(v),
        "zeros(5)": lambda m: m.zeros(5),
    }
    lines += ["## one call (ns, best of 7)", "", "| call | NumPy | xpshim auto | xpshim - NumPy |", "|---|---:|---:|---:|"]
    res["calls"] = {}
    with xpshim.device("auto"):
        for label, f in cases.items():
            best = {}
            for k, m in (("numpy", numpy), ("xpshim", xpshim)):
                nrep = 20000
                best[k] = min(timeit.repeat(lambda: f(m), number=nrep, repeat=7)) / nrep * 1e9
            res["calls"][label] = best
            lines.append(f"| {label} | {best['numpy']:.0f} | {best['xpshim']:.0f} | {best['xpshim'] - best['numpy']:.0f} |")
    print("\n".join(lines[-len(cases) - 3:]), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.tag}.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(args.out, f"{args.tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
