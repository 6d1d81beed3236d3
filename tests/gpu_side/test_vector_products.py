"""A vector and a matrix multiplied by ``@`` answer NumPy's product, whatever the layout and size:
on a GPU, those with a unit-stride matrix axis go to ``xpshim/_gemv.py`` (its own kernel when
small, cuBLAS's ``gemv`` when large), the rest to CuPy.

Generated over the layouts a row loop makes (a row times a block of rows, a block times a
column, transposes, strided vectors, a column of a C-ordered matrix, a broadcast row) and the
dtypes; NumPy's answer on the same host data is the reference.
"""

import numpy
import pytest

import xpshim
from xpshim import _gemv

_M = numpy.random.default_rng(5).uniform(-1, 1, (9, 7))
_V = numpy.random.default_rng(6).uniform(-1, 1, 20)

# name -> (vector, matrix, vector first), each taken by ``m`` (NumPy or xpshim) from the arrays
# ``M`` and ``V`` of that module, as a loop takes its parts: on the GPU, of GPU arrays
LAYOUTS = {
    "row @ block": (lambda m, M, V: M[4, :5], lambda m, M, V: M[:5, :], True),
    "row @ C matrix": (lambda m, M, V: V[:9], lambda m, M, V: M, True),
    "row @ F matrix": (lambda m, M, V: V[:9], lambda m, M, V: m.asfortranarray(M), True),
    "row @ transposed": (lambda m, M, V: V[:7], lambda m, M, V: M.T, True),
    "strided row @ matrix": (lambda m, M, V: V[::2][:9], lambda m, M, V: M, True),
    "row @ column block": (lambda m, M, V: V[:9], lambda m, M, V: M[:, 2:5], True),
    "row @ strided columns": (lambda m, M, V: V[:9], lambda m, M, V: M[:, ::2], True),
    "row @ one row": (lambda m, M, V: V[:1], lambda m, M, V: M[3:4, :], True),
    "row @ broadcast rows": (lambda m, M, V: V[:9], lambda m, M, V: m.broadcast_to(M[0], (9, 7)), True),
    "matrix @ column": (lambda m, M, V: V[:7], lambda m, M, V: M, False),
    "F matrix @ column": (lambda m, M, V: V[:7], lambda m, M, V: m.asfortranarray(M), False),
    "block @ strided column": (lambda m, M, V: V[::3][:4], lambda m, M, V: M[2:6, :4], False),
    "transposed @ column": (lambda m, M, V: V[:9], lambda m, M, V: M.T, False),
    "matrix @ one column": (lambda m, M, V: V[:1], lambda m, M, V: M[:, 2:3], False),
}
# (the two whose matrix has no unit-stride axis: CuPy's own product)
NO_UNIT_STRIDE = ("row @ broadcast rows", "row @ strided columns")


def _taken(gpu, layout, dtype, how, k):
    """What ``_gemv.product`` is asked and answers for one call: [] where it is not asked."""
    first = LAYOUTS[layout][2]
    if how == "dot" and not first and k <= 8 and dtype != "complex128" and gpu == "cuda":
        return []  # (a matrix times a short weight vector: _fused.dot_last's one-pass kernel, on CuPy)
    if how == "@" and dtype == "int64":
        return []  # (the operator on integers: CuPy's own product, as before)
    if gpu == "cuda" and dtype in ("float64", "float32"):
        return [layout not in NO_UNIT_STRIDE]
    return [False]  # (other dtypes, or the simulated GPU, which has no cuBLAS: asked, declined)


@pytest.mark.parametrize("how", ["@", "dot"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_vector_and_a_matrix_multiply_as_numpys(gpu, layout, dtype, how, monkeypatch):
    v, mat, first = LAYOUTS[layout]
    HM, HV = _M.astype(dtype), _V.astype(dtype)
    XM, XV = xpshim.asarray(HM), xpshim.asarray(HV)
    hv, hm = v(numpy, HM, HV), mat(numpy, HM, HV)
    xv, xm = v(xpshim, XM, XV), mat(xpshim, XM, XV)
    assert xm.strides == hm.strides and xv.strides == hv.strides  # (the layout on the GPU is the host's)
    taken = []
    real = _gemv.product

    def spy(a, b):
        r = real(a, b)
        taken.append(r is not None)
        return r
    monkeypatch.setattr(_gemv, "product", spy)
    if how == "@":
        want, got = (hv @ hm, xv @ xm) if first else (hm @ hv, xm @ xv)
    else:
        want, got = (numpy.dot(hv, hm), xpshim.dot(xv, xm)) if first else (numpy.dot(hm, hv), xpshim.dot(xm, xv))
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    h = xpshim.asnumpy(got)
    if want.dtype.kind in "fc":
        numpy.testing.assert_allclose(h, want, rtol=1e-5 if want.dtype.itemsize == 4 else 1e-12, atol=1e-6)
    else:
        numpy.testing.assert_array_equal(h, want)
    assert xpshim.asnumpy(XV).tolist() == HV.tolist() and xpshim.asnumpy(XM).tolist() == HM.tolist()  # (inputs untouched)
    assert taken == _taken(gpu, layout, dtype, how, hv.shape[0])

def test_a_row_loop_of_products_is_numpys(gpu):
    """``B[i, :] = L[i, :i + 1] @ B[:i + 1, :]`` from the bottom row up: each step reads rows the
    earlier steps did not yet write."""
    rng = numpy.random.default_rng(7)
    L, B = numpy.tril(rng.uniform(-1, 1, (40, 40))), rng.uniform(0, 1, (40, 30))
    want = B.copy()
    for i in range(39, -1, -1):
        want[i, :] = L[i, :i + 1] @ want[:i + 1, :]
    xL, xB = xpshim.asarray(L), xpshim.array(B)
    for i in range(39, -1, -1):
        xB[i, :] = xL[i, :i + 1] @ xB[:i + 1, :]
    numpy.testing.assert_allclose(xpshim.asnumpy(xB), want, rtol=1e-10)


# (summed length, outputs): across the kernel's 32-wide blocks and slices, and past SMALL_K
SHAPES = [(1, 1), (1, 45), (33, 1), (31, 33), (65, 100), (700, 3), (3, 700), (2049, 5), (5, 2049)]


@pytest.mark.parametrize("engine", ["kernel", "cublas"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("first", [True, False], ids=["vector first", "matrix first"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_products_of_every_size_are_numpys(gpu, shape, first, order, dtype, engine, monkeypatch):
    """Small products go to ``_gemv``'s own kernel, larger ones (and all, with ``SMALL_K`` 0) to
    cuBLAS: either way NumPy's answer, within what two summation orders differ by (a bound from
    the sum of the terms' magnitudes)."""
    if engine == "cublas":
        monkeypatch.setattr(_gemv, "SMALL_K", 0)
    k, n = shape
    rng = numpy.random.default_rng(k * 1000 + n)
    hm = rng.uniform(-1, 1, (k, n) if first else (n, k)).astype(dtype)
    hm = numpy.asfortranarray(hm) if order == "F" else hm
    hv = rng.uniform(-1, 1, 2 * k).astype(dtype)[::2]  # (a strided vector)
    xm, xv = xpshim.asarray(hm), xpshim.asarray(hv.base)[::2]
    assert xm.strides == hm.strides and xv.strides == hv.strides
    got = xpshim.asnumpy(xv @ xm if first else xm @ xv)
    want = (hv.astype("f8") @ hm.astype("f8")) if first else (hm.astype("f8") @ hv.astype("f8"))
    mag = (abs(hv).astype("f8") @ abs(hm).astype("f8")) if first else (abs(hm).astype("f8") @ abs(hv).astype("f8"))
    eps = numpy.finfo(dtype).eps
    assert got.dtype == numpy.dtype(dtype) and got.shape == (n,)
    assert numpy.all(abs(got - want) <= 4 * k * eps * mag + eps), (abs(got - want) / (k * eps * mag + eps)).max()
