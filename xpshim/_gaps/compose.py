"""Module-level NumPy functions CuPy lacks, written as compositions of CuPy operations."""

import numpy
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import Decline, implements


def _xp():
    from .. import _backend
    return _backend.xp


@implements("xpshim.block")
def block(arrays):
    # numpy.block: nested lists; the innermost concatenate along the last axis, outwards.
    xp = _xp()

    def depth(x):
        return 1 + depth(x[0]) if type(x) is list and x else (1 if type(x) is list else 0)

    d = depth(arrays)

    def ndim(x):
        return max(ndim(v) for v in x) if type(x) is list else getattr(x, "ndim", 0)

    nd = max(ndim(arrays), d)

    def go(x, level):
        if type(x) is not list:
            a = xp.asarray(x)
            return a.reshape((1,) * (nd - a.ndim) + a.shape)
        return xp.concatenate([go(v, level + 1) for v in x], axis=-(d - level))

    return go(arrays, 0)


# ------------------------------------------------------------------ helpers

_NoValue = numpy._NoValue  # NumPy's "not given" default, so an explicit None stays distinct


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative axes (NumPy's AxisError when out of range)."""
    if axis is None:
        return tuple(range(ndim))
    return normalize_axis_tuple(axis, ndim)


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _out(r, out):
    """The result, written to ``out`` where one is given (as NumPy returns it)."""
    if out is None:
        return r
    out[...] = r
    return out


def _mask(xp, a, where):
    """``where`` as a boolean mask of ``a``'s shape (NumPy's ValueError if it does not broadcast)."""
    return xp.broadcast_to(xp.asarray(where, dtype=bool), a.shape)


def _fill(xp, a, where, value):
    """``a`` with the entries ``where`` leaves out replaced by ``value`` (cast to a's dtype)."""
    if where is True:
        return a
    return xp.where(_mask(xp, a, where), a, xp.asarray(value).astype(a.dtype))


def _no_nan(xp, a, value):
    return xp.where(xp.isnan(a), xp.asarray(value, dtype=a.dtype), a) if a.dtype.kind in "fc" else a


# ------------------------------------------------------------------ reductions: where=, initial=

def _additive(name, neutral, combine, nan):
    @implements(f"xpshim.{name}", kwargs={"where", "initial"})
    def f(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
        xp = _xp()
        a = xp.asarray(a)
        if neutral == 1 and a.dtype.kind == "c":
            # (inf+1j) * (1+0j) is inf+nanj: a product cannot skip an entry by multiplying by one
            raise Decline("complex products with where= or initial=")
        if nan:
            a = _no_nan(xp, a, neutral)
        r = getattr(xp, name.removeprefix("nan"))(_fill(xp, a, where, neutral), axis=axis, dtype=dtype,
                                                  keepdims=keepdims)
        if initial is not _NoValue:
            r = combine(r, xp.asarray(initial).astype(r.dtype))
        return _out(r, out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name} with where= and initial=: the left-out entries become {neutral}, initial joins after."
    return f


for _name, _neutral, _op in (("sum", 0, lambda r, i: r + i), ("prod", 1, lambda r, i: r * i)):
    _additive(_name, _neutral, _op, False)
    _additive("nan" + _name, _neutral, _op, True)


_UFUNC_OF = {"max": "maximum", "amax": "maximum", "min": "minimum", "amin": "minimum",
             "nanmax": "fmax", "nanmin": "fmin"}


def _extreme(name):
    ufname = _UFUNC_OF[name]
    reduce = {"amax": "max", "amin": "min"}.get(name, name)

    @implements(f"xpshim.{name}", kwargs={"where", "initial"})
    def f(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
        xp = _xp()
        a = xp.asarray(a)
        if initial is _NoValue:
            if where is not True:
                raise ValueError(f"reduction operation '{ufname}' does not have an identity, "
                                 "so to use a where mask one has to specify 'initial'")
            return getattr(xp, reduce)(a, axis=axis, out=out, keepdims=keepdims)
        init = xp.asarray(initial).astype(a.dtype)
        axes = _axes(axis, a.ndim)
        if any(a.shape[i] == 0 for i in axes):
            r = xp.full(_reduced_shape(a.shape, axes, keepdims), init, dtype=a.dtype)
        else:
            r = getattr(xp, reduce)(_fill(xp, a, where, init), axis=axis, keepdims=keepdims)
            r = getattr(xp, ufname)(r, init)
        return _out(r, out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"numpy.{name} with where= and initial=: the left-out entries become initial, "
                 f"which then joins the result through {ufname}.")
    return f


for _name in _UFUNC_OF:
    _extreme(_name)


def _logical(name, neutral):
    @implements(f"xpshim.{name}", kwargs={"where"})
    def f(a, axis=None, out=None, keepdims=False, *, where=True):
        xp = _xp()
        a = xp.asarray(a)
        b = a if a.dtype == bool else a != 0
        return _out(getattr(xp, name)(_fill(xp, b, where, neutral), axis=axis, keepdims=keepdims), out)

    f.__name__ = f.__qualname__ = name
    return f


_logical("all", True)
_logical("any", False)


def _count(xp, a, where, axis, keepdims):
    return xp.sum(_mask(xp, a, where), axis=axis, dtype=numpy.intp, keepdims=keepdims)


def _divide(s, n):
    """s / n in s's dtype, as NumPy's ``true_divide(s, n, out=s, casting='unsafe')``."""
    return (s / n).astype(s.dtype, copy=False)


def _mean_dtype(a, dtype):
    """(dtype to sum in, dtype of the result) as numpy.mean picks them."""
    if dtype is not None:
        return dtype, dtype
    if a.dtype.kind in "iub":
        return numpy.float64, numpy.float64
    if a.dtype == numpy.float16:
        return numpy.float32, numpy.float16
    return None, a.dtype


@implements("xpshim.mean", kwargs={"where"})
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """numpy.mean with where=: the sum of the entries kept over their count (NaN where none are)."""
    xp = _xp()
    a = xp.asarray(a)
    if where is True:
        return xp.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    sdt, rdt = _mean_dtype(a, dtype)
    s = xp.sum(_fill(xp, a, where, 0), axis=axis, dtype=sdt, keepdims=keepdims)
    return _out(_divide(s, _count(xp, a, where, axis, keepdims)).astype(rdt, copy=False), out)


@implements("xpshim.nanmean", kwargs={"where"})
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """numpy.nanmean with where=: NaN entries and those ``where`` leaves out are not counted."""
    xp = _xp()
    a = xp.asarray(a)
    if a.dtype.kind not in "fc":
        return mean(a, axis, dtype, out, keepdims, where=where)
    keep = _mask(xp, a, where) & ~xp.isnan(a)
    s = xp.sum(xp.where(keep, a, xp.zeros((), a.dtype)), axis=axis, dtype=dtype, keepdims=keepdims)
    return _out(_divide(s, xp.sum(keep, axis=axis, dtype=numpy.intp, keepdims=keepdims)), out)


def _variance(a, axis, dtype, ddof, keepdims, where, mean, correction, nan):
    """NumPy's _var (and _nanvar where ``nan``), step for step, with the mask as a fill."""
    xp = _xp()
    a = xp.asarray(a)
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    nan = nan and a.dtype.kind in "fc"
    keep = _mask(xp, a, where)
    if nan:
        keep = keep & ~xp.isnan(a)
    if dtype is None and a.dtype.kind in "iub":
        dtype = numpy.float64
    cnt = xp.sum(keep, axis=axis, dtype=numpy.intp, keepdims=True)
    if mean is not _NoValue:
        avg = xp.asarray(mean)
    else:
        avg = _divide(xp.sum(xp.where(keep, a, xp.zeros((), a.dtype)), axis=axis, dtype=dtype, keepdims=True), cnt)
    x = a - avg
    if nan:
        x = x.astype(a.dtype, copy=False)  # NumPy subtracts in place, into a's dtype
    x = x.real * x.real + x.imag * x.imag if x.dtype.kind == "c" else x * x
    s = xp.sum(xp.where(keep, x, xp.zeros((), x.dtype)), axis=axis, dtype=dtype, keepdims=keepdims)
    dof = cnt.reshape(s.shape) - ddof
    if nan:
        return xp.where(dof <= 0, xp.asarray(numpy.nan, dtype=s.dtype), _divide(s, dof))
    return _divide(s, xp.maximum(dof, 0))


def _var_family(name):
    sqrt = name.endswith("std")
    nan = name.startswith("nan")

    @implements(f"xpshim.{name}", kwargs={"where", "mean", "correction"})
    def f(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue,
          correction=_NoValue):
        r = _variance(a, axis, dtype, ddof, keepdims, where, mean, correction, nan)
        return _out(_xp().sqrt(r) if sqrt else r, out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name} with where=, mean= and correction=, as NumPy computes it."
    return f


for _name in ("var", "std", "nanvar", "nanstd"):
    _var_family(_name)


@implements("xpshim.count_nonzero", kwargs={"keepdims"})
def count_nonzero(a, axis=None, *, keepdims=False):
    xp = _xp()
    a = xp.asarray(a)
    if axis is None and not keepdims:
        return xp.count_nonzero(a)
    return xp.sum(a.astype(bool), axis=axis, dtype=numpy.intp, keepdims=keepdims)


# ------------------------------------------------------------------ sorting, selection

def _sorting(name):
    @implements(f"xpshim.{name}", kwargs={"stable"})
    def f(a, axis=-1, kind=None, order=None, *, stable=None):
        if kind is not None and stable is not None:
            raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                             "Use only one of them.")
        return getattr(_xp(), name)(a, axis=axis, kind="stable")  # what CuPy always does

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name} with stable=: CuPy's {name} is always stable, so stable= changes nothing."
    return f


_sorting("sort")
_sorting("argsort")


@implements("xpshim.unique", kwargs={"sorted"})
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """numpy.unique with sorted=: the values come back sorted either way (NumPy leaves the
    order unspecified with sorted=False)."""
    return _xp().unique(ar, return_index, return_inverse, return_counts, axis, equal_nan=equal_nan)


@implements("xpshim.take", kwargs={"mode"})
def take(a, indices, axis=None, out=None, mode="raise"):
    """numpy.take with mode=: 'raise' checks the bounds on the device (one reduction) and
    raises NumPy's IndexError; 'wrap' and 'clip' map the indices first."""
    xp = _xp()
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    a = xp.asarray(a)
    idx = xp.asarray(indices)
    if idx.dtype.kind != "i":
        idx = idx.astype(numpy.intp)
    ax = 0 if axis is None else normalize_axis_index(axis, a.ndim)
    n = a.size if axis is None else a.shape[ax]
    if idx.size:
        if n == 0:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        if mode == "raise":
            bad = (idx < -n) | (idx >= n)
            if bool(bad.any()):
                raise IndexError(f"index {int(idx[bad][0])} is out of bounds for axis {ax} with size {n}")
        elif mode == "wrap":
            idx = idx % n
        else:
            idx = xp.clip(idx, 0, n - 1)
    return xp.take(a, idx, axis=axis, out=out)
