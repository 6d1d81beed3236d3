"""NumPy's own tests, pointed at xpshim: a report, side by side with plain NumPy.

    python tests/numpy_suite.py [--device cpu|stand-in|gpu] [--jobs N] [--out DIR] [FILE ...]

Copies a chosen set of NumPy's API-level test files out of the installed NumPy into a
temporary folder (nothing is committed), rewrites ``import numpy as np`` to
``import xpshim as np`` in them, and runs both the original and the rewritten copy with
pytest. Prints passed/failed for each, and writes a JSON report with the names of the
tests that pass under NumPy but fail under xpshim. ``--device stand-in`` runs xpshim's
GPU side on the NumPy-backed stand-in (tests/fakecupy.py); ``gpu`` needs a real GPU.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FILES = ["lib/tests/test_index_tricks.py", "lib/tests/test_histograms.py", "lib/tests/test_arraypad.py",
         "lib/tests/test_shape_base.py", "lib/tests/test_function_base.py", "lib/tests/test_twodim_base.py",
         "lib/tests/test_arraysetops.py", "lib/tests/test_nanfunctions.py", "lib/tests/test_polynomial.py",
         "lib/tests/test_type_check.py", "lib/tests/test_ufunclike.py", "lib/tests/test_stride_tricks.py",
         "lib/tests/test_packbits.py", "_core/tests/test_numeric.py", "_core/tests/test_shape_base.py",
         "_core/tests/test_function_base.py", "_core/tests/test_indexing.py", "linalg/tests/test_linalg.py",
         "fft/tests/test_pocketfft.py", "fft/tests/test_helper.py"]

# Tests left out of both runs, and why (each would take the whole file's run down with it).
DESELECT = {
    "_core/tests/test_shape_base.py::TestConcatenate::test_huge_list_error":
        "passes a tuple of 2**31 references; NumPy refuses its length at once, while xpshim (as CuPy "
        "would) converts it element by element and exhausts the memory",
}

# Run inside the rewritten copies' folder before anything imports xpshim.
STAND_IN_CONFTEST = f"""
import sys
sys.path.insert(0, {HERE!r})
import fakecupy, xpshim
xpshim._backend.install(fakecupy, "stand-in")
"""


def _run(folder, files, env, keep=None):
    report = os.path.join(folder, "report.txt")
    deselect = []
    for t in DESELECT:  # named as in the copies: the file's path with "/" -> "_"
        path, _, test = t.partition("::")
        deselect += ["--deselect", f"{path.replace('/', '_')}::{test}"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rf",
           "--continue-on-collection-errors", "-W", "ignore", *deselect, *files]
    r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env)
    with open(report, "w") as f:
        f.write(r.stdout + r.stderr)
    if keep:  # the failures' short lines, for triage
        tag = "numpy" if os.path.basename(folder) == "numpy_tests" else "xpshim"
        with open(os.path.join(keep, f"{tag}-{files[0]}.txt"), "w") as f:
            f.write("\n".join(line for line in (r.stdout + r.stderr).splitlines()
                              if line.startswith(("FAILED", "ERROR", "E ")) or " error" in line)[-200000:])
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|error|errors|skipped|xfailed|xpassed)", r.stdout.splitlines()[-1] if r.stdout else "")}
    failed = sorted(set(re.findall(r"^FAILED (\S+)", r.stdout, re.M)))
    return counts, failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=["cpu", "stand-in", "gpu"], default="cpu")
    ap.add_argument("--out", default=None, help="folder for the JSON report")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once")
    ap.add_argument("--keep", default=None, help="folder for each file's failure lines under xpshim")
    ap.add_argument("files", nargs="*", default=FILES)
    args = ap.parse_args(argv)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    src = os.path.dirname(numpy.__file__)
    base_env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    base_env["XPSHIM_DEVICE"] = {"cpu": "cpu", "stand-in": "cpu", "gpu": "gpu"}[args.device]
    base_env["XPSHIM_FALLBACK"] = "silent"
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        orig, shim = os.path.join(tmp, "numpy_tests"), os.path.join(tmp, "xpshim_tests")
        os.makedirs(orig)
        os.makedirs(shim)
        names = []
        for rel in args.files:
            path = os.path.join(src, rel)
            if not os.path.exists(path):
                print(f"skipping {rel}: not in this NumPy")
                continue
            text = open(path).read()
            name = rel.replace("/", "_")
            names.append(name)
            open(os.path.join(orig, name), "w").write(text)
            open(os.path.join(shim, name), "w").write(re.sub(r"^import numpy as np$", "import xpshim as np", text, flags=re.M))
        if args.device == "stand-in":
            open(os.path.join(shim, "conftest.py"), "w").write(STAND_IN_CONFTEST)
        def both(name):
            return _run(orig, [name], base_env), _run(shim, [name], base_env, args.keep)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:  # (each run is its own process)
            futures = {pool.submit(both, name): name for name in names}
            done = [(futures[f], f.result()) for f in concurrent.futures.as_completed(futures)]
        for name, ((n_counts, n_failed), (x_counts, x_failed)) in sorted(done, key=lambda d: names.index(d[0])):
            extra = sorted(set(x_failed) - set(n_failed))
            results[name] = {"numpy": n_counts, "xpshim": x_counts, "fail_only_under_xpshim": extra}
            print(f"{name:45s} numpy {n_counts.get('passed', 0):5d} passed {n_counts.get('failed', 0):3d} failed | "
                  f"xpshim ({args.device}) {x_counts.get('passed', 0):5d} passed {x_counts.get('failed', 0):3d} failed"
                  f"{'' if not extra else f'  ({len(extra)} fail only under xpshim)'}"
                  f"{'  (NOT COLLECTED: an error at import)' if x_counts.get('error') and not x_counts.get('passed') else ''}",
                  flush=True)
    tot = {k: sum(r[k].get("passed", 0) for r in results.values()) for k in ("numpy", "xpshim")}
    extra = sum(len(r["fail_only_under_xpshim"]) for r in results.values())
    print(f"total: numpy {tot['numpy']} passed; xpshim ({args.device}) {tot['xpshim']} passed; "
          f"{extra} tests fail only under xpshim")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"numpy-suite-{args.device}.json"), "w") as f:
            json.dump({"numpy": numpy.__version__, "device": args.device, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
