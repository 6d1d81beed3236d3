"""The seed's matrix product in plain NumPy: the library call and the Numba @jit triple loop.

    python matmul.py N output.npz   (seeded, so runs can be compared)
"""

import sys

import numpy as np
from numba import jit


@jit(nopython=True)
def matrix_multiplication(A, B):
    result = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            for k in range(A.shape[1]):
                result[i, j] += A[i, k] * B[k, j]
    return result


n = int(sys.argv[1])
np.random.seed(0)
A = np.random.rand(n, n)
B = np.random.rand(n, n)
result = np.dot(A, B)
loop = matrix_multiplication(A, B)
np.savez(sys.argv[2], A=A, B=B, result=result, loop=loop)
print("loop matches np.dot:", np.allclose(loop, result))
