"""NumPy's own Python code run on CuPy: copies of NumPy functions whose module-level
names (``np``, ``nx``, ``asarray``, ...) are CuPy's.

Many NumPy functions CuPy lacks are Python code over NumPy functions CuPy has
(``numpy.polynomial``, ``numpy.emath``, ``numpy.insert``, ...). A copy of that
code (the same ``__code__``) with CuPy behind each name is then the same
algorithm, step for step, on GPU arrays: NumPy's checks and exceptions, NumPy's
result dtypes wherever the CuPy functions it calls match NumPy's.

Names are resolved when the code runs (``_backend.xp`` at that moment), so the
copies follow the backend (CuPy, or the stand-in of the tests).
"""

import types

import numpy

from .. import _backend, _transfer
from .compose import direct_convolve, direct_correlate

# Functions that only look at dtypes, shapes or Python numbers: NumPy's own stays.
_META = frozenset({
    "issubdtype", "iterable", "get_printoptions", "result_type", "normalize_axis_index",
    "normalize_axis_tuple", "isscalar", "promote_types", "can_cast", "mintypecode", "ndim",
})


def _backend_xp():
    return _backend.xp


class OnDevice:
    """A NumPy namespace whose array functions are CuPy's (same path), looked up per use.

    Types, dtypes and constants that CuPy lacks, and the dtype helpers in ``_META``,
    stay NumPy's; an array function CuPy lacks raises AttributeError (naming it).
    ``over`` replaces names outright (callables of no argument give the value)."""

    def __init__(self, npmod, path="", over=None):
        self._np, self._path, self._over = npmod, path, over or {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._over:
            return self._over[name]()
        npv = getattr(self._np, name)
        if name in _DTYPE_FUNCTIONS:
            return _DTYPE_FUNCTIONS[name]
        if name in _META:
            return npv
        mod = _backend_xp()
        for part in self._path.split(".") if self._path else ():
            mod = getattr(mod, part, None)
        v = getattr(mod, name, None) if mod is not None else None
        if isinstance(npv, types.ModuleType):
            return OnDevice(npv, f"{self._path}.{name}" if self._path else name)
        if v is not None and not self._path:
            fix = _FIXES.get(name) or (_either if isinstance(npv, numpy.ufunc) else None)
            if fix is not None:
                return fix(npv, v)
        if v is not None:
            return v
        if isinstance(npv, type) or not callable(npv):
            return npv
        raise AttributeError(f"CuPy has no {self._path + '.' if self._path else ''}{name} "
                             f"(used by NumPy's code)")


# Where NumPy's code calls a NumPy function in a way CuPy's does not take.
def _holds(xp, args):
    return any(isinstance(a, xp.ndarray) or (type(a) in (list, tuple) and any(isinstance(b, xp.ndarray) for b in a))
               for a in args)


def _either(npf, cpf):
    """CuPy's function on device arrays; NumPy's on Python numbers and tuples (axes, edges of
    a range), as NumPy's code expects. ``out=...`` (NumPy's "an array, not a scalar") asks
    for a device array: CuPy's results always are."""
    def f(*args, **kwargs):
        xp = _backend_xp()
        wants_array = kwargs.get("out", None) is Ellipsis
        if wants_array:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        if _holds(xp, (*args, *kwargs.values())):
            return cpf(*args, **kwargs)
        if wants_array and args:
            return cpf(array(args[0]), *args[1:], **kwargs)
        return npf(*args, **kwargs)
    f.__name__ = f.__qualname__ = getattr(npf, "__name__", "f")
    return f


def _concatenate(npf, cpf):
    """CuPy's concatenate takes device arrays only: NumPy's code also passes lists (``[k[0]]``)."""
    def f(arrays, *args, **kwargs):
        if not _holds(_backend_xp(), arrays):
            return npf(arrays, *args, **kwargs)
        xp = _backend_xp()
        return cpf([a if isinstance(a, xp.ndarray) else array(a) for a in arrays], *args, **kwargs)
    return f


def _log_base(scale):
    """log2/log10: on complex input CuPy multiplies by the complex 1/ln(base), so log of 0
    (-inf + 0j) gets a NaN imaginary part; NumPy scales each part (nc_log2, nc_log10)."""
    def make(npf, cpf):
        def f(x, *args, **kwargs):
            xp = _backend_xp()
            if isinstance(x, xp.ndarray) and x.dtype.kind == "c" and not args and not kwargs:
                r = xp.log(x)
                out = xp.empty_like(r)
                out.real, out.imag = r.real * r.real.dtype.type(scale), r.imag * r.imag.dtype.type(scale)
                return out
            return _either(npf, cpf)(x, *args, **kwargs)
        return f
    return make


def _argsort(npf, cpf):
    """argsort of a tuple of axes (``wgt.transpose(np.argsort(axis))``): the order as a tuple of
    ints, which CuPy's methods take where they take axes; device arrays: CuPy's."""
    def f(a, *args, **kwargs):
        if isinstance(a, _backend_xp().ndarray):
            return cpf(a, *args, **kwargs)
        r = npf(a, *args, **kwargs)
        return tuple(r.tolist()) if r.ndim == 1 else r
    return f


def _sized(npf, cpf):
    """zeros/ones/empty/full with a size NumPy's code computed on the device (a 0-d array, which
    NumPy reads as an integer and CuPy does not)."""
    def f(shape, *args, **kwargs):
        xp = _backend_xp()
        if isinstance(shape, xp.ndarray):
            shape = int(shape)
        elif type(shape) in (list, tuple):
            shape = tuple(int(v) if isinstance(v, xp.ndarray) else v for v in shape)
        return cpf(shape, *args, **kwargs)
    return f


def wide_ints(a):
    """Integers narrower than int64 as int64: CuPy's histogram works in the data's dtype, where
    the range of int8 data overflows (NumPy's test of gh-14379 loses a count)."""
    if isinstance(a, _backend.xp.ndarray) and a.dtype.kind in "iu" and a.dtype.itemsize < 8:
        return a.astype(numpy.int64)
    return a


def _histogram(npf, cpf):
    """histogram inside NumPy's code (the bin rules' estimators): narrow integers as int64."""
    def f(a, *args, **kwargs):
        return _either(npf, cpf)(wide_ints(a), *args, **kwargs)
    return f


def _like(npf, cpf):
    """empty_like and the rest with shape=() inside NumPy's code (its weighted quantile makes a
    0-d result so): CuPy reads () as "not given"; a one-element array reshaped to 0-d."""
    def f(a, *args, **kwargs):
        if kwargs.get("shape", None) == () and isinstance(a, _backend_xp().ndarray):
            return cpf(a, *args, **{**kwargs, "shape": (1,)}).reshape(())
        return _either(npf, cpf)(a, *args, **kwargs)
    return f


def _direct(direct):
    """convolve/correlate inside NumPy's code (polymul, polypow, polyfromroots): float and complex
    device data by direct sums, as NumPy's (CuPy's go through cuFFT: compose.direct_convolve)."""
    def make(npf, cpf):
        def f(a, v, *args, **kwargs):
            xp = _backend_xp()
            if (isinstance(a, xp.ndarray) and isinstance(v, xp.ndarray) and a.ndim == 1 == v.ndim and a.size
                    and v.size and {a.dtype.kind, v.dtype.kind} & {"f", "c"} and not kwargs
                    and all(m in ("full", "same", "valid") for m in args[:1]) and len(args) <= 1):
                return direct(a, v, *args)
            return _either(npf, cpf)(a, v, *args, **kwargs)
        return f
    return make


_FIXES = {"argsort": _argsort, "convolve": _direct(direct_convolve), "correlate": _direct(direct_correlate), "concatenate": _concatenate, "histogram": _histogram,
          **{n: _like for n in ("empty_like", "zeros_like", "ones_like", "full_like")},
          **{n: _either for n in ("any", "all")},  # (np.any(None) is False: _quantile asks it of ints)
          **{n: _sized for n in ("zeros", "ones", "empty", "full")},
          "log2": _log_base(1.4426950408889634), "log10": _log_base(0.4342944819032518)}


def copy_function(f, g):
    """``f`` (a Python function) with globals ``g``."""
    c = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    c.__kwdefaults__ = f.__kwdefaults__
    c.__doc__, c.__qualname__, c.__module__ = f.__doc__, f.__qualname__, f.__module__
    return c


_NUMPY_MODULES = ("numpy", "numpy._core.numeric", "numpy._core.fromnumeric", "numpy._core.umath",
                  "numpy._core.multiarray", "numpy._core.function_base", "numpy._core.shape_base")


def late(name):
    """CuPy's ``name``, looked up at each call (the backend may change)."""
    npv = getattr(numpy, name, None)
    fix = _FIXES.get(name) or (_either if isinstance(npv, numpy.ufunc) else None)

    def f(*args, **kwargs):
        cpf = getattr(_backend_xp(), name)
        return (fix(npv, cpf) if fix is not None else cpf)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


def patched(f, namespace, replacements):
    """NumPy's function ``f`` recompiled from its source with ``replacements`` (old, new) made,
    in the globals of ``namespace`` (a ``rebind`` result); None if the source is not there or
    a text to replace is not found (a NumPy that changed: the caller keeps the plain copy)."""
    import inspect
    import textwrap

    f = getattr(f, "_implementation", f)
    try:
        src = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError):
        return None
    lines = src.splitlines()
    while lines and not lines[0].startswith("def "):  # NumPy's dispatch decorators: not wanted here
        lines.pop(0)
    src = "\n".join(lines)
    for old, new in replacements:
        if old not in src:
            return None
        src = src.replace(old, new)
    g = namespace.__dict__["__globals__"]
    local = {}
    exec(compile(src, f"<NumPy's {f.__name__}, for CuPy>", "exec"), g, local)
    c = local[f.__name__]
    c.__defaults__, c.__kwdefaults__, c.__doc__ = f.__defaults__, f.__kwdefaults__, f.__doc__
    return c


def patch_in(f, namespace, replacements, **helpers):
    """``patched``, then put in ``namespace`` in place of ``f`` (with the ``helpers`` the new
    text calls), so that the namespace's other functions call it; None if it could not be made."""
    c = patched(f, namespace, replacements)
    if c is not None:
        new = {**helpers, f.__name__: c}
        namespace.__dict__["__globals__"].update(new)  # (what the copies call)
        namespace.__dict__.update(new)  # (what ``namespace.name`` gives)
    return c


def rebind(module, subs=None):
    """A namespace of copies of ``module``'s Python functions (through NumPy's dispatch
    wrappers) whose globals are the module's with NumPy's array functions and modules
    replaced by CuPy's (and ``subs`` replacing names); the copies call each other."""
    subs = dict(subs or {})
    g = dict(vars(module))
    for n, v in vars(module).items():
        if n in subs or n.startswith("__"):
            continue
        if n in _CREATION:
            g[n] = _CREATION[n]
        elif n in _DTYPE_FUNCTIONS and getattr(numpy, n) is v:
            g[n] = _DTYPE_FUNCTIONS[n]
        elif n == "_array_converter":
            g[n] = array_converter
        elif isinstance(v, types.ModuleType) and v.__name__ in _NUMPY_MODULES:
            g[n] = on_device(v)
        elif (callable(v) and not isinstance(v, type) and n not in _META
              and getattr(numpy, n, None) is v):
            g[n] = late(n)
    g.update(subs)
    copies = {}
    for n, v in vars(module).items():
        f = getattr(v, "_implementation", v)
        if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and n not in subs:
            g[n] = copies[v] = copies[f] = copy_function(f, g)
    def own(x):  # a function of the module's, or a lambda written in it
        return isinstance(x, types.FunctionType) and x.__module__ == module.__name__

    def fn(x):
        return x if not isinstance(x, types.FunctionType) else copies.get(x) or (copy_function(x, g) if own(x) else x)

    def table(d):  # the table with the module's functions (and lambdas) as copies, at any depth
        return {k: table(x) if type(x) is dict else fn(x) for k, x in d.items()}

    def holds_own(d):
        return any(holds_own(x) if type(x) is dict else isinstance(x, types.FunctionType) and (own(x) or x in copies)
                   for x in d.values())

    for n, v in vars(module).items():  # tables of functions: histogram's bin rules, quantile's methods
        if type(v) is dict and n not in subs and holds_own(v):
            g[n] = table(v)
    ns = types.SimpleNamespace(**{k: v for k, v in g.items() if not k.startswith("__")})
    ns.__dict__["__globals__"] = g  # (for ``patched``)
    return ns


def holds_device(v, xp):
    return any(isinstance(x, xp.ndarray) or (type(x) in (list, tuple) and holds_device(x, xp)) for x in v)


def _from_sequence(xp, obj):
    """A (nested) list of device arrays and scalars as one device array, as numpy.array
    reads it: each leaf by its own dtype (a Python int as int64), the leaves promoted
    together; ragged nesting raises ValueError, as NumPy does."""
    if type(obj) in (list, tuple):
        return xp.stack([_from_sequence(xp, v) for v in obj])
    return obj if isinstance(obj, xp.ndarray) else _transfer.to_device(obj, "a number in a list of GPU arrays")


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, like=None):
    """numpy.array on the device: also for lists holding device arrays, and copy=None."""
    xp = _backend_xp()
    if type(obj) in (list, tuple) and holds_device(obj, xp):
        r = _from_sequence(xp, obj)
        r = r if dtype is None else r.astype(dtype, copy=False)
    elif not copy:
        r = xp.asarray(obj, dtype=dtype)
    else:
        r = xp.array(obj, dtype=dtype, copy=True, order=order)
    return r.reshape((1,) * (ndmin - r.ndim) + r.shape) if r.ndim < ndmin else r


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return array(a, dtype, copy=bool(copy), order=order or "K")


_CREATION = {"array": array, "asarray": asarray, "asanyarray": asarray}


def _dtypes(args, xp):
    return [a.dtype if isinstance(a, xp.ndarray) else a for a in args]


def _by_dtype(f):
    """NumPy's dtype function ``f`` (result_type, can_cast, ...) with device arrays read as
    their dtypes (NumPy 2 promotes arrays, 0-d ones too, by dtype alone)."""
    def g(*args, **kwargs):
        return f(*_dtypes(args, _backend_xp()), **kwargs)
    g.__name__ = g.__qualname__ = f.__name__
    return g


_DTYPE_FUNCTIONS = {n: _by_dtype(getattr(numpy, n)) for n in ("result_type", "can_cast", "promote_types")}


class array_converter:
    """numpy's ``_array_converter`` for device arrays (no subclasses to keep)."""

    def __init__(self, *arrays):
        self._given = arrays
        self._arrays = tuple(asarray(a) for a in arrays)

    def result_type(self, extra_dtype=None, ensure_inexact=False):
        # Python scalars stay weak, as in NumPy's
        args = _dtypes(self._given, _backend_xp()) + ([extra_dtype] if extra_dtype is not None else [])
        args = [a.dtype if isinstance(a, numpy.ndarray) else a for a in args]
        return numpy.result_type(*args, *((0.0,) if ensure_inexact else ()))

    def as_arrays(self, subok=True, pyscalars="convert_if_no_array"):
        return self._arrays

    def __getitem__(self, i):
        return self._arrays[i]

    def wrap(self, arr, to_scalar=None):
        return arr


def on_device(npmod=numpy, path="", **over):
    """``npmod`` (NumPy or one of its modules) with CuPy's functions at ``path`` behind its names."""
    if not path:
        over = {**{k: (lambda v=v: v) for k, v in _CREATION.items()}, **over}
    return OnDevice(npmod, path, over)
