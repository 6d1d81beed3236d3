"""The workload suite (benchmarks/workloads/) at its quick sizes gives NumPy's results through
xpshim: on the CPU, and on the GPU side (the stand-in everywhere, the real GPU with -m gpu)."""

import os
import sys

import numpy
import pytest

import xpshim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))

import workloads  # noqa: E402

NAMES = workloads.names()
_reference = {}


def reference(name):
    if name not in _reference:
        mod = workloads.load(name)
        _reference[name] = workloads.to_host(mod.run(numpy, mod.SIZES["quick"]))
    return _reference[name]


def check(name, device):
    mod = workloads.load(name)
    result = mod.run(xpshim, mod.SIZES["quick"])
    arrays = [p for p in workloads.parts(result) if isinstance(p, xpshim.ndarray)]
    assert all(xpshim.get_device(p) == device for p in arrays), [xpshim.get_device(p) for p in arrays]
    why = workloads.mismatch(mod, workloads.to_host(result), reference(name))
    assert why is None, why


def test_suite_is_complete():
    assert len(NAMES) >= 22
    kinds = {workloads.load(n).KIND for n in NAMES}
    assert kinds == {"vectorized", "loop"}
    for name in NAMES:
        mod = workloads.load(name)
        assert mod.__doc__ and len(mod.__doc__.strip().splitlines()) == 1, name
        assert set(mod.SIZES) == {"quick", "full"}, name
        assert len(workloads.tolerances(mod, 1)) >= 1, name


@pytest.mark.parametrize("name", NAMES)
def test_cpu(name, cpu):
    check(name, "cpu")


# A function CuPy lacks runs on the host, visibly (the runner reports the count); the result is what is checked here.
@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")
@pytest.mark.parametrize("name", NAMES)
def test_gpu(name, gpu):
    check(name, "gpu")
