"""Escape counts of the Mandelbrot set on an n x n grid, real arithmetic on the points still active, by index lists."""

KIND = "loop"
SIZES = {"quick": 40, "full": 400}
MAXITER = 80
# a point on the set's edge may escape one iteration sooner or later where a fused multiply-add
# rounds differently: the total of the counts is compared, not each point's, and the counts.
TOLERANCE = [(1e-3, 0.0), (0.0, 5.0)]


def run(np, n):
    cr = np.linspace(-2.0, 0.6, n)[None, :] * np.ones((n, 1))
    ci = np.linspace(-1.3, 1.3, n)[:, None] * np.ones((1, n))
    zr = np.zeros((n, n))
    zi = np.zeros((n, n))
    count = np.zeros((n, n), dtype=np.int64)
    idx = np.arange(n * n)
    zr, zi, cr, ci, count = zr.ravel(), zi.ravel(), cr.ravel(), ci.ravel(), count.ravel()
    for _ in range(MAXITER):
        if idx.size == 0:
            break
        r, i = zr[idx], zi[idx]
        zr[idx] = r * r - i * i + cr[idx]
        zi[idx] = 2.0 * r * i + ci[idx]
        inside = zr[idx] ** 2 + zi[idx] ** 2 <= 4.0
        count[idx[inside]] += 1
        idx = idx[inside]
    return count.sum(), idx.size
