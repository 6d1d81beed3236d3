"""np.einsum contractions: batched matrix products, batched traces, a matrix-vector and a full contraction."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 16, "full": 512}
# n batches of 128 x 128 matrices; sums of 128 terms in another order.
TOLERANCE = (1e-11, 1e-11)


def run(np, n):
    A = _data.normal(np, (n, 128, 128), seed=27)
    B = _data.normal(np, (n, 128, 128), seed=28)
    w = _data.normal(np, 128, seed=29)
    C = np.einsum("bij,bjk->bik", A, B)
    traces = np.einsum("bii->b", C)
    Aw = np.einsum("bij,j->bi", A, w)
    total = np.einsum("bij,bij->", A, B)
    gram = np.einsum("bij,bkj->ik", A, B)
    return traces, Aw, total, gram
