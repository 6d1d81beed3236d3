"""Gaussian blur of an n x n image by FFT convolution (np.fft.rfft2 / irfft2)."""

from . import _data

KIND = "vectorized"
SIZES = {"quick": 256, "full": 4096}
# FFTW-style pocketfft and cuFFT round differently; values are O(1).
TOLERANCE = (1e-9, 1e-11)


def run(np, n):
    img = _data.uniform(np, (n, n), seed=8)
    r = np.arange(-8, 9)
    g = np.exp(-(r**2) / (2 * 3.0**2))
    kernel = np.outer(g, g)
    kernel /= kernel.sum()
    F = np.fft.rfft2(img)
    K = np.fft.rfft2(kernel, s=img.shape)
    return np.fft.irfft2(F * K, s=img.shape)
