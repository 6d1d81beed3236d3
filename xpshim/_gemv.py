"""A vector and a matrix multiplied (``x @ M``, ``M @ x``) by one kernel launch.

A loop over the rows of a matrix multiplies a row by a block at every step
(``B[i, :] = L[i, :i + 1] @ B[:i + 1, :]``, back substitution's ``L[i, :i] @ y[:i]``). CuPy
sends every product to ``gemm`` (``cupy.dot`` reshapes the vector into a 1 x k matrix,
https://github.com/cupy/cupy/blob/main/cupy/_core/_routines_linalg.pyx, ``tensordot_core``),
whose set-up and kernel for a product with one column cost more than the step's own work.
Such a loop is bound by the host's time per call, not the device's: on an H100's host a
product of a row of 800 and an 800 x 800 block took 19.5-20.2 us through cuBLAS's ``gemv``
and 16.3-17.1 through one launch of a kernel of our own (benchmarks/HISTORY.md). So a small
product (a summed length of ``SMALL_K`` or less, ``SMALL`` elements or fewer) is that launch,
summing in a fixed order (each thread a strided slice of the summed axis, then the slices in
order); a larger one, whose device time is what counts, is cuBLAS's ``gemv``, the routine for
exactly this product. The answer is NumPy's in dtype and shape; its values agree as two
summation orders do (as every GPU product does).

Only real CuPy on float32 and float64 data whose matrix has one unit-stride axis takes this
path; anything else answers None and goes on to CuPy's own function.
"""

import numpy

from . import _backend

_F8, _F4 = numpy.dtype(numpy.float64), numpy.dtype(numpy.float32)
_SCALARS = (numpy.ones((), _F8), numpy.zeros((), _F8), numpy.ones((), _F4), numpy.zeros((), _F4))
# (alpha and beta by address, read once: NumPy's ``.ctypes`` costs microseconds a call)
_ONE = {_F8: _SCALARS[0].ctypes.data, _F4: _SCALARS[2].ctypes.data}
_ZERO = {_F8: _SCALARS[1].ctypes.data, _F4: _SCALARS[3].ctypes.data}
_INT_MAX = 2**31 - 1  # (cuBLAS's sizes and strides are C ints)
_lib = None  # (CuPy's array type, gemv by dtype, the cuBLAS handle's getter, the kernels), once CuPy is loaded
SMALL_K, SMALL = 2048, 1 << 22

# out[j] = sum_r v[r] m[r, j] ("vm": the matrix's second axis unit-strided, 32 outputs a block,
# 32 slices of the summed axis each), or out[i] = sum_c m[i, c] v[c] ("mv": the summed axis
# unit-strided, one warp an output); ``ld``: the other axis's stride, in elements
_SOURCE = r"""
template<typename T>
__device__ void vm(const T* v, long long sv, const T* m, long long ld, T* out, long long k, long long n) {
    __shared__ T part[32][33];
    long long j = (long long)blockIdx.x * 32 + threadIdx.x;
    T s = 0;
    if (j < n)
        for (long long r = threadIdx.y; r < k; r += 32) s += v[r * sv] * m[r * ld + j];
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && j < n) {
        T t = 0;
        for (int q = 0; q < 32; q++) t += part[q][threadIdx.x];
        out[j] = t;
    }
}
template<typename T>
__device__ void mv(const T* v, long long sv, const T* m, long long ld, T* out, long long k, long long n) {
    long long i = (long long)blockIdx.x * 8 + threadIdx.y;
    if (i >= n) return;
    T s = 0;
    for (long long c = threadIdx.x; c < k; c += 32) s += m[i * ld + c] * v[c * sv];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) out[i] = s;
}
#define GEMV_KERNEL(name, kind, T) extern "C" __global__ void name(const T* v, long long sv, const T* m, \
    long long ld, T* out, long long k, long long n) { kind<T>(v, sv, m, ld, out, k, n); }
GEMV_KERNEL(xpshim_vm_d, vm, double)
GEMV_KERNEL(xpshim_vm_f, vm, float)
GEMV_KERNEL(xpshim_mv_d, mv, double)
GEMV_KERNEL(xpshim_mv_f, mv, float)
"""


def _load():
    global _lib
    import cupy
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cublas
    try:  # (compiled at the first product, CuPy keeps it on disk; cuBLAS alone where it cannot compile)
        module = cupy.RawModule(code=_SOURCE)
        kernels = {(kind, dt): module.get_function(f"xpshim_{kind}_{dt.char}") for kind in ("vm", "mv") for dt in (_F8, _F4)}
    except Exception:
        kernels = None
    _lib = (cupy.ndarray, {_F8: cublas.dgemv, _F4: cublas.sgemv}, device.get_cublas_handle, kernels)
    return _lib


def product(a, b):
    """``a @ b`` of a raw CuPy vector and matrix (either order) by ``gemv``, or None when this
    path does not take them (other dtypes or layouts, an empty product, a length mismatch, the
    simulated GPU's arrays)."""
    if _lib is None:
        if getattr(_backend.xp, "__name__", "") != "cupy":
            return None
        _load()
    real, gemv, handle, kernels = _lib
    if type(a) is not real or type(b) is not real:
        return None
    dt = a.dtype
    if dt is not b.dtype and dt != b.dtype:
        return None
    if dt != _F8 and dt != _F4:
        return None
    if a.ndim == 1 and b.ndim == 2:
        v, m, vec_first = a, b, True
    elif a.ndim == 2 and b.ndim == 1:
        v, m, vec_first = b, a, False
    else:
        return None
    rows, cols = m.shape
    k = rows if vec_first else cols  # the summed length
    if v.shape[0] != k or rows == 0 or cols == 0:
        return None
    it = dt.itemsize
    sv, s0, s1 = v.strides[0], m.strides[0], m.strides[1]
    if sv <= 0 or sv % it:
        return None
    # cuBLAS reads column-major matrices: a C-ordered block (unit stride along its rows) is the
    # column-major transpose, an F-ordered one is itself (its leading dimension at least its rows)
    if s1 == it and (s0 >= cols * it or rows == 1) and s0 % it == 0:
        op, n_rows, n_cols, lda = (0 if vec_first else 1), cols, rows, max(s0 // it, cols)
    elif s0 == it and (s1 >= rows * it or cols == 1) and s1 % it == 0:
        op, n_rows, n_cols, lda = (1 if vec_first else 0), rows, cols, max(s1 // it, rows)
    else:
        return None
    if max(n_rows, n_cols, lda, sv // it) > _INT_MAX:
        return None
    out = real((cols if vec_first else rows,), dt)  # (cupy.empty's own steps, a Python frame less)
    if k <= SMALL_K and rows * cols <= SMALL and kernels is not None:
        # op 0: out[j] = sum_r v[r] M'[r, j] in the column-major reading above, M' = M or its
        # transpose, whose unit-strided axis is then the one of the outputs ("vm"); op 1: the
        # summed one ("mv")
        n_out = out.shape[0]
        if op == 0:
            kernels["vm", dt](((n_out + 31) >> 5,), (32, 32), (v, sv // it, m, lda, out, k, n_out))
        else:
            kernels["mv", dt](((n_out + 7) >> 3,), (32, 8), (v, sv // it, m, lda, out, k, n_out))
        return out
    gemv[dt](handle(), op, n_rows, n_cols, _ONE[dt], m.data.ptr, lda,
             v.data.ptr, sv // it, _ZERO[dt], out.data.ptr, 1)
    return out
