"""Your own Numba CUDA kernel on xpshim arrays, without a copy: saxpy, checked against NumPy.

    python examples/own_kernel.py [--n 1000000]

On a GPU the kernel gets the GPU arrays themselves (``__cuda_array_interface__``):
it reads x and y and writes out in place, and nothing crosses to the host until
the check. A Numba CUDA kernel runs only on an NVIDIA GPU, or in Numba's CUDA
simulator: without a GPU the example says so and how to run it there,

    NUMBA_ENABLE_CUDASIM=1 python examples/own_kernel.py --n 10000

where xpshim's arrays are NumPy arrays and the simulator runs the kernel on them,
one thread after another (slowly: hence the small --n). The seed's CUDA C kernel is
examples/cuda_kernel.py.
"""

import argparse
import os

import numpy
from numba import cuda

import xpshim as np


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000)
    args = p.parse_args(argv)
    if not cuda.is_available():  # (True in Numba's simulator)
        raise SystemExit(
            "This example runs a Numba CUDA kernel, and Numba finds no NVIDIA GPU it can use here "
            f"(numba.cuda.is_available() is False; xpshim: {np.why_device()}).\n"
            "Run it in Numba's CUDA simulator instead, with a small "
            "--n (it runs one thread after another):\n"
            "    NUMBA_ENABLE_CUDASIM=1 python examples/own_kernel.py --n 10000")
    x = np.linspace(0.0, 1.0, args.n)
    y = np.ones(args.n)
    out = np.empty(args.n)
    threads = 256
    saxpy[(args.n + threads - 1) // threads, threads](2.0, x, y, out)  # on x, y and out's memory
    want = 2.0 * numpy.linspace(0.0, 1.0, args.n) + 1.0
    numpy.testing.assert_allclose(np.asnumpy(out), want, rtol=1e-12)
    sim = " (Numba's CUDA simulator)" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else ""
    print(f"saxpy of {args.n} elements ran on the {np.get_device(out).upper()} arrays{sim}; matches NumPy")
    return out


if __name__ == "__main__":
    main()
