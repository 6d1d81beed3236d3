"""The ufuncs of xpshim/_exact.py against NumPy: every pair of special values (signed zeros,
infinities, NaN, subnormals, tiny and huge numbers) and random values, bit for bit (a NaN's
payload and sign aside), through the ufunc, the operators and ``out=``.

On CI the kernels' C++ runs compiled by the host's compiler (the stand-in's
ElementwiseKernel); on a GPU the same source runs through CuPy's compiler, where CUDA's
``exp``/``log1p`` may differ from the host's libm by an ulp or two (``logaddexp`` is
compared within 4 ulp there, everything else exactly)."""

import itertools
import warnings

import numpy
import pytest

import xpshim

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.5, 3.0, -7.0, 1e-3, 5e-45, -5e-45, 1e-310, 6e-8, 1e30,
           -3e38, 1e300, 65504.0, numpy.inf, -numpy.inf, numpy.nan]
FLOAT_UFUNCS = ["floor_divide", "remainder", "mod", "divmod", "logaddexp", "logaddexp2"]
COMPLEX_UFUNCS = ["divide", "true_divide", "maximum", "minimum", "fmax", "fmin"]


@pytest.fixture(autouse=True)
def _kernels_compile(request):
    """On the simulated GPU, xpshim's kernels are compiled by the host's C++ compiler; without
    one, CuPy's own ufuncs (NumPy's loops there) run, and there is no kernel to test."""
    from xpshim._simgpu import kernels

    params = getattr(request.node, "callspec", None)
    if params and params.params.get("gpu") == "fake" and not kernels.compiler():
        pytest.skip("no C++ compiler (c++ or $CXX) to build the simulated GPU's elementwise kernels")


def _values(dtype):
    with numpy.errstate(over="ignore"):
        v = numpy.array(SPECIAL, dtype=numpy.dtype(dtype).char.lower() if dtype[0] == "c" else dtype)
    return numpy.unique(v.view(numpy.dtype(f"u{v.itemsize}"))).view(v.dtype)  # distinct bit patterns


def _pairs(dtype, gpu="fake"):
    """Every pair of special values, then random ones. On a GPU, float32 and complex64
    subnormals are left out: CuPy's kernels flush them to zero (tests/differential/divergences.py)."""
    a, b = _all_pairs(dtype)
    if gpu == "cuda" and numpy.dtype(dtype).char in "fF":
        tiny = numpy.finfo(numpy.float32).tiny
        parts = lambda z: [z.real, z.imag] if z.dtype.kind == "c" else [z]  # noqa: E731
        keep = numpy.ones(a.shape, bool)
        for z in (a, b):
            for p in parts(z):
                keep &= ~((p != 0) & (numpy.abs(p) < tiny))
        a, b = a[keep], b[keep]
    return a, b


def _all_pairs(dtype):
    d = numpy.dtype(dtype)
    if d.kind == "c":
        parts = _values(d.char.lower())[::2]  # (every other value: the pairs of pairs stay few)
        z = numpy.array([complex(r, i) for r, i in itertools.product(parts, parts)], d)
    else:
        z = _values(dtype)
    a, b = numpy.meshgrid(z, z, indexing="ij")
    rng = numpy.random.default_rng(3)
    r = (rng.standard_normal((2, 2000)) * 10.0 ** rng.integers(-8, 8, (2, 2000))).astype(d.char.lower())
    if d.kind == "c":
        r = (r + 1j * rng.standard_normal((2, 2000)).astype(r.dtype)).astype(d)
    return numpy.concatenate([a.ravel(), r[0]]), numpy.concatenate([b.ravel(), r[1]])


def _same(got, want, ulps=0):
    got = numpy.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.kind == "c":
        _same(got.real, want.real, ulps)
        _same(got.imag, want.imag, ulps)
        return
    gn, wn = numpy.isnan(got), numpy.isnan(want)
    bad = gn != wn
    ok = ~gn & ~wn
    if ulps:
        with numpy.errstate(invalid="ignore"):
            close = (got == want) | (numpy.abs(got.astype(float) - want.astype(float))
                                     <= ulps * numpy.spacing(numpy.abs(want)).astype(float))
        bad |= ok & ~close
    else:
        bits = f"u{want.itemsize}"
        bad |= ok & (got.view(bits) != want.view(bits))  # signed zeros and every bit
    if bad.any():
        i = numpy.flatnonzero(bad.ravel())[:5]
        raise AssertionError(f"{bad.sum()} of {bad.size} differ, e.g. got {got.ravel()[i]} want {want.ravel()[i]}")


def _ulps(gpu, name):
    return 4 if gpu == "cuda" and name.startswith("logaddexp") else 0


def _numpy(f, *args, **kw):
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args, **kw)


def _check(got, want, ulps=0):
    if type(want) is tuple:
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            _same(xpshim.asnumpy(g), w, ulps)
    else:
        _same(xpshim.asnumpy(got), want, ulps)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", FLOAT_UFUNCS)
def test_float_ufunc_bit_for_bit(gpu, name, dtype):
    a, b = _pairs(dtype, gpu)
    want = _numpy(getattr(numpy, name), a, b)
    got = getattr(xpshim, name)(xpshim.asarray(a), xpshim.asarray(b))
    _check(got, want, _ulps(gpu, name))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", COMPLEX_UFUNCS)
def test_complex_ufunc_bit_for_bit(gpu, name, dtype):
    a, b = _pairs(dtype, gpu)
    want = _numpy(getattr(numpy, name), a, b)
    _check(getattr(xpshim, name)(xpshim.asarray(a), xpshim.asarray(b)), want)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_reciprocal_bit_for_bit(gpu, dtype):
    a, b = _pairs(dtype, gpu)
    x = numpy.concatenate([a, b])
    _check(xpshim.reciprocal(xpshim.asarray(x)), _numpy(numpy.reciprocal, x))


@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64"])
def test_operators(gpu, dtype):
    a, b = _pairs(dtype, gpu)
    da, db = xpshim.asarray(a), xpshim.asarray(b)
    _check(da / db, _numpy(numpy.true_divide, a, b))
    if dtype[0] == "f":
        _check(da // db, _numpy(numpy.floor_divide, a, b))
        _check(da % db, _numpy(numpy.remainder, a, b))
        _check(divmod(da, db), _numpy(numpy.divmod, a, b))
        _check(3.0 % db, _numpy(numpy.remainder, 3.0, b))  # reflected, with a weak Python scalar
        c = da.copy()
        c //= db
        _check(c, _numpy(numpy.floor_divide, a, b))


def test_mixed_types_scalars_and_out(gpu):
    """NumPy's loop selection: float16 with a Python float stays float16, float32 with float64
    is float64; out= of the loop's dtype is written in place, of another dtype cast into."""
    a, b = _pairs("float16", gpu)
    da = xpshim.asarray(a)
    _check(xpshim.floor_divide(da, 0.75), _numpy(numpy.floor_divide, a, 0.75))
    _check(xpshim.remainder(-2.5, da), _numpy(numpy.remainder, -2.5, a))
    a32, b64 = a.astype(numpy.float32), b.astype(numpy.float64)
    _check(xpshim.remainder(xpshim.asarray(a32), xpshim.asarray(b64)), _numpy(numpy.remainder, a32, b64))
    _check(xpshim.maximum(xpshim.asarray(a.astype(numpy.complex64)), numpy.complex128(1j)),
           _numpy(numpy.maximum, a.astype(numpy.complex64), numpy.complex128(1j)))
    out = xpshim.empty(a.shape, numpy.float16)
    r = xpshim.floor_divide(da, xpshim.asarray(b), out=out)
    assert r is out
    _check(out, _numpy(numpy.floor_divide, a, b))
    q, m = xpshim.empty(a.shape, numpy.float16), xpshim.empty(a.shape, numpy.float16)
    r = xpshim.divmod(da, xpshim.asarray(b), out=(q, m))
    assert r[0] is q and r[1] is m
    _check((q, m), _numpy(numpy.divmod, a, b))
    o32 = xpshim.empty(a.shape, numpy.float32)
    xpshim.remainder(da, xpshim.asarray(b), out=o32)
    _same(xpshim.asnumpy(o32), _numpy(numpy.remainder, a, b, out=numpy.empty(a.shape, numpy.float32)))
    ints = numpy.arange(-6, 6)
    _check(xpshim.asarray(ints) // 4, ints // 4)  # integer loops: CuPy's own, unchanged


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_the_kernel_runs_for_each_covered_loop(gpu, dtype, monkeypatch):
    """Every covered loop type reaches xpshim's kernel (a result equal to NumPy's could also
    come from CuPy's own loop, and on the stand-in always does)."""
    from xpshim import _exact

    ran = []
    real = _exact.Exact._compiled
    monkeypatch.setattr(_exact.Exact, "_compiled", lambda self: ran.append(self._name) or real(self))
    d = xpshim.asarray(numpy.ones(3, dtype))
    names = COMPLEX_UFUNCS + ["reciprocal"] if dtype[0] == "c" else FLOAT_UFUNCS
    for name in names:
        getattr(xpshim, name)(*([d] * getattr(numpy, name).nin))
    ops = [lambda: d / d] if dtype[0] == "c" else [lambda: d // d, lambda: d % d, lambda: divmod(d, d), lambda: 2.0 % d]
    for op in ops:
        op()
    assert len(ran) == len(names) + len(ops), ran
