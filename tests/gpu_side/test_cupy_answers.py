"""Where CuPy 14 answers otherwise than NumPy (the simulated GPU gives CuPy's answers:
xpshim/_simgpu/cupy.py, ``_CUPY_ANSWERS``), xpshim answers NumPy's: memory order, sums, shapes
of q, and NumPy's errors where CuPy's function would answer."""

import warnings

import numpy
import pytest

import xpshim


def _same(ref, got):
    got = xpshim.asnumpy(got)
    return ref.dtype == got.dtype and ref.shape == got.shape and numpy.array_equal(ref, got, equal_nan=True)


def _obj_kinds(n):
    """delete's index kinds: a list, one int, slices of step 1 and 2, a one-element list, a mask,
    an empty list, a NumPy integer, a one-element array."""
    return ([0, 2][:n] if n > 1 else [0], 1 if n > 1 else 0, slice(0, 2), slice(0, None, 2), [n - 1],
            numpy.array([True] + [False] * (n - 1)), [], numpy.int64(0), numpy.array([0]))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(3, 4), (3, 4, 5), (4, 1)])
def test_delete_answers_in_numpys_memory_order(gpu, shape, order):
    """Every axis and kind of index: NumPy's values and its C/F flags (CuPy's answer is always C)."""
    h = numpy.array(numpy.arange(numpy.prod(shape), dtype=float).reshape(shape), order=order)
    bad = []
    with xpshim.device("gpu"):
        g = xpshim.asarray(h) if order == "C" else xpshim.asfortranarray(xpshim.asarray(h))
        for axis in range(len(shape)):
            for obj in _obj_kinds(shape[axis]):
                want, got = numpy.delete(h, obj, axis=axis), xpshim.delete(g, obj, axis=axis)
                if not _same(want, got) or got.strides != want.strides:
                    bad.append((axis, obj, got.strides, want.strides))
    assert bad == []


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_convolutions_of_inexact_data_are_numpys_sums(gpu, dtype):
    """convolve and correlate of every pair of lengths 1-7 in every mode, and NumPy's polynomial
    products built on them, equal NumPy's bit for bit on whole-number data (CuPy's cuFFT rounds
    them: 0.25 comes out 0.2499999999999993)."""
    rng = numpy.random.default_rng(0)
    bad = []
    with xpshim.device("gpu"):
        for n in range(1, 8):
            for m in range(1, 8):
                a = rng.integers(-5, 5, n).astype(dtype)
                v = (rng.integers(-5, 5, m) * (1 + 1j if dtype.startswith("complex") else 1)).astype(dtype)
                for f in ("convolve", "correlate"):
                    for mode in ("full", "same", "valid", 1):
                        if not _same(getattr(numpy, f)(a, v, mode), getattr(xpshim, f)(xpshim.asarray(a), xpshim.asarray(v), mode)):
                            bad.append((f, n, m, mode))
                for f in ("polymul", "polynomial.polynomial.polymul"):
                    npf, xf = numpy, xpshim
                    for part in f.split("."):
                        npf, xf = getattr(npf, part), getattr(xf, part)
                    if not _same(npf(a, v), xf(xpshim.asarray(a), xpshim.asarray(v))):
                        bad.append((f, n, m))
    assert bad == []


@pytest.mark.parametrize("name", ["percentile", "quantile"])
def test_a_q_of_two_dimensions_runs_on_the_gpu(gpu, name):
    """percentile/quantile with a 2-d q (CuPy's takes at most 1-d), with axes, keepdims, a NaN and
    out=: NumPy's values and shape, out= returned, nothing run on the host."""
    h = numpy.arange(24.0).reshape(4, 6)
    h[1, 2] = numpy.nan
    q = numpy.array([[10.0, 50.0], [90.0, 100.0]]) / (1 if name == "percentile" else 100)
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("error")  # (a host run would warn)
        for kw in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"method": "nearest", "axis": 1}):
            want = getattr(numpy, name)(h, q, **kw)
            assert _same(want, getattr(xpshim, name)(xpshim.asarray(h), xpshim.asarray(q), **kw)), kw
            o = xpshim.empty(want.shape)
            rest = {k: v for k, v in kw.items() if k != "axis"}  # (out by position, after axis)
            assert getattr(xpshim, name)(xpshim.asarray(h), xpshim.asarray(q), kw.get("axis"), o, **rest) is o
            assert _same(want, o), kw
    assert xpshim.stats()["fallbacks"] == {}


_REFUSED = {  # calls NumPy refuses and CuPy's function answers (or fails to compile)
    "choose": lambda m, h: m.choose(h[1], h[0]),  # float indices
    "take": lambda m, h: m.take(h[0], h[1]),
    "put": lambda m, h: m.put(h[0], h[1], h[0]),
    "compress (2-d condition)": lambda m, h: m.compress(h[1], h[0]),
    "compress (true past the end)": lambda m, h: m.compress(h[0], h[2]),
    "convolve (2-d a)": lambda m, h: m.convolve(h[1], h[0]),
    **{f"fft.{n} (1-d)": (lambda n: lambda m, h: getattr(m.fft, n)(h[2]))(n) for n in ("fft2", "ifft2", "rfft2", "irfft2")},
}


@pytest.mark.parametrize("case", sorted(_REFUSED))
def test_numpys_error_where_cupys_function_answers(gpu, case):
    """NumPy's exception, class and words, where CuPy's function would answer."""
    hs = [numpy.array([0.5, 1.5, 2.0, 1.0]), numpy.array([[1.0, 0.0], [1.0, 1.0]]), numpy.array([1.0, 2.0, 3.0])]
    with pytest.raises(Exception) as want:
        _REFUSED[case](numpy, [h.copy() for h in hs])
    with xpshim.device("gpu"):
        gs = [xpshim.asarray(h) for h in hs]
        with pytest.raises(want.type) as got:
            _REFUSED[case](xpshim, gs)
    assert str(got.value) == str(want.value)
