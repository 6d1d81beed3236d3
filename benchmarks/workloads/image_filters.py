"""3x3 box blur then Sobel edge magnitude of an n x n image, by slicing."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 256, "full": 6000}
# additions and one hypot per pixel.
TOLERANCE = (1e-12, 1e-12)


def run(np, n):
    img = _data.uniform(np, (n, n), seed=14)
    b = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
         + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
         + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9.0
    gx = (b[:-2, 2:] + 2 * b[1:-1, 2:] + b[2:, 2:]) - (b[:-2, :-2] + 2 * b[1:-1, :-2] + b[2:, :-2])
    gy = (b[2:, :-2] + 2 * b[2:, 1:-1] + b[2:, 2:]) - (b[:-2, :-2] + 2 * b[:-2, 1:-1] + b[:-2, 2:])
    mag = np.hypot(gx, gy)
    edges = mag > 0.5 * mag.max()
    return mag, np.count_nonzero(edges)
