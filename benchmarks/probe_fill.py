"""How the staging buffers are filled, side by side: NumPy's copy (glibc's memcpy) against the
non-temporal copy of ``xpshim._ntcopy`` (64- and 32-byte stores; 4 KiB pages one at a time or
four in turn, as glibc's own large copy does), for the host copy alone into
pinned memory and for xpshim's whole upload from pageable memory.

    python benchmarks/probe_fill.py [--mib 64 --mib 512] [--reps 9] [--out DIR] [--tag NAME]
    GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x100000 python benchmarks/probe_fill.py --tag ...

glibc uses non-temporal stores only above ``x86_non_temporal_threshold`` (about half the L3:
151 MiB on the H200 host), so the staging pipeline's 4 MiB pieces are written through the
caches, each line read before it is written. The second form above lowers that threshold for
one process: glibc's own non-temporal copy, as a reference for ours. Needs a CUDA GPU and CuPy.
Writes <tag>.json and <tag>.md.
"""

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor, wait

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from probe_copies import median_time  # noqa: E402


def main(argv=None):
    import cupy as cp

    import xpshim
    from xpshim import _ntcopy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, action="append")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default="fill-probe")
    args = ap.parse_args(argv)
    piece = 4 << 20  # the staging pipeline's piece: one copy call per piece, one thread each

    def raw(fn):
        return lambda dst, src: fn(dst.ctypes.data, src.ctypes.data, dst.size)

    ours = _ntcopy._function()
    if ours is None:
        sys.exit(f"the non-temporal copy is unavailable here: {_ntcopy._state['why']}")
    f32, _e32 = _ntcopy._compile(32)
    f4p, _e4p = _ntcopy._compile(64, pages=4)
    fills = {"NumPy's copy": (numpy.copyto, None), "non-temporal, 64-byte stores": (raw(ours), ours),
             "non-temporal, 32-byte stores": (raw(f32), f32),
             "non-temporal, 64-byte stores, 4 pages in turn": (raw(f4p), f4p)}
    pool = ThreadPoolExecutor(16)
    res = {"GLIBC_TUNABLES": os.environ.get("GLIBC_TUNABLES", ""), "piece bytes": piece, "threads": 16, "rows": {}}

    def sync():
        cp.cuda.Device().synchronize()

    for mib in args.mib or [64, 512]:
        n = mib << 20
        src = numpy.random.default_rng(mib).integers(0, 255, n, dtype=numpy.uint8)
        pin = numpy.frombuffer(cp.cuda.alloc_pinned_memory(n), numpy.uint8, n)
        for name, (fill, fn) in fills.items():
            def host_copy(fill=fill):
                wait([pool.submit(fill, pin[a:a + piece], src[a:a + piece]) for a in range(0, n, piece)])
            host_copy()
            numpy.testing.assert_array_equal(pin[::4099], src[::4099])
            t = median_time(host_copy, args.reps, lambda: None)
            res["rows"][f"{mib} MiB, host copy into pinned memory, {name}"] = n / t / 1e9

            _ntcopy._state["fn"] = fn  # (None: the staging falls back to NumPy's copy)
            with xpshim.device("gpu"):
                d = xpshim.asarray(src)
                numpy.testing.assert_array_equal(xpshim.asnumpy(d[::4099]), src[::4099])
                del d
                t = median_time(lambda: xpshim.asarray(src), args.reps, sync)
            res["rows"][f"{mib} MiB, xpshim upload from pageable memory, {name}"] = n / t / 1e9
            _ntcopy._state["fn"] = ours
        del pin
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, args.tag + ".json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(args.out, args.tag + ".md"), "w") as f:
        f.write(f"# {args.tag}: staging fills, GB/s (median of {args.reps}; 4 MiB copy calls on 16 threads)\n\n"
                f"GLIBC_TUNABLES={res['GLIBC_TUNABLES'] or '(unset)'}\n\n| case | GB/s |\n|---|---:|\n")
        for k, v in res["rows"].items():
            f.write(f"| {k} | {v:.1f} |\n")
    for k, v in res["rows"].items():
        print(f"{k:75s} {v:6.1f}")


if __name__ == "__main__":
    main()
