"""Write CuPy's API as data: ``python -m xpshim._simgpu.snapshot [PATH]`` (where CuPy is
installed; no GPU needed, nothing is called).

The simulated GPU (``XPSHIM_SIMULATE_GPU=1``, ``xpshim._simgpu``) reads the file this writes
(``api.json`` beside this module) and has exactly these names, keyword lists and ufunc
loops, whatever CuPy is installed, or none. For each module xpshim routes to
(``_registry.ROUTED_MODULES``) that CuPy has, it records every public name: its kind
(``function``, ``ufunc``, ``class``, ``module``, ``value``), and for callables the keywords
xpshim's own reader of CuPy signatures finds (``xpshim._signatures.accepted``; null: any)
with the parameters where ``inspect`` reads them; for ufuncs their loop types.
It also records ``cupy.ndarray``'s attributes and the methods of CuPy's random generators.
"""

import inspect
import json
import os
import sys
import types

import numpy

from .._registry import ROUTED_MODULES

# CuPy's modules that xpshim routes NumPy's to (those CuPy lacks are left out at ``take``)
MODULES = ("", *sorted({m for m in ROUTED_MODULES.values() if m}))
CLASSES = {"ndarray": "ndarray", "random.Generator": "random.Generator",
           "random.RandomState": "random.RandomState"}
PATH = os.path.join(os.path.dirname(__file__), "api.json")


def _params(f):
    """[[name, kind, default text or None], ...] as ``inspect`` reads them, or None."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    e = inspect.Parameter.empty
    return [[p.name, p.kind.name, None if p.default is e else repr(p.default)] for p in sig.parameters.values()]


def _callable(f):
    from .._signatures import accepted

    names = accepted(f)
    return {"keywords": None if names is None else sorted(names), "params": _params(f)}


# Loops over dtypes NumPy has no type code for (bfloat16, "E", which CuPy 14 adds where ml_dtypes is
# installed) depend on the machine, not on CuPy's version; NumPy code never reaches them.
_NUMPY_CODES = set(numpy.typecodes["All"]) | {"-", ">"}
# Python's own names that depend on the interpreter (3.12 gave classes the buffer protocol's
# methods; 3.13 records where a class was defined)
_PYTHON_DUNDERS = {"__buffer__", "__release_buffer__", "__firstlineno__", "__static_attributes__"}


def _entry(obj, cupy):
    if isinstance(obj, cupy.ufunc):
        loops = [t for t in obj.types if set(t) <= _NUMPY_CODES]
        return {"kind": "ufunc", "nin": obj.nin, "nout": obj.nout, "types": loops}
    if isinstance(obj, types.ModuleType):
        return {"kind": "module"}
    if isinstance(obj, type):
        return {"kind": "class"}
    if callable(obj):
        return {"kind": "function", **_callable(obj)}
    return {"kind": "value"}


def _resolve(root, dotted):
    for part in filter(None, dotted.split(".")):
        root = getattr(root, part)
    return root


def take(cupy):
    """The snapshot of the imported module ``cupy`` as a dict."""
    for dotted in CLASSES.values():
        _resolve(cupy, dotted)  # (cupy.random loads Generator on first access: only then is it in dir())
    mods = {}
    for sub in MODULES:
        try:
            m = _resolve(cupy, sub)
        except AttributeError:  # (this CuPy has no such module: the simulated one has none either)
            continue
        mods[sub] = {n: _entry(getattr(m, n), cupy) for n in sorted(dir(m))
                     if not n.startswith("_") and n not in ("np", "annotations")}
    classes = {}
    for key, dotted in CLASSES.items():
        cls = _resolve(cupy, dotted)
        out = {}
        for n in sorted(dir(cls)):
            if n.startswith("_") and not (n.startswith("__") and n.endswith("__")) or n in _PYTHON_DUNDERS:
                continue
            raw = inspect.getattr_static(cls, n)
            if n.startswith("__") and raw is inspect.getattr_static(object, n, None):
                continue  # object's own
            a = getattr(cls, n)
            out[n] = {"kind": "method", **_callable(a)} if callable(a) and not isinstance(a, type) else {"kind": "attribute"}
        classes[key] = out
    return {"cupy": cupy.__version__, "modules": mods, "classes": classes}


def main(argv=None):
    """Write the snapshot of the installed CuPy to ``argv[0]`` (default: beside this module)."""
    argv = sys.argv[1:] if argv is None else argv
    import cupy

    path = argv[0] if argv else PATH
    with open(path, "w") as f:
        json.dump(take(cupy), f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"wrote CuPy {cupy.__version__}'s API to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
