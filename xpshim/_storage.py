"""One storage per allocation: where a GPU array's data lives, and its moves (docs/placement.md).

Every ``xpshim.ndarray`` on the GPU is a view (shape, strides, offset, dtype) of one
``Storage``: the allocation. A storage lives on exactly one device at a time (``host``
says which); auto mode's placement moves the storage, never one wrapper's buffer, so
every view of it, taken before or after the move and held anywhere, reads and writes
the same data, as NumPy's views of one allocation do.

The device memory stays allocated while the data is on the host, and the host buffer
(the allocation's bytes, ``h``) stays once made: a move is a copy between the two, and
each view's device array and host array, once made, stay valid for its whole life. So
an access costs one attribute check (``storage.host``), never a new view.

Threads: a move holds the storage's lock and marks itself in ``gen`` (odd while it
copies). Writers on the device hold the lock in auto mode (where moves happen); the
host fast path writes without it and redoes the write under the lock when ``gen``
changed meanwhile (a seqlock: the write is one NumPy call under the GIL, so it lands
either before the move's copy or is seen as overlapping it).
"""

import sys
import threading
import weakref

import numpy

from . import _transfer

_make_lock = threading.Lock()  # (guards the creation of a storage's lock)


class Storage:
    """One allocation: its device root array ``d``, its host bytes ``h`` (None until the
    first move to the host), which one holds the data now (``host``), the move counter
    ``gen`` (odd while a move copies), and ``pinned`` (raw device handles were given out:
    the data never leaves the device)."""

    __slots__ = ("d", "h", "host", "gen", "lock", "pinned", "flat", "__weakref__")

    def __init__(self, d, pinned=False):
        self.d = d
        self.h = None
        self.host = False
        self.gen = 0
        self.lock = None
        self.pinned = pinned
        self.flat = None


_new = object.__new__


def new(d, pinned=False, owner=None):
    """A new storage for device root array ``d`` (``Storage(d, pinned)``, made faster: one
    is made for every new GPU array), with ``owner`` registered as the array owning ``d``
    where given (``register``, in the same call)."""
    st = _new(Storage)
    st.d = d
    st.h = st.lock = st.flat = None
    st.host = False
    st.gen = 0
    st.pinned = pinned
    if owner is not None:  # (register's work, inline: a frame less per new array)
        OWNERS[id(d)] = _ref(owner)
        if len(OWNERS) > _sweep_at[0]:
            _sweep()
    return st


# Copy-on-write element reads (docs/differences.md): an element read of a GPU array, NumPy's scalar,
# is a value; rather than copy it on the device at the read (CuPy's a[3] is a view: the copy costs
# more than the read), the value reads its array's memory in place until that memory is about to
# be written: id(storage) -> [weak reference to the storage, weak references to the values reading
# it]. Every write through xpshim detaches the storage's readers first (_ndarray.refuse_write), as
# do a move back to the device (below) and a raw handle given out (its writes are not seen).
READERS = {}
settle = None  # (_ndarray's: give one value its own copy; set there, where copies are made)
_readers_sweep_at = [1024]


def add_reader(st, value):
    """Note that element value ``value`` reads ``st``'s device memory in place."""
    e = READERS.get(id(st))
    if e is None or e[0]() is not st:
        READERS[id(st)] = [_ref(st, _released(id(st))), _ref(value)]
        if len(READERS) > _readers_sweep_at[0]:
            _sweep_readers()
    else:
        e.append(_ref(value))
        if not len(e) & 255:  # (a loop's reads, most of them gone: dropped every 256)
            e[1:] = [r for r in e[1:] if r() is not None]


def _released(key):
    """When the storage goes, its values still reading it get their own copies: a value holds no
    allocation alive that NumPy's scalar would not (``big_temporary[0]`` kept in a list)."""
    def gone(ref, readers=READERS, finalizing=sys.is_finalizing):  # (bound here: at exit the globals are gone)
        e = readers.get(key)
        if e is not None and e[0] is ref:
            del readers[key]
            for r in e[1:]:
                v = r()
                if v is not None and settle is not None:
                    try:
                        settle(v)
                    except Exception:
                        if finalizing():  # (at the interpreter's exit the modules it needs are gone: so is the need)
                            return
                        raise  # (else Python reports it, as for any weakref callback: never silent)
    return gone


def _sweep_readers():
    for k, e in list(READERS.items()):
        if e[0]() is None or all(r() is None for r in e[1:]):
            del READERS[k]
    _readers_sweep_at[0] = max(1024, 2 * len(READERS))


def detach(st):
    """Before ``st``'s device memory is written: each value still reading it gets its own copy."""
    e = READERS.pop(id(st), None)
    if e is not None and e[0]() is st:
        for r in e[1:]:
            v = r()
            if v is not None:
                settle(v)


def lock(st):
    """The storage's re-entrant lock (made on first use: most arrays never need one)."""
    lk = st.lock
    if lk is None:
        with _make_lock:
            lk = st.lock
            if lk is None:
                lk = st.lock = threading.RLock()
    return lk


def movable(st):
    """True when the data may move to the host: no raw device handle was given out, and the
    allocation is one dense block (its bytes are then the data)."""
    if st.pinned:
        return False
    f = st.d.flags
    return bool(f.c_contiguous or f.f_contiguous)


def _flat(st):
    """The allocation's bytes on the device, as a 1-d uint8 array (made once)."""
    f = st.flat
    if f is None:
        d = st.d
        f = st.flat = d.reshape(-1, order="F" if d.flags.f_contiguous and not d.flags.c_contiguous else "C"
                                ).view(numpy.uint8)
    return f


def to_host(st, reason):
    """Move the data to the host (counted in ``xpshim.stats()["placement"]``)."""
    with lock(st):
        if st.host:
            return
        st.gen += 1
        try:
            if st.h is None:
                st.h = _transfer.place_on_host(_flat(st), reason)
            else:
                _transfer.place_on_host_into(_flat(st), st.h, reason)
            st.host = True
        finally:
            st.gen += 1


def to_device(st, reason):
    """Move the data back to the device (counted), into the same device memory."""
    with lock(st):
        if not st.host:
            return
        if READERS:  # (the copy overwrites the device memory that element values may read)
            detach(st)
        st.gen += 1
        try:
            _transfer.place_on_device_into(st.h, _flat(st), reason)
            st.host = False
        finally:
            st.gen += 1


def host_view(d, st, buf=None):
    """The host array over ``st.h`` (or ``buf``, a copy of the allocation's bytes) with the
    geometry of ``d``, a device view of ``st.d``."""
    off = d.data.ptr - st.d.data.ptr if d.size else 0
    return numpy.ndarray(d.shape, d.dtype, buffer=st.h if buf is None else buf, offset=off, strides=d.strides)


def copy_of_allocation(st, reason):
    """A host copy of the allocation's bytes (counted), wherever they are now."""
    if st.host:
        return st.h.copy()
    return _transfer.to_host(_flat(st), reason)


# ---------------------------------------------------------------- owners, found from their root

# id(device root array) -> weak reference to the xpshim array that owns it: a CuPy view that a
# CuPy function returns (np.split, np.reshape) joins its owner's storage through this
OWNERS = {}
_sweep_at = [1024]
_ref = weakref.ref


def register(owner, root):
    """Record ``owner`` (an xpshim array) as the owner of device root array ``root``."""
    OWNERS[id(root)] = _ref(owner)
    if len(OWNERS) > _sweep_at[0]:
        _sweep()


def _sweep():
    """Forget the owners that died (the table's entries are not removed one by one)."""
    for k in [k for k, r in OWNERS.items() if r() is None]:
        del OWNERS[k]
    _sweep_at[0] = max(1024, 2 * len(OWNERS))


def owner_of(root):
    """The live xpshim array owning ``root``, or None."""
    r = OWNERS.get(id(root))
    if r is None:
        return None
    o = r()
    if o is None or o._st.d is not root:
        return None
    return o
