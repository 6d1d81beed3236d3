"""Host-to-device copy strategies from ordinary (pageable) memory, side by side.

    python benchmarks/probe_copies.py [--mib 512] [--out benchmarks/results] [--tag NAME]

xpshim's pinned pipeline (xpshim/_pinned.py) reaches about 20 GB/s host to device on an
H200 host, against 54 GB/s from pinned memory. This measures what the alternatives reach
on the machine at hand, to choose the next design from figures:

* CuPy's own copy from pageable memory (the driver's staging);
* staging through pinned buffers: chunk size x number of copying threads;
* registering the source in place (cudaHostRegister), whole or chunk by chunk;
* the copy into pinned memory alone (the host's share of the staging cost), and the
  pinned upload alone (the bus's share).

Needs a CUDA GPU and CuPy. Reports medians; writes JSON and Markdown.
"""

import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy


def median_time(f, reps, sync):
    f()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        sync()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]


def main(argv=None):
    import cupy as cp

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=512)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--tag", default="copies-probe")
    args = ap.parse_args(argv)
    n = args.mib << 20
    src = numpy.random.default_rng(0).integers(0, 255, n, dtype=numpy.uint8)
    dst = cp.empty(n, cp.uint8)
    stream = cp.cuda.get_current_stream()
    sync = stream.synchronize
    rt = cp.cuda.runtime
    rows = {}

    def gbs(name, f):
        t = median_time(f, args.reps, sync)
        rows[name] = {"seconds": t, "GB/s": n / t / 1e9}
        print(f"{name:48s} {n / t / 1e9:6.1f} GB/s")

    gbs("cupy pageable (dst.set)", lambda: dst.set(src))
    pinned_all = cp.cuda.alloc_pinned_memory(n)
    pv = numpy.frombuffer(pinned_all, numpy.uint8, n)
    pool = ThreadPoolExecutor(16)

    def par_copy(d, s, k):
        step = (s.size + k - 1) // k
        list(pool.map(lambda i: numpy.copyto(d[i * step:(i + 1) * step], s[i * step:(i + 1) * step]), range(k)))

    for k in (1, 4, 8, 16):
        gbs(f"host copy into pinned only, {k} threads", lambda k=k: par_copy(pv, src, k))
    gbs("pinned upload only", lambda: rt.memcpyAsync(dst.data.ptr, pv.ctypes.data, n, 1, stream.ptr))

    for chunk_mib in (8, 16, 64):
        chunk = chunk_mib << 20
        bufs = [cp.cuda.alloc_pinned_memory(chunk) for _ in range(3)]
        views = [numpy.frombuffer(b, numpy.uint8, chunk) for b in bufs]
        for k in (4, 8, 16):
            def staged(chunk=chunk, bufs=bufs, views=views, k=k):
                events = [None] * 3
                for i, off in enumerate(range(0, n, chunk)):
                    j = i % 3
                    if events[j] is not None:
                        events[j].synchronize()
                    m = min(chunk, n - off)
                    par_copy(views[j][:m], src[off:off + m], k)
                    rt.memcpyAsync(dst.data.ptr + off, bufs[j].ptr, m, 1, stream.ptr)
                    ev = cp.cuda.Event(block=False, disable_timing=True)
                    ev.record(stream)
                    events[j] = ev
            gbs(f"staged {chunk_mib} MiB x3, {k} threads", staged)

    def registered_whole():
        rt.hostRegister(src.ctypes.data, n, 0)
        rt.memcpyAsync(dst.data.ptr, src.ctypes.data, n, 1, stream.ptr)
        sync()
        rt.hostUnregister(src.ctypes.data)
    gbs("registered in place, whole", registered_whole)

    def registered_chunks(chunk=64 << 20):
        done = []
        for off in range(0, n, chunk):
            m = min(chunk, n - off)
            rt.hostRegister(src.ctypes.data + off, m, 0)
            rt.memcpyAsync(dst.data.ptr + off, src.ctypes.data + off, m, 1, stream.ptr)
            done.append(off)
        sync()
        for off in done:
            rt.hostUnregister(src.ctypes.data + off)
    gbs("registered in place, 64 MiB chunks", registered_chunks)

    numpy.testing.assert_array_equal(dst[-4096:].get(), src[-4096:])  # the last strategy's copy arrived
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, args.tag + ".json"), "w") as f:
        json.dump({"bytes": n, "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                   "cpus": os.cpu_count(), "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, args.tag + ".md"), "w") as f:
        f.write(f"# Host-to-device strategies, {args.mib} MiB from pageable memory\n\n| strategy | GB/s |\n|---|---:|\n")
        f.writelines(f"| {k} | {v['GB/s']:.1f} |\n" for k, v in rows.items())


if __name__ == "__main__":
    main()
