"""GPU implementations of what CuPy lacks: one table, filled by the modules here.

A NumPy name that CuPy has no function for (or whose keyword CuPy does not
take) is looked up here before the dispatcher falls back to the host:

    @implements("xpshim.block")                      # any keyword NumPy takes
    def block(arrays): ...
    @implements("xpshim.sort", kwargs={"stable", "descending"})  # a keyword gap only
    def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False): ...

An implementation gets CuPy-level arguments (GPU arrays unwrapped, host arrays
and lists at array parameters already copied over, counted) and returns CuPy
arrays (or tuples/lists of them). It may raise ``Decline(reason)`` *before it
does any work* when a case is beyond it; the call then runs on the host, as a
visible fallback that gives that reason.

Names: ``xpshim.<name>``, ``xpshim.linalg.<name>``, ...; ufunc methods
``ufunc.<method>`` (generic, gets the NumPy ufunc first) or
``xpshim.<ufunc>.<method>``; random Generator and RandomState methods
``random.Generator.<method>``, ``random.RandomState.<method>`` (get CuPy's object first).

Families, one module each: ``compose`` (CuPy compositions), ``linalg``, ``ufuncs``
(ufunc methods), ``generator`` (random Generator methods, from the CuPy Generator's
own), ``numpy_code`` (NumPy's own Python code run on CuPy, see ``_rebind``); Numba CUDA kernels live
in ``xpshim/_kernels`` and are reached through these.
"""

import importlib

from ._table import IMPL, Decline, Impl, implements  # noqa: F401  (the table, and what registers in it)

_MODULES = ("compose", "linalg", "ufuncs", "generator", "numpy_code", "callbacks")
_loaded = False


def _load():
    global _loaded
    if not _loaded:
        _loaded = True
        for m in _MODULES:
            try:
                importlib.import_module(f"{__name__}.{m}")
            except ModuleNotFoundError as e:
                if e.name != f"{__name__}.{m}":
                    raise


def lookup(name):
    """The Impl registered for ``name``, or None."""
    _load()
    return IMPL.get(name)


def table():
    """Every registered name -> "cupy" or "numba" (for the native-share report)."""
    _load()
    return {n: i.how for n, i in IMPL.items()}


def replacing():
    """Names whose gap implementation is used instead of CuPy's function of that name."""
    _load()
    return {n for n, i in IMPL.items() if i.replaces}
