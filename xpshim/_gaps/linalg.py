"""numpy.linalg functions CuPy's linalg lacks, written as compositions of CuPy operations.

Each follows NumPy's own definition (numpy/linalg/_linalg.py), which is mostly a
call to a top-level function that CuPy has.
"""

import operator

import numpy
from numpy.lib.array_utils import normalize_axis_tuple

from ._table import implements


def _xp():
    from .. import _backend
    return _backend.xp


@implements("xpshim.linalg.diagonal")
def diagonal(x, /, *, offset=0):
    return _xp().diagonal(x, offset, axis1=-2, axis2=-1)


@implements("xpshim.linalg.trace")
def trace(x, /, *, offset=0, dtype=None):
    return _xp().trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


@implements("xpshim.linalg.outer")
def outer(x1, x2, /):
    xp = _xp()
    x1, x2 = xp.asarray(x1), xp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} and x2.ndim={x2.ndim}.")
    return xp.outer(x1, x2)


@implements("xpshim.linalg.tensordot")
def tensordot(x1, x2, /, *, axes=2):
    return _xp().tensordot(x1, x2, axes=axes)


@implements("xpshim.linalg.svdvals")
def svdvals(x, /):
    return _xp().linalg.svd(x, compute_uv=False)


def _empty(name, x, **kwargs):
    """NumPy's answer (or error) for an empty input, made on the host from no data (CuPy's norm
    takes a maximum of nothing); the result is copied over (counted)."""
    from .. import _transfer
    r = getattr(numpy.linalg, name)(numpy.empty(x.shape, x.dtype), **kwargs)
    return _transfer.to_device(r, f"linalg.{name} of an empty array: NumPy's answer")


@implements("xpshim.linalg.matrix_norm")
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    if x.size == 0:
        return _empty("matrix_norm", x, keepdims=keepdims, ord=ord)
    return _xp().linalg.norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


@implements("xpshim.linalg.vector_norm")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    # NumPy's: the axes to reduce moved to the front and merged, then a vector norm along 0.
    xp = _xp()
    x = xp.asarray(x)
    if x.size == 0:
        return _empty("vector_norm", x, axis=axis, keepdims=keepdims, ord=ord)
    shape = list(x.shape)
    if axis is None:
        x = x.ravel()
        _axis = 0
    elif isinstance(axis, tuple):
        normalized = normalize_axis_tuple(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in normalized)
        x = xp.transpose(x, normalized + rest).reshape(
            (int(numpy.prod([x.shape[i] for i in normalized], dtype=int)), *[x.shape[i] for i in rest]))
        _axis = 0
    else:
        _axis = axis
    res = xp.linalg.norm(x, axis=_axis, ord=ord)
    if keepdims:
        for i in normalize_axis_tuple(range(len(shape)) if axis is None else axis, len(shape)):
            shape[i] = 1
        res = res.reshape(tuple(shape))
    return res


def vecdot_core(x1, x2, axis=-1):
    """numpy.vecdot: sum over ``axis`` of conj(x1) * x2, in the inputs' common dtype."""
    xp = _xp()
    x1, x2 = xp.asarray(x1), xp.asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: both inputs need at least one dimension (the vector axis)")
    if isinstance(axis, (bool, numpy.bool_)):  # (NumPy's gufunc axis= refuses booleans, as not integers)
        raise TypeError("an integer is required")
    axis = operator.index(axis)  # (NumPy's TypeError for a float)
    x1, x2 = xp.moveaxis(x1, axis, -1), xp.moveaxis(x2, axis, -1)
    if x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"vecdot: the vector axis has size {x1.shape[-1]} in x1 and {x2.shape[-1]} in x2")
    dt = numpy.result_type(x1.dtype, x2.dtype)
    if dt == bool:
        return xp.any(x1 & x2, axis=-1)
    return xp.sum(xp.conj(x1) * x2 if dt.kind == "c" else x1 * x2, axis=-1, dtype=dt)


@implements("xpshim.linalg.vecdot")
def vecdot(x1, x2, /, *, axis=-1):
    return vecdot_core(x1, x2, axis)


@implements("xpshim.linalg.multi_dot")
def multi_dot(arrays, *, out=None):
    # NumPy's: the cheapest order of the products (from the shapes alone), then dot in that order.
    xp = _xp()
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return xp.dot(arrays[0], arrays[1], out=out)
    arrays = [xp.asarray(a) for a in arrays]
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = xp.atleast_2d(arrays[0])
    if last == 1:
        arrays[-1] = xp.atleast_2d(arrays[-1]).T
    for a in arrays:
        if a.ndim != 2:
            raise numpy.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    p = [a.shape[0] for a in arrays] + [arrays[-1].shape[1]]
    cost = [[0.0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = numpy.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j, out=None):
        if i == j:
            return arrays[i]
        return xp.dot(product(i, split[i][j]), product(split[i][j] + 1, j), out=out)

    if n == 3:  # NumPy's cost rule for three
        a0, a1b0 = arrays[0].shape
        b1c0, c1 = arrays[2].shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            result = xp.dot(xp.dot(arrays[0], arrays[1]), arrays[2], out=out)
        else:
            result = xp.dot(arrays[0], xp.dot(arrays[1], arrays[2]), out=out)
    else:
        result = product(0, n - 1, out)
    if first == 1 and last == 1:
        return result[0, 0]
    if first == 1 or last == 1:
        return result.ravel()
    return result
