"""A vector and a matrix multiplied (``x @ M``, ``M @ x``) by one cuBLAS ``gemv``.

A loop over the rows of a matrix multiplies a row by a block at every step
(``B[i, :] = L[i, :i + 1] @ B[:i + 1, :]``, back substitution's ``L[i, :i] @ y[:i]``). CuPy
sends every product to ``gemm`` (``cupy.dot`` reshapes the vector into a 1 x k matrix,
https://github.com/cupy/cupy/blob/main/cupy/_core/_routines_linalg.pyx, ``tensordot_core``),
whose set-up and kernel for a product with one column cost more than the step's own work;
``gemv`` is cuBLAS's routine for exactly this product. The answer is NumPy's in dtype and
shape; its values agree as two summation orders do (as every GPU product does).

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
_lib = None  # (CuPy's array type, gemv by dtype, the cuBLAS handle's getter), once CuPy is loaded


def _load():
    global _lib
    import cupy
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cublas
    _lib = (cupy.ndarray, {_F8: cublas.dgemv, _F4: cublas.sgemv}, device.get_cublas_handle)
    return _lib


def product(a, b):
    """``a @ b`` of a raw CuPy vector and matrix (either order) by ``gemv``, or None when this
    path does not take them (other dtypes or layouts, an empty product, a length mismatch, the
    simulated GPU's arrays)."""
    if _lib is None:
        if getattr(_backend.xp, "__name__", "") != "cupy":
            return None
        _load()
    real, gemv, handle = _lib
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
    gemv[dt](handle(), op, n_rows, n_cols, _ONE[dt], m.data.ptr, lda,
             v.data.ptr, sv // it, _ZERO[dt], out.data.ptr, 1)
    return out
