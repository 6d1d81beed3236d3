"""The machinery of the differential suite: input strategies, and the comparison of an
xpshim result with NumPy's (dtype, shape, values within a per-dtype tolerance, and the
exception class when NumPy raises)."""

import warnings

import numpy
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xpshim

NUMERIC = [numpy.dtype(c) for c in "?bhilBHILefdFD"]
FLOATS = [numpy.dtype(c) for c in "efd"]
COMPLEX = [numpy.dtype(c) for c in "FD"]
INTS = [numpy.dtype(c) for c in "bhilBHIL"]


def elements(dtype, lo=None, hi=None, specials=True):
    """Values for ``dtype``: the full range with NaN, ±inf, -0.0 and subnormals by default."""
    if dtype.kind == "f":
        bounded = lo is not None
        # no float32 subnormals: the GPU flushes them to zero (divergences.INPUTS)
        return st.floats(lo, hi, width=8 * dtype.itemsize, allow_nan=specials and not bounded,
                         allow_infinity=specials and not bounded,
                         allow_subnormal=specials and (not bounded or lo <= 0 <= hi) and dtype.itemsize != 4)
    if dtype.kind == "c":
        part = elements(numpy.dtype(f"f{dtype.itemsize // 2}"), lo, hi, specials)
        return st.builds(complex, part, part)
    if dtype.kind == "b":
        return st.booleans()
    info = numpy.iinfo(dtype)
    return st.integers(max(info.min, lo if lo is not None else info.min), min(info.max, hi if hi is not None else info.max))


class Arr:
    """A generated input: a base array and a view applied the same way on both sides,
    so GPU arrays too are non-contiguous or negative-stride when the NumPy one is."""

    __slots__ = ("base", "view")

    def __init__(self, base, view):
        self.base, self.view = base, view

    def np(self):
        return _VIEWS[self.view](self.base.copy())

    def xp(self):
        return _VIEWS[self.view](xpshim.asarray(self.base))

    def __repr__(self):
        return f"Arr({self.base!r}, view={self.view!r})"


_VIEWS = {
    "plain": lambda a: a,
    "reversed": lambda a: a[..., ::-1] if a.ndim else a,
    "strided": lambda a: a[..., ::2] if a.ndim else a,
    "transposed": lambda a: a.T,
}


def arrays(dtype, shape=None, views=True, **el):
    """Arr cases of ``dtype``: shapes with 0 to 3 dimensions, empty and 0-d included."""
    shape = shape if shape is not None else hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
    base = hnp.arrays(dtype, shape, elements=elements(dtype, **el))
    kinds = st.sampled_from(sorted(_VIEWS)) if views else st.just("plain")
    return st.builds(Arr, base, kinds)


def host(x):
    if isinstance(x, (tuple, list)):
        return type(x)(host(v) for v in x)
    if isinstance(x, xpshim.ndarray) and not isinstance(x, numpy.ndarray):
        return xpshim.asnumpy(x)
    return x


def _ulp_close(got, want, ulp):
    nan_w, nan_g = numpy.isnan(want), numpy.isnan(got)
    if not numpy.array_equal(nan_w, nan_g):
        return False, "NaN positions differ"
    fin = numpy.isfinite(want)
    if not numpy.array_equal(got[~fin & ~nan_w], want[~fin & ~nan_w]):
        return False, "infinities differ"
    g, w = got[fin].astype(numpy.float64 if want.dtype.itemsize <= 8 else want.dtype), want[fin]
    tol = ulp * numpy.spacing(numpy.abs(w).astype(want.dtype)).astype(g.dtype)
    bad = numpy.abs(g - w.astype(g.dtype)) > tol
    if bad.any():
        i = numpy.argmax(bad)
        return False, f"{int(bad.sum())} values beyond {ulp} ulp, e.g. got {g[i]!r} want {w[i]!r}"
    return True, ""


_TINY32 = numpy.finfo(numpy.float32).tiny


def _unflush(got, want):
    """``got`` with the float32 results that NumPy gives as subnormals and the GPU flushed
    (to zero, or to the smallest normal from nextafter-based code) taken as NumPy's:
    CuPy compiles its kernels with flush-to-zero (divergences.INPUTS)."""
    sub = (want != 0) & (numpy.abs(want) < _TINY32)
    flushed = sub & (numpy.abs(got) <= _TINY32) & ((got == 0) | (numpy.signbit(got) == numpy.signbit(want)))
    if not flushed.any():
        return got
    got = got.copy()
    got[flushed] = want[flushed]
    return got


def assert_same(got, want, ulp=0, rtol=None, atol=0.0, check_dtype=True, where="", signed_zeros=True, norm=False):
    """xpshim's ``got`` equals NumPy's ``want``: dtype, shape, then values.

    ``ulp``: allowed units in the last place for floats (0: exact, signed zeros included);
    ``rtol``/``atol``: a relative tolerance instead (reductions, linear algebra);
    ``norm``: errors measured against the largest magnitude in the result (transforms and
    products, whose error bounds are norm-wise: a zero there carries the others' rounding);
    ``signed_zeros=False``: the sign of a zero is not compared (where NumPy leaves it unspecified).
    """
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{where}: sequence results differ: {type(got)}"
        for g, w in zip(got, want):
            assert_same(g, w, ulp, rtol, atol, check_dtype, where, signed_zeros, norm)
        return
    if isinstance(want, (numpy.dtype, type, bool, str)) or want is None:
        assert got == want, f"{where}: {got!r} != NumPy's {want!r}"
        return
    got = numpy.asarray(host(got))
    want = numpy.asarray(want)
    if check_dtype:
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != NumPy's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != NumPy's {want.shape}"
    if want.dtype.kind in "biuSUV?" or want.size == 0:
        assert numpy.array_equal(got, want), f"{where}: values differ\n got {got!r}\nwant {want!r}"
        return
    if want.dtype.kind == "c":
        if norm and rtol is not None:  # one scale for both parts: the transform's
            fin = numpy.abs(want[numpy.isfinite(want)])
            atol, norm = max(atol, rtol * float(fin.max())) if fin.size else atol, False
        for part in ("real", "imag"):
            assert_same(getattr(got, part), getattr(want, part), max(ulp, 2), rtol, atol, check_dtype, where + f" ({part})",
                        signed_zeros, norm)
        return
    if want.dtype == numpy.float32 and got.dtype == numpy.float32:
        got = _unflush(got, want)
    if rtol is not None:
        if norm:
            fin = numpy.abs(want[numpy.isfinite(want)])
            atol = max(atol, rtol * float(fin.max())) if fin.size else atol
        numpy.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        return
    if ulp == 0:
        nan = numpy.isnan(got) & numpy.isnan(want)
        same = (got == want) | nan
        sign = (numpy.signbit(got) == numpy.signbit(want)) | nan  # a NaN's sign bit carries no meaning
        if not signed_zeros:
            sign |= (got == 0) & (want == 0)
        assert same.all() and sign.all(), f"{where}: values differ (exact)\n got {got!r}\nwant {want!r}"
        return
    ok, why = _ulp_close(got, want, ulp)
    assert ok, f"{where}: {why}\n got {got!r}\nwant {want!r}"


def run_both(np_call, xp_call):
    """(numpy result or exception, xpshim result or exception), warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with numpy.errstate(all="ignore"):
            try:
                want = np_call()
            except Exception as e:  # the reference raised: xpshim must raise the same class
                want = e
            try:
                got = xp_call()
            except Exception as e:
                got = e
    return got, want


def check(np_call, xp_call, where, **tol):
    got, want = run_both(np_call, xp_call)
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"{where}: NumPy raised {type(want).__name__}: {want}; xpshim returned {got!r}"
        assert isinstance(got, type(want)) or isinstance(got, _family(want)), (
            f"{where}: NumPy raised {type(want).__name__}, xpshim raised {type(got).__name__}: {got}")
        return
    if isinstance(got, Exception):
        raise AssertionError(f"{where}: xpshim raised {type(got).__name__}: {got}; NumPy returned {want!r}") from got
    assert_same(got, want, where=where, **tol)


def _family(e):
    # NumPy's own subclasses (AxisError, UFuncTypeError, LinAlgError) have plain parents
    # that another library may raise instead: accept those parents.
    return tuple(c for c in type(e).__mro__ if c in (TypeError, ValueError, IndexError))
