"""Forward then back substitution, row by row, for a block of right-hand sides with an n x n triangular factor."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 1000}
NRHS = 128
# row-times-block products of up to n terms, summed in another order on the GPU; the diagonal
# dominates, so the solves are well conditioned.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    M = _data.uniform(np, (n, n), seed=41, low=-1.0, high=1.0)
    L = np.tril(M, -1) / n + np.diag(1.0 + np.abs(np.diag(M)))
    B = _data.uniform(np, (n, NRHS), seed=42)
    y = np.empty_like(B)
    for i in range(n):  # L y = B
        y[i] = (B[i] - L[i, :i] @ y[:i]) / L[i, i]
    U = L.T
    x = np.empty_like(B)
    for i in range(n - 1, -1, -1):  # L^T x = y
        x[i] = (y[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x
