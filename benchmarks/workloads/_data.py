"""Seeded input data, made once on the host (as data read from a file would be) and given
to the array module with ``np.asarray``: every variant starts from the same numbers, where
``np.random.default_rng`` would draw different ones on the GPU."""

import numpy

_kept = {}  # (kind, shape, seed, a, b) -> read-only host array; at most KEEP
_used = set()  # the keys asked for since the last renew
KEEP = 8


def _host(kind, shape, seed, a, b):
    key = (kind, shape, seed, a, b)
    _used.add(key)
    x = _kept.get(key)
    if x is None:
        rng = numpy.random.default_rng(seed)
        x = {"uniform": rng.uniform, "normal": rng.normal, "integers": rng.integers}[kind](a, b, shape)
        x.flags.writeable = False  # shared between calls: a workload that writes must copy
        while len(_kept) >= KEEP:
            del _kept[next(iter(_kept))]
        _kept[key] = x
    return x


def renew():
    """Give every kept input new memory, a copy of the old (the runner calls this off its clock,
    before each timed run): each run reads its inputs from memory that no earlier run sent to
    the GPU, as data read from a file would be. (xpshim registers the memory of a host array
    sent a second time and sends it directly from then on: the same array every run would
    measure that instead.) Inputs not asked for since the last call are dropped."""
    for key in list(_kept):
        if key in _used:
            y = _kept[key].copy()
            y.flags.writeable = False
            _kept[key] = y
        else:
            del _kept[key]
    _used.clear()


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def uniform(np, shape, seed, low=0.0, high=1.0):
    return np.asarray(_host("uniform", _shape(shape), seed, low, high))


def normal(np, shape, seed, mean=0.0, std=1.0):
    return np.asarray(_host("normal", _shape(shape), seed, mean, std))


def integers(np, low, high, shape, seed):
    return np.asarray(_host("integers", _shape(shape), seed, low, high))
