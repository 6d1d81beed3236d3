"""A ufunc's calls once a GPU array can exist: where each runs, and the call there.

``_ufunc.ufunc`` calls NumPy's ufunc itself while no GPU array can exist; once the GPU is live it
calls ``UfuncRoute.fast`` (its commonest cases, then ``call``; made then, so the CPU path never
loads this module). Plain cases take the fewest steps: NumPy arrays and numbers are NumPy's
call; GPU arrays and Python numbers are CuPy's ufunc (``on_gpu``); the rest goes through
``dispatch``, and what has no CuPy form through the name's ``Route`` (the gap table's version,
or a counted host fallback).
"""

import numpy

from . import _backend, _device, _errors, _fallback, _gaps, _placement, _signatures
from . import _ndarray as _arrays
from ._arguments import (NUMPY_SCALARS, array_like, as_indices, call_gpu, host_class, host_outs, interface_like,
                         kwargs_gap, locate, numbers_alone, out_of_memory, through_stand_ins, to_host_args)
from ._ndarray import (arraylike, as_value, dev, fresh, host_only_dtype, element_readers, in_bounds_arrays, keep_order, ndarray,
                       read_only_arrays, refuse_outs, refuse_write, wrap)
from ._registry import NO_OP_KWARGS
from ._route import Route, gpu_result, refusal

_MISSING = object()
_HOST_ARRAY = numpy.ndarray

# CuPy's add.at (a scatter-add with atomics) takes these dtypes; its other ufunc.at
# methods take fewer (subtract.at: int32 and uint32 only), so those, and add.at on
# other dtypes, run as xpshim's kernel (_gaps.ufuncs.at), in NumPy's order.
_ADD_AT_DTYPES = frozenset(map(numpy.dtype, ("float16", "float32", "float64", "int32", "uint32", "uint64")))


def _fast_call(route):
    """``route.call`` with its commonest cases first, as a closure over what they read (no bound
    method, no attribute lookups): NumPy arrays and numbers alone (NumPy's ufunc at once, the
    loops' common case), or GPU arrays with Python numbers, no keyword. What the ufunc calls once
    the GPU is live (``_ufunc._point``): through the method, ``np.sqrt`` of 16 NumPy float64 cost
    0.36 us over NumPy's call on the development machine, 0.31 this way."""
    npf, on_gpu, call, binary = route.np, route.on_gpu, route.call, route.nin == 2
    H, G = _HOST_ARRAY, ndarray

    def fast(*args, **kwargs):
        try:
            if kwargs:
                return call(*args, **kwargs)
            n = len(args)
            if n == 1:
                x = args[0]
                t = type(x)
                if t is H:
                    r = npf(x)
                    if type(r) is H and r.size >= _placement.limit:
                        p = _placement.promote(r, args, kwargs)
                        return p if p is r else wrap(p)
                    return r
                if t is G and not x._st.host and x._d is not None and _backend.live:
                    return on_gpu(args, None)  # (np.sqrt(a): none of call's steps applies)
                if t is float or t is int or t in NUMPY_SCALARS:
                    return npf(x)
            elif n == 2:
                x, y = args
                t, t1 = type(x), type(y)
                if (t is H or t is float or t is int) and (t1 is H or t1 is float or t1 is int):
                    r = npf(x, y)
                    if (t is H or t1 is H) and type(r) is H and r.size >= _placement.limit:
                        p = _placement.promote(r, args, kwargs)
                        return p if p is r else wrap(p)
                    return r
                if binary and (t is G or t1 is G) and (t is G or t is float or t is int) and (
                        t1 is G or t1 is float or t1 is int) and _backend.live and (
                        t is not G or (not x._st.host and x._d is not None)) and (
                        t1 is not G or (not y._st.host and y._d is not None)):
                    return on_gpu(args, None)  # (GPU arrays with their data on the device, and numbers)
            return call(*args, **kwargs)
        except Exception as e:
            raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)
    return fast


class UfuncRoute:
    """The routed calls of one xpshim ufunc (``ufunc``, NumPy's ``np``), by its ``Route``."""

    __slots__ = ("ufunc", "np", "name", "route", "nin", "fast")

    def __init__(self, ufunc, npu, modname):
        self.ufunc, self.np, self.name, self.nin = ufunc, npu, npu.__name__, npu.nin
        self.route = Route(f"{modname}.{npu.__name__}", npu, npu.__name__)
        self.route.ordered = True  # (elementwise: a new answer in NumPy's memory order, where the gap table answers)
        self.fast = _fast_call(self)

    def call(self, *args, **kwargs):
        """The ufunc's call once a GPU array can exist, for what ``fast`` (the call ``ufunc``'s
        ``_point`` makes) does not take itself."""
        try:
            if not _backend.live:
                return self.np(*args, **kwargs)
            nin = self.nin
            if len(args) > 1 and len(args) > nin:  # out given by position: NumPy's out=
                if len(args) > self.np.nargs:  # (NumPy's TypeError, raised before it reads an argument)
                    return self.np(*args, **kwargs)
                kwargs = {**kwargs, "out": args[nin:] if len(args) - nin > 1 else args[nin]}
                args = args[:nin]
            if (read_only_arrays or in_bounds_arrays or element_readers) and kwargs.get("out") is not None:  # (a read-only out=)
                refuse_outs(kwargs["out"])
            if not kwargs or (len(kwargs) == 1 and "out" in kwargs):  # the common cases, without a call to locate
                on_host = on_gpu = False
                for x in args:
                    t = type(x)
                    if t is _HOST_ARRAY:
                        on_host = True
                    elif t is ndarray and not x._st.host and x._d is not None:  # (x._a is x._d)
                        on_gpu = True
                    elif t in NUMPY_SCALARS:
                        on_host = True
                    elif t is not float and t is not int:
                        break
                else:
                    if on_gpu:
                        if not on_host:  # GPU arrays and Python numbers only (and out=, a GPU array)
                            if not kwargs:
                                return self.on_gpu(args, None)
                            out = kwargs["out"]
                            if type(out) is ndarray and not out._st.host and out._d is not None:
                                return self.on_gpu(args, out)
                    elif on_host and not kwargs:  # NumPy arrays and numbers only
                        r = self.np(*args)
                        if type(r) is _HOST_ARRAY and r.size >= _placement.limit:
                            p = _placement.promote(r, args, kwargs)
                            return p if p is r else wrap(p)
                        return r
            return self.dispatch(args, kwargs)
        except Exception as e:
            raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)

    def on_gpu(self, args, out):
        """``dispatch``'s answer for GPU arrays whose data is on the device and Python numbers, with
        no keyword or only ``out=``, a GPU array likewise (``np.sqrt(a)``, ``np.add(a, 1.0)``,
        ``np.add(a, b, out=c)``), in fewer steps: none of its checks applies."""
        r = self.route
        cpf = r.resolved if r.resolved_for is _backend.xp else r.cpf  # (the property resolves it per backend)
        if cpf is None:
            return r.gpu(args, {} if out is None else {"out": out})
        try:
            if out is not None:
                res = cpf(*[x._d if type(x) is ndarray else x for x in args], out=out._d)
            elif len(args) == 1:
                res = cpf(args[0]._d)
            else:
                res = cpf(*[x._d if type(x) is ndarray else x for x in args])
        except _backend.xp.cuda.memory.OutOfMemoryError as e:
            raise out_of_memory(cpf, e) from e
        except Exception as e:
            if not refusal(e):
                raise
            return self.refused(args, {} if out is None else {"out": out}, e)
        if out is not None:
            fresh(res, args)
            return out  # (NumPy answers with out= itself)
        if type(res) is not _arrays.device_ndarray or res.ndim > 1:  # (keep_order's first check, inline)
            res = _ordered(res, args)
        return fresh(res, args)

    def dispatch(self, args, kwargs):
        """The call's device from its arguments, and the call there."""
        if kwargs and _device.placing():
            out = kwargs.get("out")
            o = out[0] if type(out) is tuple and len(out) == 1 else out
            if type(o) is numpy.ndarray and any(x is o for x in args):
                # auto mode, a NumPy array updated in place with GPU operands (A += n * np.eye(n)):
                # its data stays where the result lands, the host, and NumPy's call runs there on
                # copies of the GPU operands (one crossing instead of A up and its result down)
                a, kw = to_host_args(args, kwargs, f"{self.name} in place into a NumPy array")
                return self.np(*a, **kw)
        loc = locate(args, kwargs)
        if loc is None:  # scalars and lists: small; numbers alone, NumPy's scalar on either device
            loc = "cpu" if _device.placing() or numbers_alone(args, kwargs) else _device.current_device()
        if loc == "cpu":
            r = self.np(*args, **kwargs)
            if type(r) is numpy.ndarray and r.size >= _placement.limit:
                p = _placement.promote(r, args, kwargs)
                return p if p is r else wrap(p)
            return r
        r = self.route
        for x in args:  # a NumPy longdouble, object, ... operand: no GPU form, NumPy's loop
            if type(x) is ndarray:
                continue
            if type(x) is str or type(x) is bytes or (
                    (type(x) is numpy.ndarray or isinstance(x, numpy.generic)) and host_only_dtype(x.dtype)) or (
                    (type(x) is list or type(x) is tuple) and x and type(x[0]) is str):  # (['a'] * 40)
                a, kw = to_host_args(args, kwargs, f"{r.name} of a {numpy.asarray(x).dtype} operand (no GPU form)")
                return self.np(*a, **kw)
            if host_class(x) is not None or array_like(x) or interface_like(x):
                return self.not_arrays(args, kwargs)
        cpf = r.cpf
        if cpf is None:  # (the gap table's version, or the host: through the function route, which
            return r.gpu(args, kwargs)  # also takes a host out= and a ufunc's out=(a,))
        if not kwargs:
            try:
                return fresh(_ordered(call_gpu(cpf, [x._a if type(x) is ndarray else arraylike(x) for x in args], kwargs),
                                      args), args)
            except Exception as e:
                if not refusal(e):
                    raise
                return self.refused(args, kwargs, e)
        out = kwargs.get("out")
        if type(out) is tuple and len(out) == 1:
            kwargs = dict(kwargs, out=out[0])
        gap = [k for k in kwargs if k not in _signatures.UFUNC_KWARGS and NO_OP_KWARGS.get(k, _MISSING) is not kwargs[k]]
        if gap:  # (NumPy's call on the host writes into a NumPy out= itself: where= keeps the rest of it)
            return _fallback.run(r.name, self.np, args, kwargs,
                                 f"CuPy's ufuncs take no {', '.join(map(repr, gap))} argument")
        if host_outs(out):
            # a NumPy out= (NumPy's in-place operators on a NumPy array with a GPU operand): the
            # call writes into GPU stand-ins (NumPy's casting rule for out=), copied into it
            # (counted), so the write lands where NumPy puts it
            o = kwargs["out"]
            if any(type(v) is numpy.ndarray and host_only_dtype(v.dtype) for v in (o if type(o) is tuple else (o,))):
                a, kw = to_host_args(args, kwargs, f"{r.name} into an out= of no GPU form")
                return self.np(*a, **kw)
            return through_stand_ins(o, lambda s: self.ufunc(*args, **{**kwargs, "out": s}), r.name)
        a = [arraylike(x) for x in args]
        kw = {k: tuple(map(dev, v)) if k == "out" and type(v) is tuple else dev(v) for k, v in kwargs.items()}
        try:
            res = call_gpu(cpf, a, kw)
            res = fresh(res if out is not None else _ordered(res, args), args)
        except Exception as e:
            if not refusal(e):
                raise
            return self.refused(args, kwargs, e)
        if out is not None:
            return out if type(out) is not tuple or len(out) != 1 else out[0]
        return res

    def refused(self, args, kwargs, e, name=None, npf=None):
        """CuPy refused the call (no loop for the dtypes: ``floor`` of complex numbers, strings,
        a ``range``, a tuple of axes; CuPy's words for it): NumPy's answer on host copies, counted
        and warned, or where NumPy refuses the call too, NumPy's error (class and message), unwarned,
        as the functions' route does."""
        return _fallback.run(name or self.route.name, npf or self.np, args, kwargs,
                             f"CuPy's {self.name} refused the call ({type(e).__name__}: {str(e)[:80]})",
                             errors_unannounced=True)

    def not_arrays(self, args, kwargs):
        """A ufunc given a NumPy subclass instance (a masked array, a matrix, a user's subclass) or
        an array-like object (``__array__``), which CuPy's ufuncs refuse: NumPy's call for the
        subclass (its class kept; GPU operands copied over, counted and warned), the NumPy array
        an array-like object gives for it."""
        c = next(type(x) for x in args if host_class(x) is not None or array_like(x) or interface_like(x))
        # (NumPy's call, as the functions' route runs it for subclasses: __array_wrap__ keeps the
        # class, pandas' objects survive a ufunc so)
        why = f"{self.route.name} of a {c.__name__} (no GPU form)"
        if locate(args, kwargs) == "gpu":
            return _fallback.run(self.route.name, self.np, args, kwargs, why)
        a, kw = to_host_args(args, kwargs, why)
        return self.np(*a, **kw)

    def method(self, method, table, args, kwargs):
        """The ufunc's ``method`` (``reduce``, ``at``, ...) once a GPU array can exist: CuPy's
        reduction named in ``table``, CuPy's method, xpshim's GPU version, or NumPy's on the host."""
        npm = getattr(self.np, method)
        if read_only_arrays or in_bounds_arrays or element_readers:
            if kwargs.get("out") is not None:
                refuse_outs(kwargs["out"])
            if method == "at" and args and type(args[0]) is ndarray:
                refuse_write(args[0], "at")  # (ufunc.at writes its first argument)
        loc = locate(args, kwargs)
        if loc is None:
            loc = "cpu" if _device.placing() else _device.current_device()
        if loc == "cpu":
            r = npm(*args, **kwargs)
            if type(r) is numpy.ndarray and r.size >= _placement.limit:  # (outer grows)
                p = _placement.promote(r, args, kwargs)
                return p if p is r else wrap(p)
            return r
        name = f"{self.route.name}.{method}"
        for x in args:  # (strings, object arrays: no GPU form; NumPy's method says what it does)
            if type(x) is str or type(x) is bytes or (type(x) is numpy.ndarray and host_only_dtype(x.dtype)):
                a, kw = to_host_args(args, kwargs, f"{name} of a {numpy.asarray(x).dtype} operand (no GPU form)")
                return npm(*a, **kw)
        if method == "at" and args and type(args[0]) is numpy.ndarray:
            # a NumPy array to update: NumPy's at writes into it, its GPU indices and values
            # copied over (counted), as the functions that write into their argument do (_route)
            a, kw = to_host_args(args, kwargs, f"{name} into a NumPy array")
            return npm(*a, **kw)
        out = kwargs.get("out")
        if out is not None and host_outs(out):
            # a NumPy out=: the method writes into a GPU stand-in (NumPy's dtype for the
            # computation is out's), copied into it (counted); NumPy answers with the array
            o = out[0] if type(out) is tuple and len(out) == 1 else out
            return through_stand_ins(o, lambda s: self.method(method, table, args, {**kwargs, "out": s}), name)
        if out is not None and method != "outer" and kwargs.get("dtype") is None and args:
            # reduce, accumulate and reduceat choose their loop with out='s dtype where no dtype is
            # given (int8 data reduced into a float64 out= does not wrap around): NumPy's choice,
            # asked of NumPy (its error where it has none), given as dtype= where it is one dtype
            o = out[0] if type(out) is tuple and len(out) == 1 else out
            a = args[0]
            if type(o) is ndarray and hasattr(a, "dtype"):
                loop = self.np.resolve_dtypes((o.dtype, a.dtype, None), reduction=True)
                if loop[0] != loop[1] or loop[1] != loop[2]:
                    return _fallback.run(name, npm, args, kwargs, f"its loop for these dtypes mixes them ({loop})",
                                         writeback_first=False)
                kwargs = {**kwargs, "dtype": loop[0]}
        via = table.get(self.name) if table else None
        if via is not None and len(args) == 1:
            f = getattr(_backend.xp, via)
            kw = dict(kwargs)
            kw.setdefault("axis", 0)  # ufunc.reduce and .accumulate default to axis 0
            if not kwargs_gap(f, kw):
                try:
                    r = wrap(call_gpu(f, [arraylike(args[0])], {k: dev(v) for k, v in kw.items()}))
                    if "out" not in kwargs:
                        return as_value(r)  # (a reduction to 0-d: NumPy's scalar)
                    # NumPy answers with out= itself (CuPy's cumsum/sum may answer another view of it)
                    o = kwargs["out"]
                    o = o[0] if type(o) is tuple and len(o) == 1 else o
                    return o if type(o) is ndarray else r
                except Exception as e:  # (accumulate over a tuple of axes: NumPy's ValueError)
                    if not refusal(e):
                        raise
                    return self.refused(args, kwargs, e, name, npm)
        if method == "at" and len(args) >= 2:
            # at(a, indices, b): a tuple of indices is one per axis, not an array
            ind = args[1]
            ind = tuple(as_indices(v) if type(v) is list else dev(v) for v in ind) if type(ind) is tuple else as_indices(ind)
            conv = [dev(args[0]), ind, *(arraylike(x) for x in args[2:])]
        else:
            conv = None
        if method == "outer" or (method == "at" and self.name == "add" and len(args) >= 1
                                 and getattr(args[0], "dtype", None) in _ADD_AT_DTYPES):
            cm = getattr(self.route.cpf, method, None)
            if cm is not None and not kwargs:
                return wrap(call_gpu(cm, conv or [arraylike(x) for x in args], {}))
        why = f"CuPy has no {self.name}.{method}"
        g = _gaps.lookup(name)
        pre = ()
        if g is None:
            g, pre = _gaps.lookup(f"ufunc.{method}"), (self.np,)
        if g is not None and g.covers(kwargs):
            a = conv or [arraylike(x) for x in args]
            kw = {k: dev(v) for k, v in kwargs.items()}
            try:
                r = call_gpu(g.fn, [*pre, *a], kw)
            except _gaps.Decline as e:
                why = f"{why}, and xpshim's GPU version does not cover this case ({e})"
            else:
                r = gpu_result(r, args, kwargs)
                # (a reduction to 0-d is NumPy's scalar, as the table's are above; a gap version
                # may answer a 0-d view: a value of its own then)
                return as_value(r, args) if method == "reduce" and kwargs.get("out") is None else r
        return _fallback.run(name, npm, args, kwargs, why, writeback_first=(method == "at"))


def _ordered(res, args):
    """A ufunc's new answer in NumPy's memory order (``keep_order``; each of a tuple's)."""
    if type(res) is tuple:
        return tuple(keep_order(r, args) for r in res)
    return keep_order(res, args)

