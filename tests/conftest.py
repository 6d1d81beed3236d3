"""Fixtures: ``gpu`` runs a test on the GPU side of xpshim, twice where it can:

* ``fake``: a NumPy-backed stand-in for CuPy (tests/fakecupy.py), so the GPU-side
  logic (wrapping, routing, counting, fallback) is tested on machines without a GPU;
* ``cuda``: the real CuPy on a real GPU (marker ``gpu``; skipped, never passed,
  where no CUDA device is usable).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402


def _real_gpu():
    return _backend.gpu_status().usable and getattr(_backend.xp, "__name__", "") == "cupy"


@pytest.fixture(params=["fake", pytest.param("cuda", marks=pytest.mark.gpu)])
def gpu(request):
    """Make the GPU the current device, backed by the stand-in or by real CuPy."""
    if request.param == "fake":
        import fakecupy

        undo = _backend.install(fakecupy, "NumPy-backed stand-in for tests")
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
    from xpshim import _fallback

    xpshim.reset_stats()
    _fallback._warned.clear()  # each test sees its own first warning per line
    yield


def transfers():
    s = xpshim.stats()["transfers"]
    return s["host_to_device"]["count"] + s["device_to_host"]["count"]
