"""Mandelbrot set on an n x n grid, iterating only the points not yet escaped (boolean mask)."""

KIND = "vectorized"
SIZES = {"quick": 200, "full": 2000}
MAXITER = 100
# a point on the set's edge may escape one iteration sooner or later when z*z rounds differently:
# the totals are compared, not each point's count.
TOLERANCE = (1e-3, 0.0)


def run(np, n):
    x = np.linspace(-2.2, 0.8, n)
    y = np.linspace(-1.5, 1.5, n)
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)
    escaped_at = np.full(c.shape, MAXITER, dtype=np.int32)
    active = np.ones(c.shape, dtype=bool)
    for i in range(MAXITER):
        z[active] = z[active] ** 2 + c[active]
        out = active & (np.abs(z) > 2.0)
        escaped_at[out] = i
        active &= ~out
    return escaped_at.sum(), np.count_nonzero(active)
