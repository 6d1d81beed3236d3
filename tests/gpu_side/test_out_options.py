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


def _with_out():
    """(name, NumPy's function, its required parameters) of every routed function taking ``out``."""
    for name, route in routes():
        if route.writes or name.startswith(SKIP):
            continue
        npf = numpy_function(name)
        params = signature_params(npf)
        if params is not None and "out" in {p.name for p in params}:
            yield name, npf, required(params)


def _out_calls():
    for name, npf, need in _with_out():
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


def _zero_d_out_calls():
    """(name, xpshim's callable, NumPy's, args, NumPy's answer) of every routed function with
    ``out`` and every ufunc of NumPy's namespace, on arguments NumPy answers with a 0-d result."""
    for name, npf, need in _with_out():
        args = [numpy.arange(1.0, 5.0)] + [numpy.arange(1.0, 5.0) for _ in need[1:]]
        try:
            want = _quiet(npf, *args)
        except Exception:
            continue
        if numpy.ndim(want) == 0 and isinstance(want, (numpy.generic, numpy.ndarray)):
            yield name, xpshim_function(name), npf, args, want
    for name in sorted(dir(numpy)):
        u = getattr(numpy, name)
        if isinstance(u, numpy.ufunc) and u.nout == 1 and "d" in "".join(t.split("->")[0] for t in u.types):
            args = [numpy.array(2.0)] * u.nin
            try:
                want = _quiet(u, *args)
            except Exception:
                continue
            yield name, getattr(xpshim, name), u, args, want


def test_a_zero_d_out_stays_an_array(gpu):
    # np.sum(x, out=o), np.add(a, b, out=o) with a 0-d o: o is written and stays NumPy's 0-d
    # array (a later write lands in it, repr array(...)), where it was made a scalar
    differ, n = [], 0
    for name, xf, npf, args, want in _zero_d_out_calls():
        theirs = numpy.full((), -7, numpy.asarray(want).dtype)
        with xpshim.device("gpu"):
            xo = xpshim.asarray(theirs.copy())
            got = _run(xf, [xpshim.asarray(a) for a in args], xo)
        exp = _run(npf, [a.copy() for a in args], theirs)
        n += 1
        before = numpy.asarray(xpshim.asnumpy(xo))
        same = before.dtype == theirs.dtype and numpy.allclose(before, theirs, equal_nan=True)
        try:
            xo[...] = 1
            written = float(xpshim.asnumpy(xo)) == 1 and repr(xo).startswith("array(")
        except Exception as e:
            written = repr(e)
        if got != exp or not same or written is not True:
            differ.append(f"np.{name}(..., out=0-d): {got} != {exp}; out held {before} against {theirs}; "
                          f"a later write into it: {written}")
    assert n > 60, n  # (generated: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls:\n" + "\n".join(differ[:60])
