"""Product of a lower triangular n x n matrix and an n x n block, in place, one row at a time from the bottom up."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 800}
# each row is a product of up to n terms, summed in another order on the GPU.
TOLERANCE = (1e-11, 1e-12)


def run(np, n):
    L = np.tril(_data.uniform(np, (n, n), seed=45, low=-1.0, high=1.0))
    B = np.array(_data.uniform(np, (n, n), seed=46))
    for i in range(n - 1, -1, -1):  # row i reads rows 0..i of B, not yet overwritten
        B[i, :] = L[i, :i + 1] @ B[:i + 1, :]
    return B
