"""Ufuncs that are not NumPy's own, given GPU arrays: another library's (``scipy.special.erf``) or
an object ufunc (``np.frompyfunc(oct, 1, 1)``).

NumPy hands such a call to ``xpshim.ndarray.__array_ufunc__``. Answering NotImplemented would make
NumPy raise TypeError, where the user's code worked on NumPy arrays. So SciPy's special functions
run as CuPy's (``cupyx.scipy.special``) where CuPy has them, and any other ufunc runs NumPy's loop
on host copies: a counted, warned fallback, its array results brought back to the GPU (object and
string results, which have no GPU form, stay NumPy arrays, as ``np.array(..., dtype=object)`` does).

NumPy's protocol: https://numpy.org/doc/stable/reference/arrays.classes.html#numpy.class.__array_ufunc__ ;
CuPy's special functions: https://docs.cupy.dev/en/stable/reference/scipy_special.html
"""

import importlib

from . import _backend, _fallback
from ._ndarray import dev, wrap

_GPU_FORMS = {}  # a SciPy special function's name -> CuPy's function of the same job, or None


def _gpu_form(uf):
    """CuPy's version of SciPy's special ufunc ``uf`` (cupyx.scipy.special), or None. (Kept by
    name: holding ``uf`` itself would keep every np.frompyfunc ufunc alive.)"""
    if getattr(_backend.xp, "__name__", "") != "cupy":  # (the stand-in has no cupyx)
        return None
    name = getattr(uf, "__name__", "")
    try:
        scipy_special = importlib.import_module("scipy.special")
    except ImportError:
        return None
    if getattr(scipy_special, name, None) is not uf:
        return None
    if name not in _GPU_FORMS:
        try:
            _GPU_FORMS[name] = getattr(importlib.import_module("cupyx.scipy.special"), name, None)
        except ImportError:
            _GPU_FORMS[name] = None
    return _GPU_FORMS[name]


def call(uf, method, inputs, kwargs):
    """``getattr(uf, method)(*inputs, **kwargs)`` for a ufunc xpshim does not route itself."""
    name = getattr(uf, "__name__", repr(uf))
    f = _gpu_form(uf) if method == "__call__" and set(kwargs) <= {"out"} else None
    if f is not None:
        kw = {"out": dev(kwargs["out"][0] if type(kwargs["out"]) is tuple else kwargs["out"])} if kwargs else {}
        r = f(*[dev(x) for x in inputs], **kw)
        if kwargs:
            o = kwargs["out"]
            return o[0] if type(o) is tuple and len(o) == 1 else o
        return wrap(r)
    npf = uf if method == "__call__" else getattr(uf, method)
    if type(kwargs.get("out")) is tuple and len(kwargs["out"]) == 1:
        kwargs = {**kwargs, "out": kwargs["out"][0]}
    return _fallback.run(f"{name}.{method}" if method != "__call__" else name, npf, inputs, kwargs,
                         "xpshim has no GPU loop for this ufunc (not one of NumPy's own)",
                         writeback_first=(method == "at"))
