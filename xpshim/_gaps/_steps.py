"""ufunc methods as CuPy steps in NumPy's order, for a ufunc with no kernel here.

``f`` is the CuPy ufunc; arrays are laid out by ``ufuncs._lanes`` as (n, m): the
axis first, every other axis flattened into m lanes that one CuPy call treats
together. The number of CuPy calls is the axis length (accumulate, reduce), the
longest segment (reduceat) or the most times one index repeats (at), so these
suit short axes; the Numba kernels (``_kernels.ufunc_loops``) take the others.
"""

from .. import _backend


def accumulate(f, y):
    """Row i of the result is ``f(row i-1 of the result, y[i])``."""
    r = y.copy()
    for i in range(1, y.shape[0]):
        r[i] = f(r[i - 1], y[i])
    return r


def reduce(f, y):
    """``f(...f(f(y[0], y[1]), y[2])..., y[n-1])`` per lane; y has at least one row."""
    acc = y[0].copy()
    for i in range(1, y.shape[0]):
        acc = f(acc, y[i])
    return acc.astype(y.dtype, copy=False)


def reduceat(f, y, idx):
    """NumPy's reduceat: segment s folds rows idx[s]..idx[s+1]-1, or is row idx[s] alone
    where idx[s+1] <= idx[s] (the last segment runs to the end)."""
    xp = _backend.xp
    n, k = y.shape[0], idx.size
    if k == 0:
        return xp.empty((0, y.shape[1]), y.dtype)
    hi = xp.concatenate([idx[1:], xp.asarray([n], idx.dtype)])
    length = xp.maximum(hi - idx, 1)
    acc = y[idx]
    for off in range(1, int(length.max())):  # rows past a segment's end leave it as it is
        take = (off < length)[:, None]
        row = y[xp.minimum(idx + off, n - 1)]
        acc = xp.where(take, f(acc, row), acc).astype(y.dtype, copy=False)
    return acc


def at(f, flat, pos, vals):
    """``flat[pos[t]] = f(flat[pos[t]], vals[t])`` for t in order. Rounds: the r-th time an
    index appears is applied in round r, so no round writes one element twice and each
    element sees its updates in NumPy's order."""
    xp = _backend.xp
    if pos.size == 0:
        return
    order = xp.argsort(pos, kind="stable")
    p, v = pos[order], vals[order]
    first = xp.concatenate([xp.asarray([True]), p[1:] != p[:-1]])
    start = _running_max(xp, xp.where(first, xp.arange(p.size), 0))  # where each run of equal indices starts
    rank = xp.arange(p.size) - start
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        q = p[sel]
        flat[q] = f(flat[q], v[sel])


def _running_max(xp, x):
    """Running maximum of a non-negative int array (CuPy has no maximum.accumulate)."""
    y = x.copy()
    k = 1
    while k < y.size:
        y[k:] = xp.maximum(y[:-k], y[k:])
        k *= 2
    return y
