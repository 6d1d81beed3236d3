"""The seed's matrix product, with only the import changed: the library call
(as the seed's CuPy code) and the Numba @jit triple loop (as its Numba code).

    python examples/matmul.py [--n 1000] [--no-loop]

The @jit loop runs on the CPU: its GPU array arguments arrive as host copies
(counted in xpshim.stats()) and its result is a NumPy array. In Dask mode
(XPSHIM_DEVICE=dask) the arrays' chunks live on the cluster, which Numba cannot
take: the loop gets NumPy copies gathered to this process, and says so.
"""

import argparse
import time

import xpshim as np
from numba import jit


@jit(nopython=True)
def matrix_multiplication(A, B):
    result = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            for k in range(A.shape[1]):
                result[i, j] += A[i, k] * B[k, j]
    return result


def _sync(x):
    float(x[0, 0])  # a scalar read waits for the device to finish


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--no-loop", action="store_true", help="skip the Numba triple loop")
    args = ap.parse_args(argv)
    n = args.n

    A = np.random.rand(n, n)
    B = np.random.rand(n, n)
    _sync(np.dot(A, B))  # warm-up: library load, handle creation
    t0 = time.perf_counter()
    result = np.dot(A, B)
    _sync(result)
    t_dot = time.perf_counter() - t0
    print(f"device: {np.get_device(A)}  np.dot {n}x{n}: {t_dot * 1e3:.2f} ms")

    if not args.no_loop:
        left, right, ref, where = A, B, result, ""
        if np.get_device(A) == "dask":
            # A @jit function runs in this process on arrays in its memory; a Dask array is a graph
            # of chunks on the cluster, so gather both (two counted copies, np.stats())
            left, right, ref = np.asnumpy(A), np.asnumpy(B), np.asnumpy(result)
            where = " on NumPy copies gathered from the Dask cluster (Numba cannot take Dask arrays)"
        t0 = time.perf_counter()
        loop = matrix_multiplication(left, right)
        t_loop = time.perf_counter() - t0
        same = np.allclose(np.asarray(loop), ref)
        print(f"numba @jit loop {n}x{n}{where}: {t_loop * 1e3:.0f} ms (first call, compile included); "
              f"matches np.dot: {bool(same)}")
    return A, B, result


if __name__ == "__main__":
    main()
