"""Where the per-call routing cost goes: cProfile of small GPU calls through xpshim.

    python benchmarks/profile_percall.py   (needs a GPU; prints the top entries per case)
"""

import cProfile
import io
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy  # noqa: E402

import xpshim as xs  # noqa: E402


def main(n=20000):
    with xs.device("gpu"):
        x = xs.asarray(numpy.random.default_rng(0).random(16))
        cases = {"np.zeros(16)": lambda: xs.zeros(16), "np.sum(a, axis=0)": lambda: xs.sum(x, axis=0),
                 "float(a.sum())": lambda: float(x.sum()), "np.sqrt(a)": lambda: xs.sqrt(x)}
        for name, fn in cases.items():
            for _ in range(200):
                fn()
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(n):
                fn()
            pr.disable()
            buf = io.StringIO()
            pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(8)
            print(f"=== {name}: {n} calls\n" + "\n".join(buf.getvalue().splitlines()[4:20]))


if __name__ == "__main__":
    main()
