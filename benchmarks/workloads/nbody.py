"""Gravitational n-body, all pairs by broadcasting, leapfrog steps with softening."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 256, "full": 2048}
STEPS = 5
# five steps of a softened system: rounding in the pair sums grows little.
TOLERANCE = (1e-9, 1e-12)


def accelerations(np, pos, mass, eps2=1e-2):
    dx = pos[None, :, :] - pos[:, None, :]
    r2 = (dx**2).sum(axis=2) + eps2
    w = mass[None, :] * r2**-1.5
    return (dx * w[:, :, None]).sum(axis=1)


def run(np, n):
    pos = _data.normal(np, (n, 3), seed=19)
    vel = 0.1 * _data.normal(np, (n, 3), seed=20)
    mass = _data.uniform(np, n, seed=21, low=0.5, high=1.5) / n
    dt = 1e-3
    acc = accelerations(np, pos, mass)
    for _ in range(STEPS):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = accelerations(np, pos, mass)
        vel = vel + 0.5 * dt * acc
    return pos, vel
