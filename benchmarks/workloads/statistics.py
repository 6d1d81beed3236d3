"""Summary statistics of n normal samples: mean, std, percentiles and a 50-bin histogram."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100_000, "full": 50_000_000}
TOLERANCE = [
    (1e-9, 1e-12),  # mean and std: reductions summed in another order
    (1e-12, 1e-12),  # percentiles: the same sorted values, interpolated alike
    (0.0, 2.0),  # histogram counts: a value within rounding of a bin edge may fall on either side
]


def run(np, n):
    x = _data.normal(np, n, seed=7, mean=1.5, std=2.0)
    moments = np.stack([x.mean(), x.std(), np.median(x), x.var(ddof=1)])
    pct = np.percentile(x, [1, 5, 25, 50, 75, 95, 99])
    counts, edges = np.histogram(x, bins=50, range=(-6.5, 9.5))
    return moments, pct, counts
