"""None given where a routed function or an array's method takes an array that has no default
(``np.dot(a, None)``, ``a.dot(None)``, ``np.may_share_memory(a, None)``): NumPy reads it as a
0-d object array and gives its answer or its error; xpshim gives NumPy's, and never hands None
to CuPy there. Some of CuPy's functions read None as an array without checking: ``cupy.dot(a,
None)`` ends the process (SIGSEGV: a Cython parameter typed as an array lets None through).

* every routed function and every method that takes arrays, None at each such parameter, on the
  GPU side: NumPy's outcome (its error's type and text, or its answer);
* the installed CuPy's functions themselves, each given None at each array parameter in a forked
  child (CuPy installed, no GPU: its arrays over host memory, which no call here reads): every
  one that ends its process is one xpshim never calls with None there.
"""

import faulthandler
import os
import warnings

import numpy
import pytest

import xpshim
from arguments import plain
from routes import routes
from xpshim import _backend, _methods, _route
from xpshim._registry import METHOD_ARRAY_ARGS


def _outcome(f, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(*args)
    except Exception as e:
        return ("raised", type(e).__name__, str(e))
    return ("answer", plain(r, digits=None))


def _numpy_function(name):
    sub, _, short = name.rpartition(".")
    return getattr(getattr(numpy, sub) if sub else numpy, short)


def _none_calls():
    """(name, Route, position) of each routed function's array parameter that has no default."""
    for name, route in routes():
        if route.nones is None or route.writes or name.startswith(("random", "save", "load", "from")):
            continue
        for i, _ in route.nones:
            yield name, route, i


def test_none_as_a_required_array_answers_as_numpy(gpu):
    host = numpy.arange(16.0).reshape(4, 4) + 1
    differ, n = [], 0
    for name, route, i in _none_calls():
        npf = _numpy_function(name)
        sub, _, short = name.rpartition(".")
        xf = getattr(getattr(xpshim, sub) if sub else xpshim, short)
        args = [None if j == i else xpshim.asarray(host) for j in range(i + 1)]
        hargs = [None if j == i else host.copy() for j in range(i + 1)]
        got, want = _outcome(xf, *args), _outcome(npf, *hargs)
        n += 1
        if got != want:
            differ.append(f"np.{name} with None at {i}: {got[:3]} != {want[:3]}")
    assert n > 150, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:30])


def test_none_as_a_methods_array_answers_as_numpy(gpu):
    host = numpy.arange(16.0).reshape(4, 4) + 1
    differ, n = [], 0
    for name, params in sorted(METHOD_ARRAY_ARGS.items()):
        for _, i in _methods._required(name, params):  # (None at an optional one is its default)
            args = [0] * i + [None]
            got = _outcome(lambda *a: getattr(xpshim.asarray(host), name)(*a), *args)
            want = _outcome(lambda *a: getattr(host.copy(), name)(*a), *args)
            n += 1
            if got != want:
                differ.append(f"x.{name} with None at {i}: {got[:3]} != {want[:3]}")
    assert n >= 8, n
    assert not differ, "\n".join(differ)


def _crashes(call):
    """Whether ``call()`` ends a forked child by a signal."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        faulthandler.disable()  # (pytest's would print the crash this looks for)
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            call()
        except BaseException:
            pass
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per call (POSIX)")
def test_every_cupy_function_that_crashes_on_none_is_never_given_none():
    cupy = pytest.importorskip("cupy")
    if _backend.gpu_status().usable:
        pytest.skip("reads CuPy's functions over host memory: where CuPy is installed without a GPU")
    from xpshim import _simgpu

    undo = _backend.install(_simgpu.module(), _simgpu.describe())  # (the routes, read with a GPU live)
    try:
        found = routes()
    finally:
        undo()
    h = numpy.ones((4, 4))
    mem = cupy.cuda.UnownedMemory(h.ctypes.data, h.nbytes, h, device_id=0)
    a = cupy.ndarray((4, 4), numpy.float64, cupy.cuda.MemoryPointer(mem, 0))
    crashed, uncovered, tried = [], [], 0
    for name, route in found:
        f = _route.resolve_path(cupy, route.cupy_path) if route.cupy_path else None
        if f is None:
            continue
        covered = {i for i, _ in route.nones or ()}
        for i, _ in route.spec[0]:
            args = [None if j == i else a for j in range(i + 1)]
            tried += 1
            if _crashes(lambda: f(*args)):
                crashed.append(f"cupy.{route.cupy_path} with None at {i}")
                if i not in covered:
                    uncovered.append(crashed[-1])
    for name, params in METHOD_ARRAY_ARGS.items():
        covered = {i for _, i in _methods._required(name, params)}
        for _, i in params.items():
            tried += 1
            if _crashes(lambda: getattr(a, name)(*([0] * i + [None]))):
                crashed.append(f"cupy.ndarray.{name} with None at {i}")
                if i not in covered:
                    uncovered.append(crashed[-1])
    assert tried > 300, tried
    assert "cupy.dot with None at 1" in crashed  # (CuPy 14's: the scan finds what it looks for)
    print("\n".join(crashed))
    assert not uncovered, f"CuPy ends the process where xpshim may give None: {uncovered}"
