"""Gauss-Seidel sweeps for the Poisson equation on a small n x n grid, cell by cell."""

from . import _data

KIND = "loop"
SIZES = {"quick": 10, "full": 32}
SWEEPS = 10
# scalar arithmetic on the same values in the same order.
TOLERANCE = (1e-12, 1e-14)


def run(np, n):
    f = _data.uniform(np, (n, n), seed=32)
    u = np.zeros((n, n))
    u[0, :] = 1.0
    h2 = 1.0 / (n - 1) ** 2
    for _ in range(SWEEPS):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])
    return u
