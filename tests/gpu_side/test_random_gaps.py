"""The random.Generator methods of the gap table (xpshim/_gaps/generator.py) against NumPy's
Generator: shape and dtype of the result, or the exception class where NumPy raises, on the
GPU side with no host fallback. Their distributions are tested in test_random_stats.py."""

import warnings

import numpy
import pytest

import xpshim
from xpshim import _gaps

# method -> [(label, args, kwargs)]
CASES = {
    "normal": [("scalars", (1.0, 2.0), {}), ("size", (1.0, 2.0), {"size": (2, 3)}),
               ("array-loc", (numpy.zeros((2, 1)), [1.0, 2.0, 3.0]), {}), ("negative-scale", (0.0, -1.0), {}),
               ("negative-zero-scale", (0.0, -0.0), {}), ("array-negative-scale", (0.0, [1.0, -2.0]), {}),
               ("size-mismatch", (numpy.zeros(3), 1.0), {"size": 4}), ("nan-scale", (0.0, numpy.nan), {"size": 2})],
    "lognormal": [("size", (0.0, 0.5), {"size": 4}), ("negative-sigma", (0.0, -0.5), {})],
    "integers": [("scalars", (3, 9), {"size": 4}), ("array-high", (numpy.array([3, 5]),), {}),
                 ("list-bounds", ([0, 10], (4, 12)), {"size": (3, 2)}), ("endpoint", ([0, 1], 1), {"endpoint": True}),
                 ("uint8", ([0, 200], 256), {"dtype": numpy.uint8}), ("empty-range", ([0, 3], 3), {}),
                 ("high-out-of-bounds", ([0], 300), {"dtype": numpy.uint8}),
                 ("low-out-of-bounds", ([-1], 3), {"dtype": numpy.uint8}), ("size-mismatch", ([0, 1], 5), {"size": 3})],
    "standard_cauchy": [("none", (), {}), ("size", (), {"size": (3, 2)})],
    "standard_t": [("size", (5.0,), {"size": 4}), ("zero-df", (0.0,), {}), ("nan-df", (numpy.nan,), {})],
    "gumbel": [("size", (0.0, 1.0), {"size": 3}), ("negative-scale", (0.0, -1.0), {})],
    "laplace": [("size", (0.5, 2.0), {"size": 3}), ("array", ([0.0, 1.0],), {}), ("negative-scale", (0.0, -2.0), {})],
    "logistic": [("size", (), {"size": 5}), ("negative-scale", (1.0, -1.0), {"size": 2})],
    "pareto": [("size", (3.0,), {"size": 4}), ("zero", (0.0,), {}), ("array", ([1.0, 2.0],), {})],
    "rayleigh": [("default", (), {"size": 3}), ("negative", (-1.0,), {})],
    "weibull": [("size", (1.5,), {"size": 3}), ("zero-a", (0.0,), {"size": 2}), ("negative", (-1.0,), {})],
    "triangular": [("size", (-1.0, 0.0, 2.0), {"size": 4}), ("left-gt-mode", (1.0, 0.0, 2.0), {}),
                   ("mode-gt-right", (0.0, 3.0, 2.0), {}), ("left-eq-right", (1.0, 1.0, 1.0), {}),
                   ("arrays", ([0.0, 1.0], 1.0, [2.0, 3.0]), {})],
    "wald": [("size", (1.0, 2.0), {"size": 3}), ("zero-mean", (0.0, 1.0), {}), ("negative-scale", (1.0, -1.0), {})],
    "noncentral_chisquare": [("size", (3.0, 2.0), {"size": 3}), ("small-df", (0.5, 1.0), {"size": 2}),
                             ("zero-df", (0.0, 1.0), {}), ("negative-nonc", (3.0, -1.0), {})],
    "noncentral_f": [("size", (5.0, 7.0, 2.0), {"size": 3}), ("zero-dfden", (5.0, 0.0, 1.0), {}),
                     ("negative-nonc", (5.0, 7.0, -1.0), {})],
    "negative_binomial": [("size", (5, 0.5), {"size": 4}), ("p-zero", (5, 0.0), {}), ("p-above-one", (5, 1.5), {}),
                          ("n-zero", (0, 0.5), {}), ("n-nan", (numpy.nan, 0.5), {}), ("p-one", (3, 1.0), {"size": 2}),
                          ("too-large", (1e20, 1e-10), {})],
    "multinomial": [("size", (20, [0.2, 0.3, 0.5]), {"size": 4}), ("none", (10, [0.5, 0.5]), {}),
                    ("array-n", ([5, 10], [0.5, 0.5]), {}), ("negative-p", (5, [-0.1, 1.1]), {}),
                    ("sum-above-one", (5, [0.7, 0.7, 0.0]), {}), ("negative-n", (-1, [0.5, 0.5]), {})],
    "multivariate_normal": [("size", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]), {"size": 3}),
                            ("none", ([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]]), {}),
                            ("size-tuple", ([0.0], [[2.0]]), {"size": (2, 3)}),
                            ("cholesky", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]), {"size": 2, "method": "cholesky"}),
                            ("eigh", ([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]]), {"size": 2, "method": "eigh"}),
                            ("not-psd-raise", ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]), {"check_valid": "raise"}),
                            ("bad-check", ([0.0], [[1.0]]), {"check_valid": "maybe"}),
                            ("bad-method", ([0.0], [[1.0]]), {"method": "qr"}),
                            ("mean-2d", ([[0.0]], [[1.0]]), {}), ("cov-not-square", ([0.0, 0.0], [[1.0, 0.0]]), {}),
                            ("length-mismatch", ([0.0], [[1.0, 0.0], [0.0, 1.0]]), {})],
    "choice": [("int", (5,), {"size": 3}), ("int-none", (5,), {}), ("array", (numpy.arange(10.0),), {"size": (2, 2)}),
               ("array-none", (numpy.arange(10.0),), {}), ("2d-axis", (numpy.arange(12).reshape(3, 4),), {"size": 2, "axis": 1}),
               ("p", (5,), {"size": 3, "p": [0.1, 0.2, 0.3, 0.2, 0.2]}),
               ("no-replace", (5,), {"size": 3, "replace": False}),
               ("no-replace-p", (5,), {"size": 3, "replace": False, "p": [0.1, 0.2, 0.3, 0.2, 0.2]}),
               ("no-replace-unshuffled", (8,), {"size": 4, "replace": False, "shuffle": False}),
               ("too-many", (3,), {"size": 4, "replace": False}), ("negative", (-1,), {}),
               ("empty", (numpy.array([]),), {"size": 2}), ("p-sum", (3,), {"p": [0.5, 0.5, 0.5]}),
               ("p-negative", (3,), {"p": [-0.5, 1.0, 0.5]}), ("p-length", (3,), {"p": [0.5, 0.5]}),
               ("p-2d", (2,), {"p": [[0.5, 0.5]]}), ("0d", (numpy.array(3.0),), {}),
               ("few-nonzero", (3,), {"size": 3, "replace": False, "p": [0.5, 0.5, 0.0]})],
    "permutation": [("int", (6,), {}), ("array", (numpy.arange(6.0),), {}),
                    ("axis", (numpy.arange(12).reshape(3, 4),), {"axis": 1}), ("0d", (numpy.array(2.0),), {}),
                    ("bad-axis", (numpy.arange(3),), {"axis": 1})],
    "permuted": [("none", (numpy.arange(12).reshape(3, 4),), {}), ("axis", (numpy.arange(12.0).reshape(3, 4),), {"axis": 0}),
                 ("bad-axis", (numpy.arange(3),), {"axis": 2})],
    "bytes": [("eight", (8,), {}), ("zero", (0,), {})],
    "vonmises": [("size", (0.5, 2.0), {"size": 4}), ("array", ([0.0, 1.0], 3.0), {}), ("kappa-zero", (0.0, 0.0), {"size": 2}),
                 ("negative-kappa", (0.0, -1.0), {}), ("none", (1.0, 1.0), {})],
    "zipf": [("size", (2.0,), {"size": 5}), ("array", ([1.5, 3.0],), {}), ("a-one", (1.0,), {}), ("a-nan", (numpy.nan,), {})],
    "multivariate_hypergeometric": [
        ("size", ([3, 4, 5], 6), {"size": 4}), ("none", ([3, 4], 2), {}), ("size-tuple", ([2, 0, 5], 4), {"size": (2, 3)}),
        ("count", ([3, 4, 5], 12), {"method": "count"}), ("all", ([1, 1], 2), {"size": 2}), ("zero", ([3, 4], 0), {}),
        ("negative-color", ([1, -2], 1), {}), ("too-many", ([1, 2], 4), {}), ("negative-nsample", ([1, 2], -1), {}),
        ("bad-method", ([1, 2], 1), {"method": "x"}), ("2d", ([[1, 2]], 1), {})],
    "spawn": [("two", (2,), {}), ("zero", (0,), {}), ("negative", (-1,), {})],
}
# RandomState (legacy) methods CuPy's RandomState lacks: numpy.random.RandomState(0).<name>(*args, **kwargs)
LEGACY_CASES = {
    "random": [("none", (), {}), ("size", (), {"size": (2, 3)})],
    "random_integers": [("high", (1, 6), {"size": 5}), ("low-only", (4,), {"size": 3}), ("none", (2, 9), {}),
                        ("low-above-high", (5, 1), {})],
    "multinomial": [("size", (20, [0.2, 0.3, 0.5]), {"size": 4}), ("none", (10, [0.5, 0.5]), {}),
                    ("sum-above-one", (5, [0.7, 0.7, 0.0]), {}), ("negative-p", (5, [-0.1, 1.1]), {})],
    "bytes": [("eight", (8,), {}), ("zero", (0,), {})],
}
# shuffle works in place: its own test below
IN_PLACE = {"shuffle"}


def _dev(v):
    return xpshim.asarray(v) if type(v) is numpy.ndarray else v


def _params():
    for name in sorted(CASES):
        for label, args, kwargs in CASES[name]:
            yield pytest.param(name, args, kwargs, id=f"{name}-{label}")


@pytest.mark.parametrize("name, args, kwargs", list(_params()))
def test_generator_gap(gpu, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = getattr(numpy.random.default_rng(0), name)(*args, **kwargs)
        except Exception as e:
            with pytest.raises(type(e)):
                getattr(xpshim.random.default_rng(0), name)(*map(_dev, args), **{k: _dev(v) for k, v in kwargs.items()})
            assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
            return
        got = getattr(xpshim.random.default_rng(0), name)(*map(_dev, args), **{k: _dev(v) for k, v in kwargs.items()})
    assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
    if isinstance(want, bytes):
        assert isinstance(got, bytes) and len(got) == len(want)
        return
    if isinstance(want, list):  # spawn: Generators on the GPU, independent of one another
        assert len(got) == len(want) and all(isinstance(c, xpshim.random.Generator) for c in got)
        draws = [xpshim.asnumpy(c.random(4)) for c in got]
        assert len({d.tobytes() for d in draws}) == len(draws)
        return
    assert type(got) is xpshim.ndarray, type(got)
    want = numpy.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)


def _legacy_params():
    for name in sorted(LEGACY_CASES):
        for label, args, kwargs in LEGACY_CASES[name]:
            yield pytest.param(name, args, kwargs, id=f"{name}-{label}")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # random_integers: deprecated, as in NumPy
@pytest.mark.parametrize("name, args, kwargs", list(_legacy_params()))
def test_random_state_gap(gpu, name, args, kwargs):
    rs = xpshim.random.RandomState(0)
    assert isinstance(rs, xpshim.random.RandomState) and isinstance(rs, numpy.random.RandomState) is False
    try:
        want = getattr(numpy.random.RandomState(0), name)(*args, **kwargs)
    except Exception as e:
        with pytest.raises(type(e)):
            getattr(rs, name)(*args, **kwargs)
        assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
        return
    got = getattr(rs, name)(*args, **kwargs)
    assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
    if isinstance(want, bytes):
        assert isinstance(got, bytes) and len(got) == len(want)
        return
    assert type(got) is xpshim.ndarray, type(got)
    want = numpy.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)


def test_random_state_is_on_the_current_device(gpu):
    rs = xpshim.random.RandomState(7)
    assert type(rs.rand(3)) is xpshim.ndarray and xpshim.get_device(rs.standard_normal(2)) == "gpu"
    with xpshim.device("cpu"):  # (NumPy's class and numbers; a GPU array it shuffles is written back)
        h = xpshim.random.RandomState(7)
        assert isinstance(h, numpy.random.RandomState) and isinstance(h, xpshim.random.RandomState)
        assert h.rand(3).tolist() == numpy.random.RandomState(7).rand(3).tolist()
    with pytest.warns(DeprecationWarning, match="randint"):
        rs.random_integers(3)


def test_random_integers_in_range(gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        v = xpshim.asnumpy(xpshim.random.RandomState(1).random_integers(2, 5, size=4000))
    assert set(v.tolist()) == {2, 3, 4, 5}


def test_integers_with_array_bounds_in_range(gpu):
    g = xpshim.random.default_rng(5)
    v = xpshim.asnumpy(g.integers(numpy.array([0, 10, -5]), [3, 12, 5], size=(3000, 3)))
    assert [set(v[:, i].tolist()) for i in range(3)] == [{0, 1, 2}, {10, 11}, set(range(-5, 5))]
    e = xpshim.asnumpy(g.integers([250, 0], 255, dtype=numpy.uint8, endpoint=True, size=(2000, 2)))
    assert e.dtype == numpy.uint8 and set(e[:, 0].tolist()) == set(range(250, 256)) and e[:, 1].max() == 255
    assert not xpshim.stats()["fallbacks"]


def test_shapes_computed_on_the_gpu(gpu):
    # NumPy's own test of trim_zeros: rng.random(tuple(i_end - i_start)), its entries 0-d arrays
    g = xpshim.random.default_rng(6)
    lo = g.integers(0, xpshim.asarray([2, 3]))
    hi = lo + xpshim.asarray([2, 4])
    r = g.random(tuple(hi - lo))
    assert r.shape == (2, 4) and g.standard_normal(size=tuple(hi - lo)).shape == (2, 4)
    n = xpshim.asarray([5, 9])[1]  # NumPy's test of the bin rules: RandomState.normal(size=n)
    assert xpshim.random.RandomState(1).normal(loc=0, scale=2, size=n).shape == (9,) == g.random(size=n).shape
    assert not xpshim.stats()["fallbacks"]


def test_multivariate_hypergeometric_sums(gpu):
    g = xpshim.random.default_rng(4)
    m = xpshim.asnumpy(g.multivariate_hypergeometric([3, 4, 5], 7, size=500))
    assert (m.sum(-1) == 7).all() and (m <= [3, 4, 5]).all() and (m >= 0).all()
    z = xpshim.asnumpy(g.zipf(1.7, size=1000))
    assert z.min() >= 1
    v = xpshim.asnumpy(g.vonmises(3.0, 0.5, size=1000))
    assert v.min() >= -numpy.pi and v.max() <= numpy.pi
    assert not xpshim.stats()["fallbacks"]


def test_values_in_range(gpu):
    g = xpshim.random.default_rng(3)
    c = xpshim.asnumpy(g.choice(numpy.arange(10, 20), size=5, replace=False, shuffle=False))
    assert len(set(c.tolist())) == 5 and all(10 <= v < 20 for v in c)
    p = xpshim.asnumpy(g.permuted(numpy.arange(12).reshape(3, 4), axis=1))
    assert (numpy.sort(p, axis=1) == numpy.arange(12).reshape(3, 4)).all()
    t = xpshim.asnumpy(g.triangular(-1.0, 0.0, 2.0, size=1000))
    assert t.min() >= -1 and t.max() <= 2
    m = xpshim.asnumpy(g.multinomial([5, 50], [0.6, 0.4], size=(10, 2)))
    assert (m.sum(-1) == [5, 50]).all() and (m >= 0).all()
    assert not xpshim.stats()["fallbacks"]


def test_shuffle_in_place(gpu):
    x = xpshim.asarray(numpy.arange(40).reshape(10, 4))
    assert xpshim.random.default_rng(1).shuffle(x) is None
    h = xpshim.asnumpy(x)
    assert sorted(h[:, 0].tolist()) == list(range(0, 40, 4)) and (h[:, 1:] - h[:, :1] == [1, 2, 3]).all()
    assert not xpshim.stats()["fallbacks"]
    y = xpshim.asarray(numpy.arange(12).reshape(3, 4))
    xpshim.random.default_rng(2).shuffle(y, axis=1)
    assert (numpy.sort(xpshim.asnumpy(y), axis=1) == numpy.arange(12).reshape(3, 4)).all()
    with pytest.raises(numpy.exceptions.AxisError):
        xpshim.random.default_rng(2).shuffle(y, axis=2)
    with pytest.raises(TypeError):  # as NumPy's, for a 0-d array
        xpshim.random.default_rng(2).shuffle(xpshim.asarray(numpy.array(1.0)))


def test_shuffle_of_a_list_runs_on_the_host(gpu):
    lst = list(range(20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)
        xpshim.random.default_rng(1).shuffle(lst)
    assert sorted(lst) == list(range(20)) and xpshim.stats()["fallbacks"]


def test_every_generator_entry_has_cases():
    entries = {n.split(".", 2)[2] for n in _gaps.table() if n.startswith("random.Generator.")}
    assert entries == set(CASES) | IN_PLACE
    legacy = {n.split(".", 2)[2] for n in _gaps.table() if n.startswith("random.RandomState.")}
    assert legacy == set(LEGACY_CASES)


@pytest.mark.parametrize("make", [lambda m: m.random.default_rng(0), lambda m: m.random.RandomState(0)],
                         ids=["Generator", "RandomState"])
@pytest.mark.parametrize("call", [
    lambda r: r.choice(["pooh", "rabbit", "piglet", "Christopher"], 5, p=[0.5, 0.1, 0.1, 0.3]),
    lambda r: r.choice(numpy.array(["a", "b", "c"]), 2, replace=False),
    lambda r: r.permutation(numpy.array(["a", "b", "c"])),
    lambda r: r.choice([b"x", b"y"], 3),
], ids=["choice-list", "choice-array", "permutation", "choice-bytes"])
def test_draws_from_strings_are_numpys_on_the_gpu_device(gpu, make, call):
    """A GPU generator's draw from strings (no GPU form): NumPy's generator draws it on the host,
    counted and warned, where CuPy's refused the dtype."""
    want = call(make(numpy))
    with xpshim.device("gpu"):
        with pytest.warns(xpshim.FallbackWarning, match="no GPU form"):
            got = call(make(xpshim))
    assert type(got) is numpy.ndarray and got.dtype == want.dtype and got.shape == want.shape
    population = {"pooh", "rabbit", "piglet", "Christopher", "a", "b", "c", b"x", b"y"}
    assert set(got.ravel().tolist()) <= population  # (drawn from the data given)
