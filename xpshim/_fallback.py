"""The visible host fallback: move in, run NumPy, move back, record it, warn by policy.

Only listed gaps come here (a name, method or keyword CuPy lacks); an error
raised by CuPy on a supported call reaches the user and is never retried.
"""

import math
import operator
import sys
import warnings

import numpy

from . import _callsite, _config, _transfer
from ._errors import FallbackError, FallbackWarning
from ._ndarray import host, host_only_dtype, ndarray, wrap

_warned = set()


def to_host(x, reason):
    t = type(x)
    if t is ndarray:
        return host(x, reason)
    if t is list or t is tuple:
        if any(type(v) is ndarray for v in x):
            return t(to_host(v, reason) for v in x)
    return x


def result_to_device(r, reason="fallback result"):
    """NumPy's result of a call made on the host, as the GPU device gives it: its arrays (in
    tuples, lists and namedtuples too) copied to the GPU (counted), its scalars as they are."""
    if type(r) is numpy.ndarray:
        if host_only_dtype(r.dtype):
            return r  # object, strings, ... have no GPU form: NumPy's array, as np.array(..., dtype=object)
        return wrap(_transfer.to_device(r, reason))
    if type(r) is tuple or type(r) is list:
        return type(r)(result_to_device(v, reason) for v in r)
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return type(r)(*(result_to_device(v, reason) for v in r))
    return r


def announce(name, reason, device="GPU", back=True):
    """Apply the policy: raise, or warn once per name and user line, and count it.

    ``device`` names where the inputs lived ("GPU", or "Dask" in Dask mode); ``back``, whether
    the array results go back there (not a masked array's: NumPy's, on the host)."""
    fn, line, glb = _callsite.user_frame(3)
    _transfer.record_fallback(name, f"{fn}:{line}")
    policy = _config.fallback_policy
    if policy == "raise":
        raise FallbackError(
            f"{name} has no {device} implementation here ({reason}), and XPSHIM_FALLBACK=raise "
            "forbids running it on the host. Unset XPSHIM_FALLBACK (or set it to warn) to allow "
            "the host run, or pass host data (xpshim.asnumpy(x)) to run NumPy on purpose."
        )
    if policy == "warn" and (name, fn, line) not in _warned:
        _warned.add((name, fn, line))
        warnings.warn_explicit(
            f"{name} ran on the host with NumPy: {reason}. Its {device} inputs were copied to the "
            f"host{' and its array results back' if back else ''} (see xpshim.stats()); set "
            "XPSHIM_FALLBACK=silent to hide this or =raise to forbid it.",
            FallbackWarning, fn, line, module=glb.get("__name__", "__main__"),
            registry=glb.setdefault("__warningregistry__", {}),
        )


def run(name, npf, args, kwargs, reason, writeback_first=False, errors_unannounced=False):
    """Run NumPy's ``npf`` on host copies of GPU arguments; return device results.

    ``out=`` arrays, and the first argument when ``writeback_first`` (``ufunc.at``
    works in place), are written back to the device. With ``errors_unannounced``, a call that
    NumPy refuses raises NumPy's error without the fallback's warning (nothing ran on the host).
    """
    if not errors_unannounced:
        announce(name, reason)
    out = kwargs.get("out")
    hargs = [to_host(a, "fallback argument") for a in args]
    hkw = {k: to_host(v, "fallback argument") for k, v in kwargs.items()}
    r = npf(*hargs, **hkw)
    if errors_unannounced:
        announce(name, reason)
    if writeback_first and args and type(args[0]) is ndarray:
        _write_back(args[0], hargs[0])
    if out is not None:
        _write_back(out, hkw["out"])
        if r is hkw["out"] or (type(r) is tuple and type(out) is tuple):
            return out
    return result_to_device(r)


def _resize_check(self, kwargs):
    """NumPy's refusals of ``x.resize``: a view (it does not own its data), or, with refcheck, an
    array that views of it still use (CuPy's views hold their base: its reference count), or that
    another name or object refers to (``b = a``: the xpshim array's own count, as NumPy's C code
    counts the array's: https://github.com/numpy/numpy/blob/v2.4.0/numpy/_core/src/multiarray/shape.c)."""
    a = self._a
    if a.base is not None:
        raise ValueError("cannot resize this array: it does not own its data")
    if not kwargs.get("refcheck", True):
        return
    # (references that are not views: the wrapper's and its storage's, getrefcount's argument,
    # this function's name, and the storage's flat view of it when it has made one)
    flat = getattr(self._st, "flat", None)
    own = 4 + (flat is not None and getattr(flat, "base", None) is a)
    # (the xpshim array's: the caller's name for it, the frames of x.resize, run_method and this
    # function, and getrefcount's argument; ``np.zeros(3).resize(2)`` has one fewer)
    if sys.getrefcount(a) > own or sys.getrefcount(self) > 5:
        raise ValueError(_referenced_message())


def _same_size(self, args, kwargs):
    """The new shape of ``x.resize(*args, **kwargs)`` where it keeps the number of elements, else
    None. NumPy checks ownership and references only where it reallocates: a resize to the same
    size is a new shape over the same memory, whoever else holds it (PyArray_Resize,
    https://github.com/numpy/numpy/blob/v2.4.0/numpy/_core/src/multiarray/shape.c)."""
    if any(k != "refcheck" for k in kwargs) or not args or args == (None,):
        return None
    dims = args[0] if len(args) == 1 and not isinstance(args[0], (int, numpy.integer)) else args
    try:
        shape = tuple(operator.index(n) for n in dims)
    except TypeError:
        return None
    if any(n < 0 for n in shape) or math.prod(shape) != self.size:
        return None  # (NumPy's errors and reallocations: the host path)
    return shape


def _reshape_as_resize(self, shape):
    """``x.resize(shape)`` of as many elements: NumPy's refusal of an array in more than one
    segment, else the shape over the same memory with strides in its memory order (Fortran's
    for an array that is F- and not C-contiguous), seen by every view and name of it."""
    a = self._a
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        raise ValueError("resize only works on single-segment arrays")
    order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    self._d, self._hv = a.reshape(shape, order=order), None  # (a view: the same storage)


def _referenced_message():
    """NumPy's own words for a referenced array that ``resize`` refuses (they change between versions)."""
    h = numpy.zeros(1)
    held = [h]  # noqa: F841  (a second reference: NumPy refuses the resize)
    try:
        h.resize(2)
    except ValueError as e:
        return str(e)
    return "cannot resize an array that references or is referenced by another object in this way."


def _write_back(dev_out, host_out):
    if type(dev_out) is ndarray:
        dev_out._a[...] = _transfer.to_device(host_out, "fallback out=")
    elif type(dev_out) is tuple:
        for d, h in zip(dev_out, host_out):
            _write_back(d, h)


def run_method(self, name, args, kwargs, reason):
    """Run ``numpy.ndarray.<name>`` on a host copy of ``self``; write back if it mutates."""
    from ._registry import MUTATING_METHODS

    if name == "resize":
        shape = _same_size(self, args, kwargs)
        if shape is not None:
            _reshape_as_resize(self, shape)
            return None
        _resize_check(self, kwargs)
    announce(f"ndarray.{name}", reason)
    h = host(self, "fallback self")
    if name in MUTATING_METHODS and self._a.flags.f_contiguous and not self._a.flags.c_contiguous:
        # (resize keeps the memory order: NumPy's reads F-ordered data so; the host copy of an
        # F-ordered array is a transposed view, and resize takes an array that owns its data)
        h = numpy.asfortranarray(h) if h.flags.owndata else h.copy(order="F")
    if name == "resize" and not (h.flags.writeable and h.flags.owndata):
        # (NumPy zero-fills the grown part of a writeable array that owns its memory; a read-only
        # one's is left as the allocator gives it, zeros on one host, old bytes on another: the
        # host copy is grown as an owned, writeable copy, so the grown part reads zeros, as
        # NumPy's documentation of resize says; the array stays read-only)
        h = h.copy(order="A")  # (F-ordered data stays F-ordered, as resize reads it)
    hargs = [to_host(a, "fallback argument") for a in args]
    hkw = {k: to_host(v, "fallback argument") for k, v in kwargs.items()}
    r = getattr(h, name)(*hargs, **hkw)
    if name in MUTATING_METHODS:
        back = _transfer.to_device(h, "fallback write-back")
        if back.shape == self._a.shape and back.dtype == self._a.dtype:
            self._a[...] = back  # in place, so views of self see it too
        else:
            self._a = back  # resize(): NumPy too refuses it when views exist
    return result_to_device(r)
