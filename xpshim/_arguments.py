"""A call's arguments: where they live, and the same arguments in CuPy's terms.

``locate`` says where a call's arrays are (GPU, CPU or none); ``gpu_args`` puts the arguments in
CuPy's terms (GPU arrays unwrapped, host arrays and lists at array-like parameters copied over,
counted), with each parameter's converter from ``array_like_params`` (which parameters NumPy reads
as array data: ``_registry``'s tables and NumPy's docstrings, ``_docparams``); ``call_gpu`` calls
CuPy's function with them. Also here: what marks arguments NumPy keeps on the host (a NumPy
subclass, an object with ``__array__``) and calls on numbers alone.
"""

import inspect

import numpy

from . import _backend, _docparams, _signatures, _transfer
from ._edges import check_index_dtype, host_repeats  # noqa: F401  (check_index_dtype: also the methods')
from ._errors import OutOfMemoryError
from ._ndarray import arraylike, dev, host, ndarray, on_host_part, wrap
from ._registry import ARRAY_PARAMS, NO_OP_KWARGS, SEQUENCE_PARAMS, SEQUENCE_PARAMS_OF


# What CuPy's functions raise where they refuse a call NumPy may take (what is not a CuPy array, a
# check of their own, a C integer's range); not CUDA's errors, nor running out of memory
REFUSALS = (TypeError, ValueError, AttributeError, IndexError, NotImplementedError, OverflowError)


def refusal(e):
    """Whether CuPy's exception ``e`` refuses the call: one of REFUSALS, or a kernel CuPy could
    not compile for these dtypes (cupy.cuda.compiler.CompileException: ``arctan2`` of complex
    numbers, where NumPy's ufunc has no loop and says so)."""
    return isinstance(e, REFUSALS) or type(e).__name__ == "CompileException"

_MISSING = object()
# NumPy's scalar types: a ufunc of these (and numbers) is NumPy's, as a loop's np.sqrt(s) is
NUMPY_SCALARS = frozenset(numpy.dtype(c).type for c in "?bhilqpBHILQPefdgFDG")
# Numbers as arguments: Python's and NumPy's scalars (long double has no GPU form)
NUMBERS = NUMPY_SCALARS - {numpy.longdouble, numpy.clongdouble} | {int, float, complex, bool}


def locate(args, kwargs):
    """'gpu' if a GPU array is among the arguments (one level into lists), 'cpu'
    if a NumPy array is (or a part of an array whose data a loop moved to the host:
    NumPy's function reads and writes it there, through __array_function__), else None."""
    loc = None
    for group in (args, kwargs.values()):
        for a in group:
            t = type(a)
            if t is ndarray:
                if not on_host_part(a):
                    return "gpu"
                loc = "cpu"
            elif t is numpy.ndarray:
                loc = "cpu"
            elif t is list or t is tuple:
                for b in a:
                    tb = type(b)
                    if tb is ndarray:
                        if not on_host_part(b):
                            return "gpu"
                        loc = "cpu"
                    elif tb is numpy.ndarray:
                        loc = "cpu"
            elif t is not int and t is not float and t is not str and _backend.is_raw_gpu_array(a):
                return "gpu"
    return loc


def to_host_args(args, kwargs, reason):
    """Host copies of every GPU array in the arguments (counted)."""
    from ._fallback import to_host

    return [to_host(a, reason) for a in args], {k: to_host(v, reason) for k, v in kwargs.items()}


def array_like_params(npf, fname=None):
    """(positions, names, varargs) of npf's parameters that take array-likes (names: a dict of
    each one's converter where the function reads one of them otherwise than its name says)."""
    try:
        sig = inspect.signature(npf)
    except (TypeError, ValueError):
        return (), frozenset(), False
    # (NumPy's docstring says which parameters take array data: _docparams)
    doc_arrays, doc_seqs = _docparams.documented(npf)
    own = SEQUENCE_PARAMS_OF.get(fname, frozenset()) | doc_seqs
    arrays_only = _docparams.refuses_array_likes(npf)  # (np.astype's x: NumPy's TypeError for a list)
    pos, names, var = [], {}, False
    for i, (n, p) in enumerate(sig.parameters.items()):
        if n in arrays_only:
            continue
        if p.kind is p.VAR_POSITIONAL:
            # (*args: each one converted, as indices where NumPy reads them so: np.ix_([]))
            if n in SEQUENCE_PARAMS or n in doc_arrays or n in doc_seqs:
                var = as_indices if n in _INDEX_PARAMS_OF.get(fname, ()) else \
                    _array_or_number if n in doc_arrays or n in doc_seqs else arraylike
            break
        if n in ARRAY_PARAMS or n in SEQUENCE_PARAMS or n in doc_arrays or n in own:
            names[n] = (_nested if fname == "xpshim.block" else _arrays if n in doc_seqs else _seq if n in own
                        else converter(n, fname))
            if p.kind is not p.KEYWORD_ONLY:
                pos.append((i, names[n]))
    return tuple(pos), names, var


def into_host(outs, r, name):
    """A GPU computation's result(s) ``r`` copied into the NumPy ``out=`` array(s) (counted)."""
    for o, v in zip(outs, r if type(r) is tuple else (r,)):
        if o is not None:
            o[...] = host(v, f"out= of a NumPy array ({name})") if type(v) is ndarray else v


def host_outs(out):
    """Whether NumPy arrays are among ``out=`` (one array, or a ufunc's tuple of them)."""
    return type(out) is numpy.ndarray or (type(out) is tuple and any(type(o) is numpy.ndarray for o in out))


def through_stand_ins(out, run, name):
    """A GPU computation writing into NumPy ``out=`` arrays: ``run(out')`` with each NumPy array of
    ``out`` replaced by an empty GPU array of its shape and dtype, so that the call has NumPy's
    ``out=`` semantics (the computation's dtype, the casting check, as for a GPU ``out=``), then
    each stand-in copied into its NumPy array (one counted copy each). Answers ``out`` itself, as
    NumPy does."""
    single = type(out) is not tuple
    outs = (out,) if single else out
    subs = tuple(wrap(_backend.xp.empty(o.shape, o.dtype)) if type(o) is numpy.ndarray else o for o in outs)
    run(subs[0] if single else subs)
    for o, s in zip(outs, subs):
        if s is not o:
            o[...] = host(s, f"out= of a NumPy array ({name})")
    return out


def host_class(x):
    """The class of a NumPy subclass instance (masked array, matrix) or poly1d that ``x`` is, or that
    a list or tuple ``x`` holds; else None."""
    t = type(x)
    if t is list or t is tuple:
        for v in x:
            tv = type(v)
            if tv is numpy.poly1d or (tv is not numpy.ndarray and tv is not ndarray and isinstance(v, numpy.ndarray)):
                return tv
        return None
    return t if t is numpy.poly1d or (t is not numpy.ndarray and isinstance(x, numpy.ndarray)) else None


def _holds_array(v):
    return any(type(x) is ndarray or type(x) is numpy.ndarray or
               ((type(x) is list or type(x) is tuple) and _holds_array(x)) for x in v)


def _seq(v):
    if type(v) is list or type(v) is tuple:
        # Nested sequences of arrays (np.block's) keep their nesting; each leaf converts.
        return type(v)(_seq(x) if (type(x) is list or type(x) is tuple) and _holds_array(x)
                       else arraylike(x) for x in v)
    return arraylike(v)


def _nested(v):
    """np.block's arrays in CuPy's terms: the nesting kept down to every leaf (a list of
    numbers is a row of 0-d blocks to NumPy, not one 1-d block), each leaf an array."""
    if type(v) is list or type(v) is tuple:
        return type(v)(map(_nested, v))
    return dev(v) if type(v) in (ndarray, numpy.ndarray) else _transfer.to_device(numpy.asarray(v), "block leaf")


def _arrays(v):
    """A parameter NumPy documents as a sequence of array_like (ravel_multi_index's multi_index):
    each element an array, a number as the 0-d array NumPy reads it as."""
    if type(v) is list or type(v) is tuple:
        return type(v)(arraylike(x) if type(x) not in NUMBERS else _transfer.to_device(numpy.asarray(x), "array-like argument")
                       for x in v)
    return arraylike(v)


def _choices(v):
    """choose's choices in CuPy's terms: one array. NumPy takes a sequence of arrays and
    scalars that broadcast together (and promotes them as result_type does); CuPy wants
    them broadcast and stacked already."""
    if type(v) is not list and type(v) is not tuple:
        return arraylike(v)
    xp = _backend.xp
    leaves = [arraylike(x) if type(x) is list or type(x) is tuple else dev(x) for x in v]
    dt = numpy.result_type(*[x.dtype if hasattr(x, "dtype") else x for x in leaves])
    # (NumPy casts the choices unsafely: a Python int out of range wraps, as here)
    leaves = [(x if isinstance(x, xp.ndarray) else xp.full((), x)).astype(dt, copy=False) for x in leaves]
    return xp.stack(xp.broadcast_arrays(*leaves))


def converter(name, fname=None):
    """How an array-like parameter called ``name`` (of the function ``fname``) is put in CuPy's terms."""
    if name == "choices":
        return _choices
    c = _C_INDICES.get(fname)
    if c is not None and name in c:
        return c[name]
    if (name in _INDEX_PARAMS and fname not in _EMPTY_IS_FLOAT) or name in _INDEX_PARAMS_OF.get(fname, ()):
        return as_indices
    return _seq if name in SEQUENCE_PARAMS else arraylike


def as_indices(v):
    """An array-like parameter NumPy reads as indices: an empty list there means "no indices"
    (intp; np.take(a, []), np.delete(a, [])), where elsewhere it is an empty float64 array."""
    if (type(v) is list or type(v) is tuple) and not v:
        return _transfer.to_device(v, "array-like argument", dtype=numpy.intp)
    return arraylike(v)


def c_indices(casting):
    """The converter of an index parameter of NumPy's C methods (``take``, ``put``, ``repeat``;
    NumPy's functions of those names call them): Python data cast item by item to intp, as NumPy's
    C code does (``a.take([0.5, 1.7])`` takes 0 and 1, ``a.repeat(2.0)`` repeats twice); an array
    whose dtype does not cast to intp by ``casting`` (take's is "same_kind", the others' "safe") is
    NumPy's TypeError, where CuPy's kernels truncate floats or do not compile
    (cupy/_core/_routines_indexing.pyx)."""
    def convert(v):
        if type(v) is ndarray or type(v) is numpy.ndarray or _backend.is_raw_gpu_array(v):
            check_index_dtype(v.dtype, casting)
            return arraylike(v)
        return _transfer.to_device(numpy.asarray(v, dtype=numpy.intp), "array-like argument")
    return convert


def _repeats(v):
    """``x.repeat``'s counts, as CuPy's method takes them (_edges.host_repeats)."""
    return host_repeats(v._a if type(v) is ndarray else v)


_SAFE, _SAME_KIND = c_indices("safe"), c_indices("same_kind")
# NumPy's C methods' index parameters, as functions and as methods (c_indices)
_C_INDICES = {"xpshim.take": {"indices": _SAME_KIND}, "xpshim.put": {"ind": _SAFE}, "xpshim.repeat": {"repeats": _repeats},
              "ndarray.take": {"indices": _SAME_KIND}, "ndarray.put": {"indices": _SAFE},
              "ndarray.repeat": {"repeats": _repeats}}
# Parameters NumPy reads as indices (an empty list is intp there), and functions that read
# another one so (bincount's x: counts of non-negative ints)
_INDEX_PARAMS = frozenset({"indices", "ind", "obj"})
_INDEX_PARAMS_OF = {"xpshim.bincount": frozenset({"x"}), "xpshim.ix_": frozenset({"args"})}
_EMPTY_IS_FLOAT = frozenset({"xpshim.unravel_index"})  # (NumPy raises: "the provided empty sequence was inferred as float")


def _array_or_number(v):
    """One of several arrays NumPy documents as array_like (``broadcast_arrays(x, 2)``): a number
    too is the 0-d array NumPy makes of it (CuPy's broadcast passes numbers through unbroadcast)."""
    if type(v) in NUMBERS:
        return _transfer.to_device(numpy.asarray(v), "a number as an array argument")
    return arraylike(v)


def gpu_args(args, kwargs, spec):
    """Arguments in CuPy's terms: GPU arrays unwrapped, host arrays and lists at
    array-like parameters copied over (counted)."""
    pos, names, var = spec[0], spec[1], spec[2]
    a = list(args)
    if len(spec) > 3 and spec[3] and a and type(a[0]) in NUMBERS:
        # a number as the array argument (np.interp(2.5, xp, fp), np.nanmax(3.0)): NumPy reads it
        # as a 0-d array; CuPy's functions take arrays only there
        a[0] = _transfer.to_device(a[0], "a number as the array argument")
    seqs = False
    for i, x in enumerate(a):
        t = type(x)
        if t is ndarray:
            d = x._d
            a[i] = x._a if d is None or x._st.host else d  # (x._a, a frame less where it is x._d)
        elif t is numpy.ndarray:
            a[i] = _transfer.to_device(x, "NumPy array argument")
        elif t is list or t is tuple or (var is _array_or_number and t in NUMBERS):
            seqs = True
    if seqs:
        for i, conv in pos:
            if i < len(a) and (type(a[i]) is list or type(a[i]) is tuple):
                a[i] = conv(a[i])
        if var:
            for i in range(pos[-1][0] + 1 if pos else 0, len(a)):
                a[i] = var(a[i])
        # Sequences elsewhere may still hold arrays (e.g. concatenate's first argument).
        for i, x in enumerate(a):
            if type(x) is list or type(x) is tuple:
                if any(type(v) is ndarray or type(v) is numpy.ndarray for v in x):
                    a[i] = type(x)(dev(v) for v in x)
    if not kwargs:
        return a, kwargs
    kw = {}
    for k, v in kwargs.items():
        t = type(v)
        if t is ndarray:
            kw[k] = v._a
        elif k in names and (t is list or t is tuple):
            kw[k] = (names[k] if type(names) is dict else converter(k))(v)
        elif t is numpy.ndarray:
            kw[k] = _transfer.to_device(v, "NumPy array argument")
        else:
            kw[k] = v
    return a, kw


def call_gpu(f, args, kwargs):
    """Call a CuPy function; turn an out-of-memory error into one that says what to do."""
    try:
        return f(*args, **kwargs)
    except _backend.xp.cuda.memory.OutOfMemoryError as e:
        raise out_of_memory(f, e) from e


def out_of_memory(f, e):
    """xpshim's error for CuPy's out-of-memory error ``e`` in ``f``: it says what to do. (The hot
    paths call CuPy's function themselves, a frame fewer than ``call_gpu``, and raise this.)"""
    return OutOfMemoryError(
        f"the GPU ran out of memory in {getattr(f, '__name__', f)}: {e}. Free GPU arrays "
        "you no longer need (del x; xpshim.free_gpu_memory()), work on smaller pieces, "
        "or run this part on the CPU (with xpshim.device('cpu'): ...)."
    )


def kwargs_gap(cpf, kwargs):
    """The keywords of a call that CuPy's ``cpf`` does not take (one given at the value where
    NumPy's does nothing, ``_registry.NO_OP_KWARGS``, is none)."""
    if not kwargs:
        return ()
    bad = _signatures.unsupported(cpf, kwargs)
    return tuple(k for k in bad if NO_OP_KWARGS.get(k, _MISSING) is not kwargs[k])


def numbers_alone(args, kwargs):
    """True when the arguments hold numbers (Python's or NumPy's scalars) and nothing else but
    dtypes, strings and None (np.isclose(1.0, 2.0), np.sqrt(2.0), np.astype(s, np.float32)):
    NumPy's answer is a NumPy scalar, on either device, which no GPU makes faster."""
    number = False
    for a in args:
        if type(a) in NUMBERS or isinstance(a, numpy.generic):
            number = True
        elif a is not None and type(a) is not str and not isinstance(a, (numpy.dtype, type)):
            return False
    if not number:
        return False
    if kwargs:
        for v in kwargs.values():
            if v is not None and type(v) not in NUMBERS and type(v) is not str and \
                    not isinstance(v, (numpy.generic, numpy.dtype, type)):
                return False
    return True


_PLAIN = frozenset({ndarray, numpy.ndarray, int, float, complex, bool, str, list, tuple, type(None), slice,
                    *NUMPY_SCALARS})


def array_like(x):
    """An object NumPy reads through its ``__array__`` (not an array, a scalar, nor GPU data that
    CuPy reads in place through ``__cuda_array_interface__``)."""
    t = type(x)
    return t not in _PLAIN and hasattr(t, "__array__") and not hasattr(t, "__cuda_array_interface__") and \
        not isinstance(x, (numpy.generic, numpy.ndarray, ndarray))


def interface_like(x):
    """An object NumPy reads through ``__array_interface__`` or ``__array_struct__`` (not GPU data)."""
    t = type(x)
    return t not in _PLAIN and (hasattr(t, "__array_interface__") or hasattr(t, "__array_struct__")) and \
        not hasattr(t, "__cuda_array_interface__") and not isinstance(x, (numpy.generic, numpy.ndarray, ndarray))


def array_likes(args, kwargs):
    """The call's arguments with array-like objects (``__array__``) as the NumPy arrays they give."""
    def conv(x):
        if not array_like(x):
            return x
        try:
            return numpy.asarray(x)
        except ValueError:
            # its __array__ answered a GPU array (``return np.arange(3)`` in a class written
            # for xpshim), which NumPy's protocol refuses: that array
            r = x.__array__()
            if type(r) is ndarray:
                return r
            raise
    return tuple(map(conv, args)), {k: conv(v) for k, v in kwargs.items()}
