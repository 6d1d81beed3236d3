"""Module-level NumPy functions CuPy lacks, written as compositions of CuPy operations."""

import inspect
import math
import operator
import warnings

import numpy
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from .. import _transfer
from ._table import Decline, implements


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

    r = go(arrays, 0)
    r = r.copy() if r is arrays or type(arrays) is not list else r  # (NumPy's block copies one array)
    # NumPy's block answers F-ordered where every block is (numpy/_core/shape_base.py,
    # _block_slicing; its concatenate keeps the order too); CuPy's concatenate answers C-ordered
    leaves = list(_leaves(arrays))
    if r.ndim > 1 and leaves and all(getattr(v, "flags", None) is not None and v.flags.f_contiguous for v in leaves) \
            and not all(v.flags.c_contiguous for v in leaves):
        r = xp.asfortranarray(r)
    return r


def _leaves(x):
    if type(x) is list:
        for v in x:
            yield from _leaves(v)
    else:
        yield x


@implements("xpshim.select", replaces=True)
def select(condlist, choicelist, default=0):
    # numpy.select: NumPy's checks and result dtype (Python numbers weak, NEP 50), the default
    # where no condition holds, then each choice written where its condition is first true.
    # (CuPy's takes lists of GPU arrays only, no Python-number default beyond int/float.)
    xp = _xp()
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    weak = (int, float, complex)
    choices = [c if type(c) in weak else xp.asarray(c) for c in [*choicelist, default]]
    try:
        dt = numpy.result_type(*[c.dtype if isinstance(c, xp.ndarray) else c for c in choices])
    except TypeError as e:
        raise TypeError(f"Choicelist and default value do not have a common dtype: {e}") from None
    conds = [xp.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != numpy.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    conds = xp.broadcast_arrays(*conds)
    choices = xp.broadcast_arrays(*[c if isinstance(c, xp.ndarray) else xp.asarray(c, dtype=dt) for c in choices])
    shape = conds[0].shape if choices[0].ndim == 0 else numpy.broadcast_shapes(conds[0].shape, choices[0].shape)
    result = xp.empty(shape, dt)
    result[...] = choices[-1]
    for choice, cond in zip(choices[-2::-1], conds[::-1]):
        xp.copyto(result, choice, where=cond)
    return result


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


def clip_mode(mode):
    """An index mode ("raise", "wrap", "clip") as NumPy reads it: also its numbers (0 clip, 1 wrap,
    2 raise) and bytes; NumPy's own error for any other."""
    if type(mode) is str and (mode == "raise" or mode == "wrap" or mode == "clip"):
        return mode
    try:  # (NumPy's converter, by NumPy's own call: its error, or what the mode does to -1 and 2)
        r = numpy.arange(2).take([-1, 2], mode=mode)
    except IndexError:
        return "raise"
    return "wrap" if r[0] == 1 else "clip"


@implements("xpshim.take", kwargs={"mode"})
def take(a, indices, axis=None, out=None, mode="raise"):
    """numpy.take with mode=: 'raise' checks the bounds on the device (one reduction) and
    raises NumPy's IndexError; 'wrap' and 'clip' map the indices first."""
    xp = _xp()
    mode = clip_mode(mode)
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


# ------------------------------------------------------------------ nanquantile, nanpercentile

# NumPy's quantile methods (numpy/lib/_function_base_impl.py, _QuantileMethods), as
# (virtual index from n and q, gamma fix or None for the methods that take an order statistic).
def _discrete(xp, index, pick_previous):
    prev = xp.floor(index)
    res = xp.where(pick_previous(index - prev, index), prev, prev + 1).astype(numpy.intp)
    return xp.maximum(res, 0)


def _hf(alpha, beta):
    return lambda xp, n, q: n * q + (alpha + q * (1 - alpha - beta)) - 1


_QUANTILE_METHODS = {
    "inverted_cdf": (lambda xp, n, q: _discrete(xp, n * q - 1, lambda g, i: g == 0), None),
    "averaged_inverted_cdf": (lambda xp, n, q: n * q - 1, lambda xp, g, i: xp.where(g == 0, 0.5, 1.0)),
    "closest_observation": (lambda xp, n, q: _discrete(
        xp, n * q - 1 - 0.5, lambda g, i: (g == 0) & (xp.floor(i) % 2 == 1)), None),
    "interpolated_inverted_cdf": (_hf(0, 1), lambda xp, g, i: g),
    "hazen": (_hf(0.5, 0.5), lambda xp, g, i: g),
    "weibull": (_hf(0, 0), lambda xp, g, i: g),
    "linear": (lambda xp, n, q: (n - 1) * q, lambda xp, g, i: g),
    "median_unbiased": (_hf(1 / 3.0, 1 / 3.0), lambda xp, g, i: g),
    "normal_unbiased": (_hf(3 / 8.0, 3 / 8.0), lambda xp, g, i: g),
    "lower": (lambda xp, n, q: xp.floor((n - 1) * q).astype(numpy.intp), None),
    "higher": (lambda xp, n, q: xp.ceil((n - 1) * q).astype(numpy.intp), None),
    "midpoint": (lambda xp, n, q: 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q)),
                 lambda xp, g, i: xp.where(i % 1 == 0, 0.0, 0.5)),
    "nearest": (lambda xp, n, q: xp.around((n - 1) * q).astype(numpy.intp), None),
}


def _nanquantile(a, q, axis, out, method, keepdims, weights, percent):
    """numpy.nanquantile, vectorised: sort each slice (NaN last), count its valid values,
    and compute NumPy's virtual index per slice from that count."""
    xp = _xp()
    if weights is not None:
        raise Decline("weights=")
    a = xp.asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_QUANTILE_METHODS.keys()}")
    weak = type(q) in (int, float)
    # q is small: validated on the host, as NumPy does (a GPU q crosses once, counted)
    qh = _transfer.to_host(q, "q of a quantile, checked on the host") if isinstance(q, xp.ndarray) else numpy.asarray(q)
    if percent:
        qh = numpy.true_divide(qh, 100)
    if qh.size and not (qh.min() >= 0 and qh.max() <= 1):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    if qh.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    axes = _axes(axis, a.ndim)
    if qh.ndim >= 2 and axis is not None and len(axes) != 1:
        # NumPy merges several axes into its last (_ureduce), then moves q's axes from -1 + i
        # (_nanquantile_ureduce_func's moveaxis): its answer's axes are in another order, which
        # NumPy's own code gives
        raise Decline("a q of two dimensions over several axes")
    if a.size == 0:
        return nanmean(a, axis, None, out, keepdims)
    keep = [i for i in range(a.ndim) if i not in axes]
    rest = tuple(a.shape[i] for i in keep)
    s = a.transpose(keep + list(axes)).reshape((-1, math.prod(a.shape[i] for i in axes)))
    s = xp.sort(s, axis=-1)  # NaN last, as NumPy sorts
    N = s.shape[-1]
    n = (xp.sum(~xp.isnan(s), axis=-1) if a.dtype.kind == "f" else xp.full(s.shape[0], N)).astype(numpy.intp)
    qd = xp.asarray(qh)
    nq = n.astype(qd.dtype) if qd.dtype.kind == "f" else n  # NumPy's n is a Python int: q's dtype wins
    nq = nq.reshape((1,) * qd.ndim + (-1,))
    qb = qd.reshape(qd.shape + (1,))
    index_of, fix = _QUANTILE_METHODS[method]
    v = index_of(xp, nq, qb)
    rows = xp.arange(s.shape[0])
    last = xp.maximum(n - 1, 0)
    if fix is None or v.dtype.kind in "iu":
        idx = xp.minimum(xp.maximum(v, 0), last)
        r = s[rows, idx]
    else:
        prev = xp.floor(v)
        gamma = fix(xp, v - prev, v).astype(v.dtype)
        lo = xp.where(v >= nq - 1, last, xp.where(v < 0, 0, prev.astype(numpy.intp)))
        hi = xp.where(v >= nq - 1, last, xp.where(v < 0, 0, prev.astype(numpy.intp) + 1))
        below, above = s[rows, xp.minimum(lo, N - 1)], s[rows, xp.minimum(hi, N - 1)]
        if weak:
            gamma = gamma.astype(numpy.result_type(a.dtype, 0.0))  # NumPy uses a Python float there
        diff = above - below
        r = xp.where(gamma >= 0.5, above - diff * (1 - gamma), below + diff * gamma)
    if a.dtype.kind == "f":
        empty = n == 0
        if bool(xp.any(empty)):  # (one sync: NumPy warns)
            import warnings

            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=5)
        r = xp.where(empty, xp.asarray(numpy.nan, dtype=r.dtype), r)
    shape = _reduced_shape(a.shape, axes, keepdims) if keepdims else rest
    return _out(r.reshape(qd.shape + shape), out)


@implements("xpshim.nanquantile")
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    return _nanquantile(a, q, axis, out, method, keepdims, weights, False)


@implements("xpshim.nanpercentile")
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    return _nanquantile(a, q, axis, out, method, keepdims, weights, True)


# ------------------------------------------------------------------ vector products (NumPy's gufuncs)

def _gufunc_plain(name, kw, x1, x2):
    if kw:
        raise Decline(f"{name} with {', '.join(sorted(kw))}")
    # a Python number beside an array: NumPy converts it first, by NEP 50 (its OverflowError for an
    # int that does not fit the dtype it takes), and checks the core dimensions after
    for v, other in ((x1, x2), (x2, x1)):
        if type(v) in (int, float, complex) and hasattr(other, "dtype"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # (a float's overflow: NumPy's inf)
                numpy.asarray(v, dtype=numpy.result_type(other.dtype, v))


@implements("xpshim.vecdot")
def vecdot(x1, x2, /, out=None, *, axis=-1, **kw):
    """numpy.vecdot: sum of conj(x1) * x2 over the last axis (or ``axis``)."""
    from .linalg import vecdot_core

    _gufunc_plain("vecdot", kw, x1, x2)
    return _out(vecdot_core(x1, x2, axis), out)


def _matrix_vector(x1, x2, name):
    xp = _xp()
    x1, x2 = xp.asarray(x1), xp.asarray(x2)
    m, v = (x1, x2) if name == "matvec" else (x2, x1)
    if m.ndim < 2 or v.ndim < 1:
        raise ValueError(f"{name}: the matrix needs two dimensions and the vector one")
    n = m.shape[-1] if name == "matvec" else m.shape[-2]
    if v.shape[-1] != n:
        raise ValueError(f"{name}: the core dimensions do not match ({v.shape[-1]} and {n})")
    dt = numpy.result_type(x1.dtype, x2.dtype)
    if name == "matvec":
        p = m * v[..., None, :]
    else:
        p = (xp.conj(v) if dt.kind == "c" else v)[..., :, None] * m
    ax = -1 if name == "matvec" else -2
    return xp.any(p, axis=ax) if dt == bool else xp.sum(p, axis=ax, dtype=dt)


@implements("xpshim.matvec")
def matvec(x1, x2, /, out=None, **kw):
    """numpy.matvec: the matrix-vector product over the last two (matrix) and last (vector) axes."""
    _gufunc_plain("matvec", kw, x1, x2)
    return _out(_matrix_vector(x1, x2, "matvec"), out)


@implements("xpshim.vecmat")
def vecmat(x1, x2, /, out=None, **kw):
    """numpy.vecmat: conj(vector) times matrix."""
    _gufunc_plain("vecmat", kw, x1, x2)
    return _out(_matrix_vector(x1, x2, "vecmat"), out)


# ------------------------------------------------------------------ bits, spacing, einsum_path

def bitorder_name(bitorder):
    """NumPy's reading of ``bitorder``: text beginning with "b" or "l" (TypeError otherwise)."""
    if not isinstance(bitorder, str):
        raise TypeError(f"bitorder must be a str, not {type(bitorder).__name__}")
    if bitorder[:1] not in ("b", "l"):
        raise ValueError("'order' must begin with 'l' or 'b'")
    return "big" if bitorder[0] == "b" else "little"


def _bit_weights(xp, bitorder):
    w = xp.asarray([128, 64, 32, 16, 8, 4, 2, 1], dtype=numpy.uint8)
    return w if bitorder_name(bitorder) == "big" else w[::-1]


@implements("xpshim.packbits", kwargs={"axis"})
def packbits(a, /, axis=None, bitorder="big"):
    """numpy.packbits along an axis: the axis last, padded with zeros to a multiple of 8,
    each group of 8 summed with its bit weights."""
    xp = _xp()
    a = xp.asarray(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    w = _bit_weights(xp, bitorder)
    if axis is None:
        return xp.packbits(a, bitorder=bitorder_name(bitorder))
    ax = normalize_axis_index(axis, a.ndim)
    b = xp.moveaxis(a != 0, ax, -1)
    n = b.shape[-1]
    pad = -n % 8
    if pad:
        b = xp.concatenate([b, xp.zeros(b.shape[:-1] + (pad,), dtype=bool)], axis=-1)
    b = b.reshape(b.shape[:-1] + ((n + pad) // 8, 8)).astype(numpy.uint8)
    return xp.moveaxis(xp.sum(b * w, axis=-1, dtype=numpy.uint8), -1, ax)


@implements("xpshim.unpackbits", kwargs={"axis", "count"})
def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """numpy.unpackbits along an axis and with count=: each byte's bits by shift and mask,
    then the first ``count`` of them (zeros past the end)."""
    xp = _xp()
    a = xp.asarray(a)
    if a.dtype != numpy.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    w = _bit_weights(xp, bitorder)
    if axis is None:
        a = a.ravel()
        ax = 0
    else:
        ax = normalize_axis_index(axis, a.ndim)
    b = xp.moveaxis(a, ax, -1)
    bits = ((b[..., None] & w) != 0).astype(numpy.uint8).reshape(b.shape[:-1] + (b.shape[-1] * 8,))
    if count is not None:
        count = operator.index(count)
        nbits = bits.shape[-1]
        if count < 0:
            if -count > nbits:
                raise ValueError("-count larger than number of elements")
            count += nbits
        if count > nbits:
            bits = xp.concatenate([bits, xp.zeros(bits.shape[:-1] + (count - nbits,), dtype=numpy.uint8)], axis=-1)
        bits = bits[..., :count]
    return xp.moveaxis(bits, -1, ax)


@implements("xpshim.spacing")
def spacing(x, /, out=None, **kw):
    """numpy.spacing: the distance to the next float away from zero (+0 and -0 both towards +inf),
    nextafter(x, +-inf) - x, in the float type NumPy's ufunc picks for the input."""
    if kw:
        raise Decline(f"spacing with {', '.join(sorted(kw))}")
    xp = _xp()
    x = xp.asarray(x)
    dt = numpy.spacing(numpy.zeros(1, x.dtype)).dtype  # the loop NumPy picks (int8 -> float16, ...)
    x = x.astype(dt, copy=False)
    inf = xp.asarray(numpy.inf, dtype=dt)
    r = xp.nextafter(x, xp.where(x >= 0, inf, -inf)) - x
    return _out(r, out)


@implements("xpshim.einsum_path")
def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy.einsum_path: the path depends on the shapes alone, so NumPy's runs on host
    stand-ins of the operands' shapes and dtypes (zero strides: no data is copied)."""
    if not operands or not isinstance(operands[0], str):
        raise Decline("the interleaved (operand, sublist) form")
    xp = _xp()
    stand_ins = [numpy.broadcast_to(numpy.zeros((), o.dtype), o.shape) if isinstance(o, xp.ndarray) else o
                 for o in operands[1:]]
    return numpy.einsum_path(operands[0], *stand_ins, optimize=optimize, einsum_call=einsum_call)


@implements("xpshim.lib.array_utils.byte_bounds")
def byte_bounds(a):
    """NumPy's byte_bounds of a GPU array: the device addresses of its first and one past its
    last byte (NumPy's arithmetic on ``data.ptr`` and the strides)."""
    low = high = a.data.ptr
    if a.size == 0:
        return low, high
    for n, step in zip(a.shape, a.strides):
        if step < 0:
            low += (n - 1) * step
        else:
            high += (n - 1) * step
    return low, high + a.itemsize


# Window functions: CuPy's kernels take their step as float32 (hanning(9)[1] is off by 3e-9);
# these are NumPy's formulas, term for term, in float64.
def _window_size(M, *more):
    xp = _xp()
    vals = [v.item() if isinstance(v, xp.ndarray) else v for v in (M, *more)]
    return numpy.array([0.0, *vals])[1:]  # (NumPy's: M, beta as float64)


def _window(formula):
    """NumPy's window of M points: empty below 1, [1.0] at 1, else ``formula(xp, n, M)`` over
    n = 1 - M, 3 - M, ..., M - 1."""
    def window(M):
        xp = _xp()
        (M,) = _window_size(M)
        if M < 1:
            return xp.array([], dtype=numpy.float64)
        if M == 1:
            return xp.ones(1, dtype=numpy.float64)
        return formula(xp, xp.arange(1 - M, M, 2, dtype=numpy.float64), M)
    return window


def _cosines(*coef):
    def formula(xp, n, M):
        r = coef[0] + coef[1] * xp.cos(numpy.pi * n / (M - 1))
        return r + coef[2] * xp.cos(2.0 * numpy.pi * n / (M - 1)) if len(coef) > 2 else r
    return formula


implements("xpshim.hanning", replaces=True)(_window(_cosines(0.5, 0.5)))
implements("xpshim.hamming", replaces=True)(_window(_cosines(0.54, 0.46)))
implements("xpshim.blackman", replaces=True)(_window(_cosines(0.42, 0.5, 0.08)))
implements("xpshim.bartlett", replaces=True)(
    _window(lambda xp, n, M: xp.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))))


@implements("xpshim.kaiser", replaces=True)
def kaiser(M, beta):
    xp = _xp()
    M, beta = _window_size(M, beta)
    if M == 1:
        return xp.ones(1, dtype=numpy.float64)
    n = xp.arange(0, M, dtype=numpy.float64)
    alpha = (M - 1) / 2.0
    q = (n - alpha) / alpha
    # (NumPy's power(x, 2.0) squares; i0 of the host scalar beta is NumPy's own)
    return xp.i0(beta * xp.sqrt(1 - q * q)) / float(numpy.i0(beta))


# clip: NumPy's argument handling (min=/max= keywords, a_min and a_max both optional) and its
# ufunc's NaN propagation (np.clip(x, nan, 1) is all NaN; CuPy's kernel keeps x), with
# CuPy's one-kernel clip where the bounds are numbers other than NaN.
def _nan_number(v):
    return isinstance(v, (float, complex, numpy.inexact)) and v != v


@implements("xpshim.clip", replaces=True)
def clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):
    """numpy.clip on the GPU: minimum(maximum(a, a_min), a_max), as NumPy's clip ufunc."""
    if a_min is _NoValue and a_max is _NoValue:
        a_min = None if min is _NoValue else min
        a_max = None if max is _NoValue else max
    elif a_min is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NoValue or max is not _NoValue:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are provided is forbidden.")
    return clip_method(a, a_min, a_max, out, **kwargs)


def clip_method(a, min=None, max=None, out=None, **kwargs):
    """ndarray.clip (NumPy's _methods._clip): Python ints past an integer dtype's range drop
    out; one bound alone is minimum or maximum; no bound is a copy."""
    xp = _xp()
    if not isinstance(a, xp.ndarray):
        from .. import _transfer
        a = _transfer.to_device(a, "clip's array")
    if kwargs.keys() - {"dtype", "casting"}:
        raise Decline(f"clip with {', '.join(sorted(kwargs.keys() - {'dtype', 'casting'}))}")
    if a.dtype.kind in "iu":
        info = numpy.iinfo(a.dtype)
        if type(min) is int and min <= info.min:
            min = None
        if type(max) is int and max >= info.max:
            max = None
    if min is None and max is None:
        if a.dtype.kind == "b":
            numpy.positive(numpy.zeros(1, bool))  # (NumPy's own error: positive has no bool loop)
        return xp.positive(a, out=out, **kwargs)
    if min is None:
        return xp.minimum(a, max, out=out, **kwargs)
    if max is None:
        return xp.maximum(a, min, out=out, **kwargs)
    if (not kwargs and a.dtype.kind != "c" and type(min) in (int, float) and type(max) in (int, float)
            and not _nan_number(min) and not _nan_number(max)):
        return xp.clip(a, min, max, out=out)
    return xp.minimum(xp.maximum(a, min, **kwargs), max, out=out, **kwargs)


def numpy_strides(x, shape, strides):
    """The strides NumPy's ``as_strided(x, shape)`` gives where they differ from CuPy's, else
    None: NumPy reads the array interface, so a C-contiguous array with a new ``shape`` and no
    ``strides`` gets C-contiguous strides for that shape (CuPy keeps the array's own)."""
    if shape is None or strides is not None or not isinstance(x, _xp().ndarray) or not x.flags.c_contiguous:
        return None
    c, step = [], x.itemsize
    for n in reversed(tuple(shape)):
        c.append(step)
        step *= max(n, 1)
    return tuple(reversed(c))


@implements("xpshim.lib.stride_tricks.as_strided", kwargs={"check_bounds", "subok", "writeable", "shape", "strides"})
def as_strided(x, shape=None, strides=None, subok=False, writeable=True, *, check_bounds=None):
    """numpy.lib.stride_tricks.as_strided with check_bounds= (NumPy 2.5): the view's byte bounds
    against those of the array it views (its base), on the GPU; subok has nothing to keep there.
    writeable=False: the view is read-only as NumPy's (its route marks it: _ndarray.mark_read_only)."""
    xp = _xp()
    c = numpy_strides(x, shape, strides)
    view = xp.lib.stride_tricks.as_strided(x, shape, strides if c is None else c)
    if check_bounds:
        base = x
        while isinstance(base.base, xp.ndarray):
            base = base.base
        (low, high), (vlow, vhigh) = byte_bounds(base), byte_bounds(view)
        if vlow < low:
            raise ValueError(f"Given shape and strides would access memory out of bounds. "
                             f"View starts {low - vlow} bytes before lowest address")
        if vhigh > high:
            raise ValueError(f"Given shape and strides would access memory out of bounds. "
                             f"View ends {vhigh - high} bytes after highest address")
    return view


@implements("xpshim.poly", replaces=True)
def poly(seq_of_zeros):
    """numpy.poly runs NumPy's on the host (a visible fallback, a few numbers copied): CuPy's
    multiplies the factors by FFT, which loses the coefficients of many roots (20 integer roots
    give a leading coefficient of -468 for 1), keeps the product of conjugate roots complex and
    spreads a NaN root to every coefficient; a matrix's characteristic polynomial needs the
    eigenvalues of a general matrix, which CuPy has no solver for."""
    raise Decline("CuPy's poly multiplies by FFT (inexact for many roots) and has no general eigensolver")


_RESHAPE_NEWSHAPE = "newshape" in inspect.signature(numpy.reshape).parameters


@implements("xpshim.reshape", kwargs={"shape", "newshape", "copy"})
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """numpy.reshape's keywords of NumPy 2.1 and the array API (``shape=``, ``copy=``), which CuPy's
    reshape (``newshape``; CuPy 13: no ``copy``) does not take: CuPy's reshape, copied as ``copy`` says."""
    if newshape is not None:
        if not _RESHAPE_NEWSHAPE:  # NumPy 2.4 removed it (deprecated since 2.1)
            raise TypeError("reshape() got an unexpected keyword argument 'newshape'")
        if shape is not None:
            raise TypeError("You cannot specify 'newshape' and 'shape' arguments at the same time.")
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing 1 required positional argument: 'shape'")
    xp = _xp()
    r = xp.reshape(a, shape, order)
    if copy:
        return r.copy()
    made_new = r.base is None and r is not a or (r.size and r.data.ptr != a.data.ptr)  # (not a view of a)
    if copy is False and made_new:
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return r


# convolve and correlate of inexact data by direct sums, as NumPy's: CuPy's go through cuFFT for
# float and complex inputs (``_choose_conv_method``), whose rounding is not that of a sum of
# products (https://github.com/cupy/cupy/blob/v14.0.0/cupy/_math/misc.py#L25-L79): 0.25 comes
# out as 0.2499999999999993. Integer data is CuPy's direct kernel already.
_BLOCK = 1 << 22  # (elements of the windows-by-taps product made at once)


def direct_convolve(a, v, mode="full"):
    """NumPy's convolve of two 1-d device arrays, each output a sum of products (the longer one
    slides; "same" keeps the longer one's length, centred as NumPy's)."""
    xp = _xp()
    if a.size < v.size:
        a, v = v, a
    n, m = a.size, v.size
    dtype = numpy.result_type(a.dtype, v.dtype)
    a, taps = a.astype(dtype, copy=False), v[::-1].astype(dtype, copy=False)
    padded = xp.concatenate([xp.zeros(m - 1, dtype), a, xp.zeros(m - 1, dtype)])
    start = {"full": 0, "same": (m - 1) // 2, "valid": m - 1}[mode]
    size = {"full": n + m - 1, "same": n, "valid": n - m + 1}[mode]
    out = xp.empty(size, dtype)
    rows = max(1, _BLOCK // m)
    for lo in range(0, size, rows):  # (windows of the padded data, a block of outputs at a time)
        k = min(rows, size - lo)
        win = xp.lib.stride_tricks.as_strided(padded[start + lo:], (k, m), (padded.strides[0],) * 2)
        out[lo:lo + k] = (win * taps).sum(axis=1)
    return out


def direct_correlate(a, v, mode="valid"):
    """NumPy's correlate of two 1-d device arrays: the convolution with ``v`` reversed and
    conjugated; a shorter ``a`` is swapped in, the answer reversed and conjugated (NumPy's
    correlate2)."""
    if a.size < v.size:
        return direct_correlate(v, a, mode)[::-1].conj()
    return direct_convolve(a, v[::-1].conj(), mode)
