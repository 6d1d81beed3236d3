"""The simulated GPU's ``cupy``: CuPy's API over NumPy arrays on the CPU.

It is strict where CuPy is strict: its arrays refuse implicit conversion to NumPy,
refuse NumPy-array and list operands, and it has exactly the names and keyword
arguments of the CuPy version in the snapshot (``api.json``), whether or not CuPy is
installed. It never stands in for a GPU result: GPU claims come from the real-GPU
tests (``-m gpu``).
"""

import inspect
import sys
import types
import weakref

import numpy

from . import kernels
from .apidata import api

_API = api()
_NDARRAY = _API["classes"]["ndarray"]

_CREATION = {"asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray",
             "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack", "block",
             "meshgrid", "broadcast_arrays", "einsum", "pad", "reshape", "transpose",
             "full", "zeros", "ones", "empty", "arange", "linspace", "logspace", "eye",
             "identity", "tri", "indices", "fromfunction", "percentile", "quantile"}


class OutOfMemoryError(MemoryError):
    pass


def _unwrap(x, strict):
    t = type(x)
    if t is ndarray:
        return x._h
    if t is numpy.ndarray:
        raise TypeError("Unsupported type <class 'numpy.ndarray'>")
    if strict and t is list and not any(type(v) is ndarray for v in x):
        raise TypeError("Unsupported type <class 'list'>")  # (CuPy takes sequences of arrays)
    if t is list or t is tuple:
        return t(_unwrap(v, False) for v in x)
    return x


class _Random:
    """CuPy's random Generator or RandomState, a NumPy one behind it: the class has exactly
    the methods the snapshot lists for CuPy's (``_random_class``), each NumPy's method."""

    _cls = None

    @classmethod
    def _of(cls, g):
        o = object.__new__(cls)
        o._g = g
        return o

    def _call(self, name, args, kwargs):
        f = _func(name, getattr(self._g, name), _API["classes"][f"random.{self._cls}"][name], strict=False)
        for v in (*args, kwargs.get("size")):  # (CuPy's methods make their output with ndarray(size): ints only)
            if (type(v) is tuple and any(type(e) is ndarray for e in v)) or type(kwargs.get("size")) is ndarray:
                raise TypeError("'ndarray' object cannot be interpreted as an integer")
        if name == "integers":  # (CuPy's takes Python ints only: int(low), int(high))
            low = args[0] if args else kwargs.get("low")
            high = args[1] if len(args) > 1 else kwargs.get("high")
            if numpy.ndim(low) or numpy.ndim(high):
                raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return f(*args, **kwargs)


def _random_class(cls, init):
    """``cupy.random.<cls>``: ``init`` makes its NumPy generator; a method for each the snapshot lists."""
    ns = {"_cls": cls, "__module__": "cupy.random", "__qualname__": cls,
          "__init__": lambda self, *a, **k: setattr(self, "_g", init(*a, **k))}
    for name, spec in _API["classes"][f"random.{cls}"].items():
        if spec["kind"] != "method" or name.startswith("__"):
            continue

        def m(self, *args, _name=name, **kwargs):
            return self._call(_name, args, kwargs)
        m.__name__, m.__qualname__ = name, f"{cls}.{name}"
        m.__signature__ = signature(spec, method=True)
        ns[name] = m
    return type(cls, (_Random,), ns)


# As in CuPy, a view holds its owner array (``base``): the owner's reference count tells
# whether views of it exist. Owners are found from their NumPy buffer.
_owners = weakref.WeakValueDictionary()


def _adopt(o, r):
    root = r
    while isinstance(root.base, numpy.ndarray):
        root = root.base
    if root is r:
        o._base = None
        _owners[id(r)] = o
    else:
        o._base = _owners.get(id(root))
        if o._base is None:  # (NumPy made r as a view of a buffer of its own, as np.linspace does:
            _owners[id(root)] = o  # CuPy's result owns its memory, and its views have it as base)


def _wrap(r):
    if isinstance(r, numpy.random.Generator):
        return _Generator._of(r)
    if type(r) is numpy.ndarray:
        if r.dtype.kind not in "biufc" or r.dtype in (numpy.longdouble, numpy.clongdouble) and r.dtype.itemsize > 8 * (1 + (r.dtype.kind == "c")):
            # CuPy has no object, string, datetime, structured or extended-precision arrays
            raise ValueError(f"Unsupported dtype {r.dtype}")
        o = object.__new__(ndarray)
        o._h = r
        _adopt(o, r)
        return o
    if isinstance(r, numpy.generic):  # CuPy returns 0-d arrays, not scalars
        return _wrap(numpy.asarray(r))
    if type(r) in (tuple, list):
        return type(r)(map(_wrap, r))
    if type(r).__name__.startswith("Unique"):  # unique_all/counts/inverse: named tuples in both
        return type(r)(*map(_wrap, r))
    if isinstance(r, tuple):  # NumPy's named results (QRResult, SVDResult, ...): CuPy returns plain tuples
        return tuple(map(_wrap, r))
    return r


class _Default:
    """A default value in a signature, shown as CuPy's source writes it."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def signature(spec, method=False):
    """The ``inspect.Signature`` of a snapshot entry: CuPy's own where ``inspect`` read it,
    else its keywords (so xpshim's reader of signatures finds the same names as on CuPy)."""
    P = inspect.Parameter
    if spec.get("params") is not None:
        return inspect.Signature([P(n, getattr(P, k), default=P.empty if d is None else _Default(d))
                                  for n, k, d in spec["params"]])
    ps = [P("self", P.POSITIONAL_ONLY)] if method else []
    ps.append(P("args", P.VAR_POSITIONAL))
    if spec.get("keywords") is None:
        ps.append(P("kwargs", P.VAR_KEYWORD))
    else:
        ps += [P(k, P.KEYWORD_ONLY, default=None) for k in spec["keywords"]]
    return inspect.Signature(ps)


# CuPy's functions and methods made with an ElementwiseKernel, whose new output is C-ordered
# whatever the input's order (NumPy's, order='K', keeps an F-ordered input's): seen on an H100
_C_ORDER_ANSWERS = frozenset({"clip", "round", "around", "byteswap"})


def _func(name, f, spec=None, strict=True, method=False):
    takes = None if spec is None or spec.get("keywords") is None else frozenset(spec["keywords"])
    params = [p[0] for p in (spec or {}).get("params") or ()]
    kinds = [p[1] for p in (spec or {}).get("params") or ()]
    # (CuPy's own count of positional arguments: trim_zeros(a, "f", None) is its TypeError)
    most = None if method or not kinds or "VAR_POSITIONAL" in kinds else sum(
        k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") for k in kinds)

    def g(*args, **kwargs):
        if takes is not None and not kwargs.keys() <= takes:
            raise TypeError(f"{name}() got an unexpected keyword argument {sorted(kwargs.keys() - takes)[0]!r}")
        if most is not None and len(args) > most:
            raise TypeError(f"{name}() takes at most {most} positional arguments but {len(args)} were given")
        _as_cupy_checks(name, args, kwargs, method)
        answer = _CUPY_ANSWERS.get(f) if not method else None
        if answer is not None:
            r = answer(args, kwargs)
            if r is not _NUMPYS:
                return r
        if name in _NO_IDENTITY and args and isinstance(args[0], ndarray) and args[0].size == 0:
            # CuPy 14: nanmean of an empty array raises where NumPy warns and returns NaN
            raise ValueError(f"zero-size array to reduction operation cupy_{name} which has no identity")
        if name in _ARRAYS_ONLY:
            _arrays_only(name, params, args, kwargs)
        if name == "broadcast_arrays":  # (CuPy's broadcast passes what is not an array through)
            return _broadcast_arrays(args)
        a = [_unwrap(x, strict and i == 0 and name not in _CREATION) for i, x in enumerate(args)]
        kw = {k: _unwrap(v, False) for k, v in kwargs.items()}
        if name in _FILLS:
            a, kw = _memset_zero(name, a, kw)
        if name == "take" and not method and len(a) > 1 and kw.get("mode", a[4] if len(a) > 4 else None) in (None, "raise"):
            ax = kw.get("axis", a[2] if len(a) > 2 else None)
            n = numpy.size(a[0]) if ax is None else numpy.shape(a[0])[ax]
            if n and numpy.ndim(ax) == 0:  # (CuPy 14's take wraps indices out of bounds around)
                a[1] = numpy.mod(numpy.asarray(a[1]), n)
        if name in ("nanvar", "nanstd"):  # (CuPy 14's kernel takes an integer ddof: 0.5 is 0)
            if len(a) > 4:
                a[4] = int(a[4])
            elif "ddof" in kw:
                kw["ddof"] = int(kw["ddof"])
        r = f(*a, **kw)
        if name in _NAN_BLIND and isinstance(r, numpy.ndarray) and r.dtype.kind == "f" and numpy.isnan(r).any():
            r = numpy.where(numpy.isnan(r), 0.0, r).astype(r.dtype)  # (a stand-in for CuPy's answer: not NaN)
        if name in ("array_equal", "array_equiv", "allclose"):
            r = numpy.asarray(r)  # (CuPy answers with a 0-d array, NumPy with a bool)
        if name in _LIST_ANSWERS and type(r) is tuple:
            r = list(r)  # (CuPy 14's atleast_nd of several arrays: a list)
        if name in ("asarray", "array") and isinstance(r, numpy.ndarray) and r.dtype.kind in "OUSV":
            raise ValueError(f"Unsupported dtype {r.dtype}")
        out = kwargs.get("out")
        if type(out) is ndarray and r is out._h:
            return out  # CuPy returns the out= array itself
        if args and type(args[0]) is ndarray and r is args[0]._h:
            return args[0]  # (and its input, where it answers with it: nan_to_num(x, copy=False))
        if name in _C_ORDER_ANSWERS and out is None:
            r = _c_order(r)  # (CuPy 14's ElementwiseKernel makes its output C-ordered)
        return _wrap(r)
    g.__name__ = name
    if spec is not None:
        g.__signature__ = signature(spec)
    return g


# CuPy's strictness where NumPy's code (run on the stand-in) would otherwise pass:
_NO_IDENTITY = ("nanmean", "nanstd", "nanvar")
_NAN_BLIND = ("percentile", "quantile")  # (CuPy 14: a NaN sorts last and is not propagated)
_CUPY_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")  # CuPy 14's percentile
_FFT_ND = ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn")
_FILLS = {"asarray": 0, "array": 0, "full": 1, "fill": 0}  # name -> position of the value


def _lax_options(name, kwargs):
    """CuPy 14 reads options more loosely than NumPy (seen on an H100): ``axis=True`` as 1, a list
    of axes as a tuple, any ``keepdims`` by its truth, ``concatenate``'s and ``stack``'s ``casting``
    not at all, an empty ``order`` as "K" (xpshim/_options.py reads them as NumPy's first)."""
    v = kwargs.get("axis")
    if type(v) is bool or type(v) is numpy.bool_:
        kwargs["axis"] = int(v)
    elif type(v) is list:
        kwargs["axis"] = tuple(v)
    if "keepdims" in kwargs and type(kwargs["keepdims"]) is not bool:
        kwargs["keepdims"] = bool(kwargs["keepdims"]) if type(kwargs["keepdims"]) is not list else True
    if name in ("concatenate", "concat", "stack", "hstack", "vstack") and "casting" in kwargs:
        kwargs["casting"] = "unsafe"
    if kwargs.get("order") == "":
        kwargs["order"] = "K"


def _as_cupy_checks(name, args, kwargs, method=False):
    _lax_options(name, kwargs)
    if method and name == "dot" and args and not isinstance(args[0], ndarray):
        raise TypeError(f"Argument 'b' has incorrect type (expected cupy._core.core._ndarray_base, got "
                        f"{type(args[0]).__name__})")  # (CuPy 14's x.dot(0))
    if name in ("var", "std") and kwargs.get("dtype") is not None and numpy.dtype(kwargs["dtype"]).kind != "f":
        # (CuPy 14, seen on an H100: var computes in float64 whatever the dtype, std fails there)
        if name == "std" and numpy.dtype(kwargs["dtype"]).kind in "biu":
            raise TypeError(f"Wrong type ({numpy.dtype(kwargs['dtype'])}) of arguments for cupy_sqrt")
        if name == "var":
            kwargs["dtype"] = None
    if name in ("zeros", "ones", "empty", "full") and args and (
            type(args[0]) is ndarray or (type(args[0]) in (list, tuple) and any(type(v) is ndarray for v in args[0]))):
        raise TypeError("'ndarray' object cannot be interpreted as an integer")
    if name in ("argsort", "sort") and kwargs.get("kind") not in (None, "stable"):
        raise ValueError("kind can only be None or 'stable'")
    if name == "partition" and any(type(v) is ndarray for v in (args[1:2] if len(args) > 1 and type(args[0]) is ndarray
                                                                 else args[:1]) or [kwargs.get("kth")]):
        raise TypeError("'ndarray' object cannot be interpreted as an integer")  # (CuPy's kth: ints only)
    if name in ("percentile", "quantile") and kwargs.get("method", "linear") not in _CUPY_QUANTILE_METHODS:
        raise ValueError(f"'{kwargs['method']}' method is not yet supported. Please use any other method.")
    if name == "bincount" and args and (args[1:2] or [kwargs.get("weights")])[0] is not None and \
            args[0].shape != (args[1:2] or [kwargs.get("weights")])[0].shape:
        raise ValueError("The weights and list don't have the same length.")  # (CuPy 14 checks before an empty x)
    if name in ("percentile", "quantile") and len(args) > 1 and type(args[1]) is ndarray and args[1].size == 0:
        raise ValueError("Quantiles must be in the range [0, 1]")  # (CuPy 14's check counts valid q: none)
    if name == "histogram" and len(args) > 1 and isinstance(args[1], (str, list, tuple)):
        raise NotImplementedError("only integer and array bins are implemented")  # (CuPy 14's)
    if name in ("any", "all") and not method and args and not isinstance(args[0], ndarray):
        raise TypeError(f"'a' must be a cupy.ndarray object, not {type(args[0])}.")
    if name in ("empty_like", "zeros_like", "ones_like", "full_like") and kwargs.get("shape") == ():
        kwargs["shape"] = None  # (CuPy 14: ``shape if shape else a.shape``)
    if name in ("eigh", "eigvalsh") and (args[1:2] or [kwargs.get("UPLO", "L")])[0] not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")  # (CuPy 14's: upper case only)
    if name == "require" and any(type(r) is str and r.upper() in ("A", "ALIGNED", "W", "WRITEABLE", "E", "ENSUREARRAY")
                                 for r in ([(args[2:3] or [kwargs.get("requirements")])[0] or []][0])):
        raise ValueError("Incorrect flag in requirements")  # (CuPy 14's require: C, F and O only)
    if name in _FFT_ND and any(type(n) is int and n == -1 for n in (args[1] if len(args) > 1 else kwargs.get("s")) or ()):
        raise ValueError("Invalid number of FFT data points (-1) specified.")  # (CuPy reads -1 as a length)
    if name in ("percentile", "quantile") and numpy.ndim(_host(args[1] if len(args) > 1 else kwargs.get("q"))) > 1:
        # https://github.com/cupy/cupy/blob/v14.0.0/cupy/_statistics/order.py#L193-L195
        raise ValueError(f"Expected q to have a dimension of 1.\nActual: "
                         f"{numpy.ndim(_host(args[1] if len(args) > 1 else kwargs.get('q')))} != 1")
    if name == "concatenate" and args and any(type(v) is not ndarray for v in args[0]):
        raise TypeError(f"Unsupported type {type(next(v for v in args[0] if type(v) is not ndarray))}")
    if type(kwargs.get("axis")) is ndarray:
        raise TypeError("'ndarray' object cannot be interpreted as an integer")  # (CuPy's axes: ints)
    if name == "concatenate" and args and (args[1:2] or [kwargs.get("axis", 0)])[0] is not None and any(
            v.ndim == 0 for v in args[0]):
        raise TypeError("zero-dimensional arrays cannot be concatenated")  # (CuPy's class; NumPy's is ValueError)


# ---- CuPy 14's answers where they are not NumPy's (and NumPy's function, run here, would
# answer NumPy's or raise): NumPy's function -> the call as made -> CuPy's answer, or _NUMPYS
# where NumPy's function answers as CuPy's does.
_NUMPYS = object()


class CompileException(Exception):
    """cupy.cuda.compiler.CompileException: a kernel NVRTC refused."""


def _host(x):
    return x._h if type(x) is ndarray else x


def _bound(f, args, kwargs):
    b = inspect.signature(f).bind(*args, **kwargs)
    b.apply_defaults()
    return b.arguments


def _next_fast_len(n):
    # cupyx.scipy.fft.next_fast_len: the least 2^a 3^b 5^c 7^d >= n, cuFFT's fast sizes
    while True:
        k = n
        for p in (2, 3, 5, 7):
            while k % p == 0:
                k //= p
        if k == 1:
            return n
        n += 1


def _fft_convolve(a1, a2, mode):
    # https://github.com/cupy/cupy/blob/v14.0.0/cupy/_math/misc.py#L82-L118 (cuFFT: here NumPy's FFT)
    offset = 0
    if a1.shape[-1] < a2.shape[-1]:
        a1, a2 = a2, a1
        offset = 1 - a2.shape[-1] % 2
    fft, ifft = ((numpy.fft.fft, numpy.fft.ifft) if "c" in (a1.dtype.kind, a2.dtype.kind)
                 else (numpy.fft.rfft, numpy.fft.irfft))
    dtype = numpy.result_type(a1, a2)
    n1, n2 = a1.shape[-1], a2.shape[-1]
    size = _next_fast_len(n1 + n2 - 1)
    out = ifft(fft(a1, size) * fft(a2, size), size)
    start = {"full": 0, "same": (n2 - 1) // 2 + offset, "valid": n2 - 1}[mode]
    end = {"full": n1 + n2 - 1, "same": start + n1, "valid": n1}[mode]
    return out[..., start:end].astype(dtype, copy=False)


def _convolve(correlate):
    """CuPy's convolve checks ``v`` alone (``a`` of any shape is raveled), correlate both; for
    inexact data both go through cuFFT (``_choose_conv_method``), whose last bits are not NumPy's
    direct sums': https://github.com/cupy/cupy/blob/v14.0.0/cupy/_math/misc.py#L25-L79 and
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_statistics/correlation.py#L55-L82"""
    def answer(args, kwargs):
        p = _bound(numpy.correlate if correlate else numpy.convolve, args, kwargs)
        a, v, mode = p["a"], p["v"], p["mode"]
        for x in (a, v):
            if type(x) is not ndarray:  # (a.size: CuPy reads its arguments as arrays)
                raise AttributeError(f"'{type(x).__name__}' object has no attribute 'size'")
        a, v = a._h, v._h
        if a.size == 0 or v.size == 0 or mode not in ("full", "same", "valid"):
            return _NUMPYS
        if correlate:
            if a.ndim != 1 or v.ndim != 1:
                raise ValueError("object too deep for desired array")
            v = v.conj()[::-1]
        elif v.ndim > 1:
            raise ValueError("v cannot be multidimensional array")
        if a.dtype.kind in "biu" or v.dtype.kind in "biu":  # (direct sums, as NumPy's)
            return _NUMPYS if a.ndim == 1 else _wrap(numpy.convolve(a.ravel(), v, mode))
        return _wrap(_fft_convolve(a.ravel(), v.ravel(), mode))
    return answer


def _compress(args, kwargs):
    """CuPy's compress checks a condition that is not a CuPy array only: a GPU condition of any
    shape gives the indices of its nonzero entries (the first axis's), and take wraps those past
    the end (_ndarray_compress, _take: cupy/_core/_routines_indexing.pyx,
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/_routines_indexing.pyx)."""
    p = _bound(numpy.compress, args, kwargs)
    cond, a, axis = p["condition"], p["a"], p["axis"]
    if type(cond) is not ndarray or type(a) is not ndarray or p["out"] is not None or cond.ndim == 0:
        return _NUMPYS
    idx = numpy.nonzero(cond._h)[0]
    h, ax = (a._h.ravel(), 0) if axis is None else (a._h, axis)
    n = h.shape[ax]
    if n == 0:
        if idx.size:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        return _NUMPYS
    return _wrap(numpy.take(h, idx % n, axis=ax))


def _choose(args, kwargs):
    """CuPy's choose indexes by ``a``'s values in any dtype (floats truncated), where NumPy casts
    ``a`` to intp safely (TypeError for floats): _ndarray_choose, cupy/_core/_routines_indexing.pyx."""
    p = _bound(numpy.choose, args, kwargs)
    a, choices = p["a"], p["choices"]
    if type(a) is not ndarray or type(choices) is not ndarray or a.dtype.kind != "f" or p["out"] is not None \
            or p["mode"] != "raise":
        return _NUMPYS
    n = choices.shape[0]
    if not ((a._h < n).all() and (a._h >= 0).all()):
        raise ValueError("invalid entry in choice array")
    return _wrap(numpy.choose(a._h.astype(numpy.intp), choices._h))


def _take(args, kwargs):
    """CuPy's take kernel computes ``indices % index_range`` in the indices' own type: inexact
    indices do not compile (_take_kernel_core, cupy/_core/_routines_indexing.pyx)."""
    ind = _bound(numpy.take, args, kwargs)["indices"]
    if type(ind) is ndarray and ind.dtype.kind in "fc":
        raise CompileException("cupy_take: error: expression must have integral or unscoped enum type")
    return _NUMPYS


def _put(args, kwargs):
    """CuPy's put converts each index to ptrdiff_t in its kernel (floats truncated), and its mode is
    "wrap" unless given: https://github.com/cupy/cupy/blob/v14.0.0/cupy/_indexing/insert.py#L51 and
    _ndarray_put, cupy/_core/_routines_indexing.pyx."""
    names = ("a", "ind", "v", "mode")
    p = {**dict(zip(names, args)), **kwargs}
    a, ind = p.get("a"), p.get("ind")
    if type(a) is not ndarray or type(ind) is not ndarray or ind.dtype.kind != "f":
        return _NUMPYS
    numpy.put(a._h, numpy.trunc(ind._h).astype(numpy.intp), _host(p.get("v")), mode=p.get("mode", "wrap"))


def _fft2_of_1d(name):
    """CuPy's fft2 and the rest of a 1-D array: its 1-D path takes the axes (-2, -1) modulo ndim,
    so both transforms run along the one axis (NumPy: IndexError): _fft, _exec_fft in
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/fft/_fft.py"""
    inner, outer = {"fft2": ("fft", "fft"), "ifft2": ("ifft", "ifft"), "rfft2": ("rfft", "fft"),
                    "irfft2": ("ifft", "irfft")}[name]

    def answer(args, kwargs):
        p = _bound(getattr(numpy.fft, name), args, kwargs)
        a = p["a"]
        if type(a) is not ndarray or a.ndim != 1 or p["s"] is not None or tuple(p["axes"]) != (-2, -1):
            return _NUMPYS
        F, norm = numpy.fft, p["norm"]
        return _wrap(getattr(F, outer)(getattr(F, inner)(a._h, norm=norm), norm=norm))
    return answer


def _polyval(args, kwargs):
    """CuPy's polyval of no coefficients: zeros in the dtype of ``p`` and ``x`` together (NumPy's:
    zeros_like(x)): https://github.com/cupy/cupy/blob/v14.0.0/cupy/lib/_routines_poly.py#L345-L348"""
    p = _bound(numpy.polyval, args, kwargs)
    c, x = p["p"], p["x"]
    if type(c) is not ndarray or c.ndim != 1 or c.size or isinstance(x, numpy.poly1d):
        return _NUMPYS
    x = _host(x)
    return _wrap(numpy.zeros(numpy.shape(x), numpy.result_type(c.dtype.type(0), x)))


def _delete(args, kwargs):
    """CuPy's delete is compress with a mask, a take into a new C-ordered array, whatever NumPy's
    order: https://github.com/cupy/cupy/blob/v14.0.0/cupy/_manipulation/add_remove.py#L12-L69"""
    if not args or type(args[0]) is not ndarray:
        return _NUMPYS
    r = numpy.delete(*[_host(x) for x in args], **{k: _host(v) for k, v in kwargs.items()})
    return _wrap(numpy.ascontiguousarray(r))


def _arange(args, kwargs):
    """CuPy's arange: its dtype is float if any bound is a float, else int; each element is
    ``typ(start) + i * typ(step)`` in the dtype, so a step that the dtype truncates (0.5 as an int)
    repeats the start, where NumPy steps by its first two elements' difference:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_creation/ranges.py (arange)"""
    p = _bound(numpy.arange, args, kwargs)
    start, stop, step, dtype = p["start_or_stop"], p["stop"], p["step"], p["dtype"]
    if any(type(v) is ndarray for v in (start, stop, step)):
        return _NUMPYS
    if dtype is None:
        dtype = float if any(numpy.dtype(type(v)).kind == "f" for v in (start, stop, step)) else int
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    size = int(numpy.ceil((stop - start) / step))
    typ = numpy.dtype(dtype).type
    if size <= 0 or typ is numpy.bool_:
        return _NUMPYS
    with numpy.errstate(all="ignore"):  # (the kernel's C arithmetic, wrapping)
        i = numpy.arange(size).astype(dtype)
        return _wrap((typ(start) + i * typ(step)).astype(dtype))


def _shares_memory(may):
    """CuPy's shares_memory takes no integer max_work, its may_share_memory none at all:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_misc/memory_ranges.py"""
    def answer(args, kwargs):
        work = (args[2:3] or [kwargs.get("max_work")])[0]
        if may and work is not None:
            raise NotImplementedError("Only supported for `max_work` is `None`")
        if not may and work not in (None, "MAY_SHARE_BOUNDS", "MAY_SHARE_EXACT"):
            raise NotImplementedError("Not supported for integer `max_work`.")
        return _NUMPYS
    return answer


def _polymul(args, kwargs):
    """CuPy's polymul: poly1d's coefficients convolved by CuPy's convolve, through cuFFT for
    inexact data: https://github.com/cupy/cupy/blob/v14.0.0/cupy/lib/_routines_poly.py"""
    p = _bound(numpy.polymul, args, kwargs)
    a1, a2 = p["a1"], p["a2"]
    if type(a1) is not ndarray or type(a2) is not ndarray or a1.ndim != 1 or a2.ndim != 1 or not a1.size \
            or not a2.size or not {a1.dtype.kind, a2.dtype.kind} & {"f", "c"}:
        return _NUMPYS
    c1, c2 = numpy.poly1d(a1._h).coeffs, numpy.poly1d(a2._h).coeffs
    return _wrap(_fft_convolve(c1, c2, "full"))


def _cupy_diag(args, kwargs):
    """CuPy's diag of a 2-d array is a copy of the diagonal, where NumPy's is a view:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_creation/matrix.py"""
    p = _bound(numpy.diag, args, kwargs)
    if type(p["v"]) is not ndarray or p["v"].ndim != 2:
        return _NUMPYS
    return _wrap(numpy.diag(p["v"]._h, p["k"]).copy())


def _cupy_repeat(h, repeats, axis=None):
    """CuPy's repeat: its counts a Python int, a NumPy integer or a sequence of host numbers, never
    a CuPy array, and checked in its own words:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/_routines_manipulation.pyx (_repeat)"""
    if type(repeats) is ndarray:
        raise ValueError("cupy.ndaray cannot be specified as `repeats` argument.")
    if isinstance(repeats, int) or (hasattr(repeats, "dtype") and numpy.issubdtype(repeats, numpy.integer)):
        if repeats < 0:
            raise ValueError(f"'repeats' should not be negative: {repeats}")
    elif isinstance(repeats, (list, tuple)):
        if any(r < 0 for r in repeats):
            raise ValueError(f"all elements of 'repeats' should not be negative: {repeats}")
        n = h.size if axis is None else h.shape[axis]
        if len(repeats) != 1 and len(repeats) != n:
            raise ValueError(f"'repeats' and 'axis' of 'a' should be same length: {n} != {len(repeats)}")
    else:
        raise ValueError(f"'repeats' should be int or sequence: {repeats}")
    return _wrap(h.repeat(repeats, axis))


def _repeat(args, kwargs):
    p = _bound(numpy.repeat, args, kwargs)
    if type(p["a"]) is not ndarray:
        return _NUMPYS
    return _cupy_repeat(p["a"]._h, p["repeats"], p["axis"])


_CUPY_ANSWERS = {
    numpy.arange: _arange, numpy.repeat: _repeat, numpy.polymul: _polymul, numpy.diag: _cupy_diag, numpy.shares_memory: _shares_memory(False), numpy.may_share_memory: _shares_memory(True),
    numpy.convolve: _convolve(False), numpy.correlate: _convolve(True), numpy.compress: _compress,
    numpy.choose: _choose, numpy.take: _take, numpy.put: _put, numpy.polyval: _polyval, numpy.delete: _delete,
    **{getattr(numpy.fft, n): _fft2_of_1d(n) for n in ("fft2", "ifft2", "rfft2", "irfft2")},
}


# CuPy 14's functions that read their array parameters as CuPy arrays (``a.dot(b)``, ``a.ndim``,
# ``a.ravel()``, Cython's typed ``_ndarray_base`` arguments) or check ``isinstance(x,
# cupy.ndarray)``: a Python number or list there raises. (parameter, element-wise: a sequence of arrays)
# cupy/linalg/_product.py, cupy/_manipulation/join.py, cupy/_math/sumprod.py,
# cupy/_indexing/indexing.py, cupy/_statistics/histogram.py, cupy/_statistics/correlation.py
_ARRAYS_ONLY = {
    "dot": (("a", False), ("b", False)), "vdot": (("a", False), ("b", False)),
    "inner": (("a", False), ("b", False)), "outer": (("a", False), ("b", False)),
    "tensordot": (("a", False), ("b", False)), "column_stack": (("tup", True),),
    "ediff1d": (("to_begin", False), ("to_end", False)), "trapezoid": (("x", False),),
    "select": (("choicelist", True),), "histogram": (("weights", False),),
    "cov": (("fweights", False), ("aweights", False)),
}
# CuPy 14 answers lists where NumPy 2 answers tuples (cupy/_manipulation/dims.py)
_LIST_ANSWERS = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays")


def _arrays_only(name, params, args, kwargs):
    given = {**dict(zip(params, args)), **kwargs}
    for p, each in _ARRAYS_ONLY[name]:
        v = given.get(p)
        if v is None:
            continue
        for x in (v if each and type(v) in (list, tuple) else (v,)):
            if type(x) is not ndarray:
                raise TypeError(f"{name}: {p} takes CuPy arrays only, not {type(x)}")
            if name == "column_stack" and x.ndim not in (1, 2):
                raise ValueError("Only 1 or 2 dimensional arrays can be column stacked")
    if name == "histogram" and len(args) > 1 and type(args[1]) is ndarray and args[1].size == 0:
        raise ValueError("negative dimensions are not allowed")  # (cupy.zeros(bin_edges.size - 1))


def _broadcast_arrays(args):
    arrays = [x._h for x in args if type(x) is ndarray]
    it = iter(numpy.broadcast_arrays(*arrays))
    return [_wrap(next(it)) if type(x) is ndarray else x for x in args]


def _memset_zero(name, a, kw):
    """CuPy makes scalars and fills by fill(), which writes any zero (-0.0 too) by memset."""
    i = _FILLS[name]
    key = "fill_value" if name == "full" else None
    v = a[i] if len(a) > i else kw.get(key) if key else None
    if isinstance(v, (int, float, complex, numpy.generic)) or (type(v) is numpy.ndarray and v.ndim == 0):
        try:
            zero = v == 0 and numpy.asarray(v).dtype.kind in "fc"
        except Exception:
            zero = False
        if zero:
            v = numpy.zeros((), numpy.asarray(v).dtype)[()] if not isinstance(v, numpy.ndarray) else numpy.zeros((), v.dtype)
            if len(a) > i:
                a = [*a[:i], v, *a[i + 1:]]
            else:
                kw = {**kw, key: v}
    return a, kw


class _Ufunc:
    def __init__(self, npu, spec):
        self._np = npu
        self.__name__ = npu.__name__
        self.nin, self.nout, self.nargs = npu.nin, npu.nout, npu.nargs
        self.types = spec.get("types", npu.types)
        # (CuPy 14 has no complex loops for the logical ufuncs: TypeError 'Wrong type')
        self._complex = any(c in t.split("->")[0] for t in self.types for c in "FD")

    def __call__(self, *args, **kwargs):
        if kwargs.keys() - {"out", "dtype", "casting"}:  # (CuPy's ufuncs take these three only)
            raise TypeError(f"Wrong arguments {dict((k, v) for k, v in kwargs.items() if k not in ('out', 'dtype', 'casting'))}")
        out = kwargs.get("out")
        for x in (*args, *(out if type(out) is tuple else (out,))):
            # (CuPy's ufuncs take CuPy arrays and scalars: NumPy arrays, their subclasses (masked
            # arrays, matrices), lists and objects with __array__ raise; cupy/_core/_kernel.pyx,
            # _preprocess_args)
            if not (type(x) is ndarray or x is None or isinstance(x, (int, float, complex, numpy.generic))):
                raise TypeError(f"Unsupported type {type(x)}")
        if not self._complex and any(
                type(x) is complex or numpy.dtype(getattr(x, "dtype", bool)).kind == "c" for x in args):
            raise TypeError(f"Wrong type ({tuple(numpy.result_type(x) for x in args)}) of arguments for cupy_{self.__name__}")
        r = self._np(*[_unwrap(x, False) for x in args], **{k: _unwrap(v, False) for k, v in kwargs.items()})
        out = kwargs.get("out")
        if type(out) is ndarray and r is out._h:
            return out
        return _wrap(_c_order(r) if out is None else r)

    def outer(self, a, b):
        return _wrap(self._np.outer(_unwrap(a, True), _unwrap(b, True)))

    def at(self, a, idx, b=None):
        self._np.at(a._h, _unwrap(idx, False), *(() if b is None else (_unwrap(b, False),)))

    def reduce(self, *a, **k):
        raise NotImplementedError(f"{self.__name__}.reduce is not supported")

    accumulate = reduceat = reduce


class _Flags:
    # cupy._core.flags.Flags: three flags, by attribute or by NumPy's key, and fnc/forc
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "OWNDATA": "owndata"}

    def __init__(self, h):
        self.c_contiguous = h.flags.c_contiguous
        self.f_contiguous = h.flags.f_contiguous
        self.owndata = h.flags.owndata

    fnc = property(lambda s: s.f_contiguous and not s.c_contiguous)
    forc = property(lambda s: s.f_contiguous or s.c_contiguous)

    def __getitem__(self, name):
        if name not in self._KEYS:
            raise KeyError(f"{name} is not defined for cupy.ndarray.flags")
        return getattr(self, self._KEYS[name])


class ndarray:
    __slots__ = ("_h", "_base", "__weakref__")
    __array_priority__ = 100

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        self._h = numpy.ndarray(shape, dtype, strides=strides, order=order)
        _adopt(self, self._h)

    shape = property(lambda s: s._h.shape, lambda s, v: setattr(s._h, "shape", v))
    dtype = property(lambda s: s._h.dtype)
    ndim = property(lambda s: s._h.ndim)
    size = property(lambda s: s._h.size)
    itemsize = property(lambda s: s._h.itemsize)
    nbytes = property(lambda s: s._h.nbytes)
    strides = property(lambda s: s._h.strides)
    flags = property(lambda s: _Flags(s._h))
    T = property(lambda s: _wrap(s._h.T))
    mT = property(lambda s: _wrap(s._h.mT))
    # the owner array; None where NumPy's base is its own (a structured view in np.unique(axis=)):
    # a CuPy array's base is always a CuPy array
    base = property(lambda s: s._base)
    data = property(lambda s: types.SimpleNamespace(ptr=s._h.ctypes.data))  # (a host address, standing in)
    device = property(lambda s: _DEVICE)
    real = property(lambda s: _wrap(s._h.real), lambda s, v: setattr(s._h, "real", _unwrap(v, False)))
    imag = property(lambda s: _wrap(s._h.imag), lambda s, v: setattr(s._h, "imag", _unwrap(v, False)))
    flat = property(lambda s: _Flat(s))

    def get(self, stream=None, order="C", out=None, blocking=True):
        return numpy.array(self._h, order=order)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self._h.__dlpack__(max_version=max_version, copy=copy)  # (host memory, standing in)

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0: as a CuPy array says

    def __array__(self, *a, **k):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in _NDARRAY:
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        m = getattr(self._h, name)
        if not callable(m):
            return _wrap(m)
        if name == "sort" and not self._h.flags.c_contiguous:
            def m(*a, **k):  # (as CuPy 14's in-place sort)
                raise NotImplementedError("Sorting non-contiguous array is not supported.")
        if name == "repeat":
            return lambda repeats, axis=None: _cupy_repeat(self._h, repeats, axis)
        if name == "reshape":
            return lambda *shape, order="C": _func(name, m, _NDARRAY[name], strict=False, method=True)(
                shape[0] if len(shape) == 1 else shape, order=order)  # (CuPy's reshape(): to shape ())
        if name == "clip":
            def m(min=None, max=None, out=None, _clip=m):  # (CuPy 14's _ndarray_clip)
                if min is None and max is None:
                    raise ValueError("array_clip: must set either max or min")
                return _clip(min, max, out=_unwrap(out, False) if out is not None else None)
            return m
        return _func(name, m, _NDARRAY[name], strict=False, method=True)

    def __getitem__(self, k):
        k = _device_index(self._h.shape, k)
        r = self._h[k]
        if isinstance(r, numpy.generic):  # CuPy gives a 0-d view of the element, not a copy
            r = self._h[(*k, Ellipsis) if type(k) is tuple else (k, Ellipsis)]
        return _wrap(r)

    def __setitem__(self, k, v):
        if type(v) is numpy.ndarray:
            raise TypeError("Unsupported type <class 'numpy.ndarray'>")
        if type(v) is ndarray:
            y = self._h[_unwrap_index(k)]
            if isinstance(y, numpy.ndarray) and y.shape == v._h.shape and y.strides == v._h.strides and \
                    y.ctypes.data == v._h.ctypes.data:
                # CuPy skips a copy from the memory it would write, whatever the dtypes (a float32
                # array into its int32 view keeps the float bits): _scatter_op in
                # https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/_routines_indexing.pyx
                return
        if isinstance(v, (float, complex, numpy.inexact)) and v == 0:
            v = type(v)(0)  # (CuPy writes a number by fill(): a zero, -0.0 too, by memset)
        self._h[_device_index(self._h.shape, k)] = _unwrap(v, False)

    def __len__(self):
        return len(self._h)

    def __iter__(self):
        if self._h.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._h)))

    def __bool__(self):
        return bool(self._h)

    def __int__(self):
        return int(self._h)

    def __float__(self):
        return float(self._h)

    def __complex__(self):
        return complex(self._h)

    def __index__(self):  # (CuPy's 0-d arrays are not integers to operator.index)
        raise TypeError(f"'{type(self).__name__}' object cannot be interpreted as an integer")

    def __repr__(self):
        return repr(self._h)

    def copy(self, order="C"):
        return _wrap(self._h.copy(order))


def _method(name):
    spec = _NDARRAY[name]

    def m(self, *args, **kwargs):
        return _func(name, getattr(self._h, name), spec, strict=False, method=True)(*args, **kwargs)
    m.__name__ = name
    m.__signature__ = signature(spec, method=True)
    return m


for _n in dir(numpy.ndarray):
    if not _n.startswith("_") and _n not in ndarray.__dict__ and callable(getattr(numpy.ndarray, _n)):
        if _n in _NDARRAY:
            setattr(ndarray, _n, _method(_n))


def _device_index(shape, k):
    """``k`` for NumPy's indexing of an array of ``shape``, read as CuPy reads it: an out-of-bounds
    index in an integer index array wraps around, where NumPy raises (xpshim checks before):
    https://docs.cupy.dev/en/stable/user_guide/difference.html#out-of-bounds-indices"""
    if type(k) is not tuple:
        if type(k) is not ndarray:
            return _unwrap_index(k)
        key = (k,)
    else:
        key = k
    out, axis = [], 0
    for i, v in enumerate(key):
        u = _unwrap_index(v)
        if v is Ellipsis:
            axis = len(shape) - sum(_axes_of(w) for w in key[i + 1:])
        elif v is not None:
            if type(v) is ndarray and u.dtype.kind in "iu" and axis < len(shape) and shape[axis]:
                u = u % shape[axis]
            axis += _axes_of(v)
        out.append(u)
    return tuple(out) if type(k) is tuple else out[0]


def _axes_of(v):
    if v is None or v is Ellipsis:
        return 0
    h = v._h if type(v) is ndarray else v
    return h.ndim if getattr(h, "dtype", None) is not None and h.dtype.kind == "b" else 1


def _unwrap_index(k):
    if type(k) is tuple:
        return tuple(_unwrap_index(v) for v in k)
    if type(k) is ndarray:
        return k._h
    if type(k) is numpy.ndarray:
        raise TypeError("Unsupported type <class 'numpy.ndarray'>")
    if type(k) is slice:  # (CuPy reads 0-d arrays as slice bounds, though not as operator.index)
        return slice(*(v._h.item() if type(v) is ndarray else v for v in (k.start, k.stop, k.step)))
    return k


class _Flat:
    def __init__(self, a):
        self._a = a

    def __getitem__(self, k):
        return _wrap(self._a._h.flat[_unwrap_index(k)])

    def __setitem__(self, k, v):
        self._a._h.flat[_unwrap_index(k)] = _unwrap(v, False)


def _op(name):
    def f(self, other):
        if type(other) is numpy.ndarray or type(other) is list:
            raise TypeError(f"Unsupported type {type(other)}")
        o = other._h if type(other) is ndarray else other
        r = getattr(self._h, name)(o)
        if r is NotImplemented:
            return r
        if name.startswith("__i"):
            return self
        return _wrap(_c_order(r))
    return f


def _c_order(r):
    """A new answer of CuPy's ufuncs, operators and ElementwiseKernels: C-ordered whatever the
    operands' order (cupy/_core/_kernel.pyx, _get_out_args_from_optionals; NumPy's keeps theirs)."""
    if type(r) is tuple:
        return tuple(_c_order(v) for v in r)
    return numpy.ascontiguousarray(r) if type(r) is numpy.ndarray and r.ndim > 1 else r


for _n in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
           "and", "xor", "or", "divmod", "lt", "le", "eq", "ne", "gt", "ge"):
    setattr(ndarray, f"__{_n}__", _op(f"__{_n}__"))
    if _n not in ("lt", "le", "eq", "ne", "gt", "ge"):
        setattr(ndarray, f"__r{_n}__", _op(f"__r{_n}__"))
        if _n != "divmod":
            setattr(ndarray, f"__i{_n}__", _op(f"__i{_n}__"))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_n}__", (lambda n: lambda self: _wrap(_c_order(getattr(self._h, n)())))(f"__{_n}__"))


def _resolve(mod, dotted):
    for part in filter(None, dotted.split(".")):
        mod = getattr(mod, part)
    return mod


def _module(sub, npmod, strict=True):
    name = f"cupy.{sub}" if sub else "cupy"
    mod = types.ModuleType(name)
    entries = _API["modules"][sub]

    def __getattr__(attr):
        spec = entries.get(attr)
        if spec is None:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")
        obj = getattr(npmod, attr)
        if isinstance(obj, numpy.ufunc) and spec["kind"] == "ufunc":  # (CuPy's matmul is a function)
            r = _Ufunc(obj, spec)
        elif isinstance(obj, types.ModuleType) or isinstance(obj, type):
            raise AttributeError(attr)
        elif callable(obj):
            r = _func(attr, obj, spec, strict=strict)
        else:
            r = obj
        setattr(mod, attr, r)
        return r

    mod.__getattr__ = __getattr__
    return mod


class _OwnGenerator:
    """``numpy.random`` with a global generator of its own, as CuPy's module has: seeding or
    drawing from it leaves NumPy's global stream where it was."""

    def __init__(self):
        self._rs = numpy.random.RandomState()

    def __getattr__(self, attr):
        return getattr(self._rs, attr) if hasattr(numpy.random.RandomState, attr) else getattr(numpy.random, attr)


this = sys.modules[__name__]
_top = _module("", numpy)
for _sub in sorted(_API["modules"]):  # (a module before its submodules)
    if _sub:
        _parent, _, _leaf = _sub.rpartition(".")
        # cupy.random's functions call cupy.asarray on their parameters: they take lists
        npmod = _OwnGenerator() if _sub == "random" else _resolve(numpy, _sub)
        setattr(_resolve(this, _parent), _leaf, _module(_sub, npmod, strict=_sub != "random"))
# (CuPy's Generator takes a CuPy bit generator, which the simulated device has not: a NumPy one stands in)
_Generator = _random_class("Generator", numpy.random.Generator)
_RandomState = _random_class("RandomState", lambda seed=None, method=None: numpy.random.RandomState(seed))
random.Generator, random.RandomState = _Generator, _RandomState  # noqa: F821


def __getattr__(attr):
    return getattr(_top, attr)


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    g = getattr(type(a), "__cupy_get_ndarray__", None)
    if g is not None:  # (CuPy's hook for a foreign array, an xpshim one: its memory shared)
        a = g(a)
    if type(a) is ndarray:
        if copy is False and dtype is not None and a.dtype != dtype:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        if copy:
            return _wrap(a._h.astype(a.dtype if dtype is None else dtype, order="K" if order is None else order))
        return a if dtype is None or a.dtype == dtype else _wrap(a._h.astype(dtype))
    if copy is False:  # (host data is always copied to the device)
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    # (CuPy 14's _array_default: no order is C order, whatever the data's; "K"/"A" keep an
    # F-ordered NumPy array's order: https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/core.pyx)
    if order is None:
        order = "C"
    elif order in "KAka":
        order = "F" if isinstance(a, numpy.ndarray) and a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    return _wrap(numpy.array(a, dtype=dtype, order=order))


def from_dlpack(array, *, device=None, copy=None):
    if array.__dlpack_device__()[0] != 2:
        raise TypeError(f"from_dlpack takes a DLPack tensor on a CUDA device, not {type(array)}")
    return _wrap(numpy.from_dlpack(_HostTensor(array)))


class _HostTensor:
    """A simulated device's DLPack tensor (xpshim's array of one) read as the host memory it is."""

    def __init__(self, x):
        self._x = x

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, **kwargs):
        return self._x.__dlpack__(**kwargs)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    h = obj._h if type(obj) is ndarray else obj
    return _wrap(numpy.array(h, dtype=dtype, copy=copy, order=order, ndmin=ndmin))


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    return a.get() if type(a) is ndarray else numpy.asarray(a)


def place(arr, mask, vals):
    # CuPy's place casts the values to the array's dtype (NumPy's own refuses, say, int64
    # values for an int16 array)
    v = vals._h if type(vals) is ndarray else numpy.asarray(vals)
    numpy.place(arr._h, mask._h if type(mask) is ndarray else mask, v.astype(arr.dtype))


class _Pool:
    def free_all_blocks(self):
        pass


def get_default_memory_pool():
    return _Pool()


get_default_pinned_memory_pool = get_default_memory_pool

cuda = types.SimpleNamespace(
    memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
    compiler=types.SimpleNamespace(CompileException=CompileException),
    is_available=lambda: True,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, runtimeGetVersion=lambda: 0, driverGetVersion=lambda: 0),
)
__version__ = _API["cupy"]


class _Device:
    id = 0

    def __repr__(self):
        return "<CUDA Device 0>"


_DEVICE = _Device()

# CuPy's elementwise kernels, compiled by the host's C++ compiler (xpshim/_exact.cuh's
# NumPy formulas run through it here, and through NVRTC on a GPU). Without a compiler
# the name is absent, and xpshim's kernels are not used (CuPy's ufuncs, NumPy's loops, run).
if kernels.compiler():
    class ElementwiseKernel(kernels.ElementwiseKernel):
        __doc__ = kernels.ElementwiseKernel.__doc__
        ndarray, wrap = ndarray, staticmethod(_wrap)
