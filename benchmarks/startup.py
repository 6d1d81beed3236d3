"""Whole runs, as a user starts them: fresh processes, NumPy beside xpshim, interleaved.

    python benchmarks/startup.py               # 21 rounds, the CPU path (XPSHIM_DEVICE=cpu)
    python benchmarks/startup.py --rounds 31 --device auto
    python benchmarks/startup.py --xpshim-root OTHER_CHECKOUT --out /tmp/before   # another tree

Cases, each a new interpreter timed from start to exit:
* ``import``: ``python -c "import numpy"`` against ``python -c "import xpshim"``;
* ``grayscale WxH``: the seed's script (examples/grayscale.py: Pillow reads a JPEG, the
  grayscale dot product, Pillow writes it) at 640x480 and 1920x1080; NumPy's variant is the
  same file with ``import numpy as np`` (and its device printed as "cpu").

One more run of the largest xpshim case, untimed, reports CuPy's import started on a thread at
``import xpshim`` (xpshim/_preload.py): how long it took, and how long the first call waited
for it.

Each round runs every case for both, in an order that alternates, so that a busy machine
slows both alike; the figures are medians with the quartiles, and xpshim's extra time and
speed the medians over the rounds' pairs. xpshim's bytecode is compiled
first, as an installation does. Writes benchmarks/results/startup.json and .md (the latest).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = ((640, 480), (1920, 1080))


def progress(items, desc):
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=desc)


def make_scripts(tmp):
    """The seed's grayscale script as xpshim's example has it, and its NumPy twin."""
    with open(os.path.join(ROOT, "examples", "grayscale.py")) as f:
        src = f.read()
    numpy_src = src.replace("import xpshim as np\n", "import numpy as np\n").replace(
        "np.get_device(image_array)", "'cpu'").replace("np.why_device()", "'NumPy'")
    if numpy_src.count("import numpy as np\n") != 1 or "xpshim" in numpy_src.split('"""', 2)[2]:
        raise SystemExit("examples/grayscale.py changed: update make_scripts for its NumPy variant")
    paths = {"xpshim": os.path.join(tmp, "grayscale_xpshim.py"), "numpy": os.path.join(tmp, "grayscale_numpy.py")}
    for lib, text in (("xpshim", src), ("numpy", numpy_src)):
        with open(paths[lib], "w") as f:
            f.write(text)
    return paths


def make_images(tmp, python, env, sizes=SIZES):
    """JPEGs of each size, made by the example's own make_example (NumPy and Pillow)."""
    images = {}
    for w, h in sizes:
        path = images[(w, h)] = os.path.join(tmp, f"photo_{w}x{h}.jpg")
        code = (f"import sys; sys.path.insert(0, {os.path.join(ROOT, 'examples')!r}); import grayscale; "
                f"grayscale.make_example({path!r}, {w}, {h})")
        subprocess.run([python, "-c", code], env=env, check=True)
    return images


def commands(tmp, python, images):
    """case -> lib -> argv."""
    scripts = make_scripts(tmp)
    cases = {"import": {lib: [python, "-c", f"import {lib}"] for lib in ("numpy", "xpshim")}}
    for (w, h), img in images.items():
        cases[f"grayscale {w}x{h}"] = {lib: [python, scripts[lib], img, "--out", os.path.join(tmp, f"out_{lib}.jpg")]
                                       for lib in ("numpy", "xpshim")}
    return cases


def run_once(argv, env):
    t0 = time.perf_counter()
    # (in the temporary folder: `python -c` looks in its working folder first, before PYTHONPATH)
    r = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=env["STARTUP_TMP"])
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{r.stderr}")
    return dt, r.stdout


def early_import(python, argv, env):
    """What xpshim says of CuPy's early import after one run of ``argv`` (a script and its
    arguments), run in the same process through runpy."""
    code = (f"import runpy, sys; sys.argv = {argv[1:]!r}; runpy.run_path(sys.argv[0], run_name='__main__'); "
            "import importlib, importlib.util as u; print(importlib.import_module('xpshim._preload').describe() "
            "if u.find_spec('xpshim._preload') else 'not in this version of xpshim')")
    return run_once([python, "-c", code], env)[1].strip().splitlines()[-1]


def summary(ts):
    q = statistics.quantiles(ts, n=4)
    return {"median_ms": statistics.median(ts) * 1e3, "q1_ms": q[0] * 1e3, "q3_ms": q[2] * 1e3,
            "min_ms": min(ts) * 1e3, "runs": len(ts)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=21, help="timed runs of each case and library (default 21)")
    ap.add_argument("--device", default="cpu", help="XPSHIM_DEVICE for xpshim's runs (default cpu)")
    ap.add_argument("--xpshim-root", default=ROOT, help="the checkout whose xpshim is timed (default this one)")
    ap.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES),
                    help="image sizes of the grayscale runs, WxH[,WxH...] (default %(default)s)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "startup"),
                    help="path of the results without extension (default benchmarks/results/startup)")
    args = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in size.lower().split("x")) for size in args.sizes.split(",")]

    python = sys.executable
    root = os.path.abspath(args.xpshim_root)
    subprocess.run([python, "-m", "compileall", "-q", os.path.join(root, "xpshim")], check=True,
                   stdout=subprocess.DEVNULL)  # as pip install does: no run pays for compiling
    env = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    env.update(PYTHONPATH=root, XPSHIM_DEVICE=args.device)  # (NumPy's runs get the same path)
    with tempfile.TemporaryDirectory() as tmp:
        env["STARTUP_TMP"] = tmp
        cases = commands(tmp, python, make_images(tmp, python, env, sizes))
        largest = f"grayscale {sizes[-1][0]}x{sizes[-1][1]}"
        # the first run on a machine: CuPy's kernel cache empty (its kernels compiled in the run)
        cold = {}
        if args.device != "cpu":
            cold_env = dict(env, CUPY_CACHE_DIR=os.path.join(tmp, "empty-kernel-cache"))
            cold[f"{largest}, first run (empty kernel cache)"] = run_once(cases[largest]["xpshim"], cold_env)[0]
        out = run_once(cases[largest]["xpshim"], env)[1].strip().replace(os.path.join(tmp, ""), "")
        where = run_once([python, "-c", "import xpshim; print(xpshim.__file__)"], env)[1].strip()
        early = early_import(python, cases[largest]["xpshim"], env)
        times = {case: {"numpy": [], "xpshim": []} for case in cases}
        for case in cases:  # one untimed round: the file cache, as on any second run
            for lib in ("numpy", "xpshim"):
                run_once(cases[case][lib], env)
        for i in progress(range(args.rounds), "rounds"):
            for case in cases:
                for lib in (("numpy", "xpshim") if i % 2 == 0 else ("xpshim", "numpy")):
                    times[case][lib].append(run_once(cases[case][lib], env)[0])

    results = {case: {"xpshim_once_ms": t * 1e3} for case, t in cold.items()}
    for case, t in times.items():
        n, x = summary(t["numpy"]), summary(t["xpshim"])
        # (each over the rounds' pairs: a burst of other work on a shared machine slows a round's
        # two runs alike, or shows as one outlying pair)
        pairs = list(zip(t["numpy"], t["xpshim"]))
        results[case] = {"numpy": n, "xpshim": x, "speed_vs_numpy": statistics.median(a / b for a, b in pairs),
                         "extra_ms": statistics.median(b - a for a, b in pairs) * 1e3}
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "python": platform.python_version(),
            "machine": platform.machine(), "cpus": os.cpu_count(), "rounds": args.rounds,
            "XPSHIM_DEVICE": args.device, "example_output": out, "early_import": early,
            # (the tree measured, as the path from the root of its checkout: no machine's paths)
            "xpshim": os.path.relpath(where, os.path.dirname(os.path.dirname(where)))}
    write(args.out, meta, results)


def write(out, meta, results):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".json", "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=2)
    lines = [
        "# Whole runs: NumPy beside xpshim (fresh processes, interleaved)", "",
        f"{meta['date']}, Python {meta['python']}, {meta['cpus']} CPUs, XPSHIM_DEVICE={meta['XPSHIM_DEVICE']}, "
        f"{meta['rounds']} runs each; median (quartiles) in ms. Command: `python benchmarks/startup.py`.",
        f"The example printed: `{meta['example_output']}`", "",
        f"CuPy's import on its thread (one more run of the largest case): "
        f"{meta.get('early_import', '-')}", "",
        "| run | NumPy | xpshim | xpshim - NumPy (median of pairs) | speed vs NumPy (median of pairs) |",
        "|---|---|---|---|---|",
    ]
    for case, r in results.items():
        if "xpshim_once_ms" in r:
            lines.append(f"| {case} | | {r['xpshim_once_ms']:.1f} (once) | | |")
            continue
        n, x = r["numpy"], r["xpshim"]
        lines.append(f"| {case} | {n['median_ms']:.1f} ({n['q1_ms']:.1f}-{n['q3_ms']:.1f}) | "
                     f"{x['median_ms']:.1f} ({x['q1_ms']:.1f}-{x['q3_ms']:.1f}) | {r['extra_ms']:+.1f} | "
                     f"{r['speed_vs_numpy']:.2f}x |")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
