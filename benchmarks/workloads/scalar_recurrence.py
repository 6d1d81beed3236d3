"""A first-order recurrence a[i] = a[i-1] * r + x[i], read and written element by element."""

from . import _data

KIND = "loop"
SIZES = {"quick": 300, "full": 20_000}
# one multiplication and one addition per element, in the same order.
TOLERANCE = (1e-12, 1e-14)


def run(np, n):
    x = _data.uniform(np, n, seed=36)
    r = 0.95
    a = np.empty_like(x)
    a[0] = x[0]
    for i in range(1, n):
        a[i] = a[i - 1] * r + x[i]
    return a
