"""Matrix products: C = A @ B, then A.T @ C and a matrix-vector product, on n x n float64."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 300, "full": 4096}
# entries of A @ B are sums of n positive terms; BLAS and cuBLAS sum them in other orders.
TOLERANCE = (1e-11, 0.0)


def run(np, n):
    A = _data.uniform(np, (n, n), seed=3)
    B = _data.uniform(np, (n, n), seed=4)
    C = A @ B
    D = np.dot(A.T, C)
    v = D @ np.ones(n)
    return D, v
