"""The few names that need more than "same name, same arguments".

(The array API standard's ``device=``, ``copy=``, ``from_dlpack`` and ``to_device``: _arrayapi.)
"""

import math
import types

import numpy

from . import _arrayapi, _backend, _device, _pcg64, _pil, _placement, _transfer
from . import _cpupath, _fused, _nditer
from ._arguments import call_gpu
from ._cpupath import non_binding
from ._dispatch import follow_like, function, host_answer, numpys_draw
from ._ndarray import as_array, as_value, fresh, host_only_dtype, ndarray, wrap
from ._objects import GpuObject, asnumpy


def _creation(name):
    npf = getattr(numpy, name)

    def f(a, dtype=None, *args, **kwargs):
        if kwargs:  # (only calls with keywords pay for these checks)
            if "like" in kwargs:
                return follow_like(f, npf, (a, dtype, *args), kwargs)
            if "device" in kwargs or "copy" in kwargs:  # the array API's keywords: xpshim's, not CuPy's
                return _arrayapi.from_data(f, npf, name, a, dtype, args, kwargs)
        if _backend.pending:
            if type(a).__module__.startswith("PIL."):
                n = _placement.image_size(a)
                _backend.start_for(n)  # (a large photo: the GPU's start, on its threads, overlaps the decode, which releases the GIL)
                _pil.decode(a)  # before the device is chosen
                _device.wait_for_gpu(n)  # (a larger one waits for the GPU)
            elif type(a) is numpy.ndarray:
                _backend.start_for(a.size)
                _device.wait_for_gpu(a.size)
        # (the device and placement read in one step: auto mode's start may end between two reads)
        dev, sized = _device.new_arrays() if _backend.live else ("cpu", False)
        if dev == "cpu":
            if type(a) is ndarray:
                a = _transfer.to_host(a._a, f"{name} on the CPU device")
            return npf(a, dtype, *args, **kwargs)
        t, h = type(a), None
        if sized and (t is numpy.ndarray or t is list or t is tuple or t is float or t is int) \
                and not args and not kwargs and not _placement.seek:
            # (auto mode, host data, no seeds sought: a small one is NumPy's array, as below, in
            # fewer steps; a loop's np.asarray(row) pays this, 2 us where NumPy's takes 0.1)
            h = npf(a, dtype)
            if h.size < _placement.limit:
                return h
        xp = _backend.xp
        if type(a) is ndarray or _backend.is_raw_gpu_array(a):
            raw = a._a if type(a) is ndarray else a
            r = call_gpu(getattr(xp, name), [raw, dtype, *args], kwargs)
            if r is raw and type(a) is ndarray:
                # the array itself, as NumPy's; of an element read (NumPy's scalar), a new 0-d array
                return a if not a._v else as_array(wrap(raw.copy()))
            return as_array(fresh(r, (a,)))
        # Host data (lists, NumPy arrays, PIL images, ...): NumPy reads it, one counted copy moves it
        # (in auto mode, ``sized``, small data stays a NumPy array on the host).
        if dtype is None and not args and not kwargs and type(a).__module__.startswith("PIL."):
            if sized and _placement.image_size(a) < _placement.limit:
                return npf(a)
            r = _transfer.image_to_device(a, f"{name} of a Pillow image")
            if r is not None:
                return wrap(r)
        if h is None:
            h = npf(a, dtype, *args, **kwargs)
        if type(h) is not numpy.ndarray or host_only_dtype(h.dtype):
            # a NumPy subclass kept (np.asanyarray(matrix), np.array(m, subok=True): np.matrix's *
            # is a matrix product), or object, string, datetime, structured, longdouble data: no
            # GPU form, NumPy's array
            return h
        if sized and h.size < _placement.limit:
            line = _placement.seed_line() if _placement.seek and h.size and _placement.copyable(h, a) else None
            if line is None:
                return h
            return _placement.seeded(fresh(_transfer.to_device(h, f"{name} of data its function broadcasts")), line)
        if sized and _placement.lines and _placement.made_here(h):
            return h
        r = _filled(a, h)
        return as_array(fresh(_transfer.to_device(h, name) if r is None else r))  # (np.array(3.0): a 0-d array)

    f.__name__ = f.__qualname__ = name
    f.__module__ = "xpshim"
    f.__wrapped__ = npf
    f.__doc__ = _cpupath.creation_doc(name, npf)
    return non_binding(f)  # NumPy's are C functions: they do not bind as methods either


_SCALARS = (bool, int, float, complex, numpy.bool_, numpy.number)



def _filled(a, h):
    """The GPU array of the Python or NumPy scalar ``a`` (``h``: NumPy's array of it, 0-d, or
    1-element as ``ascontiguousarray`` and ``ndmin=`` make it), made by a fill kernel that takes
    the value as its argument, as CuPy's own ``asarray`` of a scalar does: no host buffer
    crosses, so, as for the ``1.0`` of ``gpu_x + 1.0``, nothing is counted. None for anything
    else, and for a zero whose sign bit is set (that one is copied, and counted)."""
    if not isinstance(a, _SCALARS) or h.size != 1 or h.dtype.kind not in "biufc":
        return None
    v = h.reshape(-1)[0]
    # CuPy's ndarray.fill writes a zero by memset, and full() has been fill in CuPy's versions:
    # -0.0 could come out +0.0. https://github.com/cupy/cupy/blob/main/cupy/_core/core.pyx
    # (ndarray.fill: value == 0 -> memset_async)
    if h.dtype.kind in "fc" and v == 0 and (numpy.signbit(v.real) or numpy.signbit(v.imag)):
        return None
    return _backend.xp.full(h.shape, v, dtype=h.dtype)


def _shape(shape):
    import operator

    return (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(map(operator.index, shape))


def empty_pinned(shape, dtype=float, order="C"):
    """A NumPy array, like ``numpy.empty``, in pinned (page-locked) host memory where a GPU is
    usable (CuPy's ``cupyx.empty_pinned``): copies of it to the GPU run as one direct copy at
    the bus's speed (about 54 GB/s on an H200, against 18-25 GB/s from ordinary memory through
    staging). Without a usable GPU it is ``numpy.empty``. Fill it, then ``np.asarray`` it."""
    shape = _shape(shape)
    xp = _backend.xp if _backend.live else None  # (settles auto mode's choice: pinned memory is CUDA's)
    if xp is None or xp.__name__ != "cupy":
        return numpy.empty(shape, dtype, order)
    from . import _pinned

    return _pinned.empty_pinned(xp, shape, dtype, order)


def zeros_pinned(shape, dtype=float, order="C"):
    """``numpy.zeros`` in pinned host memory where a GPU is usable (see ``empty_pinned``)."""
    a = empty_pinned(shape, dtype, order)
    a[...] = 0
    return a


def get_array_module(*args):
    """``cupy`` if any argument is a GPU array, else ``numpy`` (as cupy.get_array_module)."""
    for a in args:
        if type(a) is ndarray or _backend.is_raw_gpu_array(a):
            return _backend.xp
    return numpy


def free_gpu_memory():
    """Return CuPy's cached, unused GPU memory blocks to the driver (nothing to return before the
    device is chosen, or without a GPU: the choice is not forced for it)."""
    xp = None if _backend.pending else _backend.xp
    if xp is not None:
        xp.get_default_memory_pool().free_all_blocks()
        xp.get_default_pinned_memory_pool().free_all_blocks()


# -- random: the global seed and Generators ----------------------------------

def seed(seed=None):
    """Seed NumPy's global generator and, when the GPU is in use, CuPy's.

    The two produce different streams: the same seed gives reproducible runs
    on each device, not the same numbers on both.
    """
    numpy.random.seed(seed)  # (NumPy's errors for a seed it refuses, before anything is kept)
    seed = _cupy_seed(seed)
    if _backend.pending:
        # auto mode has not chosen the device yet: kept, and given to CuPy's generator when the
        # GPU is chosen (_seed_when_settled), so that a program's first line does not start the
        # GPU; nothing can draw from CuPy's generator before then
        _SEED_LATER[:] = [seed]
        return
    xp = _backend.xp if _backend.live else None
    if xp is not None:
        xp.random.seed(seed)


def _cupy_seed(seed):
    """The seed as CuPy's ``random.seed`` takes it (None or one integer): a sequence of integers,
    which NumPy's legacy seed takes too, is reduced to one by NumPy's SeedSequence, the same way
    each time (CuPy's ``int(seed_arr)`` refuses it:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/random/_generator.py, RandomState.seed)."""
    if seed is None or isinstance(seed, (int, numpy.integer)):
        return seed
    words = numpy.asarray(seed).astype(numpy.uint32).ravel()  # (NumPy's legacy seed: uint32 words)
    return int(numpy.random.SeedSequence(words.tolist()).generate_state(1, numpy.uint32)[0])


_SEED_LATER = []  # [seed] given to random.seed while auto mode's choice was pending


@_backend.on_change
def _seed_when_settled():
    if _SEED_LATER and not _backend.pending:
        seed_ = _SEED_LATER.pop()
        if _backend.live and _backend.xp is not None:
            _backend.xp.random.seed(seed_)


def _auto_method(name, npm):
    """NumPy's generator method ``npm`` as auto mode's object calls it: NumPy's draw, writing into
    GPU arrays and putting large answers on the GPU (``_dispatch.numpys_draw``)."""
    first = name == "shuffle"

    def method(self, *args, **kwargs):
        if (first and args and type(args[0]) is ndarray) or (kwargs and type(kwargs.get("out")) is ndarray):
            return numpys_draw(npm.__get__(self), first, args, kwargs)
        r = npm(self, *args, **kwargs)  # (the common case, in fewer steps)
        return host_answer(r, args, kwargs) if type(r) is numpy.ndarray and r.size >= _placement.limit else r
    method.__name__, method.__doc__ = name, npm.__doc__
    return method


def _auto_random(drawn_by_numpy):
    """``Generator.random`` as auto mode's generator calls it: a float64 draw that auto mode would
    put on the GPU is made there, NumPy's numbers bit for bit (``_pcg64``); else ``drawn_by_numpy``."""
    f8 = numpy.dtype(numpy.float64)

    def plain(size=None, dtype=f8):  # (random's arguments but out=, as NumPy's signature reads them)
        return size, dtype

    def random(self, *args, **kwargs):
        try:
            size, dtype = plain(*args, **kwargs)
            shape = _pcg64.shape_of(size) if dtype is not None and numpy.dtype(dtype) == f8 else None
        except TypeError:  # (out=, or what NumPy refuses: NumPy's call)
            shape = None
        if shape is not None and _placement.made_on_gpu(math.prod(shape)):
            r = _pcg64.random(self.bit_generator, shape)
            if r is not None:
                return wrap(r)
        return drawn_by_numpy(self, *args, **kwargs)
    random.__name__, random.__doc__ = "random", drawn_by_numpy.__doc__
    return random


def _auto_class(npcls):
    """NumPy's ``npcls`` (Generator or RandomState) as auto mode makes it: NumPy's own class
    (``isinstance`` holds, its numbers are NumPy's) whose methods write into GPU arrays and put
    large answers on the GPU (``_auto_method``)."""
    ns = {"__module__": npcls.__module__, "__qualname__": npcls.__qualname__, "__doc__": npcls.__doc__}
    for name in dir(npcls):
        npm = getattr(npcls, name)
        if not name.startswith("_") and callable(npm):
            ns[name] = _auto_method(name, npm)
    if npcls is numpy.random.Generator:
        ns["random"] = _auto_random(ns["random"])
    return type(npcls.__name__, (npcls,), ns)


_AUTO = {}  # NumPy's class -> auto mode's (made on first use)


def _auto_object(npcls, *args):
    cls = _AUTO.get(npcls)
    if cls is None:
        cls = _AUTO[npcls] = _auto_class(npcls)
    return cls(*args)


def _auto_mode():
    """Whether random objects are auto mode's: the GPU may yet be chosen, or new arrays are placed
    by size (or the device is the CPU in a process with a GPU). False in a CPU-only process and
    where the GPU device is chosen (CuPy's objects)."""
    if _backend.pending:
        return True  # (read without a look at the device: it would start the GPU)
    if not _backend.live:
        return False
    dev, sized = _device.new_arrays()
    return sized or dev == "cpu"


def default_rng(seed=None):
    """A random Generator: NumPy's on the CPU and in auto mode (NumPy's numbers, whenever the
    GPU became ready), CuPy's where the GPU device is chosen (``XPSHIM_DEVICE=gpu``,
    ``xpshim.device("gpu")``); there, methods CuPy lacks run on a NumPy Generator seeded the
    same way (a counted, warned host fallback).
    """
    if _auto_mode():  # (NumPy's numbers, however long the GPU takes to start: docs/placement.md)
        if isinstance(seed, numpy.random.Generator):
            return seed  # (NumPy's: a Generator is returned unaltered)
        return _auto_object(numpy.random.Generator, numpy.random.default_rng(seed).bit_generator)
    if not _backend.live or _device.current_device() == "cpu":
        return numpy.random.default_rng(seed)
    xp = _backend.xp
    return GpuObject(xp.random.default_rng(seed), numpy.random.default_rng(seed), "random.Generator")


class _RandomClass(type):
    """``isinstance(x, np.random.RandomState)`` (or Generator): NumPy's objects, and the GPU ones."""

    @property
    def _numpy(cls):  # NumPy's class, numpy.random being imported on first use
        return getattr(numpy.random, cls._label.rpartition(".")[2])

    def __instancecheck__(cls, x):
        return isinstance(x, cls._numpy) or (type(x) is GpuObject and x._label == cls._label)

    def __subclasscheck__(cls, c):
        return issubclass(c, cls._numpy)


class RandomState(metaclass=_RandomClass):
    """numpy.random.RandomState: NumPy's on the CPU and in auto mode (NumPy's numbers), CuPy's
    (cuRAND) where the GPU device is chosen; methods CuPy's lacks are filled on the
    GPU (``random``, ``random_integers``, ``multinomial``, ``bytes``) or run on a NumPy
    RandomState seeded the same way (a counted, warned host fallback). The streams differ
    from NumPy's: a seed gives reproducible runs on each device, not the same numbers.
    """

    _label = "random.RandomState"

    def __new__(cls, seed=None):
        if _auto_mode():
            return _auto_object(numpy.random.RandomState, seed)  # (NumPy's numbers)
        if not _backend.live or _device.current_device() == "cpu":
            return numpy.random.RandomState(seed)
        return GpuObject(_backend.xp.random.RandomState(seed), numpy.random.RandomState(seed), cls._label)


class Generator(metaclass=_RandomClass):
    """numpy.random.Generator. ``Generator(bit_generator)`` is NumPy's (a bit generator is a
    host object); ``default_rng`` makes one on the current device. ``isinstance`` holds for both."""

    _label = "random.Generator"

    def __new__(cls, bit_generator):
        return numpy.random.Generator(bit_generator)


def _lexsort_keys(keys):
    # NumPy takes a sequence of key arrays; CuPy's lexsort takes one 2-D array.
    if type(keys) in (list, tuple) and _backend.live and any(type(k) is ndarray for k in keys):
        return _backend.xp.stack([k._a if type(k) is ndarray else _transfer.to_device(k, "lexsort key") for k in keys])
    if type(keys) in (list, tuple) and _backend.live:  # keys as Python numbers: CuPy takes arrays only
        return _transfer.to_device(keys, "lexsort keys")
    return keys


def lexsort(keys, axis=-1):
    if not _backend.live:
        return numpy.lexsort(keys, axis)
    from ._arguments import locate

    if (locate((keys,), {}) or _device.current_device()) == "cpu":
        return numpy.lexsort(keys, axis)
    if type(keys) in (list, tuple) and locate((keys,), {}) is None and numpy.asarray(keys).dtype.kind not in "biufc":
        return numpy.lexsort(keys, axis)  # keys of strings (names): no GPU form, and no GPU data given
    if axis != -1:
        from . import _fallback

        return _fallback.run("xpshim.lexsort", numpy.lexsort, (keys, axis), {}, "CuPy's lexsort takes no axis")
    return as_value(wrap(call_gpu(_backend.xp.lexsort, [_lexsort_keys(keys) if type(keys) in (list, tuple)
                                                        else (keys._a if type(keys) is ndarray else keys)], {})))


lexsort.__doc__ = "xpshim.lexsort: a sequence of GPU key arrays is stacked for cupy.lexsort\n\n" + numpy.lexsort.__doc__
lexsort.__wrapped__ = numpy.lexsort


class IndexMaker(_cpupath.IndexMaker):
    # NumPy's object makes the arrays, on host copies of GPU items (counted): NumPy's rules for
    # every directive and dtype; they are then copied to the GPU where new arrays go (counted)
    __doc__ = _cpupath.IndexMaker.__doc__
    __slots__ = ()
    __module__ = "xpshim"

    def __getitem__(self, key):
        if not _backend.live:
            return self._np[key]
        items = key if type(key) is tuple else (key,)
        on_gpu = False
        for k in items:
            if type(k) is ndarray:
                on_gpu = True
                break
        if on_gpu:
            host = tuple(asnumpy(k) if type(k) is ndarray else k for k in items)
            key = host if type(key) is tuple else host[0]
        h = self._np[key]
        arrays = h if type(h) in (tuple, list) else (h,)
        if any(type(a) is not numpy.ndarray or host_only_dtype(a.dtype) for a in arrays):
            return h  # (np.r_["r", ...]'s np.matrix, strings: no GPU form, NumPy's as np.array's are)
        if not on_gpu:
            dev, sized = _device.new_arrays()
            if dev == "cpu" or (sized and sum(a.size for a in arrays) < _placement.limit):
                return h
        moved = [fresh(_transfer.to_device(a, f"np.{self._np.__class__.__name__} on the GPU")) for a in arrays]
        return type(h)(moved) if type(h) in (tuple, list) else moved[0]


# (module, name) -> object, used by _namespace before the routing default.
TABLE = {
    **{("xpshim", n): _creation(n) for n in ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray")},
    ("xpshim", "ndarray"): ndarray,
    ("xpshim", "from_dlpack"): _arrayapi.from_dlpack,
    ("xpshim", "lexsort"): lexsort,
    ("xpshim", "nditer"): _nditer.nditer,  # (writes through GPU operands land in them)
    ("xpshim", "dot"): non_binding(_cpupath.documented(_fused.make_dot(function("xpshim", "dot", numpy.dot, "dot")),
                                                       _cpupath.DOT_DOC)),
    **{("xpshim", n): IndexMaker(n, None) for n in ("mgrid", "ogrid", "r_", "c_")},
    ("xpshim.random", "seed"): seed,
    ("xpshim.random", "default_rng"): default_rng,
    ("xpshim.random", "RandomState"): RandomState,
    ("xpshim.random", "Generator"): Generator,
}
# (files, buffers and text: _hostio.TABLE, which _namespace loads when one of those names is used)
for (_m, _n), _f in TABLE.items():
    if isinstance(_f, (types.FunctionType, type)):
        _f.__module__ = _m
