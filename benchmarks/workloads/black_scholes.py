"""Black-Scholes call and put prices of n options, the normal CDF from a tanh approximation."""

import math

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100_000, "full": 20_000_000}
# log, exp, sqrt and tanh may each differ by an ulp between libm and CUDA's math library.
TOLERANCE = (1e-11, 1e-11)


def norm_cdf(np, x):
    return 0.5 * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def run(np, n):
    S = _data.uniform(np, n, seed=23, low=20.0, high=120.0)
    K = _data.uniform(np, n, seed=24, low=30.0, high=110.0)
    T = _data.uniform(np, n, seed=25, low=0.1, high=3.0)
    r, sigma = 0.03, _data.uniform(np, n, seed=26, low=0.1, high=0.6)
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    disc = K * np.exp(-r * T)
    call = S * norm_cdf(np, d1) - disc * norm_cdf(np, d2)
    put = call - S + disc
    return call, put
