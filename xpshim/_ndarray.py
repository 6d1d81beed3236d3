"""The GPU-side array type, and what it promises to host code.

An ``xpshim.ndarray`` on the GPU holds one CuPy array (``_a``), or, after auto
mode moved its data to the host because a Python loop reads and writes it element
by element (``_placement``), one NumPy array (``_h``) and no ``_a``: never both, so
nothing goes stale. Scalar indexing and the metadata are then served from the host;
any other use finds ``_a`` missing and ``__getattr__`` moves the data back first
(counted). On the CPU xpshim hands out plain ``numpy.ndarray`` objects;
``isinstance(x, xpshim.ndarray)`` is true for both.

Host code gets the data through the usual protocols (``__array__``, the buffer
protocol on Python 3.12+, ``__array_interface__``, ``tobytes``), and every such
copy is counted in ``xpshim.stats()``. Device code gets it without a copy
(``__cuda_array_interface__``, ``__dlpack__``).
"""

import builtins
import operator
import sys
import threading

import numpy

from . import _backend, _config, _exact, _placement, _transfer
from ._registry import WRITES_INTO

_new = object.__new__


class _NdarrayMeta(type):
    # NumPy arrays are xpshim arrays too: code that checks
    # isinstance(x, np.ndarray) keeps working on either device.
    def __instancecheck__(cls, obj):
        return isinstance(obj, numpy.ndarray) or type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, numpy.ndarray) or type.__subclasscheck__(cls, sub)

    def __new__(mcs, name, bases, ns, **kw):
        # `class MyArray(np.ndarray)` under `import xpshim as np` makes a NumPy subclass,
        # as the user's code intends (views, __array_finalize__ and all): a host array type.
        if any(b is _GPU_CLASS[0] for b in bases):
            bases = tuple(numpy.ndarray if b is _GPU_CLASS[0] else b for b in bases)
            return type(name, bases, ns, **kw)
        return super().__new__(mcs, name, bases, ns, **kw)

    # type(a) == np.ndarray holds for NumPy arrays, as tests written for NumPy expect
    # (``is`` cannot be made to; README "Known differences").
    def __eq__(cls, other):
        return type.__eq__(cls, other) is True or (cls is _GPU_CLASS[0] and other is numpy.ndarray)

    __hash__ = type.__hash__


_GPU_CLASS = [None]  # the xpshim.ndarray class, once it exists


def wrap(r):
    """Wrap CuPy arrays in a result (array, tuple, list) as xpshim arrays."""
    t = type(r)
    if t is _cupy_ndarray:
        o = _new(ndarray)
        o._a = r
        o._h = None
        o._n = 0
        return o
    if t is tuple or t is list:
        return t(map(wrap, r))
    if _backend.is_raw_gpu_array(r):
        o = _new(ndarray)
        o._a = r
        o._h = None
        o._n = 0
        return o
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # a namedtuple
        return t(*map(wrap, r))
    return r


def fresh(r, sources=()):
    """``wrap(r)`` for a call's new result, as the user receives it. In auto mode, a new array
    that a loop may come to index remembers the user's line that made it, and one made at a
    line whose arrays a loop used on the host is made a NumPy array there (``_placement``;
    ``sources``: the call's arguments, whose lines are then remembered as well)."""
    if type(r) is not _cupy_ndarray or r.base is not None or not _placement.limit <= r.size <= _placement.LINE_CAP \
            or not _config.placing():
        return wrap(r)
    line = _placement.birth_line()
    if _placement.lines and _placement.lines.get(line):
        return _placement.moved_at_line(r, line, sources)
    o = _new(ndarray)
    o._a = r
    o._h = None
    o._n = 0
    o._s = line
    return o


_cupy_ndarray = None  # cupy.ndarray once the backend is live (set by _bind_cupy)


def _bind_cupy():
    global _cupy_ndarray
    _cupy_ndarray = _backend.xp.ndarray


_SCALARS = (int, float, complex, bool)


def dev(x, reason="NumPy array argument"):
    """The device form of one argument: CuPy arrays stay, host arrays move (counted)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is numpy.ndarray:
        return _transfer.to_device(x, reason)
    return x


def operand(x):
    """Right-hand side of an operator: GPU array, scalar, or host data moved over."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t in _SCALARS or t is _cupy_ndarray:
        return x
    if t is numpy.ndarray or t is list or t is tuple:
        return _transfer.to_device(x, "operand")
    if isinstance(x, numpy.generic):
        return x
    if _backend.is_raw_gpu_array(x):
        return x
    return NotImplemented


def host(x, reason):
    """A NumPy copy of a GPU array (counted; data placed on the host is copied there)."""
    if x._h is not None:
        return x._h.copy()
    return _transfer.to_host(x._a, reason)


def _scalar(x, reason):
    """The size-1 CuPy array of ``x`` after counting its copy to the host: the caller
    converts it with CuPy's own (fastest) scalar conversion."""
    if x._h is not None:
        return x._h.reshape(())
    a = x._a
    _transfer._record("device_to_host", a.itemsize, reason)
    return a


# ---------------------------------------------------------------- indexing

def _check_bounds(idx, n, axis):
    # CuPy wraps out-of-bounds integer indices; NumPy raises. One fused
    # reduction and one sync tell us which case we are in.
    if idx.size == 0 or idx.dtype.kind not in "iu":
        return
    xp = _backend.xp
    if bool(xp.logical_or(idx < -n, idx >= n).any()):
        bad = int(idx[xp.logical_or(idx < -n, idx >= n)][0])
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _index(self, key):
    """Translate an index for CuPy: host index arrays move over (counted), and
    integer-array components are bounds-checked as NumPy does."""
    if type(key) is not tuple:
        key = tuple(key) if isinstance(key, tuple) else (key,)  # (a tuple subclass is an nd-index too)
    shape = self._a.shape
    out = []
    axis = 0
    for i, k in enumerate(key):
        t = type(k)
        if k is None:
            out.append(k)
            continue
        if k is Ellipsis:
            rest = sum(_axes_used(kk) for kk in key[i + 1 :])
            axis = len(shape) - rest
            out.append(k)
            continue
        if t is list or t is numpy.ndarray or isinstance(k, tuple):  # (a tuple inside an index: a sequence)
            k = numpy.asarray(k) if t is not list or k else numpy.empty(0, numpy.intp)  # (a[[]]: no indices)
            if k.dtype.kind in "OUSV":  # (a[((Ellipsis, Ellipsis),)]: NumPy's IndexError)
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                                 "integer or boolean arrays are valid indices")
            if k.dtype.kind in "iu" and axis < len(shape) and k.size:
                n = shape[axis]
                lo, hi = int(k.min()), int(k.max())
                if lo < -n or hi >= n:
                    bad = hi if hi >= n else lo
                    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
            k = _transfer.to_device(k, "index array")
        elif t is ndarray:
            k = k._a
            if k.dtype.kind in "iu" and axis < len(shape):
                _check_bounds(k, shape[axis], axis)
        elif (t not in _BASIC and t is not bool and hasattr(t, "__index__")
              and not isinstance(k, (numpy.generic, numpy.ndarray, _backend.xp.ndarray))):
            k = operator.index(k)  # (an integer by __index__, as NumPy reads it; CuPy reads a sequence)
        out.append(k)
        axis += _axes_used(k)
    return out[0] if len(out) == 1 else tuple(out)


def _axes_used(k):
    """How many axes of the indexed array one index component consumes."""
    if k is None or k is Ellipsis:
        return 0
    dt = getattr(k, "dtype", None)
    if dt is not None and dt.kind == "b":
        return k.ndim  # a boolean mask consumes as many axes as it has
    return 1


_BASIC = frozenset({int, slice, type(None), type(Ellipsis)})


def _writes(name, args, kwargs):
    """Whether NumPy's function ``name`` called so writes into a GPU array: its first argument, or
    ``out=`` (NumPy's concatenate(..., out=gpu_array) cannot write there itself)."""
    if kwargs and "out" in kwargs:
        o = kwargs["out"]
        if type(o) is ndarray or (type(o) is tuple and any(type(v) is ndarray for v in o)):
            return True
    if name not in WRITES_INTO:
        return False
    first, flag = WRITES_INTO[name]
    if type(args[0] if args else kwargs.get(first)) is not ndarray:
        return False
    if flag is None:
        return True
    i, key = flag
    return not (args[i] if len(args) > i else kwargs.get(key, True))


class _Active(threading.local):
    active = None  # the NumPy function whose xpshim version runs now (__array_function__)


_ARRAY_FUNCTION = _Active()
_HOST_VALUES = frozenset({float, int, bool, complex, numpy.ndarray})


def _basic(key):
    """A tuple index of ints, slices, None and Ellipsis only (basic indexing)."""
    for k in key:
        if type(k) not in _BASIC:
            return False
    return True


def _value(v):
    t = type(v)
    if t is ndarray:
        return v._a
    if t is numpy.ndarray or t is list or t is tuple:
        return _transfer.to_device(v, "assigned value")
    if isinstance(v, (numpy.ndarray, memoryview)):  # a NumPy subclass, a buffer: their data
        return _transfer.to_device(numpy.asarray(v), "assigned value")
    if (t is float or t is complex or isinstance(v, numpy.inexact)) and v == 0 and _negative_zero(v):
        # CuPy writes a number by fill(), and a zero (-0.0 too) by memset: -0.0 goes over as data
        return _transfer.to_device(v, "assigned -0.0")
    return v


def _negative_zero(v):
    return bool(numpy.signbit(numpy.real(v)) or numpy.signbit(numpy.imag(v)))


# ---------------------------------------------------------------- the class

def _alignment(dtype):
    # what a GPU load of one element needs: the element's size (complex128 is 16-byte aligned in CUDA)
    return min(dtype.itemsize, 16) if dtype.kind in "biufcmM" else 1


def _misaligned(r):
    al = _alignment(r.dtype)
    if al <= 1 or r.size == 0:
        return False
    return r.data.ptr % al != 0 or any(st % al for st, n in zip(r.strides, r.shape) if n > 1)


class ndarray(metaclass=_NdarrayMeta):
    """An N-dimensional array on the GPU, behaving as ``numpy.ndarray`` does.

    Made by xpshim's functions when the current device is the GPU; wraps one
    ``cupy.ndarray`` (``x.get()`` or ``xpshim.asnumpy(x)`` copies it to the
    host, ``cupy.asarray(x)`` or ``x.__cuda_array_interface__`` shares it).
    ``xpshim.ndarray(shape, dtype)`` makes an empty array on the current
    device, as ``numpy.ndarray(shape, dtype)`` does.
    """

    # _a: the CuPy array; _h: None, or the NumPy array holding the data instead (_a unset);
    # _n: consecutive scalar accesses (_placement.scalar_access); _s: the user's line that made
    # it, where a loop may come to index it (set by fresh(), else unset)
    __slots__ = ("_a", "_h", "_n", "_s", "_x", "__weakref__")
    __array_priority__ = 100.0
    __hash__ = None

    def __new__(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        from . import _config

        if _config.current_device() == "cpu" or buffer is not None:
            return numpy.ndarray(shape, dtype, buffer, offset, strides, order)
        n = _placement.estimate("xpshim.zeros", (shape,), {}) if _config.placing() else None
        if n is not None and n < _placement.limit:  # auto mode: a small array stays on the host
            return numpy.ndarray(shape, dtype, buffer, offset, strides, order)
        xp = _backend.require_gpu("xpshim.ndarray")
        return wrap(xp.ndarray(shape, dtype, strides=strides, order=order or "C"))

    def __getattr__(self, name):
        # Only reached for a missing attribute: _a is missing while the data is on the host.
        if name == "_a" and self._h is not None:
            return _placement.back_to_device(self)
        raise AttributeError(f"'xpshim.ndarray' object has no attribute {name!r}")

    # -- attributes ------------------------------------------------------
    # (read from the host data when auto mode has moved it there)
    shape = property(lambda s: (s._a if s._h is None else s._h).shape, lambda s, v: setattr(s._a, "shape", v),
                     doc="Tuple of array dimensions.")
    dtype = property(lambda s: (s._a if s._h is None else s._h).dtype, doc="Data type of the elements (a numpy.dtype).")
    ndim = property(lambda s: (s._a if s._h is None else s._h).ndim, doc="Number of dimensions.")
    size = property(lambda s: (s._a if s._h is None else s._h).size, doc="Number of elements.")
    itemsize = property(lambda s: (s._a if s._h is None else s._h).itemsize, doc="Bytes per element.")
    nbytes = property(lambda s: (s._a if s._h is None else s._h).nbytes, doc="Bytes of all elements.")
    strides = property(lambda s: (s._a if s._h is None else s._h).strides, doc="Bytes to step in each dimension.")
    flags = property(lambda s: Flags(s._a.flags), doc="Memory layout flags, as NumPy's flags object.")
    data = property(lambda s: s._a.data, doc="The device memory pointer (cupy.cuda.MemoryPointer).")
    device = property(lambda s: s._a.device, doc="The CUDA device holding the data.")
    T = property(lambda s: wrap(s._a.T), doc="Transposed view.")
    mT = property(lambda s: wrap(s._a.mT), doc="Matrix-transposed view (last two axes).")
    base = property(lambda s: None if s._a.base is None else wrap(s._a.base), doc="The array this is a view of.")

    @property
    def real(self):
        """Real part (a view for complex arrays)."""
        return wrap(self._a.real)

    @real.setter
    def real(self, v):
        self._a.real = _value(v)

    @property
    def imag(self):
        """Imaginary part."""
        return wrap(self._a.imag)

    @imag.setter
    def imag(self, v):
        self._a.imag = _value(v)

    @property
    def flat(self):
        """A flat iterator (NumPy's flatiter: indexing and assignment, next(), base, index, coords)."""
        from ._flatiter import FlatIter

        return FlatIter(self)

    @flat.setter
    def flat(self, value):
        from ._flatiter import assign

        assign(self, value)

    @property
    def ctypes(self):
        raise AttributeError(
            "ndarray.ctypes: a GPU array has no host pointer; use "
            "x.__cuda_array_interface__['data'][0] for the device pointer, or xpshim.asnumpy(x).ctypes"
        )

    # -- interop: device, zero-copy --------------------------------------
    @property
    def __cuda_array_interface__(self):
        return self._a.__cuda_array_interface__

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()

    def __cupy_get_ndarray__(self):
        # CuPy's hook for foreign array-likes: cupy.asarray(x) shares the memory.
        return self._a

    # -- interop: host, each a counted copy -------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to a new ``numpy.ndarray`` on the host (counted in ``xpshim.stats()``)."""
        if self._h is not None and out is None and stream is None:
            return numpy.array(self._h, order=order)
        if out is not None or stream is not None:
            _transfer._record("device_to_host", self._a.nbytes, "get")
            return self._a.get(stream=stream, order=order, out=out, blocking=blocking)
        return _transfer.to_host(self._a, "get()")

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError(
                "a GPU array cannot be turned into a NumPy array without a copy; "
                "use xpshim.asnumpy(x) (or copy=None/True)"
            )
        h = host(self, "numpy.asarray")
        return h if dtype is None else h.astype(dtype, copy=False)

    if sys.version_info >= (3, 12):
        def __buffer__(self, flags):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller.startswith(("numba.", "numba_cuda.")):
                # Numba's typing probes arguments with memoryview(); for a CUDA kernel the
                # array is then taken through __cuda_array_interface__, in place (no copy)
                raise TypeError("a GPU array has no host buffer; Numba takes it by __cuda_array_interface__")
            # The latest copy lives as long as this array: ndarray(buffer=x) keeps only x, and
            # reads the memory after it has given the buffer back
            self._x = h = host(self, "buffer protocol")
            return memoryview(h)

    @property
    def __array_interface__(self):
        # Pillow reads shape/typestr/strides here. On 3.12+ it then takes the
        # bytes through the buffer protocol (one counted copy, which Pillow maps
        # without copying again); NumPy uses that protocol first too. On 3.11
        # there is no buffer protocol for Python classes: explicit strides make
        # Pillow call tobytes(), and NumPy reads 'data'.
        a = self._a
        d = {"shape": a.shape, "typestr": a.dtype.str, "descr": a.dtype.descr, "version": 3,
             "strides": None if sys.version_info >= (3, 12) else _c_strides(a.shape, a.itemsize)}
        if sys.version_info < (3, 12):
            d["data"] = host(self, "__array_interface__")
        return d

    def tobytes(self, order="C"):
        """Copy the data to host ``bytes`` (counted)."""
        return host(self, "tobytes").tobytes(order)

    def tolist(self):
        """Copy to nested Python lists of Python scalars (counted)."""
        return host(self, "tolist").tolist()

    def item(self, *args):
        """Copy one element to a Python scalar (counted)."""
        if self._h is not None:
            return self._h.item(*args)
        if args:
            # item(i) indexes the flattened array; item(i, j, ...) one element
            idx = numpy.unravel_index(args[0], self._a.shape) if len(args) == 1 else args
            return wrap(self._a[tuple(idx)]).item()
        if self._a.size != 1:
            return numpy.empty(self._a.shape, self._a.dtype).item()  # NumPy's own error
        return host(self, "item()").item()

    def tofile(self, fid, sep="", format="%s"):
        host(self, "tofile").tofile(fid, sep, format)

    def dump(self, file):
        host(self, "dump").dump(file)

    def dumps(self):
        return host(self, "dumps").dumps()

    def __reduce__(self):
        # Pickled as NumPy data; unpickled onto the device current at load time.
        return (_unpickle, (host(self, "pickle"),))

    def __copy__(self):
        return wrap(self._a.copy())

    def __deepcopy__(self, memo):
        return wrap(self._a.copy())

    def fill(self, value):
        """``numpy.ndarray.fill``, -0.0 kept (CuPy's fill writes any zero by memset)."""
        if self._h is not None:
            self._h.fill(value)
            return
        v = _value(value)
        if type(v) is type(self._a):
            self._a[...] = v
        else:
            self._a.fill(v)

    def clip(self, min=None, max=None, out=None, **kwargs):
        """``numpy.ndarray.clip``: as ``xpshim.clip`` (NumPy's NaN propagation, its handling of
        a missing bound)."""
        from . import clip
        return clip(self, min, max, out=out, **kwargs)

    def copy(self, order="C"):
        """A copy on the same device."""
        return wrap(self._a.copy(order))

    def view(self, dtype=None, type=None):
        """A view of the same GPU memory, as ``numpy.ndarray.view``: ``x.view(np.ndarray)`` and
        ``x.view(x.__class__)`` give a GPU view; another NumPy subclass lives on the host (a
        counted, warned copy, not a view)."""
        if isinstance(dtype, builtins.type) and issubclass(dtype, (ndarray, numpy.ndarray)):  # view(ArrayClass)
            dtype, type = None, dtype
        if type is not None and type is not ndarray and type is not numpy.ndarray:
            from . import _fallback

            kw = {"type": type} if dtype is None else {"dtype": dtype, "type": type}  # (NumPy reads None as float64)
            return _fallback.run_method(self, "view", (), kw, f"{type.__name__} arrays live on the host")
        if dtype is not None and type is None:
            from ._dispatch import host_only_dtype

            if host_only_dtype(dtype):  # (structured, void, strings: as astype to them, on the host)
                from . import _fallback

                return _fallback.run_method(self, "view", (dtype,), {}, f"{numpy.dtype(dtype)} arrays live on the "
                                            "host: a view of a host copy, not of the GPU memory")
        r = self._a.view() if dtype is None else self._a.view(dtype)
        if dtype is not None and _misaligned(r):
            # (NumPy takes unaligned data on the host; a GPU load of it faults, and the fault
            # ends every later GPU call of the process)
            raise ValueError(f"view as {r.dtype}: the data would not be aligned to {_alignment(r.dtype)} bytes "
                             f"(it starts {r.data.ptr % _alignment(r.dtype)} bytes past a boundary, or a stride "
                             f"is not a multiple), and the GPU cannot read unaligned {r.dtype}. Copy first "
                             f"(x.copy().view(...)) or run this on the CPU (XPSHIM_DEVICE=cpu)")
        return wrap(r)

    # -- Python protocol -------------------------------------------------
    def __repr__(self):
        return repr(host(self, "repr"))

    def __str__(self):
        return str(host(self, "str"))

    def __format__(self, spec):
        return format(host(self, "format"), spec)

    def __len__(self):
        return len(self._a if self._h is None else self._h)

    def __iter__(self):
        if self._h is not None and self._h.ndim == 1:
            return iter(self._h.copy())  # NumPy scalars, as NumPy's iteration gives
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        if self._a.ndim == 1:  # one copy for the whole loop (not one per element), NumPy's scalars
            return iter(host(self, "iteration"))
        return map(wrap, self._a)  # rows: views, as NumPy's (a write to one lands in the array)

    def __contains__(self, v):
        return bool(self._a == operand(v)) if self._a.ndim == 0 else bool((self._a == operand(v)).any())

    def __bool__(self):
        if self._a.size != 1:
            return bool(numpy.empty(self._a.shape, bool))  # NumPy's own error
        return bool(_scalar(self, "bool()"))

    def __int__(self):
        if self._a.size != 1:
            return int(numpy.empty(self._a.shape))
        return int(_scalar(self, "int()"))

    def __float__(self):
        if self._a.size != 1:
            return float(numpy.empty(self._a.shape))
        return float(_scalar(self, "float()"))

    def __complex__(self):
        if self._a.size != 1:
            return complex(numpy.empty(self._a.shape))
        return complex(_scalar(self, "complex()"))

    def __index__(self):
        if self._a.ndim != 0 or self._a.dtype.kind not in "iub":
            return operator.index(numpy.empty(self._a.shape, self._a.dtype))  # NumPy's own error
        return operator.index(host(self, "index")[()])

    def __round__(self, ndigits=None):
        if ndigits is None:
            return round(float(self)) if self._a.ndim == 0 else wrap(self._a.round())
        return wrap(self._a.round(ndigits))

    def __getitem__(self, key):
        h = self._h
        if h is not None:  # data moved to the host by a loop of element or small-slice accesses
            t = type(key)
            if t is tuple and len(key) == 2:  # (a[i, j], a[i, :j]: the loop's common case, checked inline)
                t0, t1 = type(key[0]), type(key[1])
                if (t0 is int or t0 is slice) and (t1 is int or t1 is slice):
                    return h[key]
            if t is int or t is slice or (t is tuple and _basic(key)):
                return h[key]
            hk = _placement.host_key(key)
            if hk is not None:
                return h[hk]
            _placement.back_to_device(self)
        t = type(key)
        basic = t is int or t is slice or (t is tuple and _basic(key))
        r = self._a[key] if basic else self._a[_index(self, key)]  # (basic: CuPy raises as NumPy does)
        size = r.size if basic else max(r.size, _placement.mask_extent(key))
        if r.ndim and size >= _placement.limit:  # a large part: GPU work, counted against the loop
            self._n = _placement.large_part(self._n, size)
            return wrap(r)
        if r.ndim and size == self._a.size:  # all of it (C[None, :, :]): the array's own use, not a loop's
            self._n = 0
            return wrap(r)
        n = self._n + 1  # an element or a small part, as a loop over an array reads it
        if n < _placement.MIGRATE_AFTER:
            self._n = n
            return wrap(r)
        del r
        hk = _placement.host_key(key)  # (None: GPU arrays in the key; the data stays on the GPU)
        if hk is not None and _placement.scalar_access(self, n):
            return self._h[hk]
        return wrap(self._a[key] if basic else self._a[_index(self, key)])

    def __setitem__(self, key, value):
        h = self._h
        if h is not None:
            t = type(key)
            if (type(value) in _HOST_VALUES or isinstance(value, numpy.generic)) and (
                    t is int or t is slice or (t is tuple and _basic(key))):
                h[key] = value  # (the loop's common case, at NumPy's speed)
                return
            hk = _placement.host_key(key)
            if hk is not None:
                h[hk] = _placement.host_value(value)
                return
            _placement.back_to_device(self)
        # an element or a small part written counts as a loop's access (auto mode only)
        size = _placement.part_size(self._a.shape, key, value) if _config.placing() else 0
        if size == self._a.size and size > 1:  # all of it written: the array's own use, not a loop's
            self._n = 0
        elif size < _placement.limit:
            n = self._n + 1
            if n < _placement.MIGRATE_AFTER:
                self._n = n
            else:
                hk = _placement.host_key(key)  # (None: GPU arrays in the key; the data stays on the GPU)
                if hk is not None and _placement.scalar_access(self, n):
                    self._h[hk] = _placement.host_value(value)
                    return
                self._n = n
        else:
            self._n = _placement.large_part(self._n, size)
        t = type(key)
        if t is int or t is slice or (t is tuple and _basic(key)):
            self._a[key] = _value(value)
        else:
            self._a[_index(self, key)] = _value(value)

    # -- NumPy protocols: NumPy ufuncs on GPU arrays run on the GPU --------
    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        from . import _namespace

        xu = _namespace.ufunc_for(uf)
        if xu is None:  # SciPy's, an object ufunc (np.frompyfunc): _foreign
            from . import _foreign

            return _foreign.call(uf, method, inputs, kwargs)
        return getattr(xu, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """NumPy's functions called on GPU arrays by code that imported NumPy itself: NumPy's
        code, reading GPU arrays as counted host copies, as without this protocol; but those
        that write into an argument (``numpy.put_along_axis(x, ...)``, ``copyto``, ``place``, ...)
        run as xpshim's, on the GPU, so that the write lands in ``x`` and not in a lost copy."""
        from . import _namespace

        if not all(t is ndarray or issubclass(t, numpy.ndarray) for t in types):
            return NotImplemented
        f = _namespace.function_for(func) if _writes(func.__name__, args, kwargs) else None
        if f is None or _ARRAY_FUNCTION.active is func:  # (xpshim's own call of NumPy's func)
            return func._implementation(*args, **kwargs)
        outer, _ARRAY_FUNCTION.active = _ARRAY_FUNCTION.active, func
        try:
            return f(*args, **kwargs)
        finally:
            _ARRAY_FUNCTION.active = outer

    def __array_namespace__(self, api_version=None):
        import xpshim

        return xpshim

    def to_device(self, device, /, *, stream=None):
        """Array-API spelling: ``"cpu"`` gives a NumPy array, ``"gpu"`` or a CUDA device stays."""
        if device == "cpu":
            return host(self, "to_device('cpu')")
        return self


class Flags:
    """``x.flags`` of a GPU array: NumPy's flags object (attributes, keys, ``==``) over CuPy's
    three flags (contiguity and ownership). GPU memory is always aligned and writeable."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")
    aligned = writeable = True
    writebackifcopy = False
    _BITS = (("c_contiguous", 0x1), ("f_contiguous", 0x2), ("owndata", 0x4), ("writeable", 0x400),
             ("aligned", 0x100), ("writebackifcopy", 0x2000))
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "OWNDATA": "owndata", "O": "owndata", "WRITEABLE": "writeable", "W": "writeable",
             "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy", "X": "writebackifcopy",
             "FNC": "fnc", "FORC": "forc", "BEHAVED": "behaved", "B": "behaved",
             "CARRAY": "carray", "CA": "carray", "FARRAY": "farray", "FA": "farray"}

    def __init__(self, cupy_flags):
        self.c_contiguous = bool(cupy_flags.c_contiguous)
        self.f_contiguous = bool(cupy_flags.f_contiguous)
        self.owndata = bool(cupy_flags.owndata)

    contiguous = property(lambda s: s.c_contiguous)
    fortran = property(lambda s: s.f_contiguous)
    fnc = property(lambda s: s.f_contiguous and not s.c_contiguous)
    forc = property(lambda s: s.f_contiguous or s.c_contiguous)
    behaved = property(lambda s: True)
    carray = property(lambda s: s.c_contiguous)
    farray = property(lambda s: not s.c_contiguous)  # NumPy's: (aligned or writeable or F) and not C
    num = property(lambda s: sum(bit for name, bit in s._BITS if getattr(s, name)))

    def __getitem__(self, key):
        name = self._KEYS.get(key)
        if name is None:
            raise KeyError("Unknown flag")
        return getattr(self, name)

    def __setattr__(self, name, value):
        name = self._KEYS.get(name, name)
        if name in ("writeable", "aligned", "writebackifcopy"):
            if bool(value) == getattr(self, name):
                return  # already so
            raise ValueError(f"cannot set the {name} flag of a GPU array to {bool(value)} (GPU memory is "
                             "always writeable and aligned); copy it to the host (xpshim.asnumpy) for that")
        object.__setattr__(self, name, value)

    __setitem__ = __setattr__

    def __eq__(self, other):
        try:
            return all(bool(getattr(other, n)) == getattr(self, n) for n, _ in self._BITS)
        except AttributeError:
            return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "".join(f"  {n.upper()} : {getattr(self, n)}\n" for n, _ in self._BITS)


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _unpickle(host_array):
    from . import _config

    if _config.current_device() == "gpu" and not (_config.placing() and host_array.size < _placement.limit):
        _backend.require_gpu("unpickling an xpshim array")
        return wrap(_transfer.to_device(host_array, "unpickle"))
    return host_array


class _Flat:
    """``x.flat`` for a GPU array: indexing and assignment on the flattened view."""

    __slots__ = ("_base",)

    def __init__(self, base):
        self._base = base

    def __getitem__(self, key):
        return wrap(self._base._a.flat[_index(_Flatten(self._base), key)])

    def __setitem__(self, key, value):
        self._base._a.flat[_index(_Flatten(self._base), key)] = _value(value)

    def __iter__(self):
        return iter(wrap(self._base._a.ravel()))

    def __len__(self):
        return self._base._a.size


class _Flatten:
    __slots__ = ("_a",)

    def __init__(self, base):
        self._a = base._a.reshape(-1) if base._a.flags.c_contiguous else base._a.ravel()


# -- operators, from a table ----------------------------------------------

_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "matmul": operator.matmul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "lshift": operator.lshift, "rshift": operator.rshift,
    "and": operator.and_, "xor": operator.xor, "or": operator.or_, "divmod": divmod,
}
_COMPARE = {"lt": operator.lt, "le": operator.le, "eq": operator.eq,
            "ne": operator.ne, "gt": operator.gt, "ge": operator.ge}
_UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}
_INPLACE = {
    "add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "matmul": operator.imatmul,
    "truediv": operator.itruediv, "floordiv": operator.ifloordiv, "mod": operator.imod,
    "pow": operator.ipow, "lshift": operator.ilshift, "rshift": operator.irshift,
    "and": operator.iand, "xor": operator.ixor, "or": operator.ior,
}


def _binary(op):
    def f(self, other):
        o = operand(other)
        if o is NotImplemented:
            return NotImplemented
        return fresh(op(self._a, o), (self, other))
    return f


def _compare(name, op):
    # a == None compares element by element, as NumPy's (all False; != all True)
    plain = _binary(op)
    if name not in ("eq", "ne"):
        return plain

    def f(self, other):
        if other is None:
            return wrap(_backend.xp.full(self._a.shape, name == "ne", dtype=numpy.bool_))
        return plain(self, other)
    return f


def _reflected(op):
    # op(scalar, cupy_array) lands in CuPy's reflected operator, which keeps
    # NEP 50's weak-scalar rules.
    def f(self, other):
        o = operand(other)
        if o is NotImplemented:
            return NotImplemented
        return fresh(op(o, self._a), (self, other))
    return f


def _inplace(op):
    def f(self, other):
        o = operand(other)
        if o is NotImplemented:
            return NotImplemented
        op(self._a, o)
        return self
    return f


def _unary(op):
    return lambda self: fresh(op(self._a))


# NumPy's formulas where CuPy's loops differ (xpshim/_exact.py)
for _n, _u in {"truediv": "true_divide", "floordiv": "floor_divide", "mod": "remainder", "divmod": "divmod"}.items():
    _BINARY[_n] = _exact.operator(_u, _BINARY[_n])
    if _n in _INPLACE:
        _INPLACE[_n] = _exact.inplace(_u, _INPLACE[_n])

for _n, _op in _BINARY.items():
    setattr(ndarray, f"__{_n}__", _binary(_op))
    setattr(ndarray, f"__r{_n}__", _reflected(_op))
for _n, _op in _INPLACE.items():
    setattr(ndarray, f"__i{_n}__", _inplace(_op))
for _n, _op in _COMPARE.items():
    setattr(ndarray, f"__{_n}__", _compare(_n, _op))
for _n, _op in _UNARY.items():
    setattr(ndarray, f"__{_n}__", _unary(_op))


ndarray.__module__ = "xpshim"
_GPU_CLASS[0] = ndarray
