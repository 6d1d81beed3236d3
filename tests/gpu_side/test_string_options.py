"""String options that NumPy checks (``side``, ``mode``, ``kind``, ``order``, ``casting``, ``method``,
``norm``, ...): a routed function given a value NumPy refuses raises NumPy's error on the GPU side
too, and one NumPy reads answers as NumPy's. Some of CuPy's functions read an option without
checking it, a value they do not know taken as the default (``cupy.searchsorted``'s side: anything
but "right" is "left"): a misspelt option would answer where NumPy raises.

Generated from the namespace: every routed function, every parameter of NumPy's signature whose
default is a string (or ``norm``'s None), a call NumPy answers with the default, then the same call
with each of a few values NumPy may refuse or read otherwise: a misspelling, the default in
other case, a number, bytes.
"""

import inspect
import warnings

import numpy
import pytest

import xpshim
from routes import routes

# values at each option: NumPy refuses most of them for most options (where it reads one, as
# "F" for order, xpshim must read it the same)
ODD = ["bogus", "", 0, 1, 2, b"bogus", None]


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
        return (h.dtype.str, h.shape, repr(numpy.round(h, 8).tolist()) if h.dtype.kind in "fc" else repr(h.tolist()))
    return (type(r).__name__, repr(r))


def _numpy_function(name):
    sub, _, short = name.rpartition(".")
    return getattr(getattr(numpy, sub) if sub else numpy, short)


_M, _V, _I = numpy.arange(16.0).reshape(4, 4) + 1, numpy.array([1.0, 2.0, 2.0, 3.5]), numpy.array([0, 2, 1, 3])
NONE_OPTIONS = {"norm", "kind", "bitorder"}  # (options whose default is None: NumPy's own choice)
# (first array, the other arrays): a matrix, a sorted vector, and integers as the others (indices)
BASES = [(_M, _M), (_V, _V), (_V, _I), (_M, _I)]


def _option_calls():
    """(name, xpshim's function, NumPy's, the array arguments, option name, its default)."""
    for name, route in routes():
        if route.writes or name.startswith(("random", "save", "load", "from")):
            continue
        npf = _numpy_function(name)
        try:
            params = list(inspect.signature(npf).parameters.values())
        except (TypeError, ValueError):
            continue
        options = [p for p in params if (type(p.default) is str and p.kind is not p.VAR_KEYWORD)
                   or (p.name in NONE_OPTIONS and p.default is None)]
        if not options:
            continue
        required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for first, rest in BASES:  # (the first of these calls NumPy answers)
            args = [first.copy()] + [rest.copy() for _ in required[1:]]
            if _outcome(npf, args, {})[0] == "answer":
                break
        else:  # (no call of arrays alone that NumPy answers: not this test's)
            continue
        sub, _, short = name.rpartition(".")
        xf = getattr(getattr(xpshim, sub) if sub else xpshim, short)
        for p in options:
            yield name, xf, npf, args, p.name, p.default


def test_odd_string_options_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, xf, npf, args, opt, default in _option_calls():
        values = ODD + ([default.upper(), default[:-1], default.encode()] if default else [])
        for v in values:
            want = _outcome(npf, [a.copy() for a in args], {opt: v})
            got = _outcome(xf, [xpshim.asarray(a) for a in args], {opt: v})
            if name == "empty_like" and got[0] == want[0] == "answer":  # (its values are whatever memory held)
                got, want = got[1][:2], want[1][:2]
            n += 1
            if got != want:
                differ.append(f"np.{name}(..., {opt}={v!r}): {got} != {want}"[:300])
    assert n > 100, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:40])


def _method_option_calls():
    """(method name, the arguments after the array, option name, its default) of every ndarray
    method that has a NumPy function of its name (whose signature, after its first parameter, the
    method's is) taking such an option."""
    for name in sorted(dir(numpy.ndarray)):
        f = getattr(numpy, name, None)
        if name.startswith("_") or not callable(f) or name in ("put", "fill", "resize", "setfield", "itemset"):
            continue
        try:
            params = list(inspect.signature(f).parameters.values())[1:]
        except (TypeError, ValueError):
            continue
        options = [p for p in params if (type(p.default) is str and p.kind is not p.VAR_KEYWORD)
                   or (p.name in NONE_OPTIONS and p.default is None)]
        required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for first, rest in BASES:
            args = [rest.copy() for _ in required]
            if _outcome(lambda *a, **k: getattr(first.copy(), name)(*a, **k), args, {})[0] == "answer":
                break
        else:
            continue
        for p in options:
            yield name, first, args, p.name, p.default


def test_odd_string_options_of_methods_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, first, args, opt, default in _method_option_calls():
        values = ODD + ([default.upper(), default[:-1], default.encode()] if default else [])
        for v in values:
            want = _outcome(lambda *a, **k: getattr(first.copy(), name)(*a, **k), [a.copy() for a in args], {opt: v})
            got = _outcome(lambda *a, **k: getattr(xpshim.asarray(first), name)(*a, **k),
                           [xpshim.asarray(a) for a in args], {opt: v})
            n += 1
            if got != want:
                differ.append(f"x.{name}(..., {opt}={v!r}): {got} != {want}"[:300])
    assert n > 50, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:40])
