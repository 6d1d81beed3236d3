"""k-means (k=8) on n points in 3-D: broadcast distances, argmin, per-cluster means by bincount."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 20_000, "full": 500_000}
ITERS = 15
# clusters are well separated, so no point is within rounding of two centroids: the labels agree
# exactly and the centroids are means of the same points, summed in another order.
TOLERANCE = [(1e-9, 1e-12), (0.0, 0.0)]


def run(np, n):
    k, d = 8, 3
    centers = _data.uniform(np, (k, d), seed=9, low=0.0, high=20.0)
    labels = _data.integers(np, 0, k, n, seed=10)
    X = centers[labels] + 0.5 * _data.normal(np, (n, d), seed=11)
    C = X[:k].copy()
    for _ in range(ITERS):
        d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        lab = np.argmin(d2, axis=1)
        counts = np.bincount(lab, minlength=k)
        for j in range(d):
            C[:, j] = np.bincount(lab, weights=X[:, j], minlength=k) / np.maximum(counts, 1)
    return C, counts
