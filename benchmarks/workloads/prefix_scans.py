"""Prefix scans of n values: cumulative sum, running maximum, moving average, row-wise cumsum."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100_000, "full": 50_000_000}
WINDOW = 50
# a scan sums in another order on the GPU: errors grow with the partial sums (about sqrt(n) here).
TOLERANCE = [(1e-9, 1e-7), (1e-9, 1e-7), (1e-7, 1e-7), (1e-9, 1e-9)]


def run(np, n):
    x = _data.normal(np, n, seed=18)
    c = np.cumsum(x)
    runmax = np.maximum.accumulate(c)
    c0 = np.concatenate((np.zeros(1), c))
    moving = (c0[WINDOW:] - c0[:-WINDOW]) / WINDOW
    rows = np.cumsum(x[: (n // 100) * 100].reshape(-1, 100), axis=1)
    return c, runmax, moving, rows[:, -1]
