"""The seed's CUDA C kernel (its PyCUDA example) on xpshim arrays: c = a * b, with no copy.

    python examples/cuda_kernel.py [--n 400]

The seed compiles a CUDA C kernel with PyCUDA, allocates device memory, copies a and b over,
launches the kernel, and copies c back. With xpshim the arrays already live where the kernel
runs: CuPy compiles the same kernel (cupy.RawKernel), and xpshim.cupy_kernel lets it take
xpshim arrays (docs/kernels.md):

- on a GPU, arrays on the GPU (XPSHIM_DEVICE=gpu, or auto mode from the crossover up:
  --n 1000000) go to the kernel without a copy: it reads and writes their own memory;
- in auto mode, the seed's 400-element arrays are NumPy arrays (under the crossover):
  cupy_kernel copies them to the GPU for the kernel and back after it, each copy counted;
- without a GPU (or on the simulated one, XPSHIM_SIMULATE_GPU=1), it says so and runs the
  NumPy equivalent, c = a * b.
"""

import argparse

import numpy

import xpshim as np

# The seed's kernel. CuPy finds a kernel by its C name, hence `extern "C"` (PyCUDA's SourceModule
# adds it itself); `n` and its check let any size run (the seed launches exactly one thread an element).
SOURCE = r"""
extern "C" __global__ void multiply_them(float *a, float *b, float *c, int n) {
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < n)
        c[idx] = a[idx] * b[idx];
}
"""


def gpu_kernel():
    """(the seed's kernel, compiled by CuPy, taking xpshim arrays, ""), or (None, why not here)."""
    try:
        import cupy
    except ImportError as e:
        return None, f"CuPy is not installed ({e}); pip install '.[cuda12]' on a machine with an NVIDIA GPU"
    try:
        return np.cupy_kernel(cupy.RawKernel(SOURCE, "multiply_them")), ""
    except np.DeviceError as e:
        return None, str(e)


def copies():
    t = np.stats()["transfers"]
    return t["host_to_device"]["count"], t["device_to_host"]["count"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=400, help="elements in each array (the seed's: 400)")
    n = p.parse_args(argv).n

    a = np.random.randn(n).astype(np.float32)
    b = np.random.randn(n).astype(np.float32)
    c = np.zeros_like(a)
    multiply_them, why = gpu_kernel()
    if multiply_them is None:
        print(f"No GPU runs CUDA C here: {why}")
        print("Running the NumPy equivalent instead: c = a * b")
        c[...] = a * b
    else:
        threads = min(n, 256) or 1
        before = copies()
        multiply_them(((n + threads - 1) // threads,), (threads,), (a, b, c, np.int32(n)))  # grid, block, args
        up, down = (x - y for x, y in zip(copies(), before))
        where = "GPU arrays" if np.get_device(c) == "gpu" else "NumPy arrays (auto mode keeps arrays under the crossover on the host)"
        how = "no copy: the kernel read and wrote their own GPU memory" if up == down == 0 else \
            f"{up} copies to the GPU and {down} back, counted in xpshim.stats()"
        print(f"The kernel ran on the GPU, on {n}-element {where}: {how}")
    print(c)
    # the check, on the host: the kernel multiplies in float32 as NumPy does
    numpy.testing.assert_array_equal(np.asnumpy(c), np.asnumpy(a) * np.asnumpy(b))
    print("c == a * b: True")
    return a, b, c


if __name__ == "__main__":
    main()
