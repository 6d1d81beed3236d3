"""NumPy's own tests, pointed at xpshim: a report, side by side with plain NumPy.

    python tests/numpy_suite/numpy_suite.py [--device cpu|stand-in|gpu] [--jobs N] [--out DIR] [FILE ...]
    python tests/numpy_suite/numpy_suite.py --explain REPORT.json     # the reasons again, without a run

Copies a chosen set of NumPy's API-level test files out of the installed NumPy into a
temporary folder (nothing is committed), rewrites ``import numpy as np`` to
``import xpshim as np`` in them, and runs both the original and the rewritten copy with
pytest. Prints passed/failed for each, and writes a JSON report (after every file, so a run
stopped early keeps what it did) with each test that passes under NumPy but fails under
xpshim, its message, and its reason from ``numpy_suite_reasons.py`` (or none: unexplained),
and a Markdown summary beside it. ``--device stand-in`` runs xpshim's GPU side on the
NumPy-backed stand-in (tests/support/fakecupy.py); ``gpu`` needs a real GPU.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy

from numpy_suite_reasons import explain

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUPPORT = os.path.join(os.path.dirname(HERE), "support")  # fakecupy
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
sys.path.insert(0, {SUPPORT!r})
import fakecupy, xpshim
xpshim._backend.install(fakecupy, "stand-in")
"""


def _run(folder, files, env, keep=None, timeout=None):
    """pytest on one file: (counts, {failed test id: message})."""
    xml = os.path.join(folder, f"{files[0]}.xml")
    deselect = []
    for t in DESELECT:  # named as in the copies: the file's path with "/" -> "_"
        path, _, test = t.partition("::")
        deselect += ["--deselect", f"{path.replace('/', '_')}::{test}"]
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rf",
           "--continue-on-collection-errors", "-W", "ignore", f"--junitxml={xml}", *deselect, *files]
    try:
        r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env, timeout=timeout)
        text = r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return {"timed out": timeout}, {}
    if keep:  # the failures' short lines, for triage
        tag = "numpy" if os.path.basename(folder) == "numpy_tests" else "xpshim"
        with open(os.path.join(keep, f"{tag}-{files[0]}.txt"), "w") as f:
            f.write("\n".join(line for line in text.splitlines()
                              if line.startswith(("FAILED", "ERROR", "E ")) or " error" in line)[-200000:])
    last = r.stdout.splitlines()[-1] if r.stdout else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|error|errors|skipped|xfailed|xpassed)", last)}
    return counts, _failures(xml)


def _short(text):
    """Paths in a message with the folders before the package cut (site-packages, the checkout,
    Python's own, a temporary folder): the report names no machine's folders."""
    for pat, to in ((r"(/[\w.+-]+)+/site-packages/", ""), (r"(/[\w.+-]+)+/(?=xpshim/)", ""),
                    (r"(/[\w.+-]+)*/python3\.\d+/", ""), (r"/tmp/[\w.-]+/", "<tmp>/")):
        text = re.sub(pat, to, text)
    return text


def _failures(xml):
    """{test id: first lines of its failure} from pytest's JUnit XML."""
    out = {}
    try:
        root = ET.parse(xml).getroot()
    except (OSError, ET.ParseError):
        return out
    for case in root.iter("testcase"):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is None:
            continue
        mod, _, cls = case.get("classname", "").partition(".")
        tid = f"{mod}.py::{cls.replace('.', '::') + '::' if cls else ''}{case.get('name')}"
        msg = (bad.get("message") or "").strip()
        text = (bad.text or "").splitlines()
        lines = [ln for ln in text if ln.startswith("E ")]
        # the traceback's last places ("file:line: in function"), site-packages paths cut short
        where = [_short(ln) for ln in text if re.match(r"^\S+\.py:\d+: ", ln)]
        out[tid] = (msg + "\n" + "\n".join(lines[:12]))[:1500] + "".join(f"\n@ {w[:160]}" for w in where[-4:])
    return out


def _explained(results):
    """Each failure only under xpshim -> its listed reason, or None."""
    for r in results.values():
        r["messages"] = {t: _short(m) for t, m in r.get("messages", {}).items()}
        r["reasons"] = {t: explain(t, m) for t, m in r.get("messages", {}).items()}


def _write(results, args, meta, base=None):
    _explained(results)
    os.makedirs(args.out, exist_ok=True)
    base = base or os.path.join(args.out, f"numpy-suite-{args.device}{args.tag}")
    with open(base + ".json", "w") as f:
        json.dump({**meta, "results": results}, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write(_markdown(results, meta))


def _markdown(results, meta):
    lines = [f"# NumPy's own test files under xpshim: {meta['device']}", "",
             f"NumPy {meta['numpy']}" + "".join(f"; {k} {meta[k]}" for k in ("python", "cupy", "gpu") if k in meta) +
             f"; {meta.get('done', len(results))} of {meta.get('files', len(results))} files done.", "",
             "| file | NumPy passed | xpshim passed | fail only under xpshim | with a listed reason |",
             "|---|---:|---:|---:|---:|"]
    by_reason, unexplained = {}, []
    for name, r in results.items():
        rs = r.get("reasons", {})
        listed = sum(1 for v in rs.values() if v)
        note = " (timed out)" if "timed out" in r["xpshim"] else ""
        lines.append(f"| {name}{note} | {r['numpy'].get('passed', 0)} | {r['xpshim'].get('passed', 0)} | "
                     f"{len(r['fail_only_under_xpshim'])} | {listed} |")
        for t, why in rs.items():
            if why:
                by_reason[why] = by_reason.get(why, 0) + 1
            else:
                unexplained.append((t, r["messages"].get(t, "")))
    lines += ["", "## Reasons", "", "| tests | reason |", "|---:|---|"]
    lines += [f"| {n} | {why} |" for why, n in sorted(by_reason.items(), key=lambda kv: -kv[1])]
    lines += ["", f"## Unexplained ({len(unexplained)})", ""]
    lines += [f"- `{t}`: {m.splitlines()[0][:200] if m else ''}" for t, m in sorted(unexplained)]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=["cpu", "stand-in", "gpu"], default="cpu")
    ap.add_argument("--out", default=None, help="folder for the JSON and Markdown report")
    ap.add_argument("--tag", default="", help="appended to the report's name")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once")
    ap.add_argument("--file-timeout", type=float, default=None, help="seconds before one file's run is stopped")
    ap.add_argument("--keep", default=None, help="folder for each file's failure lines under xpshim")
    ap.add_argument("--explain", default=None, metavar="REPORT", help="re-apply the reasons to a saved report")
    ap.add_argument("files", nargs="*", default=FILES)
    args = ap.parse_args(argv)
    if args.explain:
        rep = json.load(open(args.explain))
        args.out = os.path.dirname(os.path.abspath(args.explain))
        _write(rep["results"], args, {k: v for k, v in rep.items() if k != "results"},
               base=os.path.splitext(os.path.abspath(args.explain))[0])  # (beside it, the same name)
        print(_markdown(rep["results"], rep).split("## Reasons")[0])
        return 0
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    src = os.path.dirname(numpy.__file__)
    base_env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + HERE + os.pathsep + SUPPORT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    base_env["XPSHIM_DEVICE"] = {"cpu": "cpu", "stand-in": "cpu", "gpu": "gpu"}[args.device]
    base_env["XPSHIM_FALLBACK"] = "silent"
    results = {}
    meta = {"numpy": numpy.__version__, "device": args.device, "python": sys.version.split()[0]}
    if args.device == "gpu":
        try:
            import cupy

            meta.update(cupy=cupy.__version__, gpu=cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
        except Exception as e:  # (the report says what it could not tell)
            meta["gpu"] = f"unknown ({type(e).__name__})"
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
        meta["files"] = len(names)

        def both(name):
            return (_run(orig, [name], base_env, timeout=args.file_timeout),
                    _run(shim, [name], base_env, args.keep, args.file_timeout))

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:  # (each run is its own process)
            futures = {pool.submit(both, name): name for name in names}
            for f in concurrent.futures.as_completed(futures):
                name = futures[f]
                (n_counts, n_failed), (x_counts, x_failed) = f.result()
                extra = sorted(set(x_failed) - set(n_failed))
                results[name] = {"numpy": n_counts, "xpshim": x_counts, "fail_only_under_xpshim": extra,
                                 "messages": {t: x_failed[t] for t in extra}}
                print(f"{name:45s} numpy {n_counts.get('passed', 0):5d} passed {n_counts.get('failed', 0):3d} failed | "
                      f"xpshim ({args.device}) {x_counts.get('passed', 0):5d} passed {x_counts.get('failed', 0):3d} failed"
                      f"{'' if not extra else f'  ({len(extra)} fail only under xpshim)'}"
                      f"{'  (NOT COLLECTED: an error at import)' if x_counts.get('error') and not x_counts.get('passed') else ''}"
                      f"{'  (TIMED OUT)' if 'timed out' in x_counts or 'timed out' in n_counts else ''}",
                      flush=True)
                if args.out:
                    meta["done"] = len(results)
                    _write(dict(sorted(results.items(), key=lambda kv: names.index(kv[0]))), args, meta)
    results = dict(sorted(results.items(), key=lambda kv: names.index(kv[0])))
    _explained(results)
    tot = {k: sum(r[k].get("passed", 0) for r in results.values()) for k in ("numpy", "xpshim")}
    extra = sum(len(r["fail_only_under_xpshim"]) for r in results.values())
    listed = sum(1 for r in results.values() for v in r["reasons"].values() if v)
    print(f"total: numpy {tot['numpy']} passed; xpshim ({args.device}) {tot['xpshim']} passed; "
          f"{extra} tests fail only under xpshim ({listed} with a listed reason, {extra - listed} unexplained)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
