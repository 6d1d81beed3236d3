"""2-D heat equation, Jacobi iterations on an n x n grid with slicing, one hot edge."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 128, "full": 2048}
STEPS = 100
# each step is four additions and a multiplication per point, the same operations on every backend.
TOLERANCE = (1e-12, 1e-14)


def run(np, n):
    u = np.array(_data.uniform(np, (n, n), seed=6))
    u[0, :] = 1.0
    u[-1, :] = 0.0
    u[:, 0] = 0.0
    u[:, -1] = 0.0
    for _ in range(STEPS):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u
