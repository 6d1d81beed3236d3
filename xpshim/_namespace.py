"""NumPy's names, resolved once and cached: top level and every submodule.

``resolve(modname, name)`` decides what ``xpshim[.sub].name`` is, in order:
1. a hand-written object (``_handwritten.TABLE``; files and text: ``_hostio.TABLE``);
2. a submodule: routed (``_registry.ROUTED_MODULES``) or NumPy's own;
3. NumPy's own object for types, dtypes, constants and ``_registry.NUMPY_OWN``;
4. a ufunc wrapper (``_ufunc.ufunc``) for NumPy ufuncs;
5. a routed function wrapper (``_dispatch.function``) for every other callable.
"""

import importlib
import sys
import types
import warnings

import numpy

from . import _backend, _cpupath
from ._registry import (HANDWRITTEN, HOST_IO, HOST_MODULES, NUMPY_MODULES, NUMPY_OWN, NUMPY_TESTING_SCALAR_ASSERTS,
                        ROUTED_MODULES)

_ufuncs = {}  # numpy ufunc -> xpshim ufunc
try:
    from numpy._core import umath as _umath
except ImportError:  # NumPy 1.x
    from numpy.core import umath as _umath


def ufunc_for(npu):
    u = _ufuncs.get(npu)
    # (NumPy's own only, umath's private ones too (the clip ufunc of ndarray.clip): scipy.special.cbrt
    # is a ufunc named as numpy.cbrt, with its own loops)
    if u is None and isinstance(npu, numpy.ufunc) and hasattr(numpy, npu.__name__) and \
            (getattr(numpy, npu.__name__) is npu or getattr(_umath, npu.__name__, None) is npu):
        from . import _ufunc

        u = _ufuncs[npu] = _ufunc.ufunc(npu)
    return u


_functions = {}  # numpy function -> xpshim's (None: not routed)


def function_for(npf):
    """xpshim's function for NumPy's ``npf`` (what ``__array_function__`` calls), or None where
    xpshim hands out NumPy's own (``np.shape``) or routes no such name."""
    try:
        return _functions[npf]
    except KeyError:
        pass
    except TypeError:  # (not hashable)
        return None
    mod, name, r = getattr(npf, "__module__", None) or "", getattr(npf, "__name__", None), None
    if name and (mod == "numpy" or mod.startswith("numpy.")):
        sub = mod[len("numpy."):]
        if sub and sub not in ROUTED_MODULES:  # (defined in a private module: numpy.lib._stride_tricks_impl)
            sub = _public_home().get(npf, (sub, name))[0]
        if not sub or sub in ROUTED_MODULES:
            try:
                if getattr(numpy_module(sub), name, None) is npf:
                    obj = resolve(sub, name)
                    r = obj if obj is not npf and callable(obj) else None
            except (AttributeError, ImportError):
                r = None
    _functions[npf] = r
    return r


_homes = None


def _public_home():
    """NumPy's callable -> (routed submodule, name) where NumPy's public namespace holds it (made once)."""
    global _homes
    if _homes is None:
        _homes = {}
        for sub in ROUTED_MODULES:
            try:
                mod = numpy_module(sub)
            except ImportError:
                continue
            for name in getattr(mod, "__all__", None) or dir(mod):
                obj = getattr(mod, name, None)
                if callable(obj) and not isinstance(obj, type):
                    try:
                        _homes.setdefault(obj, (sub, name))
                    except TypeError:  # (not hashable)
                        pass
    return _homes


def numpy_module(sub):
    mod = numpy
    for part in sub.split(".") if sub else ():
        nxt = getattr(mod, part, None)
        mod = nxt if isinstance(nxt, types.ModuleType) else importlib.import_module(f"{mod.__name__}.{part}")
    return mod


# Set by xpshim._dask.enable() once Dask mode is used: it wraps each resolved callable so
# that Dask arrays among the arguments (or the "dask" device) route to dask.array.
dask_hook = None


def resolve(sub, name):
    """The xpshim object for ``numpy[.sub].name``; AttributeError if NumPy has none."""
    obj = _resolve(sub, name)
    return obj if dask_hook is None else dask_hook(sub, name, obj)


def _handwritten(key):
    from . import _handwritten

    return _handwritten.TABLE[key]


def _routed(modname, name, npf, cupy_path):
    from . import _dispatch

    return _dispatch.function(modname, name, npf, cupy_path)


def _resolve(sub, name):
    modname = "xpshim." + sub if sub else "xpshim"
    key = (modname, name)
    # While no GPU array can exist, functions are made by _cpupath, without the routing machinery
    # (which each builds when it first needs it): a short script on the CPU never loads it.
    light = not _backend.live and dask_hook is None
    hand = None
    if key in HANDWRITTEN:
        if light and key in _cpupath.HANDWRITTEN:
            return _cpupath.HANDWRITTEN[key](name, lambda: _handwritten(key))
        hand = _handwritten(key)
    if hand is None and not sub and name in HOST_IO:
        from . import _hostio  # (files, buffers and text: loaded with the first of them)

        hand = _hostio.TABLE.get((modname, name))
    if hand is not None:
        return hand
    child = f"{sub}.{name}" if sub else name
    if child in SUBMODULES:
        try:
            return submodule(child)
        except ImportError:  # a submodule this NumPy does not have
            raise AttributeError(f"module 'numpy{'.' + sub if sub else ''}' has no attribute {name!r}") from None
    npmod = numpy_module(sub)
    obj = getattr(npmod, name)  # raises AttributeError as NumPy would
    if isinstance(obj, types.ModuleType):
        return obj  # a NumPy submodule not routed: NumPy's own
    if name in NUMPY_OWN or child in NUMPY_OWN or isinstance(obj, type) or not callable(obj):
        return obj
    if isinstance(obj, numpy.ufunc):
        from . import _ufunc

        return ufunc_for(obj) or _ufunc.ufunc(obj, modname)
    if not sub:
        cupy_path = name
    elif ROUTED_MODULES[sub] is None:
        cupy_path = None  # CuPy has no such module
    else:
        cupy_path = f"{ROUTED_MODULES[sub]}.{name}"
    build = lambda: _routed(modname, name, obj, cupy_path)  # noqa: E731
    if light:
        return _cpupath.function(modname, name, obj, cupy_path, build)
    # (a NumPy function with plain parameters: a wrapper with them, which takes the host path's
    # plain calls itself, as on the CPU path: a loop of np.flip on small arrays, at NumPy's speed)
    return (dask_hook is None and _cpupath.numpys_parameters(modname, name, obj, cupy_path, build)) or build()


def public_names(sub):
    npmod = numpy_module(sub)
    names = getattr(npmod, "__all__", None) or [n for n in dir(npmod) if not n.startswith("_")]
    return sorted(set(names) | {n for n in dir(npmod) if not n.startswith("_")})


class RoutedModule(types.ModuleType):
    """``xpshim.linalg`` and friends: NumPy's submodule, each name routed."""

    def __init__(self, sub):
        super().__init__("xpshim." + sub)
        self._sub = sub
        npmod = numpy_module(sub)
        self.__doc__ = f"xpshim.{sub}: numpy.{sub}, routed to cupy.{ROUTED_MODULES[sub]} on GPU arrays\n\n{npmod.__doc__ or ''}"
        self.__all__ = [n for n in getattr(npmod, "__all__", public_names(sub))]
        if any(s.startswith(sub + ".") for s in SUBMODULES):
            self.__path__ = []  # a package: `import xpshim.lib.format` asks _imports' finder

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        obj = resolve(self._sub, name)
        setattr(self, name, obj)
        return obj

    def __dir__(self):
        return sorted(set(public_names(self._sub)) | set(self.__dict__))


class HostModule(types.ModuleType):
    """``xpshim.testing``: NumPy's module, its functions given host copies of GPU arrays."""

    def __init__(self, sub):
        super().__init__("xpshim." + sub)
        self._np = numpy_module(sub)
        self.__doc__ = f"xpshim.{sub}: numpy.{sub}, with GPU arrays copied to the host (counted)\n\n{self._np.__doc__ or ''}"
        self.__all__ = list(getattr(self._np, "__all__", public_names(sub)))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        obj = getattr(self._np, name)
        if callable(obj) and not isinstance(obj, type) and not getattr(obj, "__module__", "").startswith("xpshim"):
            from . import _objects

            obj = _objects.on_host(f"{self.__name__}.{name}", obj, self.__name__)
        setattr(self, name, obj)
        return obj

    def __dir__(self):
        return sorted(set(dir(self._np)) | set(self.__dict__))


def host_module(sub):
    full = "xpshim." + sub
    mod = sys.modules.get(full)
    if mod is None:
        mod = sys.modules[full] = HostModule(sub)
    return mod


def routed_module(sub):
    full = "xpshim." + sub
    mod = sys.modules.get(full)
    if mod is None:
        mod = sys.modules[full] = RoutedModule(sub)
        parent, _, leaf = sub.rpartition(".")
        if parent:
            setattr(routed_module(parent), leaf, mod)
    return mod


def _numpy_testing_loaded():
    """Make numpy.testing's scalar-path asserts (``_registry.NUMPY_TESTING_SCALAR_ASSERTS``)
    copy GPU arrays to the host first, as xpshim.testing's do: test code keeps
    ``from numpy.testing import assert_equal``. Without GPU arrays they are NumPy's own."""
    import numpy.testing
    from numpy.testing._private import utils

    from . import _objects

    for name in NUMPY_TESTING_SCALAR_ASSERTS:
        f = getattr(utils, name)
        if getattr(f, "__module__", "").startswith("xpshim"):
            continue  # already done
        w = _objects.on_host(f"numpy.testing.{name}", f, "xpshim.testing")
        setattr(utils, name, w)  # assert_equal recurses through this global
        if getattr(numpy.testing, name, None) is f:
            setattr(numpy.testing, name, w)


def package():
    """The ``xpshim`` module itself, for the plug-ins and tools above this layer that hand it
    out (``import numpy`` in a zero-edit run, Numba's aliases). A submodule runs only once its
    package is imported, so it is in ``sys.modules``."""
    return sys.modules[__package__]


def host_copy_numpy_testing():
    """Once a GPU array can exist (``_backend.mark_live``): numpy.testing's scalar-path asserts
    take GPU arrays, when the program imports numpy.testing (now, if it has). A program on the
    CPU, or one that never imported xpshim, keeps NumPy's functions untouched."""
    if _backend.live:
        from ._lazy import after_import

        after_import("numpy.testing", _numpy_testing_loaded)


# Submodule names that xpshim builds or hands out as NumPy's ("linalg", "lib.format", ...).
SUBMODULES = frozenset(ROUTED_MODULES) | frozenset(HOST_MODULES) | frozenset(NUMPY_MODULES)


def submodule(sub):
    """The module ``xpshim.<sub>`` for a name in ``SUBMODULES``: routed (``xpshim.linalg``),
    host-copying (``xpshim.testing``) or NumPy's own (``xpshim.ma is numpy.ma``); imported on
    first use (``import xpshim.linalg`` or ``xpshim.linalg``), registered in ``sys.modules``."""
    if sub in ROUTED_MODULES:
        return routed_module(sub)
    if sub in HOST_MODULES:
        return host_module(sub)
    full = "xpshim." + sub
    mod = sys.modules.get(full)
    if mod is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy.core and numpy.matlib warn on import
            mod = importlib.import_module("numpy." + sub)  # (ImportError: not in this NumPy)
        mod = sys.modules.setdefault(full, mod)
    return mod
