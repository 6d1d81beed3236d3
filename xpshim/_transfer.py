"""The one place where bytes cross between host and device, and the counts of it.

Every copy xpshim makes, implicit or asked for, goes through ``to_device`` or
``to_host``; ``xpshim.stats()`` reports them, so a test can assert that a
pipeline made none. One element of a GPU array read into a Python value (``bool(x)``,
``float(x)``, ``x.item()``, ``operator.index(x)``, ``if x:``) is a value read, counted apart
from the array copies (``VALUE_READ``): the arrays stay on the GPU, but each read still waits
for the GPU, so it is counted, and warned under the same policy (``XPSHIM_TRANSFERS=warn``).
"""

import math
import sys
import threading
import warnings
from collections import Counter, defaultdict

import numpy

from . import _backend, _callsite, _config
from ._lazy import lazy_module
from ._errors import TransferWarning

_pinned = lazy_module("xpshim._pinned")  # the GPU copy machinery: loaded with the first GPU copy

_lock = threading.Lock()
VALUE_READ = "values_read"  # (the direction of a single element read into a Python value)
DIRECTIONS = ("host_to_device", "device_to_host", VALUE_READ)

_count = Counter()  # direction -> number of copies
_bytes = Counter()  # direction -> bytes
_sites = defaultdict(Counter)  # direction -> {(file, line, reason): n}
_fallbacks = Counter()  # function name -> host runs
_fallback_sites = defaultdict(Counter)


_placed = Counter()  # "to_device" | "to_host" -> moves made by auto mode's placement
_placed_bytes = Counter()
_placed_sites = defaultdict(Counter)
_at_lines = Counter()  # "file:line" -> arrays made on the host at a line a loop used (_placement)
_at_lines_bytes = [0]

# Called with each NumPy array sent to the GPU, once auto mode remembers lines (_placement)
device_use_hook = None


def _site(depth, reason):
    # The user's line, found through a per-code-object cache: this runs on every copy.
    f = sys._getframe(depth)
    codes = _callsite.codes
    while f is not None:
        k = codes.get(id(f.f_code))
        if k is None:
            k = _callsite.key(f.f_code)
        if not k.inside:
            return (k.co_filename, _callsite.lineno(k, f), reason)
        f = f.f_back
    return ("?", 0, reason)


def _tally(counts, sizes, sites, direction, nbytes, reason):
    key = _site(4, reason)
    with _lock:
        counts[direction] += 1
        sizes[direction] += nbytes
        sites[direction][key] += 1


# Copies counted and not yet added to _count, _bytes and _sites: (direction, bytes, site). A count
# is an append (a value read in a loop, float(x.sum()), paid 1 us for the three counters and the
# lock); stats() and reset_stats() fold them in first, so what they report is the same.
_pending = []
_FOLD_AT = 4096


def _fold():
    """Add the pending copies to the counters (the caller holds ``_lock``)."""
    n = len(_pending)
    for (direction, nbytes, key), m in Counter(_pending[:n]).items():  # (a loop's counts: a few alike, many times)
        _count[direction] += m
        _bytes[direction] += nbytes * m
        _sites[direction][key] += m
    del _pending[:n]  # (the first n: what other threads appended meanwhile stays)


def count_copy(direction, nbytes, reason):
    """Count ``nbytes`` crossing in ``direction`` (one of ``DIRECTIONS``) at the user's line; warn
    of it under ``XPSHIM_TRANSFERS=warn``."""
    _pending.append((direction, nbytes, _site(3, reason)))  # (_site(3): the depth _tally's 4 reads from its caller)
    if len(_pending) >= _FOLD_AT:
        with _lock:
            _fold()
    if _config.transfer_policy == "warn":
        fn, line, glb = _callsite.user_frame(3)
        what = f"read one value ({nbytes} bytes) from the GPU into Python" if direction == VALUE_READ else \
            f"copied {nbytes} bytes {direction.replace('_', ' ')}"
        warnings.warn_explicit(
            f"xpshim {what} ({reason})",
            TransferWarning, fn, line, module=glb.get("__name__"), registry=glb.setdefault("__warningregistry__", {}),
        )


def _fast(xp, nbytes, least=None):
    # Pinned, pipelined copies (_pinned) for large arrays on the real CuPy.
    return xp.__name__ == "cupy" and nbytes >= (_pinned.MIN_BYTES if least is None else least)


def to_device(obj, reason, dtype=None):
    """Copy host data (array, list, scalar, anything NumPy accepts) to the GPU."""
    xp = _backend.xp
    if device_use_hook is not None and type(obj) is numpy.ndarray:
        device_use_hook(obj, reason)
    host = numpy.asarray(obj, dtype=dtype)
    count_copy("host_to_device", host.nbytes, reason)
    # an F-ordered array goes over F-ordered, as NumPy's copies keep it (np.asarray(f_array).T is
    # C-contiguous, its methods answer in its order): its transpose is C-ordered. CuPy's asarray
    # of it answers C order (_array_default with order=None: cupy/_core/core.pyx); the result owns
    # its memory, as NumPy's copy does (a transposed view would have a base)
    fortran = host.ndim > 1 and host.flags.f_contiguous and not host.flags.c_contiguous
    if fortran:
        host = host.T
    if _fast(xp, host.nbytes) and host.dtype.kind not in "OUSV":
        d = _pinned.to_device(xp, host)
    else:
        d = _small_to_device(xp, host)
    if not fortran:
        return d
    t = d.T
    if getattr(xp, "__name__", "") == "cupy":  # an F array of its own over the same memory: no copy
        return xp.ndarray(t.shape, t.dtype, memptr=t.data, strides=t.strides)
    return t.copy(order="F")  # (the simulated GPU's arrays own their host memory: a copy there)


def _small_to_device(xp, host):
    # CuPy makes a 0-d array from the value with fill(), which writes a zero (-0.0 too) by memset:
    # a 0-d array goes over as one element, its bytes copied.
    if host.ndim == 0:
        return xp.asarray(host.reshape(1)).reshape(())
    return xp.asarray(host)


def _record_placement(direction, nbytes, reason):
    _tally(_placed, _placed_bytes, _placed_sites, direction, nbytes, reason)


def count_at_line(nbytes, site):
    """An array made on the host at a line whose arrays a loop used there (auto mode)."""
    with _lock:
        _at_lines[site] += 1
        _at_lines_bytes[0] += nbytes


def place_on_device(host, reason):
    """Move a NumPy array to the GPU because auto mode's placement decided so (counted there)."""
    xp = _backend.xp
    _record_placement("to_device", host.nbytes, reason)
    if _fast(xp, host.nbytes):
        return _pinned.to_device(xp, host)
    return _small_to_device(xp, host)


def place_on_host(dev, reason):
    """Move a CuPy array's data to a new NumPy array for auto mode's placement (counted there)."""
    _record_placement("to_host", dev.nbytes, reason)
    return dev.get()  # (an array of its own, not pinned memory: views of it then have it as their base)


def place_on_host_into(dev, out, reason):
    """Copy a CuPy array's data into the NumPy array ``out`` for auto mode's placement (counted there)."""
    _record_placement("to_host", dev.nbytes, reason)
    if _backend.xp.__name__ == "cupy":
        dev.get(out=out)
    else:
        out[...] = dev.get()


def place_on_device_into(host, dev, reason):
    """Copy a NumPy array's data into the CuPy array ``dev`` for auto mode's placement (counted there)."""
    xp = _backend.xp
    _record_placement("to_device", host.nbytes, reason)
    if xp.__name__ == "cupy":
        dev.set(host)
    else:
        dev[...] = xp.asarray(host)


def image_to_device(image, reason):
    """A Pillow image's pixels as a GPU array equal to ``numpy.array(image)``, read
    from Pillow's memory (``_pil``); None where that does not apply."""
    from . import _pil

    xp = _backend.xp
    if xp.__name__ != "cupy":
        return None
    got = _pil.rows(image)
    if got is None:
        return None
    runs, shape, dtype, keep = got
    nbytes = sum(r.size for r in runs)
    count_copy("host_to_device", nbytes, reason)
    out = _pinned.to_device_runs(xp, runs, shape, dtype)
    return out if keep is None else xp.ascontiguousarray(out[..., :keep])


def file_to_device(fd, pos, shape, dtype, reason):
    """A GPU array of the raw bytes of open file ``fd`` from offset ``pos`` (``np.load`` of a
    ``.npy`` file): read into pinned memory and sent from there, never through ordinary memory."""
    dtype = numpy.dtype(dtype)
    count_copy("host_to_device", math.prod(shape) * dtype.itemsize, reason)
    return _pinned.file_to_device(_backend.xp, fd, pos, shape, dtype)


def to_host(dev, reason):
    """Copy a CuPy array to a new NumPy array."""
    count_copy("device_to_host", dev.nbytes, reason)
    xp = _backend.xp
    # an F-ordered array comes back F-ordered, as NumPy's copies keep it (NumPy's own functions
    # given host copies answer in their order: np.block, np.delete): its transpose is C-ordered
    fortran = dev.ndim > 1 and dev.flags.f_contiguous and not dev.flags.c_contiguous
    if fortran:
        dev = dev.T
    if _fast(xp, dev.nbytes, _pinned.MIN_BYTES_DOWN):
        h = _pinned.to_host(xp, dev)
    else:
        h = dev.get()
    return h.T if fortran else h


def record_fallback(name, site):
    with _lock:
        _fallbacks[name] += 1
        _fallback_sites[name][site] += 1


def stats():
    """Transfers and host fallbacks since start (or the last ``reset_stats``).

    Returns a dict::

        {"transfers": {"host_to_device": {"count": n, "bytes": b, "sites": {...}},
                       "device_to_host": {...},   # array copies to the host
                       "values_read": {...}},     # single elements read into Python values
         "placement": {"to_device": {...}, "to_host": {...},   # auto mode's moves
                       "at_loop_lines": {...}},  # arrays made on the host at a loop's line
         "fallbacks": {"function name": {"count": n, "sites": {"file:line": n}}}}
    """
    with _lock:
        _fold()
        return {
            "transfers": {
                d: {"count": _count[d], "bytes": _bytes[d],
                    "sites": {f"{fn}:{line} ({why})": n for (fn, line, why), n in _sites[d].items()}}
                for d in DIRECTIONS
            },
            "placement": {
                d: {"count": _placed[d], "bytes": _placed_bytes[d],
                    "sites": {f"{fn}:{line} ({why})": n for (fn, line, why), n in _placed_sites[d].items()}}
                for d in ("to_device", "to_host")
            } | {"at_loop_lines": {"count": sum(_at_lines.values()), "bytes": _at_lines_bytes[0],
                                   "sites": dict(_at_lines)}},
            "fallbacks": {
                n: {"count": c, "sites": dict(_fallback_sites[n])} for n, c in _fallbacks.items()
            },
        }


def reset_stats():
    """Zero every counter that ``stats()`` reports."""
    with _lock:
        del _pending[:]
        for c in (_count, _bytes, _fallbacks, _placed, _placed_bytes):
            c.clear()
        _sites.clear()
        _placed_sites.clear()
        _fallback_sites.clear()
        _at_lines.clear()
        _at_lines_bytes[0] = 0


def write_report(path):
    """Write ``stats()`` to ``path`` as JSON (XPSHIM_REPORT, at exit)."""
    import json  # (only where the report is written)

    with open(path, "w") as f:
        json.dump(stats(), f, indent=2)
