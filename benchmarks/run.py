"""Side-by-side benchmarks: NumPy, raw CuPy (as the seed writes it), xpshim on the GPU,
xpshim on the CPU. Medians of many runs, with min and max; results checked before
they are timed; device synchronised before every clock read.

    python benchmarks/run.py            # everything this machine can run
    python benchmarks/run.py --quick    # small sizes, a smoke test (CPU-only is fine)

    python benchmarks/run.py --only workloads   # the workload suite (benchmarks/run_workloads.py)

Writes benchmarks/results/<tag>.json and .md (and PNG plots when matplotlib is there).
"""

import argparse
import datetime
import io
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402

GPU = _backend.gpu_status().usable
cp = _backend.xp if GPU else None


def sync():
    if cp is not None:
        cp.cuda.Device().synchronize()


def timeit(fn, reps, inner=1):
    """Median, min and max seconds per call of ``fn`` over ``reps`` runs of ``inner`` calls."""
    fn()
    sync()  # warm-up: compilation, plans, handles
    ts = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        ts.append((time.perf_counter() - t0) / inner)
    return {"median": statistics.median(ts), "min": min(ts), "max": max(ts), "reps": reps, "inner": inner}


def progress(items, desc):
    try:
        from tqdm import tqdm

        return tqdm(items, desc=desc, leave=False)
    except ImportError:
        return items


# ---------------------------------------------------------------- per-call cost

def percall_cases(x_np, x_xp, x_cp):
    """name -> {variant: zero-arg callable}; arrays of 16 float64."""
    xs = xpshim
    return {
        "a + a": {"numpy": lambda: x_np + x_np, "xpshim": lambda: x_xp + x_xp,
                  "cupy": (lambda: x_cp + x_cp) if x_cp is not None else None},
        "np.sqrt(a)": {"numpy": lambda: numpy.sqrt(x_np), "xpshim": lambda: xs.sqrt(x_xp),
                       "cupy": (lambda: cp.sqrt(x_cp)) if x_cp is not None else None},
        "np.sum(a, axis=0)": {"numpy": lambda: numpy.sum(x_np, axis=0), "xpshim": lambda: xs.sum(x_xp, axis=0),
                              "cupy": (lambda: cp.sum(x_cp, axis=0)) if x_cp is not None else None},
        "float(a.sum())": {"numpy": lambda: float(x_np.sum()), "xpshim": lambda: float(x_xp.sum()),
                           "cupy": (lambda: float(x_cp.sum())) if x_cp is not None else None},
        "np.zeros(16)": {"numpy": lambda: numpy.zeros(16), "xpshim": lambda: xs.zeros(16),
                         "cupy": (lambda: cp.zeros(16)) if x_cp is not None else None},
        "a[3]": {"numpy": lambda: x_np[3], "xpshim": lambda: x_xp[3],
                 "cupy": (lambda: x_cp[3]) if x_cp is not None else None},
        "a.reshape(4, 4)": {"numpy": lambda: x_np.reshape(4, 4), "xpshim": lambda: x_xp.reshape(4, 4),
                            "cupy": (lambda: x_cp.reshape(4, 4)) if x_cp is not None else None},
    }


def bench_percall(quick):
    reps, inner = (5, 200) if quick else (31, 2000)
    x_np = numpy.random.default_rng(0).random(16)
    out = {}
    if GPU:
        x_cp = cp.asarray(x_np)
        with xpshim.device("gpu"):
            x_g = xpshim.asarray(x_np)
            for name, v in progress(percall_cases(x_np, x_g, x_cp).items(), "per-call (gpu)"):
                out.setdefault(name, {})["cupy"] = timeit(v["cupy"], reps, inner)
                out[name]["xpshim-gpu"] = timeit(v["xpshim"], reps, inner)
    for name, v in progress(percall_cases(x_np, x_np, None).items(), "per-call (cpu)"):
        out.setdefault(name, {})["numpy"] = timeit(v["numpy"], reps, inner)
        with xpshim.device("cpu"):
            out[name]["xpshim-cpu (GPU process)" if GPU else "xpshim-cpu"] = timeit(v["xpshim"], reps, inner)
        if GPU:  # (auto mode as a loop meets it: NumPy arrays, no device chosen by the program)
            out[name]["xpshim-auto, NumPy arrays (GPU process)"] = timeit(v["xpshim"], reps, inner)
    if GPU:  # the CPU-only figure comes from a process that never loads the GPU
        r = subprocess.run([sys.executable, __file__, "--percall-cpu-only", "--quick" if quick else "--full"],
                           capture_output=True, text=True, env={**os.environ, "XPSHIM_DEVICE": "cpu"})
        for name, d in json.loads(r.stdout.strip().splitlines()[-1]).items():
            out[name]["xpshim-cpu"] = d["xpshim"]
            out[name]["numpy (CPU-only process)"] = d["numpy"]
    return out


def percall_cpu_only(quick):
    reps, inner = (5, 200) if quick else (31, 2000)
    x_np = numpy.random.default_rng(0).random(16)
    res = {name: {"numpy": timeit(v["numpy"], reps, inner), "xpshim": timeit(v["xpshim"], reps, inner)}
           for name, v in percall_cases(x_np, x_np, None).items()}
    print(json.dumps(res))


# ---------------------------------------------------------------- the seed workloads

def _photo(w, h):
    from PIL import Image

    rng = numpy.random.default_rng(1)
    arr = rng.integers(0, 256, (h, w, 3), dtype=numpy.uint8)
    return Image.fromarray(arr)


def bench_grayscale(quick):
    from PIL import Image

    sizes = [(320, 240)] if quick else [(1920, 1080), (6000, 4000), (8192, 8192)]
    reps = 3 if quick else 15
    out = {}
    w3 = [0.2989, 0.5870, 0.1140]
    for w, h in progress(sizes, "grayscale"):
        img = _photo(w, h)
        ref = numpy.dot(numpy.array(img)[..., :3], w3).astype(numpy.uint8)

        def v_numpy():
            a = numpy.array(img)
            return Image.fromarray(numpy.dot(a[..., :3], w3).astype(numpy.uint8))

        def v_xpshim():
            a = xpshim.array(img)
            return Image.fromarray(xpshim.dot(a[..., :3], w3).astype(xpshim.uint8))

        variants = {"numpy": v_numpy}
        if GPU:
            def v_cupy():  # the seed's CuPy code
                a = cp.array(img)
                g = cp.dot(a[..., :3], cp.array(w3))
                return Image.fromarray(cp.asnumpy(g).astype(numpy.uint8))
            variants["cupy (seed code)"] = v_cupy
            variants["xpshim-gpu"] = v_xpshim
        row = {}
        for name, fn in variants.items():
            got = numpy.asarray(fn())
            d = numpy.abs(got.astype(int) - ref.astype(int))
            assert d.max() <= 1 and (d > 0).mean() < 1e-3, (name, d.max(), (d > 0).mean())
            row[name + " (PIL in, PIL out)"] = timeit(fn, reps)
        if GPU:
            # Several images used in turn, so that a small one is not served from L2 (60 MB).
            k = max(2, min(6, (256 << 20) // (w * h * 3)))
            host_imgs = [numpy.roll(numpy.array(img), i, axis=0) for i in range(k)]
            devs = [cp.asarray(a) for a in host_imgs]
            # as the seed's CuPy code does: the weights list becomes a device array on each call
            row["cupy (device only)"] = timeit(rotating(devs, lambda a, m: cp.dot(a[..., :3], cp.array(w3)).astype(cp.uint8), cp), reps)
            with xpshim.device("gpu"):
                xdevs = [xpshim.asarray(a) for a in host_imgs]
            row["xpshim-gpu (device only)"] = timeit(
                rotating(xdevs, lambda a, m: xpshim.dot(a[..., :3], w3).astype(xpshim.uint8), xpshim), reps)
        with xpshim.device("cpu"):
            row["xpshim-cpu (PIL in, PIL out)"] = timeit(v_xpshim, reps)
        out[f"{w}x{h}"] = row
    return out


def bench_matmul(quick):
    sizes = [(200, "float64")] if quick else [(1000, "float64"), (1000, "float32"), (4096, "float64"), (4096, "float32")]
    reps = 3 if quick else 11
    out = {}
    for n, dt in progress(sizes, "matmul"):
        rng = numpy.random.default_rng(2)
        A, B = rng.random((n, n)).astype(dt), rng.random((n, n)).astype(dt)
        ref = A.astype(numpy.float64) @ B.astype(numpy.float64)
        row = {"numpy": timeit(lambda: numpy.dot(A, B), reps)}
        tol = 1e-3 if dt == "float32" else 1e-10
        if GPU:
            Ac, Bc = cp.asarray(A), cp.asarray(B)
            numpy.testing.assert_allclose(cp.asnumpy(cp.dot(Ac, Bc)), ref, rtol=tol)
            row["cupy (end to end)"] = timeit(lambda: cp.asnumpy(cp.dot(cp.asarray(A), cp.asarray(B))), reps)
            row["cupy (device only)"] = timeit(lambda: cp.dot(Ac, Bc), reps)
            with xpshim.device("gpu"):
                Ax, Bx = xpshim.asarray(A), xpshim.asarray(B)
                numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.dot(Ax, Bx)), ref, rtol=tol)
                row["xpshim-gpu (end to end)"] = timeit(lambda: xpshim.asnumpy(xpshim.dot(xpshim.asarray(A), xpshim.asarray(B))), reps)
                row["xpshim-gpu (device only)"] = timeit(lambda: xpshim.dot(Ax, Bx), reps)
        with xpshim.device("cpu"):
            row["xpshim-cpu"] = timeit(lambda: xpshim.dot(A, B), reps)
        if n <= 1000 and dt == "float64":
            sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
            import matmul

            numpy.testing.assert_allclose(matmul.matrix_multiplication(A[:50, :50], B[:50, :50]),
                                          A[:50, :50] @ B[:50, :50], rtol=1e-10)
            row["numba @jit loop (seed)"] = timeit(lambda: matmul.matrix_multiplication(A, B), 1 if quick else 3)
        out[f"{n}x{n} {dt}"] = row
    return out


# ---------------------------------------------------------------- crossover and copies

def bench_crossover(quick):
    """The CPU/GPU crossover: an elementwise chain and a reduction, 1e2 to 1e8 float64."""
    sizes = [100, 10_000] if quick else [10**k for k in range(2, 9)]
    out = {}
    for n in progress(sizes, "crossover"):
        # Several input sets, used in turn, so that no timed call finds its input in a
        # cache the previous call warmed (the H200's L2 holds 60 MB; one input of 1e6 is 8 MB).
        k = max(2, min(8, (256 << 20) // (8 * n)))
        hs = [numpy.random.default_rng(3 + i).random(n) for i in range(k)]
        h = hs[0]
        reps = 3 if quick else (7 if n >= 10**7 else 21)
        inner = 1 if n >= 10**6 else 20
        row = {}
        want_chain, want_sum = h * h + h, h.sum()
        cases = {"chain a*a + a": (lambda x, m: x * x + x), "reduction a.sum()": (lambda x, m: x.sum())}
        for case, f in cases.items():
            r = row.setdefault(case, {})
            r["numpy"] = timeit(rotating(hs, f, numpy), reps, inner)
            if GPU:
                cs = [cp.asarray(v) for v in hs]
                r["cupy"] = timeit(rotating(cs, f, cp), reps, inner)
                with xpshim.device("gpu"):
                    xs = [xpshim.asarray(v) for v in hs]
                    got = xpshim.asnumpy(f(xs[0], xpshim))
                numpy.testing.assert_allclose(got, want_chain if "chain" in case else want_sum, rtol=1e-9)
                r["xpshim-gpu"] = timeit(rotating(xs, f, xpshim), reps, inner)
            with xpshim.device("cpu"):
                r["xpshim-cpu"] = timeit(rotating(hs, f, xpshim), reps, inner)
        for case, r in row.items():
            out[f"{case} n={n:.0e}"] = r
    return out


def rotating(inputs, f, mod):
    """A zero-argument call of ``f`` on the next input set each time."""
    it = itertools.cycle(inputs)
    return lambda: f(next(it), mod)


def bench_copies(quick):
    """Host<->device copy rates: xpshim's implicit copies beside CuPy's pageable and pinned ones."""
    if not GPU:
        return {}
    import cupyx

    sizes = [1 << 20] if quick else [256 << 10, 1 << 20, 64 << 20, 512 << 20]
    out = {}
    for nbytes in progress(sizes, "copies"):
        n = nbytes // 8
        h = numpy.random.default_rng(4).random(n)
        pinned = cupyx.empty_pinned(n, numpy.float64)
        pinned[...] = h
        c = cp.asarray(h)
        reps = 5 if quick else 11
        row = {
            "H2D cupy pageable": timeit(lambda: cp.asarray(h), reps),
            "H2D cupy pinned": timeit(lambda: cp.asarray(pinned), reps),
            "D2H cupy pageable": timeit(lambda: c.get(), reps),
            "D2H cupy pinned": timeit(lambda: c.get(out=pinned), reps),
        }
        with xpshim.device("gpu"):
            x = xpshim.asarray(h)
            assert numpy.array_equal(xpshim.asnumpy(x), h)
            # a host array sent again and again is registered in place at its second upload
            # (xpshim/_register.py); one sent once is staged: both, side by side
            row["H2D xpshim (np.asarray of host data)"] = timeit(lambda: xpshim.asarray(h), reps)
            fresh = iter([h.copy() for _ in range(reps + 1)])
            row["H2D xpshim of a new host array each time"] = timeit(lambda: xpshim.asarray(next(fresh)), reps)
            del fresh
            row["D2H xpshim (np.asnumpy)"] = timeit(lambda: xpshim.asnumpy(x), reps)
            hp = xpshim.empty_pinned(n)  # host data in pinned memory: one direct copy
            hp[...] = h
            assert numpy.array_equal(xpshim.asnumpy(xpshim.asarray(hp)), h)
            row["H2D xpshim of pinned host data (np.empty_pinned)"] = timeit(lambda: xpshim.asarray(hp), reps)
            del hp
        with tempfile.TemporaryDirectory() as tmp:  # a .npy file (in the page cache after the warm-up)
            path = os.path.join(tmp, "a.npy")
            numpy.save(path, h)
            row["load: NumPy's np.load, host only"] = timeit(lambda: numpy.load(path), reps)
            row["load: cupy.asarray(numpy.load(f))"] = timeit(lambda: cp.asarray(numpy.load(path)), reps)
            with xpshim.device("gpu"):
                assert numpy.array_equal(xpshim.asnumpy(xpshim.load(path)), h)
                row["load: xpshim np.load(f) onto the GPU"] = timeit(lambda: xpshim.load(path), reps)
        for k, v in row.items():
            v["GB/s"] = nbytes / v["median"] / 1e9
        out[f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"] = row
    return out


# ---------------------------------------------------------------- the workload suite

def workloads_runner():
    """benchmarks/run_workloads.py, loaded by path (benchmarks/ need not be on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("workloads_runner", os.path.join(HERE, "run_workloads.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bench_workloads(quick):
    return workloads_runner().suite(quick)


# ---------------------------------------------------------------- report

def machine():
    info = {"python": platform.python_version(), "numpy": numpy.__version__, "platform": platform.platform(),
            "cpus": os.cpu_count(), "date": datetime.datetime.now().isoformat(timespec="seconds")}
    if GPU:
        p = cp.cuda.runtime.getDeviceProperties(0)
        info["gpu"] = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        info["cupy"] = cp.__version__
        info["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
    return info


def fmt(s):
    return f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def markdown(res):
    buf = io.StringIO()
    m = res["machine"]
    buf.write(f"# Benchmarks {m['date']}\n\n{m.get('gpu', 'no GPU')}; {m['cpus']} CPUs; Python {m['python']}, "
              f"NumPy {m['numpy']}, CuPy {m.get('cupy', '-')}\n\nMedian per call (min-max).\n")
    if res.get("workloads"):
        buf.write("\n## workloads\n\n" + workloads_runner().table(res["workloads"]))
    for section in ("percall", "grayscale", "matmul", "crossover", "copies"):
        rows = res.get(section) or {}
        if not rows:
            continue
        cols = sorted({c for r in rows.values() for c in r}, key=lambda c: (not c.startswith("numpy"), c))
        buf.write(f"\n## {section}\n\n| case | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols) + "\n")
        for name, r in rows.items():
            cells = [(f"{fmt(r[c]['median'])} ({fmt(r[c]['min'])}-{fmt(r[c]['max'])})"
                      + (f", {r[c]['GB/s']:.1f} GB/s" if "GB/s" in r[c] else "")) if c in r else "-" for c in cols]
            buf.write(f"| {name} | " + " | ".join(cells) + " |\n")
    buf.write("\n## Summary against the targets\n\n")
    for line in summary(res):
        buf.write(f"- {line}\n")
    return buf.getvalue()


def summary(res):
    out = []
    pc = res.get("percall", {})
    gpu_over = [r["xpshim-gpu"]["median"] - r["cupy"]["median"] for r in pc.values() if "cupy" in r]
    # the CPU routing cost is taken within one process: a process that never loaded the GPU
    # where there is one, this one otherwise
    cpu_over = [r["xpshim-cpu"]["median"] - r.get("numpy (CPU-only process)", r["numpy"])["median"]
                for r in pc.values() if "xpshim-cpu" in r]
    if gpu_over:
        out.append(f"routing cost on the GPU, xpshim-gpu minus CuPy per call: median {statistics.median(gpu_over) * 1e6:.2f} µs, "
                   f"worst {max(gpu_over) * 1e6:.2f} µs (target ≤ 1 µs)")
    if cpu_over:
        out.append(f"routing cost on the CPU, xpshim-cpu minus NumPy per call: median {statistics.median(cpu_over) * 1e6:.2f} µs, "
                   f"worst {max(cpu_over) * 1e6:.2f} µs (target ≤ 0.3 µs)")
    auto_over = [r["xpshim-auto, NumPy arrays (GPU process)"]["median"] - r["numpy"]["median"]
                 for r in pc.values() if "xpshim-auto, NumPy arrays (GPU process)" in r]
    if auto_over:
        out.append(f"auto mode on NumPy arrays in a GPU process, xpshim minus NumPy per call: median "
                   f"{statistics.median(auto_over) * 1e6:.2f} µs, worst {max(auto_over) * 1e6:.2f} µs (target ≤ 0.3 µs)")
    for size, r in res.get("grayscale", {}).items():
        n = r.get("numpy (PIL in, PIL out)")
        g = r.get("xpshim-gpu (PIL in, PIL out)")
        c = r.get("cupy (seed code) (PIL in, PIL out)")
        if n and g:
            out.append(f"grayscale {size}, PIL in to PIL out: xpshim-gpu {fmt(g['median'])}, NumPy {fmt(n['median'])} "
                       f"({n['median'] / g['median']:.1f}x), seed CuPy code {fmt(c['median'])} ({c['median'] / g['median']:.2f}x)")
        d, dc = r.get("xpshim-gpu (device only)"), r.get("cupy (device only)")
        if d and dc:
            out.append(f"grayscale {size}, device only: xpshim/CuPy throughput ratio {dc['median'] / d['median']:.3f} (target ≥ 0.97)")
    for size, r in res.get("crossover", {}).items():
        if "xpshim-gpu" in r and "cupy" in r:
            out.append(f"{size}: NumPy/xpshim-gpu {r['numpy']['median'] / r['xpshim-gpu']['median']:.2f}x, "
                       f"NumPy/CuPy {r['numpy']['median'] / r['cupy']['median']:.2f}x, "
                       f"xpshim/CuPy throughput {r['cupy']['median'] / r['xpshim-gpu']['median']:.3f}")
    for size, r in res.get("copies", {}).items():
        out.append(f"copies {size}: " + ", ".join(f"{k} {v['GB/s']:.1f} GB/s" for k, v in r.items()))
    for size, r in res.get("matmul", {}).items():
        d, dc, n = r.get("xpshim-gpu (device only)"), r.get("cupy (device only)"), r.get("numpy")
        if d and dc:
            out.append(f"matmul {size}: device only xpshim {fmt(d['median'])} vs CuPy {fmt(dc['median'])} "
                       f"(ratio {dc['median'] / d['median']:.3f}); NumPy {fmt(n['median'])} ({n['median'] / d['median']:.0f}x slower)")
    return out


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot_crossover(res, path):
    plt = _pyplot()
    if plt is None:
        return None
    cx = res.get("crossover", {})
    if not cx:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, case in zip(axes, ("chain a*a + a", "reduction a.sum()")):
        rows = {float(k.split("n=")[1]): v for k, v in cx.items() if k.startswith(case)}
        ns = sorted(rows)
        for variant in ("cupy", "xpshim-gpu", "xpshim-cpu"):
            if all(variant in rows[n] for n in ns):
                ax.plot(ns, [rows[n]["numpy"]["median"] / rows[n][variant]["median"] for n in ns], "o-", label=variant)
        ax.axhline(1.0, color="gray", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements (float64)")
        ax.set_title(case)
    axes[0].set_ylabel("speed-up over NumPy (>1: faster)")
    axes[0].legend()
    fig.suptitle(f"CPU/GPU crossover — {res['machine'].get('gpu', 'CPU only')}, NumPy on {res['machine']['cpus']} cores")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def plot(res, path):
    plt = _pyplot()
    if plt is None:
        return None
    pc = res.get("percall", {})
    if not pc:
        return None
    cols = sorted({c for r in pc.values() for c in r})
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(cols)
    for i, c in enumerate(cols):
        ys = [pc[n][c]["median"] * 1e6 if c in pc[n] else 0 for n in pc]
        ax.bar([j + i * width for j in range(len(pc))], ys, width, label=c)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(pc))], list(pc), rotation=20, ha="right")
    ax.set_ylabel("µs per call (median)")
    ax.set_yscale("log")
    ax.set_title(f"Per-call cost on 16 float64 — {res['machine'].get('gpu', 'CPU only')}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def write(res, md, out, tag):
    """<out>/<tag>.json and .md; returns the Markdown."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, tag + ".json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, tag + ".md"), "w") as f:
        f.write(md)
    return md


SECTIONS = {"percall": bench_percall, "grayscale": bench_grayscale, "matmul": bench_matmul,
            "crossover": bench_crossover, "copies": bench_copies, "workloads": bench_workloads}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repeats (a smoke test)")
    ap.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--percall-cpu-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", choices=list(SECTIONS), action="append")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default=None, help="file name stem (default: date and machine)")
    args = ap.parse_args(argv)
    if args.percall_cpu_only:
        return percall_cpu_only(args.quick)
    res = {"machine": machine(), "quick": args.quick}
    for section, fn in SECTIONS.items():
        if not args.only or section in args.only:
            res[section] = fn(args.quick)
    tag = args.tag or (datetime.date.today().isoformat() + ("-" + res["machine"]["gpu"].replace(" ", "_") if GPU else "-cpu")
                       + ("-quick" if args.quick else ""))
    md = write(res, markdown(res), args.out, tag)
    plot(res, os.path.join(args.out, tag + "-percall.png"))
    plot_crossover(res, os.path.join(args.out, tag + "-crossover.png"))
    if res.get("workloads"):
        workloads_runner().plot(res["workloads"], os.path.join(args.out, tag + "-workloads.png"))
    print(md)


if __name__ == "__main__":
    main()
