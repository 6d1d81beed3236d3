"""The array API standard's parts that NumPy's names do not give by themselves.

Spec-aware libraries (SciPy with ``SCIPY_ARRAY_API=1``, scikit-learn with
``array_api_dispatch=True``, ``array_api_compat``) ask a GPU array for its
namespace (``xpshim``) and then call ``xp.asarray(y, device=x.device)``,
``xp.zeros(n, device=...)``, ``xp.asarray(y, copy=False)``. Here:

* devices: ``"cpu"`` (NumPy's own device, what ``numpy_array.device`` is), the GPU
  arrays' ``x.device`` (a ``cupy.cuda.Device``), and ``"gpu"``, xpshim's name for the
  current GPU; ``where(device)`` reads any of them;
* ``device=`` on the creation functions (``on_device``) and ``device=``/``copy=`` on
  ``asarray`` (``from_data``), done by xpshim, since CuPy takes no ``device=`` and
  CuPy 13's ``asarray`` no ``copy=``;
* the inspection namespace (``Info``), and the GPU array's protocol methods
  (``__array_namespace__``, ``__dlpack__``, ``__dlpack_device__``, ``to_device``),
  installed on ``xpshim.ndarray`` by ``install``;
* ``from_dlpack`` and ``to_device``.

Calls without ``device=`` and ``copy=`` never come here: the CPU path stays NumPy's.
"""

import numpy

from . import _backend, _device, _ndarray, _placement, _transfer
from ._ndarray import host, ndarray, wrap

API_VERSION = numpy.__array_api_version__  # the version NumPy implements; xpshim follows NumPy

_NP0 = numpy.empty(0)  # asks NumPy's own checks (api_version)
_KDLCPU = 1  # DLPack's device type of host memory


# ---------------------------------------------------------------- devices

def gpu_devices():
    """The GPU devices, as GPU arrays' ``x.device`` gives them (none without a usable GPU)."""
    if not _backend.gpu_status().usable:
        return []
    xp = _backend.xp
    dev = getattr(getattr(xp, "cuda", None), "Device", None)
    if dev is not None:
        return [dev(i) for i in range(_backend.gpu_status().device_count or 1)]
    return [xp.empty(0).device]  # (a backend without cuda.Device: its arrays' own device object)


def current_gpu():
    """The GPU device new GPU arrays are made on (CuPy's current device)."""
    xp = _backend.xp
    dev = getattr(getattr(xp, "cuda", None), "Device", None)
    return dev() if dev is not None else xp.empty(0).device


def where(device):
    """``("cpu", None)`` or ``("gpu", cuda_device_or_None)`` for an array API device; a
    ValueError naming the devices there are for anything else (NumPy's error class)."""
    if device is None:
        return _device.current_device(), None
    if type(device) is str:
        name = device.lower()
        if name == "cpu":
            return "cpu", None
        if name == "gpu":
            _backend.require_gpu(f"device={device!r}", fix="pass device='cpu' (or no device=: the current device)")
            return "gpu", None
    if _backend.live or _backend.gpu_status().usable:
        for d in gpu_devices():
            if device == d:
                _backend.require_gpu(f"device={device!r}", fix="pass device='cpu' (or no device=: the current device)")
                return "gpu", (d if hasattr(d, "__enter__") else None)
    raise ValueError(f"Device not understood: {device!r}. Use 'cpu', 'gpu', or an array's x.device "
                     f"(xpshim.__array_namespace_info__().devices() lists them: {devices()!r})")


def devices():
    """Every device an array can be on: ``"cpu"`` and each GPU."""
    return ["cpu", *gpu_devices()]


def _in(dev):
    # a context that makes new CuPy arrays on CUDA device ``dev`` (None: the current one)
    return dev if dev is not None else _NoContext


class _NoContextType:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_NoContext = _NoContextType()


def _on_gpu(x):
    return type(x) is ndarray or _backend.is_raw_gpu_array(x)


def _moved(r, target, reason):
    """``r`` on ``target``: a result made on the other device (from its arguments) is copied over, counted."""
    if target == "cpu" and _on_gpu(r):
        return host(r, reason) if type(r) is ndarray else _transfer.to_host(r, reason)
    if target == "gpu" and type(r) is numpy.ndarray:
        return wrap(_transfer.to_device(r, reason))
    return r


def _stand_in(x, target):
    """For a ``*_like`` call: an array of ``x``'s shape and dtype on ``target``, without its data
    (a broadcast 0-d array: nothing allocated, nothing copied); ``x`` where it lives there already."""
    on_gpu = _on_gpu(x)
    if target == "gpu" and not on_gpu and isinstance(x, numpy.ndarray):
        return wrap(_backend.xp.broadcast_to(_backend.xp.empty((), x.dtype), x.shape))
    if target == "cpu" and on_gpu:
        return numpy.broadcast_to(numpy.empty((), x.dtype), x.shape)
    return x


def on_device(f, args, kwargs):
    """``f(*args, **kwargs)`` (an xpshim creation function) with its ``device=`` read by xpshim:
    the result is made on that device, whatever the current one (auto mode's sizes included)."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device")
    if device is None:
        return f(*args, **kwargs)
    target, cuda_dev = where(device)
    if target == "cpu" and not _backend.live:  # (no GPU array can exist: NumPy's call, as without device=)
        return f(*args, **kwargs)
    name = getattr(f, "__name__", "")
    if name.endswith("_like"):  # the prototype gives shape and dtype, not the device
        if args:
            args = (_stand_in(args[0], target), *args[1:])
        elif "a" in kwargs or "prototype" in kwargs:
            k = "a" if "a" in kwargs else "prototype"
            kwargs[k] = _stand_in(kwargs[k], target)
    with _device.device(target), _in(cuda_dev):
        r = f(*args, **kwargs)
    return _moved(r, target, f"{name}(..., device={target!r}) of arguments on the other device")


# ---------------------------------------------------------------- asarray's device= and copy=

def _target_of(a, gpu_in):
    """Where ``asarray(a)`` puts ``a`` on the current device: "gpu" or "cpu"."""
    if gpu_in:
        return "gpu" if _device.current_device() != "cpu" else "cpu"
    if not _backend.live or _device.current_device() != "gpu":
        return "cpu"
    if _device.placing() and numpy.size(a) < _placement.limit:  # (auto mode: small data stays)
        return "cpu"
    return "gpu"


def _crossing_error(name, src, dst):
    """NumPy's ValueError for ``copy=False`` when the data must cross to another device."""
    return ValueError(f"Unable to avoid copy while creating an array as requested: {name}(..., copy=False) "
                      f"of data on the {src} for the {dst} needs a copy between the two. Pass copy=None "
                      "(copy only if needed) or make the array where its data is (xpshim.device('cpu'), "
                      "or xpshim.to_device(x, 'gpu') first)")


def _copy_error():
    # NumPy's own ValueError (numpy.asarray(..., copy=False) where a copy is needed), in its words
    try:
        numpy.asarray([0], copy=False)
    except ValueError as e:
        return ValueError(str(e))
    return ValueError("Unable to avoid copy while creating an array as requested.")


def _needs_copy(raw, dtype, order):
    if dtype is not None and numpy.dtype(dtype) != raw.dtype:
        return True
    flags = raw.flags
    return (order == "C" and not flags.c_contiguous) or (order == "F" and not flags.f_contiguous)


def from_data(f, npf, name, a, dtype, args, kwargs):
    """``asarray``/``array``/``asanyarray`` (``f``; NumPy's ``npf``) called with ``device=`` or
    ``copy=``: the array on that device (default: where ``f`` puts it), copied as ``copy`` says
    (True: always; False: never, NumPy's ValueError where a copy is needed, as between devices;
    None: only if needed), for every CuPy version (CuPy 13's ``asarray`` takes no ``copy=``)."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", True if name == "array" else None)
    order = kwargs.get("order", args[0] if args else None)
    gpu_in = _on_gpu(a)
    cuda_dev = None
    if device is not None:
        target, cuda_dev = where(device)
    elif gpu_in and copy is None and _device.current_device() != "cpu":
        target = "gpu"
    elif copy is not False:  # the current device's rules (auto mode's sizes too); a new array if copy=True
        if copy is None and not gpu_in and (not _backend.live or _device.current_device() == "cpu"):
            return npf(a, dtype, *args, copy=None, **kwargs)  # (NumPy's: a NumPy array itself where it can)
        r = f(a, dtype, *args, **kwargs)
        if copy is None and type(r) is numpy.ndarray and not gpu_in:  # (auto mode kept it on the host)
            return npf(a, dtype, *args, copy=None, **kwargs)
        return r if copy is None else _fresh_copy(r, a)
    else:  # copy=False: where f would put it (auto mode: small host data stays, as NumPy's answer)
        target = _target_of(a, gpu_in)
    if target != "gpu":
        if gpu_in:
            if copy is False:
                raise _crossing_error(name, "GPU", "CPU device")
            a = host(a, f"{name}(..., device='cpu')") if type(a) is ndarray else _transfer.to_host(a, name)
            copy = None  # (the host copy is the copy)
        return npf(a, dtype, *args, copy=copy, **kwargs)
    xp = _backend.require_gpu(f"xpshim.{name}(..., device={device!r})", fix="pass device='cpu' (or no device=: the current device)")
    if not gpu_in:
        if copy is False:
            raise _crossing_error(name, "host", "GPU")  # host data to the GPU is a copy
        with _device.device("gpu"), _in(cuda_dev):
            return f(a, dtype, *args, **kwargs)
    raw = a._a if type(a) is ndarray else a
    if copy is False:
        if _needs_copy(raw, dtype, order):
            raise _copy_error()
        return a if type(a) is ndarray else wrap(raw)
    if copy is True:
        with _in(cuda_dev):
            return wrap(xp.array(raw, dtype=dtype, copy=True, order=order or "K"))
    if not _needs_copy(raw, dtype, order) and not kwargs.get("ndmin"):
        return a if type(a) is ndarray else wrap(raw)  # (copy=None: only if needed; array()'s too)
    with _device.device("gpu"), _in(cuda_dev):
        return f(a, dtype, *args, **kwargs)


def _fresh_copy(r, a):
    # copy=True: f's result ``r``, copied where it is ``a`` itself or shares its memory
    if r is a or (type(r) is numpy.ndarray and isinstance(a, numpy.ndarray) and numpy.shares_memory(r, a)):
        return r.copy()
    if type(r) is ndarray and type(a) is ndarray and r._a is a._a:
        return wrap(r._a.copy())
    return r


# ---------------------------------------------------------------- inspection namespace

class Info:
    """``xpshim.__array_namespace_info__()``: what this namespace supports, as the array API
    standard's inspection namespace (NumPy's answers; the GPU's dtypes and limits are NumPy's)."""

    __module__ = "xpshim"

    def capabilities(self):
        """``{"boolean indexing", "data-dependent shapes", "max dimensions"}``, as NumPy's."""
        return numpy.__array_namespace_info__().capabilities()

    def default_device(self):
        """The device new arrays go to: ``"cpu"``, or the current GPU."""
        return current_gpu() if _device.current_device() == "gpu" and _backend.live else "cpu"

    def devices(self):
        """Every device: ``"cpu"`` and each GPU (as GPU arrays' ``x.device`` gives it)."""
        return devices()

    def default_dtypes(self, *, device=None):
        """The default dtypes (float64, complex128, int64 on 64-bit platforms), on every device."""
        where(device)
        return numpy.__array_namespace_info__().default_dtypes()

    def dtypes(self, *, device=None, kind=None):
        """The dtypes of ``kind`` (a name such as ``"real floating"`` or a tuple of them), on every device."""
        where(device)
        return numpy.__array_namespace_info__().dtypes(kind=kind)

    def __repr__(self):
        return "<xpshim array API inspection namespace>"


def __array_namespace_info__():
    """The array API standard's inspection namespace of ``xpshim`` (devices, dtypes, capabilities)."""
    return Info()


# ---------------------------------------------------------------- GPU arrays' protocol

def _namespace(self, api_version=None):
    """The array API namespace of a GPU array: ``xpshim`` (versions checked as NumPy checks them)."""
    if api_version is not None:
        _NP0.__array_namespace__(api_version=api_version)  # NumPy's ValueError for what it does not support
    return _ndarray.above.namespace


def _dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The array as a DLPack capsule: CuPy's, sharing the GPU memory. ``dl_device=(1, 0)`` (the
    host) gives a host copy (counted) unless ``copy=False``, which then raises BufferError."""
    a = self._raw()  # (the memory is shared from here on: the storage stays on the device)
    if dl_device is not None and tuple(dl_device) != tuple(a.__dlpack_device__()):
        if dl_device[0] != _KDLCPU or copy is False:
            raise BufferError(f"__dlpack__: this array is on device {a.__dlpack_device__()}; it can go to "
                              f"{dl_device} only as a host copy (dl_device=(1, 0), copy not False)")
        h = host(self, "__dlpack__ to the host")
        return h.__dlpack__() if max_version is None else h.__dlpack__(max_version=max_version, copy=False)
    kw = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device), ("copy", copy)) if v is not None}
    # (CuPy 13 takes stream= only; a consumer that passes max_version retries without it on TypeError)
    return a.__dlpack__(stream=stream, **kw)


def _dlpack_device(self, /):
    """(device type, device id) of the data, as DLPack says it (CUDA: 2)."""
    return self._a.__dlpack_device__()


def _to_device(self, device, /, *, stream=None):
    """The array on ``device`` (array API): ``"cpu"`` gives a NumPy array (a counted copy), a GPU
    device this array (another GPU: a copy made there)."""
    target, cuda_dev = where(device)
    if target == "cpu":
        return host(self, "to_device('cpu')")
    if cuda_dev is not None and cuda_dev != self._a.device:
        with cuda_dev:
            return wrap(self._a.copy())
    return self


def install(cls):
    """Give the GPU array class the array API protocol methods."""
    for name, f in (("__array_namespace__", _namespace), ("__dlpack__", _dlpack),
                    ("__dlpack_device__", _dlpack_device), ("to_device", _to_device)):
        f.__name__, f.__qualname__ = name, f"ndarray.{name}"
        setattr(cls, name, f)


install(ndarray)


# ---------------------------------------------------------------- module functions

def from_dlpack(x, /, *, device=None, copy=None):
    """An array sharing the memory of any DLPack exporter (CuPy, PyTorch, JAX, NumPy, xpshim):
    a GPU tensor gives an xpshim GPU array, host memory a NumPy array; ``copy=True`` copies,
    ``copy=False`` raises where sharing is impossible; ``device=`` picks the result's device."""
    target = where(device)[0] if device is not None else None
    if _on_gpu(x):
        if target == "cpu":
            if copy is False:
                raise BufferError("from_dlpack(x, device='cpu', copy=False): x is on the GPU; a host "
                                  "array of it is a copy (copy=None or True)")
            return host(x, "from_dlpack to the CPU") if type(x) is ndarray else _transfer.to_host(x, "from_dlpack")
        raw = x._a if type(x) is ndarray else x
        return wrap(raw.copy() if copy else raw)
    dev_type = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else _KDLCPU
    if dev_type == _KDLCPU:
        h = numpy.from_dlpack(x, copy=copy)
        if target == "gpu":
            if copy is False:
                raise BufferError("from_dlpack(x, device=<a GPU>, copy=False): x is in host memory; "
                                  "a GPU array of it is a copy (copy=None or True)")
            return wrap(_transfer.to_device(h, "from_dlpack to the GPU"))
        return h
    xp = _backend.require_gpu("xpshim.from_dlpack of a GPU tensor")
    r = xp.from_dlpack(x)
    if target == "cpu":
        if copy is False:
            raise BufferError("from_dlpack(x, device='cpu', copy=False): x is on a GPU; a host array of it is a copy")
        return _transfer.to_host(r, "from_dlpack to the CPU")
    return wrap(r.copy() if copy else r)


def to_device(x, device=None):
    """``x`` on ``device``: ``"cpu"`` (or NumPy's cpu device), ``"gpu"`` or a GPU array's
    ``x.device``; default the current device. Arrays already there come back unchanged;
    every real move is counted in ``xpshim.stats()``."""
    target, cuda_dev = where(device)
    if target == "cpu":
        if type(x) is ndarray:
            return host(x, "to_device")
        if _backend.is_raw_gpu_array(x):
            return _transfer.to_host(x, "to_device")
        return numpy.asarray(x)
    if target != "gpu":
        raise ValueError(f"unknown device {device!r}; use 'cpu' or 'gpu'")
    _backend.require_gpu("xpshim.to_device(x, 'gpu')", fix="keep the data on the CPU (xpshim.to_device(x, 'cpu'))")
    if type(x) is ndarray:
        return _to_device(x, cuda_dev) if cuda_dev is not None else x
    if _backend.is_raw_gpu_array(x):
        return wrap(x)
    with _in(cuda_dev):
        return wrap(_transfer.to_device(x, "to_device"))
