"""xpshim arrays across processes: unpickled in a new interpreter, and through multiprocessing.

Each case runs in real new interpreters (processes_prog.py): the arrays of many dtypes, shapes,
views and memory orders are compared there, method by method over every argument-free method of
NumPy's ndarray, with NumPy's arrays of the same data. A process that can use the GPU gets GPU
arrays, one on the CPU device gets NumPy's.
"""

import json
import os
import subprocess
import sys

import pytest

_PROG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "processes_prog.py")
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(_PROG)))


def _run(gpu, *argv, device="gpu"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    env.update(XPSHIM_DEVICE=device, XPSHIM_FALLBACK="silent", PYTHONPATH=_ROOT + os.pathsep + env.get("PYTHONPATH", ""))
    if gpu == "fake":
        env["XPSHIM_SIMULATE_GPU"] = "1"
    p = subprocess.run([sys.executable, _PROG, *argv], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else None


@pytest.mark.parametrize("device", ["gpu", "cpu"])
def test_unpickled_in_a_new_interpreter(gpu, tmp_path, device):
    path = str(tmp_path / "arrays.pkl")
    _run(gpu, "dump", path)
    r = _run(gpu, "load", path, device=device)
    assert r["kinds"] == [device if device == "gpu" else "numpy"]
    assert r["diffs"] == [], (sorted({d.split(": ")[1] for d in r["diffs"]}), r["details"])


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_multiprocessing(gpu, method):
    r = _run(gpu, "pool", method)
    # the children got GPU arrays, and what they sent back is a GPU array here
    assert r["kinds"] == ["back:gpu", "gpu"]
    assert r["diffs"] == [], (sorted({d.split(": ")[1] for d in r["diffs"]}), r["details"])
