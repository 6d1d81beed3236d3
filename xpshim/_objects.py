"""What is neither a routed function nor a ufunc: CuPy's objects that are not arrays, NumPy's
functions on host copies, and ``asnumpy``.

* ``GpuObject``: a CuPy object (a random Generator, say) that hands back xpshim arrays; methods
  CuPy lacks run on NumPy's twin object (counted, warned);
* ``on_host``: NumPy's function with GPU arrays among its arguments copied to the host first
  (counted): for modules xpshim does not route (``numpy.testing``, ...);
* ``asnumpy``: a NumPy array of any array's data.
"""

import functools
import inspect
import operator

import numpy

from . import _backend, _fallback, _gaps, _transfer
from . import _methods  # noqa: F401  (the GPU arrays a GPU object answers with have NumPy's methods)
from ._arguments import call_gpu, gpu_args, locate, to_host_args
from ._cpupath import describe as _describe
from ._ndarray import (element_readers, host, host_only_dtype, in_bounds_arrays, ndarray, read_only_arrays,
                       refuse_write, wrap)
from ._registry import ARRAY_PARAMS

def _sizes(args):
    """Shapes given as tuples that hold 0-d GPU integers (``rng.random(tuple(hi - lo))``) as
    Python ints, which NumPy reads through __index__ and CuPy's methods do not."""
    if not any(type(x) is tuple and any(type(v) is ndarray for v in x) for x in args):
        return args
    return tuple(tuple(operator.index(v) if type(v) is ndarray else v for v in x) if type(x) is tuple else x
                 for x in args)


def _host_only_data(args):
    """Whether an argument is host data of no GPU form: strings, or a list or NumPy array of them
    (or of objects)."""
    for x in args:
        t = type(x)
        if t is str or t is bytes:
            return True
        if t is numpy.ndarray and host_only_dtype(x.dtype):
            return True
        if (t is list or t is tuple) and x and any(type(v) is str or type(v) is bytes for v in x):
            return True
    return False


def _size(k, v):
    """A keyword's value with 0-d GPU integers in a shape as ints (``size=n``, ``size=(n, m)``)."""
    if k == "size" and type(v) is ndarray and v.ndim == 0:
        return operator.index(v)
    return _sizes((v,))[0] if type(v) is tuple else v


# Methods of GPU objects that write into their first argument (besides every out=)
_WRITES_FIRST = frozenset({"shuffle"})
# NumPy's Generator methods that check their out= array's layout before drawing, and whether
# they want it C-ordered (numpy/random/_common.pyx, check_output; its callers in _generator.pyx).
# CuPy's check differs in its words and takes what it has copied over from a NumPy array
# (cupy/random/_generator_api.pyx, Generator._check_output_array): NumPy's is made here.
_OUT_LAYOUT = {"random": False, "standard_normal": False, "standard_exponential": False, "standard_gamma": True}


def _check_out_layout(name, out):
    """NumPy's ValueError for an out= array its random method ``name`` cannot fill in place."""
    c_only = _OUT_LAYOUT.get(name)
    if c_only is None or out is None:
        return
    f = out.flags
    if not (f.writeable and f.aligned and out.dtype.isnative and (f.c_contiguous or (f.f_contiguous and not c_only))):
        raise ValueError(f"Supplied output array must be {'C-' if c_only else ''}contiguous, writable, aligned, and "
                         "in machine byte-order.")


def _writes_back(label, name, f, twin):
    """``f`` (a GPU object's method) made to write into NumPy arrays it is given to write into
    (``shuffle(x)``, any ``out=``): each goes to the GPU as an xpshim array, and the result is
    copied back into it (both copies counted), so the write lands where NumPy puts it. A list
    to write into is NumPy's method's, on the host (``twin``; a counted fallback)."""
    first = name in _WRITES_FIRST

    def call(*args, **kwargs):
        if first and args and type(args[0]) is list and twin is not None:
            return _fallback.run(f"{label}.{name}", getattr(twin, name), args, kwargs,
                                 "a list is written into in place on the host")
        out = kwargs.get("out") if kwargs else None
        if read_only_arrays or in_bounds_arrays or element_readers:  # (a write into a GPU array: as every write)
            if first and args and type(args[0]) is ndarray:
                refuse_write(args[0], _numpys_write(twin, name, False))
            if type(out) is ndarray:
                refuse_write(out, _numpys_write(twin, name, True))
        back = []
        if first and args and type(args[0]) is numpy.ndarray and not host_only_dtype(args[0].dtype):
            d = wrap(_transfer.to_device(args[0], f"{label}.{name} of a NumPy array"))
            back.append((args[0], d))
            args = (d, *args[1:])
        if type(out) is numpy.ndarray or type(out) is ndarray:
            _check_out_layout(name, out)
        if type(out) is numpy.ndarray and not host_only_dtype(out.dtype):
            d = wrap(_transfer.to_device(out, f"out= of {label}.{name}"))
            back.append((out, d))
            kwargs = {**kwargs, "out": d}
        r = f(*args, **kwargs)
        for h, d in back:
            h[...] = host(d, f"{label}.{name} into a NumPy array")
            if r is d:
                r = h  # (NumPy answers with out= itself)
        return r
    call.__name__ = name
    return call


def _numpys_write(twin, name, into_out):
    """The write of NumPy's method ``name`` into a host array (as its first argument, or its
    ``out=``), on a copy of NumPy's object ``twin`` (its stream untouched): given a read-only
    array, NumPy's own error (``shuffle``: "array is read-only"; ``permuted``: "out is
    read-only"); None where there is no twin (the generic refusal then)."""
    if twin is None:
        return "output" if into_out else "assign"

    def replay(h):
        import copy

        m = getattr(copy.deepcopy(twin), name)
        if not into_out:
            return m(h)
        try:
            return m(out=h)
        except TypeError:  # (a required argument besides out=: the array permuted's, a shape)
            return m(numpy.zeros(h.shape), out=h)
    return replay


class GpuObject:
    """A CuPy object that is not an array (a random Generator, say), made to hand
    back xpshim arrays. Methods CuPy lacks run on ``host_twin`` (counted, warned).
    Methods that write into an argument write into it on either device (``_writes_back``)."""

    __slots__ = ("_obj", "_twin", "_label")

    def __init__(self, obj, host_twin, label):
        self._obj, self._twin, self._label = obj, host_twin, label

    def __getattr__(self, name):
        f = self._method(name)
        if callable(f) and (name in _WRITES_FIRST or _takes_out(f, name, self._twin)):
            return _writes_back(self._label, name, f, self._twin)
        return f

    def _method(self, name):
        c = getattr(self._obj, name, None)
        g = _gaps.lookup(f"{self._label}.{name}")
        if g is not None and (c is None or g.replaces):
            obj, label, twin, self_ = self._obj, self._label, self._twin, self

            def filled(*args, **kwargs):
                if twin is not None and _host_only_data(args):  # (strings: as on_gpu below)
                    return _fallback.run(f"{label}.{name}", getattr(twin, name), args, kwargs,
                                         "its data has no GPU form (strings or objects)")
                a, kw = gpu_args(args, kwargs, ((), ARRAY_PARAMS, False))
                try:
                    return wrap(call_gpu(g.fn, [self_ if g.holder else obj, *a], kw))
                except _gaps.Decline as e:
                    return _fallback.run(f"{label}.{name}", getattr(twin, name), args, kwargs,
                                         f"CuPy's {label} has no {name}, and xpshim's GPU version "
                                         f"does not cover this case ({e})")
            filled.__name__ = name
            return filled
        if c is None and self._twin is not None and hasattr(self._twin, name):
            h = getattr(self._twin, name)
            if not callable(h):
                return h

            def on_host(*args, **kwargs):
                return _fallback.run(f"{self._label}.{name}", h, args, kwargs, f"CuPy's {self._label} has no {name}")
            return on_host
        if c is None:
            raise AttributeError(f"{self._label} has no attribute {name!r}")
        if not callable(c):
            return wrap(c)

        twin = self._twin

        def on_gpu(*args, **kwargs):
            if twin is not None and _host_only_data(args):
                # (rng.choice(['pooh', 'rabbit'], 5): strings, objects have no GPU form: NumPy's
                # method on NumPy's generator, a counted, warned host run)
                return _fallback.run(f"{self._label}.{name}", getattr(twin, name), args, kwargs,
                                     "its data has no GPU form (strings or objects)")
            a, kw = gpu_args(_sizes(args), {k: _size(k, v) for k, v in kwargs.items()} if kwargs else kwargs,
                             ((), ARRAY_PARAMS, False))
            return wrap(call_gpu(c, a, kw))
        on_gpu.__name__ = name
        return on_gpu

    def __repr__(self):
        return f"<{self._label} on the GPU>"


_TAKES_OUT = {}  # (type of NumPy's object, method name) -> whether it takes out=


def _takes_out(f, name, twin):
    """Whether NumPy's method ``name`` (on ``twin``, NumPy's object) takes ``out=``."""
    key = (type(twin), name)
    hit = _TAKES_OUT.get(key)
    if hit is None:
        h = getattr(twin, name, None)
        try:
            hit = h is not None and "out" in inspect.signature(h).parameters
        except (TypeError, ValueError):
            hit = True  # (a builtin without a signature: the call's keywords tell)
        _TAKES_OUT[key] = hit
    return hit


def on_host(qualname, npf, modname):
    """NumPy's ``npf`` called with host copies (counted) of any GPU arrays among its arguments."""
    def wrapper(*args, **kwargs):
        __tracebackhide__ = True  # pytest shows the caller's line, as for NumPy's asserts
        if _backend.live and locate(args, kwargs) == "gpu":
            args, kwargs = to_host_args(args, kwargs, qualname)
        return npf(*args, **kwargs)

    name = getattr(npf, "__name__", qualname.rsplit(".", 1)[-1])
    return _describe(functools.update_wrapper(wrapper, npf, assigned=(), updated=()), modname, name, npf,
                     "runs NumPy's on the host; GPU arrays are copied there first (counted)")


def asnumpy(x):
    """A NumPy array with the data of ``x``: GPU arrays are copied (counted), the rest as numpy.asarray."""
    if type(x) is ndarray:
        return host(x, "asnumpy")
    if _backend.is_raw_gpu_array(x):
        return _transfer.to_host(x, "asnumpy")
    return numpy.asarray(x)
