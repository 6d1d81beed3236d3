"""Sorting, np.unique with counts and np.searchsorted on n integers and n floats."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100_000, "full": 20_000_000}
TOLERANCE = (0.0, 0.0)  # integers and positions: exact


def run(np, n):
    keys = _data.integers(np, 0, n // 8, n, seed=15)
    vals = _data.uniform(np, n, seed=16)
    s = np.sort(vals)
    u, counts = np.unique(keys, return_counts=True)
    queries = _data.uniform(np, 1000, seed=17)
    pos = np.searchsorted(s, queries)
    order = np.argsort(keys, kind="stable")
    return u, counts, pos, order[:1000], s[::997]
