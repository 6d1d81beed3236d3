"""A plain call of a routed function (xpshim arrays and Python numbers, alone or in a flat list or
tuple, keywords of numbers: ``np.sum(a, axis=0)``, ``np.concatenate([a, b])``, ``np.zeros(16)``)
skips ``Route.gpu``'s checks before CuPy's call (``Route.gpu_checked``). For every routed function
of the namespace and a table of such calls, the short path answers as the checked one does: the
same answer (type, dtype, shape, values) or the same error."""

import warnings

import numpy
import pytest

import xpshim
from routes import routes as _routes
from xpshim import _route


# (label, arguments, keywords): M a 4 x 4 float64 GPU array, V 16 float64, B 4 x 4 bool, U 4 x 4
# uint8, I a 0-d int64 GPU array (an axis given as an array: not plain), numbers, None or a number
# in a dtype's place
def _calls(M, V, B, U, I):
    return [
        ("M", (M,), {}), ("V", (V,), {}), ("M, M", (M, M), {}), ("B, M, M", (B, M, M), {}),
        ("M, 0", (M, 0), {}), ("M, 1", (M, 1), {}), ("M, -1", (M, -1), {}), ("M, 1.5", (M, 1.5), {}),
        ("M, I", (M, I), {}), ("M, None", (M, None), {}), ("M, 0, None", (M, 0, None), {}),
        ("M, 0, 1", (M, 0, 1), {}), ("U", (U,), {}), ("U, axis=0", (U,), {"axis": 0}), ("U, axis=-1", (U,), {"axis": -1}),
        ("[M, M]", ([M, M],), {}), ("(M, M)", ((M, M),), {}), ("[V, V]", ([V, V],), {}),
        ("M, axis=0", (M,), {"axis": 0}), ("M, axis=-1", (M,), {"axis": -1}),
        ("M, keepdims=True", (M,), {"keepdims": True}), ("M, initial=1.0", (M,), {"initial": 1.0}),
        ("M, stable=True", (M,), {"stable": True}), ("V, sorted=False", (V,), {"sorted": False}), ("M, axis=I", (M,), {"axis": I}),
        ("16", (16,), {}), ("(4, 4)", ((4, 4),), {}), ("2, 10", (2, 10), {}), ("0, 1, 5", (0, 1, 5), {}),
    ]


def _outcome(f, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(args, kwargs)
    except Exception as e:
        return ("raised", type(e).__name__, str(e))
    return ("answer", _plain_value(r))


def _plain_value(r):
    """An answer as plain Python data: arrays as (type, dtype, shape, values) read by NumPy."""
    if type(r) is tuple or type(r) is list or (isinstance(r, tuple) and hasattr(r, "_fields")):
        return (type(r).__name__, [_plain_value(v) for v in r])
    if type(r) is xpshim.ndarray or type(r) is numpy.ndarray or isinstance(r, numpy.generic):
        h = numpy.asarray(xpshim.asnumpy(r) if type(r) is xpshim.ndarray else r)
        kind = "value" if type(r) is xpshim.ndarray and r._v else type(r).__name__
        return (kind, h.dtype.str, h.shape, h.tobytes() if h.dtype.kind != "O" else repr(h.tolist()))
    return (type(r).__name__, repr(r))


def _without_values(outcome):
    if outcome[0] == "answer" and len(outcome[1]) == 4:
        return ("answer", outcome[1][:3])
    return outcome


def test_a_plain_call_answers_as_the_checked_route(gpu, monkeypatch):
    rng = numpy.random.default_rng(0)
    host = (rng.random((4, 4)) + 0.5, rng.random(16) + 0.5, rng.random((4, 4)) > 0.5,
            rng.integers(0, 255, (4, 4), dtype=numpy.uint8), numpy.int64(0))
    taken = []
    checked_gpu = _route.Route.gpu_checked

    def counted(self, args, kwargs):
        taken.append(False)
        return checked_gpu(self, args, kwargs)

    routes = _routes()
    assert len(routes) > 250  # (the namespace's functions: read from it, not listed here)
    differ, plain = [], 0
    for name, route in routes:
        if route.writes or name.startswith(("random", "save", "load", "from", "gen")):
            continue  # (writes into an argument or a file, or new random numbers each call: no plain path)
        for i in range(len(_calls(*host))):
            # (new arrays for each path: a call given out= by position, np.choose(B, M, M), writes)
            label, args, kwargs = _calls(*map(xpshim.asarray, host))[i]
            checked = _outcome(checked_gpu.__get__(route), args, kwargs)  # (first: resolves CuPy's function)
            args, kwargs = _calls(*map(xpshim.asarray, host))[i][1:]
            monkeypatch.setattr(_route.Route, "gpu_checked", counted)
            taken.clear()
            short = _outcome(route.gpu, args, kwargs)
            monkeypatch.setattr(_route.Route, "gpu_checked", checked_gpu)
            if not taken:
                plain += 1
            if name in ("empty", "empty_like"):  # (memory as found: its values are no answer)
                short, checked = _without_values(short), _without_values(checked)
            if short != checked:
                differ.append(f"np.{name}({label}): {short[:2]} != {checked[:2]}")
    assert not differ, f"{len(differ)} calls answer otherwise on the short path:\n" + "\n".join(differ[:40])
    assert plain > 1000, plain  # (the short path is taken: the comparison is not vacuous)
