"""GPU arrays handed to host libraries (each copy counted) and to device libraries (no copy).

Host libraries are the real ones: NumPy, Pillow, matplotlib, pandas. The device
libraries (CuPy, PyTorch, Numba CUDA) need the real GPU.
"""

import io

import numpy
import pytest

import xpshim as np
from xpshim._ndarray import ndarray as GpuArray


@pytest.fixture
def data(gpu):
    h = numpy.random.default_rng(0).random((6, 4))
    return np.asarray(h), h


def d2h():
    return np.stats()["transfers"]["device_to_host"]["count"]


def test_numpy_testing_scalar_path_asserts_take_gpu_arrays(gpu):
    # imported from numpy.testing, as NumPy's own tests and much user code do: these
    # take non-NumPy objects for scalars and call bool() on a GPU comparison
    from numpy.testing import assert_almost_equal, assert_approx_equal, assert_equal

    d = np.arange(3.0)
    assert_equal(d, [0.0, 1.0, 2.0])
    assert_equal(d.sum(), 3.0)  # a 0-d GPU array against a scalar, as a NumPy 0-d array
    assert_equal({"k": [d]}, {"k": [[0.0, 1.0, 2.0]]})  # through assert_equal's recursion
    assert_almost_equal(d / 3, [0.0, 1 / 3, 2 / 3])
    assert_approx_equal(d.sum(), 3.0)
    for f in (assert_equal, assert_almost_equal):
        with pytest.raises(AssertionError):
            f(d, [0.0, 1.0, 2.5])
    assert d2h() >= 6  # host copies, counted


def test_numpy_asarray_and_array(data):
    d, h = data
    np.reset_stats()
    a = numpy.asarray(d)
    assert type(a) is numpy.ndarray and a.flags.writeable
    numpy.testing.assert_array_equal(a, h)
    b = numpy.array(d, dtype=numpy.float32)
    numpy.testing.assert_array_equal(b, h.astype(numpy.float32))
    assert d2h() == 2


def test_pillow_fromarray(gpu):
    from PIL import Image

    h = numpy.random.default_rng(1).integers(0, 256, (5, 7, 3), dtype=numpy.uint8)
    d = np.asarray(h)
    np.reset_stats()
    im = Image.fromarray(d)
    assert im.size == (7, 5) and im.mode == "RGB"
    numpy.testing.assert_array_equal(numpy.asarray(im), h)
    assert d2h() >= 1
    g = Image.fromarray(d[..., 0])
    assert g.mode == "L"
    numpy.testing.assert_array_equal(numpy.asarray(g), h[..., 0])


def test_matplotlib_plot_and_imshow(data):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d, h = data
    fig, ax = plt.subplots()
    (line,) = ax.plot(d[:, 0], d[:, 1])
    numpy.testing.assert_array_equal(line.get_xydata(), numpy.column_stack([h[:, 0], h[:, 1]]))
    img = ax.imshow(d)
    numpy.testing.assert_array_equal(numpy.asarray(img.get_array()), h)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    assert buf.getvalue()[:4] == b"\x89PNG"


def test_pandas(data):
    pd = pytest.importorskip("pandas")
    d, h = data
    df = pd.DataFrame(d)
    numpy.testing.assert_array_equal(df.to_numpy(), h)
    s = pd.Series(d[:, 2])
    numpy.testing.assert_array_equal(s.to_numpy(), h[:, 2])


def test_print_tolist_tobytes(data, capsys):
    d, h = data
    print(d)
    assert capsys.readouterr().out.strip() == str(h)
    assert d.tolist() == h.tolist()
    assert d.tobytes() == h.tobytes()
    assert d[1:, ::2].tobytes() == h[1:, ::2].tobytes()


def test_numpy_testing_on_gpu_arrays(data):
    d, h = data
    numpy.testing.assert_allclose(d, h)
    np.testing.assert_array_equal(d * 1, h)
    np.testing.assert_equal(d, h)  # NumPy's own would call bool() on a GPU comparison
    np.testing.assert_equal(d[0].tolist(), list(d[0].tolist()))
    with pytest.raises(AssertionError):
        np.testing.assert_equal(d, h + 1)


# -------------------------------------------------------- device interop, real GPU only

def _ptr(x):
    return x.__cuda_array_interface__["data"][0]


def test_cuda_array_interface_and_cupy(real_gpu):
    cp = real_gpu
    d = np.arange(10.0)
    c = cp.asarray(d)
    assert isinstance(c, cp.ndarray) and _ptr(c) == _ptr(d)
    c[0] = 42
    assert float(d[0]) == 42.0  # shared memory
    back = np.asarray(cp.arange(3.0))
    assert isinstance(back, GpuArray)
    np.reset_stats()
    r = np.sum(cp.arange(4.0))  # a raw CuPy array is a GPU array to xpshim
    assert isinstance(r, GpuArray) and float(r) == 6.0


def test_dlpack_with_cupy_and_torch(real_gpu):
    cp = real_gpu
    d = np.arange(6.0).reshape(2, 3)
    c = cp.from_dlpack(d)
    assert _ptr(c) == _ptr(d)
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(d)
    assert t.is_cuda and t.data_ptr() == _ptr(d)
    t2 = torch.arange(5, device="cuda", dtype=torch.float32)
    x = np.from_dlpack(t2)
    assert isinstance(x, GpuArray) and _ptr(x) == t2.data_ptr()
    numpy.testing.assert_array_equal(np.asnumpy(x), numpy.arange(5, dtype=numpy.float32))


def test_numba_cuda_sees_the_same_memory(real_gpu):
    try:
        from numba import cuda

        dev = cuda.as_cuda_array(np.arange(4.0))
    except AttributeError as e:
        if "row_stack" in str(e):
            pytest.xfail("numba-cuda imports numpy.row_stack, removed in NumPy 2.5 (python -m xpshim info reports it)")
        raise
    d = np.arange(4.0)
    assert cuda.as_cuda_array(d).__cuda_array_interface__["data"][0] == _ptr(d)
    assert dev.shape == (4,)


_PTX_CHECK = """
import sys
import numpy
import xpshim as np
from xpshim import _backend
import fakecupy
_backend.install(fakecupy, "stand-in")
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack  # numba-cuda 0.30 with NumPy 2.5 (xpshim._kernels)
import numba
from numba import cuda, types
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
view = np.arange(10.0)[::2]
t, c = numba.typeof(view), numba.typeof(np.arange(5.0))
assert (t.layout, c.layout) == ("A", "C"), (t, c)
try:
    cuda.compile_ptx(saxpy, (types.float64, t, c, t), cc=(8, 0))
except Exception as e:
    print("SKIP", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    sys.exit(0)
print("PTX OK")
"""


def test_cuda_kernel_compiles_for_xpshim_array_types():
    # A CUDA kernel is typed by xpshim's Numba registration (the array's own layout:
    # "A" for a strided view, so its strides are used); compiling to PTX needs no GPU.
    import os
    import subprocess
    import sys

    pytest.importorskip("numba")
    here = os.path.dirname(os.path.abspath(__file__))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(here)), os.path.join(os.path.dirname(here), "support")])
    r = subprocess.run([sys.executable, "-c", _PTX_CHECK], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    if r.stdout.startswith("SKIP"):
        pytest.skip(f"no CUDA compiler here: {r.stdout.strip()}")
    assert "PTX OK" in r.stdout


def test_numpy_in_place_operator_with_a_gpu_operand_writes_the_numpy_array(gpu):
    """`h -= g` (h NumPy, g on the GPU) runs on the GPU and its result lands in h (counted)."""
    g = np.asarray(numpy.arange(5.0))
    h = numpy.ones(5)
    h -= g
    numpy.testing.assert_array_equal(h, 1.0 - numpy.arange(5.0))
    q, m = numpy.zeros(5), numpy.zeros(5)
    r = numpy.divmod(numpy.full(5, 7.0), g + 2, out=(q, m))
    assert r[0] is q and r[1] is m and np.get_device(g) == "gpu"
    numpy.testing.assert_array_equal(q, 7.0 // (numpy.arange(5.0) + 2))
    numpy.testing.assert_array_equal(m, 7.0 % (numpy.arange(5.0) + 2))


@pytest.mark.parametrize("make", [
    lambda m: m.zeros(3, dtype=object), lambda m: m.full((2, 2), None), lambda m: m.full(3, "ab"),
    lambda m: m.ones(4, dtype="m8[s]"), lambda m: m.empty(2, dtype=[("a", "i4")]).dtype,
    lambda m: m.zeros(3, dtype=numpy.longdouble), lambda m: m.asarray(numpy.arange(3.0, dtype=">f8")),
    lambda m: m.arange(4.0).astype(object), lambda m: m.arange(4.0).astype("m8[D]"),
    lambda m: m.nanmedian(m.array(numpy.nan).astype("m8[us]")[()]),
    lambda m: m.concatenate([numpy.array([None, 1], dtype=object), numpy.array(["x"], dtype=object)]),
])
def test_dtypes_without_a_gpu_form_are_numpys(gpu, make):
    """Object, string, datetime, structured, extended-precision and non-native dtypes: CuPy has
    no such arrays, so the call is NumPy's, on the host, with NumPy's result."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want, got = make(numpy), make(np)
    assert type(got) is type(want) and getattr(got, "dtype", None) == getattr(want, "dtype", None)
    if isinstance(want, numpy.ndarray) and want.dtype.kind not in "V":
        numpy.testing.assert_array_equal(got, want)
