"""The workload suite side by side in one process: NumPy, CuPy imported as np, xpshim on its
automatic device choice and xpshim forced to the GPU, on real NumPy programs
(benchmarks/workloads/, one a module). Every result is checked against NumPy's, then timed:
a warm-up, then the median of repeats (with min and max), the GPU synchronised before each
clock read, and before each run, off the clock, the garbage of earlier runs collected and the
inputs given new memory (as data read anew). The
repeats interleave: each round runs every variant once, so that a drift of the
host's speed falls on all variants alike.

    python benchmarks/run_workloads.py                 # full sizes
    python benchmarks/run_workloads.py --quick         # small sizes, 5 repeats: a smoke run (CPU-only is fine)
    python benchmarks/run_workloads.py --only kmeans --only lu_by_hand
    python benchmarks/run.py --only workloads      # the same, as a section of the main runner

Writes <out>/<tag>.json, <tag>.md and <tag>-speedups.png (matplotlib) to --out
(default benchmarks/results/).
"""

import argparse
import contextlib
import datetime
import gc
import io
import math
import os
import random
import statistics
import sys
import time
import warnings

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import run as runner  # noqa: E402  (timing, progress bar, machine description)
import workloads  # noqa: E402  (the package of workload modules)
from workloads import _data as data  # noqa: E402
import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402

VARIANTS = ("numpy", "cupy", "xpshim-auto", "xpshim-gpu")
LABELS = {"numpy": "NumPy", "cupy": "CuPy as np", "xpshim-auto": "xpshim auto", "xpshim-gpu": "xpshim gpu"}


class Variant:
    def __init__(self, name, module, context, skip=None):
        self.name, self.module, self.context, self.skip = name, module, context, skip


def variants(stand_in=False):
    """The four variants; those that need a GPU carry the reason they are skipped where there is none."""
    if stand_in:  # the GPU logic on the NumPy-backed stand-in: for checking this runner, not for timings
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "support"))
        import fakecupy

        _backend.install(fakecupy, "NumPy-backed stand-in (timings say nothing of a GPU)")
        gpu_module, skip = fakecupy, None
    else:
        st = _backend.gpu_status()
        gpu_module = _backend.xp if st.usable else None
        skip = None if st.usable else f"no usable GPU: {st.reason}"
    return [
        Variant("numpy", numpy, contextlib.nullcontext),
        Variant("cupy", gpu_module, contextlib.nullcontext, skip),
        Variant("xpshim-auto", xpshim, lambda: xpshim.device("auto")),
        Variant("xpshim-gpu", xpshim, lambda: xpshim.device("gpu"), skip),
    ]


def _live_cupy():
    return getattr(_backend.xp, "__name__", "") == "cupy"


def sync():
    if _live_cupy():
        _backend.xp.cuda.Device().synchronize()


def free_gpu():
    if _live_cupy():
        _backend.xp.get_default_memory_pool().free_all_blocks()


def one_line(exc):
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0] if msg else ''}"[:300]


def xpshim_counts():
    st = xpshim.stats()
    t = st["transfers"]
    return ({d: t[d]["count"] for d in ("host_to_device", "device_to_host", "values_read")},
            {name: f["count"] for name, f in st["fallbacks"].items()})


def repeats(first, quick, reps):
    """How many timed runs, from the seconds of one run: given by --reps, else about 5 s worth at
    full size (3 to 40: a host whose speed has two modes needs many runs for a steady median),
    5 when quick."""
    if reps:
        return reps
    if quick:
        return 1 if first > 2.0 else 5
    return max(3, min(40, int(5.0 / max(first, 1e-9))))


def check(mod, n, variant, want):
    """The checking run of one variant of one workload (also its warm-up): the entry so far,
    the result on the host, and the seconds it took (None where it raised)."""
    entry = {}
    clock = time.perf_counter
    with variant.context(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # host fallbacks are counted below, not printed
        try:
            xpshim.reset_stats()
            gc.collect()  # (what earlier runs left is not collected on this one's clock)
            sync()
            t0 = clock()
            result = mod.run(variant.module, n)
            sync()
            first = clock() - t0
            if variant.module is xpshim:
                entry["transfers"], entry["fallbacks"] = xpshim_counts()
                entry["placement"] = {d: v["count"] for d, v in xpshim.stats()["placement"].items()}
                entry["device"] = ",".join(sorted({xpshim.get_device(p) for p in workloads.parts(result)
                                                   if isinstance(p, xpshim.ndarray)})) or "-"
            got = workloads.to_host(result)
            del result
        except Exception as exc:  # CuPy refusing what NumPy takes is a finding: recorded, not hidden
            free_gpu()
            return {"error": one_line(exc)}, None, None
    entry["first"] = first  # (the checking run: compilation, plans and auto mode's learning included)
    if want is not None:
        why = workloads.mismatch(mod, got, want)
        entry["valid"] = why is None
        if why:
            entry["mismatch"] = why
    return entry, got, first


def once(mod, n, variant):
    """Seconds of one timed run (the GPU synchronised before each clock read). The garbage of
    earlier runs is collected first, off the clock: left to the collector, it fell on whichever
    variant ran next (power_iteration in auto mode 0.94x NumPy so, 1.12x with a collection before
    each run: benchmarks/results/h200-order-probe-v1.md)."""
    data.renew()  # (new memory for the inputs: see _data.renew)
    with variant.context(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc.collect()
        if variant.module is xpshim:
            xpshim.reset_stats()
        sync()
        t0 = time.perf_counter()
        mod.run(variant.module, n)
        sync()
        t = time.perf_counter() - t0
        if variant.module is xpshim:  # (what the timed runs did: the last one's counts, off the clock)
            tr, fb = xpshim_counts()
            LAST_TIMED[variant.name] = {"transfers": tr, "fallbacks": fb, "placement": {
                d: v["count"] for d, v in xpshim.stats()["placement"].items()}}
        return t


LAST_TIMED = {}  # variant -> the counts of its last timed run (xpshim's variants)


def interleaved(mod, n, entries, quick, reps):
    """Time the variants of one workload in rounds, one run of each per round, so that a drift
    of the host's speed (clocks, other load) falls on all of them alike and their ratios compare
    runs made side by side. The order is shuffled each round (seeded): a turned order would keep
    each variant's predecessor the same, and what one run leaves behind (its garbage, the host's
    state after a GPU run) would always fall on the same next one.

    How many runs a variant gets is decided from its warm run (the untimed one below), not its
    checking run, whose compilation and learning would cut the repeats of a variant that is
    fast once warm. A variant with fewer runs than the others has them spread evenly over the
    rounds, not bunched in the first ones: its runs then share the host's states with the
    others'. ``entries``: variant -> (entry, first)."""
    warm = {}
    for v, (entry, first) in entries.items():  # one untimed run from the timing's own line: auto mode
        if repeats(first, quick, reps) > 1 and "error" not in entry:  # keys what it learns by the calling
            try:  # line, and the checking run's is another
                warm[v] = once(mod, n, v)
            except Exception as exc:
                entry["error"] = one_line(exc)
    want = {v: repeats(warm.get(v, first), quick, reps) for v, (_, first) in entries.items()}
    times = {v: [] for v in entries}
    order = list(entries)
    rounds = max(want.values(), default=0)
    rng = random.Random(len(order))
    for r in range(rounds):
        for v in rng.sample(order, len(order)):
            due = (r + 1) * want[v] // rounds - r * want[v] // rounds  # (1 in want[v] of the rounds, evenly)
            if due and len(times[v]) < want[v] and "error" not in entries[v][0]:
                try:
                    times[v].append(once(mod, n, v))
                except Exception as exc:
                    entries[v][0]["error"] = one_line(exc)
    for v, ts in times.items():
        if ts:
            entries[v][0].update({"median": statistics.median(ts), "min": min(ts), "max": max(ts),
                                  "reps": len(ts), "inner": 1, "times": [round(t, 7) for t in ts]})
            if getattr(v, "name", v) in LAST_TIMED:
                entries[v][0]["last_timed_run"] = LAST_TIMED.pop(v.name)
    free_gpu()


def suite(quick, only=None, reps=None, stand_in=False, kind=None, budget=None, chosen=None):
    """Run the selected workloads in every variant; returns the results as a JSON-ready dict."""
    vs = variants(stand_in)
    if chosen:  # NumPy always runs: it is the reference every variant is checked against
        vs = [v if v.name == "numpy" or v.name in chosen else Variant(v.name, v.module, v.context, "not chosen (--variant)")
              for v in vs]
    names = [n for n in workloads.names() if (not only or n in only) and (not kind or workloads.load(n).KIND == kind)]
    size = "quick" if quick else "full"
    for v in vs:
        if v.skip:
            print(f"{v.name}: skipped, {v.skip}")
    res = {"machine": machine(stand_in), "quick": quick, "stand_in": stand_in, "interleaved": "shuffled each round; repeats from a warm run, spread evenly",
           "gc": "collected before each run, off the clock",
           "variants": {v.name: v.skip or "run" for v in vs}, "workloads": {}}
    todo = [v for v in vs if not v.skip]
    gc.collect()
    gc.freeze()  # (the modules' objects: the collections before each run need not walk them each time)
    bar = runner.progress(names, "workloads")
    for name in bar:
        mod = workloads.load(name)
        n = mod.SIZES[size]
        row = res["workloads"][name] = {
            "doc": mod.__doc__.strip(), "kind": mod.KIND, "n": n, "tolerance": mod.TOLERANCE,
            "variants": {x.name: {"skipped": x.skip} for x in vs if x.skip}}
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(name)
        want, timed = None, {}
        for v in todo:  # NumPy first: its result is what the others are checked against
            entry, got, first = check(mod, n, v, want)
            if v.name == "numpy":
                want = got
                entry.pop("valid", None)
            row["variants"][v.name] = entry
            if first is None:
                continue
            if budget is not None and first > budget and v.name != "numpy":
                try:  # GPU kernels compile in the checking run (minutes on an empty kernel cache):
                    first = entry["warm"] = once(mod, n, v)  # decide from a warm run
                except Exception as exc:
                    entry["error"] = one_line(exc)
                    free_gpu()
                    continue
            if budget is not None and first > budget:  # a slow variant is timed by one run alone
                warm = "warm" in entry
                entry.update({"median": first, "runs": 1, "note": f"{'second' if warm else 'first'} run {first:.3g} s > "
                              f"--budget {budget:g} s: timed once" + ("" if warm else ", compilation included")})
            else:
                timed[v] = (entry, first)
            free_gpu()
        interleaved(mod, n, timed, quick, reps)
    res["geomean"] = geomeans(res)
    return res


def machine(stand_in):
    m = runner.machine()
    m["xpshim"] = xpshim.__xpshim_version__
    m["gpu_status"] = _backend.gpu_status().reason
    m["XPSHIM_DEVICE"] = os.environ.get("XPSHIM_DEVICE", "")  # the process default ("auto" when unset)
    if stand_in:
        m["gpu"] = "stand-in (NumPy)"
    return m


def speedup(row, variant):
    """NumPy's median over the variant's, where both ran and the variant's result matched."""
    base, e = row["variants"].get("numpy", {}), row["variants"].get(variant, {})
    if "median" not in base or "median" not in e or not e.get("valid", True):
        return None
    return base["median"] / e["median"]


def geomeans(res):
    out = {}
    for v in VARIANTS[1:]:
        g = {}
        for kind in ("all", "vectorized", "loop"):
            xs = [s for row in res["workloads"].values() if kind in ("all", row["kind"])
                  for s in [speedup(row, v)] if s]
            if xs:
                g[kind] = math.exp(sum(map(math.log, xs)) / len(xs))
                g[kind + "_count"] = len(xs)
        if g:
            out[v] = g
    return out


def ms(s):
    return f"{s * 1e3:.3g}" if s < 1 else f"{s * 1e3:.0f}"


def table(res):
    """The Markdown table and its notes (errors, mismatches, host fallbacks)."""
    buf = io.StringIO()
    cols = [v for v in VARIANTS if v in res["variants"]]
    ran = [v for v in cols if res["variants"][v] == "run"]
    buf.write("| workload | kind | n | " + " | ".join(f"{LABELS[v]} ms" for v in cols) + " | "
              + " | ".join(f"{LABELS[v]} ×" for v in ran[1:]) + " |\n")
    buf.write("|---|---|---:|" + "---:|" * (len(cols) + len(ran) - 1) + "\n")
    notes = []
    for name, row in res["workloads"].items():
        cells = []
        for v in cols:
            e = row["variants"].get(v, {})
            if "skipped" in e:
                cells.append("skipped")
                continue
            cell = (f"{ms(e['median'])} ({ms(e['min'])}-{ms(e['max'])})" if "min" in e
                    else f"{ms(e['median'])} once" if "median" in e else "")
            if "note" in e:
                notes.append(f"{name}, {LABELS[v]}: {e['note']}")
                cell += f" [{len(notes)}]"
            if "error" in e:
                notes.append(f"{name}, {LABELS[v]}: {e['error']}")
                cell = (cell + " " if cell else "") + f"error [{len(notes)}]"
            if "mismatch" in e:
                notes.append(f"{name}, {LABELS[v]}: result differs from NumPy's: {e['mismatch']}")
                cell += f" ✗ [{len(notes)}]"
            cells.append(cell)
        sp = [speedup(row, v) for v in ran[1:]]
        buf.write(f"| {name} | {row['kind']} | {row['n']:,} | " + " | ".join(cells) + " | "
                  + " | ".join(f"{s:.3g}" if s else "-" for s in sp) + " |\n")
    buf.write("\n× is NumPy's median time over the variant's (above 1: faster than NumPy); "
              "a result that differs from NumPy's gets no ratio.\n")
    if res.get("geomean"):
        buf.write("\nGeometric mean speedup over NumPy (workloads where the variant ran and matched):\n\n")
        for v, g in res["geomean"].items():
            parts = [f"{k} {g[k]:.3g}x ({g[k + '_count']})" for k in ("all", "vectorized", "loop") if k in g]
            buf.write(f"- {LABELS[v]}: " + ", ".join(parts) + "\n")
    fallbacks = [(name, v, e["fallbacks"]) for name, row in res["workloads"].items()
                 for v in cols for e in [row["variants"].get(v, {})] if e.get("fallbacks")]
    if fallbacks:
        buf.write("\nHost fallbacks in xpshim (calls that ran on NumPy, in one run):\n\n")
        for name, v, fb in fallbacks:
            buf.write(f"- {name}, {LABELS[v]}: " + ", ".join(f"`{k}` ×{c}" for k, c in fb.items()) + "\n")
    firsts = [(name, v, e["first"], e["median"]) for name, row in res["workloads"].items() for v in cols
              for e in [row["variants"].get(v, {})] if v.startswith("xpshim") and "first" in e and "median" in e
              and e.get("reps") and e["first"] > 1.5 * e["median"]]
    if firsts:
        buf.write("\nFirst runs of xpshim that took over 1.5x their median (the checking run, not timed above: "
                  "compilation, and what auto mode learns about loops, happen there):\n\n")
        for name, v, first, med in firsts:
            base = res["workloads"][name]["variants"].get("numpy", {}).get("median")
            buf.write(f"- {name}, {LABELS[v]}: {ms(first)} ms" + (f" ({base / first:.3g}x NumPy's median)" if base else "") + "\n")
    if notes:
        buf.write("\nNotes:\n\n" + "".join(f"{i}. {t}\n" for i, t in enumerate(notes, 1)))
    return buf.getvalue()


def markdown(res):
    m = res["machine"]
    lines = [f"{LABELS[v]} skipped ({why})" for v, why in res["variants"].items() if why != "run"]
    devices = {d for row in res["workloads"].values() for d in row["variants"].get("xpshim-auto", {}).get("device", "-").split(",")}
    lines.append("xpshim auto's results lived on: " + (", ".join(sorted(devices - {"-"})) or "-"))
    return (f"# Workloads {m['date']}{' (quick)' if res['quick'] else ''}\n\n"
            f"{m.get('gpu', 'no GPU')}; {m['cpus']} CPUs; Python {m['python']}, NumPy {m['numpy']}, "
            f"CuPy {m.get('cupy', '-')}, xpshim {m['xpshim']}\n\n"
            + "; ".join(lines) + ".\n\n"
            + "Median ms per run of the whole workload (min-max), inputs handed over from the host inside the run, "
            "earlier runs' garbage collected before each run.\n\n"
            + table(res))


def plot(res, path):
    plt = runner._pyplot()
    if plt is None:
        return None
    ran = [v for v in VARIANTS[1:] if res["variants"].get(v) == "run"]
    names = list(res["workloads"])
    if not ran or not names:
        return None
    fig, ax = plt.subplots(figsize=(min(16, max(8, 0.55 * len(names))), 5.5))
    width = 0.8 / len(ran)
    for i, v in enumerate(ran):
        ys = [speedup(res["workloads"][n], v) for n in names]
        xs = [j + i * width for j, y in enumerate(ys) if y]
        g = res["geomean"].get(v, {}).get("all")
        ax.bar(xs, [y for y in ys if y], width, label=LABELS[v] + (f" (geomean {g:.3g}x)" if g else ""))
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))], names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup over NumPy (>1: faster)")
    m = res["machine"]
    ax.set_title(f"Workloads{' (quick)' if res['quick'] else ''}: {m.get('gpu', 'CPU only')}, NumPy on {m['cpus']} cores")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 5 repeats (a smoke run)")
    ap.add_argument("--only", action="append", choices=workloads.names(), metavar="NAME",
                    help="run only this workload (repeatable)")
    ap.add_argument("--reps", type=int, default=None, help="timed repeats per variant (default: adaptive)")
    ap.add_argument("--kind", choices=["vectorized", "loop"], default=None, help="run only workloads of this kind")
    ap.add_argument("--variant", action="append", choices=VARIANTS[1:], default=None,
                    help="run only this variant besides NumPy (repeatable)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds: a variant whose first run takes longer is not run again (timed once)")
    ap.add_argument("--stand-in", action="store_true",
                    help="GPU variants on the NumPy-backed test stand-in: checks the runner, times nothing real")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default=None, help="file name stem (default: date, machine, workloads)")
    args = ap.parse_args(argv)
    res = suite(args.quick, args.only, args.reps, args.stand_in, args.kind, args.budget, args.variant)
    m = res["machine"]
    tag = args.tag or (datetime.date.today().isoformat() + "-" + m.get("gpu", "cpu").replace(" ", "_")
                       + "-workloads" + ("-quick" if args.quick else ""))
    md = runner.write(res, markdown(res), args.out, tag)
    plot(res, os.path.join(args.out, tag + "-speedups.png"))
    print(md)
    return res


if __name__ == "__main__":
    main()
