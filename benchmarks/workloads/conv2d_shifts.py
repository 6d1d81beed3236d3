"""Small 2-d convolution (valid part) of an n x n image with a 7 x 7 kernel, as a sum of shifted, scaled copies."""

from . import _data

KIND = "loop"
SIZES = {"quick": 40, "full": 1000}
K = 7
# 49 products summed per pixel in the same order on every backend (a fused multiply-add may
# round once instead of twice).
TOLERANCE = (1e-12, 1e-12)


def run(np, n):
    img = _data.uniform(np, (n, n), seed=55)
    w = _data.normal(np, (K, K), seed=56)
    h = n - K + 1
    out = np.zeros((h, h))
    for di in range(K):
        for dj in range(K):
            out += w[di, dj] * img[di:di + h, dj:dj + h]
    return out
