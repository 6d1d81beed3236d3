"""``keepdims`` read as NumPy reads it, as a class: booleans, NumPy's booleans, integers, None and
other objects, with and without an axis. NumPy answers (its shape) or raises; xpshim on the GPU
side gives the same outcome.

Generated from the namespace: every routed function whose NumPy signature has ``keepdims``, a call
NumPy answers with the default, then the same call at each value below, alone and with axis=0.
"""

import inspect
import warnings

import numpy
import pytest

import xpshim
from routes import routes

KEEPDIMS = [True, False, numpy.True_, numpy.False_, 1, 0, 2, None, "yes", 1.5, [True]]
_M, _V, _I = numpy.arange(12.0).reshape(3, 4) + 1, numpy.array([1.0, 2.0, 2.0, 3.5]), numpy.array([0, 2, 1, 3])
BASES = [(_M, _M), (_M, _I), (_V, _V), (_V, _I)]
# (names whose answers are not values to compare: memory as it was; draws)
SKIP = ("random", "save", "load", "from", "empty")


def _outcome(f, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(*args, **kwargs)
    except Exception as e:
        return ("raised", type(e).__name__)
    return ("answer", _plain(r))


def _plain(r):
    if isinstance(r, (tuple, list)):
        return (type(r).__name__, [_plain(v) for v in r])
    if type(r) is xpshim.ndarray:
        r = xpshim.asnumpy(r)
    if isinstance(r, (numpy.ndarray, numpy.generic)):
        h = numpy.asarray(r)
        return (h.dtype.str, h.shape, repr(numpy.round(h, 6).tolist()) if h.dtype.kind in "fc" else repr(h.tolist()))
    return (type(r).__name__, repr(r))


def _numpy_function(name):
    sub, _, short = name.rpartition(".")
    return getattr(getattr(numpy, sub) if sub else numpy, short)


def _keepdims_calls():
    for name, route in routes():
        if route.writes or name.startswith(SKIP):
            continue
        npf = _numpy_function(name)
        try:
            params = inspect.signature(npf).parameters
        except (TypeError, ValueError):
            continue
        if "keepdims" not in params:
            continue
        required = [p for p in params.values() if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for first, rest in BASES:
            args = [first.copy()] + [rest.copy() for _ in required[1:]]
            if _outcome(npf, args, {})[0] == "answer":
                break
        else:
            continue
        sub, _, short = name.rpartition(".")
        yield name, getattr(getattr(xpshim, sub) if sub else xpshim, short), npf, args


def test_keepdims_values_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, xf, npf, args in _keepdims_calls():
        for kd in KEEPDIMS:
            for extra in ({}, {"axis": 0}):
                want = _outcome(npf, [a.copy() for a in args], {"keepdims": kd, **extra})
                got = _outcome(xf, [xpshim.asarray(a) for a in args], {"keepdims": kd, **extra})
                n += 1
                if got != want:
                    differ.append(f"np.{name}(..., keepdims={kd!r}, {extra}): {got} != {want}"[:300])
    assert n > 300, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
