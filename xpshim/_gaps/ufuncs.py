"""ufunc methods CuPy lacks (it has reduce/accumulate for add and multiply only,
reduceat for add, at for a few scatter ops), for any binary ufunc.

Associative operations (maximum, logical_and, bitwise_or, integer add, ...)
are composed from the CuPy ufunc itself: a pairwise halving for ``reduce`` and
a doubling scan (Hillis-Steele) for ``accumulate``, both exact because the
grouping of an associative operation does not change its result. The others
(subtract, divide, power, ...) are left folds whose result depends on the
order: they run as Numba kernels in NumPy's order (``_kernels.ufunc_loops``).
A ufunc with no kernel line (gcd, nextafter, ldexp, ...), or any ufunc when
Numba's CUDA target is unusable, runs as CuPy steps in that same order
(``_steps``): one CuPy call per position along the axis, per segment offset,
or per round of repeated indices.

Each implementation first asks NumPy, on a one-element host array, for the
result dtype (so NumPy's casting rules hold); a type NumPy refuses raises
NumPy's own TypeError there, with no data moved. What an implementation does
not cover it declines; the call then runs on the host, visibly.
"""

import numpy

from . import _steps
from ._table import Decline, implements
from .. import _backend, _kernels

# (lcm is not here: where its products wrap around, the grouping changes the result)
ASSOCIATIVE = frozenset({"maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or", "logical_xor",
                         "bitwise_and", "bitwise_or", "bitwise_xor", "gcd"})
_NO_VALUE = numpy._NoValue


def _associative(name, dtype):
    return name in ASSOCIATIVE or (name in ("add", "multiply") and dtype.kind in "biu")


def covers(name, method):
    """How ufunc ``name``'s ``method`` runs here: "cupy" (composition), "numba", or None.

    Names only (no GPU needed): what the report of ``python -m xpshim gaps`` counts.
    """
    from .._kernels.ufunc_loops import OPS

    if method in ("reduce", "accumulate") and name in ASSOCIATIVE:
        return "cupy"
    return "numba" if name in OPS else "cupy"


def _ask_numpy(f):
    """NumPy's result on a one-element host sample. A TypeError (no loop for these dtypes) is
    NumPy's answer for the real arrays too: raised as is. Other errors: Decline (the host run
    then raises NumPy's own error for the real data)."""
    try:
        with numpy.errstate(all="ignore"):
            return f()
    except TypeError:
        raise
    except Exception as e:
        raise Decline(f"NumPy refuses it: {type(e).__name__}") from None


def _axis(a, axis):
    if type(axis) is not int and not isinstance(axis, numpy.integer):
        raise Decline("axis must be an int here")
    if not -a.ndim <= axis < a.ndim:
        raise Decline("axis out of range")
    return int(axis) % a.ndim


def _lanes(xp, x, axis):
    """x with ``axis`` first, as a C-contiguous (n, m) array, and the other axes' shape."""
    y = xp.ascontiguousarray(xp.moveaxis(x, axis, 0))
    rest = y.shape[1:]
    return y.reshape(y.shape[0], -1), rest


def _loops(name, dtype=None):
    """The Numba kernel family for ``name``, or None: then CuPy steps (``_steps``) do it."""
    from .._kernels import ufunc_loops

    if name not in ufunc_loops.OPS or (name in ufunc_loops.COMPARISONS and dtype is not None
                                       and dtype.kind != "b"):
        return None
    try:
        return ufunc_loops.kernels(name)
    except _kernels.Unavailable:  # Numba's CUDA target is unusable here (python -m xpshim info says why)
        return None


# A left fold runs one thread per lane: with few lanes over a long axis the GPU walks it one
# element at a time (measured on an H200: subtract.accumulate of 1e6 elements in one lane
# 75 ms, against 4.5 ms for the copy to the host, NumPy and the copy back).
_FEW_LANES, _LONG_AXIS = 64, 1 << 14


def _serial(n, m):
    if m < _FEW_LANES and n >= _LONG_AXIS:
        raise Decline(f"a fold of {n} elements in {m} lane(s) is faster on the host")


def _cupy_ufunc(xp, npu):
    f = getattr(xp, npu.__name__, None)
    if f is None:
        raise Decline(f"CuPy has no {npu.__name__}")
    return f


def _finish(r, out):
    if out is None:
        return r
    out[...] = r
    return out


@implements("ufunc.accumulate", kwargs={"axis", "dtype", "out"}, how="numba")
def accumulate(npu, array, axis=0, dtype=None, out=None):
    xp = _backend.xp
    a = xp.asarray(array)
    if npu.nin != 2 or a.ndim == 0:
        raise Decline("NumPy's error")
    axis = _axis(a, axis)
    rdt = _ask_numpy(lambda: npu.accumulate(numpy.ones(1, a.dtype), dtype=dtype)).dtype
    x = a.astype(rdt, copy=False)
    n = a.shape[axis]
    if n == 0 or x.size == 0:
        return _finish(xp.empty(a.shape, rdt), out)
    y, rest = _lanes(xp, x, axis)
    if _associative(npu.__name__, rdt):
        f = getattr(xp, npu.__name__)
        y = y.copy()  # the scan works in place; y may be the caller's array itself
        k = 1
        while k < n:  # after the step for k, row i holds the fold of rows i-2k+1..i
            y[k:] = f(y[:-k], y[k:])
            k *= 2
        r = y
    else:
        _serial(n, y.shape[1])
        fam = _loops(npu.__name__, a.dtype)
        if fam is None:
            r = _steps.accumulate(_cupy_ufunc(xp, npu), y)
        else:
            r = xp.empty_like(y)
            _kernels.launch(fam[0], y.shape[1], y, r, n, y.shape[1])
    r = xp.ascontiguousarray(xp.moveaxis(r.reshape((n,) + rest), 0, axis))
    return _finish(r, out)


@implements("ufunc.reduce", kwargs={"axis", "dtype", "out", "keepdims", "initial", "where"}, how="numba")
def reduce(npu, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    xp = _backend.xp
    if where is not True:
        raise Decline("where= is not covered")
    a = xp.asarray(array)
    if npu.nin != 2 or a.ndim == 0:
        raise Decline("NumPy's error")
    if axis is None:
        if a.ndim > 1 and npu.identity is None and npu.__name__ not in ASSOCIATIVE:
            raise Decline("NumPy's error: not reorderable")  # (NumPy reorders ufuncs with an identity)
        a, axis, full = a.reshape(-1), 0, True
    else:
        axis, full = _axis(a, axis), False
    kw = {} if initial is _NO_VALUE else {"initial": initial}
    rdt = _ask_numpy(lambda: npu.reduce(numpy.ones(1, a.dtype), dtype=dtype, **kw)).dtype
    x = a.astype(rdt, copy=False)
    n = a.shape[axis]
    if n == 0:
        start = initial if initial is not _NO_VALUE else npu.identity
        if start is None:
            raise Decline("NumPy's error: no identity")
        r = xp.full(a.shape[:axis] + a.shape[axis + 1:], start, rdt)
    else:
        y, rest = _lanes(xp, x, axis)
        if initial is not _NO_VALUE:
            y = xp.concatenate([xp.full((1, y.shape[1]), initial, rdt), y])
        if _associative(npu.__name__, rdt):
            f = getattr(xp, npu.__name__)
            while y.shape[0] > 1:  # neighbours pair up; an odd last row waits for the next round
                h = y.shape[0] // 2
                head = f(y[0:2 * h:2], y[1:2 * h:2])
                y = head if y.shape[0] % 2 == 0 else xp.concatenate([head, y[2 * h:]])
            r = y[0]
        else:
            _serial(y.shape[0], y.shape[1])
            fam = _loops(npu.__name__, a.dtype)
            if fam is None:
                r = _steps.reduce(_cupy_ufunc(xp, npu), y)
            else:
                r = xp.empty(y.shape[1], rdt)
                _kernels.launch(fam[1], y.shape[1], y, r, y.shape[0], y.shape[1])
        r = r.reshape(rest)
    if keepdims:
        r = xp.expand_dims(r, tuple(range(array.ndim)) if full else axis)
    return _finish(r, out)


@implements("ufunc.reduceat", kwargs={"axis", "dtype", "out"}, how="numba")
def reduceat(npu, array, indices, axis=0, dtype=None, out=None):
    xp = _backend.xp
    a = xp.asarray(array)
    idx = xp.asarray(indices)
    if npu.nin != 2 or a.ndim == 0 or idx.ndim != 1 or idx.dtype.kind not in "iu":
        raise Decline("NumPy's error or an unusual index")
    axis = _axis(a, axis)
    rdt = _ask_numpy(lambda: npu.reduceat(numpy.ones(1, a.dtype), [0], dtype=dtype)).dtype
    n, k = a.shape[axis], idx.size
    if k and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise Decline("NumPy's error: index out of range")
    y, rest = _lanes(xp, a.astype(rdt, copy=False), axis)
    fam = _loops(npu.__name__, a.dtype)
    if fam is None:
        r = _steps.reduceat(_cupy_ufunc(xp, npu), y, idx.astype(numpy.int64))
    else:
        r = xp.empty((k, y.shape[1]), rdt)
        _kernels.launch(fam[2], k * y.shape[1], y, idx.astype(numpy.int64), r, n, k, y.shape[1])
    r = xp.ascontiguousarray(xp.moveaxis(r.reshape((k,) + rest), 0, axis))
    return _finish(r, out)


_CHUNK = 1024


def _chunked(xp, fam, p, v, starts):
    """Long runs of an associative ``at`` cut into chunks of ``_CHUNK`` updates, each folded by
    its own thread (the reduceat kernel): the same result in any grouping, and no thread walks
    more than ``_CHUNK`` updates plus one per chunk of its run. Returns the chunks as runs."""
    n = p.size
    cuts = xp.unique(xp.concatenate([starts, xp.arange(0, n, _CHUNK)]))
    part = xp.empty((cuts.size, 1), v.dtype)
    _kernels.launch(fam[2], cuts.size, v.reshape(n, 1), cuts, part, n, cuts.size, 1)
    q = p[cuts]
    return q, part.reshape(-1), xp.flatnonzero(xp.concatenate([xp.ones(1, bool), q[1:] != q[:-1]]))


@implements("ufunc.at", kwargs=set(), how="numba")
def at(npu, a, indices, b=None):
    xp = _backend.xp
    if npu.nin != 2 or b is None:
        raise Decline("only binary ufuncs with values")
    b = xp.asarray(b)
    _ask_numpy(lambda: npu.at(numpy.ones(1, a.dtype), [0], numpy.ones(1, b.dtype)))
    parts = indices if type(indices) is tuple else (indices,)
    dims = a.shape
    for d, p in zip(dims, parts):  # NumPy raises for out-of-range indices; CuPy would wrap
        if isinstance(p, xp.ndarray) and p.dtype.kind in "iu" and p.size and (
                int(p.min()) < -d or int(p.max()) >= d):
            raise Decline("NumPy's error: index out of range")
    pos = xp.arange(a.size).reshape(dims)[indices]
    vals = xp.ascontiguousarray(xp.broadcast_to(b, pos.shape)).reshape(-1)
    flat = a if a.flags.c_contiguous else xp.ascontiguousarray(a)
    pos = xp.ascontiguousarray(pos).reshape(-1)
    fam = _loops(npu.__name__, a.dtype)
    if fam is None:  # rounds of distinct indices, one CuPy call each
        _steps.at(_cupy_ufunc(xp, npu), flat.reshape(-1), pos, vals)
    elif pos.size:
        order = xp.argsort(pos, kind="stable")  # each position's updates stay in NumPy's order
        p, v = pos[order], vals[order]
        starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), p[1:] != p[:-1]]))
        if starts.size < _FEW_LANES and p.size >= _LONG_AXIS:
            if not (_associative(npu.__name__, a.dtype) and numpy.result_type(a.dtype, v.dtype) == a.dtype):
                raise Decline(f"{p.size} updates to {starts.size} position(s), applied in order, are faster on the host")
            p, v, starts = _chunked(xp, fam, p, v.astype(a.dtype, copy=False), starts)
        _kernels.launch(fam[3], starts.size, flat.reshape(-1), p, v, starts, starts.size, p.size)
    if flat is not a:
        a[...] = flat
    return None
