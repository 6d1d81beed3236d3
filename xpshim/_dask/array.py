"""``DaskArray``: a chunked ``dask.array.Array`` that behaves as a NumPy array.

It holds one Dask array (``_a``). Operators, indexing and methods build Dask graphs;
whatever needs the values on this process (``numpy.asarray``, Pillow, ``print``,
``float``, iteration, ``tolist``) computes the graph and gathers the result here,
counted in ``xpshim.stats()``. Methods Dask lacks gather the array and run NumPy's
(a visible, counted fallback).

Dask arrays have no views: a slice is a new array, and writing into it (``b[0] = 1``)
does not change the array it came from.
"""

import math
import operator
import sys
import weakref

import numpy

from .settings import by_value, chunk_bytes, chunk_type, current, scheduler
from .. import _transfer
from .._ndarray import c_strides

# Dask mode's routing (``routing.py``, which builds on this module): DaskArray's NumPy protocols
# hand their calls to it. Set by the package's ``enable()``.
_routing = None


def route_with(routing):
    """Answer DaskArray's NumPy protocols (``__array_ufunc__``, ``__array_function__``, methods
    NumPy arrays have) with ``routing``."""
    global _routing
    _routing = routing

# Chunk converters, run on the workers (by value: workers need no xpshim).
_CONVERT_SRC = '''
def to_cupy(block):
    import cupy
    return cupy.asarray(block)

def to_numpy(block):
    if type(block).__module__.startswith("cupy"):
        return block.get()
    return block
'''
_to_cupy = by_value(_CONVERT_SRC, "to_cupy")
_to_numpy = by_value(_CONVERT_SRC, "to_numpy")


def _meta(ndim, dtype):
    """An empty block of the chunk type (a NumPy one when this process has no GPU)."""
    from .. import _backend

    if _backend.gpu_status().usable:
        import cupy

        return cupy.empty((0,) * ndim, dtype)
    return numpy.empty((0,) * ndim, dtype)


def as_chunk_type(x):
    """``x`` (a Dask array with NumPy blocks) with blocks of the mode's chunk type."""
    if chunk_type() != "cupy":
        return x
    return x.map_blocks(_to_cupy, dtype=x.dtype, meta=_meta(x.ndim, x.dtype))


def chunks_for(shape, dtype):
    from dask.array.core import normalize_chunks

    c = current().chunks
    if c is not None and c != "auto":
        return c
    return normalize_chunks("auto", shape, limit=chunk_bytes(), dtype=numpy.dtype(dtype))


def compute(*xs):
    """Compute Dask collections on this thread's scheduler; NumPy results."""
    import dask

    hosted = [x.map_blocks(_to_numpy, dtype=x.dtype, meta=numpy.empty((0,) * x.ndim, x.dtype))
              if chunk_type() == "cupy" else x for x in xs]
    s = scheduler()
    if isinstance(s, str):
        return list(dask.compute(*hosted, scheduler=s))
    return s.compute(hosted, sync=True)


def persist(x):
    s = scheduler()
    return x.persist(scheduler=s) if isinstance(s, str) else s.persist(x)


def gather(x, reason, value=False):
    """The values of DaskArray ``x`` as a NumPy array (a counted gather). ``value``: the caller
    reads one element into a Python value (``bool(x)``, ``x.item()``): a size-1 result counts
    as a value read (``_transfer.VALUE_READ``), not as an array copy."""
    (h,) = compute(x._a)
    h = numpy.asarray(h)
    way = _transfer.VALUE_READ if value and h.size == 1 else "device_to_host"
    _transfer.count_copy(way, h.nbytes, f"Dask gather: {reason}")
    return h


def to_cluster(host, reason):
    """A DaskArray holding host data (NumPy array, list, scalar): sent to the cluster now (counted)."""
    import dask.array as da

    h = numpy.asarray(host)
    _transfer.count_copy("host_to_device", h.nbytes, f"to the Dask cluster: {reason}")
    return wrap(persist(as_chunk_type(da.from_array(h, chunks=chunks_for(h.shape, h.dtype)))))


def wrap(r):
    """Wrap Dask arrays in a result (array, tuple, list) as DaskArray."""
    t = type(r)
    if t is _DaskArrayType[0]:
        o = object.__new__(DaskArray)
        o._a = r
        o._host = None
        return o
    if t is tuple or t is list:
        return t(map(wrap, r))
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return t(*map(wrap, r))
    return r


_DaskArrayType = [None]  # dask.array.Array, bound on import


def dask_value(x, reason="operand"):
    """One argument in Dask's terms: DaskArray unwrapped, host arrays and lists sent over."""
    t = type(x)
    if t is DaskArray:
        return x._a
    if t is numpy.ndarray or t is list or t is tuple:
        return to_cluster(x, reason)._a
    return x


def _operand(x):
    t = type(x)
    if t is DaskArray:
        return x._a
    if t in (int, float, complex, bool) or isinstance(x, numpy.generic):
        return x
    if t is numpy.ndarray or t is list or t is tuple:
        return to_cluster(x, "operand")._a
    return NotImplemented


def _known(a):
    """``a`` with known chunk sizes (a boolean mask or nonzero leaves them unknown)."""
    if any(math.isnan(n) for n in a.shape):
        a.compute_chunk_sizes()
    return a


class DaskArray:
    """An N-dimensional array in chunks on a Dask cluster, behaving as ``numpy.ndarray`` does.

    ``x.dask_array`` is the ``dask.array.Array`` itself; ``x.compute()`` (or
    ``numpy.asarray(x)``) gathers the values (counted in ``xpshim.stats()``).
    """

    __slots__ = ("_a", "_host", "__weakref__")
    __array_priority__ = 110.0
    __hash__ = None
    _xpshim_device = "dask"

    # -- attributes ------------------------------------------------------
    shape = property(lambda s: tuple(int(n) for n in _known(s._a).shape), doc="Tuple of array dimensions.")
    dtype = property(lambda s: s._a.dtype, doc="Data type of the elements.")
    ndim = property(lambda s: s._a.ndim, doc="Number of dimensions.")
    size = property(lambda s: int(_known(s._a).size), doc="Number of elements.")
    itemsize = property(lambda s: s._a.dtype.itemsize, doc="Bytes per element.")
    nbytes = property(lambda s: int(_known(s._a).nbytes), doc="Bytes of all elements.")
    strides = property(lambda s: c_strides(s.shape, s.itemsize), doc="Strides of the gathered (C-order) array.")
    T = property(lambda s: wrap(s._a.T), doc="Transposed array.")
    mT = property(lambda s: wrap(s._a.swapaxes(-1, -2)), doc="Matrix-transposed array (last two axes).")
    real = property(lambda s: wrap(s._a.real), doc="Real part.")
    imag = property(lambda s: wrap(s._a.imag), doc="Imaginary part.")
    chunks = property(lambda s: s._a.chunks, doc="Dask's chunk sizes along each axis.")
    dask_array = property(lambda s: s._a, doc="The dask.array.Array.")
    device = property(lambda s: "dask", doc="Where the array lives: 'dask'.")

    def compute(self):
        """Gather the values into a NumPy array (counted)."""
        return gather(self, "compute()")

    def persist(self):
        """Compute the chunks and keep them in the cluster's memory; returns the persisted array."""
        return wrap(persist(self._a))

    def get(self):
        return gather(self, "get()")

    # -- interop: host, each a counted gather ---------------------------
    def _gathered(self, reason):
        if self._host is not None:
            name, ref = self._host
            self._host = None
            h = ref()
            if h is not None and name == self._a.name:
                return h
        return gather(self, reason)

    def __array__(self, dtype=None, copy=None):
        # copy=False cannot be honoured (the values are elsewhere); NumPy asks it only of
        # objects it could share memory with, so a gathered copy is the answer.
        h = gather(self, "numpy.asarray")
        return h.astype(dtype, copy=False) if dtype is not None else h

    if sys.version_info >= (3, 12):
        def __buffer__(self, flags):
            return memoryview(gather(self, "buffer protocol"))

    @property
    def __array_interface__(self):
        # Pillow reads the layout here and then the bytes from tobytes(): one gather.
        # Before Python 3.12 NumPy also needs 'data'; tobytes() reuses it while it lives.
        dt, shape = self.dtype, self.shape
        face = dict(shape=shape, typestr=dt.str, descr=dt.descr, strides=c_strides(shape, dt.itemsize), version=3)
        if sys.version_info < (3, 12):
            h = face["data"] = gather(self, "__array_interface__")
            self._host = (self._a.name, weakref.ref(h))  # alive while the caller holds the dict
        return face

    def tobytes(self, order="C"):
        return self._gathered("tobytes").tobytes(order)

    def tolist(self):
        return gather(self, "tolist", self._a.ndim == 0).tolist()  # (of a 0-d array: a Python scalar)

    def item(self, *args):
        if args:
            idx = numpy.unravel_index(args[0], self.shape) if len(args) == 1 else args
            return gather(wrap(self._a[tuple(idx)]), "item()", True).item()
        return gather(self, "item()", True).item()

    def __reduce__(self):
        return (_unpickle, (self._a,))  # the graph, not the values

    def __copy__(self):
        return wrap(self._a.copy())

    def __deepcopy__(self, memo):
        return wrap(self._a.copy())

    def copy(self, order="C"):
        return wrap(self._a.copy())

    # -- Python protocol (repr, str, bool, int, float, complex: from _GATHERING) ----------
    def __format__(self, spec):
        return format(gather(self, "format"), spec)

    def __len__(self):
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return iter(gather(self, "iteration"))

    def __contains__(self, v):
        return bool(gather(wrap((self._a == _operand(v)).any()), "in", True))

    def __index__(self):
        h = gather(self, "index", True)
        if h.ndim != 0 or h.dtype.kind not in "iub":
            return operator.index(h)  # NumPy's own error
        return operator.index(h[()])

    def __round__(self, ndigits=None):
        if ndigits is None and self._a.ndim == 0:
            return round(float(self))
        return wrap(self._a.round(ndigits or 0))

    def __getitem__(self, key):
        return wrap(self._a[_key(key)])

    def __setitem__(self, key, value):
        # Dask assigns by rebuilding the graph of the Array object it is given; a copy
        # keeps other DaskArrays that share that object unchanged.
        b = self._a.copy()
        v = value._a if type(value) is DaskArray else value
        if type(v) is list or type(v) is tuple:
            v = numpy.asarray(v)
        b[_key(key)] = v
        self._a = b

    # -- NumPy protocols: NumPy's functions on DaskArrays route as xpshim's do ---------
    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        return _routing.ufunc_call(uf, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _routing.function_call(func, args, kwargs)

    def __array_namespace__(self, api_version=None):
        from .. import _namespace

        xpshim = _namespace.package()

        return xpshim

    def __getattr__(self, name):
        return _routing.method(self, name)

    def __dir__(self):
        return sorted(set(dir(numpy.ndarray)) | set(type(self).__dict__))


def _key(key):
    if type(key) is DaskArray:
        return key._a
    if type(key) is tuple:
        return tuple(k._a if type(k) is DaskArray else k for k in key)
    return key


def _unpickle(a):
    return wrap(a)


# -- operators, from the same tables as the GPU array ------------------------

def _operator(op, kind):
    """One operator method: kind "binary" (x op y), "reflected" (y op x) or "inplace"."""
    def f(self, other):
        o = _operand(other)
        if o is NotImplemented:
            return NotImplemented
        if kind == "reflected":
            return wrap(op(o, self._a))
        r = op(self._a, o)
        if kind == "binary":
            return wrap(r)
        # Dask arrays are immutable: in place means this DaskArray takes the new graph.
        self._a = r if r.dtype == self._a.dtype else r.astype(self._a.dtype, casting="same_kind")
        return self
    return f


# Python protocols answered by NumPy on the gathered values (each gather counted; those that
# give a Python scalar, as one value read).
_GATHERING = {"__repr__": repr, "__str__": str, "__bool__": bool, "__int__": int,
              "__float__": float, "__complex__": complex}
_SCALAR = {bool, int, float, complex}


def _gathering(name, f):
    def m(self):
        return f(gather(self, name.strip("_") + "()", f in _SCALAR))
    m.__name__ = name
    return m


def _install_operators():
    from .._ndarray import BINARY, COMPARE, INPLACE, UNARY

    for n, op in {**BINARY, **COMPARE}.items():
        setattr(DaskArray, f"__{n}__", _operator(op, "binary"))
    for n, op in BINARY.items():
        setattr(DaskArray, f"__r{n}__", _operator(op, "reflected"))
    for n, op in INPLACE.items():
        setattr(DaskArray, f"__i{n}__", _operator(op, "inplace"))
    for n, op in UNARY.items():
        setattr(DaskArray, f"__{n}__", lambda self, op=op: wrap(op(self._a)))
    for n, f in _GATHERING.items():
        setattr(DaskArray, n, _gathering(n, f))


def _bind():
    import dask.array as da

    _DaskArrayType[0] = da.Array


_install_operators()
_bind()
DaskArray.__module__ = "xpshim"
