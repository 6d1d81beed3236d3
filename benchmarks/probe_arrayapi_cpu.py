"""The CPU path's cost of the array API additions (device=, copy=, the hooks that read them).

Times calls without device= and copy= (which must cost what they did) and, for reference,
with device="cpu", on the CPU device; min of repeats. Run it from two trees to compare:

    python benchmarks/probe_arrayapi_cpu.py TAG     # writes benchmarks/results/arrayapi-cpu-TAG.{json,md}
"""

import json
import os
import platform
import sys
import timeit

import numpy

sys.path.insert(0, os.getcwd())  # the xpshim of the tree it is run from
import xpshim  # noqa: E402

CALLS = ["np.zeros(10)", "np.asarray(x)", "np.empty(10)", "np.ones((3, 3))", "np.arange(10)", "np.full(3, 1.0)",
         "np.zeros_like(x)", "np.eye(3)", "np.sum(x)", "np.zeros(10, device='cpu')", "np.asarray(x, copy=False)"]


def main(tag, number=20000, repeat=25):
    x = numpy.ones(10)
    rows = []
    for stmt in CALLS:
        ns = {}
        for label, mod in (("xpshim", xpshim), ("numpy", numpy)):
            t = timeit.repeat(stmt, globals={"np": mod, "x": x}, number=number, repeat=repeat)
            ns[label] = round(min(t) / number * 1e9, 1)
        rows.append({"call": stmt, **{f"{k}_ns": v for k, v in ns.items()}})
    meta = {"tag": tag, "xpshim": xpshim.__file__, "numpy": numpy.__version__, "python": platform.python_version(),
            "device": xpshim.get_device(), "number": number, "repeat": repeat}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", f"arrayapi-cpu-{tag}")
    with open(out + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(out + ".md", "w") as f:
        f.write(f"# CPU path with the array API additions: {tag}\n\n{meta}\n\n| call | xpshim ns | numpy ns |\n|---|---|---|\n")
        for r in rows:
            f.write(f"| `{r['call']}` | {r['xpshim_ns']} | {r['numpy_ns']} |\n")
    for r in rows:
        print(f"{r['call']:32s} {r['xpshim_ns']:8.1f} {r['numpy_ns']:8.1f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "local")
