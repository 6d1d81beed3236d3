"""Power iteration for the dominant eigenpair of a positive 50 x 50 matrix, n iterations."""

from . import _data

KIND = "loop"
SIZES = {"quick": 50, "full": 2000}
# the Perron eigenvector is positive and the gap large: the iteration contracts rounding away.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    M = _data.uniform(np, (50, 50), seed=38)
    v = np.ones(50) / np.sqrt(50)
    lam = 0.0
    for _ in range(n):
        w = M @ v
        lam = float(v @ w)
        v = w / np.linalg.norm(w)
    return lam, v
