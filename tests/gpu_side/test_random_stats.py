"""Random numbers: xpshim's generators against NumPy's, statistically.

The streams differ between devices (CuPy's generators are not NumPy's), so values are not
compared one by one: a two-sample Kolmogorov-Smirnov test compares the distributions, with a
false-alarm rate of 1e-4 per test (about 0.5% for the whole file), plus dtype and shape.
Seeds are fixed, so a run is reproducible.
"""

import math
import warnings

import numpy
import pytest

import xpshim

pytestmark = pytest.mark.diff
N = 20000
ALPHA = 1e-4

LEGACY = {  # numpy.random.<name>(*args, size=N)
    "rand": None, "randn": None, "random": (), "random_sample": (), "standard_normal": (),
    "uniform": (-2.0, 3.0), "normal": (1.0, 2.0), "exponential": (2.0,), "standard_exponential": (),
    "gamma": (2.0, 1.5), "standard_gamma": (2.0,), "beta": (2.0, 3.0), "chisquare": (3.0,),
    "f": (5.0, 7.0), "laplace": (0.5, 2.0), "logistic": (0.0, 1.0), "lognormal": (0.0, 0.5),
    "rayleigh": (1.5,), "weibull": (1.5,), "pareto": (3.0,), "power": (2.0,), "gumbel": (0.0, 1.0),
    "vonmises": (0.0, 2.0), "wald": (1.0, 2.0), "triangular": (-1.0, 0.0, 2.0), "standard_t": (5.0,),
    "standard_cauchy": (), "poisson": (4.0,), "binomial": (10, 0.3), "geometric": (0.3,),
    "negative_binomial": (5, 0.5), "hypergeometric": (10, 7, 8), "logseries": (0.6,), "zipf": (2.5,),
    "randint": (0, 7), "noncentral_chisquare": (3.0, 2.0), "noncentral_f": (5.0, 7.0, 2.0),
    "ranf": (), "sample": (), "random_integers": (1, 6), "choice": (9,),
}
# draws whose shape is not just `size`: name -> (call, as a function of the module)
SHAPED = {
    "permutation": lambda m: m.permutation(N),
    "dirichlet": lambda m: m.dirichlet([1.0, 2.0, 3.0], size=N // 3),
    "multinomial": lambda m: m.multinomial(20, [0.2, 0.3, 0.5], size=N // 3),
    "multivariate_normal": lambda m: m.multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], size=N // 2),
}
GENERATOR = {  # numpy.random.default_rng().<name>(*args, size=N)
    "random": (), "standard_normal": (), "normal": (1.0, 2.0), "uniform": (-2.0, 3.0),
    "integers": (0, 7), "exponential": (2.0,), "gamma": (2.0, 1.5), "beta": (2.0, 3.0),
    "poisson": (4.0,), "binomial": (10, 0.3), "chisquare": (3.0,), "lognormal": (0.0, 0.5),
    "laplace": (0.5, 2.0), "logistic": (0.0, 1.0), "gumbel": (0.0, 1.0), "weibull": (1.5,),
    "standard_cauchy": (), "standard_t": (5.0,), "triangular": (-1.0, 0.0, 2.0),
    "pareto": (3.0,), "rayleigh": (1.5,), "wald": (1.0, 2.0), "noncentral_chisquare": (3.0, 2.0),
    "noncentral_f": (5.0, 7.0, 2.0), "negative_binomial": (5, 0.5),
    "vonmises": (0.5, 2.0), "zipf": (2.5,),
}
# RandomState methods: numpy.random.RandomState(seed).<name>(*args, size=N)
RANDOM_STATE = {
    "random_sample": (), "random": (), "normal": (1.0, 2.0), "randint": (0, 7), "random_integers": (1, 6),
    "vonmises": (0.0, 2.0), "zipf": (2.5,), "standard_t": (5.0,),
}
# more draws of the Generator methods composed in xpshim/_gaps/generator.py: label -> call(generator)
GENERATOR_DRAWS = {
    "noncentral_chisquare-small-df": lambda g: g.noncentral_chisquare(0.5, 2.0, size=N),
    "noncentral_chisquare-nonc0": lambda g: g.noncentral_chisquare(2.0, 0.0, size=N),
    "weibull-array-a": lambda g: g.weibull([0.5, 1.0, 3.0, 0.0], size=(N // 4, 4)),
    "normal-array-loc": lambda g: g.normal([0.0, 5.0], 1.0, size=(N // 2, 2)),
    "laplace-scale": lambda g: g.laplace(-1.0, 0.5, size=N),
    "multinomial": lambda g: g.multinomial(20, [0.2, 0.3, 0.5], size=N // 3),
    "vonmises-small-kappa": lambda g: g.vonmises(-1.0, 0.1, size=N),
    "zipf-heavy": lambda g: numpy.minimum(_host_args(g.zipf(1.3, size=N)), 50),
    "multivariate_hypergeometric": lambda g: g.multivariate_hypergeometric([5, 10, 15], 12, size=N // 3),
    "multivariate_hypergeometric-count": lambda g: g.multivariate_hypergeometric([2, 3, 4, 1], 5, size=N // 4,
                                                                                 method="count"),
    "multinomial-array-n": lambda g: g.multinomial([5, 50], [0.6, 0.4], size=(N // 4, 2)),
    "multivariate_normal-svd": lambda g: g.multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], size=N // 2),
    "multivariate_normal-cholesky": lambda g: g.multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 2.0]], size=N // 2,
                                                                    method="cholesky"),
    "multivariate_normal-eigh": lambda g: g.multivariate_normal([3.0], [[4.0]], size=N, method="eigh"),
    "choice": lambda g: g.choice(7, size=N),
    "choice-p": lambda g: g.choice(5, size=N, p=[0.1, 0.4, 0.2, 0.0, 0.3]),
    "choice-array": lambda g: g.choice(numpy.array([2.5, -1.0, 7.0]), size=N),
    "choice-no-replace-first": lambda g: numpy.stack([xpshim.asnumpy(g.choice(6, size=3, replace=False))
                                                       for _ in range(2000)]),
    "choice-no-replace-p": lambda g: numpy.stack([xpshim.asnumpy(g.choice(5, size=2, replace=False,
                                                                          p=[0.1, 0.4, 0.2, 0.0, 0.3]))
                                                   for _ in range(2000)]),
    "permuted-rows": lambda g: g.permuted(numpy.tile(numpy.arange(5), (N // 5, 1)), axis=1),
    "permutation-positions": lambda g: numpy.stack([xpshim.asnumpy(g.permutation(5)) for _ in range(2000)]),
}


def ks_reject(x, y, alpha=ALPHA):
    """True when the two samples' distributions differ at level ``alpha`` (two-sample KS)."""
    x, y = numpy.sort(x.ravel()), numpy.sort(y.ravel())
    grid = numpy.concatenate([x, y])
    d = numpy.max(numpy.abs(numpy.searchsorted(x, grid, "right") / x.size - numpy.searchsorted(y, grid, "right") / y.size))
    crit = math.sqrt(-math.log(alpha / 2) / 2) * math.sqrt((x.size + y.size) / (x.size * y.size))
    return d > crit, d, crit


def _draw(mod_fn, np_fn, args, name):
    if name == "rand":
        return mod_fn(N), np_fn(N)
    if name == "randn":
        return mod_fn(N), np_fn(N)
    return mod_fn(*args, size=N), np_fn(*args, size=N)


def _compare(got, want, name):
    got = xpshim.asnumpy(got)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
    assert got.dtype.kind == want.dtype.kind, f"{name}: dtype {got.dtype} vs NumPy's {want.dtype}"
    reject, d, crit = ks_reject(got.astype(numpy.float64), want.astype(numpy.float64))
    assert not reject, f"{name}: KS statistic {d:.4f} > {crit:.4f} (alpha {ALPHA})"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # random_integers is deprecated in NumPy
@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_module_functions(gpu, name):
    xpshim.random.seed(1234)
    numpy_rs = numpy.random.RandomState(4321)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)  # names CuPy lacks run on the host, visibly
        # ranf and sample are module-level aliases of random_sample, not RandomState methods
        ref = getattr(numpy_rs, name, numpy_rs.random_sample)
        got, want = _draw(getattr(xpshim.random, name), ref, LEGACY[name] or (), name)
    _compare(got, want, name)


@pytest.mark.parametrize("name", sorted(SHAPED))
def test_legacy_shaped_draws(gpu, name):
    xpshim.random.seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)
        got = SHAPED[name](xpshim.random)
    _compare(got, SHAPED[name](numpy.random.RandomState(6)), name)


def test_bytes_and_shuffle(gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)
        b = xpshim.random.bytes(64)
        assert isinstance(b, bytes) and len(b) == 64
        x = xpshim.arange(1000)
        xpshim.random.shuffle(x)
    h = xpshim.asnumpy(x)
    assert sorted(h.tolist()) == list(range(1000)) and h.tolist() != list(range(1000))


@pytest.mark.parametrize("name", sorted(GENERATOR))
def test_generator_methods(gpu, name):
    g = xpshim.random.default_rng(99)
    n = numpy.random.default_rng(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xpshim.FallbackWarning)
        got = getattr(g, name)(*GENERATOR[name], size=N)
    _compare(got, getattr(n, name)(*GENERATOR[name], size=N), f"Generator.{name}")


def _host_args(v):
    return xpshim.asnumpy(v) if type(v) is xpshim.ndarray else v


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", sorted(RANDOM_STATE))
def test_random_state_methods(gpu, name):
    """np.random.RandomState(seed) on the GPU (CuPy's, filled where it lacks a method), no host fallback."""
    got = getattr(xpshim.random.RandomState(21), name)(*RANDOM_STATE[name], size=N)
    assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
    _compare(got, getattr(numpy.random.RandomState(22), name)(*RANDOM_STATE[name], size=N), f"RandomState.{name}")


def test_random_state_multinomial(gpu):
    got = xpshim.asnumpy(xpshim.random.RandomState(3).multinomial(20, [0.2, 0.3, 0.5], size=N // 3))
    want = numpy.random.RandomState(4).multinomial(20, [0.2, 0.3, 0.5], size=N // 3)
    for j in range(3):
        _compare(got[:, j], want[:, j], f"RandomState.multinomial[:, {j}]")


@pytest.mark.parametrize("label", sorted(GENERATOR_DRAWS))
def test_generator_draws(gpu, label):
    """Each column (or the whole sample) against NumPy's own Generator, by KS, with no host fallback."""
    got = GENERATOR_DRAWS[label](xpshim.random.default_rng(11))
    assert not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
    with xpshim.device("cpu"):
        want = GENERATOR_DRAWS[label](numpy.random.default_rng(12))
    got, want = numpy.asarray(_host_args(got)), numpy.asarray(want)
    if got.ndim > 1:
        for j in range(got.shape[-1]):
            _compare(got[..., j], want[..., j], f"{label}[..., {j}]")
    else:
        _compare(got, want, label)


def test_generator_results_live_on_the_gpu(gpu):
    x = xpshim.random.default_rng(0).random(10)
    assert xpshim.get_device(x) == "gpu"


def test_the_ks_check_can_fail():
    rng = numpy.random.default_rng(0)
    assert ks_reject(rng.normal(0, 1, N), rng.normal(0.2, 1, N))[0]
    assert not ks_reject(rng.normal(0, 1, N), rng.normal(0, 1, N))[0]
