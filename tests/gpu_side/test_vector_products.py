"""A vector and a matrix multiplied by ``@`` answer NumPy's product, whatever the layout: on a
GPU, the ones cuBLAS's ``gemv`` can read go there (``xpshim/_gemv.py``), the rest to CuPy.

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

# name -> (vector, matrix, vector first): parts of host data as a loop takes them
LAYOUTS = {
    "row @ block": (lambda: _M[4, :5], lambda: _M[:5, :], True),
    "row @ C matrix": (lambda: _V[:9], lambda: _M, True),
    "row @ F matrix": (lambda: _V[:9], lambda: numpy.asfortranarray(_M), True),
    "row @ transposed": (lambda: _V[:7], lambda: _M.T, True),
    "strided row @ matrix": (lambda: _V[::2][:9], lambda: _M, True),
    "row @ column block": (lambda: _V[:9], lambda: _M[:, 2:5], True),
    "row @ strided columns": (lambda: _V[:9], lambda: _M[:, ::2], True),
    "row @ one row": (lambda: _V[:1], lambda: _M[3:4, :], True),
    "row @ broadcast rows": (lambda: _V[:9], lambda: numpy.broadcast_to(_M[0], (9, 7)), True),
    "matrix @ column": (lambda: _V[:7], lambda: _M, False),
    "F matrix @ column": (lambda: _V[:7], lambda: numpy.asfortranarray(_M), False),
    "block @ strided column": (lambda: _V[::3][:4], lambda: _M[2:6, :4], False),
    "transposed @ column": (lambda: _V[:9], lambda: _M.T, False),
    "matrix @ one column": (lambda: _V[:1], lambda: _M[:, 2:3], False),
}


@pytest.mark.parametrize("how", ["@", "dot"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_vector_and_a_matrix_multiply_as_numpys(gpu, layout, dtype, how, monkeypatch):
    v, m, first = LAYOUTS[layout]
    hv, hm = v().astype(dtype), m().astype(dtype)
    if layout == "row @ broadcast rows":
        hm = numpy.broadcast_to(hm[0], hm.shape)
    taken = []
    real = _gemv.product

    def spy(a, b):
        r = real(a, b)
        taken.append(r is not None)
        return r
    monkeypatch.setattr(_gemv, "product", spy)
    xv, xm = xpshim.asarray(hv), xpshim.asarray(hm)
    f = (lambda a, b: a @ b) if how == "@" else None
    want = (hv @ hm if first else hm @ hv) if f else (numpy.dot(hv, hm) if first else numpy.dot(hm, hv))
    got = (xv @ xm if first else xm @ xv) if f else (xpshim.dot(xv, xm) if first else xpshim.dot(xm, xv))
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    h = xpshim.asnumpy(got)
    if want.dtype.kind in "fc":
        numpy.testing.assert_allclose(h, want, rtol=1e-5 if want.dtype.itemsize == 4 else 1e-12, atol=1e-6)
    else:
        numpy.testing.assert_array_equal(h, want)
    assert xpshim.asnumpy(xv).tolist() == hv.tolist() and xpshim.asnumpy(xm).tolist() == hm.tolist()  # (inputs untouched)
    if gpu == "cuda" and dtype in ("float64", "float32"):
        # every layout above but the broadcast rows and the strided columns has one unit-stride axis
        assert taken == [layout not in ("row @ broadcast rows", "row @ strided columns")]
    elif dtype == "int64" and how == "@":
        assert taken == []  # (the operator on integers: CuPy's own product, as before)
    else:
        # (other dtypes, or the simulated GPU, which has no cuBLAS: asked, declined, CuPy's product)
        assert taken == [False]

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
