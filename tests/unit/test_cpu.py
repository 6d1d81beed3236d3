"""The CPU path is NumPy itself: same objects out, same errors, no wrapping."""

import numpy
import pytest

import xpshim as np


def test_results_are_numpy_objects(cpu):
    a = np.arange(10.0).reshape(2, 5)
    assert type(a) is numpy.ndarray
    assert type(np.sum(a)) is numpy.float64
    assert type(np.add(a, 1)) is numpy.ndarray
    assert np.linalg.norm(a) == numpy.linalg.norm(a)
    numpy.testing.assert_array_equal(np.fft.fft(a), numpy.fft.fft(a))


@pytest.mark.parametrize("name,args", [
    ("concatenate", ([[1, 2], [3]],)), ("where", ([True, False], 1, 2)), ("unique", ([3, 1, 3],)),
    ("percentile", ([1.0, 2, 3, 4], 50)), ("cumsum", ([1, 2, 3],)), ("histogram", ([1, 2, 2, 3],)),
    ("einsum", ("ij,jk->ik", numpy.ones((2, 3)), numpy.ones((3, 2)))), ("insert", ([1, 2, 3], 1, 9)),
])
def test_functions_equal_numpy(cpu, name, args):
    got, want = getattr(np, name)(*args), getattr(numpy, name)(*args)
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            numpy.testing.assert_array_equal(g, w)
    else:
        numpy.testing.assert_array_equal(got, want)
        assert numpy.asarray(got).dtype == numpy.asarray(want).dtype


def test_errors_are_numpys(cpu):
    with pytest.raises(ValueError):
        np.reshape(np.arange(6), (4, 2))
    with pytest.raises(IndexError):
        np.arange(3)[5]
    with pytest.raises(numpy.exceptions.AxisError):
        np.sum(np.ones(3), axis=2)


def test_ufunc_methods_and_keywords(cpu):
    a = numpy.arange(12.0).reshape(3, 4)
    numpy.testing.assert_array_equal(np.maximum.accumulate(a, axis=1), numpy.maximum.accumulate(a, axis=1))
    numpy.testing.assert_array_equal(np.add.reduceat(a[0], [0, 2]), numpy.add.reduceat(a[0], [0, 2]))
    numpy.testing.assert_array_equal(np.sum(a, where=a > 3), numpy.sum(a, where=a > 3))
    out = numpy.empty(4)
    np.add(a[0], 1, out=out)
    numpy.testing.assert_array_equal(out, a[0] + 1)


def test_random_on_cpu_is_numpys_stream(cpu):
    np.random.seed(7)
    a = np.random.rand(3)
    numpy.random.seed(7)
    numpy.testing.assert_array_equal(a, numpy.random.rand(3))
    assert isinstance(np.random.default_rng(0), numpy.random.Generator)


def test_no_transfers_on_cpu(cpu):
    np.reset_stats()
    np.exp(np.ones(100)).sum()
    s = np.stats()["transfers"]
    assert s["host_to_device"]["count"] == 0 and s["device_to_host"]["count"] == 0
