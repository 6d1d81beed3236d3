"""``xpshim.numba_vectorize``: Numba's ``vectorize``, on whichever device the arguments are.

``numpy.vectorize`` stays NumPy's own (a Python loop, with otypes, excluded,
signature and cache); this is the compiled one::

    @np.numba_vectorize                                   # loops compiled per call types
    @np.numba_vectorize(["float64(float64, float64)"])    # or for these signatures only

Called on host data (NumPy arrays, scalars, lists) it is Numba's CPU ufunc and
returns NumPy results. Called with a GPU array among its arguments (or as
``out=``), the same scalar function runs as a Numba CUDA kernel on the GPU
arrays' memory, without a copy, and the result is a GPU array; host arrays
mixed in are copied over (counted). The loop (input and output dtypes) is the
one the CPU ufunc picks for the same arguments, so both devices give the same
dtypes. Both are compiled on first use, never at decoration.
"""

import functools
import threading

import numpy

from . import _backend, _transfer
from ._ndarray import element_readers, in_bounds_arrays, ndarray, read_only_arrays, refuse_write, wrap

_PY_SCALARS = (bool, int, float, complex)
_METHODS = frozenset({"reduce", "accumulate", "reduceat", "outer", "at"})


def _on_gpu(x):
    return type(x) is ndarray or _backend.is_raw_gpu_array(x)


class NumbaUfunc:
    """A function made by ``xpshim.numba_vectorize``: a ufunc on either device."""

    def __init__(self, pyfunc, signatures, options):
        if "target" in options:
            raise TypeError("xpshim.numba_vectorize takes no target: the arguments' device picks it "
                            "(use numba.vectorize for a fixed target)")
        self.pyfunc = pyfunc
        self.signatures = list(signatures)
        self.options = dict(options)
        self._lock = threading.Lock()
        self._cpu = None
        self._gpu_cache = {}
        functools.update_wrapper(self, pyfunc)

    def __repr__(self):
        return f"<xpshim.numba_vectorize ufunc {self.__name__!r}>"

    # -- the CPU ufunc ---------------------------------------------------
    def cpu(self):
        """Numba's CPU ufunc (a ``numba.vectorize`` DUFunc), compiled on first use."""
        with self._lock:
            if self._cpu is None:
                import numba

                self._cpu = numba.vectorize(self.signatures, **self.options)(self.pyfunc)
            return self._cpu

    def __call__(self, *args, **kwargs):
        out = kwargs.get("out")
        if type(out) is tuple and len(out) == 1:
            out = out[0]
        if any(_on_gpu(a) for a in args) or _on_gpu(out):
            return self._gpu_call(args, kwargs, out)
        return self.cpu()(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        attr = getattr(self.cpu(), name)  # nin, nout, types, identity, ...
        if name not in _METHODS:
            return attr

        def method(*args, **kwargs):
            if any(_on_gpu(a) for a in args) or any(_on_gpu(v) for v in kwargs.values()):
                return self._fallback(f".{name}", args, kwargs, f"{name} has no GPU kernel here")
            return attr(*args, **kwargs)

        method.__name__ = name
        return method

    # -- the GPU ufunc ---------------------------------------------------
    def _fallback(self, method, args, kwargs, reason):
        from . import _fallback

        cpu = self.cpu()
        npf = getattr(cpu, method[1:]) if method else cpu
        args = [wrap(a) if _backend.is_raw_gpu_array(a) else a for a in args]
        kw = {k: (wrap(v) if _backend.is_raw_gpu_array(v) else v) for k, v in kwargs.items()}
        r = _fallback.run(f"numba_vectorize({self.__name__}){method}", npf, args, kw, reason)
        return kwargs["out"] if "out" in kwargs and kwargs["out"] is not None else r

    def _loop(self, ops):
        """(input dtypes, output dtype) of the CPU ufunc's loop for these operands."""
        cpu = self.cpu()
        samples = [o if isinstance(o, _PY_SCALARS + (numpy.generic,)) else numpy.empty(0, o.dtype) for o in ops]
        cpu(*samples)  # compiles the loop, when the signatures are not fixed; raises as the CPU call would
        probe = [type(o) if type(o) in (int, float, complex) else numpy.dtype(o.dtype if hasattr(o, "dtype")
                 else type(o)) for o in ops]
        dts = cpu.ufunc.resolve_dtypes(tuple(probe) + (None,))
        return tuple(dts[:-1]), dts[-1]

    def _gpu_call(self, args, kwargs, out):
        from . import _kernels
        from ._kernels import vectorize as kv

        if set(kwargs) - {"out"}:
            return self._fallback("", args, kwargs, f"on GPU arrays it takes out= only, not "
                                  f"{', '.join(sorted(set(kwargs) - {'out'}))}=")
        nin = self.cpu().nin
        if len(args) != nin:
            raise TypeError(f"{self.__name__}() takes {nin} positional arguments but {len(args)} were given")
        ops = []
        for a in args:  # GPU arrays stay where they are; host data is read by NumPy (moved later)
            if type(a) is ndarray:
                ops.append(a._a)
            elif _backend.is_raw_gpu_array(a) or isinstance(a, _PY_SCALARS + (numpy.generic,)):
                ops.append(a)
            else:
                ops.append(numpy.asarray(a))
        in_dts, out_dt = self._loop(ops)
        try:
            _kernels.cuda()
        except _kernels.Unavailable as e:
            return self._fallback("", args, kwargs, str(e))
        xp = _backend.xp
        name = f"numba_vectorize({self.__name__})"
        ops = [_transfer.to_device(o, f"{name} host argument") if type(o) is numpy.ndarray else o for o in ops]
        scalars = tuple(not _backend.is_raw_gpu_array(o) for o in ops)
        shapes = [o.shape for o, s in zip(ops, scalars) if not s]
        raw_out = None if out is None else (out._a if type(out) is ndarray else out)
        if type(out) is ndarray and (read_only_arrays or in_bounds_arrays or element_readers):
            refuse_write(out, "output")  # (a write into a GPU array: as every write)
        if raw_out is not None and not _on_gpu(out):
            raise TypeError(f"{name}: out= must be a GPU array when the inputs are (got {type(out).__name__})")
        shape = numpy.broadcast_shapes(*shapes, *(() if raw_out is None else (raw_out.shape,)))
        if raw_out is not None:
            if shape != raw_out.shape:
                raise ValueError(f"{name}: non-broadcastable output operand with shape {raw_out.shape} "
                                 f"doesn't match the broadcast shape {shape}")
            if not numpy.can_cast(out_dt, raw_out.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc {self.__name__!r} output from {out_dt!r} to "
                                f"{raw_out.dtype!r} with casting rule 'same_kind'")
        direct = raw_out is not None and raw_out.dtype == out_dt and not any(
            not s and o is not raw_out and xp.may_share_memory(o, raw_out) for o, s in zip(ops, scalars))
        res = raw_out if direct else xp.empty(shape, dtype=out_dt)
        kshape = shape or (1,)  # a 0-d call runs as one element
        operands = []
        for o, s, dt in zip(ops, scalars, in_dts):
            if s:
                operands.append(dt.type(o))
            else:
                o = o if o.dtype == dt else o.astype(dt)  # on the device
                operands.append(xp.broadcast_to(o, kshape))
        kernel = kv.ufunc_kernel(self._gpu_cache, self.pyfunc, in_dts, out_dt, scalars, len(kshape),
                                 {k: v for k, v in self.options.items() if k == "fastmath"})
        try:
            kv.run(kernel, res.reshape(kshape) if not shape else res, operands)
        except Exception as e:
            from numba.core.errors import NumbaError

            if not isinstance(e, NumbaError):
                raise
            return self._fallback("", args, kwargs, f"Numba could not compile it for CUDA ({type(e).__name__}: "
                                  f"{str(e).splitlines()[0] if str(e) else ''})")
        if raw_out is None:
            return wrap(res)
        if not direct:
            raw_out[...] = res
        return out


def numba_vectorize(ftylist_or_function=(), **options):
    """Numba's ``vectorize`` that runs where its arguments are.

    ``@xpshim.numba_vectorize`` or ``@xpshim.numba_vectorize(["float64(float64, float64)"], **options)``
    (``options`` as ``numba.vectorize``'s: ``identity``, ``cache``, ``fastmath``, ...; no
    ``target``). On host data it is Numba's CPU ufunc (NumPy results); with a GPU array
    among the arguments it runs as a Numba CUDA kernel on the arrays' memory and returns
    a GPU array. Where Numba's CUDA target cannot be used, the GPU call runs the CPU
    ufunc on host copies (counted, ``xpshim.FallbackWarning``). Compiled on first call.
    """
    if callable(ftylist_or_function):
        return NumbaUfunc(ftylist_or_function, (), options)
    sigs = ftylist_or_function
    if isinstance(sigs, str):
        sigs = [sigs]

    def decorate(pyfunc):
        return NumbaUfunc(pyfunc, sigs, options)

    return decorate
