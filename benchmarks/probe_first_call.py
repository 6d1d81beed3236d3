"""The first call of a workload in auto mode in a fresh process, profiled, beside NumPy's runs
before it and auto's runs after it (not interleaved: a drift of the host's speed shows as a
difference).

    python benchmarks/probe_first_call.py cholesky_by_hand
"""
import sys, time, importlib, cProfile, pstats, io, os
sys.path.insert(0, "benchmarks")
import numpy, xpshim, warnings
import workloads
name = sys.argv[1]
mod = importlib.import_module("workloads." + name)
n = mod.SIZES["full"]
def go(m):
    with xpshim.device("auto"):
        t0 = time.perf_counter(); mod.run(m, n); return (time.perf_counter() - t0) * 1e3
print("numpy", round(go(numpy), 1), round(go(numpy), 1))
pr = cProfile.Profile(); pr.enable(); t1 = go(xpshim); pr.disable()
print("auto first (profiled)", round(t1, 1), "then", [round(go(xpshim), 1) for _ in range(3)])
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14); print("\n".join(s.getvalue().splitlines()[3:24]))
pr = cProfile.Profile(); pr.enable(); t2 = go(xpshim); pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(8); print("later (profiled)", round(t2, 1)); print("\n".join(s.getvalue().splitlines()[3:16]))
