"""Run the differential suite in parallel shards and write its results matrix.

    python tests/differential/run_diff.py --examples 200 --tag h200-diff-v2            # on a GPU machine
    python tests/differential/run_diff.py --target fake --examples 50 --tag stand-in   # anywhere

Each shard is one pytest process (``XPSHIM_SHARD=i/n``) writing a row per test as it ends
(conftest's ``XPSHIM_DIFF_RESULTS``), so a run cut short by ``--timeout`` keeps what it did;
``--resume`` runs only the tests the tag's rows do not have yet. Generation is derandomized:
the same examples every run. Writes ``<out>/<tag>.jsonl`` (rows), ``<tag>.json`` (machine,
versions, rows, the tests not yet run) and ``<tag>.md`` (totals, failures first, the matrix).
"""

import argparse
import glob
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _collect(marker, extra):
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
                          "-m", marker, os.path.join(HERE, "test_differential.py"), *extra],
                         cwd=ROOT, capture_output=True, text=True).stdout
    return [ln.split("::", 1)[1] for ln in out.splitlines() if "::" in ln]


def _rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _machine():
    meta = {"python": platform.python_version(), "platform": platform.platform()}
    import numpy

    meta["numpy"] = numpy.__version__
    try:
        import cupy

        meta["cupy"] = cupy.__version__
        props = cupy.cuda.runtime.getDeviceProperties(0)
        meta["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        meta["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    except Exception as e:  # no GPU: the stand-in target
        meta["gpu"] = f"none ({type(e).__name__})"
    return meta


def write_matrix(out, tag, expected, meta, wall):
    rows = {r["test"]: r for r in _rows(os.path.join(out, tag + ".jsonl"))}
    missing = [t for t in expected if t not in rows]
    counts = {}
    for r in rows.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    test_seconds = sum(r["seconds"] for r in rows.values())
    with open(os.path.join(out, tag + ".json"), "w") as f:
        json.dump({"machine": meta, "totals": counts, "not_run": missing, "wall_seconds": wall,
                   "results": list(rows.values())}, f, indent=1)
    order = {"failed": 0, "error": 1, "xfail": 2, "passed": 3, "skipped": 4}
    with open(os.path.join(out, tag + ".md"), "w") as f:
        f.write(f"# Differential results: {tag}\n\n")
        f.write("".join(f"- {k}: {v}\n" for k, v in meta.items()))
        f.write(f"\nTotals: {counts}; {len(missing)} of {len(expected)} not run; "
                f"{test_seconds:.0f} s in tests, {wall:.0f} s wall\n\n")
        f.write("| test | outcome | s | message |\n|---|---|---|---|\n")
        for r in sorted(rows.values(), key=lambda r: (order.get(r["outcome"], 5), r["test"])):
            f.write(f"| `{r['test']}` | {r['outcome']} | {r['seconds']} | {r['message'].replace('|', '/')} |\n")
        for t in missing:
            f.write(f"| `{t}` | not run | | |\n")
    return counts, missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200, help="Hypothesis examples per test (default 200)")
    ap.add_argument("--shards", type=int, default=min(8, os.cpu_count() or 1), help="parallel pytest processes")
    ap.add_argument("--target", choices=["gpu", "fake"], default="gpu", help="real CuPy (default) or the stand-in")
    ap.add_argument("--tag", default="differential", help="results file name")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results"), help="results folder")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before unfinished shards are stopped")
    ap.add_argument("--resume", action="store_true", help="run only the tests the tag has no row for")
    ap.add_argument("-k", default=None, help="pytest -k expression")
    args = ap.parse_args(argv)

    marker = "gpu and diff" if args.target == "gpu" else "diff and not gpu"
    extra = ["-k", args.k] if args.k else []
    expected = _collect(marker, extra)
    os.makedirs(args.out, exist_ok=True)
    jsonl = os.path.join(args.out, args.tag + ".jsonl")
    if not args.resume:
        for p in glob.glob(os.path.join(args.out, args.tag + ".*")):
            os.remove(p)
    env = dict(os.environ, XPSHIM_DIFF_EXAMPLES=str(args.examples), XPSHIM_DIFF_RESULTS=args.out,
               XPSHIM_DIFF_TAG=args.tag, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    if args.resume:
        snapshot = jsonl + ".done"
        with open(snapshot, "w") as f:
            f.writelines(open(jsonl).readlines() if os.path.exists(jsonl) else [])
        env["XPSHIM_DIFF_SKIP"] = snapshot
    env.pop("XPSHIM_DEVICE", None)
    print(f"{len(expected)} tests, {args.examples} examples each, {args.shards} shards", flush=True)
    start = time.perf_counter()
    procs = []
    for i in range(args.shards):
        log = open(os.path.join(args.out, f"{args.tag}.shard{i}.log"), "w")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker,
               os.path.join(HERE, "test_differential.py"), *extra]
        procs.append((subprocess.Popen(cmd, cwd=ROOT, env=dict(env, XPSHIM_SHARD=f"{i}/{args.shards}"),
                                       stdout=log, stderr=subprocess.STDOUT), log))
    for p, log in procs:
        left = None if args.timeout is None else max(1.0, args.timeout - (time.perf_counter() - start))
        try:
            p.wait(timeout=left)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()
    wall = time.perf_counter() - start
    # conftest's per-session files would overwrite one another across shards: the matrix is ours
    counts, missing = write_matrix(args.out, args.tag, expected, _machine(), wall)
    print(f"totals {counts}; not run {len(missing)}; wall {wall:.0f} s", flush=True)
    return 1 if counts.get("failed") or counts.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
