"""Dask mode's cost on this machine's CPU: the mean of 1e7 float64 (and a*a + a) with NumPy,
in Dask mode on its default cluster (no scheduler given: distributed's LocalCluster inside this
process, its workers threads), and on Dask's threads scheduler (no distributed), one process.

    python benchmarks/dask_cpu.py --out DIR [--elements 10000000] [--repeats 15]

Rounds interleave the three, so a drift of the host's speed falls on all alike. Writes
``dask_cpu.json`` and ``dask_cpu.md`` to ``--out``.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import xpshim  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--elements", type=int, default=10**7)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args(argv)
    host = numpy.random.default_rng(0).random(args.elements)
    cases = {"mean": lambda a: float(a.mean()), "a*a + a, summed": lambda a: float((a * a + a).sum())}
    variants = {"NumPy": None, "Dask mode, default cluster": {}, "Dask mode, threads scheduler": {"scheduler": "threads"}}
    arrays, where = {}, {}
    for name, opts in variants.items():
        if opts is None:
            arrays[name], where[name] = host, "NumPy in this process"
        else:
            with xpshim.device("dask", **opts):
                arrays[name] = xpshim.asarray(host)  # sent once: each run computes on the cluster's copy
                where[name] = xpshim._dask.describe()
    times = {(c, v): [] for c in cases for v in variants}
    for _ in range(args.repeats + 1):  # the first round warms up and is dropped
        for (c, v), ts in times.items():
            with xpshim.device("dask", **variants[v]) if variants[v] is not None else xpshim.device("cpu"):
                t = time.perf_counter()
                cases[c](arrays[v])
                ts.append(time.perf_counter() - t)
    med = {f"{c} | {v}": statistics.median(ts[1:]) * 1e3 for (c, v), ts in times.items()}
    report = {"machine": {"python": platform.python_version(), "numpy": numpy.__version__, "cpus": os.cpu_count(),
                          "load": os.getloadavg(), "date": time.strftime("%Y-%m-%dT%H:%M:%S")},
              "elements": args.elements, "where": where, "median_ms": med}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "dask_cpu.json"), "w") as f:
        json.dump(report, f, indent=1)
    lines = [f"# Dask mode on the CPU, {args.elements:.0e} float64 elements", "", f"{report['machine']}", ""]
    lines += [f"- {v}: {w}" for v, w in where.items()] + ["", "| case | " + " | ".join(variants) + " |",
                                                          "|---|" + "---:|" * len(variants)]
    lines += [f"| {c} | " + " | ".join(f"{med[f'{c} | {v}']:.2f} ms" for v in variants) + " |" for c in cases]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "dask_cpu.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
