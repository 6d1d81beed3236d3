"""Alternating-direction implicit steps of the 2-d heat equation: tridiagonal solves along rows, then columns, by the Thomas algorithm."""

from . import _data

KIND = "loop"
SIZES = {"quick": 16, "full": 400}
STEPS = 6
R = 0.5  # diffusion number of each half step
# the Thomas algorithm's divisions and multiply-adds in the same order on every backend
# (a fused multiply-add may round once instead of twice), for a diagonally dominant system.
TOLERANCE = (1e-11, 1e-13)


def _sweep(np, u):
    """Solve (1 + 2R) x_k - R x_{k-1} - R x_{k+1} = rhs along axis 1 of u, every row at once;
    rhs is the explicit half step along axis 0 (edges held at zero)."""
    m = u.shape[1]
    rhs = u.copy()
    rhs[1:-1, :] = R * u[:-2, :] + (1 - 2 * R) * u[1:-1, :] + R * u[2:, :]
    c = np.empty(m)
    d = np.empty_like(u)
    b = 1 + 2 * R
    c[0] = -R / b
    d[:, 0] = rhs[:, 0] / b
    for k in range(1, m):  # forward elimination, one column at a time
        den = b + R * c[k - 1]
        c[k] = -R / den
        d[:, k] = (rhs[:, k] + R * d[:, k - 1]) / den
    x = np.empty_like(u)
    x[:, m - 1] = d[:, m - 1]
    for k in range(m - 2, -1, -1):  # back substitution
        x[:, k] = d[:, k] - c[k] * x[:, k + 1]
    return x


def run(np, n):
    u = np.array(_data.uniform(np, (n, n), seed=54))
    for _ in range(STEPS):
        u = _sweep(np, u).T  # implicit along rows, then (transposed) along columns
        u = _sweep(np, u).T
    return u
