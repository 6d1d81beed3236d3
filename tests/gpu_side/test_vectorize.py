"""xpshim.numba_vectorize against NumPy: the same scalar function, on the CPU (Numba's CPU
ufunc) and on GPU arrays (a Numba CUDA kernel: the simulator over the stand-in, or a real GPU)."""

import math
import warnings

import numpy
import pytest

import xpshim as np
from conftest import transfers
from xpshim import _kernels

pytest.importorskip("numba")


def lin(a, b):
    return a * 2 + b


def dist(a, b):
    return a - b if a > b else b - a


def hyp(a, b):
    return math.sqrt(a * a + b * b)


# the scalar function, and a NumPy reference of the same function on loop-dtype arrays
CASES = {
    "lin": (lin, lambda a, b: a * 2 + b),
    "dist": (dist, lambda a, b: numpy.where(a > b, a - b, b - a)),
    "hyp": (hyp, lambda a, b: numpy.sqrt(a * a + b * b)),
}
SIGS = ["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)"]


def reference(name, u, a, b):
    """NumPy's result for ``u(a, b)``: the reference function on the loop's dtypes."""
    ins = u.cpu().ufunc.resolve_dtypes((numpy.asarray(a).dtype, numpy.asarray(b).dtype, None))
    with numpy.errstate(all="ignore"):
        r = CASES[name][1](numpy.asarray(a, ins[0]), numpy.asarray(b, ins[1]))
    return numpy.asarray(r).astype(ins[2])


def check(got, want):
    got = np.asnumpy(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        numpy.testing.assert_allclose(got, want, rtol=2e-6 if want.dtype == numpy.float32 else 1e-12)
    else:
        numpy.testing.assert_array_equal(got, want)


def inputs(dtype):
    rng = numpy.random.default_rng(0)
    a = (rng.random((6, 8)) * 20 - 10).astype(dtype)
    b = (rng.random((6, 8)) * 20 - 10).astype(dtype)
    return a, b


LAYOUTS = {  # (a, b) -> operands of one call
    "same": lambda a, b: (a, b),
    "broadcast": lambda a, b: (a[:, :1], b[0]),
    "strided": lambda a, b: (a[::2, 1::3], b.T[1:7:2, ::2]),
    "zero-d": lambda a, b: (a[2, 3], b[1, 1]),
    "empty": lambda a, b: (a[:0], b[:0]),
}


def test_numpy_vectorize_is_numpys():
    assert np.vectorize is numpy.vectorize
    assert "numba_vectorize" in dir(np)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_cpu_matches_numpy(name, dtype, layout):
    u = np.numba_vectorize(SIGS)(CASES[name][0])
    a, b = LAYOUTS[layout](*inputs(dtype))
    r = u(a, b)
    assert type(r) in (numpy.ndarray, numpy.dtype(r.dtype).type)
    check(r, reference(name, u, a, b))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_gpu_matches_numpy(gpu, name, dtype, layout):
    u = np.numba_vectorize(SIGS)(CASES[name][0])
    ha, hb = LAYOUTS[layout](*inputs(dtype))
    da, db = LAYOUTS[layout](*[np.asarray(x) for x in inputs(dtype)])
    np.reset_stats()
    r = u(da, db)
    assert transfers() == 0  # computed where the arrays are
    assert isinstance(r, np.ndarray) and np.get_device(r) == "gpu"
    want = reference(name, u, ha, hb)
    check(r, want)
    check(u(ha, hb), want)  # the CPU ufunc agrees


def test_lazy_signatures_follow_the_cpu_ufunc(gpu):
    u = np.numba_vectorize(lin)  # no signatures: a loop per argument types, as numba.vectorize
    x = numpy.arange(6, dtype=numpy.int32).reshape(2, 3)
    for a, b in [(x, 3), (x, 1.5), (x.astype(numpy.float32), numpy.float32(2)), (x > 2, True)]:
        got = u(np.asarray(a), b)
        want = u(a, b)  # the CPU ufunc, same loops
        assert np.asnumpy(got).dtype == numpy.asarray(want).dtype
        numpy.testing.assert_array_equal(np.asnumpy(got), want)
        numpy.testing.assert_array_equal(want, lin(a, b))  # and NumPy's own arithmetic


def test_decorator_forms_and_attributes():
    @np.numba_vectorize
    def f(a, b):
        return a + b

    @np.numba_vectorize("float64(float64, float64)")
    def g(a, b):
        return a + b

    @np.numba_vectorize(["float64(float64)"], identity=0)
    def h(a):
        return -a

    assert f.__name__ == "f" and f.nin == 2 and g.types == ["dd->d"] and h.nin == 1
    assert f(1, 2) == 3 and g(1, 2) == 3.0 and h(2.0) == -2.0
    assert g.reduce(numpy.arange(5.0)) == 10.0
    with pytest.raises(TypeError, match="target"):
        np.numba_vectorize(target="cuda")(lin)
    with pytest.raises(TypeError):
        g(numpy.zeros(2, complex), 1)  # no loop for it, as numba.vectorize


def test_scalars_and_host_arguments(gpu):
    u = np.numba_vectorize(SIGS)(lin)
    d = np.asarray(numpy.arange(5.0))
    np.reset_stats()
    check(u(d, 2), numpy.arange(5.0) * 2 + 2)
    check(u(1.5, d), 1.5 * 2 + numpy.arange(5.0))
    check(u(d, numpy.float64(1)), numpy.arange(5.0) * 2 + 1)
    assert transfers() == 3  # the three results read back by the checks, nothing else
    np.reset_stats()
    r = u(d, numpy.ones(5))  # a host array mixed in is copied over, once
    s = np.stats()["transfers"]
    assert s["host_to_device"]["count"] == 1 and s["device_to_host"]["count"] == 0
    check(r, numpy.arange(5.0) * 2 + 1)
    r = u([[1.0], [2.0]], d)  # a list too
    check(r, numpy.array([[1.0], [2.0]]) * 2 + numpy.arange(5.0))


def test_out_argument(gpu):
    u = np.numba_vectorize(SIGS)(lin)
    a, b = inputs("float64")
    da, db = np.asarray(a), np.asarray(b)
    out = np.zeros((6, 8))
    assert u(da, db, out=out) is out
    check(out, a * 2 + b)
    big = np.zeros((8, 12))
    view = big[::2, ::3][:, :3].T  # a non-contiguous view, written in place
    u(da[:4, :3].T, 1.0, out=view)
    want = numpy.zeros((8, 12))
    want[::2, ::3][:, :3].T[...] = a[:4, :3].T * 2 + 1
    check(big, want)
    f32 = np.zeros((6, 8), dtype=np.float32)  # a cast on the way out, as NumPy's same_kind
    u(da, db, out=(f32,))
    check(f32, (a * 2 + b).astype(numpy.float32))
    u(da, db, out=da)  # in place over an input
    check(da, a * 2 + b)
    x, hx = np.arange(8.0), numpy.arange(8.0)
    u(x[:-1], x[1:], out=x[1:])  # partly overlapping: read before written, as NumPy
    u(hx[:-1], hx[1:], out=hx[1:])
    check(x, hx)
    with pytest.raises(TypeError, match="same_kind"):
        u(da, db, out=np.zeros((6, 8), dtype=np.int64))
    with pytest.raises(ValueError):
        u(da, db, out=np.zeros((6, 9)))


def test_unavailable_cuda_falls_back_visibly(gpu, monkeypatch):
    def unusable():
        raise _kernels.Unavailable("numba.cuda sees no usable GPU")

    monkeypatch.setattr(_kernels, "cuda", unusable)
    u = np.numba_vectorize(SIGS)(dist)
    a, b = inputs("float64")
    with pytest.warns(np.FallbackWarning, match="no usable GPU"):
        r = u(np.asarray(a), np.asarray(b))
    assert np.get_device(r) == "gpu"
    check(r, reference("dist", u, a, b))
    assert np.stats()["fallbacks"]["numba_vectorize(dist)"]["count"] == 1
    out = np.zeros((6, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.FallbackWarning)
        assert u(np.asarray(a), b, out=out) is out
    check(out, reference("dist", u, a, b))


def test_other_keywords_and_methods_fall_back(gpu):
    u = np.numba_vectorize(SIGS)(lin)
    d = np.asarray(numpy.arange(4.0))
    with pytest.warns(np.FallbackWarning, match="casting="):
        r = u(d, 0.6, casting="unsafe", out=np.zeros(4, dtype=np.int64))
    check(r, (numpy.arange(4.0) * 2 + 0.6).astype(numpy.int64))
    with pytest.warns(np.FallbackWarning, match="reduce"):
        assert float(u.reduce(d)) == u.reduce(numpy.arange(4.0))
    assert np.stats()["fallbacks"]["numba_vectorize(lin).reduce"]["count"] == 1


def test_cuda_compile_error_falls_back(gpu, monkeypatch):
    from numba.core.errors import TypingError

    from xpshim._kernels import vectorize as kv

    def failing(*a, **k):
        raise TypingError("cannot type this on CUDA")

    monkeypatch.setattr(kv, "run", failing)
    u = np.numba_vectorize(SIGS)(lin)
    with pytest.warns(np.FallbackWarning, match="could not compile it for CUDA"):
        r = u(np.asarray(numpy.arange(3.0)), 1.0)
    check(r, numpy.arange(3.0) * 2 + 1)
