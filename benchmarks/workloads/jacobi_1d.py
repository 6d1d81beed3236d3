"""1-d Jacobi iterations of a three-point average on n points, two sweeps a step between two arrays."""

from . import _data

KIND = "loop"
SIZES = {"quick": 200, "full": 50000}
STEPS = 1000
# three additions and a multiplication per point, the same on every backend.
TOLERANCE = (1e-12, 1e-14)


def run(np, n):
    a = np.array(_data.uniform(np, n, seed=53))
    b = np.array(a)
    third = 1.0 / 3.0
    for _ in range(STEPS):
        b[1:-1] = third * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = third * (b[:-2] + b[1:-1] + b[2:])
    return a
