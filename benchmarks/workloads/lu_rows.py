"""LU factorisation without pivoting, row by row (Doolittle), in place, of a diagonally dominant n x n matrix."""

from . import _data

KIND = "loop"
SIZES = {"quick": 24, "full": 320}
# dot products of up to n terms, summed in another order on the GPU; diagonal dominance keeps
# the factors well conditioned without pivoting.
TOLERANCE = (1e-10, 1e-12)


def run(np, n):
    A = np.array(_data.uniform(np, (n, n), seed=44, low=-1.0, high=1.0))
    A += n * np.eye(n)
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        A[i, i:] -= A[i, :i] @ A[:i, i:]
    return A
