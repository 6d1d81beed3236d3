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

# Functions that only look at dtypes, shapes or Python numbers: NumPy's own stays.
_META = frozenset({
    "issubdtype", "iterable", "get_printoptions", "result_type", "normalize_axis_index",
    "normalize_axis_tuple", "isscalar", "promote_types", "can_cast", "mintypecode", "ndim",
})


def _backend_xp():
    from .. import _backend
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
        if v is not None:
            return v
        if isinstance(npv, type) or not callable(npv):
            return npv
        raise AttributeError(f"CuPy has no {self._path + '.' if self._path else ''}{name} "
                             f"(used by NumPy's code)")


def copy_function(f, g):
    """``f`` (a Python function) with globals ``g``."""
    c = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    c.__kwdefaults__ = f.__kwdefaults__
    c.__doc__, c.__qualname__, c.__module__ = f.__doc__, f.__qualname__, f.__module__
    return c


_NUMPY_MODULES = ("numpy", "numpy._core.numeric", "numpy._core.fromnumeric", "numpy._core.umath",
                  "numpy._core.multiarray", "numpy._core.function_base", "numpy._core.shape_base")


def _late(name):
    """CuPy's ``name``, looked up at each call (the backend may change)."""
    def f(*args, **kwargs):
        return getattr(_backend_xp(), name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


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
            g[n] = _late(n)
    g.update(subs)
    copies = {}
    for n, v in vars(module).items():
        f = getattr(v, "_implementation", v)
        if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and n not in subs:
            g[n] = copies[v] = copies[f] = copy_function(f, g)
    for n, v in vars(module).items():  # tables of the module's functions (histogram's bin rules)
        if type(v) is dict and n not in subs and any(callable(x) and x in copies for x in v.values()):
            g[n] = {k: copies.get(x, x) if callable(x) else x for k, x in v.items()}
    return types.SimpleNamespace(**{k: v for k, v in g.items() if not k.startswith("__")})


def _holds_device(v, xp):
    return any(isinstance(x, xp.ndarray) or (type(x) in (list, tuple) and _holds_device(x, xp)) for x in v)


def _from_sequence(xp, obj):
    """A (nested) list of device arrays and scalars as one device array, as numpy.array
    reads it: each leaf by its own dtype (a Python int as int64), the leaves promoted
    together; ragged nesting raises ValueError, as NumPy does."""
    if type(obj) in (list, tuple):
        return xp.stack([_from_sequence(xp, v) for v in obj])
    return obj if isinstance(obj, xp.ndarray) else xp.asarray(numpy.asarray(obj))


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, like=None):
    """numpy.array on the device: also for lists holding device arrays, and copy=None."""
    xp = _backend_xp()
    if type(obj) in (list, tuple) and _holds_device(obj, xp):
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
