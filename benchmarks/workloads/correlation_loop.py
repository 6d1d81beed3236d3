"""Pearson correlation matrix of n variables: each column standardised in a loop, then every pair's product."""

from . import _data

KIND = "loop"
SIZES = {"quick": 20, "full": 300}
# means, standard deviations and dot products of 3n samples, summed in another order on the GPU.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    N = 3 * n
    data = np.array(_data.uniform(np, (N, n), seed=50))
    for j in range(n):
        col = data[:, j]
        mean = col.sum() / N
        std = np.sqrt(((col - mean) ** 2).sum() / N)
        data[:, j] = (col - mean) / (np.sqrt(N) * std)
    corr = np.eye(n)
    for i in range(n - 1):
        for j in range(i + 1, n):
            corr[i, j] = corr[j, i] = data[:, i] @ data[:, j]
    return corr
