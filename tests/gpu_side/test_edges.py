"""Edge cases where CuPy's function answers otherwise than NumPy's (xpshim/_edges.py), on the
GPU side against NumPy: the same result, or the same exception class."""

import sys
import warnings

import numpy
import pytest

import xpshim

EMPTY = [("amax", {}), ("amin", {"axis": 0}), ("max", {"axis": (0, 2)}), ("min", {}), ("ptp", {}),
         ("argmax", {}), ("argmin", {"axis": 1}), ("nanmax", {}), ("nanmin", {"axis": -1}),
         ("nanargmax", {}), ("nanargmin", {}), ("nanmean", {}), ("nanmean", {"axis": 0}),
         ("nanstd", {}), ("nanvar", {"axis": 1}), ("median", {}), ("nanmedian", {"axis": 0})]


def _same(name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            want = getattr(numpy, name)(*args, **kwargs)
        except Exception as e:
            with pytest.raises(type(e)):
                getattr(xpshim, name)(*[xpshim.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args], **kwargs)
            return
        got = getattr(xpshim, name)(*[xpshim.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args], **kwargs)
    assert xpshim.get_device(got) == "gpu"
    g, w = xpshim.asnumpy(got), numpy.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
    numpy.testing.assert_array_equal(g, w)


def _empty_cases():
    for shape in [(0,), (0, 3, 2), (2, 0, 3)]:
        for name, kwargs in EMPTY:
            if all(-len(shape) <= a < len(shape) for a in numpy.atleast_1d(kwargs.get("axis", 0))):
                yield pytest.param(name, kwargs, shape, id=f"{name}-{kwargs}-{shape}")


@pytest.mark.parametrize("name, kwargs, shape", list(_empty_cases()))
def test_reductions_of_empty_arrays(gpu, name, kwargs, shape):
    _same(name, (numpy.zeros(shape),), kwargs)
    assert not xpshim.stats()["fallbacks"]


def test_interp_of_views(gpu):
    x = numpy.linspace(0, 1, 7)[::-2]
    xp_, fp = numpy.array([0.0, 0.5, 1.0]), numpy.array([1.0, 3.0, 2.0])
    _same("interp", (x, xp_, fp), {})
    _same("interp", (x, xp_[::-1][::-1], fp[::1]), {"left": -1.0})


def test_as_strided_default_strides(gpu):
    h = numpy.arange(6, dtype=numpy.int32)
    got = xpshim.lib.stride_tricks.as_strided(xpshim.asarray(h), shape=(3, 2))
    numpy.testing.assert_array_equal(xpshim.asnumpy(got), numpy.lib.stride_tricks.as_strided(h, shape=(3, 2)))
    with pytest.raises(ValueError):  # a view's own strides, as NumPy's array interface gives them
        xpshim.lib.stride_tricks.as_strided(xpshim.asarray(h)[::-1], shape=(3, 2))


def test_shares_memory_of_0d_arrays(gpu):
    a, b = xpshim.asarray(numpy.array(0)), xpshim.asarray(numpy.array(0))
    assert xpshim.shares_memory(a, b) is numpy.shares_memory(numpy.array(0), numpy.array(0)) is False
    h = numpy.arange(4)
    c = xpshim.asarray(h)
    # (an element read is NumPy's scalar, a value of its own; a 0-d view shares the memory)
    assert xpshim.shares_memory(c[1], c) is numpy.shares_memory(h[1], h) is False
    assert xpshim.shares_memory(c[1:2].reshape(()), c) and not xpshim.shares_memory(c[1:2].reshape(()), c[2:])


@pytest.mark.parametrize("name, m", [("inv", [[0.0]]), ("inv", [[1.0, 2.0], [2.0, 4.0]]), ("cholesky", [[0.0]]),
                                     ("cholesky", [[1.0, 2.0], [2.0, 1.0]]), ("inv", [[2.0, 1.0], [1.0, 3.0]])])
def test_linalg_errors_as_numpy(gpu, name, m):
    h = numpy.array(m)
    try:
        want = getattr(numpy.linalg, name)(h)
    except numpy.linalg.LinAlgError:
        with pytest.raises(numpy.linalg.LinAlgError):
            getattr(xpshim.linalg, name)(xpshim.asarray(h))
        return
    numpy.testing.assert_allclose(xpshim.asnumpy(getattr(xpshim.linalg, name)(xpshim.asarray(h))), want, rtol=1e-12)


def test_median_of_a_0d_array_keeps_no_dimension(gpu):
    for f in ("median", "nanmedian"):
        _same(f, (numpy.array(2.5),), {"axis": None, "keepdims": True})


@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "float64", "int32"])
@pytest.mark.parametrize("decimals", [0, 1, 3, -1, -2])
@pytest.mark.parametrize("name", ["around", "round"])
def test_round_in_the_arrays_dtype(gpu, name, dtype, decimals):
    """Halfway values after scaling (263.0655 as float32 to 3 decimals): NumPy scales and
    rounds in the array's own dtype."""
    rng = numpy.random.default_rng(8)
    x = numpy.concatenate([[263.0655, 0.125, -2.5, 1234.5, 0.0, -0.0], rng.random(200) * 10.0 ** rng.integers(-3, 4, 200)])
    a = (x + 1j * x[::-1]).astype(dtype) if dtype[0] == "c" else (x * 100).astype(dtype) if dtype[0] == "i" else x.astype(dtype)
    _same(name, (a, decimals), {})


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nanarg_of_an_all_nan_slice_raises(gpu, name, axis):
    a = numpy.array([[numpy.nan, 1.0], [numpy.nan, 2.0]], numpy.float32)
    _same(name, (a,), {"axis": axis})  # (axis 1 has no all-NaN row: NumPy's answer, no error)
    _same(name, (numpy.array(numpy.nan),), {})


@pytest.mark.parametrize("name", ["nanprod", "nancumprod"])
def test_complex_nanprod_counts_nan_parts_as_one(gpu, name):
    a = numpy.array([[complex(numpy.nan, numpy.inf), 2 + 1j], [complex(0, numpy.nan), 1j]])
    for kw in ({}, {"axis": 0}, {"axis": 1}):
        _same(name, (a,), kw)


NAN = complex(numpy.nan, 0)


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanvar", "nanstd", "nancumsum", "nanmedian"])
def test_complex_nan_functions_drop_an_element_with_one_nan_part(gpu, name):
    # NumPy: isnan(1+nanj) is True, so the element is left out whole (nansum([1+nanj]) is 0);
    # CuPy's reductions leave out the NaN part alone (the H200 gave 1 for that sum)
    a = numpy.array([complex(1, numpy.nan), 2 + 1j, NAN, 3j, complex(numpy.nan, 5), -1 - 1j])
    _same(name, (a,), {})
    _same(name, (a.reshape(2, 3),), {"axis": 1})
    _same(name, (numpy.zeros(0, complex),), {})  # empty and complex: NumPy's NaN (and warning) first


def test_extract_with_a_longer_condition(gpu):
    arr = numpy.arange(10)[::4]  # 3 elements
    _same("extract", (numpy.array([True, False, True, False, False]), arr), {})  # fits: NumPy's take
    _same("extract", (numpy.array([True, False, False, True, False]), arr), {})  # index 3: IndexError


@pytest.mark.parametrize("name", ["percentile", "quantile", "nanpercentile", "nanquantile"])
def test_quantiles_of_complex_arrays_raise_numpys_type_error(gpu, name):
    # (CuPy's kernel fails to compile: NVRTC_ERROR_COMPILATION)
    _same(name, (numpy.ones(4, complex), 0.5), {})


def test_cross_of_two_element_vectors_follows_the_installed_numpy(gpu, monkeypatch):
    from xpshim import _edges

    a, b = numpy.arange(12.0).reshape(4, 3), numpy.arange(8.0).reshape(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _same("cross", (a, b), {})  # what this NumPy does: computes (up to 2.4) or raises (2.5)
        monkeypatch.setattr(_edges, "_CROSS_TAKES_2D", False)  # as NumPy 2.5
        with pytest.raises(ValueError, match="3 and 2 dimensional"):
            xpshim.cross(xpshim.asarray(a), xpshim.asarray(b))
        with pytest.raises(ValueError, match="2 and 3 dimensional"):
            xpshim.cross(xpshim.asarray(b), xpshim.asarray(a), axisa=-1)
        _same("cross", (a, a), {})  # 3-element vectors: CuPy's


def test_solve_of_a_singular_matrix_raises(gpu):
    # the H200: cuSOLVER returned NaNs for a matrix whose rows sum to zero; NumPy raises LinAlgError
    m = 4.0 * numpy.eye(4) - numpy.ones((4, 4))
    with pytest.raises(numpy.linalg.LinAlgError):
        numpy.linalg.solve(m, numpy.zeros(4))
    with pytest.raises(numpy.linalg.LinAlgError):
        xpshim.linalg.solve(xpshim.asarray(m), xpshim.asarray(numpy.zeros(4)))


@pytest.mark.parametrize("name", ["array_equal", "array_equiv", "allclose"])
def test_comparisons_of_whole_arrays_answer_a_python_bool(gpu, name):
    # NumPy's test_array_equal_equal_nan checks `res is True` and `type(res) is bool`
    a = numpy.array([1.0, numpy.nan, 3.0])
    nan_kw = [] if name == "array_equiv" else [(a.copy(), {"equal_nan": True})]
    for b, kw in [(a.copy(), {}), *nan_kw, (a + 1, {}), (a[:1], {})]:
        want = getattr(numpy, name)(a, b, **kw)
        got = getattr(xpshim, name)(xpshim.asarray(a), xpshim.asarray(b), **kw)
        assert type(got) is bool and got is want, (name, kw, got, want)


@pytest.mark.parametrize("bins", ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt", [0.0, 0.5, 2.0, 9.0]])
def test_histogram_bins_by_rule_or_list(gpu, bins):
    a = numpy.random.default_rng(3).normal(2.0, 1.5, 500)
    for kw in ({}, {"range": (0.0, 5.0)}, {"density": True}):
        want = numpy.histogram(a, bins, **kw)
        got = xpshim.histogram(xpshim.asarray(a), bins, **kw)
        for g, w in zip(got, want):
            g = xpshim.asnumpy(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (bins, kw, g.shape, w.shape)
            numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name, s", [("fft2", (-1, 8)), ("fftn", (-1, -1)), ("ifftn", (6, -1)), ("rfft2", (4, -1)),
                                     ("rfftn", (-1, -1)), ("irfftn", (-1, 6)), ("irfft2", (-1, -1))])
def test_fft_minus_one_in_s_takes_the_whole_axis(gpu, name, s):
    a = numpy.random.default_rng(2).random((10, 5))
    want = getattr(numpy.fft, name)(a, s=s, axes=(0, 1))
    got = getattr(xpshim.fft, name)(xpshim.asarray(a), s=s, axes=(0, 1))
    assert got.shape == want.shape, (got.shape, want.shape)
    numpy.testing.assert_allclose(xpshim.asnumpy(got), want, rtol=1e-12, atol=1e-12)
    assert not xpshim.stats()["fallbacks"]


NUMBER_FIRST = [("interp", (2.5, [0.0, 1.0, 2.0], [0.0, 10.0, 20.0])), ("interp", (numpy.float32(0.5), [0.0, 1.0], [0.0, 4.0])),
                ("nanmax", (3.0,)), ("nansum", (2,)), ("nanmean", (True,)), ("nanmedian", (1.5,)), ("nanargmin", (0.0,)),
                ("nancumsum", (2.0,)), ("nanvar", (numpy.float32(2.0),)), ("median", (4.0,)), ("repeat", (3, 4)),
                ("around", (2.5,)), ("cumsum", (numpy.int8(3),)), ("cumprod", (2.0,)), ("ptp", (5,))]


@pytest.mark.parametrize("name, args", NUMBER_FIRST, ids=[f"{n}-{type(a[0]).__name__}" for n, a in NUMBER_FIRST])
def test_a_number_as_the_array_argument(gpu, name, args):
    # NumPy reads a number there as a 0-d array; CuPy's functions take arrays only. NumPy's scalar
    # answer is NumPy's on either device (numbers alone); an array answer is made on the GPU
    raw = getattr(numpy, name)(*args)
    want = numpy.asarray(raw)
    got = getattr(xpshim, name)(*args)
    if isinstance(raw, numpy.ndarray) or any(isinstance(a, list) for a in args):  # (lists: array data)
        assert xpshim.get_device(got) == "gpu"
    else:
        assert type(got) is type(raw)
    g = xpshim.asnumpy(got)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    numpy.testing.assert_array_equal(g, want)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name", ["nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex128"])
def test_nan_variance_with_a_fractional_ddof(gpu, name, dtype):
    a = numpy.random.default_rng(4).normal(size=(4, 5)).astype(dtype)
    a[1, 2] = numpy.nan
    for kw in ({"ddof": 0.5}, {"ddof": 1.5, "axis": 1}, {"ddof": 2.5, "axis": 0, "keepdims": True}, {"ddof": 4.5, "axis": 0}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(numpy, name)(a, **kw)
            got = xpshim.asnumpy(getattr(xpshim, name)(xpshim.asarray(a), **kw))
        assert got.dtype == want.dtype and got.shape == want.shape, (kw, got.dtype, want.dtype)
        numpy.testing.assert_allclose(got, want, rtol={"float32": 1e-5, "float16": 5e-3}.get(dtype, 1e-12), equal_nan=True)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name, q", [("percentile", 7), ("percentile", [10, 60]), ("quantile", 0.3), ("median", None),
                                     ("nanmedian", None), ("nanpercentile", 40)])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_keepdims_with_out_returns_out(gpu, name, q, axis):
    d = numpy.random.default_rng(5).random((3, 5, 7))
    qa = () if q is None else (q,)
    want = getattr(numpy, name)(d, *qa, axis=axis, keepdims=True)
    out = xpshim.empty(want.shape)
    got = getattr(xpshim, name)(xpshim.asarray(d), *qa, axis=axis, keepdims=True, out=out)
    assert got is out and got.shape == want.shape
    numpy.testing.assert_allclose(xpshim.asnumpy(out), want, rtol=1e-12)


@pytest.mark.parametrize("bins", ["auto", "fd", "doane", "scott", "stone", "rice", "sturges"])
def test_histogram_bins_by_rule_of_small_integers(gpu, bins):
    # NumPy's test of gh-14379: int8 data, whose range overflows int8
    for dt in (numpy.int8, numpy.uint8, numpy.int16, numpy.int32):
        a = numpy.array([-2, 0, 127] if dt != numpy.uint8 else [0, 2, 255], dtype=dt)
        want = numpy.histogram(a, bins=bins)
        got = xpshim.histogram(xpshim.asarray(a), bins=bins)
        for g, w in zip(got, want):
            numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)


@pytest.mark.parametrize("name, extra", [("empty_like", ()), ("zeros_like", ()), ("ones_like", ()), ("full_like", (7,))])
def test_like_functions_with_an_empty_shape(gpu, name, extra):
    d = numpy.arange(6.0).reshape(2, 3)
    for shape in [(), (5,), (0,), (2, 0, 4)]:
        want = getattr(numpy, name)(d, *extra, shape=shape)
        got = getattr(xpshim, name)(xpshim.asarray(d), *extra, shape=shape)
        assert got.shape == want.shape == shape and got.dtype == want.dtype
        if name != "empty_like":
            numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolve_modes_by_number(gpu, name):
    d, k = numpy.arange(10.0), numpy.array([1.0, -2.0, 0.5])
    for mode in (0, 1, 2, numpy.int64(2), "same", -1, 3, None, "f"):
        try:
            want = getattr(numpy, name)(d, k, mode=mode)
        except Exception as e:
            with pytest.raises(type(e)):
                getattr(xpshim, name)(xpshim.asarray(d), xpshim.asarray(k), mode=mode)
            continue
        got = getattr(xpshim, name)(xpshim.asarray(d), xpshim.asarray(k), mode=mode)
        numpy.testing.assert_allclose(xpshim.asnumpy(got), want, rtol=1e-12, atol=1e-12)  # (CuPy's by FFT)


@pytest.mark.parametrize("name", ["eigh", "eigvalsh"])
def test_eigh_uplo_in_lower_case(gpu, name):
    k = numpy.array([[2.0, 0.0], [1.0, 3.0]])
    for uplo in ("L", "l", "U", "u", "x"):
        try:
            want = getattr(numpy.linalg, name)(k, UPLO=uplo)
        except Exception as e:
            with pytest.raises(type(e)):
                getattr(xpshim.linalg, name)(xpshim.asarray(k), UPLO=uplo)
            continue
        got = getattr(xpshim.linalg, name)(xpshim.asarray(k), UPLO=uplo)
        w, g = (want[0], got[0]) if name == "eigh" else (want, got)
        numpy.testing.assert_allclose(xpshim.asnumpy(g), w, rtol=1e-12)


def test_require_flags_every_gpu_array_has(gpu):
    a = numpy.arange(12.0).reshape(3, 4)[:, ::2]
    for req in (["C", "A", "O"], ["A", "W"], "E", ["F", "ALIGNED"], ["writeable"]):
        want = numpy.require(a, "f4", req)
        got = xpshim.require(xpshim.asarray(a), "f4", req)
        assert xpshim.get_device(got) == "gpu" and got.dtype == want.dtype
        numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)
        for f in ("C_CONTIGUOUS", "F_CONTIGUOUS"):
            assert got.flags[f] == want.flags[f], (req, f)


@pytest.mark.parametrize("name, q", [("percentile", 30), ("percentile", [0, 50, 100]), ("quantile", 0.7)])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ((0, 1), False)])
def test_quantiles_of_slices_with_nan_are_nan(gpu, name, q, axis, keepdims):
    a = numpy.random.default_rng(8).random((4, 5))
    a[1, 3] = a[3, 0] = numpy.nan
    for kw in ({}, {"method": "lower"}):  # (no method=: CuPy's own; a method: NumPy's code on CuPy)
        want = getattr(numpy, name)(a, q, axis=axis, keepdims=keepdims, **kw)
        got = xpshim.asnumpy(getattr(xpshim, name)(xpshim.asarray(a), q, axis=axis, keepdims=keepdims, **kw))
        assert got.shape == want.shape
        numpy.testing.assert_allclose(got, want, rtol=1e-12)


def test_as_strided_check_bounds_against_the_viewed_array(gpu):
    # NumPy 2.5's check_bounds=: the view's byte bounds within its base array's (NumPy's own
    # byte_bounds on host views gives the expected answer)
    from numpy.lib.array_utils import byte_bounds

    a = numpy.arange(1000, dtype=numpy.int64)
    g = xpshim.asarray(a)
    for sl, shape, strides in [(slice(0, 2), (2,), (400,)), (slice(5, None), (2,), (8000,)),
                               (slice(5, None), (3,), (-8,)), (slice(5, None), (3,), (-16,)), (slice(990, None), (2, 5), (8, 8))]:
        hv = numpy.lib.stride_tricks.as_strided(a[sl], shape, strides)  # (not read unless within bounds)
        lo, hi = byte_bounds(a)
        vlo, vhi = byte_bounds(hv)
        if vlo < lo or vhi > hi:
            with pytest.raises(ValueError, match="out of bounds"):
                xpshim.lib.stride_tricks.as_strided(g[sl], shape, strides, check_bounds=True)
        else:
            got = xpshim.lib.stride_tricks.as_strided(g[sl], shape, strides, check_bounds=True)
            numpy.testing.assert_array_equal(xpshim.asnumpy(got), hv)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name", ["median", "nanmedian", "percentile"])
def test_out_holds_the_answer_with_nan(gpu, name):
    # NumPy's TestMedian::test_out_nan: CuPy's median writes out= before its NaN step
    d = numpy.ones((3, 4))
    d[2, 1] = numpy.nan
    qa = (50,) if name == "percentile" else ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = getattr(numpy, name)(d, *qa, axis=0)
        out = xpshim.zeros(4)
        got = getattr(xpshim, name)(xpshim.asarray(d), *qa, axis=0, out=out)
    assert got is out
    numpy.testing.assert_array_equal(xpshim.asnumpy(out), want)
    with pytest.raises(ValueError):
        getattr(xpshim, name)(xpshim.asarray(d), *qa, axis=0, out=xpshim.zeros(3))


@pytest.mark.parametrize("name, top", [("percentile", 100), ("quantile", 1), ("nanpercentile", 100), ("nanquantile", 1)])
def test_every_q_is_checked(gpu, name, top):
    a = numpy.arange(8.0)
    q = numpy.linspace(0, top, 5)
    for bad in (numpy.nan, [top / 2, numpy.nan], [top / 2, top * 1.01], -0.1):
        with pytest.raises(ValueError):
            getattr(numpy, name)(a, bad)
        with pytest.raises(ValueError):
            getattr(xpshim, name)(xpshim.asarray(a), bad)
    bad = q.copy()
    bad[0] = numpy.nan
    with pytest.raises(ValueError):
        getattr(xpshim, name)(xpshim.asarray(a), xpshim.asarray(bad))
    numpy.testing.assert_allclose(xpshim.asnumpy(getattr(xpshim, name)(xpshim.asarray(a), q)), getattr(numpy, name)(a, q))


def test_clip_reached_as_numpys_ufunc_with_a_host_out(gpu):
    # NumPy's TestClip: a NumPy array's clip method with GPU bounds calls the clip ufunc, out=(a,)
    a = numpy.random.default_rng(9).normal(size=(3, 5))
    want = numpy.clip(a, numpy.zeros((3, 5)), 1.0)
    m = xpshim.zeros((3, 5))
    r = a.clip(m, 1.0, out=a)
    assert r is a
    numpy.testing.assert_array_equal(a, want)


@pytest.mark.parametrize("name, q", [("median", ()), ("nanmedian", ()), ("percentile", (30,)), ("nanquantile", (0.3,))])
def test_invalid_axes_raise_numpys_errors(gpu, name, q):
    d = numpy.ones((3, 5, 7))
    for axis in (-4, (0, -4), 3, (0, 3), (1, 1)):
        with pytest.raises(Exception) as want:
            getattr(numpy, name)(d, *q, axis=axis)
        with pytest.raises(want.type):
            getattr(xpshim, name)(xpshim.asarray(d), *q, axis=axis)


@pytest.mark.parametrize("name", ["nanargmin", "nanargmax"])
def test_nanarg_writes_out(gpu, name):
    # NumPy's TestNanFunctions_ArgminArgmax::test_out
    d = numpy.array([[3.0, numpy.nan, 1.0, 7.0], [0.5, 2.0, numpy.nan, -1.0]])
    for axis, shape in ((None, ()), (1, (2,))):
        out = xpshim.zeros(shape, dtype=numpy.intp)
        got = getattr(xpshim, name)(xpshim.asarray(d), axis=axis, out=out)
        assert got is out
        numpy.testing.assert_array_equal(xpshim.asnumpy(out), getattr(numpy, name)(d, axis=axis))


def test_poly_of_lists(gpu):
    for f, args in ((xpshim.polydiv, ([1.0, 2.0, 3.0], [1.0, 1.0])),):
        want = getattr(numpy, f.__name__)(*args)
        got = f(*args)
        for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
            numpy.testing.assert_allclose(xpshim.asnumpy(g), w, rtol=1e-12)


def test_host_only_dtype_with_a_gpu_out(gpu):
    # NumPy's TestNanFunctions_ArgminArgmax::test_out with longdouble: NumPy's call on the host,
    # its answer written into the GPU out=
    mat = numpy.eye(3).astype(numpy.longdouble)
    mat[1, 1] = numpy.nan
    out = xpshim.zeros((), dtype=numpy.intp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)
        r = xpshim.nanargmax(mat, out=out)
    assert r is out and int(out) == int(numpy.nanargmax(mat))


def test_method_with_a_host_out(gpu):
    sel = xpshim.asarray(numpy.array([0, 1, 2, 0]))
    ac = numpy.zeros(4)
    r = sel.choose((xpshim.asarray(numpy.arange(4.0)), xpshim.zeros(4), xpshim.full(4, 9.0)), out=ac)
    assert r is ac and ac.tolist() == [0.0, 0.0, 9.0, 3.0]


def test_poly_runs_numpys(gpu):
    # NumPy's TestPolynomial::test_poly and test_poly_int_overflow: CuPy's FFT product loses the
    # coefficients of 20 integer roots and keeps conjugate roots' product complex
    for roots in (numpy.array([[1.0, 2.0], [3.0, 4.0]]), numpy.arange(1, 21), numpy.array([1j, -1j, 1 + 2j, 1 - 2j]),
                  numpy.array([3.0, numpy.nan, 1.0])):
        before = xpshim.stats()["fallbacks"].get("xpshim.poly", {}).get("count", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xpshim.FallbackWarning)  # (counted, and warned once per place)
            got = xpshim.poly(xpshim.asarray(roots))
        assert xpshim.stats()["fallbacks"]["xpshim.poly"]["count"] == before + 1
        want = numpy.poly(roots)
        assert xpshim.asnumpy(got).dtype == want.dtype
        numpy.testing.assert_allclose(xpshim.asnumpy(got), want, rtol=1e-12)


def test_weighted_quantile_of_a_scalar_q_is_0d(gpu):
    # NumPy's TestQuantile weights tests: NumPy's code asks empty_like(arr, shape=()), which
    # CuPy reads as "not given"
    y, w = numpy.array([3.0, 1.0, 2.0, 5.0]), numpy.array([1.0, 2.0, 3.0, 1.0])
    for q in (0, 0.4, 1, [0.2, 0.9]):
        want = numpy.quantile(y, q, weights=w, method="inverted_cdf")
        got = xpshim.quantile(xpshim.asarray(y), q, weights=xpshim.asarray(w), method="inverted_cdf")
        assert got.shape == numpy.shape(want)
        numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)


def test_small_numpy_agreements(gpu):
    a = xpshim.asarray(numpy.arange(3))
    assert a[[]].shape == (0,) and a[[]].dtype == numpy.arange(3)[[]].dtype  # (no indices)
    g = xpshim.gradient(xpshim.asarray(numpy.array([[1.0, 2.0], [2.0, 4.0]])))
    assert type(g) is tuple and len(g) == 2
    (e,) = xpshim.ix_(xpshim.asarray(numpy.array([], dtype=numpy.float32)))
    assert e.dtype == numpy.float32
    v = xpshim.asarray(numpy.array([-numpy.inf, numpy.nan, 1.0]))
    assert xpshim.nan_to_num(v, copy=False) is v and numpy.isfinite(xpshim.asnumpy(v)).all()
    b = xpshim.zeros(3)
    b[...] = memoryview(numpy.arange(3.0))
    b[:2] = numpy.ma.masked_array([5.0, 6.0])
    assert xpshim.asnumpy(b).tolist() == [5.0, 6.0, 2.0]


def _same_or_same_error(f_np, f_xp):
    try:
        want = f_np()
    except Exception as e:
        with pytest.raises(type(e)):
            f_xp()
        return
    got = f_xp()
    numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)
    assert numpy.shape(want) == got.shape


@pytest.mark.parametrize("axis, start", [(-5, 0), (0, -5), (4, 0), (0, 5), (1, 3), (-1, 0), (3, 4)])
def test_rollaxis_checks_as_numpy(gpu, axis, start):
    a = numpy.arange(24).reshape(1, 2, 3, 4)
    _same_or_same_error(lambda: numpy.rollaxis(a, axis, start), lambda: xpshim.rollaxis(xpshim.asarray(a), axis, start))


def test_more_numpy_edges(gpu):
    z = numpy.array(3.0)
    v = numpy.arange(4.0)
    for a, b, axes in ((z, z, ([], [])), (z, v, 0), (v, z, 0), (v, v, 0)):
        _same_or_same_error(lambda: numpy.tensordot(a, b, axes), lambda: xpshim.tensordot(xpshim.asarray(a), xpshim.asarray(b), axes))
    x = numpy.arange(1, 100)
    _same_or_same_error(lambda: numpy.concatenate(x, None), lambda: xpshim.concatenate(xpshim.asarray(x), None))
    _same_or_same_error(lambda: numpy.concatenate([z, z], axis=None), lambda: xpshim.concatenate([xpshim.asarray(z)] * 2, axis=None))
    bits = numpy.array([[3, 250]], dtype=numpy.uint8)
    for order in ("little", "big", 10, "r"):
        _same_or_same_error(lambda: numpy.unpackbits(bits, axis=1, bitorder=order),
                            lambda: xpshim.unpackbits(xpshim.asarray(bits), axis=1, bitorder=order))
    _same_or_same_error(lambda: numpy.histogram(numpy.linspace(0, 1, 10), bins=numpy.array([[0, 0.5], [0.6, 1.0]])),
                        lambda: xpshim.histogram(xpshim.asarray(numpy.linspace(0, 1, 10)), bins=numpy.array([[0, 0.5], [0.6, 1.0]])))
    arr = numpy.arange(30).reshape(6, 5)
    for sl in (-2, (2, -1), 0):
        _same_or_same_error(lambda: numpy.pad(arr, 2, mode="mean", stat_length=sl),
                            lambda: xpshim.pad(xpshim.asarray(arr), 2, mode="mean", stat_length=sl))


@pytest.mark.parametrize("axis", [0, -1])
def test_unique_of_1d_along_its_axis_merges_nans(gpu, axis):
    a = numpy.array([0.0, numpy.nan, 0.0, numpy.nan, -1.0])
    for kw in ({}, {"return_counts": True}, {"equal_nan": False}):
        want = numpy.unique(a, axis=axis, **kw)
        got = xpshim.unique(xpshim.asarray(a), axis=axis, **kw)
        for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple) else [want]):
            numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)


def _rows_with_repeats(dtype, shape, seed):
    """An array whose rows along every axis repeat, with NaN, -0.0 and 0.0 among floats."""
    rng = numpy.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    a = rng.integers(0, 3, shape).astype(dtype)
    if numpy.dtype(dtype).kind == "f":
        flat = a.reshape(-1)
        flat[::7] = numpy.nan
        flat[1::5] = -0.0
    return a


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "int64", "bool"])
@pytest.mark.parametrize("shape, axis", [((12, 3), 0), ((12, 3), 1), ((3, 12), -1), ((6, 2, 4), 0), ((6, 2, 4), 1),
                                         ((6, 2, 4), 2), ((40, 1), 0), ((1, 5), 0)])
@pytest.mark.parametrize("returns", ["values", "index", "inverse", "counts", "all"])
def test_unique_along_an_axis_is_numpys(gpu, dtype, shape, axis, returns):
    """Rows (along any axis) compared as NumPy compares records: sorted lexicographically, NaN
    last, -0.0 equal to 0.0, a row holding NaN unequal to every other; the first of equal rows
    kept (its index), the inverse and the counts as NumPy's."""
    a = _rows_with_repeats(dtype, shape, seed=len(shape) * 10 + axis)
    kw = {"return_index": returns in ("index", "all"), "return_inverse": returns in ("inverse", "all"),
          "return_counts": returns in ("counts", "all")}
    want = numpy.unique(a, axis=axis, **kw)
    got = xpshim.unique(xpshim.asarray(a), axis=axis, **kw)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(got) == len(want)
    got = [xpshim.asnumpy(g) for g in got]
    inverse_at = 1 + kw["return_index"] if kw["return_inverse"] else None
    for i, (h, w) in enumerate(zip(got, want)):
        assert (h.dtype, h.shape) == (w.dtype, w.shape)
        if i == inverse_at and not kw["return_index"] and a.dtype.kind == "f":
            # rows alike that hold NaN are each their own value, in an order NumPy leaves to its
            # quicksort (docs/differences.md): the inverse rebuilds the array, and is NumPy's
            # for every row without NaN
            rows = numpy.moveaxis(a, axis, 0)
            has_nan = numpy.isnan(rows.reshape(rows.shape[0], -1)).any(axis=1)
            numpy.testing.assert_array_equal(numpy.take(got[0], h, axis=axis), a)
            assert h[~has_nan].tolist() == w[~has_nan].tolist()
        else:
            numpy.testing.assert_array_equal(h, w)  # (NaN where NaN is)


def test_unique_pixels_of_an_image(gpu):
    """The colours of an image, ``np.unique(I.reshape(-1, 3), axis=0, return_counts=True)``."""
    img = numpy.random.default_rng(4).integers(0, 6, (64, 48, 3), dtype=numpy.uint8)
    want = numpy.unique(img.reshape(-1, 3), axis=0, return_counts=True)
    got = xpshim.unique(xpshim.asarray(img).reshape(-1, 3), axis=0, return_counts=True)
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)


def test_norms_of_empty_arrays_are_numpys(gpu):
    for shape in [(0, 2), (2, 0), (0, 0)]:
        for dtype in (numpy.float64, numpy.float32, numpy.int32):
            x = numpy.zeros(shape, dtype)
            for ord in ("fro", "nuc", 1, 2, numpy.inf):
                _same_or_same_error(lambda: numpy.linalg.matrix_norm(x, ord=ord),
                                    lambda: xpshim.linalg.matrix_norm(xpshim.asarray(x), ord=ord))
    for dtype in (numpy.float64, numpy.float32, numpy.int32):
        x = numpy.zeros(0, dtype)
        for ord in (1, 2, numpy.inf):
            _same_or_same_error(lambda: numpy.linalg.vector_norm(x, ord=ord),
                                lambda: xpshim.linalg.vector_norm(xpshim.asarray(x), ord=ord))


def test_numpy_edges_of_the_eighth_run(gpu):
    x = numpy.arange(1, 10)
    _same_or_same_error(lambda: numpy.concatenate(x, 1), lambda: xpshim.concatenate(xpshim.asarray(x), 1))
    _same_or_same_error(lambda: numpy.concatenate([numpy.array(1.0)]), lambda: xpshim.concatenate([xpshim.asarray(1.0)]))
    f = numpy.array([numpy.nan, 0, 0, numpy.nan])
    _same_or_same_error(lambda: numpy.unique(f, axis=0.0), lambda: xpshim.unique(xpshim.asarray(f), axis=0.0))

    class IntLike:  # an integer by __index__ (and a sequence that fails: NumPy's gh-5063)
        def __index__(self):
            return 3

        def __len__(self):
            return 1

        def __getitem__(self, i):
            raise IndexError("no")

    class Key(tuple):
        pass

    a = numpy.arange(25.0).reshape(5, 5)
    g = xpshim.asarray(a)
    assert xpshim.asnumpy(g[:, IntLike()]).tolist() == a[:, IntLike()].tolist()
    assert g[Key(([1], [2]))].shape == a[Key(([1], [2]))].shape == (1,)
    r = xpshim.rollaxis(g, 1, 2)
    assert r is not g and not r.flags["OWNDATA"]
    numpy.testing.assert_array_equal(xpshim.asnumpy(r), numpy.rollaxis(a, 1, 2))


def test_array_equal_and_isclose_as_numpy(gpu):
    c1, c2 = numpy.complex64(1, numpy.nan), numpy.complex64(numpy.nan, 1)
    v = numpy.array([1.0, numpy.nan, 2.0])
    for a, b in ((c1, c2), (c1, c1), (v, v), (v, v[::-1]), (v, v[:2]), (3, 3), (numpy.float32(2), 2.0)):
        for eq in (False, True):
            want = numpy.array_equal(a, b, equal_nan=eq)
            got = xpshim.array_equal(*[xpshim.asarray(t) if isinstance(t, numpy.ndarray) else t for t in (a, b)],
                                     equal_nan=eq)
            assert got is want, (a, b, eq)
    below_one = float(1.0 - numpy.finfo("f8").eps)
    for dt in (numpy.float32, numpy.float16, numpy.complex64, numpy.float64, numpy.int32):
        f = numpy.array([1.0, 0.5], dt)
        for args, kw in (((f, below_one), {"atol": 0, "rtol": 0}), ((below_one, f), {"atol": 0, "rtol": 0}),
                         ((f, 2), {"atol": 0, "rtol": below_one / 2}), ((f, 3.0), {}), ((2, 2.0), {})):
            with numpy.errstate(all="ignore"):
                want = numpy.isclose(*args, **kw)
                got = xpshim.isclose(*[xpshim.asarray(t) if isinstance(t, numpy.ndarray) else t for t in args], **kw)
            numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)


def test_numpy_code_for_histogramdd_pad_median_piecewise(gpu):
    x = numpy.arange(6.0).reshape(3, 2)
    for bins in ([3, [-numpy.inf, 2, 10]], [3, numpy.array([-1, 2, numpy.inf])], [2, 2], 4,
                 [-1, 2, 4, 5], [3, [2, 1, 3]]):
        try:
            want = numpy.histogramdd(x, bins=bins)
        except Exception as e:
            with pytest.raises(type(e)):
                xpshim.histogramdd(xpshim.asarray(x), bins=bins)
            continue
        got = xpshim.histogramdd(xpshim.asarray(x), bins=bins)
        numpy.testing.assert_array_equal(xpshim.asnumpy(got[0]), want[0])
        for g, w in zip(got[1], want[1]):
            numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)
    h, _ = xpshim.histogramdd([[], [], []], bins=2)
    numpy.testing.assert_array_equal(xpshim.asnumpy(h), numpy.histogramdd([[], [], []], bins=2)[0])
    for mode in ("mean", "median"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = numpy.pad([1.0, 2.0], (1, 2), mode, stat_length=0)
            got = xpshim.pad(xpshim.asarray(numpy.array([1.0, 2.0])), (1, 2), mode, stat_length=0)
        numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)
    g3 = xpshim.asarray(numpy.array(3))
    for x, cond, funcs in ((3, [True, False], [1, 0]), (5, [False, False, True], [1, 2, 3]),
                           (numpy.array(3), "gt3", [4, 0]), (4, [False, True], [lambda v: -v, lambda v: v * 10])):
        want = numpy.piecewise(x, x > 3 if cond == "gt3" else cond, funcs)
        xx = g3 if isinstance(x, numpy.ndarray) else x
        got = xpshim.piecewise(xx, xx > 3 if cond == "gt3" else cond, funcs)
        assert got.shape == () and xpshim.asnumpy(got) == want
    v = numpy.array([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.5]])
    gv = xpshim.asarray(v)
    numpy.testing.assert_array_equal(xpshim.asnumpy(xpshim.piecewise(gv, [gv < 0, gv >= 2], [-1, 1, 3])),
                                     numpy.piecewise(v, [v < 0, v >= 2], [-1, 1, 3]))
    numpy.testing.assert_array_equal(xpshim.asnumpy(xpshim.piecewise(xpshim.asarray([0, 0]), xpshim.asarray([1, 0]), [1])),
                                     numpy.piecewise([0, 0], numpy.array([1, 0]), [1]))


def test_array_like_objects_and_object_lists_are_read_as_numpy_reads_them(gpu):
    class Like:
        def __array__(self, dtype=None, copy=None):
            return numpy.arange(3)

    r = xpshim.intersect1d(Like(), Like())
    numpy.testing.assert_array_equal(xpshim.asnumpy(r), numpy.arange(3))
    r = xpshim.isin([None], xpshim.asarray(numpy.ones(10)))
    numpy.testing.assert_array_equal(xpshim.asnumpy(r), numpy.isin([None], numpy.ones(10)))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="Python classes have no buffer protocol before 3.12")
def test_a_buffer_of_a_gpu_array_outlives_its_release(gpu):
    # ndarray(buffer=x) gives the buffer back at once and keeps only x (NumPy's test_unique_subclass)
    v = xpshim.asarray(numpy.array([5, 7, 1, 2], numpy.int8))
    view = numpy.ndarray((4,), numpy.int8, buffer=v)
    junk = [numpy.full(4, 9, numpy.int8) for _ in range(100)]  # (freed memory handed out again)
    numpy.testing.assert_array_equal(view, [5, 7, 1, 2])
    assert len(junk) == 100


def test_numpy_answers_of_the_ninth_run(gpu):
    a, b = numpy.array([5, 7, 1, 2]), numpy.array([2, 4, 3, 1, 5])
    for ri in (False, True):
        want = numpy.intersect1d(a, b, assume_unique=True, return_indices=ri)
        got = xpshim.intersect1d(xpshim.asarray(a), xpshim.asarray(b), assume_unique=True, return_indices=ri)
        for g, w in zip(got if ri else [got], want if ri else [want]):
            numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)
    x = numpy.arange(6.0)
    gx = xpshim.asarray(x)
    _same_or_same_error(lambda: numpy.array_split(x, 0), lambda: xpshim.array_split(gx, 0))
    e = numpy.eye(3)
    blk = xpshim.block(xpshim.asarray(e))
    blk[0, 0] = 2
    assert xpshim.asnumpy(blk)[0, 0] == 2 and e[0, 0] == 1
    for orig, target in [((0,), ()), ((3,), (1,)), ((1, 2), (2, 1)), ((1,), -1), ((1,), (-1,)), ((1,), (4,))]:
        _same_or_same_error(lambda: numpy.broadcast_to(numpy.zeros(orig), target),
                            lambda: xpshim.broadcast_to(xpshim.zeros(orig), target))
    for parts in ((1, 2, 3), [numpy.int32(1), numpy.int32(2)]):
        _same_or_same_error(lambda: numpy.stack(parts), lambda: xpshim.stack(parts))
    for trim in ("front", "", "fb", "B"):
        _same_or_same_error(lambda: numpy.trim_zeros(numpy.array([0, 1, 0]), trim),
                            lambda: xpshim.trim_zeros(xpshim.asarray(numpy.array([0, 1, 0])), trim))
    for obj in ([100], [-100], [0, -1, 2, 2], numpy.array([[0, 1], [2, 1]])):
        _same_or_same_error(lambda: numpy.delete(x, obj), lambda: xpshim.delete(gx, obj))
    for v in (numpy.array([True, False, True]), numpy.array([0, 1, 2], numpy.int16), numpy.array([0, 2], numpy.uint8),
              numpy.linspace(-2, 2, 5, dtype=numpy.float32)):
        want, got = numpy.sinc(v), xpshim.sinc(xpshim.asarray(v))
        assert got.dtype == want.dtype
        numpy.testing.assert_allclose(xpshim.asnumpy(got), want, rtol=1e-6)


def test_linalg_answers_numpys_named_tuples(gpu):
    a = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    g = xpshim.asarray(a)
    for name, fields in (("svd", ("U", "S", "Vh")), ("qr", ("Q", "R")), ("eigh", ("eigenvalues", "eigenvectors")),
                         ("slogdet", ("sign", "logabsdet"))):
        r, want = getattr(xpshim.linalg, name)(g), getattr(numpy.linalg, name)(a)
        assert type(r).__name__ == type(want).__name__ and r._fields == fields
        numpy.testing.assert_allclose(numpy.abs(xpshim.asnumpy(getattr(r, fields[1]))), numpy.abs(getattr(want, fields[1])))
    assert type(xpshim.linalg.qr(g, mode="raw")) is tuple


def test_functions_that_write_into_their_first_argument_write_there(gpu):
    src = xpshim.asarray(numpy.arange(3.0))
    d = numpy.zeros(3)
    xpshim.copyto(d, src)
    assert d.tolist() == [0.0, 1.0, 2.0]
    d = numpy.zeros(4)
    xpshim.put(d, [1, 2], xpshim.asarray(numpy.array([5.0, 6.0])))
    assert d.tolist() == [0.0, 5.0, 6.0, 0.0]
    g = xpshim.zeros(4)
    numpy.put_along_axis(g, xpshim.asarray(numpy.array([3])), -9.0, axis=None)  # (NumPy's own, on a GPU array)
    numpy.copyto(g[:1], 7.0)
    assert xpshim.asnumpy(g).tolist() == [7.0, 0.0, 0.0, -9.0] and xpshim.get_device(g) == "gpu"
    d = numpy.zeros(3)
    numpy.copyto(d, src)  # (into a NumPy array: NumPy's own, reading the GPU array)
    assert d.tolist() == [0.0, 1.0, 2.0]
    v = xpshim.asarray(numpy.array([-numpy.inf, numpy.nan, 1.0]))
    assert numpy.nan_to_num(v, copy=False) is v and numpy.isfinite(xpshim.asnumpy(v)).all()
    with pytest.raises(ValueError, match="single dimension"):
        xpshim.put_along_axis(xpshim.zeros((2, 3)), xpshim.asarray(numpy.array([[0], [1]])), 1.0, axis=None)


def test_tuples_inside_an_index_are_sequences(gpu):
    class Key(tuple):
        pass

    a = numpy.arange(25.0).reshape(5, 5)
    g = xpshim.asarray(a)
    for key in (Key(([1], [1])), (Key(([1], [1])),), ((1, 2),), ((1, 2), slice(None))):
        assert g[key].shape == a[key].shape, key
        numpy.testing.assert_array_equal(xpshim.asnumpy(g[key]), a[key])


def test_unique_of_booleans_along_an_axis(gpu):
    b = numpy.array([[True, False], [True, False], [False, True]])
    for axis in (0, 1):
        want = numpy.unique(b, axis=axis, return_counts=True)
        got = xpshim.unique(xpshim.asarray(b), axis=axis, return_counts=True)
        for g, w in zip(got, want):
            assert xpshim.asnumpy(g).dtype == w.dtype
            numpy.testing.assert_array_equal(xpshim.asnumpy(g), w)


def test_nanvar_in_the_dtype_given_and_interp_of_complex_fp(gpu):
    m = numpy.eye(3)
    for nf, rf in ((numpy.nanvar, numpy.var), (numpy.nanstd, numpy.std), (numpy.nanmean, numpy.mean)):
        for f in (nf, rf):
            for c in "efdFD":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = rf(m, dtype=c, axis=1)
                    got = getattr(xpshim, f.__name__)(xpshim.asarray(m), dtype=c, axis=1)
                assert got.dtype == want.dtype, (f.__name__, c, got.dtype, want.dtype)
                numpy.testing.assert_allclose(xpshim.asnumpy(got), want, rtol=1e-3)
        for dt in (bool, int):
            with pytest.raises(TypeError):
                getattr(xpshim, nf.__name__)(xpshim.asarray(m), axis=1, dtype=dt)
    # (NaN among the sample points xp is a listed difference: README)
    for xs, fs in (([0, 1], [numpy.nan, 10]), ([0, 1], [0, numpy.nan]), ([0, 1, 2], [1, 2, 3]),
                   ([0, 1, 2], [numpy.inf, 2, 2])):
        for sc in (lambda v: v + 0j, lambda v: v * 1j, lambda v: v - 2j * v):
            fp = sc(numpy.array(fs, float))
            want = numpy.interp(0.5, xs, fp)
            got = xpshim.interp(0.5, xs, xpshim.asarray(fp))
            assert got.shape == numpy.shape(want)
            numpy.testing.assert_array_equal(xpshim.asnumpy(got), want)


def test_cov_weights_and_average_weights_along_axes(gpu):
    x = numpy.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0]])
    for kw in ({"fweights": numpy.array([1, -1, 2])}, {"aweights": numpy.array([1.0, -1.0, 2.0])},
               {"fweights": numpy.array([1, 2, 2]), "aweights": numpy.array([1.0, 0.5, 2.0])}):
        _same_or_same_error(lambda: numpy.cov(x, **kw),
                            lambda: xpshim.cov(xpshim.asarray(x), **{k: xpshim.asarray(v) for k, v in kw.items()}))
    y = numpy.arange(12.0).reshape(2, 2, 3)
    w = numpy.array([0., 0., 1., .5, .5, 0., 0., .5, .5, 1., 0., 0.]).reshape(2, 2, 3)
    for sub, axis in ((w[:, :, 0], (0, 1)), (w[1], (1, 2)), (w[:, 0, :], (0, 2)), (w[:, :, 0], (0, 1, 2))):
        _same_or_same_error(lambda: numpy.average(y, axis=axis, weights=sub),
                            lambda: xpshim.average(xpshim.asarray(y), axis=axis, weights=xpshim.asarray(sub)))


def test_gradient_with_spacings_given_as_lists(gpu):
    f = numpy.arange(25.0).reshape(5, 5) ** 2
    dx = [1.0, 2.0, 5.0, 9.0, 11.0]
    for spacing in ((dx, dx), (numpy.cumsum(numpy.ones(5)), 2), (1.5,)):
        want = numpy.gradient(f, *spacing)
        got = xpshim.gradient(xpshim.asarray(f), *[xpshim.asarray(s) if isinstance(s, numpy.ndarray) else s
                                                    for s in spacing])
        for g, w in zip(got, want):
            numpy.testing.assert_allclose(xpshim.asnumpy(g), w, rtol=1e-12)


def test_ediff1d_ends_given_as_numbers_and_lists(gpu):
    for arr in (numpy.array([]), numpy.array([1]), numpy.array([1, 2]), numpy.array([1.0, 4.0, 9.0])):
        for kw in ({}, {"to_begin": 0}, {"to_end": 0}, {"to_begin": -1, "to_end": 0}, {"to_begin": [5, 6], "to_end": [7, 8]},
                   {"to_begin": numpy.nan}, {"to_end": [7.5]}):
            _same_or_same_error(lambda: numpy.ediff1d(arr, **kw), lambda: xpshim.ediff1d(xpshim.asarray(arr), **kw))


def test_numpy_2_5_deprecations_and_i0_of_complex(gpu):
    a = numpy.array([[1, 2], [3, 4]])
    g = xpshim.asarray(a)
    if tuple(int(v) for v in numpy.__version__.split(".")[:2]) >= (2, 5):
        with pytest.warns(DeprecationWarning, match="not an integer type has been deprecated"):
            r = xpshim.rot90(g, k=2.25)
        with pytest.warns(DeprecationWarning, match="numpy.fix is deprecated"):
            xpshim.fix(g)
    else:
        r = xpshim.rot90(g, k=2)
    numpy.testing.assert_array_equal(xpshim.asnumpy(r), numpy.rot90(a, k=2))
    with pytest.raises(TypeError):
        xpshim.i0(xpshim.asarray(numpy.array([1 + 1j])))
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.i0(xpshim.asarray(numpy.array([0.5, 2.0])))),
                                  numpy.i0(numpy.array([0.5, 2.0])), rtol=1e-12)
    for shape in ((0, 3), (3, 0), (0, 0)):
        _same_or_same_error(lambda: numpy.linalg.matrix_rank(numpy.zeros(shape)),
                            lambda: xpshim.linalg.matrix_rank(xpshim.zeros(shape)))


def test_numpy_nan_to_num_runs_as_xpshims_only_where_it_writes(gpu):
    v = xpshim.asarray(numpy.array([-numpy.inf, 1.0]))
    r = numpy.nan_to_num(v)  # (copy=True: NumPy's own code, on a host copy)
    assert type(r) is numpy.ndarray and numpy.isfinite(r).all() and not numpy.isfinite(xpshim.asnumpy(v)).all()
    assert numpy.nan_to_num(v, False) is v and numpy.isfinite(xpshim.asnumpy(v)).all()


def test_points_a_review_found(gpu):
    g = xpshim.asarray(numpy.arange(6.0))
    assert xpshim.asnumpy(g[numpy.ma.array([1, 2])]).tolist() == [1.0, 2.0]  # (a NumPy subclass as a key)
    v = xpshim.asarray(numpy.array([numpy.nan, 1.0]))
    assert numpy.nan_to_num(x=v, copy=False) is v  # (the argument written into, by keyword)
    assert xpshim.array_equal("ab", "ab") is numpy.array_equal("ab", "ab")
    assert xpshim.array_equal(None, v) is False
    m = xpshim.asarray(numpy.eye(3))
    numpy.testing.assert_allclose(xpshim.asnumpy(xpshim.linalg.norm(m, axis=1.0)), numpy.linalg.norm(numpy.eye(3), axis=1))
    numpy.testing.assert_array_equal(xpshim.asnumpy(xpshim.flip(m, axis=xpshim.asarray(numpy.array([0, 1])))),
                                     numpy.flip(numpy.eye(3), axis=(0, 1)))
    fp = numpy.array([1 + 1j, 2 + 0j, numpy.nan + 3j])
    numpy.testing.assert_array_equal(xpshim.asnumpy(xpshim.interp(xpshim.asarray(numpy.array([0.5, 1.5])), [0, 1, 2],
                                                                  fp=xpshim.asarray(fp))),
                                     numpy.interp([0.5, 1.5], [0, 1, 2], fp=fp))


# searchsorted's side: NumPy refuses any but "left" and "right" (bytes too, its converter reads
# them); CuPy's reads any but "right" as "left", unchecked (cupy/_sorting/search.py, _searchsorted)
SIDES = ["left", "right", "lft", "LEFT", "Right", "r", "", 0, 1, None, b"left", b"right", b"lft",
         numpy.str_("right"), 1.5, ["left"]]


@pytest.fixture
def cupys_side(gpu, monkeypatch):
    """On the stand-in, the backend's searchsorted reading side as CuPy's does (on a GPU, CuPy's own)."""
    if gpu == "fake":
        xp = xpshim._backend.xp
        real_f, real_m = xp.searchsorted, xp.ndarray.searchsorted

        def as_cupy(a, v, side="left", sorter=None):
            return real_f(a, v, "right" if side == "right" else "left", sorter)

        def as_cupy_method(self, v, side="left", sorter=None):
            return real_m(self, v, "right" if side == "right" else "left", sorter)

        monkeypatch.setattr(xp, "searchsorted", as_cupy)
        monkeypatch.setattr(xp.ndarray, "searchsorted", as_cupy_method)
    return gpu


@pytest.mark.parametrize("by", ["position", "keyword"])
@pytest.mark.parametrize("side", SIDES, ids=repr)
def test_searchsorted_reads_side_as_numpy(cupys_side, side, by):
    a, v = numpy.array([1.0, 2.0, 2.0, 3.0]), numpy.array([2.0, 0.5, 3.0])
    g, gv = xpshim.asarray(a), xpshim.asarray(v)
    kw = {"side": side} if by == "keyword" else {}
    pos = (side,) if by == "position" else ()
    for f_np, f_xp in [(lambda: numpy.searchsorted(a, v, *pos, **kw), lambda: xpshim.searchsorted(g, gv, *pos, **kw)),
                       (lambda: a.searchsorted(v, *pos, **kw), lambda: g.searchsorted(gv, *pos, **kw))]:
        try:
            want = f_np()
        except Exception as e:
            with pytest.raises(type(e), match=str(e)[:30]):
                f_xp()
            continue
        numpy.testing.assert_array_equal(xpshim.asnumpy(f_xp()), want)
