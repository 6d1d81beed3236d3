"""NumPy functions that call the user's own Python function: ``apply_along_axis``,
``apply_over_axes``, ``piecewise``.

The user's function is written for ``import xpshim as np``, so it gets xpshim arrays
(on the GPU), not raw CuPy ones (which ``numpy.asarray``, Pillow and friends refuse);
what it returns goes back to CuPy's side as a GPU array. The looping is NumPy's own code
run on CuPy (``_rebind``): NumPy's checks, errors and result layout, step for step
(CuPy's ``piecewise`` takes no callables).
"""

import numpy
import numpy.lib._function_base_impl as _function_base_impl
import numpy.lib._shape_base_impl as _shape_base_impl

from ._table import Decline, implements
from ._rebind import rebind


def _xp():
    from .. import _backend
    return _backend.xp


def user(func):
    """``func`` as CuPy's code calls it: xpshim arrays in, CuPy arrays (or scalars) out."""
    if not callable(func):
        return func
    from .._ndarray import dev, wrap

    def call(*args, **kwargs):
        r = func(*wrap(list(args)), **{k: wrap(v) for k, v in kwargs.items()})
        if isinstance(r, numpy.ndarray) and type(r) is not numpy.ndarray:
            # a masked array, a user's subclass: NumPy's result keeps its class, on the host
            raise Decline(f"the function answers a {type(r).__name__}, which has no GPU form")
        if type(r) in (list, tuple):
            return type(r)(dev(v, "returned by a function given to NumPy") for v in r)
        return dev(r, "returned by a function given to NumPy")

    call.__name__ = getattr(func, "__name__", "func")
    return call


_SB = rebind(_shape_base_impl)


@implements("xpshim.apply_along_axis", replaces=True)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    return _SB.apply_along_axis(user(func1d), axis, arr, *args, **kwargs)


@implements("xpshim.apply_over_axes", replaces=True)
def apply_over_axes(func, a, axes):
    return _SB.apply_over_axes(user(func), a, axes)


class _ArrayType(type):
    """``isinstance(x, ndarray)`` in NumPy's code, true of device arrays too, but for 0-d ones:
    they stand where NumPy has a scalar (an element ``condlist[0]``, a comparison ``x > 3``)."""

    def __instancecheck__(cls, x):
        return isinstance(x, numpy.ndarray) or (isinstance(x, _xp().ndarray) and x.ndim > 0)


class _ndarray(metaclass=_ArrayType):
    pass


_FB = rebind(_function_base_impl, {"ndarray": _ndarray})


@implements("xpshim.piecewise", replaces=True)
def piecewise(x, condlist, funclist, *args, **kw):
    xp = _xp()
    if isinstance(condlist, xp.ndarray) and condlist.ndim == 0:
        condlist = [condlist]  # (NumPy's x > 3 of a 0-d x is a scalar, which it makes a list of one)
    x = _FB.asanyarray(x)
    if x.ndim == 0:
        # 0-d: as one element (CuPy's 0-d arrays take no 0-d boolean mask); NumPy's functions
        # get x[cond], one element, in both
        if numpy.isscalar(condlist) or isinstance(condlist, xp.ndarray) and condlist.ndim == 0:
            condlist = [condlist]
        conds = _FB.asarray(condlist, dtype=bool)
        if conds.ndim == 1:
            return _FB.piecewise(x.reshape(1), list(conds.reshape(-1, 1)), [user(f) for f in funclist],
                                 *args, **kw).reshape(())
    return _FB.piecewise(x, condlist, [user(f) for f in funclist], *args, **kw)
