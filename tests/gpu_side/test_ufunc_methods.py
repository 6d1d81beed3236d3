"""ufunc.reduce / accumulate / reduceat / at for ufuncs CuPy has no such method for,
on the GPU side (the stand-in with Numba's simulator on CI; real CuPy and Numba on a
GPU), against NumPy: values, dtype, shape, and no host fallback."""

import contextlib

import numpy
import pytest

import xpshim

BINARY = ["maximum", "minimum", "fmax", "fmin", "subtract", "true_divide", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "arctan2", "hypot", "power",
          "floor_divide", "remainder", "fmod", "left_shift", "right_shift", "logaddexp", "logaddexp2",
          "heaviside", "float_power", "equal", "less",
          "gcd", "lcm", "nextafter", "copysign"]  # (the first two reduce by composition, the last two by kernel or CuPy steps)
FLOAT_ONLY = {"true_divide", "arctan2", "hypot", "logaddexp", "logaddexp2", "heaviside", "nextafter", "copysign"}
INT_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"}
BOOL_ONLY = {"equal", "less"}
SMALL = {"power": (1, 4), "left_shift": (0, 8), "right_shift": (0, 8),
         "floor_divide": (1, 50), "remainder": (1, 50), "fmod": (1, 50)}  # (no division by zero)
# NumPy's float loops for these, on CPUs where a SIMD loop takes the reduction, give
# op(a[0], a[-1]) rather than the left fold NumPy documents (power.reduce([2., 3., 2.]) is 4.0
# there): xpshim gives the left fold, and the reference for them is NumPy's ufunc applied in
# that documented order.
NOT_A_FOLD = {"power", "arctan2"}


def _data(name, dtype, shape, seed=0):
    rng = numpy.random.default_rng(seed)
    if numpy.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    if numpy.dtype(dtype).kind in "iu":
        lo, hi = SMALL.get(name, (0, 50))
        return rng.integers(lo, hi, shape).astype(dtype)
    x = (rng.random(shape) * 4 + 0.5).astype(dtype)
    if name == "heaviside" and x.size > 2:
        x.flat[::3] -= 2.5  # negative, and zero where it lands there
    if name in ("maximum", "minimum", "fmax", "fmin") and x.size > 3:
        x.flat[[1, x.size // 2]] = numpy.nan
    return x


def _dtypes(name):
    if name in FLOAT_ONLY:
        return ["float64", "float32"]
    if name in ("gcd", "lcm"):
        return ["int32", "uint8"]
    if name in INT_ONLY:
        return ["int32", "uint8", "bool"]
    if name in BOOL_ONLY:
        return ["bool"]
    if name in ("left_shift", "right_shift"):
        return ["int32", "int64"]
    if name.startswith("logical"):
        return ["bool", "float64"]
    if name == "power":
        return ["float64", "int64"]
    return ["float64", "int16"]


CASES = [(n, d) for n in BINARY for d in _dtypes(n)]


def _check(got, ref, host=False):
    if host:  # a host run hands back what NumPy does (a scalar for a full reduction)
        got = xpshim.asarray(got)
    assert type(got) is xpshim.ndarray, type(got)
    h = xpshim.asnumpy(got)
    assert h.dtype == ref.dtype and h.shape == ref.shape, (h.dtype, ref.dtype, h.shape, ref.shape)
    if ref.dtype.kind in "fc":
        numpy.testing.assert_allclose(h, ref, rtol=1e-6, atol=0, equal_nan=True)
    else:
        numpy.testing.assert_array_equal(h, ref)


def _fold(uf, h, axis=0, keepdims=False, initial=None):
    """NumPy's ufunc applied as the left fold ``reduce`` is documented to be."""
    x = numpy.moveaxis(h, axis, 0)
    acc = x[0] if initial is None else uf(numpy.asarray(initial, h.dtype), x[0]).astype(h.dtype)
    for row in x[1:]:
        acc = uf(acc, row).astype(h.dtype)
    acc = numpy.asarray(acc)
    return numpy.expand_dims(acc, axis) if keepdims else acc


def _documented(name, dtype):
    return name in NOT_A_FOLD and numpy.dtype(dtype).kind == "f"


def _no_fallback():
    assert xpshim.stats()["fallbacks"] == {}, xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name,dtype", CASES)
@pytest.mark.parametrize("shape,axis", [((17,), 0), ((6, 5), 0), ((6, 5), 1), ((3, 4, 5), -1), ((4, 1, 3), 1)])
def test_accumulate(gpu, name, dtype, shape, axis):
    h = _data(name, dtype, shape)
    ref = getattr(numpy, name).accumulate(h, axis=axis)
    d = xpshim.asarray(h)
    with numpy.errstate(all="ignore"):
        got = getattr(xpshim, name).accumulate(d, axis=axis)
    _check(got, ref)
    _check(d, h)  # the input is left as it was
    _no_fallback()


@pytest.mark.parametrize("name,dtype", CASES)
@pytest.mark.parametrize("shape,kw", [((17,), {}), ((6, 5), {"axis": 1}), ((6, 5), {"axis": None}),
                                      ((3, 4, 5), {"axis": 0, "keepdims": True}), ((7,), {"initial": 2})])
def test_reduce(gpu, name, dtype, shape, kw):
    h = _data(name, dtype, shape)
    if "initial" in kw and numpy.dtype(dtype).kind == "b":
        kw = {"initial": True}
    try:
        ref = getattr(numpy, name).reduce(h, **kw)
    except ValueError:  # axis=None of an operation NumPy will not reorder
        with pytest.raises(ValueError), pytest.warns(xpshim.FallbackWarning):
            getattr(xpshim, name).reduce(xpshim.asarray(h), **kw)
        return
    an_array = isinstance(ref, numpy.ndarray)  # (NumPy's kind of answer: a 0-d reduction's is a scalar)
    if _documented(name, dtype):
        with numpy.errstate(all="ignore"):
            ref = _fold(getattr(numpy, name), h, kw.get("axis", 0), kw.get("keepdims", False), kw.get("initial"))
    with numpy.errstate(all="ignore"):
        got = getattr(xpshim, name).reduce(xpshim.asarray(h), **kw)
    # (a reduction to 0-d is NumPy's scalar, repr np.float64(...), not a 0-d array)
    assert repr(got).startswith("array(") == an_array, repr(got)
    if numpy.ndim(ref) == 0:
        ref = numpy.asarray(ref)
    _check(got, ref)
    _no_fallback()


@pytest.mark.parametrize("name,dtype", CASES[::2])
def test_reduceat(gpu, name, dtype):
    h = _data(name, dtype, (9, 4))
    idx = [0, 3, 3, 1, 8]
    with numpy.errstate(all="ignore"):
        ref = getattr(numpy, name).reduceat(h, idx, axis=0)
        if _documented(name, dtype):
            ends = idx[1:] + [h.shape[0]]
            ref = numpy.stack([_fold(getattr(numpy, name), h[lo:hi]) if lo < hi else h[lo] for lo, hi in zip(idx, ends)])
        got = getattr(xpshim, name).reduceat(xpshim.asarray(h), idx, axis=0)
    _check(got, ref)
    _no_fallback()


@pytest.mark.parametrize("name", ["multiply", "true_divide", "power", "subtract", "maximum", "nextafter", "ldexp"])
def test_at_in_index_order(gpu, name):
    h = _data(name, "float64", (5, 4), seed=2)
    idx = ([0, 1, 1, 4, 0], [3, 2, 2, 0, 3])  # repeated positions: applied one after another
    b = numpy.array([1, 2, -1, 3, 1]) if name == "ldexp" else numpy.array([1.5, 2.0, 0.5, 3.0, 1.25])
    _at_matches(name, h, idx, b)


def _at_matches(name, h, idx, b):
    ref = h.copy()
    getattr(numpy, name).at(ref, idx, b)
    d = xpshim.asarray(h)
    getattr(xpshim, name).at(d, idx, b)
    _check(d, ref)
    _no_fallback()


def test_empty_and_errors_as_numpy(gpu):
    e = numpy.zeros((0, 3))
    _check(xpshim.logical_and.reduce(xpshim.asarray(e), axis=0), numpy.logical_and.reduce(e, axis=0))
    _check(xpshim.maximum.accumulate(xpshim.asarray(e), axis=0), numpy.maximum.accumulate(e, axis=0))
    with pytest.raises(ValueError):
        numpy.maximum.reduce(e, axis=0)
    with pytest.raises(ValueError):
        xpshim.maximum.reduce(xpshim.asarray(e), axis=0)  # no identity: NumPy's error (from the host run)
    with pytest.raises(IndexError), pytest.warns(xpshim.FallbackWarning):
        xpshim.subtract.reduceat(xpshim.asarray(numpy.ones(4)), [0, 9])


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_integer_at_in_index_order(gpu, name):
    _at_matches(name, numpy.array([12, 18, 7, 30, 1, 45], numpy.int64), [0, 3, 0, 5, 0, 3],
                numpy.array([8, 4, 6, 10, 3, 9]))


def test_type_errors_without_moving_data(gpu):
    """Where NumPy has no loop for the dtypes, its TypeError comes from a one-element probe."""
    d = xpshim.asarray(numpy.arange(4.0))
    for f in (lambda m: m.ldexp.reduce, lambda m: m.ldexp.accumulate, lambda m: m.less.reduce):
        with pytest.raises(TypeError) as want:
            f(numpy)(numpy.arange(4.0))
        with pytest.raises(TypeError) as got:
            f(xpshim)(d)
        assert str(got.value) == str(want.value)
    assert xpshim.stats()["transfers"]["device_to_host"]["count"] == 0
    _no_fallback()


def test_numpy_left_fold_reference():
    """The reference the NOT_A_FOLD cases use is NumPy's own where NumPy folds (integers)."""
    h = numpy.array([[2, 3, 2], [1, 2, 3]], numpy.int64)
    numpy.testing.assert_array_equal(_fold(numpy.power, h, 1), numpy.power.reduce(h, axis=1))


def test_long_single_lane_fold_runs_on_the_host_visibly(gpu):
    """One lane over a long axis: the host is faster than a one-thread fold (a warned fallback)."""
    h = _data("subtract", "float64", (1 << 14,))
    with pytest.warns(xpshim.FallbackWarning, match="faster on the host"):
        got = xpshim.subtract.accumulate(xpshim.asarray(h))
    _check(got, numpy.subtract.accumulate(h))
    assert xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("name,dtype,vdtype", [("subtract", "float32", "float64"), ("true_divide", "float64", "float64"),
                                              ("maximum", "float64", "float64"), ("subtract", "int16", "int16")])
def test_at_many_updates_in_order(gpu, name, dtype, vdtype):
    """Many repeated positions in random order: each position's updates in NumPy's order, and a's
    dtype rounding every update (float32 a, float64 values)."""
    rng = numpy.random.default_rng(5)
    h = (rng.random(300) + 0.5).astype(dtype) if dtype[0] == "f" else rng.integers(-50, 50, 300).astype(dtype)
    idx = rng.integers(0, 300, 5000)
    b = (rng.random(5000) + 0.5).astype(vdtype) if vdtype[0] == "f" else rng.integers(-9, 9, 5000).astype(vdtype)
    _at_matches(name, h, idx, b)


@pytest.mark.parametrize("name,dtype", [("add", "int64"), ("maximum", "float64"), ("bitwise_xor", "int32")])
def test_at_long_runs_of_an_associative_ufunc(gpu, name, dtype):
    """20000 updates to 3 positions: cut into chunks folded in parallel, the same as NumPy's."""
    rng = numpy.random.default_rng(6)
    h = rng.integers(0, 9, 3).astype(dtype)
    b = rng.integers(-1000, 1000, 20000).astype(dtype)
    if dtype[0] == "f":
        b[rng.integers(0, 20000, 5)] = numpy.nan
    _at_matches(name, h, rng.integers(0, 3, 20000), b)


def test_at_long_runs_in_order_run_on_the_host_visibly(gpu):
    """A non-associative ``at`` of 20000 updates to 2 positions: a warned host run, NumPy's result."""
    h = numpy.array([1.0, 2.0])
    idx, b = numpy.random.default_rng(7).integers(0, 2, 20000), numpy.full(20000, 1.0001)
    ref = h.copy()
    numpy.subtract.at(ref, idx, b)
    d = xpshim.asarray(h)
    with pytest.warns(xpshim.FallbackWarning, match="faster on the host"):
        xpshim.subtract.at(d, idx, b)
    _check(d, ref)
