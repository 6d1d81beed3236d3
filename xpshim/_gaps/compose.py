"""Module-level NumPy functions CuPy lacks, written as compositions of CuPy operations."""

from . import implements


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
