"""Writes into NumPy arrays that a call on GPU data is given to write into land there, as NumPy's.

A NumPy array given as ``out=`` (to a ufunc, to every binary ufunc's ``reduce``, ``accumulate``,
``reduceat`` and ``outer``, with ``where=``), as ``ufunc.at``'s target, as the list that
``random.shuffle`` permutes, or as a random Generator's ``out=``, with the data on the GPU: the
result is in that NumPy array afterwards, the call answers with that very object, and where NumPy
refuses the array (its casting rule, its layout), the error is NumPy's. Generated over every
ufunc and every Generator method that takes ``out=`` in the installed NumPy; NumPy is the
reference, run on host copies of the same data.
"""

import inspect
import warnings

import numpy
import pytest

import xpshim
from xpshim._errors import FallbackWarning

# (elementwise ufuncs: the generalized ones, matmul, vecdot, ..., are routed as functions)
UFUNCS = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and getattr(numpy, n).signature is None)
BINARY = [n for n in UFUNCS if getattr(numpy, n).nin == 2 and getattr(numpy, n).nout == 1]
SINGLE_OUT = [n for n in UFUNCS if getattr(numpy, n).nout == 1]
SENTINEL = 7
NOT_A_FOLD = {"power", "arctan2"}  # (as in test_ufunc_methods.py)


def _loop(name):
    """The input dtypes of the first of NumPy's loops for ``name`` over float64, int64 or bool
    (the types NumPy has for it otherwise), or None."""
    for kinds in ("d", "l", "?"):
        for t in getattr(numpy, name).types:
            ins = t.split("->")[0]
            if set(ins) <= set(kinds + "dl?") and kinds in ins:
                return [numpy.dtype(c) for c in ins]
    return None


def _data(dt, shape, seed):
    rng = numpy.random.default_rng(seed)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(1, 4, shape).astype(dt)  # (small and nonzero: no division by zero, no overflow)
    return (rng.random(shape) * 1.5 + 0.5).astype(dt)


def _inputs(name, shape):
    dts = _loop(name)
    if dts is None:
        pytest.skip(f"NumPy's {name} has no float64, int64 or bool loop")
    return [_data(dt, shape, i) for i, dt in enumerate(dts)]


def _outcome(f):
    """(result, None) or (None, (the exception's class, its message))."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's own on the same data: log of 0, ...)
        try:
            return f(), None
        except Exception as e:
            return None, (type(e), str(e))


def _same(got, ref):
    assert got.dtype == ref.dtype and got.shape == ref.shape, (got.dtype, ref.dtype, got.shape, ref.shape)
    if ref.dtype.kind in "fc":
        numpy.testing.assert_allclose(got, ref, rtol=1e-12, atol=0, equal_nan=True)
    else:
        numpy.testing.assert_array_equal(got, ref)


# (method -> (the input's shape, its extra arguments)): each method's result shape differs
METHODS = {"reduce": ((6, 3), {"axis": 0}), "accumulate": ((6, 3), {"axis": 0}),
           "reduceat": ((6, 3), {"indices": [0, 2, 5], "axis": 0}), "outer": ((4,), {})}


def _call(u, method, xs, extra, **kw):
    if method == "reduceat":
        return u.reduceat(xs[0], extra["indices"], axis=extra["axis"], **kw)
    if method == "outer":
        return u.outer(xs[0], xs[1], **kw)
    return getattr(u, method)(xs[0], **extra, **kw)


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("name", BINARY)
def test_a_ufunc_method_writes_into_a_numpy_out(gpu, name, method):
    shape, extra = METHODS[method]
    hs = _inputs(name, shape)
    if method != "outer":
        hs = [hs[0]]
    npu, xu = getattr(numpy, name), getattr(xpshim, name)
    fresh, err = _outcome(lambda: _call(npu, method, hs, extra))
    if err is not None:
        pytest.skip(f"NumPy refuses {name}.{method} of these: {err[1][:60]}")
    ref = numpy.full(fresh.shape, SENTINEL, fresh.dtype)
    r_ref, e_ref = _outcome(lambda: _call(npu, method, hs, extra, out=ref))
    o = numpy.full(fresh.shape, SENTINEL, fresh.dtype)
    ds = [xpshim.asarray(h) for h in hs]
    assert type(ds[0]) is xpshim.ndarray
    r, e = _outcome(lambda: _call(xu, method, ds, extra, out=o))
    assert e == e_ref
    if e_ref is None:
        assert r_ref is ref and r is o  # NumPy answers with out= itself
        if getattr(numpy, name).__name__ in NOT_A_FOLD and method != "outer" and ref.dtype.kind == "f":
            # (NumPy's SIMD loop is not the left fold it documents here: test_ufunc_methods.py
            # checks xpshim's answer without out= against the fold; with out=, the same answer)
            ref = xpshim.asnumpy(_call(xu, method, ds, extra))
        _same(o, ref)


@pytest.mark.parametrize("name", BINARY)
def test_a_wider_numpy_out_sets_the_reduction_dtype_as_numpys(gpu, name):
    """out='s dtype is the computation's for reduce (NumPy: "defaults to that of out"): int8 data
    reduced into a float64 out does not wrap around."""
    h = numpy.full((40, 2), 100, numpy.int8)
    ref = numpy.zeros(2)
    r_ref, e_ref = _outcome(lambda: getattr(numpy, name).reduce(h, axis=0, out=ref))
    o = numpy.zeros(2)
    r, e = _outcome(lambda: getattr(xpshim, name).reduce(xpshim.asarray(h), axis=0, out=o))
    assert (e is None) == (e_ref is None), (e, e_ref)
    if e_ref is None:
        assert r is o
        _same(o, ref)
    else:
        assert e[0] is e_ref[0]


@pytest.mark.parametrize("name", BINARY)
def test_a_ufunc_call_keeps_numpys_casting_rule_for_a_numpy_out(gpu, name):
    """A NumPy out= of another dtype (int64 for float64 data, float32): NumPy's casting check
    (its UFuncTypeError) or its values."""
    hs = _inputs(name, (5,))
    for odt in (numpy.int64, numpy.float32, numpy.bool_):
        ref = numpy.full(5, SENTINEL, odt)
        r_ref, e_ref = _outcome(lambda: getattr(numpy, name)(*hs, out=ref))
        o = numpy.full(5, SENTINEL, odt)
        r, e = _outcome(lambda: getattr(xpshim, name)(*[xpshim.asarray(h) for h in hs], out=o))
        assert e == e_ref, odt
        if e_ref is None:
            assert r is o
            _same(o, ref)


@pytest.mark.parametrize("name", SINGLE_OUT)
def test_where_keeps_the_rest_of_a_numpy_out(gpu, name):
    u = getattr(numpy, name)
    hs = _inputs(name, (8,))
    where = numpy.arange(8) > 4
    ref = numpy.full(8, SENTINEL, u(*hs).dtype)
    with warnings.catch_warnings(record=True) as w_ref:
        warnings.simplefilter("always")
        r_ref, e_ref = _outcome(lambda: u(*hs, out=ref, where=where))
    o = numpy.full(8, SENTINEL, ref.dtype)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r, e = _outcome(lambda: getattr(xpshim, name)(*[xpshim.asarray(h) for h in hs], out=o, where=where))
    assert e == e_ref
    if e_ref is None:
        assert r is o
        _same(o, ref)
    # (no warning of NumPy's that blames the user for a where= without out=)
    said = {str(x.message)[:40] for x in w if not issubclass(x.category, FallbackWarning)}
    assert said <= {str(x.message)[:40] for x in w_ref}, said


AT_CASES = {"1-d": ((8,), lambda xp: xp.asarray(numpy.arange(40) % 8)),
            "view": ((12,), lambda xp: xp.asarray(numpy.array([0, 1, 1, 3, 0, 2]))),
            "2-d tuple": ((3, 4), lambda xp: (xp.asarray(numpy.array([0, 2, 2, 1])), xp.asarray(numpy.array([3, 0, 0, 1]))))}


@pytest.mark.parametrize("case", list(AT_CASES))
@pytest.mark.parametrize("name", BINARY)
def test_at_updates_a_numpy_target(gpu, name, case):
    """ufunc.at into a NumPy array with GPU indices and values (auto mode: the small target stays
    a NumPy array, the indices are on the GPU)."""
    shape, index = AT_CASES[case]
    hs = _inputs(name, shape)
    target = hs[0]
    if case == "view":
        target = target[::3]  # (4 elements, strided: the write lands in the array it views)
    hidx = index(numpy)
    n = (hidx[0] if type(hidx) is tuple else hidx).size
    vals = _data(hs[1].dtype, (n,), 9)
    base_ref = hs[0].copy()
    ref = base_ref[::3] if case == "view" else base_ref
    _, e_ref = _outcome(lambda: getattr(numpy, name).at(ref, hidx, vals))
    base = hs[0].copy()
    tgt = base[::3] if case == "view" else base
    r, e = _outcome(lambda: getattr(xpshim, name).at(tgt, index(xpshim), xpshim.asarray(vals)))
    assert (e is None) == (e_ref is None), (e, e_ref)
    if e_ref is None:
        assert r is None
        _same(base, base_ref)
    else:
        assert e[0] is e_ref[0]


@pytest.mark.parametrize("form", ["random.shuffle", "default_rng().shuffle", "RandomState().shuffle"])
def test_shuffle_permutes_a_list_in_place(gpu, form):
    def run(np):
        np.random.seed(3)
        target = {"random.shuffle": lambda: np.random, "default_rng().shuffle": lambda: np.random.default_rng(3),
                  "RandomState().shuffle": lambda: np.random.RandomState(3)}[form]()
        items = list(range(20))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FallbackWarning)
            assert target.shuffle(items) is None
        return items
    got = run(xpshim)
    assert sorted(got) == list(range(20)) and got != list(range(20))
    assert got == run(numpy)  # (NumPy's stream: a list is shuffled on the host, by NumPy)


_GEN = numpy.random.default_rng(0)
# (every method that takes out= but permuted, whose out= is a copy's destination: NumPy checks
# it by copyto's casting rule, not by the layout check these share)
OUT_METHODS = sorted(n for n in dir(_GEN) if not n.startswith("_") and callable(getattr(_GEN, n))
                     and "out" in inspect.signature(getattr(_GEN, n)).parameters and n != "permuted")
OUT_ARGS = {"standard_gamma": (2.0,)}


def _outs(xp):
    ro = numpy.zeros((4, 4))
    ro.setflags(write=False)
    made = {"C": numpy.zeros((4, 4)), "F": numpy.zeros((4, 4), order="F"), "strided": numpy.zeros((4, 8))[:, ::2],
            "float32": numpy.zeros((4, 4), numpy.float32), "read-only": ro}
    if xp is numpy:
        return made
    return {k: v for k, v in made.items() if k != "read-only"}


@pytest.mark.parametrize("layout", ["C", "F", "strided", "float32", "read-only"])
@pytest.mark.parametrize("method", OUT_METHODS)
def test_a_generators_numpy_out_is_checked_and_filled_as_numpys(gpu, method, layout):
    args = OUT_ARGS.get(method, ())
    ref = _outs(numpy)[layout]
    r_ref, e_ref = _outcome(lambda: getattr(numpy.random.default_rng(1), method)(*args, out=ref))
    o = _outs(numpy)[layout]
    if layout == "read-only":
        o = ref
    r, e = _outcome(lambda: getattr(xpshim.random.default_rng(1), method)(
        *[xpshim.asarray(a) if type(a) is numpy.ndarray else a for a in args], out=o))
    assert e == e_ref
    if e_ref is None:
        assert r is o and r_ref is ref
        assert numpy.isfinite(o).all() and (o != 0).any()  # (drawn: streams differ between devices)


@pytest.mark.parametrize("layout", ["C", "strided", "float32"])
@pytest.mark.parametrize("method", OUT_METHODS)
def test_a_generators_gpu_out_is_checked_as_numpys(gpu, method, layout):
    args = OUT_ARGS.get(method, ())
    ref = _outs(numpy)[layout]
    _, e_ref = _outcome(lambda: getattr(numpy.random.default_rng(1), method)(*args, out=ref))
    big = xpshim.asarray(numpy.zeros((4, 8), ref.dtype))
    o = big[:, ::2] if layout == "strided" else xpshim.asarray(ref.copy())
    r, e = _outcome(lambda: getattr(xpshim.random.default_rng(1), method)(
        *[xpshim.asarray(a) if type(a) is numpy.ndarray else a for a in args], out=o))
    assert e == e_ref
    if e_ref is None:
        assert r is o


# ---------------------------------------------------------------- SciPy's ndimage given a GPU output=

# The arguments after the input of every scipy.ndimage function that takes output= (the test
# below checks that this covers the installed SciPy's)
_S = numpy.ones((3, 3), bool)
NDIMAGE_ARGS = {
    "affine_transform": (numpy.eye(2),), "binary_closing": (), "binary_dilation": (), "binary_erosion": (),
    "binary_fill_holes": (), "binary_hit_or_miss": (), "binary_opening": (), "binary_propagation": (),
    "black_tophat": (3,), "convolve": (numpy.ones((3, 3)),), "convolve1d": (numpy.ones(3),),
    "correlate": (numpy.ones((3, 3)),), "correlate1d": (numpy.ones(3),), "fourier_ellipsoid": (2.0,),
    "fourier_gaussian": (1.0,), "fourier_shift": (1.0,), "fourier_uniform": (2.0,), "gaussian_filter": (1.0,),
    "gaussian_filter1d": (1.0,), "gaussian_gradient_magnitude": (1.0,), "gaussian_laplace": (1.0,),
    "generic_filter": (numpy.mean, 3), "generic_filter1d": (lambda i, o: o.__setitem__(slice(None), i[:o.size]), 3),
    "generic_gradient_magnitude": ("sobel",), "generic_laplace": ("laplace2",), "geometric_transform": (lambda c: c,),
    "grey_closing": (3,), "grey_dilation": (3,), "grey_erosion": (3,), "grey_opening": (3,), "label": (),
    "laplace": (), "map_coordinates": (numpy.indices((6, 6)).astype(float),), "maximum_filter": (3,),
    "maximum_filter1d": (3,), "median_filter": (3,), "minimum_filter": (3,), "minimum_filter1d": (3,),
    "morphological_gradient": (3,), "morphological_laplace": (3,), "percentile_filter": (50, 3), "prewitt": (),
    "rank_filter": (1, 3), "rotate": (90,), "shift": (1.0,), "sobel": (), "spline_filter": (), "spline_filter1d": (),
    "uniform_filter": (3,), "uniform_filter1d": (3,), "vectorized_filter": (numpy.mean,),
    "watershed_ift": (numpy.zeros((6, 6), numpy.int32),), "white_tophat": (3,), "zoom": (1.0,),
}
# Where SciPy never asks NumPy for the output's host form (``isinstance(output, np.ndarray)`` is
# False for a GPU array, and SciPy then reads it as a dtype and answers a new array; the Fourier
# filters hand it to C code that converts a copy): nothing xpshim can see, so the write is lost.
# Listed in docs/differences.md with the idiom (a NumPy output=, or the return value).
NDIMAGE_UNSEEN = {"binary_closing", "binary_dilation", "binary_erosion", "binary_fill_holes", "binary_opening",
                  "binary_propagation", "fourier_ellipsoid", "fourier_gaussian", "fourier_shift", "fourier_uniform",
                  "label", "morphological_gradient", "morphological_laplace"}


def _ndimage_call(name):
    nd = pytest.importorskip("scipy.ndimage")
    named = {"sobel": nd.sobel, "laplace2": lambda i, a, o, m, c: nd.correlate1d(i, [1, -2, 1], a, o, m, c)}
    extra = tuple(named[v] if type(v) is str else v for v in NDIMAGE_ARGS[name])
    h = (numpy.arange(36) % 7).reshape(6, 6).astype(numpy.uint8 if name == "watershed_ift" else float)
    if name.startswith("binary") or name == "label":
        h = h > 3
    if name.startswith("fourier"):
        h = h.astype(complex)
    return getattr(nd, name), h, extra, {"size": 3} if name == "vectorized_filter" else {}


def test_the_ndimage_table_covers_every_function_with_output():
    nd = pytest.importorskip("scipy.ndimage")
    names = {n for n in dir(nd) if not n.startswith("_") and callable(getattr(nd, n))
             and "output" in _parameters(getattr(nd, n))}
    assert names <= set(NDIMAGE_ARGS), f"add to NDIMAGE_ARGS: {sorted(names - set(NDIMAGE_ARGS))}"


def _parameters(f):
    try:
        return inspect.signature(f).parameters
    except (TypeError, ValueError):
        return {}


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason="SciPy never asks for "
                                                                         "the output's host form"))
                                  if n in NDIMAGE_UNSEEN else n for n in sorted(NDIMAGE_ARGS)])
def test_an_ndimage_function_given_a_gpu_output_writes_it_or_raises(gpu, name):
    """A GPU array as scipy.ndimage's output= (SciPy takes it with numpy.asarray and writes into
    what it gets, a host copy): the call raises, naming the fix, instead of leaving the array
    as it was; a NumPy output= and the return value are SciPy's."""
    f, h, extra, kw = _ndimage_call(name)
    want = f(h, *extra, **kw)
    want = want[0] if type(want) is tuple else want
    o = xpshim.zeros(want.shape, want.dtype)
    x = xpshim.asarray(h)
    try:
        f(x, *extra, output=o, **kw)
    except TypeError as e:
        assert "output=" in str(e) and "NumPy array" in str(e), str(e)
    else:
        numpy.testing.assert_array_equal(xpshim.asnumpy(o), want)
    ho = numpy.zeros(want.shape, want.dtype)
    f(x, *extra, output=ho, **kw)
    numpy.testing.assert_array_equal(ho, want)
