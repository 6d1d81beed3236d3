"""First-order recursive (IIR) smoothing of an n x n image: causal and anti-causal passes along rows, then columns."""

from . import _data

KIND = "loop"
SIZES = {"quick": 32, "full": 1000}
A = 0.25  # y[k] = A x[k] + (1 - A) y[k-1]
# the same multiply-adds in the same order on every backend (a fused multiply-add may round
# once instead of twice), repeated along n samples with a decay of 0.75.
TOLERANCE = (1e-12, 1e-13)


def _smooth_rows(np, x):
    """Causal plus anti-causal first-order filter along each row of x, every row at once."""
    n = x.shape[1]
    y1 = np.empty_like(x)
    y2 = np.empty_like(x)
    y1[:, 0] = A * x[:, 0]
    for k in range(1, n):
        y1[:, k] = A * x[:, k] + (1 - A) * y1[:, k - 1]
    y2[:, n - 1] = A * x[:, n - 1]
    for k in range(n - 2, -1, -1):
        y2[:, k] = A * x[:, k] + (1 - A) * y2[:, k + 1]
    return y1 + y2 - A * x


def run(np, n):
    img = _data.uniform(np, (n, n), seed=51)
    rows = _smooth_rows(np, img)
    return _smooth_rows(np, rows.T).T
