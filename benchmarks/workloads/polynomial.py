"""Polynomial evaluation (np.polyval with a list of coefficients) and a degree-5 least-squares fit."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 100_000, "full": 50_000_000}
COEFFS = [0.5, -1.2, 0.3, 2.0, -0.7, 1.1]
# Horner's rule in the same order everywhere; the fit goes through a QR-based lstsq on each side.
TOLERANCE = [(1e-12, 1e-12), (1e-7, 1e-9)]


def run(np, n):
    x = _data.uniform(np, n, seed=22, low=-1.0, high=1.0)
    y = np.polyval(COEFFS, x)
    m = min(n, 10_000)
    noisy = y[:m] + 0.01 * np.sin(50.0 * x[:m])
    fit = np.polyfit(x[:m], noisy, 5)
    return y, fit
