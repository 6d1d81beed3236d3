"""Does a run's time depend on the variant that ran just before it? Side by side, one process.

    python benchmarks/probe_order.py [--only power_iteration --only lu_by_hand] [--rounds 24]

The workload suite interleaves its variants by turning their order each round: a turned order
keeps every variant's predecessor the same (xpshim auto always after CuPy as np, NumPy always
after xpshim gpu). Workloads v4 and loops v16 read power_iteration in auto mode at 0.74x NumPy
there, against 0.93-0.94x in runs beside NumPy alone. This probe runs the four variants of a
workload in a seeded random order each round, records every run with its predecessor, and does
so twice: as the suite does, and with ``gc.collect()`` before each run (garbage one variant
leaves is then not collected inside the next one's time). Needs a GPU for the GPU variants
(without one it runs NumPy and xpshim auto only). Writes JSON and Markdown.
"""

import argparse
import gc
import json
import os
import random
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=None)
    ap.add_argument("--rounds", type=int, default=24)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="order-probe")
    args = ap.parse_args(argv)
    import run as runner

    wl = runner.workloads_runner()
    vs = [v for v in wl.variants() if not v.skip]
    res = {"machine": wl.machine(False), "workloads": {}}
    lines = [f"# {args.tag}: median ms of each variant by the variant that ran before it "
             f"({args.rounds} rounds, random order each round)", ""]
    for name in args.only or ["power_iteration", "lu_by_hand"]:
        mod = wl.workloads.load(name)
        n = mod.SIZES["full"]
        for v in vs:  # warm-up, from the timing's own line below (auto mode keys by calling line)
            wl.once(mod, n, v)
            wl.once(mod, n, v)
        res["workloads"][name] = {}
        for collect in (False, True):
            rng = random.Random(7)
            runs, prev = [], None
            for _ in range(args.rounds):
                for v in rng.sample(vs, len(vs)):
                    if collect:
                        gc.collect()
                    t = wl.once(mod, n, v)
                    runs.append([v.name, prev, t])
                    prev = v.name
            by = defaultdict(list)
            for v, p, t in runs:
                by[(v, p)].append(t)
            label = "gc.collect() before each run" if collect else "as the suite runs"
            res["workloads"][name][label] = runs
            names = [v.name for v in vs]
            lines += [f"## {name}, {label}", "", "| variant | overall | " + " | ".join(f"after {p}" for p in names) + " |",
                      "|---|---:|" + "---:|" * len(names)]
            for v in names:
                allv = [t for vv, _, t in runs if vv == v]
                cells = [f"{statistics.median(by[(v, p)]) * 1e3:.2f} ({len(by[(v, p)])})" if by[(v, p)] else "-"
                         for p in names]
                lines.append(f"| {v} | {statistics.median(allv) * 1e3:.2f} | " + " | ".join(cells) + " |")
            base = statistics.median([t for vv, _, t in runs if vv == "numpy"])
            auto = statistics.median([t for vv, _, t in runs if vv == "xpshim-auto"])
            lines += ["", f"xpshim auto over NumPy: {base / auto:.3f}x", ""]
            print("\n".join(lines[-len(names) - 6:]), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.tag}.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(args.out, f"{args.tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
