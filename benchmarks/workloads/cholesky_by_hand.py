"""Cholesky factorisation written by hand, row by row, of an n x n symmetric positive definite matrix."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 300}
# dot products of up to n terms, summed in another order on the GPU.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    B = _data.uniform(np, (n, n), seed=31)
    M = B @ B.T + n * np.eye(n)
    L = np.zeros_like(M)
    for j in range(n):
        s = M[j, j] - L[j, :j] @ L[j, :j]
        L[j, j] = np.sqrt(s)
        L[j + 1:, j] = (M[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L
