"""LU factorisation with partial pivoting written by hand: a Python loop over the n rows."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 300}
# the same eliminations in the same order; pivots are never within rounding of each other.
TOLERANCE = [(1e-9, 1e-12), (0.0, 0.0)]


def run(np, n):
    A = np.array(_data.uniform(np, (n, n), seed=30))
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + int(np.argmax(np.abs(A[k:, k])))
        if p != k:
            A[[k, p]] = A[[p, k]]
            perm[[k, p]] = perm[[p, k]]
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A, perm
