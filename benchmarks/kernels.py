"""The gap table's GPU implementations against NumPy and against the host fallback.

    python benchmarks/kernels.py [--n 1000000] [--quick] [--out DIR] [--tag NAME]

For each family of xpshim/_gaps (Numba kernels, CuPy compositions, CuPy steps, Generator
methods), one representative call at ``--n`` elements, side by side in one run:

* xpshim on the GPU (data on the device, the result left there);
* NumPy on the 16-core host (data on the host);
* the host fallback it replaces: copy to the host, NumPy, copy the result back.

Medians of repeats; writes ``<tag>.json`` and ``<tag>.md``. Needs a GPU for the GPU and
fallback columns (``--stand-in`` runs them on the test stand-in, which times nothing real).
"""

import argparse
import math
import os
import sys

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import run as runner  # noqa: E402  (timing, progress bar, machine description, writing)
import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402


def cases(n):
    """label -> (family, make(rng) -> host args, call(module, *args))."""
    side = int(math.isqrt(n))
    return {
        "subtract.accumulate, (n,) one lane": ("numba kernel", lambda r: (r.random(n),),
                                               lambda m, a: m.subtract.accumulate(a)),
        "subtract.accumulate, (k, k) axis 0": ("numba kernel", lambda r: (r.random((side, side)),),
                                               lambda m, a: m.subtract.accumulate(a, axis=0)),
        "divide.reduceat, 1000 segments": ("numba kernel", lambda r: (r.random(n) + 1, numpy.arange(0, n, n // 1000)),
                                           lambda m, a, i: m.divide.reduceat(a, i)),
        "subtract.at, n updates": ("numba kernel", lambda r: (r.random(n // 10), r.integers(0, n // 10, n)),
                                   lambda m, a, i: m.subtract.at(a, i, 1.0)),
        "maximum.accumulate": ("cupy composition", lambda r: (r.random(n),), lambda m, a: m.maximum.accumulate(a)),
        "logical_xor.reduce, (k, k) axis 1": ("cupy composition", lambda r: (r.random((side, side)) < 0.5,),
                                              lambda m, a: m.logical_xor.reduce(a, axis=1)),
        "gcd.at, n updates": ("cupy steps", lambda r: (r.integers(1, 1000, n // 10), r.integers(0, n // 10, n)),
                              lambda m, a, i: m.gcd.at(a, i, 6)),
        "nanquantile, (k, k) axis 0": ("cupy composition", lambda r: (_with_nans(r.random((side, side))),),
                                       lambda m, a: m.nanquantile(a, [0.1, 0.5, 0.9], axis=0)),
        "sum(where=)": ("cupy composition", lambda r: (r.random(n), r.random(n) < 0.5),
                        lambda m, a, w: m.sum(a, where=w)),
        "insert, 1000 positions": ("numpy code on cupy", lambda r: (r.random(n), r.integers(0, n, 1000)),
                                   lambda m, a, i: m.insert(a, i, 0.0)),
        "Generator.normal": ("generator", lambda r: (), None),
        "Generator.choice(p=)": ("generator", lambda r: (), None),
    }


def _with_nans(x):
    x.flat[::7] = numpy.nan
    return x


def _generator_call(label, gen, n):
    if label == "Generator.normal":
        return lambda: gen.normal(1.0, 2.0, size=n)
    return lambda: gen.choice(100, size=n, p=numpy.full(100, 0.01))


def measure(n, reps, stand_in):
    xp_ok = _backend.gpu_status().usable or stand_in
    rng = numpy.random.default_rng(0)
    out = {}
    items = list(cases(n).items())
    for label, (family, make, call) in runner.progress(items, "kernels"):
        row = {"family": family}
        if call is None:  # Generator methods: NumPy's Generator vs xpshim's
            row["numpy"] = runner.timeit(_generator_call(label, numpy.random.default_rng(1), n), reps)["median"]
            if xp_ok:
                with xpshim.device("gpu"):
                    row["xpshim_gpu"] = runner.timeit(_generator_call(label, xpshim.random.default_rng(1), n), reps)["median"]
            out[label] = row
            continue
        host = make(rng)
        mutates = ".at" in label
        row["numpy"] = runner.timeit(lambda: call(numpy, *[h.copy() if mutates and j == 0 else h
                                                             for j, h in enumerate(host)]), reps)["median"]
        if xp_ok:
            with xpshim.device("gpu"):
                dev = [xpshim.asarray(h) for h in host]
                row["xpshim_gpu"] = runner.timeit(lambda: call(xpshim, *dev), reps)["median"]
                if mutates:  # (a copy per call on both sides, so the same work is timed)
                    row["xpshim_gpu"] = runner.timeit(lambda: call(xpshim, dev[0].copy(), *dev[1:]), reps)["median"]

                def fallback():
                    hs = [xpshim.asnumpy(d) for d in dev]
                    r = call(numpy, *hs)
                    return xpshim.asarray(hs[0] if r is None else r)
                row["host_fallback"] = runner.timeit(fallback, reps)["median"]
        out[label] = row
    return out


def markdown(res):
    lines = [f"# Gap implementations at n = {res['n']:,}", "", f"machine: {res['machine']}", "",
             "| call | family | NumPy ms | xpshim GPU ms | host fallback ms | GPU vs NumPy | GPU vs fallback |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for label, r in res["rows"].items():
        g, h, f = r.get("xpshim_gpu"), r.get("numpy"), r.get("host_fallback")
        ms = lambda v: f"{v * 1e3:.3g}" if v is not None else "-"  # noqa: E731
        ratio = lambda a, b: f"{a / b:.3g}x" if a and b else "-"  # noqa: E731
        lines.append(f"| {label} | {r['family']} | {ms(h)} | {ms(g)} | {ms(f)} | {ratio(h, g)} | {ratio(f, g)} |")
    lines += ["", "Ratios above 1: the GPU version is faster. The fallback column is what the call "
              "would cost without the gap implementation (copy to the host, NumPy, copy back)."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="n = 10000, 3 repeats")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--stand-in", action="store_true", help="GPU columns on the NumPy-backed test stand-in")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="kernels")
    args = ap.parse_args(argv)
    if args.stand_in:
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
        import fakecupy

        _backend.install(fakecupy, "NumPy-backed stand-in (timings say nothing of a GPU)")
    n, reps = (10_000, 3) if args.quick else (args.n, args.reps)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = measure(n, reps, args.stand_in)
    res = {"n": n, "machine": runner.machine(), "rows": rows}
    md = markdown(res)
    runner.write(res, md, args.out, args.tag)
    print(md)
    return res


if __name__ == "__main__":
    main()
