"""The GPU-side array type, and what it promises to host code.

An ``xpshim.ndarray`` on the GPU is a view of one storage (``_storage``: the allocation),
which lives on the GPU, or, after auto mode moved it to the host because a Python loop reads
and writes it element by element (``_placement``), on the host. Each array reads its data
where the storage is: element and small-part accesses on the host, anything else on the
GPU (``x._a`` moves the storage back first, counted). Every view of a storage follows its
moves, so no write is lost (docs/placement.md). On the CPU xpshim hands out plain
``numpy.ndarray`` objects; ``isinstance(x, xpshim.ndarray)`` is true for both.

Host code gets the data through the usual protocols (``__array__``, the buffer
protocol on Python 3.12+, ``__array_interface__``, ``tobytes``), and every such
copy is counted in ``xpshim.stats()``. Device code gets it without a copy
(``__cuda_array_interface__``, ``__dlpack__``).
"""

import builtins
import operator
import sys
import threading
import weakref

import numpy

from . import _backend, _device, _exact, _gemv, _placement, _storage, _transfer
from ._registry import WRITES_INTO

_new = object.__new__


class _NdarrayMeta(type):
    # NumPy arrays are xpshim arrays too: code that checks
    # isinstance(x, np.ndarray) keeps working on either device.
    def __instancecheck__(cls, obj):
        return isinstance(obj, numpy.ndarray) or type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, numpy.ndarray) or type.__subclasscheck__(cls, sub)

    def __new__(mcs, name, bases, ns, **kw):
        # `class MyArray(np.ndarray)` under `import xpshim as np` makes a NumPy subclass,
        # as the user's code intends (views, __array_finalize__ and all): a host array type.
        if any(b is _GPU_CLASS[0] for b in bases):
            bases = tuple(numpy.ndarray if b is _GPU_CLASS[0] else b for b in bases)
            return type(name, bases, ns, **kw)
        return super().__new__(mcs, name, bases, ns, **kw)

    # type(a) == np.ndarray holds for NumPy arrays, as tests written for NumPy expect
    # (``is`` cannot be made to; README "Known differences").
    def __eq__(cls, other):
        return type.__eq__(cls, other) is True or (cls is _GPU_CLASS[0] and other is numpy.ndarray)

    __hash__ = type.__hash__

    def __getattribute__(cls, name):
        # A method read from the class itself, as NumPy's unbound methods are used on NumPy arrays
        # (`np.ndarray.__getitem__(self, key)` in a subclass, which `class Sub(np.ndarray)` makes
        # NumPy's; `np.ndarray.__new__(Sub, shape)`): NumPy's own method for a NumPy array or
        # class, xpshim's for a GPU array. A lookup through an array never comes here.
        v = type.__getattribute__(cls, name)
        if type(v) is _FUNCTION and cls is _GPU_CLASS[0] and name in _NUMPY_METHODS:
            d = _DUAL.get(name)
            if d is None or d[0] is not v:
                d = _DUAL[name] = (v, _dual(name, v))
            return d[1]
        return v


_GPU_CLASS = [None]  # the xpshim.ndarray class, once it exists
_FUNCTION = type(lambda: None)
_NUMPY_METHODS = frozenset(n for n in dir(numpy.ndarray) if callable(getattr(numpy.ndarray, n, None))) - {
    "__init_subclass__", "__subclasshook__", "__class_getitem__", "__reduce_ex__", "__getattribute__",
    "__setattr__", "__delattr__", "__dir__", "__format__", "__sizeof__", "__init__"}
_DUAL = {}  # name -> (xpshim's function, the function the class hands out)


def _dual(name, f):
    """xpshim.ndarray's method ``f`` read from the class: on a NumPy array (a subclass's too) or,
    for ``__new__``, a NumPy class, NumPy's method ``name``; else ``f``."""
    npm = getattr(numpy.ndarray, name)
    if name == "__new__":
        def dual(cls, *args, **kwargs):
            if isinstance(cls, type) and issubclass(cls, numpy.ndarray):
                return npm(cls, *args, **kwargs)
            return f(cls, *args, **kwargs)
    else:
        def dual(self, *args, **kwargs):
            if isinstance(self, numpy.ndarray):
                return npm(self, *args, **kwargs)
            return f(self, *args, **kwargs)
    dual.__name__, dual.__qualname__, dual.__doc__, dual.__wrapped__ = name, f"ndarray.{name}", f.__doc__, f
    dual.__module__ = "xpshim"
    return dual


def _a_view(a, r):
    """``r``, or a new view of ``a`` where CuPy handed ``a`` itself back: CuPy's ``a.T`` of fewer
    than two dimensions is ``a``, NumPy's a new view whose base is ``a``."""
    return a.view() if r is a else r


def wrap(r):
    """Wrap CuPy arrays in a result (array, tuple, list) as xpshim arrays."""
    t = type(r)
    if t is _cupy_ndarray or (t is not tuple and t is not list and _backend.is_raw_gpu_array(r)):
        try:
            b = r.base
        except ValueError:  # (a base no array type stands for: the stand-in's view of a structured array)
            return _own(r, pinned=True)
        return _own(r) if b is None else _view(r, b)
    if t is tuple or t is list:
        return t(map(wrap, r))
    if isinstance(r, tuple) and hasattr(r, "_fields"):  # a namedtuple
        return t(*map(wrap, r))
    return r


def _own(r, pinned=False):
    """The xpshim array owning the device root array ``r``: the one that owns it already (a
    function that hands back its input or out=, as NumPy's), else a new one, the first view
    of a new storage."""
    ref = _owners.get(id(r))
    if ref is not None:
        o = ref()
        if o is not None and o._d is r:
            if pinned:
                if _READERS:
                    _storage.detach(o._st)
                o._st.pinned = True
            return o
    return _new_owner(r, pinned)


def _new_owner(r, pinned=False):
    """A new xpshim array owning the device root array ``r`` that no array owns yet: the first
    view of a new storage."""
    o = _new(ndarray)
    o._d = r
    o._st = _storage.new(r, pinned, o)
    o._b = o._hv = o._p = None
    o._n = 0
    o._v = False
    return o


def _view(r, root, pinned=True):
    """An xpshim array for ``r``, a CuPy view of ``root``: a view of the storage that owns it.
    Memory no xpshim array owns may be a raw CuPy array's, shared: never moved, unless the
    caller knows it is a temporary of the call that made ``r`` (``pinned=False``)."""
    ref = _owners.get(id(root))  # (_storage.owner_of's steps, inline: a frame less for x.reshape(4, 4))
    owner = ref() if ref is not None else None
    if owner is None or owner._st.d is not root:
        owner = _own(root, pinned)
    o = _new(ndarray)
    o._d = r
    o._st = owner._st
    o._b = owner
    o._hv = o._p = None
    o._n = 0
    o._v = False
    return o


def _host_part(x, key, h):
    """``x[key]`` made while the data is on the host: a view of the same storage, whose host
    array is ``h`` and whose device array is made, when first needed, as ``x``'s indexed so."""
    o = _new(ndarray)
    o._d = None
    o._st = x._st
    o._b = x._b if x._b is not None else x
    o._hv = h
    o._p = (x, key)
    o._n = 0
    o._v = False
    return o


def keep_order(r, sources):
    """CuPy's elementwise answer ``r`` in NumPy's memory order. NumPy's ufuncs, operators and
    elementwise methods lay a new answer out as their operands are (order='K'): of F-ordered
    operands, an F-ordered answer. CuPy's allocate C order whatever the operands'
    (``_get_out_args_from_optionals`` takes no order: cupy/_core/_kernel.pyx; ElementwiseKernel's
    likewise), so ``(x.T + 1).flags``, its strides, ``tobytes('A')``, ``ravel('K')`` and whether a
    reshape is a view would differ. Where every array operand has the answer's shape and is
    F-ordered (not C), the answer is made F-ordered too; mixed or broadcast operands keep CuPy's
    C order (docs/differences.md)."""
    if type(r) is not _cupy_ndarray or r.ndim < 2:
        return r
    shape, f = r.shape, False
    for s in sources:
        t = type(s)
        if t is ndarray:
            s = s._d
            if s is None:
                return r
        elif t is not _cupy_ndarray:
            if t is numpy.ndarray:
                return r
            continue  # (numbers)
        if s.ndim == 0:
            continue
        st = s.strides
        if s.shape != shape or st[0] >= st[-1] or not s.flags.f_contiguous or s.flags.c_contiguous:
            return r
        f = True
    if f and not r.flags.f_contiguous:
        return _backend.xp.asfortranarray(r)
    return r


# ---------------------------------------------------------------- read-only views

# The views NumPy makes read-only (x.diagonal(), np.broadcast_to(x, shape), and what NumPy says of
# their own views), where CuPy's are writeable: id(xpshim array) -> (weak reference, whether views
# of it are read-only too). A write to one of them is refused with NumPy's own error, and its
# flags say read-only. Writes through raw handles (cupy.asarray(x), DLPack) are not seen.
_READ_ONLY = read_only_arrays = {}


def _unregister(key):
    return lambda ref: _READ_ONLY.pop(key, None) if _READ_ONLY.get(key, (None,))[0] is ref else None


def is_read_only(x):
    """True where NumPy's array of ``x`` would be read-only (``mark_read_only``)."""
    if not _READ_ONLY:
        return False
    e = _READ_ONLY.get(id(x))
    return e is not None and e[0]() is x


def mark_read_only(r, name, source=None, args=(), kwargs=None):
    """``r``, an xpshim array made by ``name`` (a view-making call) of ``source`` (called with
    ``args`` and ``kwargs``), read-only where NumPy's is: what NumPy's same call makes of a
    read-only or writeable stand-in says so (``_numpys_view_flags``), and views of a read-only
    array whose views NumPy makes read-only."""
    if type(r) is not ndarray or r._v:
        return r
    inherit = None
    if source is not None and _READ_ONLY:
        e = _READ_ONLY.get(id(source))
        if e is not None and e[0]() is source and e[1] and r is not source and r._st is source._st:
            inherit = True
    if inherit is None and name in _MAKES_READ_ONLY and not _asked_writeable(name, args, kwargs):
        inherit = _numpys_view_flags(name)
    if inherit is not None:
        key = id(r)
        ref = weakref.ref(r, _unregister(key))
        _READ_ONLY[key] = (ref, inherit, name if name in _MAKES_READ_ONLY else _READ_ONLY[id(source)][2])
    return r


def _read_only_part(x, key):
    """``x[key]`` of a read-only ``x`` whose views NumPy makes read-only: the part, marked so."""
    e = _READ_ONLY.pop(id(x))
    try:
        r = x[key]
    finally:
        _READ_ONLY[id(x)] = e
    return mark_read_only(r, "getitem", x)


def set_writeable(x, value):
    """``x.setflags(write=value)`` / ``x.flags.writeable = value``, as NumPy's: False makes ``x``
    read-only (writes through it, and through the views made of it from then on, are refused;
    views made before stay writeable, as NumPy's do); True makes it writeable again where NumPy
    would: an array that owns its memory, or a view of a writeable one (``USER``), and, for an
    array NumPy's own call made read-only, NumPy's answer for it (np.broadcast_to's refuses,
    x.diagonal()'s takes it in NumPy 2.4)."""
    e = _READ_ONLY.get(id(x)) if _READ_ONLY else None
    if e is None or e[0]() is not x:
        if not value:
            key = id(x)
            _READ_ONLY[key] = (weakref.ref(x, _unregister(key)), True, USER)
        return True
    if not value:
        return True
    if e[2] == USER:
        if x._b is not None and is_read_only(x._b):  # (its memory's owner is read-only: NumPy's refusal)
            h = numpy.zeros(2)
            h.setflags(write=False)
            h[1:].setflags(write=True)
    else:
        _MAKERS[e[2]][0](numpy.zeros((2, 2))).setflags(write=True)  # (NumPy's ValueError where it refuses)
    del _READ_ONLY[id(x)]
    return True


USER = "setflags"  # (the maker of an array the program made read-only itself)


# The calls whose views NumPy makes read-only: name -> (NumPy's call on a 2 x 2 array, and the
# writeable keyword that decides, its position and its default, where there is one)
_MAKERS = {
    "diagonal": (lambda h: h.diagonal(), None),
    "broadcast_to": (lambda h: numpy.broadcast_to(h[0], (2, 2)), None),
    "sliding_window_view": (lambda h: numpy.lib.stride_tricks.sliding_window_view(h, 2, axis=0),
                            ("writeable", None, False)),
    "as_strided": (lambda h: numpy.lib.stride_tricks.as_strided(h, (2, 2), h.strides, writeable=False),
                   ("writeable", 4, True)),
    "frombuffer": (lambda h: numpy.frombuffer(h.tobytes()).reshape(h.shape), None),  # (of bytes: read-only memory)
}
_MAKES_READ_ONLY = MAKES_READ_ONLY = frozenset(_MAKERS)
_VIEW_FLAGS = {}


def _asked_writeable(name, args, kwargs):
    """Whether the call asked for a writeable view (as_strided's default, sliding_window_view's
    writeable=True)."""
    kw = _MAKERS[name][1]
    if kw is None:
        return False
    key, pos, default = kw
    if kwargs and key in kwargs:
        return bool(kwargs[key])
    return bool(args[pos]) if pos is not None and len(args) > pos else default


def _numpys_view_flags(name):
    """For NumPy's read-only view maker ``name``: whether NumPy's views of its result are read-only
    too (np.broadcast_to's are, x.diagonal()'s are not in NumPy 2.4), or None where NumPy's result
    is writeable after all (read from the installed NumPy, once)."""
    if name not in _VIEW_FLAGS:
        v = _MAKERS[name][0](numpy.zeros((2, 2)))
        _VIEW_FLAGS[name] = None if v.flags.writeable else not v.T.flags.writeable
    return _VIEW_FLAGS[name]


# NumPy's own refusal of each kind of write into a read-only array (its class and message, read
# from NumPy by doing it to a read-only array of its own)
_WRITES = {
    "assign": lambda h: h.__setitem__(0, 0), "output": lambda h: numpy.add(h, 0, out=h),
    "fill": lambda h: h.fill(0), "sort": lambda h: h.sort(), "partition": lambda h: h.partition(0),
    "put": lambda h: h.put([0], [0]), "copyto": lambda h: numpy.copyto(h, 0),
    "putmask": lambda h: numpy.putmask(h, h == 0, 0), "place": lambda h: numpy.place(h, h == 0, [0]),
    "fill_diagonal": lambda h: numpy.fill_diagonal(h, 0), "flat": lambda h: h.flat.__setitem__(0, 0),
    "at": lambda h: numpy.add.at(h, [0], 0), "byteswap": lambda h: h.byteswap(True),
}


def refuse_outs(out):
    """``refuse_write`` for each array of ``out=`` (one array, or a ufunc's tuple of them)."""
    for o in out if type(out) is tuple else (out,):
        refuse_write(o, "output")


def refuse_write(x, kind="assign"):
    """Before a write of ``kind`` (``_WRITES``, or a function doing NumPy's same write into the
    read-only host array it is given) into ``x``: NumPy's error where ``x`` is read-only;
    what was known of the bounds of the arrays of its storage is forgotten (``_IN_BOUNDS``). Every
    write into an xpshim array through xpshim passes here, where any registry holds one. Element
    values that read its memory in place get their own copies first (``_READERS``)."""
    if (_IN_BOUNDS or _READERS) and type(x) is ndarray:
        written(x)
    if _READ_ONLY and is_read_only(x):
        if kind == "at":  # (NumPy's ufunc.at writes into a read-only array of one dimension, not of more)
            _WRITES["at"](numpy.broadcast_to(numpy.zeros(1), (2,) * max(_meta(x).ndim, 1)))
            return
        replay = kind if callable(kind) else _WRITES.get(kind, _WRITES["output"])  # (a caller's own replay)
        replay(numpy.broadcast_to(numpy.zeros((1, 2)), (2, 2)))
        raise ValueError("assignment destination is read-only")  # (where NumPy's call raised nothing)


# ---------------------------------------------------------------- index arrays known in bounds

# CuPy wraps an out-of-bounds integer index where NumPy raises IndexError, so a GPU index array is
# checked before its use: one reduction read back, which waits for all the work queued before it
# (about 60 us in an H100 loop of small kernels; a loop over a list of active points, z[idx] = ...,
# checks its list ten times a step). An index array found in bounds, and what is selected from one
# (idx[mask], idx[j], idx[a:b]), stays in bounds until its storage is written: id(array) -> (weak
# reference, lowest and highest value it may hold, its storage and the storage's move count). A
# write through xpshim forgets the arrays of the storage it writes (refuse_write, at every write's
# entry); a storage moved since (written on the host by NumPy's own loops, maybe), or whose raw
# device handle was given out (cupy.asarray(x), DLPack, a Numba kernel: Storage.pinned), where
# writes are not seen, is not taken as known.
_IN_BOUNDS = in_bounds_arrays = {}
_BY_STORAGE = {}  # id(storage) -> the ids of its arrays in _IN_BOUNDS


def _unregister_bounds(key, skey):
    def gone(ref, known=_IN_BOUNDS, by_storage=_BY_STORAGE):  # (bound here: at exit the globals are gone)
        e = known.get(key)
        if e is not None and e[0] is ref:
            del known[key]
            ids = by_storage.get(skey)
            if ids is not None:
                ids.discard(key)
                if not ids:
                    del by_storage[skey]
    return gone


def remember_bounds(x, lo, hi):
    """Remember that the integer array ``x`` holds values in [lo, hi] (until its storage is written)."""
    st = x._st
    if st.pinned or st.host:
        return
    key, skey = id(x), id(st)
    _IN_BOUNDS[key] = (weakref.ref(x, _unregister_bounds(key, skey)), lo, hi, st, st.gen)
    ids = _BY_STORAGE.get(skey)
    if ids is None:
        ids = _BY_STORAGE[skey] = set()
    ids.add(key)


def known_bounds(x):
    """(lo, hi) where ``x``'s values are known to lie in [lo, hi], else None."""
    e = _IN_BOUNDS.get(id(x))
    if e is None or e[0]() is not x:
        return None
    st = e[3]
    if st is not x._st or st.pinned or st.gen != e[4]:  # (moved since: written on the host, maybe)
        forget_bounds(x)
        return None
    return e[1], e[2]


def written(x):
    """Before any write into ``x`` (``refuse_write``'s first step; alone, for a write-back of host
    copies NumPy wrote into): the bounds known of its storage's arrays forgotten, and the element
    values reading its memory given their own copies."""
    if _IN_BOUNDS:
        forget_bounds(x)
    if _READERS:
        if x._p is _LAZY:
            _settle(x)
        _storage.detach(x._st)


def forget_bounds(x):
    """Forget the bounds known of every array of ``x``'s storage (it is about to be written)."""
    ids = _BY_STORAGE.pop(id(x._st), None)
    if ids:
        for k in ids:
            _IN_BOUNDS.pop(k, None)
    _IN_BOUNDS.pop(id(x), None)


def _in_bounds_part(x, key, lo, hi):
    """``x[key]`` of an index array known in bounds: the part is too (its values are some of x's)."""
    e = _IN_BOUNDS.pop(id(x))
    try:
        r = x[key]
    finally:
        _IN_BOUNDS[id(x)] = e
    if type(r) is ndarray and not r._v:
        remember_bounds(r, lo, hi)
    return r


def _large_partner(sources):
    """GPU work on a small part of one array beside a large part of another (a row of L times a
    block of B, ``L[i, :i + 1] @ B[:i + 1, :]``) is GPU work for both: the small part's array
    counts it as a large access of its own (``_placement.large_part``), not a loop's element
    access (``_placement.scalar_access``), so a loop whose steps pair a small part with large GPU
    work keeps both on the GPU. (Moved to the host, the small part crossed back at every step,
    synchronously: 800 uploads a run, 0.28x NumPy.) Parts of one array together (Cholesky's
    ``A[i, :i] @ A[:i, :i]``) are its own loop, as before."""
    big = None
    for s in sources:
        if type(s) is ndarray and not s._st.host:
            d = s._d
            if d is not None and d.size >= _placement.limit:
                big, size = s._st, d.size
                break
    if big is None:
        return
    for s in sources:
        if type(s) is ndarray and s._st is not big:
            o = s._b if s._b is not None else s
            o._n = _placement.large_part(o._n, size)  # (counted as a large access of its own)


def fresh(r, sources=()):
    """``wrap(r)`` for a call's new result, as the user receives it. In auto mode, a new array
    that a loop may come to index remembers the user's line that made it, and one made at a
    line whose arrays a loop used on the host is made a NumPy array there (``_placement``;
    ``sources``: the call's arguments, whose lines are then remembered as well). A CuPy
    argument handed back (``asarray(cupy_array)``) is the caller's memory: it never moves. A new
    0-d answer of arithmetic, a ufunc or a reduction is NumPy's scalar, a value (``_answer_value``; the
    few functions whose 0-d answers are arrays undo it: _registry.ZERO_D_ARRAYS)."""
    if type(r) is not _cupy_ndarray:
        # (np.divmod, np.unravel_index, slogdet's named tuple: each a new answer, 0-d ones scalars)
        if type(r) is tuple or (isinstance(r, tuple) and hasattr(r, "_fields")):
            vs = [fresh(v, sources) for v in r]
            return tuple(vs) if type(r) is tuple else type(r)(*vs)
        return wrap(r)
    # (once: gpu mode's calls skip all that follows it; _device.placing's steps, inline)
    placing = _policy_get()[1]
    if placing is None:
        placing = _device.default_placing
        if placing is None:
            placing = _device.placing()
    if placing and len(sources) > 1:
        _large_partner(sources)
    key = id(r)
    ref = _owners.get(key)
    if ref is not None:
        o = ref()
        if o is not None and o._d is r:
            return o  # (an array that exists, handed back: out=, or an argument; not a new answer)
    b = r.base
    if b is not None:  # (a view of memory of a raw CuPy argument stays where it is)
        raw = False
        for s in sources:  # (a loop, not any(): x.reshape(4, 4) runs this)
            if type(s) is _cupy_ndarray and (s is b or s.base is b):
                raw = True
                break
        return _view(r, b, raw)
    for s in sources:
        if s is r:  # (a raw CuPy argument handed back)
            return _own(r, pinned=True)
    if not placing:
        o = _new_owner(r)  # (not _own: no array owns r, as looked up above)
        return o if r.ndim else _answer_value(o, r, sources)
    if _placement.seeding:  # (auto mode made small arrays on the GPU: their use)
        line = _placement.seed_use(r.size, sources)
        if line is not None:  # small work on them: a seed too, or, once that is a loop's, NumPy's
            if _placement.lines.get(line):
                return _placement.moved_at_line(r, line)
            o = _placement.seeded(_own(r), line)
            return _answer_value(o, r, sources) if not r.ndim else o
    if not _placement.limit <= r.size <= _placement.LINE_CAP:
        return _answer_value(_own(r), r, sources) if not r.ndim else _own(r)
    line = _placement.birth_line()
    if _placement.lines and _placement.lines.get(line):
        return _placement.moved_at_line(r, line, sources)
    o = _own(r)
    o._s = line
    return _answer_value(o, r, sources) if not r.ndim else o


def _answer_value(o, r, sources):
    """The new 0-d answer ``o`` (of CuPy's ``r``) marked NumPy's scalar, unless it is an argument
    handed back (its owner already)."""
    if type(o) is ndarray and not o._v and o._d is r:
        for s in sources:  # (a loop, not any(): this runs for every 0-d answer)
            if type(s) is ndarray and s._d is r:
                return o
        o._v = True
    return o


_owners = _storage.OWNERS
_policy_get = _device.policy_now
_cupy_ndarray = None  # cupy.ndarray once the backend is live (set by _bind_cupy)
_memcpy_elements = False  # element reads copied by cudaMemcpyAsync (real CuPy), else by the array's copy
_empty = None  # the backend's empty()


@_backend.on_change
def _bind_cupy():
    """wrap() recognises CuPy arrays by type while the GPU is live."""
    global _cupy_ndarray, device_ndarray
    global _memcpy_elements, _empty
    # (not while auto mode's choice is pending: reading xp would settle it; settling tells us again)
    _cupy_ndarray = _backend.xp.ndarray if _backend.live and not _backend.pending and _backend.xp is not None else None
    device_ndarray = _cupy_ndarray  # (the same, for the layers above to read inline: _ufuncroute)
    _memcpy_elements = _cupy_ndarray is not None and getattr(_backend.xp, "__name__", "") == "cupy"
    _empty = _backend.xp.empty if _cupy_ndarray is not None else None


_bind_cupy()


_SCALARS = (int, float, complex, bool)


class _Above:
    """What the array type calls in the layers above it: the namespace (``x.clip`` is
    ``xpshim.clip``), its ufunc and function lookups (``__array_ufunc__``,
    ``__array_function__``), the host fallback, other libraries' ufuncs and ``x.flat``. The
    package ``__init__`` hands them in when this module loads (``_wire_array``), so that this
    layer imports nothing above it."""

    namespace = ufunc_for = function_for = fallback = foreign_call = flatiter = None


above = _Above()


def dev(x, reason="NumPy array argument"):
    """The device form of one argument: CuPy arrays stay, host arrays move (counted)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is numpy.ndarray:
        return _transfer.to_device(x, reason)
    return x


def operand(x):
    """Right-hand side of an operator: GPU array, scalar, or host data moved over."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t in _SCALARS or t is _cupy_ndarray:
        return x
    if t is numpy.ndarray or t is list or t is tuple:
        return _transfer.to_device(x, "operand")
    if isinstance(x, numpy.generic):
        return x
    if _backend.is_raw_gpu_array(x):
        return x
    return NotImplemented


def host(x, reason):
    """A NumPy copy of a GPU array (counted; data placed on the host is copied there)."""
    if _placement.seeding:  # (a small array auto mode made on the GPU, read by NumPy: a host line)
        _placement.read_on_host(x)
    h = _hview(x).copy() if x._st.host else _transfer.to_host(_read(x), reason)
    made = _ARRAY_FUNCTION.made
    if made is not None:  # (NumPy's own function runs on GPU arrays: ndarray.__array_function__)
        made.append(h)
    return h


def _hview(x):
    """The host array of ``x`` (over its storage's host bytes; made once, valid for life)."""
    hv = x._hv
    if hv is None:
        hv = x._hv = _storage.host_view(x._d, x._st)
    return hv


def host_only_dtype(dt):
    """True for dtypes CuPy has no arrays of (object, strings, datetimes, structured, void, and
    the extended-precision longdouble and clongdouble)."""
    try:
        d = numpy.dtype(dt)
    except TypeError:
        return False
    return d.kind not in "biufc" or (d.kind in "fc" and d.itemsize > (8 if d.kind == "f" else 16)) or \
        not d.isnative


def arraylike(v):
    """One argument NumPy reads as array_like, in CuPy's terms: GPU arrays unwrapped, NumPy arrays
    and lists of numbers copied to the device (counted); what has no GPU form (ragged lists,
    strings, functions) as given, for CuPy's function to say what it wants."""
    t = type(v)
    if t is ndarray:
        return v._a
    if t is numpy.ndarray:
        return _transfer.to_device(v, "array-like argument")
    if t is list or t is tuple:
        if not v:  # an empty list is an empty float64 array to NumPy (np.append(ints, []): float64)
            return _transfer.to_device(v, "array-like argument", dtype=numpy.float64)
        if any(type(x) is ndarray for x in v):  # GPU arrays (and what comes with them) stacked on the GPU
            try:
                return _backend.xp.stack([dev(x) if type(x) in (ndarray, numpy.ndarray) else
                                          _transfer.to_device(x, "array-like argument") for x in v])
            except (ValueError, TypeError):
                return v  # ragged, or not array data: CuPy's function says what it wants
        try:
            h = numpy.asarray(v)
        except ValueError:  # ragged: not array data (CuPy's function says what it wants)
            return v
        if h.dtype.kind in "OUSVMm":  # functions, strings, dates: no GPU form (piecewise's funclist)
            return v
        return _transfer.to_device(h, "array-like argument")
    return v


def host_value(v):
    """A value assigned into host data: xpshim GPU arrays copied over (counted)."""
    if type(v) is ndarray:
        return v._h if v._h is not None else host(v, "assigned value")
    if _backend.is_raw_gpu_array(v):
        return _transfer.to_host(v, "assigned value")
    return v


def _meta(x):
    """An array with the shape, dtype and strides of ``x``, wherever its data is (no move)."""
    d = x._d
    return d if d is not None else x._hv


def _scalar(x, reason):
    """The size-1 CuPy array of ``x`` after counting its one value read into Python: the caller
    converts it with CuPy's own (fastest) scalar conversion."""
    if x._st.host:
        return _hview(x).reshape(())
    a = x._d
    if a is None:
        a = _read(x)  # (a view made on the host: made now; an element value's in place)
    _transfer.count_copy(_transfer.VALUE_READ, a.itemsize, reason)
    return a


def _value_host(x, reason):
    """The size-1 ``x`` as a NumPy array, as ``host`` gives it, counted as one value read into
    Python (``item()``, ``operator.index``): not an array copy."""
    if _placement.seeding:  # (as host(): a small array auto mode made on the GPU, read on the host)
        _placement.read_on_host(x)
    if x._st.host:
        return _hview(x).copy()
    a = _read(x)
    _transfer.count_copy(_transfer.VALUE_READ, a.nbytes, reason)
    return a.get()


# ---------------------------------------------------------------- indexing

_OOB = {}  # "i" / "u" -> CuPy's reduction: is any index out of bounds (one kernel)


def _out_of_bounds(idx, n):
    xp = _backend.xp
    if getattr(xp, "__name__", "") != "cupy":
        return bool(xp.logical_or(idx < -n, idx >= n).any())
    k = _OOB.get(idx.dtype.kind)
    if k is None:  # (one launch where the comparisons, the or and any() took four)
        cond = "(x < -n) || (x >= n)" if idx.dtype.kind == "i" else "x >= n"
        k = _OOB[idx.dtype.kind] = xp.ReductionKernel(
            "T x, int64 n" if idx.dtype.kind == "i" else "T x, uint64 n", "bool y", cond, "a || b", "y = a",
            "false", "xpshim_out_of_bounds")
    return bool(k(idx, n))


def _checked(x, n, axis):
    """The device array of the GPU index array ``x`` for an axis of size ``n``, in bounds as NumPy
    requires (``check_bounds``, skipped where known: ``_IN_BOUNDS``)."""
    k = x._a
    if k.dtype.kind in "iu" and k.size:
        b = known_bounds(x) if _IN_BOUNDS else None
        if b is None or b[0] < -n or b[1] >= n:
            check_bounds(k, n, axis)
            remember_bounds(x, -n, n - 1)
    return k


def check_bounds(idx, n, axis):
    # CuPy wraps out-of-bounds integer indices; NumPy raises. One fused
    # reduction and one sync tell us which case we are in.
    if idx.size == 0 or idx.dtype.kind not in "iu":
        return
    xp = _backend.xp
    if _out_of_bounds(idx, n):
        bad = int(idx[xp.logical_or(idx < -n, idx >= n)][0])
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _index(self, key):
    """Translate an index for CuPy: host index arrays move over (counted), and
    integer-array components are bounds-checked as NumPy does."""
    if type(key) is not tuple:
        key = tuple(key) if isinstance(key, tuple) else (key,)  # (a tuple subclass is an nd-index too)
    shape = self._a.shape
    out = []
    axis = 0
    for i, k in enumerate(key):
        t = type(k)
        if k is None:
            out.append(k)
            continue
        if k is Ellipsis:
            rest = sum(_axes_used(kk) for kk in key[i + 1 :])
            axis = len(shape) - rest
            out.append(k)
            continue
        if t is list or t is numpy.ndarray or isinstance(k, tuple):  # (a tuple inside an index: a sequence)
            k = numpy.asarray(k) if t is not list or k else numpy.empty(0, numpy.intp)  # (a[[]]: no indices)
            if k.dtype.kind in "OUSV":  # (a[((Ellipsis, Ellipsis),)]: NumPy's IndexError)
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                                 "integer or boolean arrays are valid indices")
            if k.dtype.kind in "iu" and axis < len(shape) and k.size:
                n = shape[axis]
                lo, hi = int(k.min()), int(k.max())
                if lo < -n or hi >= n:
                    bad = hi if hi >= n else lo
                    raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
            k = _transfer.to_device(k, "index array")
        elif t is ndarray:
            k = _checked(k, shape[axis], axis) if axis < len(shape) else k._a
        elif (t not in _BASIC and t is not bool and hasattr(t, "__index__")
              and not isinstance(k, (numpy.generic, numpy.ndarray, _backend.xp.ndarray))):
            k = operator.index(k)  # (an integer by __index__, as NumPy reads it; CuPy reads a sequence)
        out.append(k)
        axis += _axes_used(k)
    return out[0] if len(out) == 1 else tuple(out)


def _axes_used(k):
    """How many axes of the indexed array one index component consumes."""
    if k is None or k is Ellipsis:
        return 0
    dt = getattr(k, "dtype", None)
    if dt is not None and dt.kind == "b":
        return k.ndim  # a boolean mask consumes as many axes as it has
    return 1


_BASIC = frozenset({int, slice, type(None), type(Ellipsis)})


def _writes(name, args, kwargs):
    """Whether NumPy's function ``name`` called so writes into a GPU array: its first argument, or
    ``out=`` (NumPy's concatenate(..., out=gpu_array) cannot write there itself)."""
    if kwargs and "out" in kwargs:
        o = kwargs["out"]
        if type(o) is ndarray or (type(o) is tuple and any(type(v) is ndarray for v in o)):
            return True
    if name not in WRITES_INTO:
        return False
    first, flag = WRITES_INTO[name]
    if type(args[0] if args else kwargs.get(first)) is not ndarray:
        return False
    if flag is None:
        return True
    i, key = flag
    return not (args[i] if len(args) > i else kwargs.get(key, True))


class _Active(threading.local):
    active = None  # the NumPy function whose xpshim version runs now (__array_function__)
    made = None  # the host copies NumPy's own function made of GPU arrays, while it runs


_ARRAY_FUNCTION = _Active()
# what NumPy's scalars have beyond the array's methods (Python's float and int methods)
_SCALAR_METHODS = frozenset({"is_integer", "as_integer_ratio", "hex", "bit_count"})
_HOST_VALUES = frozenset({float, int, bool, complex, numpy.ndarray})
_HOST_ARRAY = numpy.ndarray


def _basic(key):
    """A tuple index of ints, slices, None and Ellipsis only (basic indexing)."""
    for k in key:
        if type(k) not in _BASIC:
            return False
    return True


def _value(v):
    t = type(v)
    if t is ndarray:
        return v._a
    if t is numpy.ndarray or t is list or t is tuple:
        return _transfer.to_device(v, "assigned value")
    if isinstance(v, (numpy.ndarray, memoryview)):  # a NumPy subclass, a buffer: their data
        return _transfer.to_device(numpy.asarray(v), "assigned value")
    if (t is float or t is complex or isinstance(v, numpy.inexact)) and v == 0 and _negative_zero(v):
        # CuPy writes a number by fill(), and a zero (-0.0 too) by memset: -0.0 goes over as data
        return _transfer.to_device(v, "assigned -0.0")
    return v


def _items(x):
    """``iter(x)``: NumPy's iteration, ``x[i]`` for each ``i`` read when the loop asks for it, so
    a loop sees the writes it makes (``for i, v in enumerate(a[:-1]): a[i + 1] += v``). Nothing
    is read before the first step (``np.iterable(x)`` copies nothing). A 1-d array of numbers
    moves to the host at the first step (one counted copy; every view of it goes along, and the
    next GPU use moves it back), so its elements are NumPy's scalars at NumPy's speed, not one
    device read each; rows of a larger array are views, as NumPy's."""
    if _meta(x).ndim == 1 and not x._st.host:
        _placement.loop_to_host(x)
    for i in range(len(x)):
        yield x[i]


def as_value(o, sources=()):
    """``o`` as NumPy's scalar where it is a 0-d answer (a reduction method's, ``x.argmax()``;
    a function's, ``np.flip`` of 0-d data): marked a value, as ``fresh`` marks new answers; where
    CuPy answered a 0-d view of an argument's memory, a copy of that element first (a value no
    later write to the argument changes)."""
    if type(o) is not ndarray or o._v:
        return o
    d = o._d
    if d is None or d.ndim:
        return o
    if o._b is not None and any(type(s) is ndarray and s._st is o._st for s in sources):
        return _element(d, ())
    o._v = True
    return o


def value_of(d):
    """The element of the 0-d device array ``d``, as a value of its own (NumPy's scalar: a copy)."""
    return _element(d, ())


def value_answer(r, x):
    """``as_value(wrap(r), (x,))``: CuPy's answer ``r`` of ``x``'s method (``x.sum()``, ``x.max()``),
    in one step where ``r`` owns its memory (the common case: three frames less)."""
    if type(r) is _cupy_ndarray:
        try:
            b = r.base
        except ValueError:
            b = r  # (wrap's case: below)
        if b is None:
            o = _own(r)
            if o._v or r.ndim:
                return o
            if o._b is not None and type(x) is ndarray and x._st is o._st:  # (as_value's steps)
                return _element(r, ())
            o._v = True
            return o
    return as_value(wrap(r), (x,))


def as_array(o):
    """``o`` as a 0-d array where a function's 0-d answer is NumPy's array (``np.asarray(x)``)."""
    if type(o) is ndarray and o._v:
        if o._p is _LAZY:
            _settle(o)
        o._v = False
    return o


def _element(r, key, st=None):
    """``x[key]`` where CuPy answered ``r``, a 0-d view: NumPy's scalar, which is a value, marked so
    (``_v``: its in-place operators rebind, as a NumPy scalar's do). Of ``x``'s storage ``st``, the
    value reads ``r`` in place, copy-on-write: ``_d`` None, the view in ``_hv`` (which ``_meta``
    reads), ``_p`` ``_LAZY``; operators and conversions read the view, anything else (``_a``) and
    any write into the storage (``refuse_write``, ``_storage.detach``) copy it first (``_settle``).
    Else, or where ``x``'s raw handle was given out (writes not seen), a copy of the element made
    on the device in stream order (no synchronisation: later writes to ``x`` are queued after it).
    An index with an Ellipsis (``x[...]`` of a 0-d array) is NumPy's 0-d view."""
    if key is Ellipsis:
        return wrap(r)
    if type(key) is tuple:  # (a loop, not any(): x[i, j] runs this)
        for k in key:
            if k is Ellipsis:
                return wrap(r)
    if st is not None and not st.pinned:
        o = _new(ndarray)
        o._d = o._b = None
        o._hv = r
        o._p = _LAZY
        o._st = _storage.new(r, True)  # (pinned: never moved while it reads another's memory)
        o._n = 0
        o._v = True
        _storage.add_reader(st, o)
        return o
    c = _copy_element(r)
    # (_own's work, inline, less the owner's registration: no function hands this private copy
    # back to be recognised; a frame and a weak reference less per element read)
    o = _new(ndarray)
    o._d = c
    o._st = _storage.new(c)
    o._b = o._hv = o._p = None
    o._n = 0
    o._v = True
    return o


# Library functions that take an array argument with numpy.asarray and write their result into
# it: given a GPU array, the write would land in a copy (lost, silently). function name -> the end
# of its file's path. https://github.com/scipy/scipy/blob/v1.17.1/scipy/ndimage/_ni_support.py
_WRITES_INTO_COPY = {"_get_output": "scipy/ndimage/_ni_support.py"}


def _refuse_lost_write():
    """Raise where the code asking NumPy for this array's host form (``__array__``, the buffer
    protocol, ``__array_interface__``: NumPy's asarray reads one of them) is a function of
    ``_WRITES_INTO_COPY``, which writes into what it gets."""
    code = sys._getframe(2).f_code
    tail = _WRITES_INTO_COPY.get(code.co_name)
    if tail is not None and code.co_filename.replace("\\", "/").endswith(tail):
        raise TypeError(f"{tail.rsplit('/', 1)[0].replace('/', '.')} would write its output into a NumPy copy "
                        "of this GPU array, which would keep its old values: give it a NumPy array as output= "
                        "(numpy.empty(shape)), or use the function's return value")
    if code.co_filename.replace("\\", "/").endswith(_MASKED):
        # (np.ma.MaskedArray(x) of NumPy data is a view of it, and writes through it land there)
        above.fallback.announce("numpy.ma", "masked arrays have no GPU form: the masked array holds a host "
                                "copy of the GPU array, and writes through it do not reach the GPU array",
                                back=False)


_MASKED = "numpy/ma/core.py"
_STRIDE_TRICKS = "numpy/lib/_stride_tricks_impl.py"


def _whole_allocation(x):
    """For NumPy's own stride tricks (``as_strided``, ``sliding_window_view``, ``broadcast_to``)
    asking for ``x``'s host form (its caller's caller): a host copy of ``x``'s whole allocation
    (counted), else None. They view ``x``'s memory with strides that may reach past ``x``, into
    the memory around it, as NumPy's view of a larger array's buffer allows; a copy of ``x``'s
    elements alone would let those strides read other memory."""
    if x._d is None or _ARRAY_FUNCTION.made is not None:  # (NumPy's function run through xpshim: its views are ours)
        return None
    if not sys._getframe(2).f_code.co_filename.replace("\\", "/").endswith(_STRIDE_TRICKS):
        return None
    return _storage.copy_of_allocation(x._st, "numpy.lib.stride_tricks")


_LAZY = (None, None)  # (_p of an element value reading its array's memory in place: _element)
_READERS = element_readers = _storage.READERS


def _settle(o):
    """The element value ``o`` (``_element``) with its own copy of the element, before the memory
    it reads is written (or ``o``'s device array is wanted for anything but a read)."""
    if o._p is _LAZY:
        c = _copy_element(o._hv)
        st = o._st
        st.d, st.flat, st.pinned = c, None, False
        o._d, o._hv, o._p = c, None, None
    return o._d


_storage.settle = _settle


def _read(x):
    """``x``'s device array for a read into a new array or a Python value (an operator, a
    conversion): an element value not yet copied reads its array's memory in place."""
    return x._hv if x._p is _LAZY else x._a


def _copy_element(r):
    """A new 0-d device array holding ``r``'s element: one device-to-device copy of its bytes
    (cudaMemcpyAsync: no kernel launch, in stream order), where the memory has pointers (CuPy's;
    ``_bind_cupy`` chooses), else the array's copy."""
    if _memcpy_elements:
        c = _empty((), r.dtype)
        c.data.copy_from_device_async(r.data, r.itemsize)
        return c
    return r.copy()


def _own_value(value, a):
    """A value read from the memory that the write goes to (``y[:] = x`` with ``y = x.view(np.int32)``,
    ``a[1:] = a[:-1]``), as NumPy reads it: all of it before any element is written. CuPy skips a
    copy from the very memory it would write whatever the dtypes, keeping the bits (_scatter_op in
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/_routines_indexing.pyx), and its kernels
    read and write overlapping elements in no set order: a copy on the device first."""
    v = value._a
    return v.astype(a.dtype) if v.dtype != a.dtype else v.copy()


def _negative_zero(v):
    return bool(numpy.signbit(numpy.real(v)) or numpy.signbit(numpy.imag(v)))


# ---------------------------------------------------------------- the class

def _alignment(dtype):
    # what a GPU load of one element needs: the element's size (complex128 is 16-byte aligned in CUDA)
    return min(dtype.itemsize, 16) if dtype.kind in "biufcmM" else 1


def _misaligned(r):
    al = _alignment(r.dtype)
    if al <= 1 or r.size == 0:
        return False
    return r.data.ptr % al != 0 or any(st % al for st, n in zip(r.strides, r.shape) if n > 1)


class ndarray(metaclass=_NdarrayMeta):
    """An N-dimensional array on the GPU, behaving as ``numpy.ndarray`` does.

    Made by xpshim's functions when the current device is the GPU; wraps one
    ``cupy.ndarray`` (``x.get()`` or ``xpshim.asnumpy(x)`` copies it to the
    host, ``cupy.asarray(x)`` or ``x.__cuda_array_interface__`` shares it).
    ``xpshim.ndarray(shape, dtype)`` makes an empty array on the current
    device, as ``numpy.ndarray(shape, dtype)`` does.
    """

    # _st: the storage (_storage.Storage) this is a view of; _d: this view's device array (None
    # for a view made while the data was on the host, until first needed: _p = (parent, key)
    # makes it); _hv: its host array over the storage's host bytes (made when first needed);
    # _b: the array owning the storage (None for the owner itself: NumPy's base);
    # _n: consecutive scalar accesses (_placement.scalar_access); _s: the user's line that made
    # it, where a loop may come to index it (set by fresh(), else unset)
    # _v: True for an element read (x[i], x[i, j]): NumPy's scalar, a value of its own that no
    # write to x changes and whose in-place operators rebind instead of writing (_element)
    __slots__ = ("_st", "_d", "_hv", "_b", "_p", "_n", "_s", "_x", "_v", "__weakref__")
    __array_priority__ = 100.0
    _xpshim_device = "gpu"  # (get_device reads it without loading this module: _cpupath)

    def __new__(cls, shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
        from . import _device

        if _device.current_device() == "cpu" or buffer is not None:
            return numpy.ndarray(shape, dtype, buffer, offset, strides, order)
        n = _placement.estimate("xpshim.zeros", (shape,), {}) if _device.placing() else None
        if n is not None and n < _placement.limit:  # auto mode: a small array stays on the host
            return numpy.ndarray(shape, dtype, buffer, offset, strides, order)
        xp = _backend.require_gpu("xpshim.ndarray")
        return wrap(xp.ndarray(shape, dtype, strides=strides, order=order or "C"))

    def __array_finalize__(self, obj):
        """NumPy's hook for its subclasses' new views (``np.ndarray.__array_finalize__(self, obj)``
        in a subclass's own): NumPy's does nothing, nor does this."""
        return None

    # (np.ndarray[Any, np.dtype[np.float64]] in annotations: NumPy's generic alias)
    __class_getitem__ = classmethod(lambda cls, item: numpy.ndarray[item])

    @property
    def _a(self):
        """This view's device array; data on the host moves back to the device first (counted)."""
        if self._st.host:
            _placement.back_to_device(self)
        d = self._d
        if d is None:  # a view made on the host (x[i:j] while moved): indexed as then
            p, key = self._p
            if p is None:  # (an element value reading its array in place: its own copy now)
                return _settle(self)
            d = self._d = p._a[key]
            self._p = None
        return d

    @_a.setter
    def _a(self, r):
        # a new allocation for this array (a resize() done on the host, or a new object made
        # as _new(ndarray)): it owns it from now on
        st = getattr(self, "_st", None)
        if st is not None and st.host:
            _placement.back_to_device(self)
        self._d, self._st, self._b, self._hv, self._p = r, _storage.new(r), None, None, None
        if getattr(self, "_n", None) is None:
            self._n = 0
            self._v = False
        _storage.register(self, r)

    def _set_h(self, v):
        if v is not None:  # (None: "the data is on the device", which a new array's is)
            raise AttributeError("an array's host data is its storage's: moves are _storage's")

    # The host array while the data is on the host, else None
    _h = property(lambda s: _hview(s) if s._st.host else None, _set_h)

    # -- attributes ------------------------------------------------------
    # (read wherever the data is: reading them never moves it)
    shape = property(lambda s: _meta(s).shape, lambda s, v: s._reshape_in_place(v), doc="Tuple of array dimensions.")
    dtype = property(lambda s: _meta(s).dtype, lambda s, v: s._view_in_place(v),
                     doc="Data type of the elements (a numpy.dtype).")
    ndim = property(lambda s: _meta(s).ndim, doc="Number of dimensions.")
    size = property(lambda s: _meta(s).size, doc="Number of elements.")
    itemsize = property(lambda s: _meta(s).itemsize, doc="Bytes per element.")
    nbytes = property(lambda s: _meta(s).nbytes, doc="Bytes of all elements.")
    strides = property(lambda s: _meta(s).strides, doc="Bytes to step in each dimension.")
    flags = property(lambda s: Flags(_meta(s).flags, not is_read_only(s), s),
                     doc="Memory layout flags, as NumPy's flags object.")
    data = property(lambda s: s._raw().data, doc="The device memory pointer (cupy.cuda.MemoryPointer).")
    device = property(lambda s: s._a.device, doc="The CUDA device holding the data.")
    T = property(lambda s: mark_read_only(wrap(_a_view(s._a, s._a.T)), "T", s), doc="Transposed view.")
    mT = property(lambda s: mark_read_only(wrap(s._a.mT), "mT", s), doc="Matrix-transposed view (last two axes).")
    base = property(lambda s: s._b, doc="The array owning the memory this is a view of (None for its owner).")

    def setflags(self, write=None, align=None, uic=None):
        """``numpy.ndarray.setflags``: ``write`` as NumPy's (``set_writeable``: False refuses
        writes through the array and its later views with NumPy's errors; True where NumPy allows
        it). GPU memory is always aligned: ``align=False`` raises NumPy's ValueError, saying
        what to do instead."""
        if write is not None:
            set_writeable(self, write)
        for name, value in (("aligned", align), ("writebackifcopy", uic)):
            if value is not None:
                refuse_flag(name, value)

    def _view_in_place(self, dtype):
        """``x.dtype = t``: NumPy's ``x.view(t)`` (its checks and errors), made this array's own
        over the same memory, which its views and names keep sharing."""
        if self._v:  # (an element read is NumPy's scalar, whose dtype is not writable)
            raise AttributeError("attribute 'dtype' of 'numpy.generic' objects is not writable")
        try:
            numpy.dtype(dtype)
        except TypeError:
            numpy.zeros(1).dtype = dtype  # (NumPy's own error for what is not a dtype)
            raise
        v = self.view(dtype)
        if type(v) is not ndarray:  # (a host-only dtype: the view would be a host copy)
            raise TypeError(f"a GPU array cannot take dtype {numpy.dtype(dtype)} in place: it has no GPU "
                            "form; use x.view(dtype), which makes a host copy (counted)")
        self._d, self._hv = v._a, None

    def _reshape_in_place(self, shape):
        a = self._a
        a.shape = shape
        self._hv = None

    def _raw(self):
        """The device array handed out as such (CUDA interfaces, DLPack, ``cupy.asarray``): its
        memory is shared from now on, so the storage never leaves the device again."""
        a = self._a
        if _READERS:  # (writes through the handle are not seen: element values copy first)
            _storage.detach(self._st)
        self._st.pinned = True
        return a

    @property
    def real(self):
        """Real part (a view for complex arrays)."""
        return wrap(self._a.real)

    @real.setter
    def real(self, v):
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self)
        self._a.real = _value(v)

    @property
    def imag(self):
        """Imaginary part."""
        return wrap(self._a.imag)

    @imag.setter
    def imag(self, v):
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self)
        self._a.imag = _value(v)

    @property
    def flat(self):
        """A flat iterator (NumPy's flatiter: indexing and assignment, next(), base, index, coords)."""
        return above.flatiter.FlatIter(self)

    @flat.setter
    def flat(self, value):
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self, "flat")
        above.flatiter.assign(self, value)

    @property
    def ctypes(self):
        raise AttributeError(
            "ndarray.ctypes: a GPU array has no host pointer; use "
            "x.__cuda_array_interface__['data'][0] for the device pointer, or xpshim.asnumpy(x).ctypes"
        )

    # -- interop: device, zero-copy --------------------------------------
    @property
    def __cuda_array_interface__(self):
        return self._raw().__cuda_array_interface__

    # (__dlpack__, __dlpack_device__: the array API block at the end, from xpshim/_arrayapi.py)

    def __cupy_get_ndarray__(self):
        # CuPy's hook for foreign array-likes: cupy.asarray(x) shares the memory.
        return self._raw()

    # -- interop: host, each a counted copy -------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to a new ``numpy.ndarray`` on the host (counted in ``xpshim.stats()``)."""
        if self._st.host and out is None and stream is None:
            return numpy.array(_hview(self), order=order)
        if out is not None or stream is not None:
            _transfer.count_copy("device_to_host", self._a.nbytes, "get")
            return self._a.get(stream=stream, order=order, out=out, blocking=blocking)
        return _transfer.to_host(self._a, "get()")

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError(
                "a GPU array cannot be turned into a NumPy array without a copy; "
                "use xpshim.asnumpy(x) (or copy=None/True)"
            )
        _refuse_lost_write()
        whole = _whole_allocation(self)
        h = host(self, "numpy.asarray") if whole is None else _storage.host_view(self._d, self._st, whole)
        return h if dtype is None else h.astype(dtype, copy=False)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's own functions that keep their input's class (``numpy.linalg.inv(x)``, ...,
        in code that imported NumPy itself) hand their host result here, as NumPy's protocol
        for array-likes has it: it goes to the GPU as a GPU array (one counted copy), as the
        result of a NumPy subclass stays that subclass. Dtypes with no GPU form stay NumPy's."""
        # https://numpy.org/doc/stable/reference/arrays.classes.html#numpy.class.__array_wrap__
        if return_scalar:
            return array[()]
        if type(array) is not numpy.ndarray or host_only_dtype(array.dtype):
            return array
        return wrap(_transfer.to_device(array, "a result of NumPy's function"))

    if sys.version_info >= (3, 12):
        def __buffer__(self, flags):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller.startswith(("numba.", "numba_cuda.")):
                # Numba's typing probes arguments with memoryview(); for a CUDA kernel the
                # array is then taken through __cuda_array_interface__, in place (no copy)
                raise TypeError("a GPU array has no host buffer; Numba takes it by __cuda_array_interface__")
            _refuse_lost_write()
            # The latest copy lives as long as this array: ndarray(buffer=x) keeps only x, and
            # reads the memory after it has given the buffer back
            whole = _whole_allocation(self)
            h = host(self, "buffer protocol") if whole is None else _storage.host_view(self._d, self._st, whole)
            if not h.flags.c_contiguous and not flags & 0x10:  # (PyBUF_STRIDES' own bit: the reader takes strides)
                h = numpy.ascontiguousarray(h)  # (an F-ordered copy to a reader of C-ordered bytes: Pillow's)
            self._x = h
            return memoryview(h)

    @property
    def __array_interface__(self):
        # Pillow reads shape/typestr/strides here. On 3.12+ it then takes the
        # bytes through the buffer protocol (one counted copy, which Pillow maps
        # without copying again); NumPy uses that protocol first too. On 3.11
        # there is no buffer protocol for Python classes: explicit strides make
        # Pillow call tobytes(), and NumPy reads 'data'.
        _refuse_lost_write()
        a = self._a
        d = {"shape": a.shape, "typestr": a.dtype.str, "descr": a.dtype.descr, "version": 3,
             "strides": None if sys.version_info >= (3, 12) else c_strides(a.shape, a.itemsize)}
        if sys.version_info < (3, 12):
            whole = _whole_allocation(self)
            if whole is not None:  # (the allocation's bytes, and this view's place and strides in them)
                d["data"], d["strides"] = whole, a.strides
                d["offset"] = a.data.ptr - self._st.d.data.ptr if a.size else 0
                return d
            h = host(self, "__array_interface__")
            if not h.flags.c_contiguous:  # (an F-ordered copy: its bytes as the C-ordered transpose's buffer)
                d["data"], d["strides"] = h.T, h.strides
            else:
                d["data"] = h
        return d

    def tobytes(self, order="C"):
        """Copy the data to host ``bytes`` (counted)."""
        return host(self, "tobytes").tobytes(order)

    def tolist(self):
        """Copy to nested Python lists of Python scalars (counted; of a 0-d array, a Python
        scalar: one value read)."""
        return (_value_host(self, "tolist") if _meta(self).ndim == 0 else host(self, "tolist")).tolist()

    def item(self, *args):
        """Copy one element to a Python scalar (counted)."""
        if self._st.host:
            return _hview(self).item(*args)
        if args:
            # item(i) indexes the flattened array (i < 0 from its end); item(i, j, ...) and
            # item((i, j, ...)) one element
            a = self._a
            if len(args) == 1 and type(args[0]) is not tuple:
                i = operator.index(args[0])
                if not -a.size <= i < a.size:
                    return numpy.empty(a.shape, a.dtype).item(i)  # NumPy's own error
                idx = numpy.unravel_index(i % a.size, a.shape)
            else:
                idx = args[0] if len(args) == 1 else args
                if len(idx) != a.ndim:  # (NumPy's own error, from an array of the shape over one element)
                    return numpy.broadcast_to(numpy.empty((), a.dtype), a.shape).item(*args)
            return wrap(a[tuple(idx)]).item()
        if self._a.size != 1:
            return numpy.empty(self._a.shape, self._a.dtype).item()  # NumPy's own error
        return _value_host(self, "item()").item()

    def tofile(self, fid, sep="", format="%s"):
        host(self, "tofile").tofile(fid, sep, format)

    def dump(self, file):
        host(self, "dump").dump(file)

    def dumps(self):
        return host(self, "dumps").dumps()

    def __reduce__(self):
        # Pickled as NumPy data; unpickled onto the device current at load time.
        return (_unpickle, (host(self, "pickle"),))

    def __copy__(self):
        return wrap(self._a.copy())

    def __deepcopy__(self, memo):
        return wrap(self._a.copy())

    def fill(self, value):
        """``numpy.ndarray.fill``, -0.0 kept (CuPy's fill writes any zero by memset)."""
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self, "fill")
        if self._st.host or _device.placing():
            with _storage.lock(self._st):
                if self._st.host:
                    _hview(self).fill(host_value(value))
                    return
                self._fill(value)
        else:
            self._fill(value)

    def _fill(self, value):
        v = _value(value)
        if type(v) is type(self._a):
            self._a[...] = v
        else:
            self._a.fill(v)

    def clip(self, min=None, max=None, out=None, **kwargs):
        """``numpy.ndarray.clip``: as ``xpshim.clip`` (NumPy's NaN propagation, its handling of
        a missing bound)."""
        return above.namespace.clip(self, min, max, out=out, **kwargs)

    def copy(self, order="C"):
        """A copy on the same device."""
        if order not in ("C", "F", "A", "K"):
            numpy.empty(0).copy(order)  # (NumPy's error for an order it refuses: "", b"bogus")
            # (CuPy's takes an upper-case letter only: NumPy's None is "C", and it takes "k", b"K")
            order = "C" if order is None else (order.decode("latin-1") if type(order) is bytes else order).upper()
        return wrap(self._a.copy(order))

    def view(self, dtype=None, type=None):
        """A view of the same GPU memory, as ``numpy.ndarray.view``: ``x.view(np.ndarray)`` and
        ``x.view(x.__class__)`` give a GPU view; another NumPy subclass lives on the host (a
        counted, warned copy, not a view)."""
        if isinstance(dtype, builtins.type) and issubclass(dtype, (ndarray, numpy.ndarray)):  # view(ArrayClass)
            dtype, type = None, dtype
        if type is not None and type is not ndarray and type is not numpy.ndarray:
            kw = {"type": type} if dtype is None else {"dtype": dtype, "type": type}  # (NumPy reads None as float64)
            return above.fallback.run_method(self, "view", (), kw, f"{type.__name__} arrays live on the host")
        if dtype is not None and type is None:
            if host_only_dtype(dtype):  # (structured, void, strings: as astype to them, on the host)
                return above.fallback.run_method(self, "view", (dtype,), {}, f"{numpy.dtype(dtype)} arrays live on the "
                                            "host: a view of a host copy, not of the GPU memory")
        r = self._a.view() if dtype is None else self._a.view(dtype)
        if dtype is not None and _misaligned(r):
            # (NumPy takes unaligned data on the host; a GPU load of it faults, and the fault
            # ends every later GPU call of the process)
            raise ValueError(f"view as {r.dtype}: the data would not be aligned to {_alignment(r.dtype)} bytes "
                             f"(it starts {r.data.ptr % _alignment(r.dtype)} bytes past a boundary, or a stride "
                             f"is not a multiple), and the GPU cannot read unaligned {r.dtype}. Copy first "
                             f"(x.copy().view(...)) or run this on the CPU (XPSHIM_DEVICE=cpu)")
        return mark_read_only(wrap(r), "view", self)

    # -- Python protocol -------------------------------------------------
    def __repr__(self):
        if self._v:  # NumPy's scalar: np.float64(3.0)
            return repr(_value_host(self, "repr")[()])
        return repr(host(self, "repr"))

    def __hash__(self):
        if not self._v:  # (arrays are unhashable, NumPy's scalars hash as their value: a dict key)
            raise TypeError("unhashable type: 'numpy.ndarray'")
        return hash(_value_host(self, "hash()")[()])

    def __trunc__(self):
        if not self._v:
            raise TypeError("type numpy.ndarray doesn't define __trunc__ method")
        v = _value_host(self, "math.trunc")[()]
        if not hasattr(v, "__trunc__"):  # (numpy.float32's, not a Python float: NumPy's TypeError)
            raise TypeError(f"type numpy.{v.dtype.name} doesn't define __trunc__ method")
        return v.__trunc__()

    def __getattr__(self, name):
        # (only for names the class lacks) NumPy's scalar methods on an element read or a
        # reduction's answer (NumPy's scalars): x[3].is_integer(), x.max().as_integer_ratio()
        if name in _SCALAR_METHODS:
            try:
                value = object.__getattribute__(self, "_v")
            except AttributeError:
                value = False
            if value:
                return getattr(_value_host(self, name)[()], name)
        raise AttributeError(f"'xpshim.ndarray' object has no attribute {name!r}")

    def __str__(self):
        return str(host(self, "str"))

    def __format__(self, spec):
        return format(host(self, "format"), spec)

    def __len__(self):
        return len(_meta(self))

    def __iter__(self):
        if _meta(self).ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return _items(self)

    def __contains__(self, v):
        found = self._a == operand(v) if self._a.ndim == 0 else (self._a == operand(v)).any()
        if found.size == 1 and not self._st.host:  # (else bool() raises NumPy's error, or the data is on the host)
            _transfer.count_copy(_transfer.VALUE_READ, 1, "in")
        return bool(found)

    def __bool__(self):
        if _meta(self).size != 1:
            return bool(numpy.empty(_meta(self).shape, bool))  # NumPy's own error
        return bool(_scalar(self, "bool()"))

    def __int__(self):
        if _meta(self).size != 1:
            return int(numpy.empty(_meta(self).shape))
        return int(_scalar(self, "int()"))

    def __float__(self):
        m = self._d if self._d is not None else self._hv  # (_meta(self), inline: float(x.sum()) is common)
        if m.size != 1:
            return float(numpy.empty(m.shape))
        if self._v and m.dtype.kind == "c":  # (NumPy's complex scalar: its real part, warned)
            return float(_value_host(self, "float()")[()])
        return float(_scalar(self, "float()"))

    def __complex__(self):
        if _meta(self).size != 1:
            return complex(numpy.empty(_meta(self).shape))
        return complex(_scalar(self, "complex()"))

    def __index__(self):
        if _meta(self).ndim != 0 or _meta(self).dtype.kind not in "iub":
            return operator.index(numpy.empty(_meta(self).shape, _meta(self).dtype))  # NumPy's own error
        return operator.index(_value_host(self, "index")[()])

    def __round__(self, ndigits=None):
        if ndigits is None and self._a.ndim == 0:  # (as NumPy's scalar, which a 0-d GPU array stands for)
            kind = self._a.dtype.kind
            if kind in "bc":
                raise TypeError(f"type numpy.{self._a.dtype.name} doesn't define __round__ method")
            return int(self) if kind in "iu" else round(float(self))  # (an int64 exactly, not through a float)
        if ndigits is None:
            return wrap(self._a.round())
        return wrap(self._a.round(ndigits))

    def __delitem__(self, key):
        raise ValueError("cannot delete array elements")  # (NumPy's: an array's size is fixed)

    def __getitem__(self, key):
        if _READ_ONLY:  # (a part of a view whose views NumPy makes read-only: read-only too)
            e = _READ_ONLY.get(id(self))
            if e is not None and e[1] and e[0]() is self:
                return _read_only_part(self, key)
        if _IN_BOUNDS and id(self) in _IN_BOUNDS:  # (a part of an index array known in bounds: so too)
            b = known_bounds(self)
            if b is not None:
                return _in_bounds_part(self, key, *b)
        st = self._st
        if st.host:  # data moved to the host by a loop of element or small-slice accesses
            h = self._hv
            if h is None:
                h = _hview(self)
            t = type(key)
            if t is int or t is slice:
                r = h[key]
                # an element is a NumPy scalar, as NumPy's; a part is a view of the same storage
                return r if type(r) is not _HOST_ARRAY else _host_part(self, key, r)
            if t is tuple:
                if len(key) == 2:  # (a[i, j], a[i, :j]: the loop's common case, checked inline)
                    t0, t1 = type(key[0]), type(key[1])
                    basic = (t0 is int or t0 is slice) and (t1 is int or t1 is slice)
                else:
                    basic = False
                if basic or _basic(key):
                    r = h[key]
                    return r if type(r) is not _HOST_ARRAY else _host_part(self, key, r)
            hk = _placement.host_key(key)
            if hk is not None:
                return h[hk]  # (a fancy index: a new array)
        a = self._d
        if a is None or st.host:
            a = self._a  # (moves the data back to the device, if it was on the host)
        t = type(key)
        basic = t is int or t is slice or (t is tuple and _basic(key))
        r = a[key] if basic else a[_index(self, key)]  # (basic: CuPy raises as NumPy does)
        ndim = r.ndim
        if ndim:  # (an element, x[3], needs no size)
            size = r.size if basic else max(r.size, _placement.mask_extent(key))
            # a large part of an array at twice the crossover or more: GPU work, counted against the loop
            if size >= _placement.limit and a.size >= _placement.part_limit:
                self._n = _placement.large_part(self._n, size)
                return wrap(r)
            if size == a.size:  # all of it (C[None, :, :]): the array's own use, not a loop's
                self._n = 0
                return wrap(r)
        n = self._n + 1  # an element or a small part, as a loop over an array reads it
        if n < _placement.MIGRATE_AFTER:
            self._n = n
            return wrap(r) if ndim else _element(r, key, st)
        if basic and not _device.placing():
            # (scalar_access's answer where arrays are not placed by size: nothing moves, and
            # the count starts again; a basic key's host_key is the key itself)
            self._n = 0
            return wrap(r) if ndim else _element(r, key, st)
        hk = _placement.host_key(key)  # (None: GPU arrays in the key; the data stays on the GPU)
        if hk is None or not _placement.move_due(self, n):  # (no move now: the part already read serves)
            self._n = n if _device.placing() else 0
            return wrap(r) if ndim else _element(r, key, st)
        del r, a  # (a move needs the storage free of device views)
        if _placement.scalar_access(self, n):
            return self[key]
        r = self._a[key] if basic else self._a[_index(self, key)]
        return wrap(r) if r.ndim else _element(r, key, self._st)

    def __setitem__(self, key, value):
        if self._v:  # (NumPy's scalar, which an element read gives, takes no assignment)
            raise TypeError(f"'numpy.{_meta(self).dtype.name}' object does not support item assignment")
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self)
        st = self._st
        if st.host:
            t = type(key)
            g = st.gen
            if not g & 1 and (type(value) in _HOST_VALUES or isinstance(value, numpy.generic)) and (
                    t is int or t is slice or (t is tuple and _basic(key))):
                (self._hv if self._hv is not None else _hview(self))[key] = value  # (a loop's write, at NumPy's speed)
                if st.gen == g:  # (no move overlapped the write: see _storage)
                    return
        if st.host or _device.placing():  # where moves happen: one at a time with the writes
            with _storage.lock(st):
                self._set(key, value)
        else:
            self._set(key, value)

    def _set(self, key, value):
        if self._st.host:
            hk = _placement.host_key(key)
            if hk is not None:
                _hview(self)[hk] = host_value(value)
                return
        a = self._a
        # an element or a small part written counts as a loop's access (auto mode only)
        size = _placement.part_size(a.shape, key, value) if _device.placing() else 0
        if size == a.size and size > 1:  # all of it written: the array's own use, not a loop's
            self._n = 0
        elif size < _placement.limit or a.size < _placement.part_limit:
            n = self._n + 1
            if n < _placement.MIGRATE_AFTER:
                self._n = n
            else:
                hk = _placement.host_key(key)  # (None: GPU arrays in the key; the data stays on the GPU)
                del a
                if hk is not None and _placement.scalar_access(self, n):
                    _hview(self)[hk] = host_value(value)
                    return
                a = self._a
                self._n = n
        else:
            self._n = _placement.large_part(self._n, size)
        v = _value(value) if type(value) is not ndarray or value._st is not self._st else _own_value(value, a)
        t = type(key)
        if t is int or t is slice or (t is tuple and _basic(key)):
            a[key] = v
        else:
            a[_index(self, key)] = v

    # -- NumPy protocols: NumPy ufuncs on GPU arrays run on the GPU --------
    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        if not kwargs and method == "__call__":
            # (a NumPy scalar or array and a part of data a loop moved to the host, no keywords:
            # np.float64(w) * x[c, i:j], NumPy's operator reaching here; NumPy's ufunc on the host
            # arrays at once, without _host_args' general walk)
            hs = []
            for x in inputs:
                t = type(x)
                if t is ndarray:
                    if not x._st.host:
                        break
                    h = x._hv
                    hs.append(h if h is not None else _hview(x))
                elif t is _HOST_ARRAY or t in _SCALARS or isinstance(x, numpy.generic):
                    hs.append(x)
                else:
                    break
            else:
                return uf(*hs)
        on_host = _host_args(inputs, kwargs)
        if on_host is not None:  # data a loop moved to the host, and no GPU data: NumPy's ufunc there
            r = getattr(uf, method)(*on_host[0], **on_host[1])
            out = kwargs.get("out")
            if out is not None:  # (NumPy answers with out= itself: the xpshim array, not its host array)
                outs = out if type(out) is tuple else (out,)
                return outs[0] if len(outs) == 1 else outs
            return r
        xu = above.ufunc_for(uf)
        if xu is None:  # SciPy's, an object ufunc (np.frompyfunc): _foreign
            return above.foreign_call(uf, method, inputs, kwargs)
        return getattr(xu, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """NumPy's functions called on GPU arrays by code that imported NumPy itself: NumPy's
        code, reading GPU arrays as counted host copies, as without this protocol, answering as
        for a NumPy subclass (``__array_wrap__``: numpy.linalg's answers are GPU arrays). Those
        that write into an argument (``numpy.put_along_axis(x, ...)``, ``copyto``, ``place``, ...),
        and those whose answer is a view of an argument (``numpy.ravel(x)``: found after NumPy's
        call, whose host copies were counted), run as xpshim's, on the GPU, so that the write
        lands in ``x`` and not in a lost copy."""
        if not all(t is ndarray or issubclass(t, numpy.ndarray) for t in types):
            return NotImplemented
        on_host = _host_args(args, kwargs)
        if on_host is not None:  # data a loop moved to the host: NumPy's function on it, in place
            r = func._implementation(*on_host[0], **on_host[1])
            if not _views_of_host_data(r, args, kwargs):
                return r
            # a view (np.ravel, np.transpose): made on the GPU, as a view of the storage there
            for x in _arrays_in(args, kwargs):
                x._a  # (moves the storage back: counted)
            f = above.function_for(func)
            if f is not None:
                return f(*args, **kwargs)
        if _ARRAY_FUNCTION.active is func:  # (xpshim's own call of NumPy's func)
            return func._implementation(*args, **kwargs)
        f = above.function_for(func) if _writes(func.__name__, args, kwargs) else None
        if f is None:
            # NumPy's code on host copies; where its answer is a view of one (numpy.ravel,
            # numpy.linalg.matrix_transpose), NumPy's answer for the array is a view of it: the
            # function runs as xpshim's, whose view is of the GPU array, so writes land there
            outer, _ARRAY_FUNCTION.made = _ARRAY_FUNCTION.made, []
            try:
                # (GPU arrays inside lists as host copies: NumPy's code tells arrays in a list
                # apart by isinstance(c, numpy.ndarray), piecewise's conditions)
                r = func._implementation(*_nested_on_host(args), **kwargs)
                made = _ARRAY_FUNCTION.made
            finally:
                _ARRAY_FUNCTION.made = outer
            if outer is not None:  # (called by NumPy's own function: its host answer; the outermost call decides)
                outer.extend(made)
                return r
            if not made or not _views_of(r, made):
                return r
            f = above.function_for(func)
            if f is None:
                return r
        outer, _ARRAY_FUNCTION.active = _ARRAY_FUNCTION.active, func
        try:
            return f(*args, **kwargs)
        finally:
            _ARRAY_FUNCTION.active = outer

    # (__array_namespace__, to_device: the array API block at the end)


def _arrays_in(args, kwargs):
    for group in (args, kwargs.values()):
        for x in group:
            t = type(x)
            if t is ndarray:
                yield x
            elif t is list or t is tuple:
                yield from (v for v in x if type(v) is ndarray)


def _nested_on_host(args):
    """``args`` with the GPU arrays inside lists and tuples (one level) as host copies (counted)."""
    if not any((type(a) is list or type(a) is tuple) and any(type(v) is ndarray for v in a) for a in args):
        return args
    return tuple(type(a)(host(v, "NumPy's function") if type(v) is ndarray else v for v in a)
                 if type(a) is list or type(a) is tuple else a for a in args)


def _host_args(args, kwargs):
    """``(args, kwargs)`` with the xpshim arrays among them (one level into lists) as their host
    arrays, when every one has its data on the host; else None."""
    found = False
    for x in _arrays_in(args, kwargs):
        if not x._st.host:
            return None
        found = True
    if not found:
        return None

    def sub(x):
        t = type(x)
        if t is ndarray:
            return _hview(x)
        if (t is list or t is tuple) and any(type(v) is ndarray for v in x):
            return t(map(sub, x))
        return x
    return tuple(map(sub, args)), {k: sub(v) for k, v in kwargs.items()}


def _views_of_host_data(r, args, kwargs):
    """True when NumPy's result ``r`` (or a part of it) shares memory with a storage's host bytes."""
    return _views_of(r, [x._st.h for x in _arrays_in(args, kwargs)])


def _views_of(r, hosts):
    """True when NumPy's result ``r`` (or a part of it) shares memory with one of ``hosts``."""
    for v in (r if type(r) is tuple or type(r) is list else (r,)):
        if isinstance(v, numpy.ndarray) and any(numpy.may_share_memory(v, h) for h in hosts):
            return True
    return False


class Flags:
    """``x.flags`` of a GPU array: NumPy's flags object (attributes, keys, ``==``) over CuPy's
    three flags (contiguity and ownership), and whether NumPy's array would be writeable (its
    setting makes the array read-only or writeable again: ``set_writeable``). GPU memory is
    always aligned."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata", "writeable", "_owner")
    aligned = True
    writebackifcopy = False
    _BITS = (("c_contiguous", 0x1), ("f_contiguous", 0x2), ("owndata", 0x4), ("writeable", 0x400),
             ("aligned", 0x100), ("writebackifcopy", 0x2000))
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "OWNDATA": "owndata", "O": "owndata", "WRITEABLE": "writeable", "W": "writeable",
             "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy", "X": "writebackifcopy",
             "FNC": "fnc", "FORC": "forc", "BEHAVED": "behaved", "B": "behaved",
             "CARRAY": "carray", "CA": "carray", "FARRAY": "farray", "FA": "farray"}

    def __init__(self, cupy_flags, writeable=True, owner=None):
        object.__setattr__(self, "c_contiguous", bool(cupy_flags.c_contiguous))
        object.__setattr__(self, "f_contiguous", bool(cupy_flags.f_contiguous))
        object.__setattr__(self, "owndata", bool(cupy_flags.owndata))
        object.__setattr__(self, "writeable", writeable)  # (False where NumPy's array would be read-only)
        object.__setattr__(self, "_owner", owner)

    contiguous = property(lambda s: s.c_contiguous)
    fortran = property(lambda s: s.f_contiguous)
    fnc = property(lambda s: s.f_contiguous and not s.c_contiguous)
    forc = property(lambda s: s.f_contiguous or s.c_contiguous)
    behaved = property(lambda s: True)
    carray = property(lambda s: s.c_contiguous)
    farray = property(lambda s: not s.c_contiguous)  # NumPy's: (aligned or writeable or F) and not C
    num = property(lambda s: sum(bit for name, bit in s._BITS if getattr(s, name)))

    def __getitem__(self, key):
        name = self._KEYS.get(key)
        if name is None:
            raise KeyError("Unknown flag")
        return getattr(self, name)

    def __setattr__(self, name, value):
        name = self._KEYS.get(name, name)
        if name == "writeable" and self._owner is not None:
            set_writeable(self._owner, value)
            object.__setattr__(self, "writeable", bool(value))
            return
        if name in ("writeable", "aligned", "writebackifcopy"):
            refuse_flag(name, value)
            return
        object.__setattr__(self, name, value)

    __setitem__ = __setattr__

    def __eq__(self, other):
        try:
            return all(bool(getattr(other, n)) == getattr(self, n) for n, _ in self._BITS)
        except AttributeError:
            return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "".join(f"  {n.upper()} : {getattr(self, n)}\n" for n, _ in self._BITS)


def refuse_flag(name, value):
    """The aligned or writebackifcopy flag set as it is (nothing to do), or NumPy's ValueError,
    saying what to do instead: a GPU array's memory is always aligned (a GPU read of unaligned
    data faults), and it is never a write-back copy."""
    if bool(value) == (name != "writebackifcopy"):
        return
    raise ValueError(f"cannot set the {name} flag of a GPU array to {bool(value)}: GPU memory is always aligned "
                     "and never a write-back copy. For such a NumPy array, make one from it (h = xpshim.asnumpy(x)), "
                     "or run on the CPU (XPSHIM_DEVICE=cpu)")


def c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _unpickle(host_array):
    from . import _device

    if _device.current_device() == "gpu" and not (_device.placing() and host_array.size < _placement.limit):
        _backend.require_gpu("unpickling an xpshim array")
        return wrap(_transfer.to_device(host_array, "unpickle"))
    return host_array


_NUMPY_2_4 = tuple(int(v) for v in numpy.__version__.split(".")[:2]) >= (2, 4)


class Flat:
    """``x.flat`` for a GPU array: indexing and assignment on the flattened view."""

    __slots__ = ("_base",)

    def __init__(self, base):
        self._base = base

    def _key(self, key):
        """(the key for CuPy's flatiter, False), or (an index of the array itself, True) for integer
        and boolean arrays, which NumPy's flatiter takes and CuPy's does not (ints and slices only:
        cupy/_indexing/iterate.py, flatiter.__getitem__)."""
        if type(key) is list and key and all(type(v) is bool or type(v) is numpy.bool_ for v in key):
            raise IndexError("boolean indices for iterators are not supported")  # (NumPy's flatiter: a list of them)
        if type(key) is list and key and numpy.asarray(key).dtype.kind == "f":
            # NumPy 2.4's flatiter reads a list of floats as integers, with a DeprecationWarning
            # (numpy/_core/src/multiarray/iterators.c, iter_subscript)
            if _NUMPY_2_4:
                import warnings

                warnings.warn("Invalid non-array indices for iterator objects are deprecated and will be removed in "
                              "a future version. (Deprecated NumPy 2.4)", DeprecationWarning, stacklevel=3)
            key = numpy.asarray(key).astype(numpy.intp)
        k = _index(_Flatten(self._base), key)
        k = k[0] if type(k) is tuple and len(k) == 1 else k
        if type(k) is tuple or isinstance(k, slice) or k is Ellipsis or numpy.isscalar(k) or not hasattr(k, "dtype"):
            return k, False
        a, xp = self._base._a, _backend.xp
        if k.dtype.kind == "b":
            if k.ndim and k.size != a.size:  # (NumPy's flatiter takes a mask of its length only)
                raise IndexError(f"boolean index did not match indexed flat iterator; dimension is {a.size} "
                                 f"but corresponding boolean dimension is {k.size}")
            k = xp.nonzero(k.ravel())[0]
        k = xp.where(k < 0, k + a.size, k)
        return xp.unravel_index(k, a.shape), True

    def __getitem__(self, key):
        k, whole = self._key(_flat_integer(key))
        a = self._base._a
        if not whole and (type(k) is int or isinstance(k, numpy.integer)):
            # an element: NumPy's scalar, read as x[i, j] reads it (a value: ``_element``); CuPy's
            # flatiter answers a 0-d array
            i, n = int(k), a.size
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for size {n}")  # (NumPy's flatiter's words)
            return self._base[numpy.unravel_index(i % n, a.shape)]
        return wrap(a[k] if whole else a.flat[k])

    def __setitem__(self, key, value):
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self._base, "flat")
        k, whole = self._key(_flat_integer(key))
        a = self._base._a
        if whole:
            a[k] = _value(value)
        else:
            a.flat[k] = _value(value)

    def __iter__(self):
        return iter(wrap(self._base._a.ravel()))

    def __len__(self):
        return self._base._a.size


def _flat_integer(key):
    """A 0-d integer array as ``x.flat``'s key (``a.flat[np.argmax(a)]``): the integer it holds, as
    NumPy's flatiter reads it (an element, not a 0-d array of it)."""
    if (type(key) is ndarray or type(key) is numpy.ndarray) and key.ndim == 0 and key.dtype.kind in "iu":
        return operator.index(key)
    return key


class _Flatten:
    __slots__ = ("_a",)

    def __init__(self, base):
        self._a = base._a.reshape(-1) if base._a.flags.c_contiguous else base._a.ravel()


# -- operators, from a table ----------------------------------------------

def _matmul(a, b):
    """``a @ b``; of a vector and a matrix of one floating dtype (``L[i, :i + 1] @ B[:i + 1, :]``),
    by cuBLAS's ``gemv`` (``_gemv``), else through CuPy's ``dot``, the product NumPy's ``dot``
    and ``matmul`` agree on: CuPy's ``matmul`` of a leading vector takes its batched GEMM path (a
    loop of 800 such rows of an 800 x 800 product on an H100: 33.2 ms, against 24.4 by ``dot`` and
    41.3 on NumPy; benchmarks/HISTORY.md)."""
    if type(a) is _cupy_ndarray and type(b) is _cupy_ndarray and a.dtype == b.dtype and a.dtype.kind in "fc":
        if (a.ndim == 1) != (b.ndim == 1):
            r = _gemv.product(a, b)
            if r is not None:
                return r
        if a.ndim == 1 and b.ndim == 2:
            return _backend.xp.dot(a, b)
    return a @ b


BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "matmul": _matmul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "lshift": operator.lshift, "rshift": operator.rshift,
    "and": operator.and_, "xor": operator.xor, "or": operator.or_, "divmod": divmod,
}
COMPARE = {"lt": operator.lt, "le": operator.le, "eq": operator.eq,
            "ne": operator.ne, "gt": operator.gt, "ge": operator.ge}
UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}
INPLACE = {
    "add": operator.iadd, "sub": operator.isub, "mul": operator.imul, "matmul": operator.imatmul,
    "truediv": operator.itruediv, "floordiv": operator.ifloordiv, "mod": operator.imod,
    "pow": operator.ipow, "lshift": operator.ilshift, "rshift": operator.irshift,
    "and": operator.iand, "xor": operator.ixor, "or": operator.ior,
}


def _host_operand(x):
    """The operand of a NumPy operation on data placed on the host, or NotImplemented (GPU data:
    the operation then runs on the GPU)."""
    t = type(x)
    if t is ndarray:
        return _hview(x) if x._st.host else NotImplemented
    if t in _SCALARS or t is numpy.ndarray or isinstance(x, numpy.generic):
        return x
    return NotImplemented


def on_host_part(x):
    """True for a view of part of an array whose data a loop moved to the host (``x[i]``, ``x[k:, k]``),
    or for a small array auto mode made on the GPU that a loop's small work moved there
    (``_placement.settle``): operations on it run there, on NumPy, as on the loop's elements."""
    st = x._st
    return st.host and (x._b is not None or st in _placement.settled)


def _binary(op, hop):
    def f(self, other):
        if self._st.host and on_host_part(self):  # a loop's part: NumPy's operation there
            o = _host_operand(other)
            if o is not NotImplemented:
                return hop(_hview(self), o)
        # (operand(other) and x._a inline where they are plain reads: each call a frame less)
        t = type(other)
        if t is ndarray:
            o = other._d
            if o is None or other._st.host:
                o = _read(other)
        elif t is float or t is int:
            o = other
        else:
            o = operand(other)
            if o is NotImplemented:
                return NotImplemented
        a = self._d
        if a is None or self._st.host:
            a = _read(self)
        r = op(a, o)
        sources = (self, other)
        if type(r) is _cupy_ndarray and r.ndim > 1:
            r = keep_order(r, sources)
        return fresh(r, sources)
    return f


def _compare(name, op):
    # a == None compares element by element, as NumPy's (all False; != all True)
    plain = _binary(op, op)
    if name not in ("eq", "ne"):
        return plain

    def f(self, other):
        if other is None:
            return wrap(_backend.xp.full(self._a.shape, name == "ne", dtype=numpy.bool_))
        r = plain(self, other)
        if r is NotImplemented and not _defers(other):
            # a Python object (a dtype, a string, a Fraction): NumPy's operator compares element by
            # element (x == 'a' and x == np.dtype('f8') are all False, x == Fraction(1) reads values),
            # where Python's fallback answers one bool; it has no GPU form: NumPy's, on the host
            return above.fallback.run(f"ndarray.__{name}__", op, (self, other), {}, f"a comparison with a {type(other).__name__} (no GPU form)")
        return r
    return f


def _defers(x):
    """Whether NumPy's operator leaves ``x`` its own reflected operator: an array-like that
    takes part in NumPy's protocols (pandas' objects, other array libraries')."""
    return any(hasattr(x, n) for n in ("__array_ufunc__", "__array_function__", "__array__", "__array_priority__",
                                       "__array_interface__", "__cuda_array_interface__", "__dlpack__"))


def _reflected(op, hop):
    # op(scalar, cupy_array) lands in CuPy's reflected operator, which keeps
    # NEP 50's weak-scalar rules.
    def f(self, other):
        if self._st.host and on_host_part(self):
            o = _host_operand(other)
            if o is not NotImplemented:
                return hop(o, _hview(self))
        t = type(other)
        o = other if t is float or t is int else operand(other)
        if o is NotImplemented:
            return NotImplemented
        a = self._d
        if a is None or self._st.host:
            a = _read(self)
        r = op(o, a)
        if type(r) is _cupy_ndarray and r.ndim > 1:
            r = keep_order(r, (self, other))
        return fresh(r, (self, other))
    return f


def _inplace(op, hop, binary):
    def f(self, other):
        if self._v:  # an element read is NumPy's scalar: `s += 1` makes a new value, as there
            r = binary(self, other)
            if type(r) is ndarray and not r._d.ndim:
                r._v = True
            return r
        if _READ_ONLY or _IN_BOUNDS or _READERS:
            refuse_write(self, "output")
        st = self._st
        if st.host or _device.placing():  # where moves happen: one at a time with the writes
            with _storage.lock(st):
                if on_host_part(self):  # a loop's part: NumPy's, in place
                    o = _host_operand(other)
                    if o is not NotImplemented:
                        hop(_hview(self), o)
                        return self
                return _inplace_gpu(op, self, other)
        return _inplace_gpu(op, self, other)
    return f


def _inplace_gpu(op, self, other):
    o = operand(other)
    if o is NotImplemented:
        return NotImplemented
    op(self._a, o)
    return self


def _unary(op):
    def f(self):
        if on_host_part(self):
            return op(_hview(self))
        r = op(self._a)
        if type(r) is _cupy_ndarray and r.ndim > 1:
            r = keep_order(r, (self,))
        return fresh(r)
    return f


_HOST_BINARY, _HOST_INPLACE = dict(BINARY), dict(INPLACE)  # (NumPy's operators, before the GPU's fixes)

# NumPy's formulas where CuPy's loops differ (xpshim/_exact.py)
for _n, _u in {"truediv": "true_divide", "floordiv": "floor_divide", "mod": "remainder", "divmod": "divmod"}.items():
    BINARY[_n] = _exact.operator(_u, BINARY[_n])
    if _n in INPLACE:
        INPLACE[_n] = _exact.inplace(_u, INPLACE[_n])

for _n, _op in BINARY.items():
    setattr(ndarray, f"__{_n}__", _binary(_op, _HOST_BINARY[_n]))
    setattr(ndarray, f"__r{_n}__", _reflected(_op, _HOST_BINARY[_n]))
for _n, _op in INPLACE.items():
    setattr(ndarray, f"__i{_n}__", _inplace(_op, _HOST_INPLACE[_n], getattr(ndarray, f"__{_n}__")))
for _n, _op in COMPARE.items():
    setattr(ndarray, f"__{_n}__", _compare(_n, _op))
for _n, _op in UNARY.items():
    setattr(ndarray, f"__{_n}__", _unary(_op))


ndarray.__module__ = "xpshim"
_GPU_CLASS[0] = ndarray


# -- the array API standard's protocol (__array_namespace__, __dlpack__, __dlpack_device__,
# to_device) is set on the class by xpshim/_arrayapi.py when it loads, apart from the storage above
