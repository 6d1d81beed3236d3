"""Modified Gram-Schmidt QR of an m x n matrix, column by column, one projection at a time."""

from . import _data

KIND = "loop"
SIZES = {"quick": 12, "full": 200}
# column norms and dot products of m terms, summed in another order on the GPU; the columns
# are far from dependent, so Q and R stay within a few eps of NumPy's.
TOLERANCE = [(1e-9, 1e-12), (1e-9, 1e-12)]


def run(np, n):
    m = 4 * n
    A = np.array(_data.uniform(np, (m, n), seed=43))
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.linalg.norm(A[:, k])
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = Q[:, k] @ A[:, j]
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R
