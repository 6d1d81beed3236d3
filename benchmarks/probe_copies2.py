"""Host-to-device copy strategies from pageable memory, second set, side by side.

    python benchmarks/probe_copies2.py [--mib 512 --mib 64] [--reps 5] [--out DIR] [--tag NAME]

The first probe (probe_copies.py, results/h200-copies-probe-v1.*) found the host's own copy
into pinned memory (38.7 GB/s with 16 threads) below the bus (53 GB/s), and registering the
source in place slower still (15-20 GB/s), each done from one thread. This one measures:

* xpshim's own upload (``xpshim.asarray`` on the GPU), beside CuPy's pageable copy;
* the host copy alone, into pinned and into pageable memory (is pinned memory the limit?);
* staging in pieces: worker threads fill pieces of the staging buffers, and the calling
  thread sends each piece as soon as it is filled, in order (the fill and the bus overlap
  within one buffer);
* registering in place, from several threads at once (the driver's page pinning in
  parallel), each thread sending and then unregistering its own slice;
* the driver's own pageable copy from several threads at once, one stream each;
* a hybrid: part of the source registered and sent in place, the rest staged.

The CUDA runtime is called through ctypes where threads must run at once (ctypes lets go of
the GIL during the call). Needs a CUDA GPU and CuPy. Reports medians; writes JSON and Markdown.
"""

import argparse
import ctypes
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from probe_copies import median_time  # noqa: E402  (the same timing as the first probe)


class RuntimeAPI:
    """CuPy's CUDA runtime calls (whether they let go of the GIL is what the figures show)."""
    name = "CuPy runtime"

    def __init__(self, cp):
        self.rt = cp.cuda.runtime

    def thread_init(self):
        pass

    def reg(self, p, n, flags=0):
        self.rt.hostRegister(p, n, flags)
        return 0

    def unreg(self, p):
        self.rt.hostUnregister(p)
        return 0

    def h2d(self, d, p, n, s):
        self.rt.memcpyAsync(d, p, n, 1, s)
        return 0

    def sync(self, s):
        self.rt.streamSynchronize(s)
        return 0


class DriverAPI:
    """The CUDA driver (libcuda) through ctypes, which lets go of the GIL during each call;
    each thread makes the main thread's context (the runtime's primary one) current first."""
    name = "driver via ctypes"

    def __init__(self, cp):
        cp.cuda.Device().synchronize()  # (the primary context exists and is current here)
        lib = ctypes.CDLL("libcuda.so.1")
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        for fn, argt in (("cuMemHostRegister_v2", [vp, sz, ctypes.c_uint]), ("cuMemHostUnregister", [vp]),
                         ("cuMemcpyHtoDAsync_v2", [ctypes.c_uint64, vp, sz, vp]), ("cuStreamSynchronize", [vp]),
                         ("cuCtxSetCurrent", [vp]), ("cuCtxGetCurrent", [ctypes.POINTER(vp)])):
            getattr(lib, fn).argtypes = argt
        self.lib = lib
        ctx = vp()
        check(lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        self.ctx = ctx

    def thread_init(self):
        check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def reg(self, p, n, flags=0):
        return self.lib.cuMemHostRegister_v2(p, n, flags)

    def unreg(self, p):
        return self.lib.cuMemHostUnregister(p)

    def h2d(self, d, p, n, s):
        return self.lib.cuMemcpyHtoDAsync_v2(d, p, n, s)

    def sync(self, s):
        return self.lib.cuStreamSynchronize(s)


def check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: CUDA error {rc}")


def system_facts(cp):
    facts = {}
    for name in ("enabled", "defrag"):
        try:
            with open(f"/sys/kernel/mm/transparent_hugepage/{name}") as f:
                facts["thp_" + name] = f.read().strip()
        except OSError as exc:
            facts["thp_" + name] = f"unreadable: {exc}"
    try:
        facts["numpy_madvise_hugepage"] = bool(numpy._core.multiarray._get_madvise_hugepage())
    except Exception as exc:  # (private NumPy API: recorded, not relied on)
        facts["numpy_madvise_hugepage"] = f"unknown: {exc}"
    rt = cp.cuda.runtime
    for attr, num in (("pageableMemoryAccess", 88), ("pageableMemoryAccessUsesHostPageTables", 100),
                      ("hostRegisterSupported", 99), ("canUseHostPointerForRegisteredMem", 91)):
        try:
            facts[attr] = rt.deviceGetAttribute(num, 0)
        except Exception as exc:
            facts[attr] = f"unknown: {exc}"
    try:
        with open("/proc/meminfo") as f:
            facts["meminfo"] = {l.split(":")[0]: l.split(":")[1].strip() for l in f
                                if l.startswith(("AnonHugePages", "MemTotal", "Hugepagesize"))}
    except OSError:
        pass
    try:
        import subprocess

        facts["numa"] = subprocess.run(["numactl", "--hardware"], capture_output=True, text=True, timeout=5).stdout[:600]
    except Exception as exc:
        facts["numa"] = f"numactl unavailable: {exc}"
    return facts


def main(argv=None):
    import cupy as cp

    import xpshim

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, action="append")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="copies-probe-v2")
    args = ap.parse_args(argv)
    sizes = args.mib or [512, 64]
    stream0 = cp.cuda.get_current_stream()
    rt = cp.cuda.runtime
    apis = [RuntimeAPI(cp)]
    facts = system_facts(cp)
    try:
        apis.append(DriverAPI(cp))
    except Exception as exc:
        facts["driver_ctypes"] = f"unavailable: {exc}"
    print(json.dumps(facts, indent=1))
    pool = ThreadPoolExecutor(16)
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(16)]
    results = {}

    for mib in sizes:
        n = mib << 20
        raw = numpy.empty(n + 4096, numpy.uint8)  # page-aligned, so that slices register apart
        a0 = (-raw.ctypes.data) % 4096
        src = raw[a0:a0 + n]
        src[:] = numpy.random.default_rng(mib).integers(0, 255, n, dtype=numpy.uint8)
        dst = cp.empty(n, cp.uint8)
        rows = results[f"{mib} MiB"] = {}

        def sync():
            cp.cuda.Device().synchronize()

        def gbs(name, f):
            try:
                t = median_time(f, args.reps, sync)
            except Exception as exc:
                rows[name] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
                print(f"{mib:4d} MiB  {name:58s} error {exc}"[:160])
                return
            rows[name] = {"seconds": t, "GB/s": n / t / 1e9}
            print(f"{mib:4d} MiB  {name:58s} {n / t / 1e9:6.1f} GB/s")

        def arrived():
            numpy.testing.assert_array_equal(dst[::4099].get(), src[::4099])
            dst.fill(0)

        with xpshim.device("gpu"):
            gbs("xpshim.asarray (this version's pipeline)", lambda: xpshim.asarray(src))
        gbs("cupy pageable (dst.set)", lambda: dst.set(src))

        def par(k, f):
            step = (n + k - 1) // k
            list(pool.map(lambda i: f(i, i * step, min(step, n - i * step)), range(k)))

        pinned = cp.cuda.alloc_pinned_memory(n)
        pv = numpy.frombuffer(pinned, numpy.uint8, n)
        plain = numpy.empty(n, numpy.uint8)
        plain.fill(1)  # (touched: no page faults in the timing)
        for k in (1, 8, 16):
            gbs(f"host copy into pinned, {k} threads", lambda k=k: par(k, lambda i, o, m: numpy.copyto(pv[o:o + m], src[o:o + m])))
        gbs("host copy into pageable, 16 threads", lambda: par(16, lambda i, o, m: numpy.copyto(plain[o:o + m], src[o:o + m])))
        gbs("pinned upload only", lambda: rt.memcpyAsync(dst.data.ptr, pv.ctypes.data, n, 1, stream0.ptr))
        del plain

        chunk = 64 << 20
        bufs = [cp.cuda.alloc_pinned_memory(chunk) for _ in range(3)]
        views = [numpy.frombuffer(b, numpy.uint8, chunk) for b in bufs]
        for piece_mib, k in ((2, 16), (4, 16), (8, 16), (4, 12), (16, 16)):
            piece = piece_mib << 20

            def pieces(piece=piece, k=k):
                ex = pool if k == 16 else ThreadPoolExecutor(k)
                events = [None] * 3
                for i, off in enumerate(range(0, n, chunk)):
                    j = i % 3
                    if events[j] is not None:
                        events[j].synchronize()
                    m = min(chunk, n - off)
                    futs = [(p, min(piece, m - p), ex.submit(numpy.copyto, views[j][p:p + min(piece, m - p)],
                                                              src[off + p:off + p + min(piece, m - p)]))
                            for p in range(0, m, piece)]
                    for p, q, fut in futs:
                        fut.result()
                        rt.memcpyAsync(dst.data.ptr + off + p, bufs[j].ptr + p, q, 1, stream0.ptr)
                    ev = cp.cuda.Event(block=False, disable_timing=True)
                    ev.record(stream0)
                    events[j] = ev
                if ex is not pool:
                    ex.shutdown()
            gbs(f"staged 64 MiB x3 in {piece_mib} MiB pieces, {k} threads, sent in order", pieces)
        arrived()

        for api in apis:
            L = f" ({api.name})"
            base, dbase = src.ctypes.data, dst.data.ptr

            def reg_only(api=api):
                check(api.reg(base, n, 0), "register")
                check(api.unreg(base), "unregister")
            gbs("register + unregister only, whole, 1 thread" + L, reg_only)

            for k in (4, 8, 16):
                def reg_par(k=k, api=api):
                    def one(i, o, m):
                        api.thread_init()
                        s = streams[i].ptr
                        check(api.reg(base + o, m, 0), "register")
                        check(api.h2d(dbase + o, base + o, m, s), "copy")
                        check(api.sync(s), "sync")
                        check(api.unreg(base + o), "unregister")
                    par(k, one)
                gbs(f"registered in place, {k} threads, own streams" + L, reg_par)
            arrived()

            for k in (4, 8, 16):
                def drv_par(k=k, api=api):
                    def one(i, o, m):
                        api.thread_init()
                        s = streams[i].ptr
                        check(api.h2d(dbase + o, base + o, m, s), "copy")
                        check(api.sync(s), "sync")
                    par(k, one)
                gbs(f"driver pageable copy, {k} threads, own streams" + L, drv_par)
            arrived()

            for frac, kr in ((0.25, 2), (0.4, 4), (0.5, 4)):
                def hybrid(frac=frac, kr=kr, api=api):
                    cut = (int(n * frac) >> 21) << 21  # registered head: whole 2 MiB pages
                    head = (cut + kr - 1) // kr

                    def reg(i):
                        o, m = i * head, min(head, cut - i * head)
                        if m <= 0:
                            return
                        api.thread_init()
                        s = streams[i].ptr
                        check(api.reg(base + o, m, 0), "register")
                        check(api.h2d(dbase + o, base + o, m, s), "copy")
                        check(api.sync(s), "sync")
                        check(api.unreg(base + o), "unregister")
                    futs = [pool.submit(reg, i) for i in range(kr)]
                    rest, k = n - cut, 16 - kr
                    ex = ThreadPoolExecutor(k)
                    events = [None] * 3
                    for i, off in enumerate(range(cut, n, chunk)):
                        j = i % 3
                        if events[j] is not None:
                            events[j].synchronize()
                        m = min(chunk, n - off)
                        step = (m + k - 1) // k
                        list(ex.map(lambda t: numpy.copyto(views[j][t * step:min(m, (t + 1) * step)],
                                                           src[off + t * step:off + min(m, (t + 1) * step)]), range(k)))
                        rt.memcpyAsync(dbase + off, bufs[j].ptr, m, 1, stream0.ptr)
                        ev = cp.cuda.Event(block=False, disable_timing=True)
                        ev.record(stream0)
                        events[j] = ev
                    for f in futs:
                        f.result()
                    ex.shutdown()
                    del rest
                gbs(f"hybrid: {int(frac * 100)}% registered by {kr} threads, rest staged by {16 - kr}" + L, hybrid)
            arrived()
        del src, raw, dst, pinned, pv
        cp.get_default_memory_pool().free_all_blocks()

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, args.tag + ".json"), "w") as f:
        json.dump({"gpu": rt.getDeviceProperties(0)["name"].decode(), "cpus": os.cpu_count(),
                   "facts": facts, "rows": results}, f, indent=1)
    with open(os.path.join(args.out, args.tag + ".md"), "w") as f:
        f.write("# Host-to-device strategies from pageable memory, second set\n\n")
        f.write("| strategy | " + " | ".join(f"{k}, GB/s" for k in results) + " |\n|---|" + "---:|" * len(results) + "\n")
        names = list(dict.fromkeys(k for rows in results.values() for k in rows))
        for name in names:
            cells = [("error" if "error" in r.get(name, {}) else f"{r[name]['GB/s']:.1f}" if name in r else "-")
                     for r in results.values()]
            f.write(f"| {name} | " + " | ".join(cells) + " |\n")
        f.write("\nFacts: " + json.dumps({k: v for k, v in facts.items() if k != "numa"}) + "\n")


if __name__ == "__main__":
    main()
