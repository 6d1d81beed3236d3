"""The first copies of a fresh process: three uploads of one size through xpshim, then CuPy's
own, each timed with a synchronisation; prints the staging buffers made (MiB).

    python benchmarks/probe_first_copy.py NBYTES   (needs a GPU)
"""
import sys, time, numpy, xpshim
nbytes = int(sys.argv[1])
h = numpy.random.default_rng(0).random(nbytes // 8)
with xpshim.device("gpu"):
    cp = xpshim._backend.xp
    z = xpshim.zeros(1); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(3):
        t0 = time.perf_counter(); x = xpshim.asarray(h); cp.cuda.Device().synchronize(); ts.append((time.perf_counter() - t0) * 1e3)
    c0 = time.perf_counter(); y = cp.asarray(h); cp.cuda.Device().synchronize(); c = (time.perf_counter() - c0) * 1e3
print(f"{nbytes >> 10} KiB: xpshim first three copies {[round(t, 2) for t in ts]} ms; CuPy's next {c:.2f} ms;",
      "staging", [b if b is None else b[1].size >> 20 for b in xpshim._pinned._state["bufs"]], "MiB")
