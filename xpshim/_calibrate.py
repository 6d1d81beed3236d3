"""``python -m xpshim calibrate``: measure auto mode's crossover on this machine.

It times a small elementwise chain (``a * a + a``) and a reduction (``a.sum()``) of float64
arrays with NumPy and with xpshim on the GPU, over sizes from 2**8 to 2**24, takes for each
the size where the GPU's time falls to NumPy's (interpolated between the measured sizes,
in log scale), and uses the geometric mean of the two. It prints the table and saves the
result where ``_config.calibration_path()`` says, which auto mode then uses (unless
``XPSHIM_CROSSOVER`` is set). It runs only where a GPU is usable.
"""

import datetime
import json
import math
import os
import time

import numpy

SIZES = tuple(2**k for k in range(8, 25))
CASES = {"chain a*a + a": lambda x: x * x + x, "reduction a.sum()": lambda x: x.sum()}


def _time(f, x, sync, budget=0.02):
    """Seconds per call of f(x): the best of five batches, each about ``budget`` seconds."""
    f(x)
    sync()
    n, t = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f(x)
        sync()
        t = time.perf_counter() - t0
        if t >= budget / 5 or n >= 1 << 16:
            break
        n *= 4
    best = t / n
    for _ in range(4):
        t0 = time.perf_counter()
        for _ in range(n):
            f(x)
        sync()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def measure(gpu_array, sync, sizes=SIZES, budget=0.02):
    """{case: [(size, numpy seconds, gpu seconds), ...]}; ``gpu_array(host)`` makes a GPU array."""
    rng = numpy.random.default_rng(0)
    table = {}
    for case, f in CASES.items():
        rows = table[case] = []
        for n in sizes:
            h = rng.random(n)
            g = gpu_array(h)
            rows.append((n, _time(f, h, lambda: None, budget), _time(f, g, sync, budget)))
    return table


def crossing(rows):
    """The size where the GPU time meets NumPy's, from rows of (size, numpy s, gpu s): log-log
    interpolation between the last size where NumPy wins and the next; the ends when it never
    or always does."""
    prev = None
    for n, t_np, t_gpu in rows:
        if t_gpu <= t_np:
            if prev is None:
                return n
            n0, r0 = prev
            r1 = math.log(t_np / t_gpu)  # >= 0 here, < 0 at prev
            frac = -r0 / (r1 - r0) if r1 != r0 else 0.0
            return int(round(math.exp(math.log(n0) + frac * (math.log(n) - math.log(n0)))))
        prev = (n, math.log(t_np / t_gpu))
    return rows[-1][0] if rows else None


def crossover(table):
    points = [c for c in (crossing(rows) for rows in table.values()) if c]
    return int(round(math.exp(sum(map(math.log, points)) / len(points)))) if points else None


def report(table, value):
    lines = ["size      " + "".join(f"| {c:>34s} " for c in table)]
    lines.append("          " + "".join(f"| {'numpy':>10s} {'gpu':>10s} {'np/gpu':>12s} " for _ in table))
    for i, first in enumerate(next(iter(table.values()))):
        cells = []
        for rows in table.values():
            _, t_np, t_gpu = rows[i]
            cells.append(f"| {t_np * 1e6:8.2f}us {t_gpu * 1e6:8.2f}us {t_np / t_gpu:12.2f} ")
        lines.append(f"{first[0]:<10d}" + "".join(cells))
    for case, rows in table.items():
        lines.append(f"{case}: the GPU matches NumPy at about {crossing(rows)} elements")
    lines.append(f"crossover: {value} elements (geometric mean)")
    return "\n".join(lines)


def main(argv):
    from . import _backend, _config

    save = "--no-save" not in argv
    st = _backend.gpu_status()
    if not st.usable or getattr(_backend.xp, "__name__", "") != "cupy":
        print(f"python -m xpshim calibrate needs a usable GPU, and there is none here: {st.reason}. "
              "Nothing was measured; auto mode runs everything on the CPU on this machine.")
        return 1
    import xpshim

    xp = _backend.xp
    with xpshim.device("gpu"):
        table = measure(lambda h: xpshim.asarray(h), xp.cuda.Device().synchronize)
    value = crossover(table)
    print(report(table, value))
    if save:
        path = _config.calibration_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        name = st.reason.split("device 0 is ", 1)[-1]
        with open(path, "w") as f:
            json.dump({"crossover": value, "gpu": name, "date": datetime.date.today().isoformat(),
                       "table": {c: [list(r) for r in rows] for c, rows in table.items()}}, f, indent=1)
        print(f"saved to {path}: auto mode uses it from the next start (XPSHIM_CROSSOVER overrides it)")
    return 0
