"""Pinning in place: ordinary host arrays uploaded again and again are registered with CUDA.

From ordinary (pageable) memory, staging (``_pinned``) is capped by the host's own copy into
pinned memory, which shares the host's memory bandwidth with the bus (21-28 GB/s at 64 MiB on
the H200 host, against 54 GB/s from pinned memory). Registering an array's memory
(``cudaHostRegister``) pins its pages where they are, so that the device reads them directly;
it costs about as much as one staged copy (2.3 ms for 72 MB there), so it pays only for data
sent more than once. Hence, as MPI libraries "leave pinned" their send buffers:

* an array of ``MIN_BYTES`` or more that owns its memory is remembered at its first upload;
* at its second upload (the same array, or a view of at least half of it, its memory where it
  was) that memory is registered, and that upload and every later one of it or of a contiguous
  view of it go by one direct copy;
* the registration ends when the array is freed (before NumPy frees the memory), when its
  memory is no longer where it was (an address check: NumPy refuses ``ndarray.resize`` of an
  array with weak references, which this holds), or when newer registrations need room under ``CAP``
  bytes (``XPSHIM_REGISTERED_MAX``, default 4 GiB; 0 turns this off).

Nothing is copied here, and the array stays the user's: writes to it between uploads are seen
by the next upload, as with staging. ``status()`` (``python -m xpshim info``) says what is held.
"""

import threading
import weakref
from collections import OrderedDict

import numpy

from . import _config

# Registering costs about 30 us plus the pages' pinning: below this, staging is as fast.
MIN_BYTES = 16 << 20
SEEN = 64  # arrays remembered after one upload (the oldest forgotten first)


CAP = _config.registered_max  # XPSHIM_REGISTERED_MAX

_lock = threading.RLock()  # (re-entered when a registered array is freed while it is held)
_seen = OrderedDict()  # id(root) -> (weak reference, address, bytes): uploaded once
_held = OrderedDict()  # id(root) -> [weak reference, address, bytes, finalizer]: registered
_total = [0]
_refused = [None]  # the driver's answer when it last refused a registration


def _root(host):
    """The array owning ``host``'s memory, when NumPy allocated it (else None)."""
    r = host
    while isinstance(r.base, numpy.ndarray):
        r = r.base
    return r if r.base is None and r.flags.owndata else None


def _unregister(cp, key, ptr):
    with _lock:
        e = _held.get(key)
        if e is not None and e[1] == ptr:
            del _held[key]
            _total[0] -= e[2]
    try:
        cp.cuda.runtime.hostUnregister(ptr)
    except Exception:  # (at interpreter exit the context may be gone: nothing is pinned then)
        pass


def _drop(cp, key):
    e = _held.get(key)
    if e is not None:
        e[3].detach()
        _unregister(cp, key, e[1])


def upload(cp, host, direct):
    """``direct(cp, host)`` (a new CuPy array by one copy, ``_pinned.direct``) when ``host``
    (C-contiguous, ordinary memory) lies in memory registered here, registering it now at its
    second upload; None: stage it."""
    if host.nbytes < MIN_BYTES or CAP == 0:
        return None
    root = _root(host)
    if root is None:
        return None
    key, ptr, n = id(root), root.ctypes.data, root.nbytes
    with _lock:  # (held through the copy: no registration ends while the device reads it)
        e = _held.get(key)
        if e is None or e[0]() is not root or e[1] != ptr or e[2] != n:
            if e is not None:
                _drop(cp, key)  # its memory moved (or it is another array at a freed one's id)
            if not _register(cp, key, root, ptr, n, host.nbytes):
                return None
        else:
            _held.move_to_end(key)
        return direct(cp, host)


def _register(cp, key, root, ptr, n, sent):
    s = _seen.pop(key, None)
    if s is None or s[0]() is not root or s[1] != ptr or s[2] != n:
        _seen[key] = (weakref.ref(root), ptr, n)  # its first upload
        while len(_seen) > SEEN:
            _seen.popitem(last=False)
        return False
    if n > CAP or 2 * sent < n:  # (slices of a much larger array: registering all of it may not pay)
        return False
    while _held and _total[0] + n > CAP:
        _drop(cp, next(iter(_held)))
    try:
        cp.cuda.runtime.hostRegister(ptr, n, 0)
    except cp.cuda.runtime.CUDARuntimeError as exc:  # (memory locked by something else, a limit)
        _refused[0] = str(exc)
        return False
    fin = weakref.finalize(root, _unregister, cp, key, ptr)
    fin.atexit = False
    _held[key] = [weakref.ref(root), ptr, n, fin]
    _total[0] += n
    return True


def release_all(cp):
    """End every registration (tests)."""
    with _lock:
        for key in list(_held):
            _drop(cp, key)
        _seen.clear()


def status():
    """One line for ``python -m xpshim info``."""
    if CAP == 0:
        return "off (XPSHIM_REGISTERED_MAX=0)"
    with _lock:
        now = f"{len(_held)} array(s), {_total[0] / 2**20:.0f} MiB, registered now"
    refused = f"; the driver last refused one: {_refused[0]}" if _refused[0] else ""
    return (f"host arrays of {MIN_BYTES >> 20} MiB and more uploaded a second time are registered "
            f"(pinned where they are), up to {CAP / 2**30:g} GiB (XPSHIM_REGISTERED_MAX): {now}{refused}")
