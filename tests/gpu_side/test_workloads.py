"""The workload suite (benchmarks/workloads/) at its quick sizes gives NumPy's results through
xpshim: on the CPU, and on the GPU side (the stand-in everywhere, the real GPU with -m gpu)."""

import os
import sys

import numpy
import pytest

import xpshim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks"))

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


def _runner():
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks", "run_workloads.py")
    spec = importlib.util.spec_from_file_location("workloads_runner", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_runner_decides_repeats_from_a_warm_run_and_spreads_the_fewer_evenly(monkeypatch):
    """The runner's rounds: a variant whose checking run was slow (compiling, learning) but whose
    warm run is fast gets the repeats its warm run allows; one with fewer repeats than another
    has them spread over all the rounds, not bunched in the first ones."""
    runner = _runner()
    calls = []
    seconds = {"fast": 0.1, "slower": 0.5}  # warm: 5 s / 0.1 -> 40 repeats (the cap), 5 s / 0.5 -> 10

    def once(mod, n, v):
        calls.append(v)
        return seconds[v]

    monkeypatch.setattr(runner, "once", once)
    entries = {"fast": ({}, 2.5), "slower": ({}, 0.5)}  # "fast" compiled in its checking run: 2.5 s
    runner.interleaved(None, 0, entries, quick=False, reps=None)
    assert entries["fast"][0]["reps"] == 40 and entries["slower"][0]["reps"] == 10
    assert sorted(calls[:2]) == ["fast", "slower"]  # the warm runs, untimed
    timed = calls[2:]
    fast_before = [timed[:i].count("fast") for i, v in enumerate(timed) if v == "slower"]
    assert len(fast_before) == 10
    assert fast_before[0] <= 4 and fast_before[-1] >= 35  # from the first rounds to the last
    gaps = [b - a for a, b in zip(fast_before, fast_before[1:])]
    assert min(gaps) >= 3 and max(gaps) <= 5  # every 4 rounds (40 / 10), not bunched


def test_each_timed_run_reads_its_inputs_from_new_memory(cpu):
    """Before each timed run the runner gives the kept inputs new memory (``_data.renew``): the
    same numbers, never the array an earlier run sent to the GPU (which xpshim would have
    registered in place by then, a case the suite does not mean to time)."""
    runner = _runner()
    mod = workloads.load("black_scholes")
    seen = []
    real = runner.data._host

    def host(*args):
        x = real(*args)
        seen.append((x.ctypes.data, x))  # (held: no later array can take its memory)
        return x

    v = [v for v in runner.variants() if v.name == "numpy"][0]
    try:
        runner.data._host = host
        for _ in range(3):
            runner.once(mod, mod.SIZES["quick"], v)
    finally:
        runner.data._host = real
    per_run = len(seen) // 3
    assert per_run >= 1
    runs = [seen[i * per_run:(i + 1) * per_run] for i in range(3)]
    for k in range(per_run):
        ptrs = {r[k][0] for r in runs}
        assert len(ptrs) == 3  # new memory each run
        assert all(numpy.array_equal(r[k][1], runs[0][k][1]) for r in runs)
