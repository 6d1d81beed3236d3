"""``x.flat`` of a GPU array as NumPy's flat iterator (``numpy.flatiter``).

Indexing and assignment run on the GPU (``_ndarray.Flat``); the iterator protocol (``next``,
``for v in x.flat``) copies the array to the host once, at the first element, and gives NumPy's
scalars, as iterating a 1-d array does. ``base``, ``index`` and ``coords`` are NumPy's.
``x.flat = v`` fills the array with ``v`` repeated as needed, as NumPy's does.

https://numpy.org/doc/stable/reference/generated/numpy.flatiter.html
"""

import numpy

from . import _backend
from ._ndarray import Flat, host


class FlatIter(Flat):
    """A flat iterator over a GPU array: ``numpy.flatiter``'s attributes and protocol."""

    __slots__ = ("_i", "_h")

    def __init__(self, base):
        super().__init__(base)
        self._i = 0
        self._h = None

    base = property(lambda s: s._base, doc="The array being iterated over.")
    index = property(lambda s: s._i, doc="The flat index of the next element.")

    @property
    def coords(self):
        """The N-dimensional index of the next element."""
        shape = self._base.shape
        if not shape:
            return ()
        if self._base.size == 0:
            return (0,) * len(shape)
        if self._i >= self._base.size:  # past the end: NumPy's odometer has carried into the first axis
            return (shape[0],) + (0,) * (len(shape) - 1)
        return tuple(int(c) for c in numpy.unravel_index(self._i, shape))

    def __iter__(self):
        return self

    def __next__(self):
        if self._i >= self._base.size:
            raise StopIteration
        if self._h is None:  # one copy for the whole iteration
            self._h = host(self._base, "flat iteration").reshape(-1)
        v = self._h[self._i]
        self._i += 1
        return v

    def copy(self):
        """A flattened copy on the GPU, as ``x.flatten()``."""
        return self._base.flatten()

    def __array__(self, dtype=None, copy=None):
        h = host(self._base, "numpy.asarray(x.flat)").reshape(-1)
        return h if dtype is None else h.astype(dtype, copy=False)

    def __repr__(self):
        return f"<xpshim flatiter over a GPU array of shape {self._base.shape}>"


def assign(base, value):
    """``base.flat = value``: every element, from ``value`` repeated (cycled) as needed."""
    from ._ndarray import arraylike, ndarray

    xp = _backend.xp
    n = base.size
    if n == 0:
        return
    if type(value) is ndarray:
        v = value._a
    elif type(value) in (list, tuple, numpy.ndarray):
        v = arraylike(value)  # (copied over, counted)
    else:
        v = xp.full((1,), value, dtype=base.dtype)
    v = v.astype(base.dtype, copy=False).reshape(-1)
    if v.size == 0:
        return
    if v.size != n:
        v = xp.tile(v, -(-n // v.size))[:n]  # (NumPy cycles the values)
    base._a[...] = v.reshape(base.shape)
