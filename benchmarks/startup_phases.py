"""Where a whole run's time goes: the seed's grayscale script, step by step, NumPy beside xpshim.

    python benchmarks/startup_phases.py [--size 1920x1080] [--rounds 7] [--device auto] [--out DIR]

Each round runs the script once with NumPy and once with xpshim (fresh processes, interleaved).
The script stamps the time after each step (its first line's stamp is 0; the process's start to
that line, and from its last stamp to the process's end, are measured by this parent). Reported:
the median of each step per variant, and xpshim's minus NumPy's. ``startup.py`` gives the whole
runs; this says which step costs what (imports, the decode, the product, the write, the exit).
Writes ``startup-phases.md`` to ``--out`` (default: print only).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SCRIPT = """
import time, sys
T = [("start", time.perf_counter())]
import {lib} as np
T.append(("import " + "{lib}", time.perf_counter()))
from PIL import Image
T.append(("import PIL", time.perf_counter()))
image = Image.open(sys.argv[1])
T.append(("Image.open", time.perf_counter()))
image_array = np.array(image)
T.append(("np.array(image)", time.perf_counter()))
gray = np.dot(image_array[..., :3], [0.2989, 0.5870, 0.1140])
T.append(("np.dot", time.perf_counter()))
g8 = gray.astype(np.uint8)
T.append(("astype", time.perf_counter()))
out = Image.fromarray(g8)
T.append(("Image.fromarray", time.perf_counter()))
out.save(sys.argv[2])
T.append(("save", time.perf_counter()))
print("PHASES " + repr([(k, t - T[0][1]) for k, t in T]))
"""


def photo(path, w, h):
    import numpy
    from PIL import Image

    rng = numpy.random.default_rng(0)
    y, x = numpy.mgrid[0:h, 0:w]
    rgb = numpy.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 255 // max(w + h - 2, 1)], -1)
    Image.fromarray(numpy.clip(rgb + rng.integers(-20, 21, rgb.shape), 0, 255).astype(numpy.uint8)).save(path, quality=95)


def one(lib, tmp, img, device):
    path = os.path.join(tmp, f"s_{lib}.py")
    with open(path, "w") as f:
        f.write(SCRIPT.format(lib=lib))
    env = {**os.environ, "PYTHONPATH": ROOT, "XPSHIM_DEVICE": device}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, path, img, os.path.join(tmp, f"o_{lib}.jpg")], env=env,
                       capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{lib} failed:\n{r.stderr[-2000:]}")
    phases = eval(next(ln for ln in r.stdout.splitlines() if ln.startswith("PHASES "))[7:])
    steps, last = {}, 0.0
    for k, t in phases[1:]:
        steps[k.replace("import " + lib, "import numpy/xpshim")] = t - last
        last = t
    steps["exit (and interpreter start)"] = wall - last
    steps["whole run"] = wall
    return steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    w, h = map(int, a.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        img = os.path.join(tmp, "photo.jpg")
        photo(img, w, h)
        runs = {"numpy": [], "xpshim": []}
        for _ in range(a.rounds + 1):  # (the first round warms the caches and is dropped)
            for lib in ("numpy", "xpshim"):
                runs[lib].append(one(lib, tmp, img, a.device))
        runs = {k: v[1:] for k, v in runs.items()}
    lines = [f"# Whole run by step: grayscale {a.size}, XPSHIM_DEVICE={a.device}", "",
             f"`python benchmarks/startup_phases.py --size {a.size} --rounds {a.rounds}`; medians of "
             f"{a.rounds} fresh processes each, interleaved, in ms.", "",
             "| step | NumPy | xpshim | xpshim - NumPy |", "|---|---:|---:|---:|"]
    for k in runs["numpy"][0]:
        n = statistics.median(r[k] for r in runs["numpy"]) * 1e3
        x = statistics.median(r[k] for r in runs["xpshim"]) * 1e3
        lines.append(f"| {k} | {n:.1f} | {x:.1f} | {x - n:+.1f} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"startup-phases-{a.size}.md"), "w") as f:
            f.write(md)
        with open(os.path.join(a.out, f"startup-phases-{a.size}.json"), "w") as f:
            json.dump(runs, f)


if __name__ == "__main__":
    main()
