"""RK4 time stepping of five damped coupled oscillators (a 10-element state) for n steps."""

import math

from . import _data

KIND = "loop"
SIZES = {"quick": 100, "full": 5000}
# a damped linear system: rounding differences do not grow.
TOLERANCE = (1e-10, 1e-12)


def rhs(np, y, k, c):
    x, v = y[:5], y[5:]
    force = -k * 2.0 * x
    force[1:] += k * x[:-1]
    force[:-1] += k * x[1:]
    return np.concatenate((v, force - c * v))


def run(np, n):
    y = _data.uniform(np, 10, seed=35, low=-1.0, high=1.0)
    k, c = 4.0 * math.pi**2, 0.05
    dt = 1e-3
    for _ in range(n):
        k1 = rhs(np, y, k, c)
        k2 = rhs(np, y + 0.5 * dt * k1, k, c)
        k3 = rhs(np, y + 0.5 * dt * k2, k, c)
        k4 = rhs(np, y + dt * k3, k, c)
        y = y + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y
