"""Calls of every routed function with one argument varied, and their outcomes as plain data: the
shared steps of the argument-class tests (tests/gpu_side/test_*_options.py)."""

import inspect
import warnings

import numpy

import xpshim
from routes import routes

_M, _V, _I = numpy.arange(12.0).reshape(3, 4) + 1, numpy.array([1.0, 2.0, 2.0, 3.5]), numpy.array([0, 2, 1, 3])
# (first array, the other arrays): a matrix, a sorted vector, and integers as the others (indices)
BASES = [(_M, _M), (_M, _I), (_V, _V), (_V, _I)]
# (names whose answers are not values to compare, or that write into their arguments' files: memory
# as it was; draws; files)
SKIP = ("random", "save", "load", "from", "empty")


def plain(r, digits=6):
    """An answer as plain Python data: (dtype, shape, values) of each array in it, inexact values
    rounded to ``digits`` (None: exact; float32 and complex64 to at most 4, float16 1: the last bits
    of another summation order, docs/differences.md), -0.0 read as 0.0 (an FFT's rounding)."""
    if isinstance(r, (tuple, list)):
        return (type(r).__name__, [plain(v, digits) for v in r])
    if type(r) is xpshim.ndarray:
        r = xpshim.asnumpy(r)
    if isinstance(r, (numpy.ndarray, numpy.generic)):
        h = numpy.asarray(r)
        if digits is not None and h.dtype.kind in "fc":
            low = {"e": 1, "f": 4, "F": 4}.get(h.dtype.char, digits)
            h = numpy.round(h, min(digits, low)) + 0.0
        return (h.dtype.str, h.shape, repr(h.tolist()))
    return (type(r).__name__, repr(r))


def outcome(f, args, kwargs):
    """("answer", its plain data) or ("raised", the error's class name) of ``f(*args, **kwargs)``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("answer", plain(f(*args, **kwargs)))  # (read under the same filter: a cast's overflow warns)
    except Exception as e:
        return ("raised", type(e).__name__)


def numpy_function(name):
    sub, _, short = name.rpartition(".")
    return getattr(getattr(numpy, sub) if sub else numpy, short)


def xpshim_function(name):
    sub, _, short = name.rpartition(".")
    return getattr(getattr(xpshim, sub) if sub else xpshim, short)


def signature_params(f, skip_first=False):
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return None
    return params[1:] if skip_first else params


def required(params):
    return [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def routed_calls(wanted):
    """(name, xpshim's function, NumPy's, the array arguments, NumPy's parameters) of every routed
    function that writes into no argument, whose NumPy parameters ``wanted(params)`` accepts, with
    the first of BASES that NumPy answers (call it with the GPU live)."""
    for name, route in routes():
        if route.writes or name.startswith(SKIP):
            continue
        npf = numpy_function(name)
        params = signature_params(npf)
        if params is None or not wanted(params):
            continue
        need = required(params)
        for first, rest in BASES:
            args = [first.copy()] + [rest.copy() for _ in need[1:]]
            if outcome(npf, args, {})[0] == "answer":
                break
        else:  # (no call of arrays alone that NumPy answers: not these tests')
            continue
        yield name, xpshim_function(name), npf, args, params


def ndarray_methods(skip=()):
    """(name, the parameters after the array) of every ndarray method that has a NumPy function of
    its name, whose signature after its first parameter the method's is."""
    for name in sorted(dir(numpy.ndarray)):
        f = getattr(numpy, name, None)
        if name.startswith("_") or name in skip or not callable(f):
            continue
        params = signature_params(f, skip_first=True)
        if params is not None:
            yield name, params


def half_alike(got, want):
    """Two answers of float16 arrays that differ only where one float16's last bit moved the value
    across ``plain``'s rounding to one decimal (``np.nanstd(M, dtype=np.float16)``, exactly 3.4521:
    3.5 on an H100 once rounded, 3.4 by NumPy on its host, whose float16 answer lay a step below
    3.45): at most 0.1 apart, or two float16 steps."""
    if got[0] != "answer" or want[0] != "answer":
        return False
    g, w = got[1], want[1]
    if len(g) != 3 or len(w) != 3 or g[0] != "<f2" or w[0] != "<f2" or g[1] != w[1]:
        return False
    names = {"nan": numpy.nan, "inf": numpy.inf}
    gv, wv = (numpy.array(eval(v[2], names), dtype=float) for v in (g, w))  # (plain's repr of its list)
    return bool(numpy.allclose(gv, wv, rtol=2e-3, atol=0.1001, equal_nan=True))


def differences(calls, values, extras=({},)):
    """([each call whose outcome differs from NumPy's, described], how many calls made): each of
    ``calls`` (routed_calls' items) given each of ``values`` ((argument name, value) pairs) as a
    keyword, with each of ``extras``' keywords beside it."""
    differ, n = [], 0
    for name, xf, npf, args, _ in calls:
        for arg, v in values:
            for extra in extras:
                kw = {arg: v, **extra}
                want = outcome(npf, [a.copy() for a in args], kw)
                got = outcome(xf, [xpshim.asarray(a) for a in args], kw)
                n += 1
                if got != want and not half_alike(got, want):
                    differ.append(f"np.{name}(..., {arg}={v!r}{', ' if extra else ''}{str(extra)[1:-1]}): "
                                  f"{got} != {want}"[:300])
    return differ, n


def takes(arg):
    """routed_calls' filter: NumPy's signature has ``arg``."""
    return lambda params: any(p.name == arg for p in params)
