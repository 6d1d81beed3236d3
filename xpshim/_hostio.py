"""Functions whose data is on the host by nature: files, buffers, text.

No GPU can read a file, a Python iterator or a bytes object, or print, so these are
not fallbacks but NumPy's own function plus the one copy the job needs, counted
(``xpshim.stats()["transfers"]``) with the function's name as the reason:

* readers (``loadtxt``, ``load``, ``frombuffer``, ...): NumPy reads, the result is
  made on the current device as ``array`` makes it (in auto mode, data smaller than
  the crossover stays a NumPy array). ``load`` of an ``.npy`` file by path that goes to
  the GPU reads the file straight into pinned memory instead (``_npy_to_device``);
  ``load`` of an ``.npz`` gives arrays on the current device as they are read;
  ``load(mmap_mode=...)`` keeps NumPy's memory map.
  A GPU array from ``frombuffer`` is a copy: writes to it do not reach the buffer (one of
  read-only memory, ``bytes``, is read-only, as NumPy's array and its views are);
* writers (``save``, ``savez``, ``savez_compressed``, ``savetxt``) and text
  (``array2string``, ``array_repr``, ``array_str``): GPU arrays among the arguments
  are copied to the host, then NumPy writes or formats them.
"""

import functools
import math
import os
import types

import numpy
from numpy.lib import format as fmt

from . import _backend, _device, _placement, _transfer
from . import _methods  # noqa: F401  (the GPU arrays its readers make have NumPy's methods)
from ._arguments import locate, to_host_args
from ._cpupath import non_binding
from ._ndarray import host_only_dtype, mark_read_only, wrap

READERS = ("loadtxt", "genfromtxt", "load", "fromfile", "fromregex", "frombuffer", "fromstring", "fromiter")
WRITERS = ("save", "savez", "savez_compressed", "savetxt")
TEXT = ("array2string", "array_repr", "array_str")


def on_device(h, reason):
    """A host result of a reader, on the current device (counted), as ``array`` would place it."""
    if type(h) is not numpy.ndarray or not _backend.live or _device.current_device() == "cpu":
        return h
    if h.dtype.kind not in "biufc" or (_device.placing() and h.size < _placement.limit):
        return h
    x = wrap(_transfer.to_device(h, reason))
    # (np.frombuffer of bytes: NumPy's array is read-only, and so are its views; its copy too)
    return x if h.flags.writeable else mark_read_only(x, "frombuffer")


class NpzOnDevice:
    """``numpy.load`` of an ``.npz`` file: NumPy's NpzFile, each array read onto the current device."""

    def __init__(self, npz, reason):
        self._npz, self._reason = npz, reason

    def __getitem__(self, key):
        return on_device(self._npz[key], self._reason)

    def get(self, key, default=None):
        return self[key] if key in self._npz else default

    def items(self):
        return [(k, self[k]) for k in self._npz.files]

    def values(self):
        return [self[k] for k in self._npz.files]

    def __getattr__(self, name):  # files, keys, close, fid, ...
        return getattr(self._npz, name)

    def __contains__(self, key):
        return key in self._npz

    def __iter__(self):
        return iter(self._npz)

    def __len__(self):
        return len(self._npz)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._npz.close()

    def __repr__(self):
        return f"<xpshim on-device view of {self._npz!r}>"


def _host_args(args, kwargs, name, why):
    if _backend.live and locate(args, kwargs) == "gpu":
        return to_host_args(args, kwargs, f"{name}: {why}")
    return args, kwargs


def _npy_to_device(args, kwargs):
    """``numpy.load`` of a ``.npy`` file named by a path, when its array goes to the GPU: the
    file's data is read straight into pinned memory and sent from there (no pass through ordinary
    memory; ``_pinned.file_to_device``). None where this does not apply (a file object, a memory
    map, an ``.npz`` or pickle, a format 3.0 header, Fortran order, a dtype CuPy lacks, data below
    the staging size or, in auto mode, below the crossover): NumPy's own load then does it."""
    if len(args) != 1 or set(kwargs) - {"allow_pickle", "max_header_size"} or not hasattr(os, "preadv"):
        return None
    path = args[0]
    if not isinstance(path, (str, os.PathLike)) or _backend.xp.__name__ != "cupy":
        return None
    limit = kwargs.get("max_header_size", 10000)
    with open(path, "rb") as fp:
        try:
            version = fmt.read_magic(fp)
        except ValueError:  # not a .npy file (an .npz archive, a pickle): NumPy's load
            return None
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fp, max_header_size=limit)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fp, max_header_size=limit)
        else:
            return None
        n = math.prod(shape)
        from . import _pinned  # (the GPU copy machinery, loaded on first use)

        if fortran or dtype.hasobject or host_only_dtype(dtype) or n * dtype.itemsize < _pinned.MIN_BYTES:
            return None
        if _device.placing() and n < _placement.limit:
            return None
        pos = fp.tell()
        if os.fstat(fp.fileno()).st_size < pos + n * dtype.itemsize:
            return None  # a truncated file: NumPy's load says so
        return wrap(_transfer.file_to_device(fp.fileno(), pos, shape, dtype, "load: read into pinned memory"))


def _reader(name):
    npf = getattr(numpy, name)
    reason = f"{name}: read on the host"

    def f(*args, **kwargs):
        args, kwargs = _host_args(args, kwargs, name, "reads host memory")
        if name == "load" and _backend.live and _device.current_device() != "cpu":
            r = _npy_to_device(args, kwargs)
            if r is not None:
                return r
        r = npf(*args, **kwargs)
        if name == "load":
            if isinstance(r, numpy.lib.npyio.NpzFile):
                return NpzOnDevice(r, reason) if _backend.live and _device.current_device() != "cpu" else r
            if kwargs.get("mmap_mode") is not None or (len(args) > 1 and args[1] is not None):
                return r  # a memory map stays one
        return on_device(r, reason)

    return _described(f, npf, name, "NumPy reads the data on the host; the result is made on the "
                                    "current device (one counted copy)")


def _writer(name, why):
    npf = getattr(numpy, name)

    def f(*args, **kwargs):
        args, kwargs = _host_args(args, kwargs, name, why)
        return npf(*args, **kwargs)

    return _described(f, npf, name, f"GPU arrays are copied to the host (counted), then NumPy's {name}")


def _described(f, npf, name, how):
    f = functools.update_wrapper(f, npf, assigned=("__name__", "__qualname__"), updated=())
    f.__module__ = "xpshim"
    f.__wrapped__ = npf
    f.__doc__ = f"xpshim.{name}: {how}\n\n{npf.__doc__ or ''}"
    return non_binding(f)


TABLE = {
    **{("xpshim", n): _reader(n) for n in READERS},
    **{("xpshim", n): _writer(n, "written by NumPy on the host") for n in WRITERS},
    **{("xpshim", n): _writer(n, "text made on the host") for n in TEXT},
}
for (_m, _n), _f in TABLE.items():
    if isinstance(_f, types.FunctionType):
        _f.__module__ = _m
