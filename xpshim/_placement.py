"""Size-aware placement: where arrays live in auto mode (``XPSHIM_DEVICE=auto`` on a GPU).

A small GPU operation costs 10-13 us against about 0.5 us for NumPy's, so below a crossover
size (``_device.crossover()``, 2**15 elements unless set or calibrated) the CPU wins every
single operation. In auto mode, therefore:

* arrays made from data or by creation functions stay NumPy arrays on the host when they have
  fewer elements than the crossover, and go to the GPU when they have more (decided from the
  size of what is made, before it is made where the arguments tell it);
* a NumPy result of an xpshim call that reaches the crossover moves to the GPU (one counted
  move), unless it is a view of host data or one of the arguments;
* a GPU array read or written element by element (many consecutive scalar ``x[i, j]``) moves
  its storage to the host (``_storage``: every view of it goes along, so no write is lost),
  unless raw device handles of it were given out; element and small-part accesses are then
  served from there, and any GPU use moves the storage back first (counted);
* a GPU array among a call's arguments still runs the call on the GPU (the existing rule);
* the line of the user's code that made an array such a loop moved is remembered (with the
  line that called its function): the arrays made at that line later (up to ``LINE_CAP``
  elements) are made on the host as NumPy arrays, so a function that loops by hand runs as
  NumPy from its first iteration when it is called again; a GPU result made at such a line
  makes the lines of its GPU operands remembered too (the inputs of the loop's data).
  A line whose arrays go on to GPU work more than they serve loops (by bytes: ``_balance``) is
  forgotten for good (``xpshim.stats()["placement"]["at_loop_lines"]`` counts the arrays, by line);
* a function of the user's code that gives GPU work (or an xpshim call) a large NumPy array,
  which NumPy's own operators made from small host arrays, is remembered: the small arrays that
  creation calls make in it later are made on the GPU ("seeds"), so that the broadcast making the
  large array runs there; a seed line whose arrays only make small results is a loop's, and
  its arrays are made on the host again (the section at the end of this module;
  ``XPSHIM_SEEDS=eager`` makes seeds in every function, ``off`` in none).

``XPSHIM_DEVICE=gpu`` and ``xpshim.device("gpu")`` keep every array on the GPU; none of this
applies there. Every move is counted in ``xpshim.stats()["placement"]``.
"""

import math
import operator
import sys
import weakref
from collections.abc import Iterator

import numpy

from . import _backend, _callsite, _config, _device, _hotwork, _storage, _transfer

# Elements from which a NumPy result of an xpshim call moves to the GPU: the crossover once a
# GPU is in use, else never. Read on the hot path (one comparison).
limit = sys.maxsize
# Elements of an array below which its parts (x[1:-1], x[:-2]) taken again and again count as a
# loop's accesses, however large: twice the crossover. A loop over parts of such an array pays
# CuPy's cost per call for each part's view, its arithmetic and its write, where NumPy works on
# data its caches hold (1-d Jacobi on 5e4 elements, 1.5x the crossover: 0.72x NumPy on an H100
# with its arrays on the GPU). Parts of larger arrays are GPU work, as before.
part_limit = sys.maxsize

# Consecutive element accesses of one GPU array before its data moves to the host, plus one
# per 256 KiB of it (a small access costs 10-25 us on the GPU, a move about 10 us plus the
# bytes at 10-25 GB/s: Cholesky by hand at n = 300 spent 13 iterations on the GPU at 16 plus
# one per 64 KiB); after moving back, the count restarts from -BACKOFF.
MIGRATE_AFTER = 6
BACKOFF = 64
_NUMERIC = frozenset("biufc")


@_backend.on_change
def refresh():
    """Take the crossover into use (when the GPU becomes live, and by tests)."""
    global limit, part_limit
    # (while auto mode's choice is pending, nothing is placed: placing() settles it first, and
    # settling calls this again; a calibration file's GPU name would settle it here)
    limit = _device.crossover()[0] if _backend.live and not _backend.pending else sys.maxsize
    part_limit = 2 * limit if limit != sys.maxsize else limit
    _transfer.device_use_hook = used_on_device if _backend.live else None  # (large host operands)


# ---------------------------------------------------------------- results and creation

# The host data of arrays a loop moved to the host (id -> data): results made from their views
# are not moved to the GPU (LU by hand: np.outer of a row and a column, then subtracted in place)
_hosted = weakref.WeakValueDictionary()


def _root(h):
    """The NumPy array that owns ``h``'s memory (``h`` itself, or the array it views; for data
    that landed in pinned memory, the byte array over that memory)."""
    while isinstance(h.base, numpy.ndarray):
        h = h.base
    return h


def _host_data(h):
    """Register ``h`` as host data of an array a loop uses there (by its root: views of it, and of
    the root, are then known as such)."""
    root = _root(h)
    _hosted[id(root)] = root


def _from_hosted(group):
    for a in group:
        if getattr(type(a), "_st", None) is not None and a._st.host:  # (an xpshim array a loop moved here)
            return True
        if type(a) is numpy.ndarray:
            root = _root(a)
            if _hosted.get(id(root)) is root:
                return True
    return False


def _aliases(r, group):
    for a in group:
        t = type(a)
        if t is numpy.ndarray:
            if numpy.may_share_memory(r, a):
                return True
        elif (t is list or t is tuple) and _aliases(r, [b for b in a if type(b) is numpy.ndarray]):
            return True
    return False


def promote(r, args, kwargs, reason="result"):
    """``r`` (a NumPy result of at least ``limit`` elements) on the GPU, when auto mode places
    by size and ``r`` is data of its own: a view of an argument (or of a buffer not NumPy's),
    or an argument handed back, stays where it is, so that writes through it still land.

    Returns ``r`` itself, or its device copy (a raw GPU array, which the caller wraps)."""
    if not _device.placing() or r.dtype.kind not in _NUMERIC:
        return r
    root = r.base
    while isinstance(root, numpy.ndarray) and root.base is not None:
        root = root.base
    if (root is not None and not isinstance(root, numpy.ndarray)) or _aliases(r, args) or _aliases(r, kwargs.values()):
        return r
    if _hosted and (_from_hosted(args) or _from_hosted(kwargs.values())):
        return r  # made from an array a loop moved to the host: that loop stays there
    if lines and r.size <= LINE_CAP:
        line = birth_line()
        if lines.get(line):
            return made_on_host(r, line)
    for a in args:
        if type(a) is numpy.ndarray and a.size >= limit:
            host_data_used(a)  # (np.zeros_like(c) of a c NumPy's operators made)
    return _transfer.place_on_device(r, f"{reason} of {r.size} elements")


def made_on_gpu(n):
    """Whether a new answer of ``n`` elements that no argument made (a draw) goes to the GPU, as
    ``promote`` would place it: then it may be made there (``_pcg64``) instead of moved."""
    if n < limit or not _backend.live or _backend.pending or not _device.placing():
        return False
    return not (lines and n <= LINE_CAP and lines.get(birth_line()))


def arrayless(route, args, kwargs):
    """A call with no array among its arguments, in auto mode: on the GPU when what it makes
    will reach the crossover, else NumPy's (whose result still moves when it is large).
    A moved result comes back as a raw GPU array, which the caller wraps."""
    n = estimate(route.name, args, kwargs)
    if n is None:
        r = route.npf(*args, **kwargs)
        if type(r) is numpy.ndarray and r.size >= limit:
            return promote(r, args, kwargs)
        return r
    if n < limit:
        if seek and n and route.name in SEEDABLE:
            line = seed_line()
            if line is not None:
                return seeded(route.gpu(args, kwargs), line)
        return route.npf(*args, **kwargs)
    if lines and n <= LINE_CAP:
        line = birth_line()
        if lines.get(line):
            return made_on_host(route.npf(*args, **kwargs), line)
    return route.gpu(args, kwargs)


def _prod(shape):
    if isinstance(shape, (int, numpy.integer)):
        return int(shape)
    return math.prod(operator.index(s) for s in shape)


def small_shape(shape):
    """The number of elements of a shape given as a tuple of Python ints, else None."""
    n = 1
    for s in shape:
        if type(s) is not int:
            return None
        n *= s
    return n


def call_arg(args, kwargs, i, name, default=None):
    if i is not None and len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _shape_at(i, name):
    return lambda a, k: _prod(call_arg(a, k, i, name))


def _square(a, k):
    n = call_arg(a, k, 0, "N", call_arg(a, k, 0, "n"))
    m = call_arg(a, k, 1, "M")
    return int(n) * int(n if m is None else m)


def _arange(a, k):
    if len(a) == 1 and type(a[0]) is int:  # (np.arange(n), a loop's common case)
        return max(a[0], 0)
    if "start" in k or "stop" in k:
        return None
    start, stop, step = (0, a[0], 1) if len(a) == 1 else (a[0], a[1], a[2] if len(a) > 2 else k.get("step", 1))
    if stop is None:
        start, stop = 0, start
    return max(0, math.ceil((stop - start) / step))


def _num(a, k):
    return int(call_arg(a, k, 2, "num", 50))


def _size_at(i):
    def f(a, k):
        size = call_arg(a, k, i, "size")
        return 1 if size is None else _prod(size)
    return f


def _dims(a, k):
    return _prod(a) if a and not k else None


# The number of elements a creation function makes, from its arguments (None: unknown).
_ESTIMATES = {
    **{f"xpshim.{n}": _shape_at(0, "shape") for n in ("zeros", "ones", "empty", "full")},
    "xpshim.eye": _square, "xpshim.tri": _square,
    "xpshim.identity": lambda a, k: int(call_arg(a, k, 0, "n")) ** 2,
    "xpshim.arange": _arange,
    **{f"xpshim.{n}": _num for n in ("linspace", "logspace", "geomspace")},
    "xpshim.indices": lambda a, k: _prod(call_arg(a, k, 0, "dimensions")) * len(call_arg(a, k, 0, "dimensions")),
    **{f"xpshim.random.{n}": _dims for n in ("rand", "randn")},
    **{f"xpshim.random.{n}": _size_at(0) for n in ("random", "random_sample", "ranf", "sample",
                                                    "standard_normal", "standard_exponential")},
    **{f"xpshim.random.{n}": _size_at(2) for n in ("uniform", "normal", "randint", "random_integers",
                                                    "lognormal", "logistic", "gumbel", "laplace",
                                                    "binomial", "gamma", "beta", "f", "wald")},
    **{f"xpshim.random.{n}": _size_at(1) for n in ("poisson", "exponential", "chisquare",
                                                    "standard_gamma", "standard_t", "geometric",
                                                    "pareto", "power", "rayleigh", "weibull", "zipf")},
}

# Names that make arrays of a size their numbers give (np.linspace(0, 1, n), np.random.normal(0, 1)):
# made on the device even from numbers alone
MAKERS = frozenset(_ESTIMATES)


def _fft_size(two_d):
    """Elements of an FFT's result when ``s=``/``n=`` sets its length: rfft2(kernel, s=image.shape)
    of a 17 x 17 kernel is an image-sized transform, better made on the GPU than on the host."""
    def f(a, k):
        x = call_arg(a, k, 0, "a")
        size = call_arg(a, k, 1, "s" if two_d else "n")
        if size is None or not hasattr(x, "shape"):
            return None
        sizes = (size,) if isinstance(size, (int, numpy.integer)) else tuple(size)
        kept = x.shape[:-len(sizes)] if len(sizes) <= len(x.shape) else ()
        return _prod(sizes) * _prod(kept)
    return f


# Calls on NumPy arrays whose result can be much larger than their inputs, by an argument: run
# on the GPU when that result reaches the crossover (the inputs copied over, counted)
GROWS = {**{f"xpshim.fft.{n}": _fft_size(False) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
         **{f"xpshim.fft.{n}": _fft_size(True) for n in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
                                                          "rfftn", "irfftn")}}


def _consumable(args, kwargs):
    """True when an argument is an iterator (a generator): reading it for an estimate would
    leave NumPy an empty one (np.indices(n for n in dims))."""
    for v in args:
        if isinstance(v, Iterator):
            return True
    if kwargs:
        for v in kwargs.values():
            if isinstance(v, Iterator):
                return True
    return False


def grows(name, args, kwargs):
    """True when ``name(*args, **kwargs)`` on host arrays makes a result past the crossover."""
    if _consumable(args, kwargs):
        return False
    try:
        n = GROWS[name](args, kwargs)
    except (TypeError, ValueError, OverflowError):
        return False
    return n is not None and n >= limit


def estimate_of_numbers(name, args):
    """``estimate`` of a call of Python numbers alone, by position (nothing to consume: a loop's
    ``np.arange(n)`` pays no iterator check)."""
    try:
        return _ESTIMATES[name](args, _NO_KWARGS)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None


_NO_KWARGS = {}


def estimate(name, args, kwargs):
    """Elements that ``name(*args, **kwargs)`` makes, when that can be told before making it."""
    f = _ESTIMATES.get(name)
    if f is None or _consumable(args, kwargs):
        return None
    try:
        return f(args, kwargs)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None  # NumPy will say what is wrong with the arguments


def image_size(image):
    """Elements of ``numpy.array(pillow_image)``."""
    return image.width * image.height * len(image.getbands())


# ---------------------------------------------------------------- element-by-element loops

def large_part(n, size):
    """The loop count after an access to a part of ``size`` elements (at least the crossover):
    lowered by one per crossover's worth, so a loop whose small accesses outweigh its large ones
    still moves (LU by hand at n = 300), and one over large parts never does (n = 3000)."""
    return max(n - size // limit, -BACKOFF)


def move_due(x, n):
    """Whether ``scalar_access(x, n)`` may move ``x``'s storage now (else it only keeps the count)."""
    a = x._st.d
    return _device.placing() and n >= MIGRATE_AFTER + (a.nbytes >> 18) and a.dtype.kind in _NUMERIC


def scalar_access(x, n):
    """The ``n``-th consecutive access of GPU array ``x`` to one element or a small part of it
    (below the crossover): True when its storage has moved to the host (every view of it with
    it: ``_storage``), else False with the count kept (``x._n``)."""
    if not _device.placing():
        x._n = 0  # every array stays on the GPU here: look again after MIGRATE_AFTER more
        return False
    st = x._st
    a = st.d
    due = n >= MIGRATE_AFTER + (a.nbytes >> 18) and a.dtype.kind in _NUMERIC
    if not due or not _storage.movable(st):
        x._n = n
        return False
    _storage.to_host(st, f"a loop over elements or small parts of {a.size} elements")
    _host_data(st.h)
    line = getattr(x._b if x._b is not None else x, "_s", None)
    if line is not None and line not in lines and len(lines) < MAX_LINES:
        lines[line] = True  # (False, once forgotten, stays)
        _transfer.device_use_hook = used_on_device
    return True


def loop_to_host(x):
    """A Python loop over the elements of the 1-d GPU array ``x`` (its iteration) begins: its
    storage moves to the host, in any mode, where it can (numbers, memory xpshim owns), so the
    loop reads NumPy's scalars at NumPy's speed and sees its own writes; True if it moved."""
    st = x._st
    if st.host or st.d.dtype.kind not in _NUMERIC or not _storage.movable(st):
        return False
    _storage.to_host(st, f"iteration over {st.d.size} elements")
    _host_data(st.h)
    return True


def back_to_device(x):
    """Move the storage of ``x`` back to the GPU (counted): every view of it goes with it."""
    st = x._st
    _storage.to_device(st, f"GPU use of an array moved to the host ({st.d.size} elements)")
    x._n = -BACKOFF


_GPU = object()


def _host_part(k):
    t = type(k)
    if t is int or t is slice or k is None or k is Ellipsis or t is bool or t is list or t is numpy.ndarray:
        return k
    if isinstance(k, (numpy.integer, numpy.bool_)):
        return k
    h = getattr(k, "_h", None)  # an xpshim array whose data is on the host too
    return h if h is not None else _GPU


def host_key(key):
    """``key`` for indexing host data (host-held xpshim arrays in it replaced by their data), or
    None when it holds GPU arrays: then the indexed array's data goes back to the GPU."""
    parts = tuple(map(_host_part, key)) if type(key) is tuple else _host_part(key)
    if parts is _GPU or (type(parts) is tuple and any(p is _GPU for p in parts)):
        return None
    return parts


def mask_extent(key):
    """Elements a boolean mask in ``key`` ranges over (0 if there is none): ``a[mask] = v`` and
    ``a[mask]`` go through the whole mask however few elements it selects (mandelbrot's
    ``escaped_at[out] = i`` is a pass over 4e6 elements, not a write of one)."""
    for k in key if type(key) is tuple else (key,):
        dt = getattr(k, "dtype", None)
        if dt is not None and dt.kind == "b" and getattr(k, "ndim", 0):
            return k.size
    return 0


def part_size(shape, key, value):
    """Elements of ``x[key]`` for a write of ``value`` into it: counted from the shape for a
    basic index (``a[:] = 0`` writes all of ``a``), from the mask for a boolean one, else the
    value's size."""
    t = type(key)
    if t is int or t is slice or key is Ellipsis:
        key = (key,)
    elif t is not tuple:
        return mask_extent(key) or getattr(value, "size", 1)
    n, axis = 1, 0
    for k in key:
        tk = type(k)
        if tk is int:
            axis += 1
        elif tk is slice:
            if axis < len(shape):
                n *= len(range(*k.indices(shape[axis])))
            axis += 1
        elif k is Ellipsis:
            rest = sum(1 for kk in key if kk is not None and kk is not Ellipsis)
            for d in shape[axis:len(shape) - rest + axis]:
                n *= d
            axis = len(shape) - rest + axis
        elif k is not None:
            return mask_extent(key) or getattr(value, "size", 1)
    for d in shape[axis:]:
        n *= d
    return n


# ---------------------------------------------------------------- the lines that loops work at

# Elements up to which an array made at a remembered line is made on the host; how many lines
# are remembered at most (a line is a code's record and a line number: memory, not a leak).
LINE_CAP = 1 << 22
MAX_LINES = 4096
lines = {}  # (Code, line, Code, line) -> True: made on the host; False: forgotten (its arrays went to the GPU)
_born = {}  # id(NumPy array) -> (weak reference, line): arrays made on the host at a line
# line -> bytes: what making its arrays on the host is worth, less twice what they sent to the GPU
# since (each GPU use of one is an upload). A line is forgotten when its balance goes below zero:
# one array made and sent once, as before, but not a line that makes a loop's arrays and one that
# goes to the GPU at the end (a CNN's layers made at one line, the last one read by a dense layer
# on the GPU: forgetting it sent the next call's loop arrays to the GPU and back, run after run).
_balance = {}


def birth_line():
    """The user's line making an array now, and the line that called it: (its code's
    ``_callsite.Code``, line number, the calling code's, its line), or None. With the caller in
    the key, a helper that loads data for a loop in one place and for vectorized work in another
    is two lines, not one. (Codes, not code objects: a key's hash is then its identity's.)"""
    f = sys._getframe(1)
    codes = _callsite.codes
    while f is not None:
        k = codes.get(id(f.f_code))
        if k is None:
            k = _callsite.key(f.f_code)
        if not k.inside:
            b = f.f_back
            if b is None:
                return (k, _callsite.lineno(k, f), None, 0)
            kb = codes.get(id(b.f_code))
            if kb is None:
                kb = _callsite.key(b.f_code)
            return (k, _callsite.lineno(k, f), kb, _callsite.lineno(kb, b))
        f = f.f_back
    return None


def made_on_host(h, line):
    """``h`` (a NumPy array) as an array made at a remembered line: kept on the host, its views
    kept there too (``_hosted``), and counted by line."""
    _host_data(h)
    root = _root(h)
    if len(_born) > 4 * MAX_LINES:  # (drop the entries of arrays that are gone)
        for k in [k for k, (ref, _) in _born.items() if ref() is None]:
            del _born[k]
    _born[id(root)] = (weakref.ref(root), line)
    # (capped at four such arrays: a line that goes on to send its arrays is forgotten within a few calls)
    _balance[line] = min(_balance.get(line, 0) + h.nbytes, 4 * h.nbytes)
    _transfer.count_at_line(h.nbytes, f"{line[0].co_filename}:{line[1]}")
    return h


def made_here(h):
    """True when the user's line making ``h`` (host data for a new array) is a remembered one:
    ``h`` is then kept on the host (counted)."""
    if h.size > LINE_CAP:
        return False
    line = birth_line()
    if not lines.get(line):
        return False
    made_on_host(h, line)
    return True


def moved_at_line(a, line, sources=()):
    """A new CuPy array ``a`` made at a remembered line: its data on the host (counted). The
    lines that made its GPU operands (``sources``, the call's arguments) are remembered too, as
    small inputs computed only for the loop's data (``M = B @ B.T`` before Cholesky's loop: B,
    from then on, is made on the host, and nothing of it crosses to the GPU and back)."""
    for x in sources:
        up = getattr(x, "_s", None) if getattr(x, "_h", 1) is None else None  # (GPU xpshim arrays only)
        if up is not None and up not in lines and len(lines) < MAX_LINES:
            lines[up] = True
    return made_on_host(_transfer.place_on_host(a, f"made at a line whose arrays a loop used on the host "
                                                   f"({a.size} elements)"), line)


def used_on_device(h, reason=""):
    """A NumPy array goes to the GPU for GPU work: if it is large (the crossover) and it (or the
    array it views) was made at a remembered line, the upload counts against that line
    (``_balance``: below zero, its arrays are made on the GPU again, from now on); if it is a large
    operand or argument of GPU work, its user's function is one that broadcasts host data
    (``host_data_used``). Uses on the forced GPU (``xpshim.device("gpu")``) teach nothing: every
    array goes there, whatever auto mode would do, so host data used in both keeps what auto
    mode learnt."""
    if not _device.placing():
        return
    if h.size < limit:
        # a small part of a loop's host data meeting a GPU array (L[i, :i] @ y[:i] with y on the
        # GPU) is a loop's step, not GPU work for the line: forgetting the line on it sent the
        # loop's arrays back to the GPU one line after another, run after run (triangular_solve)
        return
    if reason in _WORK:
        host_data_used(h)
    h = _root(h)
    e = _born.get(id(h))
    if e is not None and e[0]() is h:
        line = e[1]
        b = _balance[line] = _balance.get(line, 0) - 2 * h.nbytes
        if b < 0:
            lines[line] = False
            del _born[id(h)]


def forget_lines():
    """Forget every remembered line and function (tests, and ``xpshim.reset_placement``)."""
    global seeding, seek
    seeding = False
    seek = eager
    settled.clear()
    lines.clear()
    _born.clear()
    _balance.clear()
    wide.clear()
    _hotwork.seen.clear()
    seeds.clear()
    _small_uses.clear()
    _fed_large.clear()
    _transfer.device_use_hook = used_on_device if limit != sys.maxsize else None


# ---------------------------------------------------------------- functions that broadcast host data

# NumPy's own operators on small NumPy arrays can make large arrays that xpshim never sees made
# (mandelbrot's x[None, :] + 1j * y[:, None] of two linspaces): they, and all work after them,
# stay on the host. When such a large NumPy array goes into GPU work or an xpshim call, the
# user's function making that call is remembered (``wide``); the small arrays that creation
# calls (linspace, arange, random, asarray, array) make later in it, or in a function it calls,
# are made on the GPU ("seeds"): NumPy's operators on them are then xpshim's, and the large
# arrays they broadcast into are made on the GPU. A seed line whose arrays only go into small
# work (SEED_SMALL_USES small results, none large) or are read by NumPy is made on the host
# again (``lines``), and an element loop over a seed moves it to the host as any GPU array's.
# XPSHIM_SEEDS=eager makes every function's small arrays seeds. See docs/placement.md.
SEED_SMALL_USES = 16
MAX_WIDE = 4096
wide = {}  # _callsite.Code -> True: a function that gave a large NumPy array to GPU work or a call
seeds = weakref.WeakKeyDictionary()  # storage of a seed -> the line that made it
seeding = False  # True once a seed was made (read on the GPU's hot path: one attribute)
eager = _config.seeds == "eager"  # (XPSHIM_SEEDS)
seek = eager  # True when creation calls look for seed lines: eager, or a function is in ``wide``
settled = weakref.WeakSet()  # seeds a loop's small work moved to the host: NumPy's operations there
_small_uses = {}  # seed line -> small results made from its seeds
_fed_large = set()  # seed lines whose seeds made a large result: kept on the GPU
# The creation functions whose small arrays may be seeds: ranges (with np.asarray and np.array of
# data). Constants stay NumPy's (rarely what is broadcast, and np.zeros(5) takes the cheapest path),
# and so do random draws: their numbers are NumPy's stream, not CuPy's, whatever was learnt.
SEEDABLE = frozenset(("xpshim.linspace", "xpshim.logspace", "xpshim.geomspace", "xpshim.arange"))
# Transfer reasons of host data going into GPU work (not creation from data: np.asarray(big))
_WORK = frozenset(("operand", "NumPy array argument", "array-like argument"))


def host_data_used(h):
    """``h``, a NumPy array of at least the crossover, goes into GPU work or an xpshim call:
    unless a loop works on it on the host, its user's function is remembered as one whose small
    arrays feed large work (``wide``)."""
    global seek
    root = _root(h)
    if _hosted.get(id(root)) is root or id(root) in _born or _config.seeds == "off":
        return  # (a loop's data, kept on the host)
    line = birth_line()
    if line is not None and line[0] not in wide and len(wide) < MAX_WIDE:
        wide[line[0]] = True
        seek = True


def _hot_work_seen(code):
    """``_hotwork``'s report: the function of ``code`` (a ``_callsite.Code``), or a caller of one,
    ran large host work in C code no xpshim call saw: its small arrays feed large work, as
    ``host_data_used`` finds."""
    global seek
    if code not in wide and len(wide) < MAX_WIDE and _config.seeds == "learn":
        wide[code] = True
        seek = True


for _code in list(_hotwork.seen):
    _hot_work_seen(_code)
_hotwork.report = _hot_work_seen


def seed_line():
    """The user's line making a small array now, when that array is to be a seed (made on the
    GPU: its function, or the one that called it, broadcasts host data), else None."""
    line = birth_line()
    if line is None or line in lines or not (eager or line[0] in wide or line[2] in wide):
        return None  # (a line in ``lines`` is a loop's, or was one: made by size, as NumPy's)
    return line


def copyable(h, a):
    """True when a GPU copy of ``h``, what NumPy's asarray or array made of ``a``, loses no write:
    ``h`` is new data of its own, or read-only. (``np.asarray(v)`` of a writable NumPy array is
    ``v`` itself, and writes through it must reach the caller's array: it stays NumPy's.)"""
    return (h is not a and h.base is None) or not h.flags.writeable


def seeded(x, line):
    """``x``, an xpshim GPU array made at ``line``, registered as a seed (``seeds``)."""
    global seeding
    st = getattr(x, "_st", None)
    if st is not None:
        seeding = True
        seeds[st] = line
        x._s = line  # (an element loop over it then remembers the line, as for any GPU array)
    return x


def seed_use(size, sources):
    """A GPU result of ``size`` elements made from ``sources`` (a call's arguments): a large one
    keeps the lines of the seeds among them on the GPU for good. A small one is counted against
    its seeds' line and returned (None when there is none): the result is a seed of that line
    too, and once the line has made SEED_SMALL_USES small results (a loop's small arrays), it is
    a NumPy array made at that line (``lines``), as the line's arrays are from then on."""
    found = []
    for s in _arrays(sources):
        line = seeds.get(s._st)
        if line is None:
            if size >= limit:
                continue
            return None  # (another GPU array among them, of GPU work: the work is the GPU's anyway)
        found.append((s._st, line))
    if size >= limit:
        _fed_large.update(line for _, line in found)
        return None
    line = None
    for st, line in found:
        if line in _fed_large:
            return None
        n = _small_uses[line] = _small_uses.get(line, 0) + 1
        if n >= SEED_SMALL_USES and line not in lines and len(lines) < MAX_LINES:
            lines[line] = True
        if lines.get(line):
            settle(st)
    return line


def _arrays(sources):
    """The xpshim arrays among a call's arguments, and in lists and tuples among them."""
    for s in sources:
        t = type(s)
        if t is list or t is tuple:
            yield from (b for b in s if getattr(b, "_st", None) is not None)
        elif getattr(s, "_st", None) is not None:
            yield s


def read_on_host(x):
    """A seed's data copied to the host for NumPy (``numpy.asarray(x)``, a NumPy array's item
    assignment of it): unless its line made a large result, its arrays are made as NumPy arrays
    from then on (``lines``)."""
    line = seeds.get(x._st)
    if line is not None and line not in _fed_large and line not in lines and len(lines) < MAX_LINES \
            and _device.placing():  # (the forced GPU teaches nothing)
        lines[line] = True


def settle(st):
    """Move a seed whose line proved a loop's to the host, for good: operations on it are then
    NumPy's there (``settled``), as on the parts of an array an element loop moved."""
    if st not in settled and _storage.movable(st):
        _storage.to_host(st, f"a loop's small work on an array made on the GPU ({st.d.size} elements)")
        _host_data(st.h)
        settled.add(st)


refresh()  # (the GPU may be live already when this module loads)
