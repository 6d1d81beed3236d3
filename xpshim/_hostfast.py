"""Host fast paths: NumPy's own steps, for the common case of a few NumPy functions written in
Python, without NumPy's argument handling around them.

A Python loop over small NumPy arrays in auto mode pays xpshim's wrapper on every call
(0.2-0.4 us). For ``np.roll`` and ``np.linalg.norm`` NumPy's own argument handling (axis
normalisation, broadcasting the shift, ``itertools.product``; ``asarray`` and dtype checks)
costs more than that, so taking its steps directly makes the call cheaper than NumPy's and the
loop no slower. Each fast path is called only by the wrapper's host path (plain NumPy arrays,
numbers and plain keywords), takes exactly NumPy's steps for its case, in NumPy's order, so the
result is NumPy's to the bit, layout included, and hands every other case (and every error) to
NumPy's implementation. ``tests/unit/test_hostfast.py`` compares each with NumPy's.
"""

import numpy


def _roll(impl):
    empty_like = numpy.empty_like
    whole = slice(None)

    def roll(a, shift, axis=None):
        # numpy/_core/numeric.py roll with one int shift along one int axis
        if type(shift) is int and type(axis) is int:
            nd = a.ndim
            if -nd <= axis < nd:
                if axis < 0:
                    axis += nd
                offset = shift % (a.shape[axis] or 1)  # If `a` is empty, nothing matters.
                result = empty_like(a)
                if offset:
                    lead = (whole,) * axis
                    result[lead + (slice(offset, None),)] = a[lead + (slice(None, -offset),)]
                    result[lead + (slice(None, offset),)] = a[lead + (slice(-offset, None),)]
                else:
                    result[...] = a
                return result
        return impl(a, shift, axis)

    return roll


def _norm(impl):
    sqrt = numpy.sqrt

    def norm(x, ord=None, axis=None, keepdims=False):
        # numpy/linalg/_linalg.py norm's "default, simple, fast" case for real floating data
        if ord is None and axis is None and keepdims is False and x.dtype.kind == "f":
            x = x.ravel(order="K")
            return sqrt(x.dot(x))
        return impl(x, ord, axis, keepdims)

    return norm


FAST = {"xpshim.roll": _roll, "xpshim.linalg.norm": _norm}


def fast(name, impl):
    """The host function the wrapper of ``name`` calls for plain NumPy arguments: a fast path
    that falls back to ``impl`` (NumPy's implementation), or ``impl`` itself."""
    make = FAST.get(name)
    if make is None:
        return impl
    f = make(impl)
    f.__wrapped__ = impl
    return f
