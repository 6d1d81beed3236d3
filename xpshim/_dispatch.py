"""Builds one wrapper per NumPy name: decide where the call runs, then run it there.

Where a call runs: on the GPU if any argument is a GPU array; on the CPU if
any is a NumPy array; otherwise on the current device (``xpshim.device``).
Creation from data (``array``, ``asarray``, ...) always uses the current device.
In auto mode on a GPU, sizes decide too (``_placement``): a call without arrays
makes a small result on the CPU, and a NumPy result that reaches the crossover
moves to the GPU.
"""

import functools
import inspect
import operator
import sys
import weakref

import numpy

from . import (_arrayapi, _backend, _device, _docparams, _edges, _exact, _fallback, _gaps, _hostfast, _placement,
               _signatures, _transfer)
from ._cpupath import describe as _describe, non_binding, where as _where
from ._errors import OutOfMemoryError
from ._ndarray import arraylike, dev, fresh, host, host_only_dtype, ndarray, on_host_part, wrap
from ._registry import (ARRAY_PARAMS, METHOD_ARRAY_ARGS, NO_OP_KWARGS, SEQUENCE_PARAMS, SEQUENCE_PARAMS_OF,
                        WRITES_INTO)

_MISSING = object()
_SORTS = frozenset({"sort", "argsort"})  # (methods whose kind= CuPy's take as "stable" only: _stable_sort)


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
                var = _indices if n in _INDEX_PARAMS_OF.get(fname, ()) else \
                    _array_or_number if n in doc_arrays or n in doc_seqs else arraylike
            break
        if n in ARRAY_PARAMS or n in SEQUENCE_PARAMS or n in doc_arrays or n in own:
            names[n] = (_nested if fname == "xpshim.block" else _arrays if n in doc_seqs else _seq if n in own
                        else converter(n, fname))
            if p.kind is not p.KEYWORD_ONLY:
                pos.append((i, names[n]))
    return tuple(pos), names, var


def _named_result(npf):
    """The namedtuple class NumPy's ``npf`` answers with, found by NumPy's naming of them in the
    function's module (unique_all -> UniqueAllResult, svd -> SVDResult), or None."""
    space = getattr(getattr(npf, "_implementation", npf), "__globals__", None) or {}  # (its module's names)
    want = getattr(npf, "__name__", "").replace("_", "").lower() + "result"
    for k, v in space.items():
        if k.lower() == want and isinstance(v, type) and issubclass(v, tuple) and hasattr(v, "_fields"):
            return v
    return None


def _positional(npf):
    """The names of ``npf``'s parameters that may be given by position, in order."""
    return tuple(n for n, p in inspect.signature(npf).parameters.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _dtype_position(npf, name="dtype"):
    """Where ``npf`` takes ``name``: its position (-1: keyword only), or None (not taken)."""
    try:
        params = list(inspect.signature(npf).parameters.values())
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(params):
        if p.name == name:
            return i if p.kind is p.POSITIONAL_OR_KEYWORD else -1
    return None


def _axis_read(v):
    """A GPU array given as an axis, as NumPy reads it: a 0-d integer through __index__, a 1-d
    array of integers as the axes it lists (CuPy's functions take ints and tuples of ints)."""
    a = v._a
    if a.ndim == 0:
        return operator.index(v)
    if a.ndim == 1 and a.dtype.kind in "iu":
        return tuple(host(v, "axes given as a GPU array").tolist())
    return v


def _gpu_axis(args, kwargs, at):
    """The call with an axis given as a GPU array (``for axis in np.arange(3)``) read as NumPy
    reads it; None if there is none."""
    if 0 <= at < len(args):
        if type(args[at]) is ndarray:
            return (*args[:at], _axis_read(args[at]), *args[at + 1:]), kwargs
    elif kwargs and type(kwargs.get("axis")) is ndarray:
        return args, {**kwargs, "axis": _axis_read(kwargs["axis"])}
    return None


def _into_host(outs, r, name):
    """A GPU computation's result(s) ``r`` copied into the NumPy ``out=`` array(s) (counted)."""
    for o, v in zip(outs, r if type(r) is tuple else (r,)):
        if o is not None:
            o[...] = host(v, f"out= of a NumPy array ({name})") if type(v) is ndarray else v


_FILLS = frozenset({"xpshim.full", "xpshim.full_like"})
# Functions that read dtypes and values, no array data: NumPy's unless given a GPU array
_DTYPE_READERS = frozenset({"xpshim.can_cast", "xpshim.result_type", "xpshim.min_scalar_type"})
# Functions whose answer is their first argument sliced, in its own type (a list stays a list)
_SLICES_INPUT = frozenset({"xpshim.trim_zeros"})


def _host_class(x):
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
        return type(v)(arraylike(x) if type(x) not in _NUMBERS else _transfer.to_device(numpy.asarray(x), "array-like argument")
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
    if (name in _INDEX_PARAMS and fname not in _EMPTY_IS_FLOAT) or name in _INDEX_PARAMS_OF.get(fname, ()):
        return _indices
    return _seq if name in SEQUENCE_PARAMS else arraylike


def _indices(v):
    """An array-like parameter NumPy reads as indices: an empty list there means "no indices"
    (intp; np.take(a, []), np.delete(a, [])), where elsewhere it is an empty float64 array."""
    if (type(v) is list or type(v) is tuple) and not v:
        return _transfer.to_device(v, "array-like argument", dtype=numpy.intp)
    return arraylike(v)


# Parameters NumPy reads as indices (an empty list is intp there), and functions that read
# another one so (bincount's x: counts of non-negative ints)
_INDEX_PARAMS = frozenset({"indices", "ind", "obj"})
_INDEX_PARAMS_OF = {"xpshim.bincount": frozenset({"x"}), "xpshim.ix_": frozenset({"args"})}
_EMPTY_IS_FLOAT = frozenset({"xpshim.unravel_index"})  # (NumPy raises: "the provided empty sequence was inferred as float")


def _array_or_number(v):
    """One of several arrays NumPy documents as array_like (``broadcast_arrays(x, 2)``): a number
    too is the 0-d array NumPy makes of it (CuPy's broadcast passes numbers through unbroadcast)."""
    if type(v) in _NUMBERS:
        return _transfer.to_device(numpy.asarray(v), "a number as an array argument")
    return arraylike(v)


def gpu_args(args, kwargs, spec):
    """Arguments in CuPy's terms: GPU arrays unwrapped, host arrays and lists at
    array-like parameters copied over (counted)."""
    pos, names, var = spec[0], spec[1], spec[2]
    a = list(args)
    if len(spec) > 3 and spec[3] and a and type(a[0]) in _NUMBERS:
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
        elif t is list or t is tuple or (var is _array_or_number and t in _NUMBERS):
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


def _kwargs_gap(cpf, kwargs):
    if not kwargs:
        return ()
    bad = _signatures.unsupported(cpf, kwargs)
    return tuple(k for k in bad if NO_OP_KWARGS.get(k, _MISSING) is not kwargs[k])


def resolve_path(mod, path):
    for part in path.split("."):
        mod = getattr(mod, part, None)
        if mod is None:
            return None
    return mod


class Route:
    """One routed NumPy callable: its NumPy function and where CuPy's is."""

    __slots__ = ("name", "npf", "cupy_path", "spec", "_cpf", "_xp", "_accepts", "_gap", "edge", "dtype_at",
                 "axis_at", "writes", "named", "out_at", "positional", "as_tuple", "plain_result",
                 "by_name", "fills")

    def __init__(self, name, npf, cupy_path):
        self.name, self.npf, self.cupy_path = name, npf, cupy_path
        pos, names, var = array_like_params(npf, name)
        # (a number at position 0 becomes a 0-d array, except where it is read by value)
        self.spec = (pos, names, var, bool(pos) and pos[0][0] == 0 and name.rsplit(".", 1)[-1] not in _BY_VALUE)
        self.dtype_at = _dtype_position(npf)
        self.axis_at = _dtype_position(npf, "axis")
        self.out_at = _dtype_position(npf, "out")
        if self.out_at == -1:
            self.out_at = None  # (keyword only)
        self.positional = _positional(npf) if self.out_at is not None else ()
        self.writes = name.rsplit(".", 1)[-1] in WRITES_INTO  # (into its first argument)
        self.edge = _edges.TABLE.get(name)  # NumPy's answer where CuPy's differs on an edge case
        # NumPy's namedtuple class of its answer (unique_all), or None (an edge case handler decides)
        self.named = _named_result(npf) if self.edge is None else None
        self.as_tuple = _docparams.answers_tuple(npf)  # (CuPy's atleast_1d answers a list there)
        self.plain_result = self.named is None and not self.as_tuple  # (tupled() would hand r back as is)
        # (gpu()'s checks by name, answered once: most names have none)
        self.by_name = name in _DTYPE_READERS or name in _SLICES_INPUT
        self.fills = name in _FILLS
        self._cpf = self._xp = self._accepts = None
        self._gap = _MISSING

    @property
    def cpf(self):
        xp = _backend.xp
        if self._xp is not xp:  # resolved per backend module (tests swap in a stand-in)
            self._cpf = resolve_path(xp, self.cupy_path) if self.cupy_path else None
            if self._cpf is not None and self.gap is not None and self.gap.replaces:
                self._cpf = None  # the gap table's version is used instead
            self._accepts = _signatures.accepted(self._cpf) if self._cpf is not None else None
            self._cpf = _exact.wrap(self.cupy_path, self._cpf)  # NumPy's formula where CuPy's loop differs
            self._xp = xp
        return self._cpf

    @property
    def gap(self):
        if self._gap is _MISSING:
            self._gap = _gaps.lookup(self.name)
        return self._gap

    def filled(self, args, kwargs, why):
        """Run the registered gap implementation, or the host fallback (with why)."""
        g = self.gap
        if g is not None and g.covers(kwargs, self._accepts or frozenset()):
            a, kw = gpu_args(args, kwargs, self.spec)
            try:
                r = call_gpu(g.fn, a, kw)
            except _gaps.Decline as e:
                why = f"{why}, and xpshim's GPU version does not cover this case ({e})"
            else:
                return self.tupled(_result(r, args, kwargs))
        return _fallback.run(self.name, self.npf, args, kwargs, why)

    def gpu(self, args, kwargs):
        if self.out_at is not None and len(args) > self.out_at:  # out given by position: by keyword
            args, kwargs = self.by_keyword(args, kwargs)
        if kwargs and type(kwargs.get("out")) is tuple and len(kwargs["out"]) == 1:
            kwargs = {**kwargs, "out": kwargs["out"][0]}  # (a ufunc's out=(a,): np.clip reached as a ufunc)
        if self.by_name:
            if self.name in _DTYPE_READERS and locate(args, kwargs) != "gpu":
                return self.npf(*args, **kwargs)  # dtypes and numbers read (np.can_cast([('f1', 'i4')], 'i4'))
            if self.name in _SLICES_INPUT and args and (type(args[0]) is list or type(args[0]) is tuple):
                return self.npf(*args, **kwargs)  # NumPy answers a slice of the list itself (no array)
        if self.writes and args and type(args[0]) is numpy.ndarray:  # (the write must land in it)
            return self._on_host(args, kwargs, f"{self.name} into a NumPy array")
        at = self.axis_at
        if at is not None and ((0 <= at < len(args) and type(args[at]) is ndarray) or
                               (kwargs and type(kwargs.get("axis")) is ndarray)):
            args, kwargs = _gpu_axis(args, kwargs, at) or (args, kwargs)
        for x in (*args, *kwargs.values()) if kwargs else args:  # a NumPy array of object, strings, ...
            if type(x) in _NO_HOST_FORM:
                continue  # (xpshim's arrays, numbers, None: none of the cases below; checked in one step)
            if (type(x) is numpy.ndarray or isinstance(x, numpy.generic)) and host_only_dtype(x.dtype):
                return self._on_host(args, kwargs, f"{self.name} of a {x.dtype} array (no GPU form)")
            c = _host_class(x)
            if c is not None:
                # np.matrix, a masked array, a user's subclass, np.poly1d (alone or in a list beside
                # GPU arrays: np.concatenate([masked, gpu])): NumPy's call keeps its class
                why = f"{self.name} of a {c.__name__} (no GPU form)"
                if locate(args, kwargs) == "gpu":
                    return _fallback.run(self.name, self.npf, args, kwargs, why)  # (counted, warned)
                a, kw = to_host_args(args, kwargs, why)
                return self.npf(*a, **kw)
            if _array_like(x):  # an object whose __array__ gives NumPy's array: read as NumPy reads it
                return self.gpu(*_array_likes(args, kwargs))
        if self.dtype_at is not None:
            dt = kwargs.get("dtype") if "dtype" in kwargs else (
                args[self.dtype_at] if 0 <= self.dtype_at < len(args) else None)
            if dt is None and self.fills:  # np.full(shape, None): an object array
                v = args[1] if len(args) > 1 else kwargs.get("fill_value")
                if v is None or type(v) is str or type(v) is bytes:
                    dt = object
            if dt is not None and host_only_dtype(dt):
                # object, string, datetime, structured: no GPU form; NumPy makes it on the host
                # (GPU arguments copied there, counted), as np.array(..., dtype=object) does
                return self._on_host(args, kwargs, f"{self.name} with dtype {numpy.dtype(dt)} (no GPU form)")
        out = kwargs.get("out") if kwargs else None
        if type(out) is numpy.ndarray:  # a NumPy out= with GPU inputs: the result is copied into it
            _into_host((out,), self.gpu(args, {k: v for k, v in kwargs.items() if k != "out"}), self.name)
            return out
        cpf = self._cpf if self._xp is _backend.xp else self.cpf  # (the property resolves it per backend)
        if cpf is None:
            g = self.gap
            return self.filled(args, kwargs, f"CuPy's {self.cupy_path} is not NumPy's" if g is not None and g.replaces
                               else f"CuPy has no {self.cupy_path or self.name}")
        if kwargs:
            g = self._gap  # (looked up by cpf already, as a rule: the property's frame spared)
            if g is _MISSING:
                g = self.gap
            if g is not None and g.claims(kwargs):
                return self.filled(args, kwargs, f"CuPy's {self.cupy_path} does not do {', '.join(sorted(g.kwargs & kwargs.keys()))}")
        if kwargs and self._accepts is not None and not kwargs.keys() <= self._accepts:
            gap = _kwargs_gap(cpf, kwargs)
            if gap:
                return self.filled(args, kwargs, f"CuPy's {self.cupy_path} takes no {', '.join(map(repr, gap))} argument")
        a, kw = gpu_args(args, kwargs, self.spec)
        if a and type(a[0]) is list and self.spec[3] and self.spec[0][0][1] is arraylike:
            # a list at the array parameter that is not numeric data ([None], strings): NumPy's call
            return self._on_host(args, kwargs, f"{self.name} of a list of Python objects (no GPU form)")
        r, refused = _edges.PASS, None
        try:
            if self.edge is not None:
                r = self.edge(a, kw)
        except _REFUSALS as e:
            # (an edge's own raise is NumPy's error: kept; where the edge found the call one NumPy
            # refuses (_edges.Refused), or CuPy's function it called refused it, NumPy's call below
            # says what NumPy does)
            if _calls_back(args, kwargs) or not (isinstance(e, _edges.Refused) or _raised_outside(e)):
                raise
            refused = e
        if r is _edges.PASS and refused is None:
            try:
                r = cpf(*a, **kw)  # (call_gpu's work, inline)
            except _REFUSALS as e:
                if _calls_back(args, kwargs):
                    raise  # (a user's function that raised is not called again)
                refused = e
            except _backend.xp.cuda.memory.OutOfMemoryError as e:
                raise out_of_memory(cpf, e) from e
        if refused is not None:
            # CuPy's function refused the call: it reads arrays only (``a.dot(b)``, ``isinstance(x,
            # cupy.ndarray)``), checks otherwise (an empty q as out of range, a 2-d q) or words its
            # error otherwise; or an edge found the call one NumPy refuses. NumPy's answer on the
            # host, counted and warned; where NumPy refuses the call, NumPy's error (its class and
            # message), unwarned
            return _fallback.run(self.name, self.npf, args, kwargs,
                                 f"CuPy's {self.cupy_path} refused the call ({type(refused).__name__}: "
                                 f"{str(refused)[:80]})", errors_unannounced=True)
        r = _result(r, args, kwargs)
        return r if self.plain_result else self.tupled(r)

    def by_keyword(self, args, kwargs):
        """The call with ``out`` and the arguments after it given by keyword (so the answer is
        ``out`` itself, as NumPy's is: ``r = np.sum(x, None, None, o); r is o``)."""
        at = self.out_at
        named = dict(zip(self.positional[at:], args[at:]))
        return args[:at], {**kwargs, **named}

    def tupled(self, r):
        """A plain tuple from CuPy as NumPy's named tuple (``unique_all(x).values``), and CuPy's list
        as a tuple where NumPy answers one (``atleast_1d(a, b)``, ``broadcast_arrays``)."""
        if type(r) is list and self.as_tuple:
            return tuple(r)
        return self.named(*r) if self.named is not None and type(r) is tuple and len(r) == len(self.named._fields) else r

    def _on_host(self, args, kwargs, reason):
        """NumPy's function on host copies (counted); a GPU out= gets the answer copied in."""
        out = kwargs.get("out") if kwargs else None
        if type(out) is ndarray:
            r = self._on_host(args, {k: v for k, v in kwargs.items() if k != "out"}, reason)
            out._a[...] = _transfer.to_device(r, f"out= of {self.name}")
            return out
        a, kw = to_host_args(args, kwargs, reason)
        return self.npf(*a, **kw)

    def cpu(self, args, kwargs):
        if _backend.live and locate(args, kwargs) == "gpu":
            args, kwargs = to_host_args(args, kwargs, "GPU array to a CPU-device call")
        return self.npf(*args, **kwargs)


_HOST_ARRAY = numpy.ndarray
_HOST_OPERAND = frozenset({numpy.ndarray, int, float, complex, bool})
_PLAIN_KW = frozenset({int, float, bool, str, type(None)})  # keyword values that hold no array (axis=0)
_PLAIN_ARG = _PLAIN_KW | {complex, type}  # (and dtypes: np.zeros(5, np.float32), np.full(3, 1j))
# Functions whose first argument is the shape of what they make (a small int: NumPy's, in auto mode)
SHAPE_FIRST = frozenset({"xpshim.zeros", "xpshim.ones", "xpshim.empty", "xpshim.full"})
# NumPy's scalar types: a ufunc of these (and numbers) is NumPy's, as a loop's np.sqrt(s) is
_NUMPY_SCALARS = frozenset(numpy.dtype(c).type for c in "?bhilqpBHILQPefdgFDG")
# Functions whose number at position 0 stays a number: read by value, or an int that is a length
# (isclose: a Python number beside an array is weak, NEP 50; _edges._isclose reads it so)
# (real, imag: NumPy answers val.real, a Python number's own)
_BY_VALUE = frozenset({"min_scalar_type", "can_cast", "result_type", "permutation", "choice", "isclose", "real", "imag"})
_NUMBERS = _NUMPY_SCALARS - {numpy.longdouble, numpy.clongdouble} | {int, float, complex, bool}
# What CuPy's functions raise where they refuse a call NumPy may take (what is not a CuPy array, a
# check of their own, a C integer's range); not CUDA's errors, nor running out of memory
_REFUSALS = (TypeError, ValueError, AttributeError, IndexError, NotImplementedError, OverflowError)


def numbers_alone(args, kwargs):
    """True when the arguments hold numbers (Python's or NumPy's scalars) and nothing else but
    dtypes, strings and None (np.isclose(1.0, 2.0), np.sqrt(2.0), np.astype(s, np.float32)):
    NumPy's answer is a NumPy scalar, on either device, which no GPU makes faster."""
    number = False
    for a in args:
        if type(a) in _NUMBERS or isinstance(a, numpy.generic):
            number = True
        elif a is not None and type(a) is not str and not isinstance(a, (numpy.dtype, type)):
            return False
    if not number:
        return False
    if kwargs:
        for v in kwargs.values():
            if v is not None and type(v) not in _NUMBERS and type(v) is not str and \
                    not isinstance(v, (numpy.generic, numpy.dtype, type)):
                return False
    return True


def _numbers_result(r):
    """NumPy's result of a call on numbers alone, on the GPU device: its scalars as they are, an
    array (np.atleast_1d(3), np.where(True, 1, 2)) on the device (counted)."""
    if type(r) is numpy.ndarray and not host_only_dtype(r.dtype):
        return wrap(_transfer.to_device(r, "a result of numbers alone"))
    if type(r) is tuple or type(r) is list:
        return type(r)(map(_numbers_result, r))
    return r


def _raised_outside(e):
    """Whether ``e`` was raised outside xpshim's own code: by CuPy's function (or the simulated
    GPU's stand-in for it) or NumPy's, not by an edge's check."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    module = tb.tb_frame.f_globals.get("__name__", "")
    return not module.startswith("xpshim.") or module.startswith("xpshim._simgpu")


def _calls_back(args, kwargs):
    """Whether a function of the user's is among the arguments (one level into lists)."""
    return any(callable(x) and not isinstance(x, type) or (type(x) is list or type(x) is tuple) and
               any(callable(v) and not isinstance(v, type) for v in x)
               for x in (*args, *(kwargs.values() if kwargs else ())))


def follow_like(f, npf, args, kwargs):
    """NumPy's ``like=`` (np.zeros(3, like=a)): the array is made where ``like``'s type makes
    arrays: on the GPU for a GPU array (xpshim's or CuPy's, whose functions take no ``like``), a
    NumPy array for a NumPy array; any other type keeps NumPy's own dispatch to it."""
    kwargs = dict(kwargs)
    like = kwargs.pop("like")
    if like is None:
        return f(*args, **kwargs)
    if type(like) is ndarray or _backend.is_raw_gpu_array(like):
        where = "gpu"
    elif type(like) is numpy.ndarray:
        where = "cpu"
    else:
        return npf(*args, like=like, **kwargs)
    with _device.device(where):
        return f(*args, **kwargs)


def _takes_like(npf):
    try:
        return "like" in inspect.signature(npf).parameters
    except (TypeError, ValueError):
        return False


def function(modname, name, npf, cupy_path, creation=False):
    """The xpshim wrapper for one NumPy function."""
    route = Route(f"{modname}.{name}", npf, cupy_path)
    takes_like = _takes_like(npf)
    # the array API's device= (np.zeros(3, device=x.device)): read by xpshim (_arrayapi), CuPy takes none
    takes_device = _dtype_position(npf, "device") is not None

    if creation:
        def wrapper(*args, **kwargs):
            if kwargs and takes_device and "device" in kwargs:
                return _arrayapi.on_device(wrapper, args, kwargs)
            if takes_like and "like" in kwargs:
                return follow_like(wrapper, npf, args, kwargs)
            if not _backend.live or _device.current_device() == "cpu":
                return route.cpu(args, kwargs)
            return route.gpu(args, kwargs)
    else:
        grows = route.name in _placement.GROWS
        host_array, plain_kw, host_operand, plain_arg = numpy.ndarray, _PLAIN_KW, _HOST_OPERAND, _PLAIN_ARG  # (closure cells: fast)
        shape_first = route.name in SHAPE_FIRST
        scalar_answer = route.name not in _placement.MAKERS  # (numbers alone: NumPy's scalar)
        # NumPy's function without its own __array_function__ check, for arguments that are plain
        # NumPy arrays and numbers only (nothing there can override it): that check costs about
        # as much as ours; for np.roll and np.linalg.norm, NumPy's steps without its argument
        # handling (_hostfast)
        plain_npf = _hostfast.fast(route.name, getattr(npf, "_implementation", npf))

        def wrapper(*args, **kwargs):
            if kwargs and takes_device and "device" in kwargs:
                return _arrayapi.on_device(wrapper, args, kwargs)
            # The common cases first, in as few steps as can be (a loop over small arrays pays
            # for each one: 0.2-0.4 us a call was 5-15% of rk4_oscillators): plain NumPy arrays,
            # numbers and plain keywords (axis=0) call NumPy's implementation, and a small shape
            # in auto mode makes NumPy's array, without a call to locate.
            if args and not grows:
                a0 = args[0]
                t = type(a0)
                host = False
                if t is host_array:  # np.linalg.norm(w), np.dot(a, b), np.roll(x, 1)
                    host = len(args) == 1 or (len(args) == 2 and type(args[1]) in host_operand)
                elif shape_first:
                    # np.zeros(5), np.ones((3, 3)) in auto mode: a small array is NumPy's (as
                    # placement's arrayless would say, sooner)
                    n = a0 if t is int else _placement.small_shape(a0) if t is tuple else None
                    if n is not None and n < _placement.limit and _device.placing():
                        for v in args[1:] if len(args) > 1 else ():
                            if type(v) not in plain_arg and not isinstance(v, numpy.dtype):
                                break
                        else:
                            for v in kwargs.values():
                                if type(v) not in plain_arg and not isinstance(v, numpy.dtype):
                                    break
                            else:
                                return npf(*args, **kwargs)
                elif t is tuple or t is list:  # np.concatenate((v, w)), np.stack([a, b])
                    if len(args) == 1 and a0:
                        host = True
                        for b in a0:
                            if type(b) is not host_array:
                                host = False
                                break
                if host:
                    if kwargs:
                        for v in kwargs.values():
                            if type(v) not in plain_kw:
                                break
                        else:
                            r = plain_npf(*args, **kwargs)
                            if type(r) is host_array and r.size >= _placement.limit:
                                p = _placement.promote(r, args, kwargs)
                                return p if p is r else wrap(p)
                            return r
                    else:
                        r = plain_npf(*args)
                        if type(r) is host_array and r.size >= _placement.limit:
                            p = _placement.promote(r, args, kwargs)
                            return p if p is r else wrap(p)
                        return r
            if takes_like and "like" in kwargs:
                return follow_like(wrapper, npf, args, kwargs)
            if not _backend.live:
                return npf(*args, **kwargs)
            loc = None
            if args and grows:  # (the same cases, for names whose result may outgrow the inputs)
                a0 = args[0]
                t = type(a0)
                if t is host_array:
                    if len(args) == 1 or (len(args) == 2 and type(args[1]) in host_operand):
                        loc = "cpu"
                elif (t is tuple or t is list) and len(args) == 1 and a0:
                    for b in a0:
                        if type(b) is not host_array:
                            break
                    else:
                        loc = "cpu"
                if loc is not None and kwargs:
                    for v in kwargs.values():
                        if type(v) not in plain_kw:
                            loc = None
                            break
            if loc is None:
                # (a GPU array first, its data on the device: locate's answer at its first step)
                loc = "gpu" if args and type(args[0]) is ndarray and not args[0]._st.host else locate(args, kwargs)
            if loc == "cpu":
                if grows and _device.placing() and _placement.grows(route.name, args, kwargs):
                    return route.gpu(args, kwargs)  # a result past the crossover from small inputs
                r = npf(*args, **kwargs)
                if type(r) is host_array and r.size >= _placement.limit:
                    p = _placement.promote(r, args, kwargs)
                    return p if p is r else wrap(p)
                return r
            if loc is None:
                loc = _device.current_device()
                if loc == "cpu":
                    return npf(*args, **kwargs)
                if _device.placing():
                    r = _placement.arrayless(route, args, kwargs)
                    return wrap(r) if _backend.is_raw_gpu_array(r) else r
                if scalar_answer and numbers_alone(args, kwargs):
                    return _numbers_result(npf(*args, **kwargs))
            return route.gpu(args, kwargs)

    return _describe(functools.update_wrapper(wrapper, npf, assigned=(), updated=()), modname, name, npf,
                     _where(cupy_path))


# ------------------------------------------------------------------ ufuncs

class ufunc(functools.partial):
    """A NumPy ufunc that runs on the device of its inputs.

    Calls, ``reduce``, ``accumulate``, ``outer``, ``at`` and ``reduceat`` run on
    CuPy for GPU inputs where CuPy has them (reductions map to the equivalent
    CuPy reduction), else on the host (a counted, warned fallback). Every
    attribute (``nin``, ``types``, ``identity``, ...) is NumPy's.
    """

    # (a functools.partial: its call is C code, made NumPy's ufunc itself while no GPU array can
    # exist and ``_routed`` once one may (``_point``), so a loop of small ufunc calls on the CPU
    # pays no Python frame for xpshim: a frame is 10-15% of np.sqrt on 8 elements)
    __slots__ = ("_np", "_route", "__name__", "__qualname__", "__wrapped__")

    def __new__(cls, *args, **kwargs):
        return functools.partial.__new__(cls, args[0])  # (what it calls is set by _point)

    def __init__(self, npu, modname="xpshim"):
        self._np = npu
        self._route = Route(f"{modname}.{npu.__name__}", npu, npu.__name__)
        self.__name__ = self.__qualname__ = npu.__name__
        self.__module__ = modname
        self.__wrapped__ = npu
        self.__doc__ = f"{modname}.{npu.__name__}: a ufunc, runs cupy.{npu.__name__} on GPU arrays\n\n{npu.__doc__}"
        self._point(_backend.live)
        _UFUNCS.add(self)

    if sys.version_info >= (3, 13):
        # (functools.partial warns when bound as a method in 3.13 and binds from 3.14; NumPy's
        # ufuncs never bind: ``class T: f = np.sqrt`` keeps the ufunc itself)
        def __get__(self, obj, objtype=None):
            return self

    def _point(self, live):
        """Make a call of this ufunc call NumPy's (no GPU array can exist) or ``_routed``."""
        functools.partial.__setstate__(self, (self._routed if live else self._np, (), None, self.__dict__))

    def _routed(self, *args, **kwargs):
        if not _backend.live:
            return self._np(*args, **kwargs)
        if len(args) > 1 and len(args) > self._np.nin:  # out given by position: NumPy's out=
            nin = self._np.nin
            kwargs = {**kwargs, "out": args[nin:] if len(args) - nin > 1 else args[nin]}
            args = args[:nin]
        if not kwargs or (len(kwargs) == 1 and "out" in kwargs):  # the common cases, without a call to locate
            if not kwargs and len(args) == 1 and type(args[0]) in _NUMPY_SCALARS:  # (np.sqrt(s) in a loop)
                return self._np(args[0])
            on_host = on_gpu = False
            for x in args:
                t = type(x)
                if t is _HOST_ARRAY:
                    on_host = True
                elif t is ndarray and not x._st.host and x._d is not None:  # (x._a is x._d)
                    on_gpu = True
                elif t in _NUMPY_SCALARS:
                    on_host = True
                elif t is not float and t is not int:
                    break
            else:
                if on_gpu:
                    if not on_host:  # GPU arrays and Python numbers only (and out=, a GPU array)
                        if not kwargs:
                            return self._on_gpu(args, None)
                        out = kwargs["out"]
                        if type(out) is ndarray and not out._st.host and out._d is not None:
                            return self._on_gpu(args, out)
                elif on_host and not kwargs:  # NumPy arrays and numbers only
                    r = self._np(*args)
                    if type(r) is _HOST_ARRAY and r.size >= _placement.limit:
                        p = _placement.promote(r, args, kwargs)
                        return p if p is r else wrap(p)
                    return r
        return self._call(args, kwargs)

    def _on_gpu(self, args, out):
        """``_call``'s answer for GPU arrays whose data is on the device and Python numbers, with
        no keyword or only ``out=``, a GPU array likewise (``np.sqrt(a)``, ``np.add(a, 1.0)``,
        ``np.add(a, b, out=c)``), in fewer steps: none of its checks applies."""
        r = self._route
        cpf = r._cpf if r._xp is _backend.xp else r.cpf  # (the property resolves it per backend)
        if cpf is None:
            return r.gpu(args, {} if out is None else {"out": out})
        try:
            if out is not None:
                res = cpf(*[x._d if type(x) is ndarray else x for x in args], out=out._d)
            elif len(args) == 1:
                res = cpf(args[0]._d)
            else:
                res = cpf(*[x._d if type(x) is ndarray else x for x in args])
        except _backend.xp.cuda.memory.OutOfMemoryError as e:
            raise out_of_memory(cpf, e) from e
        res = fresh(res, args)
        return res if out is None else out  # (NumPy answers with out= itself)

    def _call(self, args, kwargs):
        loc = locate(args, kwargs)
        if loc is None:  # scalars and lists: small; numbers alone, NumPy's scalar on either device
            loc = "cpu" if _device.placing() or numbers_alone(args, kwargs) else _device.current_device()
        if loc == "cpu":
            r = self._np(*args, **kwargs)
            if type(r) is numpy.ndarray and r.size >= _placement.limit:
                p = _placement.promote(r, args, kwargs)
                return p if p is r else wrap(p)
            return r
        r = self._route
        for x in args:  # a NumPy longdouble, object, ... operand: no GPU form, NumPy's loop
            if type(x) is ndarray:
                continue
            if (type(x) is numpy.ndarray or isinstance(x, numpy.generic)) and host_only_dtype(x.dtype):
                a, kw = to_host_args(args, kwargs, f"{r.name} of a {x.dtype} operand (no GPU form)")
                return self._np(*a, **kw)
            if _host_class(x) is not None or _array_like(x) or _interface_like(x):
                return self._not_arrays(args, kwargs)
        cpf = r.cpf
        if cpf is None:  # (the gap table's version, or the host: through the function route, which
            return r.gpu(args, kwargs)  # also takes a host out= and a ufunc's out=(a,))
        if not kwargs:
            return fresh(call_gpu(cpf, [x._a if type(x) is ndarray else arraylike(x) for x in args], kwargs), args)
        out = kwargs.get("out")
        if type(out) is tuple and len(out) == 1:
            kwargs = dict(kwargs, out=out[0])
        outs = out if type(out) is tuple else (out,)
        if any(type(o) is numpy.ndarray for o in outs):
            # a host out= (NumPy's in-place operators on a NumPy array with a GPU operand): the
            # GPU result is copied into it (counted), so the write lands where NumPy puts it
            _into_host(outs, self(*args, **{k: v for k, v in kwargs.items() if k != "out"}), r.name)
            return out[0] if type(out) is tuple and len(out) == 1 else out
        gap = [k for k in kwargs if k not in _signatures.UFUNC_KWARGS and NO_OP_KWARGS.get(k, _MISSING) is not kwargs[k]]
        if gap:
            return _fallback.run(r.name, self._np, args, kwargs,
                                 f"CuPy's ufuncs take no {', '.join(map(repr, gap))} argument")
        a = [arraylike(x) for x in args]
        kw = {k: tuple(map(dev, v)) if k == "out" and type(v) is tuple else dev(v) for k, v in kwargs.items()}
        res = fresh(call_gpu(cpf, a, kw), args)
        if out is not None:
            return out if type(out) is not tuple or len(out) != 1 else out[0]
        return res

    def _not_arrays(self, args, kwargs):
        """A ufunc given a NumPy subclass instance (a masked array, a matrix, a user's subclass) or
        an array-like object (``__array__``), which CuPy's ufuncs refuse: NumPy's call for the
        subclass (its class kept; GPU operands copied over, counted and warned), the NumPy array
        an array-like object gives for it."""
        c = next(type(x) for x in args if _host_class(x) is not None or _array_like(x) or _interface_like(x))
        # (NumPy's call, as the functions' route runs it for subclasses: __array_wrap__ keeps the
        # class, pandas' objects survive a ufunc so)
        why = f"{self._route.name} of a {c.__name__} (no GPU form)"
        if locate(args, kwargs) == "gpu":
            return _fallback.run(self._route.name, self._np, args, kwargs, why)
        a, kw = to_host_args(args, kwargs, why)
        return self._np(*a, **kw)

    def _method(self, method, table, args, kwargs):
        npm = getattr(self._np, method)
        if not _backend.live:
            return npm(*args, **kwargs)
        loc = locate(args, kwargs)
        if loc is None:
            loc = "cpu" if _device.placing() else _device.current_device()
        if loc == "cpu":
            r = npm(*args, **kwargs)
            if type(r) is numpy.ndarray and r.size >= _placement.limit:  # (outer grows)
                p = _placement.promote(r, args, kwargs)
                return p if p is r else wrap(p)
            return r
        name = f"{self._route.name}.{method}"
        via = table.get(self.__name__) if table else None
        if via is not None and len(args) == 1:
            f = getattr(_backend.xp, via)
            kw = dict(kwargs)
            kw.setdefault("axis", 0)  # ufunc.reduce and .accumulate default to axis 0
            if not _kwargs_gap(f, kw):
                return wrap(call_gpu(f, [arraylike(args[0])], {k: dev(v) for k, v in kw.items()}))
        if method == "at" and len(args) >= 2:
            # at(a, indices, b): a tuple of indices is one per axis, not an array
            ind = args[1]
            ind = tuple(_indices(v) if type(v) is list else dev(v) for v in ind) if type(ind) is tuple else _indices(ind)
            conv = [dev(args[0]), ind, *(arraylike(x) for x in args[2:])]
        else:
            conv = None
        if method == "outer" or (method == "at" and self.__name__ == "add" and len(args) >= 1
                                 and getattr(args[0], "dtype", None) in _ADD_AT_DTYPES):
            cm = getattr(self._route.cpf, method, None)
            if cm is not None and not kwargs:
                return wrap(call_gpu(cm, conv or [arraylike(x) for x in args], {}))
        why = f"CuPy has no {self.__name__}.{method}"
        g = _gaps.lookup(name)
        pre = ()
        if g is None:
            g, pre = _gaps.lookup(f"ufunc.{method}"), (self._np,)
        if g is not None and g.covers(kwargs):
            a = conv or [arraylike(x) for x in args]
            kw = {k: dev(v) for k, v in kwargs.items()}
            try:
                r = call_gpu(g.fn, [*pre, *a], kw)
            except _gaps.Decline as e:
                why = f"{why}, and xpshim's GPU version does not cover this case ({e})"
            else:
                return _result(r, args, kwargs)
        return _fallback.run(name, npm, args, kwargs, why, writeback_first=(method == "at"))

    def reduce(self, *args, **kwargs):
        from ._registry import UFUNC_REDUCE
        return self._method("reduce", UFUNC_REDUCE, args, kwargs)

    def accumulate(self, *args, **kwargs):
        from ._registry import UFUNC_ACCUMULATE
        return self._method("accumulate", UFUNC_ACCUMULATE, args, kwargs)

    def reduceat(self, *args, **kwargs):
        return self._method("reduceat", None, args, kwargs)

    def outer(self, *args, **kwargs):
        return self._method("outer", None, args, kwargs)

    def at(self, *args, **kwargs):
        return self._method("at", None, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._np, name)

    def __repr__(self):
        return f"<xpshim ufunc '{self.__name__}'>"

    def __reduce__(self):
        return self.__name__  # pickled by name, like NumPy's ufuncs

    def __eq__(self, other):
        return other is self or other is self._np

    def __hash__(self):
        return hash(self._np)


_UFUNCS = weakref.WeakSet()  # every xpshim ufunc, pointed anew when _backend.live changes


@_backend.on_change
def _point_all():
    """While no GPU array can exist, xpshim's ufuncs call NumPy's directly (a Python frame per
    call is 10-15% of a small ufunc's time); once the GPU is live, they route."""
    for u in list(_UFUNCS):
        u._point(_backend.live)


# CuPy's add.at (a scatter-add with atomics) takes these dtypes; its other ufunc.at
# methods take fewer (subtract.at: int32 and uint32 only), so those, and add.at on
# other dtypes, run as xpshim's kernel (_gaps.ufuncs.at), in NumPy's order.
_ADD_AT_DTYPES = frozenset(map(numpy.dtype, ("float16", "float32", "float64", "int32", "uint32", "uint64")))


# ------------------------------------------------------------------ methods

def method(name):
    """An ndarray method for GPU arrays: CuPy's method if it has one that takes
    the given keywords, else NumPy's on a host copy (counted, warned)."""
    npm = getattr(numpy.ndarray, name)
    arrays = METHOD_ARRAY_ARGS.get(name, {})
    sorts = name in _SORTS

    def m(self, *args, **kwargs):
        # (self._a, a frame less where it is self._d; no local holds the device array: x.resize
        # counts its references)
        cm = getattr(self._a if self._d is None or self._st.host else self._d, name, None)
        if cm is None:
            return _fallback.run_method(self, name, args, kwargs, f"cupy.ndarray has no {name}()")
        if sorts:
            args, kwargs = _stable_sort(args, kwargs)
        if not kwargs and not arrays:
            for x in args:
                if type(x) is ndarray or type(x) is numpy.ndarray:
                    return wrap(call_gpu(cm, [dev(x) for x in args], kwargs))
            try:  # (call_gpu's work, inline)
                r = cm(*args)
            except _backend.xp.cuda.memory.OutOfMemoryError as e:
                raise out_of_memory(cm, e) from e
            return wrap(r)
        gap = _kwargs_gap(getattr(type(self._a), name), kwargs)
        if gap:
            return _fallback.run_method(self, name, args, kwargs,
                                        f"cupy.ndarray.{name}() takes no {', '.join(map(repr, gap))} argument")
        out = kwargs.get("out")
        if type(out) is numpy.ndarray:  # a host out= (NumPy's test of clip: choose(..., out=ac)): copied in
            _into_host((out,), m(self, *args, **{k: v for k, v in kwargs.items() if k != "out"}), f"ndarray.{name}")
            return out
        if arrays:
            at = {i: converter(k) for k, i in arrays.items()}
            args = [at[i](x) if i in at else dev(x) for i, x in enumerate(args)]
            kwargs = {k: converter(k)(v) if k in arrays else dev(v) for k, v in kwargs.items()}
        else:
            args = [dev(x) for x in args]
            kwargs = {k: dev(v) for k, v in kwargs.items()} if kwargs else kwargs
        r = call_gpu(cm, args, kwargs)
        return out if type(out) is ndarray and r is out._a else wrap(r)  # as NumPy: out= itself

    if name == "astype":
        m = _astype(m)
    m.__name__ = m.__qualname__ = name
    m.__qualname__ = f"ndarray.{name}"
    m.__module__ = "xpshim"
    m.__wrapped__ = npm
    m.__doc__ = f"ndarray.{name} on the GPU (cupy.ndarray.{name}; NumPy's on a host copy where CuPy lacks it)\n\n{npm.__doc__}"
    return m


def _astype(routed):
    """astype: to a dtype with no GPU form, a NumPy array (as np.array makes), else ``routed``."""
    def astype(self, *args, **kwargs):
        dt = args[0] if args else kwargs.get("dtype")
        if dt is not None and host_only_dtype(dt):
            return host(self, f"astype({numpy.dtype(dt)}) (no GPU form)").astype(*args, **kwargs)
        return routed(self, *args, **kwargs)
    return astype


def install_methods():
    """Give xpshim.ndarray every public numpy.ndarray method it does not define itself."""
    for name in dir(numpy.ndarray):
        if name.startswith("_") or name in ndarray.__dict__:
            continue
        if callable(getattr(numpy.ndarray, name)):
            setattr(ndarray, name, method(name))


install_methods()


# ------------------------------------------------------------------ objects

_PLAIN = frozenset({ndarray, numpy.ndarray, int, float, complex, bool, str, list, tuple, type(None), slice,
                    *_NUMPY_SCALARS})
# Argument types that are none of what Route.gpu sends to the host (a host-only dtype, a NumPy
# subclass, poly1d, an object with __array__): xpshim's arrays, Python's numbers, strings, None,
# classes (dtype=np.float32)
_NO_HOST_FORM = frozenset({ndarray, int, float, complex, bool, str, type(None), type})


def _array_like(x):
    """An object NumPy reads through its ``__array__`` (not an array, a scalar, nor GPU data that
    CuPy reads in place through ``__cuda_array_interface__``)."""
    t = type(x)
    return t not in _PLAIN and hasattr(t, "__array__") and not hasattr(t, "__cuda_array_interface__") and \
        not isinstance(x, (numpy.generic, numpy.ndarray, ndarray))


def _interface_like(x):
    """An object NumPy reads through ``__array_interface__`` or ``__array_struct__`` (not GPU data)."""
    t = type(x)
    return t not in _PLAIN and (hasattr(t, "__array_interface__") or hasattr(t, "__array_struct__")) and \
        not hasattr(t, "__cuda_array_interface__") and not isinstance(x, (numpy.generic, numpy.ndarray, ndarray))


def _stable_sort(args, kwargs):
    """``x.sort``/``x.argsort``'s ``(axis, kind, order)`` and ``stable=`` as CuPy's method takes them:
    CuPy's sort is always stable and takes kind=None or "stable" only, so NumPy's kinds (checked as
    NumPy checks them) become the stable sort, as in xpshim's functions (_gaps.compose's sorting;
    NumPy's own insert asks for kind="mergesort")."""
    # https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/core.pyx (ndarray.sort: only "stable")
    kwargs = dict(kwargs)
    stable = kwargs.pop("stable", None)
    if len(args) > 1:
        kind, args = args[1], args[:1] + args[2:]
        if len(args) > 1:
            kwargs["order"], args = args[1], args[:1]
    else:
        kind = kwargs.pop("kind", None)
    if kind is not None:
        if stable is not None:
            raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                             "Use only one of them.")
        numpy.empty(0).sort(kind=kind)  # (NumPy's error for a kind it does not know)
    return args, kwargs


def _array_likes(args, kwargs):
    """The call's arguments with array-like objects (``__array__``) as the NumPy arrays they give."""
    def conv(x):
        if not _array_like(x):
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


def _result(r, args, kwargs):
    """CuPy's result as NumPy gives it: the out= array itself, or the input itself where the
    function answered with it (nan_to_num(x, copy=False)), else a new xpshim array."""
    out = kwargs.get("out") if kwargs else None
    if type(out) is ndarray and _is_out(r, out._a):
        return out
    if args:
        x = args[0]
        if type(x) is ndarray and r is (x._a if x._d is None or x._st.host else x._d):  # (x._a, a frame less)
            return x
    elif kwargs:  # (the input given by keyword: nan_to_num(x=a, copy=False))
        for v in kwargs.values():
            if type(v) is ndarray and r is v._a:
                return v
    return fresh(r, args)


def _is_out(r, o):
    """Whether CuPy's result is the out= array: itself, or a view of all of it (CuPy's
    percentile with keepdims=True writes into out= and returns it reshaped)."""
    return r is o or (type(r) is type(o) and r.size == o.size and r.dtype == o.dtype and r.data.ptr == o.data.ptr)


def _sizes(args):
    """Shapes given as tuples that hold 0-d GPU integers (``rng.random(tuple(hi - lo))``) as
    Python ints, which NumPy reads through __index__ and CuPy's methods do not."""
    if not any(type(x) is tuple and any(type(v) is ndarray for v in x) for x in args):
        return args
    return tuple(tuple(operator.index(v) if type(v) is ndarray else v for v in x) if type(x) is tuple else x
                 for x in args)


def _size(k, v):
    """A keyword's value with 0-d GPU integers in a shape as ints (``size=n``, ``size=(n, m)``)."""
    if k == "size" and type(v) is ndarray and v.ndim == 0:
        return operator.index(v)
    return _sizes((v,))[0] if type(v) is tuple else v


# Methods of GPU objects that write into their first argument (besides every out=)
_WRITES_FIRST = frozenset({"shuffle"})


def _writes_back(label, name, f, twin):
    """``f`` (a GPU object's method) made to write into NumPy arrays it is given to write into
    (``shuffle(x)``, any ``out=``): each goes to the GPU as an xpshim array, and the result is
    copied back into it (both copies counted), so the write lands where NumPy puts it. A list
    to write into is NumPy's method's, on the host (``twin``; a counted fallback)."""
    first = name in _WRITES_FIRST

    def call(*args, **kwargs):
        if first and args and type(args[0]) is list and twin is not None:
            return _fallback.run(f"{label}.{name}", getattr(twin, name), args, kwargs,
                                 "a list is written into in place on the host")
        back = []
        if first and args and type(args[0]) is numpy.ndarray and not host_only_dtype(args[0].dtype):
            d = wrap(_transfer.to_device(args[0], f"{label}.{name} of a NumPy array"))
            back.append((args[0], d))
            args = (d, *args[1:])
        out = kwargs.get("out") if kwargs else None
        if type(out) is numpy.ndarray and not host_only_dtype(out.dtype):
            d = wrap(_transfer.to_device(out, f"out= of {label}.{name}"))
            back.append((out, d))
            kwargs = {**kwargs, "out": d}
        r = f(*args, **kwargs)
        for h, d in back:
            h[...] = host(d, f"{label}.{name} into a NumPy array")
            if r is d:
                r = h  # (NumPy answers with out= itself)
        return r
    call.__name__ = name
    return call


class GpuObject:
    """A CuPy object that is not an array (a random Generator, say), made to hand
    back xpshim arrays. Methods CuPy lacks run on ``host_twin`` (counted, warned).
    Methods that write into an argument write into it on either device (``_writes_back``)."""

    __slots__ = ("_obj", "_twin", "_label")

    def __init__(self, obj, host_twin, label):
        self._obj, self._twin, self._label = obj, host_twin, label

    def __getattr__(self, name):
        f = self._method(name)
        if callable(f) and (name in _WRITES_FIRST or _takes_out(f, name, self._twin)):
            return _writes_back(self._label, name, f, self._twin)
        return f

    def _method(self, name):
        c = getattr(self._obj, name, None)
        g = _gaps.lookup(f"{self._label}.{name}")
        if g is not None and (c is None or g.replaces):
            obj, label, twin, self_ = self._obj, self._label, self._twin, self

            def filled(*args, **kwargs):
                a, kw = gpu_args(args, kwargs, ((), ARRAY_PARAMS, False))
                try:
                    return wrap(call_gpu(g.fn, [self_ if g.holder else obj, *a], kw))
                except _gaps.Decline as e:
                    return _fallback.run(f"{label}.{name}", getattr(twin, name), args, kwargs,
                                         f"CuPy's {label} has no {name}, and xpshim's GPU version "
                                         f"does not cover this case ({e})")
            filled.__name__ = name
            return filled
        if c is None and self._twin is not None and hasattr(self._twin, name):
            h = getattr(self._twin, name)
            if not callable(h):
                return h

            def on_host(*args, **kwargs):
                return _fallback.run(f"{self._label}.{name}", h, args, kwargs, f"CuPy's {self._label} has no {name}")
            return on_host
        if c is None:
            raise AttributeError(f"{self._label} has no attribute {name!r}")
        if not callable(c):
            return wrap(c)

        def on_gpu(*args, **kwargs):
            a, kw = gpu_args(_sizes(args), {k: _size(k, v) for k, v in kwargs.items()} if kwargs else kwargs,
                             ((), ARRAY_PARAMS, False))
            return wrap(call_gpu(c, a, kw))
        on_gpu.__name__ = name
        return on_gpu

    def __repr__(self):
        return f"<{self._label} on the GPU>"


_TAKES_OUT = {}  # (type of NumPy's object, method name) -> whether it takes out=


def _takes_out(f, name, twin):
    """Whether NumPy's method ``name`` (on ``twin``, NumPy's object) takes ``out=``."""
    key = (type(twin), name)
    hit = _TAKES_OUT.get(key)
    if hit is None:
        h = getattr(twin, name, None)
        try:
            hit = h is not None and "out" in inspect.signature(h).parameters
        except (TypeError, ValueError):
            hit = True  # (a builtin without a signature: the call's keywords tell)
        _TAKES_OUT[key] = hit
    return hit


def on_host(qualname, npf, modname):
    """NumPy's ``npf`` called with host copies (counted) of any GPU arrays among its arguments."""
    def wrapper(*args, **kwargs):
        __tracebackhide__ = True  # pytest shows the caller's line, as for NumPy's asserts
        if _backend.live and locate(args, kwargs) == "gpu":
            args, kwargs = to_host_args(args, kwargs, qualname)
        return npf(*args, **kwargs)

    name = getattr(npf, "__name__", qualname.rsplit(".", 1)[-1])
    return _describe(functools.update_wrapper(wrapper, npf, assigned=(), updated=()), modname, name, npf,
                     "runs NumPy's on the host; GPU arrays are copied there first (counted)")


def asnumpy(x):
    """A NumPy array with the data of ``x``: GPU arrays are copied (counted), the rest as numpy.asarray."""
    if type(x) is ndarray:
        return host(x, "asnumpy")
    if _backend.is_raw_gpu_array(x):
        return _transfer.to_host(x, "asnumpy")
    return numpy.asarray(x)
