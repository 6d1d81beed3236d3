"""Symmetric rank-k update C = alpha A A^T + beta C on the lower triangle, one row of C at a time."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 800}
ALPHA, BETA = 1.5, 0.5
# each entry is a dot product of k terms, summed in another order on the GPU.
TOLERANCE = (1e-11, 1e-12)


def run(np, n):
    k = n
    A = _data.uniform(np, (n, k), seed=47, low=-1.0, high=1.0)
    C = np.array(_data.uniform(np, (n, n), seed=48))
    for i in range(n):
        C[i, :i + 1] *= BETA
        C[i, :i + 1] += ALPHA * (A[:i + 1] @ A[i])
    return np.tril(C)
