"""How long CuPy's import on a thread stops the program's own thread (the GIL), and whether
loading CuPy's shared libraries first through a foreign call to ``dlopen`` (which releases the
GIL) shortens that.

    python benchmarks/import_stalls.py [--rounds 3]

Each variant runs in fresh processes: the main thread runs small Python steps for 1.2 s and
records every gap over 0.5 ms between two steps (a stall: the GIL held elsewhere), while a
thread does, by variant:

* ``idle``: nothing (the baseline);
* ``import``: ``import cupy``;
* ``dlopen+import``: loads, with libc's ``dlopen`` called through ctypes (the GIL released), the
  extension modules a first ``import cupy`` loaded (listed by a process run before), then
  ``import cupy``.

Reported per variant: the medians over rounds of the total stalled time, the longest stall, the
steps done, and the thread's time to finish. Writes nothing; prints a Markdown table.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import ctypes, json, sys, threading, time
variant, libs = sys.argv[1], json.loads(sys.argv[2])
sys.setswitchinterval(1e-4)
done = []
def work():
    t0 = time.perf_counter()
    if variant == "dlopen+import":
        dl = ctypes.CDLL(None)
        dl.dlopen.restype = ctypes.c_void_p
        dl.dlopen.argtypes = (ctypes.c_char_p, ctypes.c_int)
        for p in libs:
            dl.dlopen(p.encode(), 2 | 0x100)  # RTLD_NOW | RTLD_GLOBAL
    if variant != "idle":
        import cupy
    done.append(time.perf_counter() - t0)
th = threading.Thread(target=work, daemon=True)
t_start = time.perf_counter()
th.start()
stalls, steps, last = [], 0, time.perf_counter()
while time.perf_counter() - t_start < 1.2:
    sum(range(200))
    now = time.perf_counter()
    if now - last > 5e-4:
        stalls.append(now - last)
    last = now
    steps += 1
th.join()
print(json.dumps({"stalled": sum(stalls), "longest": max(stalls, default=0), "n": len(stalls), "steps": steps,
                  "thread": done[0] if done else None}))
"""

LIST = r"""
import json, sys
import cupy
print(json.dumps(sorted({m.__file__ for m in list(sys.modules.values())
                         if getattr(m, "__file__", None) and m.__file__.endswith(".so")
                         and ("cupy" in m.__file__)})))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    libs = json.loads(subprocess.run([sys.executable, "-c", LIST], capture_output=True, text=True,
                                     check=True).stdout.strip().splitlines()[-1])
    res = {v: [] for v in ("idle", "import", "dlopen+import")}
    for _ in range(a.rounds):
        for v in res:
            r = subprocess.run([sys.executable, "-c", CHILD, v, json.dumps(libs)], capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(r.stderr[-2000:])
            res[v].append(json.loads(r.stdout.strip().splitlines()[-1]))
    print(f"{len(libs)} extension modules of CuPy's import; medians of {a.rounds} processes\n")
    print("| thread does | stalled ms | longest stall ms | stalls | main-thread steps | thread's time ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for v, rs in res.items():
        med = lambda k: statistics.median(r[k] or 0 for r in rs)  # noqa: E731
        print(f"| {v} | {med('stalled') * 1e3:.1f} | {med('longest') * 1e3:.1f} | {med('n'):.0f} | {med('steps'):.0f} | "
              f"{med('thread') * 1e3:.1f} |")


if __name__ == "__main__":
    main()
