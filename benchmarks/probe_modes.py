"""Why do the shortest loop workloads run in two speeds? Side by side, one process.

    python benchmarks/probe_modes.py [--only power_iteration] [--rounds 40]

The suite's medians of power_iteration, lu_by_hand and gauss_seidel jump between a fast and a
slow mode (7-8 ms or 12-15 ms for power_iteration, in NumPy and in xpshim auto alike), and a
5-25-run median lands on either. This probe runs, in a seeded random order each round:

* NumPy; xpshim auto; NumPy inside ``xpshim.device("auto")`` (does the context itself cost?);
* each run with the CPU it started and ended on (``/proc/self/stat``) and the run before it;

once as the suite runs, and once with the process bound to one CPU (``os.sched_setaffinity``):
if the slow mode is the process moving between CPUs, the bound pass has none. Reports medians,
minima and the share of slow runs (over 1.3x the variant's minimum). Writes JSON and Markdown.
"""

import argparse
import contextlib
import json
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def cpu():
    try:
        with open("/proc/self/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=None)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="modes-probe")
    args = ap.parse_args(argv)
    import run as runner

    import xpshim

    wl = runner.workloads_runner()
    base = {v.name: v for v in wl.variants() if v.name in ("numpy", "xpshim-auto")}
    vs = [base["numpy"], base["xpshim-auto"],
          wl.Variant("numpy-in-auto-context", base["numpy"].module, lambda: xpshim.device("auto"))]
    res = {"machine": wl.machine(False), "workloads": {}}
    lines = [f"# {args.tag}: ms per run, {args.rounds} rounds, random order each round", ""]
    every = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    for name in args.only or ["power_iteration", "lu_by_hand", "gauss_seidel"]:
        mod = wl.workloads.load(name)
        n = mod.SIZES["full"]
        res["workloads"][name] = {}
        for bound in (False, True):
            if bound and every is None:
                continue
            here = cpu()
            with (contextlib.nullcontext() if not bound else contextlib.ExitStack()) as stack:
                if bound:
                    os.sched_setaffinity(0, {here})
                    stack.callback(os.sched_setaffinity, 0, every)
                for v in vs:
                    wl.once(mod, n, v)
                    wl.once(mod, n, v)
                rng = random.Random(11)
                runs, prev = [], None
                for _ in range(args.rounds):
                    for v in rng.sample(vs, len(vs)):
                        c0 = cpu()
                        t = wl.once(mod, n, v)
                        runs.append({"variant": v.name, "after": prev, "s": t, "cpu": [c0, cpu()]})
                        prev = v.name
            label = f"bound to CPU {here}" if bound else "as the suite runs"
            res["workloads"][name][label] = runs
            lines += [f"## {name}, {label}", "", "| variant | median ms | min ms | slow runs (> 1.3x min) | "
                      "runs that moved CPU | median ms of those |", "|---|---:|---:|---:|---:|---:|"]
            for v in vs:
                ts = [r["s"] for r in runs if r["variant"] == v.name]
                mv = [r["s"] for r in runs if r["variant"] == v.name and r["cpu"][0] != r["cpu"][1]]
                lo = min(ts)
                lines.append(f"| {v.name} | {statistics.median(ts) * 1e3:.2f} | {lo * 1e3:.2f} | "
                             f"{sum(t > 1.3 * lo for t in ts)} of {len(ts)} | {len(mv)} | "
                             f"{statistics.median(mv) * 1e3 if mv else float('nan'):.2f} |")
            med = {v.name: statistics.median([r["s"] for r in runs if r["variant"] == v.name]) for v in vs}
            lines += ["", f"xpshim auto over NumPy: {med['numpy'] / med['xpshim-auto']:.3f}x; "
                      f"NumPy in the auto context over NumPy: {med['numpy'] / med['numpy-in-auto-context']:.3f}x", ""]
            print("\n".join(lines[-len(vs) - 6:]), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.tag}.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(args.out, f"{args.tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
