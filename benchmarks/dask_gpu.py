"""Dask mode on GPUs: correctness against NumPy, an array larger than a worker's device
memory, and timings of Dask mode vs xpshim on one GPU vs NumPy.

    python benchmarks/dask_gpu.py --out DIR            # GPU: dask_cuda.LocalCUDACluster
    python benchmarks/dask_gpu.py --cpu --quick --out DIR   # CPU: distributed.LocalCluster

GPU mode starts one worker per GPU that CUDA_VISIBLE_DEVICES shows (all of them when
unset), each with ``--device-memory-limit`` (default 2GB) past which dask-cuda spills
chunks to host memory; the large test makes an array of ``--large-gb`` (default 6) GB,
larger than one worker's limit, keeps it in the cluster's memory and reduces it.
Writes ``dask_gpu.json`` and ``dask_gpu.md`` to ``--out``.
"""

import os

# Set before any worker starts: the workers inherit this environment.
os.environ.update(NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "support"), os.path.join(ROOT, "examples")]


def start_cluster(args, limited):
    """The cluster; ``limited``: with the low per-worker memory limit of the large test."""
    import distributed

    if args.cpu:
        cluster = distributed.LocalCluster(n_workers=args.workers or 2, threads_per_worker=1, processes=True,
                                           memory_limit=args.memory_limit if limited else "auto",
                                           dashboard_address=None)
    else:
        from dask_cuda import LocalCUDACluster

        # One worker per visible GPU (CUDA_VISIBLE_DEVICES decides); chunks past the limit spill to host.
        cluster = LocalCUDACluster(device_memory_limit=args.device_memory_limit if limited else "default",
                                   memory_limit=args.memory_limit, dashboard_address=None)
    client = distributed.Client(cluster)
    client.wait_for_workers(len(cluster.workers))
    return cluster, client


def check_workloads(xp):
    """Each shared workload in Dask mode against NumPy: (name, ok, note)."""
    import warnings

    from dask_workloads import A, B, V, WORKLOADS

    rows = []
    for name, f in WORKLOADS.items():
        want = f(numpy, A, B, V)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = f(xp, xp.asarray(A), xp.asarray(B), xp.asarray(V))
            h = numpy.asarray(got)
            ok = h.dtype == numpy.asarray(want).dtype and h.shape == numpy.shape(want) and \
                numpy.allclose(h, want, rtol=1e-8, atol=1e-10)
            rows.append((name, bool(ok), xp.get_device(got)))
        except Exception as e:  # reported, not fatal: the table says which
            rows.append((name, False, f"{type(e).__name__}: {e}"[:200]))
    return rows


def check_examples(xp, tmp):
    import grayscale
    import matmul
    from PIL import Image

    src, out = os.path.join(tmp, "in.png"), os.path.join(tmp, "out.png")
    grayscale.make_example(src, 1920, 1080)
    grayscale.main([src, "--out", out])
    img = numpy.array(Image.open(src))
    want = numpy.dot(img[..., :3], [0.2989, 0.5870, 0.1140]).astype(numpy.uint8)
    gray_ok = int(numpy.abs(numpy.asarray(Image.open(out)).astype(int) - want).max()) <= 1
    a, b, r = matmul.main(["--n", "1000", "--no-loop"])
    mm_ok = numpy.allclose(xp.asnumpy(r), xp.asnumpy(a) @ xp.asnumpy(b), rtol=1e-10)
    return [("grayscale example (Pillow in and out)", gray_ok, xp.get_device(r)),
            ("matmul example (np.dot)", bool(mm_ok), xp.get_device(r))]


def larger_than_memory(xp, client, args):
    """An array of args.large_gb GB, more than one worker's limit: reduced while streaming, and
    (on GPUs) kept in the cluster's memory, where dask-cuda spills what does not fit."""
    n = int(args.large_gb * 1e9 / 8)
    t0 = time.perf_counter()
    x = xp.arange(n, dtype=xp.float64) / n  # known values: the exact answers below
    streamed = float((x * 2.0 + 1.0).sum())
    t_stream = time.perf_counter() - t0
    want = 2.0 * (n - 1) / 2 + n  # sum(2 i/n + 1) for i < n
    row = {"elements": n, "gb": round(n * 8 / 1e9, 2), "limit_per_worker": args.device_memory_limit
           if not args.cpu else args.memory_limit, "workers": len(client.scheduler_info()["workers"]),
           "streamed_sum_ok": abs(streamed - want) / want < 1e-9, "streamed_s": round(t_stream, 2)}
    if not args.cpu:
        t0 = time.perf_counter()
        y = (x * 3.0).persist()  # all of it in the cluster's memory: more than the device limit allows
        import distributed

        distributed.wait(y.dask_array)
        mean = float(y.mean())
        row.update(persisted_mean_ok=abs(mean - 1.5 * (n - 1) / n) < 1e-9, persisted_s=round(time.perf_counter() - t0, 2))
        del y
    return row


def _median_time(f, sync, repeats):
    f()  # warm-up (compilation, library loads, first allocation)
    sync()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = f()
        sync(r)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def timings(xp, args, rows):
    """Median seconds of each operation: NumPy, xpshim on one GPU, Dask mode (results kept on the
    cluster, not gathered)."""
    import distributed

    rng = numpy.random.default_rng(1)
    n_el, n_mm = (2_000_000, 1024) if args.quick else (args.elements, args.matrix)
    a = rng.random(n_el)
    m = rng.random((n_mm, n_mm))
    ops = {
        f"a*a + a, {n_el:.0e} float64": (lambda np, a, m: a * a + a, "a"),
        f"sum of sqrt, {n_el:.0e}": (lambda np, a, m: np.sqrt(a).sum(), "a"),
        f"mean and std, {n_el:.0e}": (lambda np, a, m: np.std(a) + np.mean(a), "a"),
        f"np.dot {n_mm}x{n_mm}": (lambda np, a, m: np.dot(m, m), "m"),
        f"matrix column sums {n_mm}x{n_mm}": (lambda np, a, m: m.sum(axis=0), "m"),
    }
    gpu = None
    if not args.cpu:
        from xpshim import _backend

        if _backend.gpu_status().usable:
            gpu = _backend.xp
    for name, (f, _) in ops.items():
        row = {"workload": name}
        row["numpy_s"] = _median_time(lambda: f(numpy, a, m), lambda r=None: None, args.repeats)
        if gpu is not None:
            with xp.device("gpu"):
                ga, gm = xp.asarray(a), xp.asarray(m)
                row["xpshim_gpu_s"] = _median_time(lambda: f(xp, ga, gm),
                                                   lambda r=None: gpu.cuda.Device().synchronize(), args.repeats)
                del ga, gm
        # Made on the workers (sending GBs of host data inside a graph is slow): same shapes, other values.
        da_, dm = xp.random.random(a.shape).persist(), xp.random.random(m.shape).persist()

        def on_cluster():
            r = f(xp, da_, dm)
            return r.persist() if xp.get_device(r) == "dask" else r

        def wait(r=None):
            if r is not None and xp.get_device(r) == "dask":
                distributed.wait(r.dask_array)
        row["dask_s"] = _median_time(on_cluster, wait, args.repeats)
        rows.append(row)
        print(f"  {name}: {row}", flush=True)
        args.save()
    return rows


def markdown(report):
    lines = [f"# Dask mode: {report['cluster']}", "", f"{report['mode']}", "",
             "## Correctness (vs NumPy: values, dtype, shape)", "", "| workload | ok | device / note |", "|---|---|---|"]
    lines += [f"| {n} | {'yes' if ok else '**NO**'} | {note} |" for n, ok, note in report["checks"]]
    lines += ["", "## Larger than a worker's memory", "", "```", json.dumps(report["large"], indent=1), "```", "",
              "## Timings (median seconds; Dask results kept on the cluster)", "",
              "| workload | NumPy | xpshim, one GPU | Dask mode |", "|---|---|---|---|"]
    fmt = lambda v: "—" if v is None else f"{v:.4f}"  # noqa: E731
    lines += [f"| {r['workload']} | {fmt(r['numpy_s'])} | {fmt(r.get('xpshim_gpu_s'))} | {fmt(r['dask_s'])} |"
              for r in report["timings"]]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="CPU workers (distributed.LocalCluster), no GPU needed")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=0, help="CPU mode: number of workers (default 2)")
    ap.add_argument("--device-memory-limit", default="2GB", help="GPU mode: per worker, past which chunks spill")
    ap.add_argument("--memory-limit", default=None, help="host memory per worker (default: Dask's)")
    ap.add_argument("--large-gb", type=float, default=None, help="size of the larger-than-memory array (default 6, quick 0.4)")
    ap.add_argument("--chunk-bytes", default=None, help="XPSHIM_DASK_CHUNK_BYTES for the run (default 256MiB, quick 8MiB)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--elements", type=int, default=50_000_000, help="length of the vectors timed (default 5e7)")
    ap.add_argument("--matrix", type=int, default=4096, help="side of the matrices timed (default 4096)")
    args = ap.parse_args(argv)
    args.large_gb = args.large_gb or (0.4 if args.quick else 6.0)
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.memory_limit = args.memory_limit or ("1GB" if args.cpu else "auto")
    chunk_bytes = args.chunk_bytes or ("8MiB" if args.quick else "256MiB")
    os.makedirs(args.out, exist_ok=True)

    import xpshim as xp
    from xpshim import _dask

    report = {"cluster": None, "mode": None, "python": platform.python_version(), "numpy": numpy.__version__,
              "checks": [], "large": {}, "timings": [],
              "env": {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "NCCL_NVLS_ENABLE",
                                                     "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS")}}

    def save():  # after every stage: a run cut short keeps what it measured
        with open(os.path.join(args.out, "dask_gpu.json"), "w") as f:
            json.dump(report, f, indent=2)
        with open(os.path.join(args.out, "dask_gpu.md"), "w") as f:
            f.write(markdown(report))
    args.save = save

    for limited in (True, False):  # the large test on tight workers, the rest with Dask's default limits
        cluster, client = start_cluster(args, limited)
        try:
            with xp.device("dask", client=client, chunk_bytes=chunk_bytes):
                report["mode"] = _dask.describe()
                report["cluster"] = f"{len(client.scheduler_info()['workers'])} worker(s), {'CPU' if args.cpu else 'GPU'}"
                print(report["mode"], flush=True)
                if limited:
                    report["large"] = larger_than_memory(xp, client, args)
                    print(f"  larger than a worker's memory: {report['large']}", flush=True)
                    save()
                    continue
                report["checks"] = check_workloads(xp) + check_examples(xp, args.out)
                print(f"  checks: {sum(ok for _, ok, _ in report['checks'])} of {len(report['checks'])} match NumPy",
                      flush=True)
                save()
                timings(xp, args, report["timings"])
        finally:
            client.close()
            cluster.close()
    save()
    print(markdown(report))
    checks, large = report["checks"], report["large"]
    bad = [n for n, ok, _ in checks if not ok]
    if bad or not large["streamed_sum_ok"] or large.get("persisted_mean_ok") is False:
        print(f"FAILED: {bad or 'the larger-than-memory array'}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
