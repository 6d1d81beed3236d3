"""random.Generator methods CuPy's Generator lacks, as compositions of its own methods
(``random``, ``standard_normal``, ``standard_exponential``, ``standard_gamma``, ``integers``,
``binomial``, ``poisson``): the same distributions as NumPy's (not the same stream), with
NumPy's signatures, result dtypes and argument checks (ValueError for a negative scale, ...).

Each gets the CuPy Generator first. Parameters are broadcast to the output shape here
(``size``, or the parameters' common shape), so CuPy's methods get full-shape arrays.
"""

import math

import numpy
from numpy.lib.array_utils import normalize_axis_index

from ._table import Decline, implements


def _xp():
    from .. import _backend
    return _backend.xp


def _shape(size, *shapes):
    """The output shape: ``size`` (NumPy's ValueError when the parameters do not broadcast
    to it), else the parameters' common shape."""
    common = numpy.broadcast_shapes(*shapes)
    if size is None:
        return common
    size = (int(size),) if numpy.ndim(size) == 0 else tuple(int(s) for s in size)
    if numpy.broadcast_shapes(common, size) != size:
        raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape ({common} to {size})")
    return size


def _params(size, *params):
    """The parameters as float64 device arrays of the output shape, and that shape."""
    xp = _xp()
    arrs = [p.astype(numpy.float64, copy=False) if isinstance(p, xp.ndarray)
            # (through NumPy: CuPy's asarray of the number -0.0 gives +0.0)
            else xp.asarray(numpy.asarray(p, dtype=numpy.float64).reshape(-1)).reshape(numpy.shape(p))
            for p in params]
    shape = _shape(size, *(a.shape for a in arrs))
    return [xp.broadcast_to(a, shape) for a in arrs], shape


# NumPy's parameter constraints (numpy/random/_common.pyx, check_array_constraint)
def _check(name, v, cons):
    xp = _xp()
    if cons == "non-negative":
        if bool(xp.any(xp.signbit(v) & ~xp.isnan(v))):
            raise ValueError(f"{name} < 0")
    elif cons == "positive":  # (NaN passes, as in NumPy)
        if bool(xp.any(v <= 0)):
            raise ValueError(f"{name} <= 0")
    elif cons == "positive-not-nan":
        if bool(xp.any(xp.isnan(v))):
            raise ValueError(f"{name} must not be NaN")
        if bool(xp.any(v <= 0)):
            raise ValueError(f"{name} <= 0")
    elif cons == "in-(0,1]":
        if not bool(xp.all((v > 0) & (v <= 1))):
            raise ValueError(f"{name} <= 0, {name} > 1 or {name} contains NaNs")
    elif cons == "in-[0,1]":
        if not bool(xp.all((v >= 0) & (v <= 1))):
            raise ValueError(f"{name} < 0, {name} > 1 or {name} contains NaNs")


def _checked(size, *named):
    """``_params`` of (name, value, constraint) triples, each value checked as NumPy does."""
    arrs, shape = _params(size, *(v for _, v, _ in named))
    for (name, _, cons), a in zip(named, arrs):
        _check(name, a, cons)
    return arrs, shape


def _open01(g, shape):
    """Uniform on the open interval (0, 1): CuPy's random() is in [0, 1); its rare 0 moves to 2**-54."""
    u = g.random(shape)
    return _xp().where(u == 0, 2.0 ** -54, u)


def _chisquare(g, df, shape):
    return 2.0 * g.standard_gamma(df / 2.0, size=shape)


@implements("random.Generator.normal")
def normal(g, loc=0.0, scale=1.0, size=None):
    (loc, scale), shape = _params(size, loc, scale)
    _check("scale", scale, "non-negative")
    return loc + scale * g.standard_normal(shape)


@implements("random.Generator.lognormal")
def lognormal(g, mean=0.0, sigma=1.0, size=None):
    (mean, sigma), shape = _params(size, mean, sigma)
    _check("sigma", sigma, "non-negative")
    return _xp().exp(mean + sigma * g.standard_normal(shape))


@implements("random.Generator.standard_cauchy")
def standard_cauchy(g, size=None):
    shape = _shape(size)
    return g.standard_normal(shape) / g.standard_normal(shape)


@implements("random.Generator.standard_t")
def standard_t(g, df, size=None):
    (df,), shape = _params(size, df)
    _check("df", df, "positive")
    return g.standard_normal(shape) / _xp().sqrt(_chisquare(g, df, shape) / df)


def _location_scale(name, inverse_cdf):
    @implements(f"random.Generator.{name}")
    def f(g, loc=0.0, scale=1.0, size=None):
        (loc, scale), shape = _params(size, loc, scale)
        _check("scale", scale, "non-negative")
        return loc + scale * inverse_cdf(_xp(), _open01(g, shape))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Generator.{name}: loc + scale * (the standard {name}'s inverse CDF of a uniform on (0, 1))."
    return f


_location_scale("gumbel", lambda xp, u: -xp.log(-xp.log(u)))
_location_scale("logistic", lambda xp, u: xp.log(u / (1.0 - u)))
_location_scale("laplace", lambda xp, u: xp.where(u >= 0.5, -xp.log(2.0 - 2.0 * u), xp.log(2.0 * u)))


@implements("random.Generator.pareto")
def pareto(g, a, size=None):
    (a,), shape = _params(size, a)
    _check("a", a, "positive")
    return _xp().expm1(g.standard_exponential(shape) / a)


@implements("random.Generator.rayleigh")
def rayleigh(g, scale=1.0, size=None):
    (scale,), shape = _params(size, scale)
    _check("scale", scale, "non-negative")
    return scale * _xp().sqrt(2.0 * g.standard_exponential(shape))


@implements("random.Generator.weibull")
def weibull(g, a, size=None):
    xp = _xp()
    (a,), shape = _params(size, a)
    _check("a", a, "non-negative")
    e = g.standard_exponential(shape)
    return xp.where(a == 0, 0.0, e ** (1.0 / xp.where(a == 0, 1.0, a)))


@implements("random.Generator.triangular")
def triangular(g, left, mode, right, size=None):
    xp = _xp()
    (left, mode, right), shape = _params(size, left, mode, right)
    if bool(xp.any(left > mode)):
        raise ValueError("left > mode")
    if bool(xp.any(mode > right)):
        raise ValueError("mode > right")
    if bool(xp.any(left == right)):
        raise ValueError("left == right")
    base = right - left
    ratio = (mode - left) / base
    u = g.random(shape)
    return xp.where(u <= ratio, left + xp.sqrt(u * (mode - left) * base),
                    right - xp.sqrt((1.0 - u) * (right - mode) * base))


@implements("random.Generator.wald")
def wald(g, mean, scale, size=None):
    # NumPy's (Michael, Schucany and Haas): a normal square, then one uniform to pick a root
    xp = _xp()
    (mean, scale), shape = _checked(size, ("mean", mean, "positive"), ("scale", scale, "positive"))
    y = mean * g.standard_normal(shape) ** 2
    x = mean + mean / (2.0 * scale) * (y - xp.sqrt(4.0 * scale * y + y * y))
    return xp.where(g.random(shape) <= mean / (mean + x), x, mean * mean / x)


def _noncentral_chisquare(g, df, nonc, shape):
    # NumPy's: df > 1: chisquare(df - 1) + normal(sqrt(nonc), 1)**2; else chisquare(df + 2 poisson(nonc / 2))
    xp = _xp()
    big = df > 1
    chi = _chisquare(g, xp.where(big, df - 1.0, 1.0), shape)
    z = g.standard_normal(shape) + xp.sqrt(nonc)
    i = g.poisson(xp.where(big, 0.0, nonc / 2.0), size=shape)
    small = _chisquare(g, xp.where(big, 1.0, df + 2.0 * i), shape)
    r = xp.where(nonc == 0, _chisquare(g, df, shape), xp.where(big, chi + z * z, small))
    return xp.where(xp.isnan(nonc), numpy.nan, r)


@implements("random.Generator.noncentral_chisquare")
def noncentral_chisquare(g, df, nonc, size=None):
    (df, nonc), shape = _checked(size, ("df", df, "positive"), ("nonc", nonc, "non-negative"))
    return _noncentral_chisquare(g, df, nonc, shape)


@implements("random.Generator.noncentral_f")
def noncentral_f(g, dfnum, dfden, nonc, size=None):
    (dfnum, dfden, nonc), shape = _checked(size, ("dfnum", dfnum, "positive"), ("dfden", dfden, "positive"),
                                           ("nonc", nonc, "non-negative"))
    t = _noncentral_chisquare(g, dfnum, nonc, shape) * dfden
    return t / (_chisquare(g, dfden, shape) * dfnum)


_POISSON_LAM_MAX = float(numpy.iinfo("int64").max - numpy.sqrt(numpy.iinfo("int64").max) * 10)


@implements("random.Generator.negative_binomial")
def negative_binomial(g, n, p, size=None):
    # NumPy's: a Poisson draw whose mean is a gamma(n, (1 - p) / p) draw
    xp = _xp()
    (n, p), shape = _checked(size, ("n", n, "positive-not-nan"), ("p", p, "in-(0,1]"))
    scale = (1.0 - p) / p
    if bool(xp.any(scale * n > _POISSON_LAM_MAX)):
        raise ValueError("n too large or p too small, see Generator.negative_binomial Notes")
    return g.poisson(g.standard_gamma(n, size=shape) * scale, size=shape).astype(numpy.int64, copy=False)


@implements("random.Generator.multinomial")
def multinomial(g, n, pvals, size=None):
    """Generator.multinomial with one vector of probabilities: one binomial per category, of the
    draws left, with the probability left (NumPy's conditional method)."""
    xp = _xp()
    pv = xp.asarray(pvals, dtype=numpy.float64)
    if pv.ndim != 1:
        raise Decline("pvals with more than one dimension")
    if pv.size == 0 or bool(xp.any(pv < 0)) or bool(xp.any(pv > 1)) or bool(xp.any(xp.isnan(pv))):
        raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
    if float(xp.sum(pv[:-1])) > 1.0 + 1e-12:
        raise ValueError("sum(pvals[:-1]) > 1.0")
    n = xp.asarray(n)
    if n.dtype.kind not in "iub":
        raise Decline("a non-integer n")
    if bool(xp.any(n < 0)):
        raise ValueError("n < 0")
    shape = _shape(size, n.shape)
    left = xp.broadcast_to(n, shape).astype(numpy.int64)
    rest = 1.0
    out = xp.zeros(shape + (pv.size,), dtype=numpy.int64)
    for j in range(pv.size - 1):
        pj = float(pv[j])
        q = min(max(pj / rest, 0.0), 1.0) if rest > 0 else 0.0
        x = g.binomial(left, q, size=shape).astype(numpy.int64, copy=False)
        out[..., j] = x
        left = left - x
        rest -= pj
    out[..., -1] = left
    return out


@implements("random.Generator.multivariate_normal")
def multivariate_normal(g, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd"):
    """Generator.multivariate_normal: standard normals times a factor F of cov (F.T @ F = cov),
    from CuPy's svd, eigh or cholesky as ``method`` says, with NumPy's checks."""
    import warnings

    xp = _xp()
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
    mean = xp.asarray(mean)
    cov = xp.asarray(cov)
    if mean.ndim != 1:
        raise ValueError("mean must be 1 dimensional")
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError("cov must be 2 dimensional and square")
    if mean.shape[0] != cov.shape[0]:
        raise ValueError("mean and cov must have same length")
    if mean.dtype.kind == "c" or cov.dtype.kind == "c":
        raise TypeError("mean and cov must not be complex")
    size = () if size is None else ((int(size),) if numpy.ndim(size) == 0 else tuple(size))
    cov = cov.astype(numpy.float64, copy=False)
    if method == "cholesky":
        factor = xp.linalg.cholesky(cov).T
    else:
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method == "eigh":
            s, u = xp.linalg.eigh(cov)
            psd = not bool(xp.any(s < -tol))
            factor = (u * xp.sqrt(xp.abs(s))).T
        else:
            u, s, vh = xp.linalg.svd(cov)
            psd = bool(xp.allclose((vh.T * s) @ vh, cov, rtol=tol, atol=tol))
            factor = xp.sqrt(s)[:, None] * vh
        if not psd and check_valid != "ignore":
            if check_valid == "warn":
                warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=3)
            else:
                raise ValueError("covariance is not symmetric positive-semidefinite.")
    z = g.standard_normal((math.prod(size), mean.shape[0]))
    return (mean + z @ factor).reshape(size + mean.shape)


# ------------------------------------------------------------------ sampling, permutations

def _permutation_index(g, n):
    """A uniformly random permutation of range(n): the argsort of n uniform keys (ties, at
    2**-53 apart, are too rare to matter)."""
    return _xp().argsort(g.random(n))


@implements("random.Generator.permutation")
def permutation(g, x, axis=0):
    xp = _xp()
    if isinstance(x, (int, numpy.integer)):
        return xp.arange(int(x))[_permutation_index(g, int(x))]
    a = xp.asarray(x)
    ax = normalize_axis_index(axis, a.ndim)  # (NumPy's AxisError for a 0-d array too)
    return xp.take(a, _permutation_index(g, a.shape[ax]), axis=ax)


@implements("random.Generator.shuffle")
def shuffle(g, x, axis=0):
    """Generator.shuffle: the GPU array itself, permuted in place along ``axis``."""
    xp = _xp()
    if not isinstance(x, xp.ndarray):
        raise Decline("x is not a GPU array (a list is shuffled in place on the host)")
    if x.ndim == 0:
        raise TypeError("len() of unsized object")
    ax = normalize_axis_index(axis, x.ndim)
    x[...] = xp.take(x, _permutation_index(g, x.shape[ax]), axis=ax)


@implements("random.Generator.permuted")
def permuted(g, x, *, axis=None, out=None):
    """Generator.permuted: every slice along ``axis`` permuted on its own (argsort of keys)."""
    xp = _xp()
    a = xp.asarray(x)
    if axis is None:
        r = a.ravel()[_permutation_index(g, a.size)].reshape(a.shape)
    else:
        ax = normalize_axis_index(axis, a.ndim)
        r = xp.take_along_axis(a, xp.argsort(g.random(a.shape), axis=ax), axis=ax)
    if out is None:
        return r
    if out.shape != a.shape:
        raise ValueError("out must have the same shape as x")
    out[...] = r
    return out


def _check_p(xp, p, pop):
    p = xp.asarray(p, dtype=numpy.float64)
    if p.ndim != 1:
        raise ValueError("p must be 1-dimensional")
    if p.size != pop:
        raise ValueError("a and p must have same size")
    if bool(xp.any(xp.isnan(p))) or bool(xp.any(p < 0)):
        raise ValueError("probabilities are not non-negative")
    if abs(float(xp.sum(p)) - 1.0) > math.sqrt(numpy.finfo(numpy.float64).eps):
        raise ValueError("probabilities do not sum to 1")
    return p


@implements("random.Generator.choice")
def choice(g, a, size=None, replace=True, p=None, axis=0, shuffle=True):
    """Generator.choice: indices by integers() (uniform), a search in the cumulative p
    (weighted), a permutation prefix (no replacement) or the largest keys log(u) / p
    (weighted, no replacement: the same law as drawing one by one), then a take."""
    xp = _xp()
    if isinstance(a, (int, numpy.integer)):
        pop, arr = int(a), None
        if pop < 0 or (pop == 0 and size != 0 and size != () and size is not None):
            raise ValueError("a must be a positive integer unless no samples are taken")
    else:
        arr = xp.asarray(a)
        if arr.ndim == 0:
            raise ValueError("a must be a sequence or an integer, not 0-d array")
        ax = normalize_axis_index(axis, arr.ndim)
        pop = arr.shape[ax]
    shape = () if size is None else ((int(size),) if numpy.ndim(size) == 0 else tuple(size))
    k = math.prod(shape)
    if pop == 0 and k:
        raise ValueError("a cannot be empty unless no samples are taken")
    if p is not None:
        p = _check_p(xp, p, pop)
    if replace:
        if p is None:
            idx = g.integers(0, pop, size=shape) if k else xp.zeros(shape, dtype=numpy.int64)
        else:
            cdf = xp.cumsum(p)
            cdf = cdf / cdf[-1]
            idx = xp.minimum(xp.searchsorted(cdf, g.random(shape), side="right"), pop - 1)
    else:
        if k > pop:
            raise ValueError("Cannot take a larger sample than population when replace is False")
        if p is None:
            idx = _permutation_index(g, pop)[:k]
        else:
            if int(xp.count_nonzero(p)) < k:
                raise ValueError("Fewer non-zero entries in p than size")
            with numpy.errstate(divide="ignore"):
                keys = xp.where(p > 0, xp.log(_open01(g, (pop,))) / xp.where(p > 0, p, 1.0), -numpy.inf)
            idx = xp.argsort(-keys)[:k]
        if not shuffle:
            idx = xp.sort(idx)
        idx = idx.reshape(shape)
    if arr is None:
        return idx.astype(numpy.int64, copy=False)
    if size is None and arr.ndim == 1:
        return arr[idx]
    return xp.take(arr, idx, axis=ax)


@implements("random.Generator.bytes")
def bytes(g, length):
    """Generator.bytes: random bytes made on the GPU, then copied to the host (counted)."""
    from .. import _transfer

    b = g.integers(0, 256, size=int(length), dtype=numpy.uint8)
    return _transfer.to_host(b, "Generator.bytes").tobytes()


# ------------------------------------------------------------------ through CuPy's RandomState kernels

def _legacy(g):
    """A CuPy RandomState seeded from ``g``'s own stream: its kernels for the distributions
    CuPy's Generator lacks (von Mises, Zipf), and reproducible from ``g``'s seed."""
    seed = int(g.integers(0, 2 ** 32 - 1, size=1, dtype=numpy.int64)[0])  # (a seed any RandomState takes)
    return _xp().random.RandomState(seed)


@implements("random.Generator.vonmises")
def vonmises(g, mu, kappa, size=None):
    (mu, kappa), shape = _checked(size, ("mu", mu, None), ("kappa", kappa, "non-negative"))
    return _legacy(g).vonmises(mu, kappa, size=shape).astype(numpy.float64, copy=False)


@implements("random.Generator.zipf")
def zipf(g, a, size=None):
    xp = _xp()
    (a,), shape = _params(size, a)
    if not bool(xp.all(a > 1)):  # (NaN too)
        raise ValueError("a <= 1 or a is NaN")
    return _legacy(g).zipf(a, size=shape).astype(numpy.int64, copy=False)


@implements("random.Generator.multivariate_hypergeometric")
def multivariate_hypergeometric(g, colors, nsample, size=None, method="marginals"):
    """Generator.multivariate_hypergeometric: color by color, a hypergeometric draw from what
    is left (the law of both of NumPy's methods), with NumPy's checks."""
    xp = _xp()
    if method not in ("count", "marginals"):
        raise ValueError('method must be "count" or "marginals".')
    c = numpy.asarray(colors.get() if hasattr(colors, "get") else colors)
    if c.ndim != 1 or (c.size and (c.dtype.kind not in "iu" or c.min() < 0)):
        raise ValueError("colors must be a one-dimensional sequence of nonnegative integers not "
                         f"exceeding {numpy.iinfo(numpy.int64).max}.")
    if nsample < 0:
        raise ValueError("nsample must be nonnegative.")
    total = int(c.sum())
    if nsample > total:
        raise ValueError("nsample > sum(colors)")
    if method == "count" and total > 1000000000:
        raise ValueError("When method is 'count', sum(colors) must not exceed 1000000000")
    shape = _shape(size)
    out = xp.zeros(shape + (c.size,), dtype=numpy.int64)
    left = xp.full(shape, int(nsample), dtype=numpy.int64)
    rest = total
    for i in range(c.size - 1):
        good, bad = int(c[i]), rest - int(c[i])
        if good and bad:
            x = g.hypergeometric(good, bad, xp.maximum(left, 1), size=shape).astype(numpy.int64, copy=False)
            x = xp.where(left > 0, x, 0)
        else:  # no balls of this color, or only this color left
            x = xp.zeros(shape, numpy.int64) if not good else left.copy()
        out[..., i] = x
        left = left - x
        rest = bad
    if c.size:
        out[..., -1] = left
    return out


# ------------------------------------------------------------------ RandomState (legacy) methods CuPy's lacks

implements("random.RandomState.multinomial")(multinomial)


@implements("random.Generator.integers", replaces=True)
def integers(g, low, high=None, size=None, dtype=numpy.int64, endpoint=False):
    """Generator.integers with array bounds too (CuPy's takes Python ints only): a 63-bit draw
    reduced modulo each element's span (a bias of span / 2**63 at most), NumPy's checks."""
    xp = _xp()
    if numpy.ndim(low) == 0 and numpy.ndim(high) == 0:
        return g.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
    if high is None:
        low, high = 0, low
    lo, hi = (v.astype(numpy.int64) if isinstance(v, xp.ndarray) else xp.asarray(numpy.asarray(v, numpy.int64))
              for v in (low, high))
    if not endpoint:
        hi = hi - 1
    shape = _shape(size, lo.shape, hi.shape)
    info = numpy.iinfo(dtype)
    if bool(xp.any(lo > hi)):
        raise ValueError("low > high" if endpoint else "low >= high")
    if bool(xp.any(lo < info.min)):
        raise ValueError(f"low is out of bounds for {numpy.dtype(dtype).name}")
    if bool(xp.any(hi > info.max)):
        raise ValueError(f"high is out of bounds for {numpy.dtype(dtype).name}")
    span = (hi - lo).astype(numpy.uint64) + numpy.uint64(1)
    r = g.integers(0, info.max if info.max < 2**63 else 2**63 - 1, size=shape, dtype=numpy.int64, endpoint=True)
    return (lo + (r.astype(numpy.uint64) % span).astype(numpy.int64)).astype(dtype)


@implements("random.RandomState.random")
def random(rs, size=None):
    return _xp().asarray(rs.random_sample(size))  # (size=None: a 0-d GPU array, as CuPy's draws)


@implements("random.RandomState.random_integers")
def random_integers(rs, low, high=None, size=None):
    import warnings

    if high is None:
        high, low = low, 1
    warnings.warn(f"This function is deprecated. Please call randint({low}, {high} + 1) instead",
                  DeprecationWarning, stacklevel=3)
    return _xp().asarray(rs.randint(low, int(high) + 1, size=size)).astype(numpy.int64, copy=False)


@implements("random.RandomState.bytes")
def legacy_bytes(rs, length):
    """RandomState.bytes: random bytes made on the GPU, then copied to the host (counted)."""
    from .. import _transfer

    b = rs.randint(0, 256, size=int(length), dtype=numpy.uint8)
    return _transfer.to_host(b, "RandomState.bytes").tobytes()


# ------------------------------------------------------------------ spawn: from the seed sequence

@implements("random.Generator.spawn", holder=True)
def spawn(holder, n_children):
    """Generator.spawn: children seeded from NumPy's SeedSequence of the same seed, each a GPU
    Generator (CuPy's, seeded from the child sequence) with its host twin."""
    seq = holder._twin.bit_generator.seed_seq  # (NumPy's ValueError/TypeError for a bad n_children)
    out = []
    for child in seq.spawn(n_children):
        seed = int(child.generate_state(1, numpy.uint64)[0] >> numpy.uint64(1))
        # (holder's own class: the GPU object type of the routing layer above)
        out.append(type(holder)(_xp().random.default_rng(seed), numpy.random.default_rng(child), holder._label))
    return out
