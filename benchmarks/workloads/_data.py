"""Seeded input data, made once on the host (as data read from a file would be) and given
to the array module with ``np.asarray``: every variant starts from the same numbers, where
``np.random.default_rng`` would draw different ones on the GPU."""

import functools

import numpy


@functools.lru_cache(maxsize=8)
def _host(kind, shape, seed, a, b):
    rng = numpy.random.default_rng(seed)
    x = {"uniform": rng.uniform, "normal": rng.normal, "integers": rng.integers}[kind](a, b, shape)
    x.flags.writeable = False  # shared between calls: a workload that writes must copy
    return x


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def uniform(np, shape, seed, low=0.0, high=1.0):
    return np.asarray(_host("uniform", _shape(shape), seed, low, high))


def normal(np, shape, seed, mean=0.0, std=1.0):
    return np.asarray(_host("normal", _shape(shape), seed, mean, std))


def integers(np, low, high, shape, seed):
    return np.asarray(_host("integers", _shape(shape), seed, low, high))
