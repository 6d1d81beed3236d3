"""Covariance matrix of n variables, centred column by column and filled one row of the upper triangle at a time."""

from . import _data

KIND = "loop"
SIZES = {"quick": 20, "full": 640}
# means and dot products of n samples, summed in another order on the GPU.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    N = n
    data = np.array(_data.normal(np, (N, n), seed=49))
    for j in range(n):
        data[:, j] -= data[:, j].mean()
    cov = np.empty((n, n))
    for i in range(n):
        cov[i, i:] = data[:, i] @ data[:, i:] / (N - 1)
        cov[i:, i] = cov[i, i:]
    return cov
