"""Cholesky factorisation row by row (Cholesky-Banachiewicz), in place, over the entries below the diagonal."""

from . import _data

KIND = "loop"
SIZES = {"quick": 24, "full": 320}
# each entry is a dot product of up to n terms, summed in another order on the GPU; the matrix
# is diagonally dominant, so the factor is well conditioned and the rounding stays near eps.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    B = _data.uniform(np, (n, n), seed=40)
    A = B @ B.T + n * np.eye(n)
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[j, :j]
            A[i, j] /= A[j, j]
        A[i, i] -= A[i, :i] @ A[i, :i]
        A[i, i] = np.sqrt(A[i, i])
    return np.tril(A)
