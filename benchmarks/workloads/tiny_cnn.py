"""Forward pass of a tiny CNN on an n x n, 3-channel image: two 3 x 3 convolutions with ReLU and 2 x 2 max pooling, loops over channels, then a dense layer."""

from . import _data

KIND = "loop"
SIZES = {"quick": 16, "full": 224}
C1, C2, CLASSES = 8, 16, 10
# sums of up to 144 products per value, in the same order on every backend but the last
# layer's product (summed in another order on the GPU).
TOLERANCE = (1e-10, 1e-12)


def _conv_relu_pool(np, x, w, b):
    """3 x 3 valid convolution of channels x (cin, h, w) by w (cout, cin, 3, 3), ReLU, 2 x 2 max pool."""
    cout, cin = w.shape[0], w.shape[1]
    h, wd = x.shape[1] - 2, x.shape[2] - 2
    y = np.empty((cout, h // 2, wd // 2))
    for o in range(cout):
        acc = np.full((h, wd), b[o])
        for c in range(cin):
            for di in range(3):
                for dj in range(3):
                    acc += w[o, c, di, dj] * x[c, di:di + h, dj:dj + wd]
        acc = np.maximum(acc, 0.0)
        acc = acc[:h // 2 * 2, :wd // 2 * 2].reshape(h // 2, 2, wd // 2, 2)
        y[o] = acc.max(axis=(1, 3))
    return y


def run(np, n):
    x = _data.uniform(np, (3, n, n), seed=57)
    w1 = _data.normal(np, (C1, 3, 3, 3), seed=58, std=0.3)
    b1 = _data.normal(np, C1, seed=59, std=0.1)
    w2 = _data.normal(np, (C2, C1, 3, 3), seed=60, std=0.1)
    b2 = _data.normal(np, C2, seed=61, std=0.1)
    h = _conv_relu_pool(np, _conv_relu_pool(np, x, w1, b1), w2, b2)
    feats = h.reshape(-1)
    wd = _data.normal(np, (CLASSES, feats.size), seed=62, std=0.01)
    logits = wd @ feats
    return h, logits
