"""NumPy's scalars on the GPU side: where NumPy answers a scalar (an element read, a ufunc, an
operator or a reduction of 0-d data), xpshim's answer is a value; where NumPy answers a 0-d array
(``np.array(3.0)``, ``np.copy``, ``x[...]``), an array. Generated over every routed name, every
ufunc, every in-place operator and NumPy's scalar methods, against NumPy (on the stand-in, and on
a real GPU with ``-m gpu``).

A value is told apart from a 0-d array as NumPy tells them apart: its ``repr`` names its type
(``np.float64(2.0)`` against ``array(2.)``), it is hashable, and its in-place operators make a new
value instead of writing into the memory another name holds.
"""

import math
import operator
import warnings

import numpy
import pytest

import xpshim
from test_fidelity import routed_callables


def _kind(r):
    """"scalar", "0-d array", or None for anything else (other shapes, tuples, Python numbers)."""
    if isinstance(r, numpy.generic) or (type(r) is xpshim.ndarray and repr(r).startswith("np.")):
        return "scalar"
    if isinstance(r, (numpy.ndarray, xpshim.ndarray)) and numpy.ndim(r) == 0:
        return "0-d array"
    return None


_ARGS = [lambda z: (z,), lambda z: (z, z), lambda z: (z, 1)]


@pytest.mark.parametrize("data", [numpy.array(2.0), numpy.array([2.0, 3.0])], ids=["0-d", "2-vector"])
def test_every_routed_name_answers_a_scalar_where_numpy_does(gpu, data):
    """Each routed function called on 0-d data, or on 2-vectors (np.cross, the reductions),
    answers NumPy's kind of 0-d answer: its scalar or its 0-d array (xpshim's table of functions
    that answer arrays, _registry.ZERO_D_ARRAYS)."""
    h = data
    compared, bad = 0, {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            for make in _ARGS:
                try:
                    want = _kind(npo(*make(h)))
                except Exception:
                    continue
                if want is None:
                    continue
                with xpshim.device("gpu"):
                    g = xpshim.asarray(h)
                    try:
                        got = _kind(xo(*make(g)))
                    except Exception as e:
                        got = f"{type(e).__name__}: {e}"[:100]
                compared += 1
                if got != want:
                    bad[f"{name}{make('x')}"] = f"{got} where NumPy answers a {want}"
                break
    assert compared > (90 if h.ndim == 0 else 40), compared  # (the generator reached the names that take the data)
    assert bad == {}


_UFUNCS = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and getattr(numpy, n).nout == 1
                 and getattr(numpy, n).signature is None)


def test_every_ufunc_and_reduction_of_gpu_data_answers_a_scalar(gpu):
    h, v = numpy.array(0.5), numpy.array([0.5, 1.5, 2.0])
    bad = {}
    with xpshim.device("gpu"), numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, gv = xpshim.asarray(h), xpshim.asarray(v)
        for name in _UFUNCS:
            u = getattr(numpy, name)
            try:
                want = _kind(u(*[h] * u.nin))
            except TypeError:
                continue
            got = _kind(getattr(xpshim, name)(*[g] * u.nin))
            if got != want:
                bad[name] = got
        for name in ("sum", "prod", "max", "min", "mean", "std", "var", "argmax", "argmin", "any", "all", "ptp"):
            if not hasattr(numpy.ndarray, name):
                continue
            if _kind(getattr(gv, name)()) != _kind(getattr(v, name)()):
                bad[f"x.{name}()"] = _kind(getattr(gv, name)())
        for name in ("copy", "astype", "reshape", "squeeze", "view", "transpose", "conj", "real", "imag"):
            args = {"astype": (numpy.float32,), "reshape": ((),)}.get(name, ())
            call = (lambda x: getattr(x, name)) if name in ("real", "imag") else (lambda x: getattr(x, name)(*args))
            if _kind(call(g)) != _kind(call(h)):
                bad[f"0-d x.{name}"] = _kind(call(g))
        for name, f in {"add.reduce": lambda m, x: m.add.reduce(x), "dot": lambda m, x: m.dot(x, x),
                        "x + 1": lambda m, x: x[0] + 1, "-x[0]": lambda m, x: -x[0],
                        "array(3.0)": lambda m, x: m.array(3.0), "asarray(x[0])": lambda m, x: m.asarray(x[0]),
                        "zeros(())": lambda m, x: m.zeros(()), "x[...] of 0-d": lambda m, x: m.asarray(x[0])[...],
                        "x[()] of 0-d": lambda m, x: m.asarray(x[0])[()]}.items():
            want, got = _kind(f(numpy, v)), _kind(f(xpshim, gv))
            if got != want:
                bad[name] = f"{got} where NumPy answers a {want}"
    assert bad == {}


def _keys(h):
    return [(1, 2), (-1, -2), (numpy.intp(0), 1), (numpy.int64(2), -1)] if h.ndim == 2 else [1, -1, numpy.int64(2)]


_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
            "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift}


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
@pytest.mark.parametrize("view", ["whole", "view"])
def test_an_element_read_is_a_value_no_later_write_changes(gpu, dtype, view):
    """``s = a[i]``: a value. ``s OP= v`` rebinds ``s`` (``a`` and another name for the value keep
    theirs), and a write to ``a`` leaves ``s``; for every in-place operator and kind of index."""
    base = numpy.arange(2.0, 14.0).astype(dtype).reshape(3, 4)
    bad = {}
    with numpy.errstate(all="ignore"):
        for op, f in _INPLACE.items():
            if dtype != "int64" and op in ("&=", "|=", "^=", "<<=", ">>="):
                continue
            for h0 in (base, base[0]):
                h0 = h0 if view == "whole" else h0[..., ::-1]
                for key in _keys(h0):
                    h = h0.copy()
                    with xpshim.device("gpu"):
                        a = xpshim.asarray(h)
                    s, r = a[key], h[key]
                    t, tr = s, r
                    s = f(s, 2)
                    r = f(r, 2)
                    a[key] = 0
                    h[key] = 0
                    got = (float(s), float(t), xpshim.asnumpy(a).tolist())
                    want = (float(r), float(tr), h.tolist())
                    if got != want or repr(s) != repr(r):
                        bad[f"{op} {key!r} of {h0.ndim}-d"] = (got, want, repr(s), repr(r))
    assert bad == {}


def test_swaps_and_rotations_of_elements_are_numpys(gpu):
    h = numpy.arange(10.0)
    with xpshim.device("gpu"):
        a = xpshim.asarray(h)
    a[0], a[1] = a[1], a[0]
    h[0], h[1] = h[1], h[0]
    a[2], a[3], a[4] = a[3], a[4], a[2]
    h[2], h[3], h[4] = h[3], h[4], h[2]
    for i in range(len(h) - 1):  # a bubble pass, element by element
        if a[i] < a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
        if h[i] < h[i + 1]:
            h[i], h[i + 1] = h[i + 1], h[i]
    assert xpshim.asnumpy(a).tolist() == h.tolist()


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool", "complex128"])
def test_a_value_has_numpys_scalar_protocol(gpu, dtype):
    """repr, hash (a dict key), item assignment refused, and NumPy's scalar methods, as NumPy's."""
    h = (numpy.arange(1, 5) * 1.25).astype(dtype)
    with xpshim.device("gpu"):
        a = xpshim.asarray(h)
    s, r = a[2], h[2]
    assert repr(s) == repr(r)
    assert hash(s) == hash(r) and {s: 1}[r] == 1
    for name in ("is_integer", "as_integer_ratio", "hex", "bit_count"):
        assert hasattr(s, name) == hasattr(r, name), name
        if hasattr(r, name):
            assert getattr(s, name)() == getattr(r, name)(), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        for f in (math.trunc, math.floor, math.ceil, float):
            assert _outcome(f, s) == _outcome(f, r), f


def _outcome(f, x):
    try:
        return f(x)
    except TypeError as e:
        return type(e)
    with pytest.raises(TypeError, match="does not support item assignment"):
        s[()] = 0
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    assert not hasattr(a, "is_integer")


def test_a_loop_sees_its_own_writes(gpu):
    """``for i, v in enumerate(a[:-1]): a[i + 1] += v`` (and the 2-d, ``flat`` and ``zip`` forms)."""
    for make in (lambda m: m.arange(40.0), lambda m: m.arange(40.0)[::2], lambda m: m.arange(40.0).reshape(4, 10)):
        h = make(numpy)
        with xpshim.device("gpu"):
            a = make(xpshim)
        for x in (a, h):
            for i, v in enumerate(x[:-1]):
                x[i + 1] += v
        assert xpshim.asnumpy(a).tolist() == h.tolist()
    h = numpy.arange(10.0)
    with xpshim.device("gpu"):
        a = xpshim.asarray(h)
    for x in (a, h):
        for v, w in zip(x[:-1], x[1:]):
            x[-1] += v * w
    assert xpshim.asnumpy(a).tolist() == h.tolist()
