"""Levenshtein edit distance of two length-n sequences, the DP table filled cell by cell."""

from . import _data

KIND = "loop"
SIZES = {"quick": 12, "full": 60}
TOLERANCE = (0.0, 0.0)  # integers: exact


def run(np, n):
    a = _data.integers(np, 0, 4, n, seed=33)
    b = _data.integers(np, 0, 4, n, seed=34)
    d = np.zeros((n + 1, n + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d
