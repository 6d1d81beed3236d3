"""Fixtures: ``gpu`` runs a test on the GPU side of xpshim, twice where it can:

* ``fake``: the simulated GPU (``xpshim._simgpu``, as ``XPSHIM_SIMULATE_GPU=1``): NumPy
  with CuPy's API from the committed snapshot, so the GPU-side logic (wrapping, routing,
  counting, fallback) is tested on machines without a GPU, with or without CuPy;
* ``cuda``: the real CuPy on a real GPU (marker ``gpu``; skipped, never passed,
  where no CUDA device is usable).
"""

import os
import sys

import pytest

# the support modules (the CuPy stand-in, the differential suite's cases, NumPy's suite's reasons),
# importable from every folder of tests
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, d) for d in ("support", "differential", "numpy_suite")]

import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402

# Without a GPU, xpshim's Numba CUDA kernels are tested in Numba's simulator
# (set before Numba is first imported: it reads the variable then).
if not _backend.gpu_status().usable:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")


def _real_gpu():
    return _backend.gpu_status().usable and getattr(_backend.xp, "__name__", "") == "cupy"


@pytest.fixture(params=["fake", pytest.param("cuda", marks=pytest.mark.gpu)])
def gpu(request):
    """Make the GPU the current device, backed by the stand-in or by real CuPy."""
    if request.param == "fake":
        from xpshim import _simgpu

        undo = _backend.install(_simgpu.module(), _simgpu.describe())
        try:
            yield "fake"
        finally:
            undo()
    else:
        if not _real_gpu():
            pytest.skip(f"no usable CUDA GPU: {_backend.gpu_status().reason}")
        with xpshim.device("gpu"):
            yield "cuda"


@pytest.fixture
def real_gpu():
    if not _real_gpu():
        pytest.skip(f"no usable CUDA GPU: {_backend.gpu_status().reason}")
    with xpshim.device("gpu"):
        yield _backend.xp


@pytest.fixture
def cpu():
    with xpshim.device("cpu"):
        yield


@pytest.fixture(autouse=True)
def _fresh_stats():
    from xpshim import _fallback, _placement

    xpshim.reset_stats()
    _fallback._warned.clear()  # each test sees its own first warning per line
    _placement.forget_lines()  # (a helper's line that one test's loop made a host line)
    yield


def transfers():
    s = xpshim.stats()["transfers"]
    return s["host_to_device"]["count"] + s["device_to_host"]["count"]


# ---- the differential suite's results matrix (XPSHIM_DIFF_RESULTS=folder) --------------

_rows = []


def pytest_runtest_logreport(report):
    if "test_differential.py" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = "xfail" if hasattr(report, "wasxfail") else report.outcome
        row = {"test": report.nodeid.split("::", 1)[1], "outcome": outcome, "seconds": round(report.duration, 3),
               "message": (_first_error(report) if report.failed else getattr(report, "wasxfail", "") or "")}
        _rows.append(row)
        folder = os.environ.get("XPSHIM_DIFF_RESULTS")
        if folder:  # one line per test as it ends, so a run cut short still leaves its rows
            import json

            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, os.environ.get("XPSHIM_DIFF_TAG", "differential") + ".jsonl"), "a") as f:
                f.write(json.dumps(row) + "\n")


def _first_error(report):
    """The failure's own words (its first ``E`` lines) and Hypothesis's falsifying example."""
    text = str(report.longrepr).splitlines()
    errors = [ln[4:].strip() for ln in text if ln.startswith("E   ") and ln[4:].strip()]
    example = [ln.strip() for ln in text if "Falsifying example" in ln or ln.lstrip().startswith(("name=", "gpu="))]
    parts = errors[:3] + example[:2]
    return " / ".join(parts or text[-1:])[:700]


@pytest.hookimpl(trylast=True)  # after ``-m`` and ``-k`` chose
def pytest_collection_modifyitems(config, items):
    """``XPSHIM_SHARD=i/n`` keeps every n-th test from the i-th (parallel runs of one suite);
    ``XPSHIM_DIFF_SKIP=file.jsonl`` leaves out the tests a cut-short run already recorded."""
    keep = list(items)
    shard = os.environ.get("XPSHIM_SHARD")
    if shard:
        i, n = (int(x) for x in shard.split("/"))
        keep = keep[i::n]
    skip = os.environ.get("XPSHIM_DIFF_SKIP")
    if skip and os.path.exists(skip):
        import json

        with open(skip) as f:
            done = {json.loads(line)["test"] for line in f if line.strip()}
        keep = [it for it in keep if it.nodeid.split("::", 1)[-1] not in done]
    if len(keep) != len(items):
        kept = set(map(id, keep))
        config.hook.pytest_deselected(items=[it for it in items if id(it) not in kept])
        items[:] = keep


def pytest_sessionfinish(session, exitstatus):
    folder = os.environ.get("XPSHIM_DIFF_RESULTS")
    if not folder or not _rows or os.environ.get("XPSHIM_SHARD"):  # shards: tests/differential/run_diff.py merges
        return
    import json
    import platform

    import numpy

    meta = {"python": platform.python_version(), "numpy": numpy.__version__,
            "examples_per_test": int(os.environ.get("XPSHIM_DIFF_EXAMPLES", "15")),
            "gpu": _backend.gpu_status().reason, "cupy": getattr(_backend.xp, "__version__", None)}
    os.makedirs(folder, exist_ok=True)
    tag = os.environ.get("XPSHIM_DIFF_TAG", "differential")
    with open(os.path.join(folder, tag + ".json"), "w") as f:
        json.dump({"machine": meta, "results": _rows}, f, indent=1)
    counts = {}
    for r in _rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    with open(os.path.join(folder, tag + ".md"), "w") as f:
        f.write(f"# Differential results: {tag}\n\n{meta}\n\nTotals: {counts}; "
                f"time {sum(r['seconds'] for r in _rows):.1f} s\n\n| test | outcome | s | message |\n|---|---|---|---|\n")
        for r in _rows:
            f.write(f"| {r['test']} | {r['outcome']} | {r['seconds']} | {r['message'].replace('|', '/')} |\n")
