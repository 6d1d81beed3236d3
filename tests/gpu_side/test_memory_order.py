"""A new answer's memory order is NumPy's: of F-ordered operands, elementwise work answers
F-ordered, as NumPy's order='K' does (CuPy's ufuncs and ElementwiseKernels answer C order:
``_ndarray.keep_order``).

Generated over every elementwise ufunc of the installed NumPy (called as a function), every
operator, and the elementwise functions and methods that are not ufuncs (``_registry.KEEPS_ORDER``):
on a transposed array and on ``asfortranarray`` data, the answer's strides and flags are NumPy's on
the same data, and so are its values. Operands of other orders (C, mixed, broadcast) keep CuPy's
C order where NumPy's differs only in layout: not tested here (docs/differences.md).
"""

import operator
import warnings

import numpy
import pytest

import xpshim
from xpshim._errors import FallbackWarning
from xpshim._registry import KEEPS_ORDER

UFUNCS = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and getattr(numpy, n).signature is None)
OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "eq", "neg", "abs", "pos"]
METHODS = sorted(n for n in KEEPS_ORDER if hasattr(numpy.ndarray, n))
FUNCTIONS = sorted(n for n in KEEPS_ORDER if hasattr(numpy, n) and not isinstance(getattr(numpy, n), numpy.ufunc))


def _operand(layout, dt="float64"):
    h = (numpy.arange(24) % 5 + 1).astype(dt).reshape(2, 3, 4)
    return h.T if layout == "transposed" else numpy.asfortranarray(h)


def _layout(r):
    return (r.shape, r.dtype, r.strides, r.flags.c_contiguous, r.flags.f_contiguous)


def _compare(got, want):
    for g, w in zip(got, want) if type(want) is tuple else ((got, want),):
        assert _layout(g) == _layout(w), (_layout(g), _layout(w))
        h = xpshim.asnumpy(g)
        if w.dtype.kind in "fc":
            numpy.testing.assert_allclose(h, w, rtol=1e-12, equal_nan=True)
        else:
            numpy.testing.assert_array_equal(h, w)


def _both(f_np, f_x, hs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", FallbackWarning)
        try:
            want = f_np(*hs)
        except Exception as e:
            pytest.skip(f"NumPy refuses it: {type(e).__name__}")
        got = f_x(*[xpshim.asarray(h) for h in hs])
    return got, want


def _dtype_for(u):
    for dt in ("float64", "int64", "bool"):
        if any(t.split("->")[0] == numpy.dtype(dt).char * u.nin for t in u.types):
            return dt
    return None


@pytest.mark.parametrize("layout", ["transposed", "fortran"])
@pytest.mark.parametrize("name", UFUNCS)
def test_a_ufunc_answers_in_its_operands_order(gpu, name, layout):
    u = getattr(numpy, name)
    dt = _dtype_for(u)
    if dt is None:
        pytest.skip(f"{name} has no float64, int64 or bool loop")
    hs = [_operand(layout, dt) for _ in range(u.nin)]
    got, want = _both(u, getattr(xpshim, name), hs)
    _compare(got, want)


@pytest.mark.parametrize("layout", ["transposed", "fortran"])
@pytest.mark.parametrize("name", OPERATORS)
def test_an_operator_answers_in_its_operands_order(gpu, name, layout):
    op = getattr(operator, name)
    unary = name in ("neg", "abs", "pos")
    hs = [_operand(layout)] if unary else [_operand(layout), _operand(layout)]
    got, want = _both(op, op, hs)
    _compare(got, want)
    if not unary:  # (and beside a number, on either side)
        _compare(*_both(lambda h: op(h, 2.0), lambda x: op(x, 2.0), hs[:1]))
        _compare(*_both(lambda h: op(2.0, h), lambda x: op(2.0, x), hs[:1]))


@pytest.mark.parametrize("layout", ["transposed", "fortran"])
@pytest.mark.parametrize("name", METHODS)
def test_an_elementwise_method_answers_in_its_arrays_order(gpu, name, layout):
    args = {"clip": (1, 3)}.get(name, ())
    _compare(*_both(lambda h: getattr(h, name)(*args), lambda x: getattr(x, name)(*args), [_operand(layout)]))


@pytest.mark.parametrize("layout", ["transposed", "fortran"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_an_elementwise_function_answers_in_its_arrays_order(gpu, name, layout):
    args = {"clip": (1, 3)}.get(name, ())
    _compare(*_both(lambda h: getattr(numpy, name)(h, *args), lambda x: getattr(xpshim, name)(x, *args),
                    [_operand(layout)]))


def test_c_ordered_operands_answer_c_order(gpu):
    h = numpy.arange(24.0).reshape(2, 3, 4)
    _compare(*_both(lambda a: numpy.sin(a) + a, lambda x: xpshim.sin(x) + x, [h]))
