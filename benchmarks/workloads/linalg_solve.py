"""Dense linear systems: np.linalg.solve and np.linalg.inv of a diagonally dominant n x n matrix."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 200, "full": 4000}
# cond(A) is near 2: LAPACK and cuSOLVER differ only by rounding in pivoting and summation order.
TOLERANCE = (1e-9, 1e-12)


def run(np, n):
    A = _data.uniform(np, (n, n), seed=1) + n * np.eye(n)
    b = _data.uniform(np, (n, 4), seed=2)
    x = np.linalg.solve(A, b)
    Ainv = np.linalg.inv(A)
    y = Ainv @ b[:, 0]
    return x, y
