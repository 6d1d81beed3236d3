"""``xpshim.cupy_kernel``: CuPy's user kernels (``RawKernel``, ``ElementwiseKernel``,
``ReductionKernel``) called with xpshim arrays. On the simulated GPU (``fake``) the kernels are
stand-ins that compute on the device arrays handed to them (the simulated GPU runs no CUDA C); on
a real GPU (``cuda``, ``-m gpu``) they are CuPy's, compiled from CUDA C: there the zero-copy claim
is checked on the GPU's memory itself.

    python -m pytest -m gpu tests/gpu_side/test_cupy_kernel.py tests/unit/test_examples.py
"""

import os
import subprocess
import sys

import numpy
import pytest
from conftest import transfers

import xpshim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = r"""
extern "C" __global__ void multiply_them(float *a, float *b, float *c) {
    int idx = threadIdx.x + blockIdx.x * blockDim.x;
    c[idx] = a[idx] * b[idx];
}
"""


class StandInRaw:
    """The seed's kernel as a stand-in for ``cupy.RawKernel``: (grid, block, args) on device arrays."""

    def __init__(self):
        self.calls = []

    def __call__(self, grid, block, args, **kwargs):
        self.calls.append(args)
        a, b, c = args
        n = grid[0] * block[0]
        c._h.reshape(-1)[:n] = a._h.reshape(-1)[:n] * b._h.reshape(-1)[:n]


class StandInElementwise:
    """``ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y")``, standing in."""

    in_params, nin, nout = ("x", "y"), 2, 1

    def __init__(self, xp):
        self.xp = xp

    def __call__(self, x, y, z=None, **kwargs):
        r = self.xp.asarray(x._h * y._h) if z is None else z
        if z is not None:
            z._h[...] = x._h * y._h
        return r


class StandInReduction:
    """``ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0")``, standing in."""

    in_params, nin, nout = ("x",), 1, 1

    def __init__(self, xp):
        self.xp = xp

    def __call__(self, x, axis=None, keepdims=False, out=None, **kwargs):
        r = self.xp.asarray(numpy.asarray((x._h * x._h).sum(axis=axis, keepdims=keepdims), dtype=x.dtype))
        if out is None:
            return r
        out._h[...] = r._h
        return out


def kernels(gpu):
    """(raw, elementwise, reduction) kernels of the seed's multiplication and a sum of squares."""
    from xpshim import _backend

    if gpu == "fake":
        return StandInRaw(), StandInElementwise(_backend.xp), StandInReduction(_backend.xp)
    cp = _backend.xp
    return (cp.RawKernel(SEED, "multiply_them"),
            cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y", "xpshim_test_multiply"),
            cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "xpshim_test_sumsq"))


def seed_arrays(n=400):
    rng = numpy.random.default_rng(0)
    return rng.standard_normal(n).astype(numpy.float32), rng.standard_normal(n).astype(numpy.float32)


def _pointer(x):
    return x.data.ptr  # (the device pointer; the simulated GPU's host address standing in)


def test_raw_kernel_writes_the_gpu_arrays_own_memory(gpu):
    raw = xpshim.cupy_kernel(kernels(gpu)[0])
    ha, hb = seed_arrays()
    a, b = xpshim.asarray(ha), xpshim.asarray(hb)
    c = xpshim.zeros_like(a)
    where = [_pointer(x) for x in (a, b, c)]
    xpshim.reset_stats()
    assert raw((1,), (400,), (a, b, c)) is None  # the seed's launch: one block of 400 threads
    assert transfers() == 0  # no copy: the kernel read a and b and wrote c where they are
    assert [_pointer(x) for x in (a, b, c)] == where  # (the same memory, still)
    assert xpshim.get_device(c) == "gpu"
    numpy.testing.assert_array_equal(xpshim.asnumpy(c), ha * hb)  # float32 products, as NumPy's


def test_raw_kernel_of_numpy_arrays_copies_them_over_and_back_counted(gpu):
    """Auto mode's arrays under the crossover are NumPy arrays: over for the call, back after it."""
    raw = xpshim.cupy_kernel(kernels(gpu)[0])
    a, b = seed_arrays()
    c = numpy.zeros_like(a)
    xpshim.reset_stats()
    here = f"{__file__}:{sys._getframe().f_lineno + 1}"
    raw((1,), (400,), (a, b, c))
    t = xpshim.stats()["transfers"]
    assert t["host_to_device"]["count"] == 3 and t["host_to_device"]["bytes"] == 3 * 400 * 4
    assert t["device_to_host"]["count"] == 3  # every argument of a raw kernel may have been written
    assert all(site.startswith(here) for site in t["device_to_host"]["sites"]), t  # the caller's line
    numpy.testing.assert_array_equal(c, a * b)
    ro = numpy.zeros_like(a)
    ro.flags.writeable = False
    xpshim.reset_stats()
    raw((1,), (400,), (a, b, c), shared_mem=0)  # keywords pass through
    raw((1,), (400,), args=(a, ro, c))  # args= too; a read-only array is not written back
    assert xpshim.stats()["transfers"]["device_to_host"]["count"] == 3 + 2


def test_in_auto_mode_the_seeds_arrays_run_and_large_ones_stay_put(gpu):
    raw = xpshim.cupy_kernel(kernels(gpu)[0])
    with xpshim.device("auto"):
        a = xpshim.random.randn(400).astype(xpshim.float32)
        b = xpshim.random.randn(400).astype(xpshim.float32)
        c = xpshim.zeros_like(a)
        n = 1 << 16  # over the crossover: GPU arrays
        big = [xpshim.ones(n, dtype=xpshim.float32) * k for k in (2, 3)] + [xpshim.zeros(n, dtype=xpshim.float32)]
    if gpu == "fake" or xpshim._device.placing():
        assert type(a) is numpy.ndarray and xpshim.get_device(big[0]) == "gpu"
    xpshim.reset_stats()
    raw((1,), (400,), (a, b, c))
    numpy.testing.assert_array_equal(xpshim.asnumpy(c), xpshim.asnumpy(a) * xpshim.asnumpy(b))
    xpshim.reset_stats()
    raw((n // 256,), (256,), tuple(big))
    assert transfers() == 0
    assert float(big[2].sum()) == 6.0 * n


def test_elementwise_and_reduction_kernels(gpu):
    _, ew, red = (xpshim.cupy_kernel(k) for k in kernels(gpu))
    ha, hb = seed_arrays()
    a, b = xpshim.asarray(ha), xpshim.asarray(hb)
    xpshim.reset_stats()
    z = ew(a, b)  # a new array: an xpshim GPU array
    assert type(z) is xpshim.ndarray and transfers() == 0
    out = xpshim.empty_like(a)
    assert ew(a, b, out) is out and transfers() == 0  # an output given is returned as given
    s = red(a)
    assert type(s) is xpshim.ndarray and s.shape == () and transfers() == 0
    numpy.testing.assert_array_equal(xpshim.asnumpy(z), ha * hb)
    numpy.testing.assert_array_equal(xpshim.asnumpy(out), ha * hb)
    numpy.testing.assert_allclose(float(s), float((ha.astype(numpy.float64) ** 2).sum()), rtol=1e-4)
    # NumPy arrays: inputs over (counted), an output over and back into itself
    hz = numpy.zeros_like(ha)
    xpshim.reset_stats()
    assert ew(ha, hb, hz) is hz
    t = xpshim.stats()["transfers"]
    assert (t["host_to_device"]["count"], t["device_to_host"]["count"]) == (3, 1)
    numpy.testing.assert_array_equal(hz, ha * hb)
    hs = numpy.zeros((), numpy.float32)
    assert red(ha, out=hs) is hs
    numpy.testing.assert_allclose(hs, float((ha.astype(numpy.float64) ** 2).sum()), rtol=1e-4)


def test_wrapping_is_idempotent_and_passes_attributes(gpu):
    k = kernels(gpu)[0]
    w = xpshim.cupy_kernel(k)
    assert xpshim.cupy_kernel(w) is w and w.kernel is k
    if gpu == "fake":
        assert w.calls is k.calls  # the kernel's own attributes, through the wrapper
    else:
        assert w.name == "multiply_them"
    with pytest.raises(TypeError, match="takes a CuPy kernel"):
        xpshim.cupy_kernel("multiply_them")


def test_cupys_kernels_are_refused_on_the_simulated_gpu_saying_why(gpu):
    if gpu != "fake":
        pytest.skip("the simulated GPU's refusal")

    class RawKernel:  # a CuPy kernel, by its module, as CuPy's classes are
        __module__ = "cupy._core.raw"

        def __call__(self, *args):
            raise AssertionError("not called")

    with pytest.raises(xpshim.DeviceError, match="simulated GPU .* runs no CUDA C"):
        xpshim.cupy_kernel(RawKernel())


def test_without_a_gpu_it_says_so():
    code = ("import xpshim as np\n"
            "try:\n    np.cupy_kernel(lambda *a: None)\nexcept np.DeviceError as e:\n    print('DeviceError:', e)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**env, "PYTHONPATH": ROOT, "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("DeviceError: xpshim.cupy_kernel asks for the GPU, but none is usable: ")
    assert "examples/cuda_kernel.py" in r.stdout


@pytest.mark.gpu
def test_the_seeds_kernel_is_zero_copy_on_a_real_gpu(real_gpu):
    """The claim of examples/cuda_kernel.py and docs/kernels.md, on the GPU's memory itself: the
    device pointers CuPy launches the kernel with are the xpshim arrays' own."""
    cp = real_gpu
    raw = xpshim.cupy_kernel(cp.RawKernel(SEED, "multiply_them"))
    a = xpshim.arange(400, dtype=xpshim.float32)
    b = xpshim.full(400, 2.0, dtype=xpshim.float32)
    c = xpshim.zeros(400, dtype=xpshim.float32)
    handed = []
    launch = raw.kernel

    def spy(grid, block, args, **kw):
        handed.extend(args)
        return launch(grid, block, args, **kw)

    raw.kernel = spy
    xpshim.reset_stats()
    raw((1,), (400,), (a, b, c))
    cp.cuda.Device().synchronize()
    assert transfers() == 0
    assert [type(x) for x in handed] == [cp.ndarray] * 3
    assert [x.data.ptr for x in handed] == [_pointer(x) for x in (a, b, c)]
    # read the result on the device, where the kernel wrote it
    assert bool(cp.all(cp.asarray(c) == cp.arange(400, dtype=cp.float32) * 2))
    numpy.testing.assert_array_equal(xpshim.asnumpy(c), numpy.arange(400, dtype=numpy.float32) * 2)
