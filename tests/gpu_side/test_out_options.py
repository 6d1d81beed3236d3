"""``out=`` read as NumPy reads it, as a class: an array of the answer's shape and dtype (GPU or
NumPy), a strided view of one, one of another shape, one of a dtype the answer does not cast to.
NumPy writes into it and answers with it, or raises its error and writes nothing; xpshim on the
GPU side does the same (what the out array holds afterwards, and whether the answer is it).

Generated from the namespace: every routed function whose NumPy signature has ``out``, a call
NumPy answers with the default, then the same call with each kind of out.
"""

import warnings

import numpy
import pytest

import xpshim
from arguments import BASES, SKIP, numpy_function, required, signature_params, xpshim_function
from routes import routes


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _outs(want):
    """(label, a NumPy array for out=, its GPU side: "gpu" or "host") for an answer ``want``."""
    w = numpy.asarray(want)
    wide = numpy.full(w.shape[:-1] + (2 * w.shape[-1],), -7, w.dtype) if w.ndim else None
    other = numpy.int8 if w.dtype.kind in "fc" else numpy.float64
    yield "same", numpy.full(w.shape, -7, w.dtype)
    if wide is not None:
        yield "strided", wide[..., ::2]
    yield "shape", numpy.full(w.shape + (2,), -7, w.dtype)
    yield "dtype", numpy.full(w.shape, -7, other)


def _out_calls():
    for name, route in routes():
        if route.writes or name.startswith(SKIP):
            continue
        npf = numpy_function(name)
        params = signature_params(npf)
        if params is None or "out" not in {p.name for p in params}:
            continue
        need = required(params)
        for first, rest in BASES:  # (the first call NumPy answers with an array)
            args = [first.copy()] + [rest.copy() for _ in need[1:]]
            try:
                want = _quiet(npf, *args)
            except Exception:
                continue
            if isinstance(want, numpy.ndarray):
                break
        else:
            continue
        yield name, xpshim_function(name), npf, args, want


def _run(f, args, out):
    """(what happened, what out holds after) for ``f(*args, out=out)``."""
    try:
        r = _quiet(f, *args, out=out)
    except Exception as e:
        return ("raised", type(e).__name__)
    return ("answered", "with out" if r is out else "with another array")


@pytest.mark.parametrize("where", ["gpu", "numpy"])
def test_outs_answer_as_numpy(gpu, where):
    differ, n = [], 0
    for name, xf, npf, args, want in _out_calls():
        for label, o in _outs(want):
            mine = o.copy() if o.base is None else numpy.full(o.base.shape, -7, o.dtype)[..., ::2]
            theirs = o.copy() if o.base is None else numpy.full(o.base.shape, -7, o.dtype)[..., ::2]
            if where == "gpu":
                base = xpshim.asarray(mine.base if mine.base is not None else mine)
                xo = base[..., ::2] if mine.base is not None else base
            else:
                xo = mine
            got = _run(xf, [xpshim.asarray(a) for a in args], xo)
            exp = _run(npf, [a.copy() for a in args], theirs)
            after = numpy.asarray(xpshim.asnumpy(xo) if type(xo) is xpshim.ndarray else xo)
            n += 1
            same = after.dtype == theirs.dtype and numpy.allclose(after, theirs, rtol=1e-6, equal_nan=True)
            if got != exp or not same:
                differ.append(f"np.{name}(..., out={where} {label}): {got} != {exp}; out holds "
                              f"{after.ravel()[:4]} against {theirs.ravel()[:4]}"[:300])
    assert n > 100, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
