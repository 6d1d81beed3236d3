"""One NumPy name's route on the GPU (``Route``): CuPy's function, or NumPy's answer where CuPy's differs.

``Route.gpu`` runs a call whose arrays are on the GPU (or that the GPU device makes): NumPy's call
on the host for what has no GPU form (object or string dtypes, NumPy subclasses, ``__array__``
objects); CuPy's function where it takes the call (with ``_edges``' handler where NumPy's answer
differs on an edge case, and ``_exact``'s formula where CuPy's loop differs); xpshim's own GPU
version where CuPy has none or lacks a keyword (``_gaps``); else a counted, warned host fallback
(``_fallback``). ``Route.cpu`` is NumPy's call, GPU arrays copied over. The wrappers that decide
which one a call takes are ``_dispatch.function`` (functions) and ``_ufuncroute`` (ufuncs).
"""

import inspect
import operator
import sys

import numpy

from . import _backend, _docparams, _edges, _exact, _fallback, _gaps, _options, _signatures, _transfer
from . import _methods  # noqa: F401  (the GPU arrays a route answers with have NumPy's methods)
from ._arguments import (REFUSALS, refusal, array_like, array_like_params, array_likes, call_gpu, gpu_args, host_class, into_host, kwargs_gap,
                         locate, out_of_memory, to_host_args)
from ._ndarray import (MAKES_READ_ONLY, value_of, arraylike, as_array, as_value, fresh, host, host_only_dtype, keep_order,
                       element_readers, in_bounds_arrays, mark_read_only, ndarray, read_only_arrays, refuse_outs,
                       refuse_write)
from ._registry import KEEPS_ORDER, WRITES_INTO, ZERO_D_ARRAYS

_MISSING = object()

_SCALAR_PARTS = frozenset({"xpshim.linalg.slogdet"})  # (answers a tuple of NumPy's scalars for one matrix)
_FILLS = frozenset({"xpshim.full", "xpshim.full_like"})
# Functions that read dtypes and values, no array data: NumPy's unless given a GPU array
_DTYPE_READERS = frozenset({"xpshim.can_cast", "xpshim.result_type", "xpshim.min_scalar_type"})
# Functions whose answer is their first argument sliced, in its own type (a list stays a list)
_SLICES_INPUT = frozenset({"xpshim.trim_zeros"})


# Functions whose number at position 0 stays a number: read by value, or an int that is a length
# (isclose: a Python number beside an array is weak, NEP 50; _edges._isclose reads it so)
# (real, imag: NumPy answers val.real, a Python number's own; vecdot, matvec, vecmat: NumPy's gufuncs
# read it as weak too, _gaps.compose._gufunc_plain)
_BY_VALUE = frozenset({"min_scalar_type", "can_cast", "result_type", "permutation", "choice", "isclose", "real", "imag",
                       "vecdot", "matvec", "vecmat"})



# Argument types that are none of what Route.gpu sends to the host (a host-only dtype, a NumPy
# subclass, poly1d, an object with __array__): xpshim's arrays, Python's numbers, strings, None,
# classes (dtype=np.float32)
_NO_HOST_FORM = frozenset({ndarray, int, float, complex, bool, str, type(None), type})
# A plain call's arguments (Route.gpu): xpshim's arrays and Python's numbers (a None steps
# aside: it may sit where an array goes, which CuPy does not check); the
# keywords that are not (gpu_checked reads them whatever their value)
_PLAIN_ARGS = frozenset({ndarray, int, float, bool})
_READ_KEYWORDS = frozenset({"out", "dtype"})


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


def dtype_position(npf, name="dtype"):
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


def resolve_path(mod, path):
    """The object at the dotted ``path`` under ``mod`` (``cupy``, ``"linalg.norm"``), or None."""
    for part in path.split("."):
        mod = getattr(mod, part, None)
        if mod is None:
            return None
    return mod


def _required_arrays(npf, pos):
    """(position, name) of ``npf``'s array parameters that have no default, or None where it has
    none: None given there is NumPy's 0-d object array (``np.dot(a, None)``: its TypeError), which
    has no GPU form, and which some of CuPy's functions do not check before they read it
    (``cupy.dot(a, None)`` and ``a.dot(None)`` end the process, SIGSEGV: its Cython parameters
    typed as arrays let None through)."""
    try:
        params = list(inspect.signature(npf).parameters.values())
    except (TypeError, ValueError):
        return None
    found = tuple((i, params[i].name) for i, _ in pos
                  if i < len(params) and params[i].default is inspect.Parameter.empty)
    return found or None


class Route:
    """One routed NumPy callable: its NumPy function and where CuPy's is."""

    # (resolved: CuPy's function, made per backend module resolved_for; read directly on the
    # ufunc fast path, _ufuncroute, without the cpf property's frame)
    __slots__ = ("name", "npf", "cupy_path", "spec", "resolved", "resolved_for", "_accepts", "_gap", "edge", "dtype_at",
                 "axis_at", "writes", "named", "out_at", "positional", "as_tuple", "plain_result",
                 "by_name", "fills", "zero_d_array", "ordered", "short", "marks", "plain", "bare", "plain_keys", "axis_pos",
                 "dtype_pos", "nones", "options", "options_from")

    def __init__(self, name, npf, cupy_path):
        self.name, self.npf, self.cupy_path = name, npf, cupy_path
        pos, names, var = array_like_params(npf, name)
        # (a number at position 0 becomes a 0-d array, except where it is read by value)
        self.spec = (pos, names, var, bool(pos) and pos[0][0] == 0 and name.rsplit(".", 1)[-1] not in _BY_VALUE)
        self.dtype_at = dtype_position(npf)
        self.axis_at = dtype_position(npf, "axis")
        self.out_at = dtype_position(npf, "out")
        if self.out_at == -1:
            self.out_at = None  # (keyword only)
        self.positional = _positional(npf) if self.out_at is not None else ()
        # (into its first argument: (its name, None where it always writes), or None)
        self.writes = WRITES_INTO.get(name.rsplit(".", 1)[-1])
        # (an elementwise function: its new answer in NumPy's memory order, keep_order)
        self.short = name.rsplit(".", 1)[-1]
        self.ordered = self.short in KEEPS_ORDER
        self.marks = self.short in MAKES_READ_ONLY  # (np.broadcast_to: a read-only view, as NumPy's)
        self.edge = _edges.TABLE.get(name)  # NumPy's answer where CuPy's differs on an edge case
        # (axis, keepdims, casting, order: read as NumPy's, _options; checked from the first
        # position one may take)
        self.options = _options.positions(npf) if not isinstance(npf, numpy.ufunc) else {}
        self.options_from = min([i for i in self.options.values() if i >= 0], default=1 << 30)
        # NumPy's namedtuple class of its answer (unique_all), or None (an edge case handler decides)
        self.named = _named_result(npf) if self.edge is None else None
        self.as_tuple = _docparams.answers_tuple(npf)  # (CuPy's atleast_1d answers a list there)
        self.plain_result = self.named is None and not self.as_tuple  # (tupled() would hand r back as is)
        self.zero_d_array = name.partition(".")[2] in ZERO_D_ARRAYS  # ("xpshim.copy": "copy")
        # (gpu()'s checks by name, answered once: most names have none)
        self.by_name = name in _DTYPE_READERS or name in _SLICES_INPUT
        self.fills = name in _FILLS
        # (a call of xpshim arrays and numbers that none of gpu()'s checks before CuPy's call
        # concerns: a name that writes into its argument, or reads by name, has them all)
        self.plain = not self.writes and not self.by_name and not self.fills
        # (and no edge handler, nor *args that gpu_args converts: arrays and numbers need nothing of gpu_args)
        self.bare = self.edge is None and not self.spec[2]
        self.axis_pos = self.axis_at if self.axis_at is not None and self.axis_at >= 0 else sys.maxsize
        self.dtype_pos = self.dtype_at if self.dtype_at is not None and self.dtype_at >= 0 else sys.maxsize
        self.resolved = self.resolved_for = self._accepts = self.plain_keys = None
        self._gap = _MISSING
        self.nones = _required_arrays(npf, pos)

    @property
    def cpf(self):
        xp = _backend.xp
        if self.resolved_for is not xp:  # resolved per backend module (tests swap in a stand-in)
            self.resolved = resolve_path(xp, self.cupy_path) if self.cupy_path else None
            if self.resolved is not None and self.gap is not None and self.gap.replaces:
                self.resolved = None  # the gap table's version is used instead
            self._accepts = _signatures.accepted(self.resolved) if self.resolved is not None else None
            self.plain_keys = self.plain_keywords(self.resolved)
            self.resolved = _exact.wrap(self.cupy_path, self.resolved)  # NumPy's formula where CuPy's loop differs
            self.resolved_for = xp
        return self.resolved

    def plain_keywords(self, cpf):
        """The keywords a plain call (``gpu``) may give CuPy's ``cpf``: those it takes that no
        keyword gap claims, but ``out`` and ``dtype`` (which ``gpu_checked`` reads); None where
        its keywords are not known (a plain call takes none)."""
        acc = _signatures.accepted(cpf) if cpf is not None else None
        if acc is None:
            return None
        g = self.gap
        return acc - _READ_KEYWORDS - (g.kwargs if g is not None and g.kwargs else frozenset())

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
            except Exception as e:
                if not refusal(e) or _calls_back(args, kwargs) or not _raised_outside(e):
                    raise  # (the GPU version's own raise is NumPy's error: kept)
                # CuPy refused a step of the GPU version (svdvals of a 1-d array, where it unpacks
                # the shape): where NumPy refuses the call too, NumPy's error (its class and
                # message) on host copies; else CuPy's, as the GPU version meant
                h_args, h_kwargs = to_host_args(args, kwargs, f"{self.name}: NumPy's error for the call")
                try:
                    self.npf(*h_args, **h_kwargs)
                except Exception as numpys:
                    raise numpys from None
                raise
            else:
                r = gpu_result(r, args, kwargs, self.ordered)
                if read_only_arrays or self.marks:
                    r = mark_read_only(r, self.short, args[0] if args else None, args, kwargs)
                return self.tupled(self.kind_of_answer(r, args, kwargs))
        return _fallback.run(self.name, self.npf, args, kwargs, why)

    def gpu(self, args, kwargs):
        # A plain call (np.sum(a, axis=0), np.where(m, a, b), np.zeros(16)): xpshim arrays and
        # Python numbers (alone or in a flat list or tuple), keywords of numbers that CuPy's
        # function takes. None of gpu_checked's checks concerns it (each is for an out=, a dtype,
        # an axis given as an array, or an argument of no GPU form): one pass over the arguments.
        plain = self.plain and self.resolved_for is _backend.xp and (self.out_at is None or len(args) <= self.out_at)
        if plain:
            none = seqs = False
            for x in args:
                t = type(x)
                if t not in _PLAIN_ARGS:
                    if x is None:  # (np.sum(a, None); None where an array goes is not plain: below)
                        none = True
                        continue
                    if (t is list or t is tuple) and x:  # np.concatenate([a, b]), np.zeros((4, 4))
                        for v in x:
                            if type(v) not in _PLAIN_ARGS:
                                break
                        else:
                            seqs = True
                            continue
                    plain = False
                    break
            else:
                n = len(args)
                if (n > self.axis_pos and type(args[self.axis_pos]) is ndarray) or (n > self.dtype_pos and args[self.dtype_pos] is not None):
                    plain = False
                elif kwargs:
                    keys = self.plain_keys
                    if keys is None or not kwargs.keys() <= keys:
                        plain = False
                    else:
                        for v in kwargs.values():
                            if v is None:
                                none = True
                            elif type(v) not in _PLAIN_ARGS or type(v) is ndarray:
                                plain = False
                                break
                if none and plain and self.nones is not None:
                    plain = not self.none_as_array(args, kwargs)  # (gpu_checked's host call)
        if plain and self.resolved is not None:
            if self.options and (kwargs or len(args) > self.options_from):  # (NumPy's reading of them, _options)
                args, kwargs = _options.check(self.npf, self.options, args, kwargs)
            if kwargs or seqs or none or not self.bare or (self.spec[3] and args and type(args[0]) is not ndarray):
                return self.on_gpu(self.resolved, args, kwargs)
            # (xpshim arrays and numbers alone, np.sum(a, 0), np.zeros(16): gpu_args' work, inline)
            a = list(args)
            i = 0
            for x in args:
                if type(x) is ndarray:
                    a[i] = x._a if x._d is None or x._st.host else x._d
                i += 1
            return self.on_gpu(self.resolved, args, kwargs, a)
        return self.gpu_checked(args, kwargs)

    def none_as_array(self, args, kwargs):
        """Whether None is given for one of the array parameters that have no default."""
        for i, k in self.nones:
            if (args[i] if i < len(args) else kwargs.get(k, 0) if kwargs else 0) is None:
                return True
        return False

    def gpu_checked(self, args, kwargs):
        """``gpu``'s call with every check before CuPy's call."""
        if self.options and (kwargs or len(args) > self.options_from):  # (NumPy's reading of them, _options)
            args, kwargs = _options.check(self.npf, self.options, args, kwargs)
        if self.out_at is not None and len(args) > self.out_at:  # out given by position: by keyword
            args, kwargs = self.by_keyword(args, kwargs)
        if self.nones is not None and self.none_as_array(args, kwargs):
            return self._on_host(args, kwargs, f"{self.name} of None as an array (NumPy's object array)")
        if read_only_arrays or in_bounds_arrays or element_readers:  # (NumPy's error for a write into a read-only view)
            if self.writes and args:
                refuse_write(args[0], self.short)
            if kwargs and kwargs.get("out") is not None:
                refuse_outs(kwargs["out"])
        if kwargs and type(kwargs.get("out")) is tuple and len(kwargs["out"]) == 1:
            kwargs = {**kwargs, "out": kwargs["out"][0]}  # (a ufunc's out=(a,): np.clip reached as a ufunc)
        if self.by_name:
            if self.name in _DTYPE_READERS and locate(args, kwargs) != "gpu":
                return self.npf(*args, **kwargs)  # dtypes and numbers read (np.can_cast([('f1', 'i4')], 'i4'))
            if self.name in _SLICES_INPUT and args and (type(args[0]) is list or type(args[0]) is tuple):
                return self.npf(*args, **kwargs)  # NumPy answers a slice of the list itself (no array)
        if self.writes and args and (type(args[0]) is numpy.ndarray or (type(args[0]) is list and self.writes[1] is None)):
            # the write must land in it: a NumPy array, or a list (random.shuffle's; NumPy's
            # TypeError for the functions that write into arrays only)
            return self._on_host(args, kwargs, f"{self.name} into a {type(args[0]).__name__}")
        at = self.axis_at
        if at is not None and ((0 <= at < len(args) and type(args[at]) is ndarray) or
                               (kwargs and type(kwargs.get("axis")) is ndarray)):
            args, kwargs = _gpu_axis(args, kwargs, at) or (args, kwargs)
        for x in (*args, *kwargs.values()) if kwargs else args:  # a NumPy array of object, strings, ...
            if type(x) in _NO_HOST_FORM:
                continue  # (xpshim's arrays, numbers, None: none of the cases below; checked in one step)
            if (type(x) is numpy.ndarray or isinstance(x, numpy.generic)) and host_only_dtype(x.dtype):
                return self._on_host(args, kwargs, f"{self.name} of a {x.dtype} array (no GPU form)")
            if type(x) is list or type(x) is tuple:  # (np.concatenate([strings, gpu_ints]): NumPy's strings)
                for v in x:
                    if type(v) is numpy.ndarray and host_only_dtype(v.dtype):
                        return self._on_host(args, kwargs, f"{self.name} of a {v.dtype} array (no GPU form)")
            c = host_class(x)
            if c is not None:
                # np.matrix, a masked array, a user's subclass, np.poly1d (alone or in a list beside
                # GPU arrays: np.concatenate([masked, gpu])): NumPy's call keeps its class
                why = f"{self.name} of a {c.__name__} (no GPU form)"
                if locate(args, kwargs) == "gpu":
                    return _fallback.run(self.name, self.npf, args, kwargs, why)  # (counted, warned)
                a, kw = to_host_args(args, kwargs, why)
                return self.npf(*a, **kw)
            if array_like(x):  # an object whose __array__ gives NumPy's array: read as NumPy reads it
                return self.gpu(*array_likes(args, kwargs))
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
        if type(out) is numpy.ndarray and kwargs.get("where", True) is not True:
            # where= keeps the rest of a NumPy out=: NumPy's call writes into it, on host copies
            return _fallback.run(self.name, self.npf, args, kwargs, "where= with a NumPy out= (NumPy's call writes "
                                 "into it)")
        if out is not None and _ignores_out(self.name, self.npf):
            # NumPy's hfft, ifft2 and irfft2 take out= and pass out=None on: a new array, out= untouched
            # (https://github.com/numpy/numpy/blob/v2.3.0/numpy/fft/_pocketfft.py)
            return self.gpu(args, {k: v for k, v in kwargs.items() if k != "out"})
        if type(out) is numpy.ndarray:  # a NumPy out= with GPU inputs: the result is copied into it
            r = self.gpu(args, {k: v for k, v in kwargs.items() if k != "out"})
            if type(r) is ndarray and r.dtype == out.dtype and r.shape == out.shape and out.flags.c_contiguous:
                into_host((out,), r, self.name)
                return out
            # another dtype, shape or layout: NumPy's casting rule and checks decide (its error, or
            # its cast or strided write): NumPy's own call, on host copies, into the array itself
            return _fallback.run(self.name, self.npf, args, kwargs, "out= a NumPy array of another dtype, "
                                 "shape or layout than the answer's (NumPy's rules for it)")
        cpf = self.resolved if self.resolved_for is _backend.xp else self.cpf  # (the property resolves it per backend)
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
            gap = kwargs_gap(cpf, kwargs)
            if gap:
                return self.filled(args, kwargs, f"CuPy's {self.cupy_path} takes no {', '.join(map(repr, gap))} argument")
        return self.on_gpu(cpf, args, kwargs)

    def on_gpu(self, cpf, args, kwargs, a=None):
        """The call by CuPy's ``cpf`` (or an edge's handler), its answer as NumPy's (``a``: the
        arguments in CuPy's terms, where ``gpu`` made them)."""
        if a is not None:
            kw = kwargs
        else:
            a, kw = gpu_args(args, kwargs, self.spec)
            if a and type(a[0]) is list and self.spec[3] and self.spec[0][0][1] is arraylike:
                # a list at the array parameter that is not numeric data ([None], strings): NumPy's call
                return self._on_host(args, kwargs, f"{self.name} of a list of Python objects (no GPU form)")
        r, refused = _edges.PASS, None
        try:
            if self.edge is not None:
                r = self.edge(a, kw)
        except REFUSALS as e:
            # (an edge's own raise is NumPy's error: kept; where the edge found the call one NumPy
            # refuses (_edges.Refused), or CuPy's function it called refused it, NumPy's call below
            # says what NumPy does)
            if _calls_back(args, kwargs) or not (isinstance(e, _edges.Refused) or _raised_outside(e)):
                raise
            refused = e
        if r is _edges.PASS and refused is None:
            try:
                r = cpf(*a, **kw)  # (call_gpu's work, inline)
            except _backend.xp.cuda.memory.OutOfMemoryError as e:
                raise out_of_memory(cpf, e) from e
            except Exception as e:
                if not refusal(e) or _calls_back(args, kwargs):
                    raise  # (a user's function that raised is not called again)
                refused = e
        if refused is not None:
            # CuPy's function refused the call: it reads arrays only (``a.dot(b)``, ``isinstance(x,
            # cupy.ndarray)``), checks otherwise (an empty q as out of range, a 2-d q) or words its
            # error otherwise; or an edge found the call one NumPy refuses. NumPy's answer on the
            # host, counted and warned; where NumPy refuses the call, NumPy's error (its class and
            # message), unwarned
            return _fallback.run(self.name, self.npf, args, kwargs,
                                 f"CuPy's {self.cupy_path} refused the call ({type(refused).__name__}: "
                                 f"{str(refused)[:80]})", errors_unannounced=True)
        if kwargs or self.ordered or not args:
            r = gpu_result(r, args, kwargs, self.ordered)
        else:  # (gpu_result's steps for a call without keywords, inline: the input handed back, or a new array)
            x = args[0]
            r = x if type(x) is ndarray and r is (x._a if x._d is None or x._st.host else x._d) else fresh(r, args)
        if read_only_arrays or self.marks:
            r = mark_read_only(r, self.short, args[0] if args else None, args, kwargs)
        if type(r) is ndarray:  # (inline, as most answers need nothing: kind_of_answer's cases)
            v = r._v
            if v if self.zero_d_array else (not v and r._d is not None and not r._d.ndim):
                r = self.kind_of_answer(r, args, kwargs)
        elif self.zero_d_array and isinstance(r, tuple):
            r = self.kind_of_answer(r, args)
        elif self.name in _SCALAR_PARTS and isinstance(r, tuple):
            # (slogdet of one matrix: NumPy's scalars, where CuPy's parts are 0-d arrays)
            parts = [self.kind_of_answer(v, args, kwargs) for v in r]
            r = r._make(parts) if hasattr(r, "_make") else tuple(parts)
        return r if self.plain_result else self.tupled(r)

    def kind_of_answer(self, r, args, kwargs=None):
        """A 0-d answer as NumPy's: its 0-d array for the few functions that answer one
        (``np.copy``, ``np.where``: _registry.ZERO_D_ARRAYS), else its scalar, a value, also where
        CuPy's (or a gap version's) answer is a 0-d view of memory no argument owns."""
        if type(r) is not ndarray:
            if self.zero_d_array and isinstance(r, tuple):  # (np.unique_inverse(x).inverse_indices: x's shape)
                for v in r:
                    as_array(v)  # (in place: the answer's element itself)
            return r
        if self.zero_d_array:
            return as_array(r)
        if r._v:  # (a value already: fresh marked it)
            return r
        d = r._d
        if d is None or d.ndim or any(r is a for a in args):  # (an argument handed back: NumPy's answer too)
            return r
        out = kwargs.get("out") if kwargs else None
        if out is not None and (r is out or (type(out) is tuple and any(r is o for o in out))):
            if self.short == "dot":  # (NumPy's dot answers its scalar, a value, where out= is 0-d)
                return value_of(d)
            return r  # (out= handed back: the array itself, as NumPy's, never made a scalar)
        return as_value(r, args)

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


_IGNORES_OUT = {}


def _ignores_out(name, npf):
    """Whether NumPy's function ``name`` takes out= and answers a new array, leaving it untouched
    (asked of NumPy once, by a call: of its fft functions, those that pass out=None on)."""
    r = _IGNORES_OUT.get(name)
    if r is None:
        r = False
        if name.startswith("xpshim.fft."):
            x = numpy.ones((2, 4))
            w = npf(x)
            o = numpy.empty_like(w)
            r = npf(x, out=o) is not o
        _IGNORES_OUT[name] = r
    return r


def gpu_result(r, args, kwargs, ordered=False):
    """CuPy's result as NumPy gives it: the out= array itself, or the input itself where the
    function answered with it (nan_to_num(x, copy=False)), else a new xpshim array (of an
    elementwise function, ``ordered``, in NumPy's memory order: ``keep_order``)."""
    out = kwargs.get("out") if kwargs else None
    if type(out) is ndarray and _is_out(r, out._a):
        return out
    if ordered and out is None:
        r = keep_order(r, args)
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
