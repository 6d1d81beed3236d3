"""The host fast paths (xpshim/_hostfast.py) give NumPy's result to the bit: values, dtype, shape,
strides and type, and NumPy's error for every case they hand back."""

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xpshim
from xpshim import _hostfast

DTYPES = [numpy.float64, numpy.float32, numpy.float16, numpy.longdouble, numpy.int64, numpy.int8, numpy.uint16,
          numpy.bool_, numpy.complex128, numpy.complex64]


def _bits_equal(got, want):
    got, want = numpy.asarray(got), numpy.asarray(want)
    assert got.dtype == want.dtype
    if got.dtype in (numpy.longdouble, numpy.clongdouble):  # 80-bit values padded with unset bytes
        assert numpy.array_equal(got, want, equal_nan=True)
        assert numpy.array_equal(numpy.signbit(got.real), numpy.signbit(want.real))
    else:
        assert got.tobytes() == want.tobytes()


def _same(got, want):
    assert type(got) is type(want)
    if isinstance(want, numpy.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
        assert got.flags.c_contiguous == want.flags.c_contiguous and got.flags.f_contiguous == want.flags.f_contiguous
    _bits_equal(got, want)


def _same_or_same_error(f, g):
    try:
        want = f()
    except Exception as e:  # noqa: BLE001 (the error NumPy raises is the expected result)
        with pytest.raises(type(e)) as got:
            g()
        assert str(got.value) == str(e)
        return
    _same(g(), want)


@st.composite
def arrays(draw, dtypes=DTYPES):
    """Arrays of up to 3 dimensions, C-ordered, Fortran-ordered, strided or reversed."""
    dt = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    a = draw(hnp.arrays(dt, shape, elements=hnp.from_dtype(numpy.dtype(dt), allow_nan=True, allow_infinity=True)
                        if numpy.dtype(dt).kind != "f" or dt is not numpy.longdouble
                        else st.floats(-1e6, 1e6)))
    layout = draw(st.sampled_from(["C", "F", "step", "reversed"]))
    if layout == "F":
        a = numpy.asfortranarray(a)
    elif layout == "step" and a.ndim:
        a = numpy.repeat(a, 2, axis=0)[::2]
    elif layout == "reversed" and a.ndim:
        a = a[::-1]
    return a


@settings(max_examples=300, deadline=None)
@given(a=arrays(), shift=st.one_of(st.integers(-20, 20), st.just(2**40), st.booleans(),
                                   st.integers(-3, 3).map(numpy.int64)),
       axis=st.one_of(st.integers(-4, 4), st.none(), st.just((0,)), st.integers(0, 2).map(numpy.intp)))
def test_roll_is_numpys(a, shift, axis):
    _same_or_same_error(lambda: numpy.roll(a, shift, axis=axis), lambda: xpshim.roll(a, shift, axis=axis))
    _same_or_same_error(lambda: numpy.roll(a, shift, axis), lambda: xpshim.roll(a, shift, axis))
    impl = numpy.roll._implementation
    _same_or_same_error(lambda: numpy.roll(a, shift, axis), lambda: _hostfast.fast("xpshim.roll", impl)(a, shift, axis))


@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("layout", ["C", "F", "step", "reversed"])
def test_roll_every_shift_and_axis_of_distinct_values(shape, layout):
    a = numpy.arange(numpy.prod(shape), dtype=numpy.float64).reshape(shape)
    a = {"C": a, "F": numpy.asfortranarray(a), "step": numpy.repeat(a, 2, axis=0)[::2], "reversed": a[::-1]}[layout]
    for axis in range(-a.ndim - 1, a.ndim + 1):
        n = a.shape[axis] if -a.ndim <= axis < a.ndim else 1
        for shift in range(-2 * n - 1, 2 * n + 2):
            _same_or_same_error(lambda: numpy.roll(a, shift, axis=axis), lambda: xpshim.roll(a, shift, axis=axis))


def test_roll_of_a_nested_roll_as_game_of_life_uses_it():
    board = numpy.random.default_rng(1).integers(0, 2, (64, 64))
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            _same(xpshim.roll(xpshim.roll(board, i, axis=0), j, axis=1), numpy.roll(numpy.roll(board, i, axis=0), j, axis=1))


def test_roll_fast_path_is_taken():
    # A fast path that always handed back to NumPy would pass the tests above: this one fails then.
    calls = []

    def impl(*args):
        calls.append(args)
        return numpy.roll._implementation(*args)

    f = _hostfast.fast("xpshim.roll", impl)
    f(numpy.arange(5), 2, 0)
    f(numpy.arange(5), 2, -1)
    assert calls == []
    f(numpy.arange(5), 2)  # axis=None: NumPy's
    assert len(calls) == 1


@settings(max_examples=300, deadline=None)
@given(a=arrays(), ord=st.sampled_from([None, None, None, 2, 1, numpy.inf, "fro"]),
       axis=st.sampled_from([None, None, 0, -1, (0, 1)]), keepdims=st.sampled_from([False, True, 0]))
def test_norm_is_numpys(a, ord, axis, keepdims):
    with numpy.errstate(all="ignore"):
        _same_or_same_error(lambda: numpy.linalg.norm(a), lambda: xpshim.linalg.norm(a))
        _same_or_same_error(lambda: numpy.linalg.norm(a, ord, axis, keepdims),
                            lambda: xpshim.linalg.norm(a, ord, axis, keepdims))
        _same_or_same_error(lambda: numpy.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims),
                            lambda: xpshim.linalg.norm(a, ord=ord, axis=axis, keepdims=keepdims))


def test_norm_fast_path_is_taken():
    calls = []

    def impl(*args):
        calls.append(args)
        return numpy.linalg.norm._implementation(*args)

    f = _hostfast.fast("xpshim.linalg.norm", impl)
    for a in (numpy.arange(5.0), numpy.ones((3, 4), numpy.float32).T):
        _same(f(a), numpy.linalg.norm(a))
    assert calls == []
    _same(f(numpy.arange(5)), numpy.linalg.norm(numpy.arange(5)))  # integers: NumPy's
    _same(f(numpy.arange(5.0), 1), numpy.linalg.norm(numpy.arange(5.0), 1))
    assert len(calls) == 2


def test_names_without_a_fast_path_get_numpys_implementation():
    impl = numpy.sum._implementation
    assert _hostfast.fast("xpshim.sum", impl) is impl
    assert set(_hostfast.FAST) <= {f"xpshim.{n}" for n in ("roll", "linalg.norm")}
