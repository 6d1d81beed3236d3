"""xpshim's ufunc: NumPy's ufunc itself while no GPU array can exist, routed once one can.

This module is what the CPU path loads for a ufunc: the class, and the switch between NumPy's
ufunc and the routed call (``_point``). The routed calls (``_ufuncroute``) and the routing
machinery under them are imported only when the GPU becomes live, so a short script on the CPU
whose first xpshim call is ``np.sqrt(x)`` loads none of them.
"""

import functools
import sys
import weakref

from . import _backend, _errors


class ufunc(functools.partial):
    """A NumPy ufunc that runs on the device of its inputs.

    Calls, ``reduce``, ``accumulate``, ``outer``, ``at`` and ``reduceat`` run on
    CuPy for GPU inputs where CuPy has them (reductions map to the equivalent
    CuPy reduction), else on the host (a counted, warned fallback). Every
    attribute (``nin``, ``types``, ``identity``, ...) is NumPy's.
    """

    # (a functools.partial: its call is C code, made NumPy's ufunc itself while no GPU array can
    # exist and the routed call once one may (``_point``), so a loop of small ufunc calls on the
    # CPU pays no Python frame for xpshim: a frame is 10-15% of np.sqrt on 8 elements)
    __slots__ = ("_np", "_route", "__name__", "__qualname__", "__wrapped__")

    def __new__(cls, *args, **kwargs):
        return functools.partial.__new__(cls, args[0])  # (what it calls is set by _point)

    def __init__(self, npu, modname="xpshim"):
        self._np = npu
        self._route = None  # (its _ufuncroute.UfuncRoute, made once the GPU is live: _routing)
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

    def _routing(self):
        """This ufunc's routed calls (``_ufuncroute.UfuncRoute``), made on first need."""
        r = self._route
        if r is None:
            from . import _ufuncroute

            r = self._route = _ufuncroute.UfuncRoute(self, self._np, self.__module__)
        return r

    def _point(self, live):
        """Make a call of this ufunc call NumPy's (no GPU array can exist) or the routed call."""
        functools.partial.__setstate__(self, (self._routing().fast if live else self._np, (), None, self.__dict__))

    def _method(self, method, args, kwargs):
        npm = getattr(self._np, method)
        if not _backend.live:
            return npm(*args, **kwargs)
        from ._registry import UFUNC_ACCUMULATE, UFUNC_REDUCE  # (CuPy's reductions standing for them)

        table = UFUNC_REDUCE if method == "reduce" else UFUNC_ACCUMULATE if method == "accumulate" else None
        return self._routing().method(method, table, args, kwargs)

    def reduce(self, *args, **kwargs):
        try:
            return self._method("reduce", args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)

    def accumulate(self, *args, **kwargs):
        try:
            return self._method("accumulate", args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)

    def reduceat(self, *args, **kwargs):
        try:
            return self._method("reduceat", args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)

    def outer(self, *args, **kwargs):
        try:
            return self._method("outer", args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)

    def at(self, *args, **kwargs):
        try:
            return self._method("at", args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)

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
