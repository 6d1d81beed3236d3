"""A NumPy function written in Python with plain parameters (``np.sum``, ``np.flip``, ...) keeps
the CPU path's wrapper with NumPy's parameters while a GPU is live (xpshim/_cpupath.py), whose
plain calls take the routed wrapper's host path themselves. As a class: every such name, called
with NumPy arrays as a loop calls it, again and again, answers as the routed wrapper does (the
same values, the same kind of answer: a NumPy array, a GPU array or a scalar; a view of its
argument where that is one), and as NumPy does. Under a crossover of 8 elements too, so that
every answer reaches it: auto mode moves it to the GPU, unless it is a view of an argument.
"""

import types

import numpy
import pytest

import xpshim
from arguments import outcome, routed_calls
from xpshim import _backend, _device, _placement, _simgpu


@pytest.fixture(params=[True, False], ids=["auto", "gpu"])
def live(request):
    undo = _backend.install(_simgpu.module(), _simgpu.describe(), placement=request.param)
    try:
        yield request.param
    finally:
        undo()


def _kind(r, args):
    """What kind of answer ``r`` is: its type's name, and whether it is a view of an argument."""
    if isinstance(r, (tuple, list)):
        return (type(r).__name__, [_kind(v, args) for v in r])
    view = type(r) is numpy.ndarray and any(isinstance(a, numpy.ndarray) and numpy.shares_memory(r, a) for a in args)
    return (type(r).__module__ + "." + type(r).__name__, view)


def _both(f, args):
    """(outcome, kind of answer) of ``f`` on fresh copies of ``args``."""
    a = [x.copy() if isinstance(x, numpy.ndarray) else x for x in args]
    try:
        r = f(*a)
    except Exception as e:
        return ("raised", type(e).__name__), None
    return outcome(lambda: r, (), {}), _kind(r, a)


@pytest.mark.parametrize("crossover", [None, 8], ids=["default-crossover", "crossover-8"])
def test_wrappers_with_numpys_parameters_answer_as_the_routed_wrapper(live, crossover):
    saved = _device._crossover
    if crossover is not None:
        _device._crossover = (crossover, "set by the test")
        _placement.refresh()
    try:
        calls = [c for c in routed_calls(lambda params: True)
                 if isinstance(c[1], types.FunctionType) and "_routed" in c[1].__globals__]
        assert len(calls) > 100  # (np.sum, np.flip, np.roll, ... : the class is not empty)
        differ = []
        for name, xf, npf, args, _ in calls:
            want = outcome(npf, [a.copy() for a in args], {})
            routed = xf.__globals__["_routed"]
            routed = routed.target() if hasattr(routed, "target") else routed
            ref = _both(routed, args)
            for i in range(3):  # (the first call builds the routed wrapper; later ones take the host path)
                got = _both(xf, args)
                if got != ref or (got[0] != want and want[0] == "answer"):
                    differ.append(f"np.{name} call {i + 1}: {got} != routed {ref} / NumPy {want}"[:300])
                    break
            if xf.__globals__["_host"] is None and xf.__globals__["_routed"] is not routed:
                differ.append(f"np.{name}: the routed wrapper was not taken into use")
    finally:
        _device._crossover = saved
        _placement.refresh()
    assert differ == []


def test_a_large_answer_moves_and_a_view_stays(live):
    # auto mode: an answer of the crossover's size or more, made by NumPy on the host path, moves
    # to the GPU (counted); a view of the argument stays a view, so that writes through it land
    x = numpy.arange(100_000.0)
    for _ in range(2):
        r = xpshim.roll(x, 1)
        assert type(r) is (xpshim.ndarray if live else numpy.ndarray)
        assert numpy.array_equal(xpshim.asnumpy(r), numpy.roll(x, 1))
        v = xpshim.flip(x)
        assert type(v) is numpy.ndarray and numpy.shares_memory(v, x)
        v[0] = -1.0
        assert x[-1] == -1.0
        x[-1] = 99_999.0


@pytest.mark.parametrize("crossover", [None, 8], ids=["default-crossover", "crossover-8"])
def test_dot_of_numpy_arrays_answers_as_the_routed_wrapper(live, crossover):
    # np.dot takes the same host path itself (xpshim/_fused.py's make_dot), before its GPU kernel
    from xpshim import _dispatch

    routed = _dispatch.function("xpshim", "dot", numpy.dot, "dot")
    m = numpy.arange(12.0).reshape(3, 4)
    cases = [(m, m[0]), (m[0], m[0]), (m, m.T), (m, 2.0), (3, m), (m[0].astype(numpy.int8), [1, 2, 3, 4]),
             (m, numpy.ones(3))]
    saved = _device._crossover
    if crossover is not None:
        _device._crossover = (crossover, "set by the test")
        _placement.refresh()
    try:
        for args in cases:
            want = outcome(numpy.dot, [a.copy() if isinstance(a, numpy.ndarray) else a for a in args], {})
            ref = _both(routed, args)
            for _ in range(2):
                got = _both(xpshim.dot, args)
                assert got == ref and (got[0] == want or want[0] == "raised"), (args, got, ref, want)
    finally:
        _device._crossover = saved
        _placement.refresh()
