"""``np.nditer`` over GPU arrays, with writes landing in them.

NumPy's iterator is a host object: it reads a GPU operand as a host copy, so a write through a
writeable operand (``op_flags=['readwrite']``) used to change only that copy. Here the GPU
operands are copied to the host (counted, warned as a fallback), NumPy's iterator runs over the
copies, and the writeable ones are copied back to their GPU arrays when the iteration ends (the
last ``next``, ``iternext()`` answering False), and again on ``close()`` or the end of a ``with``
block (where NumPy writes its buffered and cast operands back). Without GPU operands it is
NumPy's own iterator.

https://numpy.org/doc/stable/reference/generated/numpy.nditer.html
"""

import numpy

from . import _fallback, _transfer
from ._ndarray import host, ndarray, written


def _writeable(op_flags, n):
    """Per operand: whether ``op_flags`` makes it writeable."""
    if not op_flags:
        return [False] * n
    per = op_flags if isinstance(op_flags[0], (list, tuple)) else [op_flags] * n
    return [("readwrite" in f or "writeonly" in f) for f in per]


class _NditerType(type):
    def __instancecheck__(cls, obj):  # (isinstance(it, np.nditer) holds for either kind)
        return isinstance(obj, (numpy.nditer, _GpuIter))


class nditer(metaclass=_NditerType):
    """numpy.nditer; GPU operands iterate as host copies (counted, warned), and the writeable ones
    are written back to their GPU arrays when the iteration ends or the iterator closes."""

    def __new__(cls, op, *args, **kwargs):
        ops = list(op) if isinstance(op, (list, tuple)) else [op]
        if not any(type(o) is ndarray for o in ops):
            return numpy.nditer(op, *args, **kwargs)
        _fallback.announce("nditer", "NumPy's iterator is a host object")
        hops = [host(o, "nditer operand") if type(o) is ndarray else o for o in ops]
        op_flags = kwargs.get("op_flags", args[1] if len(args) > 1 else None)
        back = [(g, h) for g, h, w in zip(ops, hops, _writeable(op_flags, len(ops))) if w and type(g) is ndarray]
        it = numpy.nditer(hops if isinstance(op, (list, tuple)) else hops[0], *args, **kwargs)
        return _GpuIter(it, back) if back else it


class _GpuIter:
    """NumPy's nditer over host copies, writing its writeable GPU operands back."""

    __slots__ = ("_it", "_back")

    def __init__(self, it, back):
        self._it, self._back = it, back

    def _write_back(self):
        for g, h in self._back:  # (the host copies NumPy wrote into, its cast buffers resolved)
            written(g)
            g._a[...] = _transfer.to_device(h, "nditer write-back")

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._it)
        except StopIteration:
            self._write_back()
            raise

    def iternext(self):
        more = self._it.iternext()
        if not more:
            self._write_back()
        return more

    def __enter__(self):
        self._it.__enter__()
        return self

    def __exit__(self, *exc):
        r = self._it.__exit__(*exc)
        self._write_back()
        return r

    def close(self):
        self._it.close()
        self._write_back()

    def __getitem__(self, i):
        return self._it[i]

    def __setitem__(self, i, v):
        self._it[i] = v

    def __len__(self):
        return len(self._it)

    def __getattr__(self, name):
        return getattr(self._it, name)

    def __repr__(self):
        return f"<xpshim nditer over GPU operands: {self._it!r}>"
