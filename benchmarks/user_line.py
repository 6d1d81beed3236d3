"""What finding the user's line costs, deep into a long script, side by side in one process.

    python benchmarks/user_line.py [--lines 100,2000] [--reps 7] [--out benchmarks/results]

xpshim finds the user's line for every counted copy or value read (``_transfer._site``) and, in
auto mode, for every new GPU array it may remember (``_placement.birth_line``). Both walk the
frames above the call; for a script of each length (``--lines``, its reads at the end, at module
level) this times, per call in microseconds (the best of ``--reps`` batches):

* ``birth_line`` and ``_site`` as they are (one identity-hashed record per code object, with the
  lines of the instruction offsets met);
* what the two steps they avoid would cost there: hashing the script's code object (as a table
  keyed by code objects does at each lookup) and reading the frame's ``f_lineno`` (which reads the
  code's line table from its start).

Writes ``user-line.json`` and ``user-line.md`` to ``--out``. Needs no GPU.
"""

import argparse
import json
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from xpshim import _placement, _transfer  # noqa: E402

PROBE = """
import sys as _sys, time as _time
def _best(f, n, reps):
    best = 1e9
    for _ in range(reps):
        t0 = _time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, _time.perf_counter() - t0)
    return best / n * 1e6
_f = _sys._getframe()
_code = _f.f_code
RESULT = {
    "birth_line": _best(BIRTH_LINE, N, REPS),
    "_site": _best(lambda: SITE(1, "x"), N, REPS),
    "hash(code)": _best(lambda: hash(_code), N, REPS),
    "f_lineno": _best(lambda: _f.f_lineno, N, REPS),
}
"""


def measure(lines, reps, n=20000):
    """{step: microseconds per call} for a script of ``lines`` lines, its reads at the end."""
    body = [f"def g{i}(a, b):\n    return a + b * {i}\n" for i in range(lines // 4)]
    body += [f"z{i} = {i}\n" for i in range(lines - 2 * (lines // 4))]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"script_{lines}.py")
        with open(path, "w") as f:
            f.write("".join(body) + PROBE)
        code = compile(open(path).read(), path, "exec")
        ns = {"BIRTH_LINE": _placement.birth_line, "SITE": _transfer._site, "N": n, "REPS": reps,
              "__name__": "__main__"}
        exec(code, ns)
    return ns["RESULT"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", default="100,2000")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--out", default=os.path.join(HERE, "results"))
    a = p.parse_args(argv)
    sizes = [int(s) for s in a.lines.split(",")]
    results = {str(n): measure(n, a.reps) for n in sizes}
    meta = {"python": platform.python_version(), "cpus": os.cpu_count(), "reps": a.reps}
    try:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "user-line.json"), "w") as f:
            json.dump({"machine": meta, "results": results}, f, indent=1)
        rows = ["| script lines | birth_line us | _site us | hash(code) us (avoided) | f_lineno us (avoided) |",
                "|---:|---:|---:|---:|---:|"]
        rows += [f"| {n} | {r['birth_line']:.2f} | {r['_site']:.2f} | {r['hash(code)']:.2f} | {r['f_lineno']:.2f} |"
                 for n, r in results.items()]
        text = (f"# Finding the user's line (Python {meta['python']}, {meta['cpus']} CPUs, best of {a.reps})\n\n"
                "Per call, the reads at the end of the script, at module level.\n\n" + "\n".join(rows) + "\n")
        with open(os.path.join(a.out, "user-line.md"), "w") as f:
            f.write(text)
    except OSError as e:
        raise SystemExit(f"cannot write the results to {a.out!r} ({e.strerror}): pass a writable folder as --out")
    print(text)


if __name__ == "__main__":
    main()
