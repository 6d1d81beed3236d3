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
    assert type(got) is xpshim.ndarray, type(got)
    want = numpy.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)


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
