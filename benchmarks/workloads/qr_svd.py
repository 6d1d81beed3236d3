"""QR factorisation and singular values of a tall 2n x n matrix (np.linalg.qr, np.linalg.svd)."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100, "full": 1500}
# R is unique up to the sign of each row, so |diag(R)| is compared; singular values are unique.
TOLERANCE = (1e-8, 1e-10)


def run(np, n):
    A = _data.normal(np, (2 * n, n), seed=5)
    Q, R = np.linalg.qr(A)
    s = np.linalg.svd(A, compute_uv=False)
    return np.abs(np.diag(R)), s, np.abs(Q).sum(axis=0)
