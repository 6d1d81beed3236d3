"""Where a NumPy name runs in Dask mode.

1. If a DaskArray is among the arguments (one level into lists): ``dask.array``'s function
   of the same name and submodule (``linalg``, ``fft``, ``random``) when it has one and
   takes the keywords given, minus the exceptions below; otherwise the visible, counted
   fallback: the Dask arrays are gathered whole to this process, NumPy runs, and array
   results are sent back to the cluster.
2. Else, if the current device is "dask" and the name makes arrays (``CREATION``): a new
   Dask array, in chunks of the mode's type and size.
3. Else: xpshim's ordinary call, with NumPy on this process for calls that would
   otherwise have used the "dask" device.

``install()`` hooks this into ``_namespace.resolve``; names already resolved are
dropped from the caches so that they resolve again through the hook.
"""

import functools
import inspect
import sys
import types

import numpy

from .settings import chunk_bytes, current
from .array import DaskArray, compute, dask_value, gather, to_cluster, wrap
from .. import _arguments, _cpupath, _device, _fallback, _namespace, _signatures, _transfer, _ufunc
from .._registry import MUTATING_METHODS, NO_OP_KWARGS, NUMPY_OWN, SEQUENCE_PARAMS, UFUNC_ACCUMULATE, UFUNC_REDUCE

_MISSING = object()
_APPROX = "dask.array's version is approximate (it merges per-chunk results)"
_BLOCKS = "dask.array.linalg's version needs a chunking of its own (square or tall-and-skinny blocks)"
# NumPy names dask.array has, that do not route there: name -> the reason given by the fallback.
NOT_ROUTED = {
    "percentile": _APPROX, "nanpercentile": _APPROX, "quantile": _APPROX, "nanquantile": _APPROX,
    "linalg.inv": _BLOCKS, "linalg.solve": _BLOCKS, "linalg.cholesky": _BLOCKS, "linalg.qr": _BLOCKS,
    "linalg.svd": _BLOCKS, "linalg.lstsq": _BLOCKS,
}


def _axis_none(args, kwargs):
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    return "dask.array's version works along an axis only (axis=None)" if axis is None else None


def _histogram(args, kwargs):
    bins = kwargs.get("bins", args[1] if len(args) > 1 else 10)
    rng = kwargs.get("range", args[2] if len(args) > 2 else None)
    if isinstance(bins, int) and rng is None:
        return "dask.array's version needs range= with a number of bins"
    return None


# Routed names that fall back for some arguments: name -> check(args, kwargs) -> reason or None.
CONDITIONS = {"median": _axis_none, "nanmedian": _axis_none, "histogram": _histogram}

_FFT_1D = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}


def _fft_axes(name, args, kwargs, ndim):
    if name in _FFT_1D:
        return (kwargs.get("axis", args[2] if len(args) > 2 else -1),)
    axes = kwargs.get("axes", args[2] if len(args) > 2 else None)
    if axes is None:
        return (-2, -1) if name.endswith("2") else tuple(range(ndim))
    return tuple(axes)


def _prepare(sub, name, args, kwargs):
    """Argument changes Dask needs: FFTs want the transformed axes in one chunk."""
    if sub == "fft" and name.endswith(("fft", "fft2", "fftn")) and args and type(args[0]) is DaskArray:
        x = args[0]._a
        axes = _fft_axes(name, args, kwargs, x.ndim)
        x = x.rechunk({a % x.ndim: -1 for a in axes})
        args = (wrap(x), *args[1:])
    return args, kwargs


def _reshape(x, *shape, order="C", **kw):
    """Dask's reshape, rechunking first where its own chunking cannot do it (NumPy always can)."""
    if order != "C":
        raise NotImplementedError("reshape with order other than 'C'")
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    try:
        return x.reshape(shape, **kw)
    except NotImplementedError:
        try:
            return x.rechunk({i: -1 for i in range(1, x.ndim)}).reshape(shape, **kw)
        except NotImplementedError:
            return x.rechunk(-1).reshape(shape, **kw).rechunk("auto")


# Dask calls that need more than "same name, same arguments": name -> function of Dask arrays.
ADAPTED = {"reshape": _reshape}


# ------------------------------------------------------------------ helpers

def _numpy_function(sub, name):
    return getattr(_namespace.numpy_module(sub), name)


def _dask_module(sub):
    import dask.array as da

    if not sub:
        return da
    return getattr(da, sub, None) if sub in ("linalg", "fft", "random") else None


def dask_function(sub, name):
    mod = _dask_module(sub)
    f = getattr(mod, name, None) if mod is not None else None
    return None if f is None or isinstance(f, type) or not callable(f) else f


def has_dask(args, kwargs):
    for group in (args, kwargs.values()):
        for a in group:
            t = type(a)
            if t is DaskArray:
                return True
            if t is list or t is tuple:
                for b in a:
                    if type(b) is DaskArray:
                        return True
    return False


def _kwargs_gap(f, kwargs):
    if not kwargs:
        return ()
    ok = _signatures.accepted(f)
    if ok is None:
        return ()
    return tuple(k for k in kwargs if k not in ok and NO_OP_KWARGS.get(k, _MISSING) is not kwargs[k])


def _conv(x, array_like):
    t = type(x)
    if t is DaskArray:
        return x._a
    if t is numpy.ndarray:
        return dask_value(x, "NumPy array argument")
    if t is list or t is tuple:
        if any(type(v) is DaskArray or type(v) is numpy.ndarray for v in x):
            return t(_conv(v, True) for v in x)  # a sequence of arrays (concatenate, stack, ...)
        if array_like:
            return dask_value(x, "array-like argument")
    return x


def dask_args(npf, args, kwargs):
    """Arguments in Dask's terms: DaskArrays unwrapped; NumPy arrays, and lists at
    NumPy's array-like parameters, sent to the cluster (counted)."""
    pos, names, var = _arguments.array_like_params(npf)
    at = {i for i, _ in pos}
    first_var = (pos[-1][0] + 1 if pos else 0) if var else len(args)
    a = [_conv(x, i in at or i >= first_var) for i, x in enumerate(args)]
    kw = {k: _conv(v, k in names or k in SEQUENCE_PARAMS) for k, v in kwargs.items()}
    return a, kw


@functools.lru_cache(maxsize=None)
def _chunk_config(nbytes):
    return {"array.chunk-size": int(nbytes)}


def run_dask(f, args, kwargs):
    """Call a dask.array function with the mode's chunk size as Dask's "auto"."""
    import dask

    with dask.config.set(_chunk_config(chunk_bytes())):
        return wrap(f(*args, **kwargs))


def _write_out(out, r):
    """NumPy's ``out=``: DaskArrays take the new graph, NumPy arrays the gathered values."""
    if type(out) is tuple:
        for o, v in zip(out, r):
            _write_out(o, v)
        return out
    if type(out) is DaskArray:
        a = r._a if type(r) is DaskArray else dask_value(r, "out=")
        out._a = a if a.dtype == out.dtype else a.astype(out.dtype)
    elif type(out) is numpy.ndarray:
        out[...] = gather(r, "out= NumPy array") if type(r) is DaskArray else r
    return out


def _to_host_all(args, kwargs, reason):
    """Host copies of every DaskArray in the arguments, computed together (counted)."""
    found = []

    def collect(x):
        if type(x) is DaskArray:
            found.append(x)
        elif type(x) is list or type(x) is tuple:
            for v in x:
                collect(v)
    for x in (*args, *kwargs.values()):
        collect(x)
    hosts = {}
    if found:
        values = compute(*[x._a for x in found])
        for x, h in zip(found, values):
            h = numpy.asarray(h)
            _transfer.count_copy("device_to_host", h.nbytes, f"Dask gather: {reason}")
            hosts[id(x)] = h

    def swap(x):
        if type(x) is DaskArray:
            return hosts[id(x)]
        if (type(x) is list or type(x) is tuple) and any(type(v) is DaskArray for v in x):
            return type(x)(map(swap, x))
        return x
    return [swap(a) for a in args], {k: swap(v) for k, v in kwargs.items()}


def _to_cluster_result(r):
    if type(r) is numpy.ndarray:
        return to_cluster(r, "fallback result")
    if type(r) is tuple or type(r) is list:
        return type(r)(map(_to_cluster_result, r))
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return type(r)(*map(_to_cluster_result, r))
    return r


def fallback(name, npf, args, kwargs, reason):
    """NumPy on gathered copies of the Dask arrays; array results go back to the cluster."""
    _fallback.announce(name, f"{reason}, so its Dask arrays were gathered whole to this process",
                       device="Dask")
    out = kwargs.get("out")
    hargs, hkw = _to_host_all(args, kwargs, f"fallback argument of {name}")
    if out is not None:
        hkw["out"] = _host_out(out)
    with _on_host():
        r = npf(*hargs, **hkw)
    if out is not None:
        back = _write_out(out, _to_cluster_result(hkw["out"]))
        if r is hkw["out"] or type(out) is tuple:
            return back
    return _to_cluster_result(r)


def _host_out(out):
    if type(out) is tuple:
        return tuple(map(_host_out, out))
    return numpy.empty(out.shape, out.dtype) if type(out) is DaskArray else out


class _on_host:
    """Run this block with the CPU as the current device (xpshim's own calls then use NumPy)."""

    __slots__ = ("token",)

    def __enter__(self):
        self.token = _device.set_policy("cpu", False) if _device.current_device() == "dask" else None

    def __exit__(self, *exc):
        if self.token is not None:
            _device.reset_policy(self.token)


def call(sub, name, args, kwargs):
    """A NumPy function called with DaskArrays among its arguments."""
    qual = f"{sub}.{name}" if sub else name
    label = f"xpshim.{qual}"
    npf = _numpy_function(sub, name)
    why = NOT_ROUTED.get(qual)
    f = None if why is not None else ADAPTED.get(qual) or dask_function(sub, name)
    if f is None:
        return fallback(label, npf, args, kwargs, why or f"dask.array has no {qual}")
    cond = CONDITIONS.get(qual)
    why = cond(args, kwargs) if cond is not None else None
    if why is None:
        gap = _kwargs_gap(f, {k: v for k, v in kwargs.items() if k != "out"})
        why = f"dask.array.{qual} takes no {', '.join(map(repr, gap))} argument" if gap else None
    if why is not None:
        return fallback(label, npf, args, kwargs, why)
    args, kwargs = _prepare(sub, name, args, kwargs)
    out = kwargs.pop("out", None) if "out" in kwargs else None
    a, kw = dask_args(npf, args, kwargs)
    r = run_dask(f, a, kw)
    return r if out is None else _write_out(out, r)


# ------------------------------------------------------------------ ufuncs

def ufunc_call(npu, method, inputs, kwargs):
    """A NumPy ufunc (or one of its methods) on DaskArrays."""
    import dask.array as da

    label = f"xpshim.{npu.__name__}" + ("" if method == "__call__" else f".{method}")
    npm = npu if method == "__call__" else getattr(npu, method)
    df = getattr(da, npu.__name__, None)
    if not isinstance(df, da.ufunc.ufunc):
        df = None
    f, kw = None, dict(kwargs)
    if method == "__call__":
        if df is not None:
            f = df
        elif npu.signature is None and npu.nout == 1:
            f = functools.partial(da.elemwise, npu)  # any elementwise ufunc runs block by block
    elif method in ("reduce", "accumulate") and len(inputs) == 1:
        via = (UFUNC_REDUCE if method == "reduce" else UFUNC_ACCUMULATE).get(npu.__name__)
        if via is not None:
            f = getattr(da, via)
            kw.setdefault("axis", 0)
            if _kwargs_gap(f, {k: v for k, v in kw.items() if k != "out"}):
                f = None
    elif method == "outer" and df is not None and not kwargs:
        f = df.outer
    if f is None:
        return fallback(label, npm, inputs, kwargs, f"dask.array has no {npu.__name__}.{method}"
                        if method != "__call__" else f"dask.array has no ufunc {npu.__name__}")
    out = kw.pop("out", None)
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    a = [_conv(x, True) for x in inputs]
    kw = {k: _conv(v, k == "where") for k, v in kw.items()}
    r = run_dask(f, a, kw)
    return r if out is None else _write_out(out, r)


class DaskUfunc(_ufunc.ufunc):
    """xpshim's ufunc, with DaskArray inputs routed to dask.array."""

    __slots__ = ()

    def __init__(self, base):
        super().__init__(base._np, base.__module__)

    def __call__(self, *args, **kwargs):
        if has_dask(args, kwargs):
            return ufunc_call(self._np, "__call__", args, kwargs)
        with _on_host():
            return _ufunc.ufunc.__call__(self, *args, **kwargs)

    def _method(self, method, args, kwargs):
        if has_dask(args, kwargs):
            return ufunc_call(self._np, method, args, kwargs)
        with _on_host():
            return _ufunc.ufunc._method(self, method, args, kwargs)


# ------------------------------------------------------------------ creation

def _bind(npf, args, kwargs):
    b = inspect.signature(npf).bind(*args, **kwargs)
    b.apply_defaults()
    return b.arguments


def _chunks_kw():
    c = current().chunks
    return {} if c is None else {"chunks": c}


def _from_data(name):
    def make(args, kwargs):
        x = args[0] if args else kwargs.get("object", kwargs.get("a"))
        if type(x) is DaskArray:
            dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            a = x._a if dtype is None or numpy.dtype(dtype) == x.dtype else x._a.astype(dtype)
            copy = kwargs.get("copy", True if name == "array" else None)
            return wrap(a.copy()) if copy and a is x._a else (x if a is x._a else wrap(a))
        kwargs.pop("like", None)
        with _on_host():
            h = getattr(numpy, name)(*args, **kwargs)  # NumPy reads lists, PIL images, ...
        return to_cluster(h, name)
    return make


def _shaped(dask_name, extra=()):
    def make(args, kwargs):
        import dask.array as da

        b = _bind(getattr(numpy, dask_name), args, kwargs)
        kw = {k: b[k] for k in ("dtype", *extra) if b.get(k) is not None}
        if dask_name == "full" and "dtype" not in kw:
            kw["dtype"] = numpy.asarray(b["fill_value"]).dtype
        pre = (b["fill_value"],) if dask_name == "full" else ()
        return run_dask(getattr(da, dask_name), (b["shape"], *pre), {**kw, **_chunks_kw()})
    return make


def _passthrough(dask_name, sub=""):
    def make(args, kwargs):
        kwargs = {k: v for k, v in kwargs.items() if k not in ("like", "device", "order")}
        return run_dask(dask_function(sub, dask_name), args, {**kwargs, **_chunks_kw()})
    return make


def _eye(args, kwargs):
    import dask.array as da

    b = _bind(numpy.eye, args, kwargs)
    return run_dask(da.eye, (b["N"],), {"M": b["M"], "k": b["k"], "dtype": b["dtype"], **_chunks_kw()})


def _identity(args, kwargs):
    import dask.array as da

    b = _bind(numpy.identity, args, kwargs)
    return run_dask(da.eye, (b["n"],), {"dtype": b["dtype"] or float, **_chunks_kw()})


def _linspace(args, kwargs):
    import dask.array as da

    b = _bind(numpy.linspace, args, kwargs)
    if b["axis"] != 0 or numpy.ndim(b["start"]) or numpy.ndim(b["stop"]):
        return _host_then_send("linspace", args, kwargs)
    return run_dask(da.linspace, (b["start"], b["stop"], b["num"]),
                    {"endpoint": b["endpoint"], "retstep": b["retstep"], "dtype": b["dtype"], **_chunks_kw()})


def _host_then_send(name, args, kwargs):
    with _on_host():
        r = getattr(numpy, name)(*args, **kwargs)
    return _to_cluster_result(r)


def _random(dask_name, dims_varargs=False):
    def make(args, kwargs):
        import dask.array as da

        if dims_varargs:  # rand(d0, d1, ...), randn(d0, d1, ...)
            args, kwargs = (), {"size": args or None}
        return run_dask(getattr(da.random, dask_name), args, {**kwargs, **_chunks_kw()})
    return make


def _seed(args, kwargs):
    import dask.array as da

    numpy.random.seed(*args, **kwargs)
    da.random.seed(*args, **kwargs)


class DaskGenerator:
    """``xpshim.random.default_rng()`` in Dask mode: dask.array's Generator, DaskArrays out."""

    __slots__ = ("_g",)

    def __init__(self, g):
        self._g = g

    def __getattr__(self, name):
        m = getattr(self._g, name)
        if not callable(m):
            return m

        def sample(*args, **kwargs):
            return run_dask(m, [_conv(x, False) for x in args], {**kwargs, **_chunks_kw()})
        sample.__name__ = name
        return sample

    def __repr__(self):
        return f"<random.Generator in Dask mode: {self._g!r}>"


def _default_rng(args, kwargs):
    import dask.array as da

    return DaskGenerator(da.random.default_rng(*args, **kwargs))


_FROM_DATA = ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray")


def _creation_table():
    t = {n: _from_data(n) for n in _FROM_DATA}
    t.update({n: _shaped(n) for n in ("zeros", "ones", "empty")})
    t["full"] = _shaped("full")
    t.update(arange=_passthrough("arange"), tri=_passthrough("tri"), indices=_passthrough("indices"),
             fromfunction=_passthrough("fromfunction"), tril_indices=_passthrough("tril_indices"),
             triu_indices=_passthrough("triu_indices"), eye=_eye, identity=_identity, linspace=_linspace)
    import dask.array as da

    for n in dir(numpy.random):
        if not n.startswith("_") and n not in ("Generator", "RandomState", "default_rng", "seed") \
                and callable(getattr(da.random, n, None)) and not isinstance(getattr(da.random, n), type):
            t[f"random.{n}"] = _random(n)
    t.update({"random.rand": _random("random", True), "random.randn": _random("standard_normal", True),
              "random.seed": _seed, "random.default_rng": _default_rng})
    return t


CREATION = {}  # "name" or "sub.name" -> make(args, kwargs), filled by install()


# ------------------------------------------------------------------ the hook

def _routed(sub, name, obj):
    qual = f"{sub}.{name}" if sub else name
    make = CREATION.get(qual)
    data = qual in _FROM_DATA

    def wrapper(*args, **kwargs):
        on_dask = _device.current_device() == "dask"
        if data:  # creation from data: always on the current device, as elsewhere in xpshim
            return make(args, kwargs) if on_dask else obj(*args, **kwargs)
        if has_dask(args, kwargs):
            return call(sub, name, args, kwargs)
        if on_dask:
            if make is not None:
                return make(args, kwargs)
            with _on_host():
                return obj(*args, **kwargs)
        return obj(*args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__module__ = getattr(obj, "__module__", "xpshim")
    wrapper.__wrapped__ = getattr(obj, "__wrapped__", obj)
    wrapper.__doc__ = getattr(obj, "__doc__", None)
    # NumPy's C functions do not bind as methods; keep each object's kind.
    return wrapper if isinstance(obj, types.FunctionType) else _cpupath.non_binding(wrapper)


def hook(sub, name, obj):
    """``_namespace.resolve``'s result, made Dask-aware (types, constants and NumPy's own kept)."""
    if isinstance(obj, _ufunc.ufunc):
        return obj if isinstance(obj, DaskUfunc) else DaskUfunc(obj)
    if not callable(obj) or isinstance(obj, (type, types.ModuleType)) or name in NUMPY_OWN:
        return obj
    return _routed(sub, name, obj)


def _is_resolved_wrapper(name, v, own):
    if name.startswith("_") or name in own or isinstance(v, (type, types.ModuleType)):
        return False
    return callable(v)  # what resolve() cached: functions, ufuncs, handwritten objects


_saved = {}  # (module, name) -> the object resolved before Dask mode, restored by uninstall()


def install():
    """Hook Dask mode into name resolution; names resolved before resolve again through it."""
    CREATION.update(_creation_table())
    _namespace.dask_hook = hook
    _saved.update(_forget_resolved())
    _tell_numba()


def uninstall():
    _namespace.dask_hook = None
    _forget_resolved()
    for (modname, name), v in _saved.items():
        setattr(sys.modules[modname], name, v)
    _saved.clear()


def _forget_resolved():
    """Drop the names cached by resolve() (xpshim and its routed submodules); return them."""
    own = getattr(sys.modules.get("xpshim"), "_OWN", None)
    if own is None:
        return {}  # xpshim is being imported (XPSHIM_DEVICE=dask): nothing is resolved yet
    dropped = {}
    for modname, mod in list(sys.modules.items()):
        if modname == "xpshim" or (modname.startswith("xpshim.") and isinstance(mod, _namespace.RoutedModule)):
            d = vars(mod)
            for n in [n for n, v in d.items() if _is_resolved_wrapper(n, v, own)]:
                dropped[(modname, n)] = d.pop(n)
    return dropped


def _tell_numba():
    """Numba knows xpshim's functions by identity: teach it the Dask-aware ones too."""
    from .. import _numba

    if _numba.jit_ready:
        from numba.core.registry import cpu_target

        _numba.alias_functions(cpu_target.typing_context)


# ------------------------------------------------------------------ methods

def method(self, name):
    """``x.name`` for a DaskArray ``x``: Dask's method, else NumPy's on a gathered copy."""
    import dask.array as da

    if name.startswith("_"):
        raise AttributeError(name)
    npm = getattr(numpy.ndarray, name, None)
    if npm is None:
        raise AttributeError(f"'xpshim.DaskArray' object has no attribute {name!r}")
    dm = ADAPTED.get(name) or getattr(da.Array, name, None)
    if not callable(npm):
        announce_name = f"ndarray.{name}"
        _fallback.announce(announce_name, f"a Dask array has no {name}, so it was gathered whole to this process",
                           device="Dask")
        return getattr(gather(self, announce_name), name)
    if dm is not None and callable(dm):
        def m(*args, **kwargs):
            gap = _kwargs_gap(dm, kwargs)
            if gap:
                return _method_fallback(self, name, args, kwargs,
                                        f"dask's Array.{name} takes no {', '.join(map(repr, gap))} argument")
            a = [_conv(x, False) for x in args]
            kw = {k: _conv(v, False) for k, v in kwargs.items()}
            return run_dask(dm if name in ADAPTED else getattr(self._a, name), [self._a, *a] if name in ADAPTED else a, kw)
    else:
        def m(*args, **kwargs):
            return _method_fallback(self, name, args, kwargs, f"dask's Array has no {name}()")
    m.__name__ = name
    m.__doc__ = npm.__doc__
    return m


def _method_fallback(self, name, args, kwargs, reason):
    label = f"ndarray.{name}"
    _fallback.announce(label, f"{reason}, so the array was gathered whole to this process", device="Dask")
    (h,), _ = _to_host_all((self,), {}, f"fallback self of {label}")
    h = h.copy()  # gathered arrays may be read-only
    hargs, hkw = _to_host_all(args, kwargs, f"fallback argument of {label}")
    r = getattr(h, name)(*hargs, **hkw)
    if name in MUTATING_METHODS:
        self._a = to_cluster(h, "fallback write-back")._a
    return _to_cluster_result(r)


def function_call(func, args, kwargs):
    """NumPy's ``__array_function__`` protocol: a NumPy function called on DaskArrays."""
    mod = getattr(func, "__module__", "") or ""
    sub = mod[len("numpy."):] if mod.startswith("numpy.") else ""
    if sub not in ("", "linalg", "fft", "random"):
        sub = ""
    name = func.__name__
    if getattr(_namespace.numpy_module(sub), name, None) is not func:
        return fallback(f"numpy.{name}", func, args, kwargs, "xpshim does not route this function")
    return call(sub, name, args, kwargs)
