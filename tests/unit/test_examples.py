"""The seed examples, import changed only, give NumPy's results (CPU, stand-in, and real GPU)."""

import os
import subprocess
import sys

import numpy
import pytest
from PIL import Image

import xpshim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import cuda_kernel  # noqa: E402
import grayscale  # noqa: E402
import matmul  # noqa: E402


def numpy_gray(path):
    """The seed's code with plain NumPy: the reference."""
    image_array = numpy.array(Image.open(path))
    return numpy.dot(image_array[..., :3], [0.2989, 0.5870, 0.1140]).astype(numpy.uint8)


def check_gray(tmp_path, size=(640, 480)):
    src = tmp_path / "in.png"  # lossless, so both sides read the same pixels
    grayscale.make_example(str(src), *size)
    out = tmp_path / "out.png"
    grayscale.main([str(src), "--out", str(out)])
    got = numpy.asarray(Image.open(out))
    want = numpy_gray(src)
    diff = numpy.abs(got.astype(int) - want.astype(int))
    # float rounding in a different summation order may move a pixel across an integer
    assert diff.max() <= 1
    assert (diff > 0).mean() < 1e-3
    return diff


def test_grayscale_cpu(tmp_path, cpu):
    diff = check_gray(tmp_path)
    assert diff.max() == 0  # the CPU path is NumPy itself


def test_grayscale_gpu(tmp_path, gpu):
    check_gray(tmp_path, (1920, 1080))


def test_grayscale_script_makes_its_own_image(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "grayscale.py")], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 0, r.stderr
    assert "made a test image" in r.stdout and "device:" in r.stdout
    assert (tmp_path / "gray_example.jpg").exists()


def _check_matmul(n):
    A, B, result = matmul.main(["--n", str(n)])
    want = numpy.dot(xpshim.asnumpy(A), xpshim.asnumpy(B))
    numpy.testing.assert_allclose(xpshim.asnumpy(result), want, rtol=1e-10)
    loop = matmul.matrix_multiplication(A, B)
    numpy.testing.assert_allclose(loop, want, rtol=1e-10)


def test_matmul_cpu(cpu):
    _check_matmul(120)


def test_matmul_gpu(gpu):
    _check_matmul(120)


def _run_own_kernel(n=3000):
    import own_kernel

    out = own_kernel.main(["--n", str(n)])  # checks itself against NumPy
    numpy.testing.assert_allclose(xpshim.asnumpy(out), 2.0 * numpy.linspace(0.0, 1.0, n) + 1.0, rtol=1e-12)
    return out


def test_own_kernel_cpu(cpu, capsys):
    out = _run_own_kernel()
    assert type(out) is numpy.ndarray
    assert "ran on the CPU arrays" in capsys.readouterr().out


@pytest.fixture
def simulated_interface(gpu, monkeypatch):
    """On the stand-in, Numba's simulator gets each xpshim array's own memory, as a real GPU's
    Numba does through __cuda_array_interface__ (the simulator takes only NumPy arrays)."""
    from xpshim import _kernels

    if gpu == "fake":
        from numba.cuda.simulator import kernel as simkernel

        call = simkernel.FakeCUDAKernel.__call__

        def with_interface(self, *args):
            return call(self, *[_kernels.arg(a._a) if type(a) is xpshim.ndarray else a for a in args])

        monkeypatch.setattr(simkernel.FakeCUDAKernel, "__call__", with_interface)
    return gpu


def test_own_kernel_gpu(simulated_interface, capsys):
    import own_kernel

    x, y, out = xpshim.arange(5.0), xpshim.ones(5), xpshim.zeros(5)
    xpshim.reset_stats()
    own_kernel.saxpy[1, 32](3.0, x, y, out)
    from conftest import transfers

    assert transfers() == 0  # the kernel wrote out's own memory
    numpy.testing.assert_array_equal(xpshim.asnumpy(out), 3.0 * numpy.arange(5.0) + 1.0)
    base = xpshim.zeros(10)
    own_kernel.saxpy[1, 32](1.0, x, y, base[::2])  # a strided view, written in place
    want = numpy.zeros(10)
    want[::2] = numpy.arange(5.0) + 1.0
    numpy.testing.assert_array_equal(xpshim.asnumpy(base), want)
    out = _run_own_kernel()
    assert xpshim.get_device(out) == "gpu"
    assert "ran on the GPU arrays" in capsys.readouterr().out


# ---- examples/own_kernel.py without a GPU, and the seed's CUDA C kernel (examples/cuda_kernel.py) ----

def _example(name, *args, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", name), *args], capture_output=True,
                          text=True, timeout=300, env={**clean, "PYTHONPATH": ROOT, **env})


def test_own_kernel_without_a_gpu_says_why_and_what_to_do():
    r = _example("own_kernel.py", CUDA_VISIBLE_DEVICES="")  # (no GPU here, whatever the machine)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "CudaSupportError" not in r.stderr
    assert "Numba finds no NVIDIA GPU it can use here" in r.stderr
    assert "NUMBA_ENABLE_CUDASIM=1 python examples/own_kernel.py --n 10000" in r.stderr


def test_own_kernel_runs_in_numbas_simulator_as_it_says():
    r = _example("own_kernel.py", "--n", "2000", NUMBA_ENABLE_CUDASIM="1", XPSHIM_DEVICE="cpu")
    assert r.returncode == 0 and "saxpy of 2000 elements ran on the CPU arrays (Numba's CUDA simulator)" in r.stdout


@pytest.mark.parametrize("env", [{"CUDA_VISIBLE_DEVICES": ""}, {"XPSHIM_SIMULATE_GPU": "1"}],
                         ids=["no GPU", "simulated GPU"])
def test_cuda_kernel_without_a_gpu_says_so_and_runs_numpys_equivalent(env):
    r = _example("cuda_kernel.py", "--n", "50", **env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("No GPU runs CUDA C here: ")
    assert lines[1] == "Running the NumPy equivalent instead: c = a * b"
    assert lines[-1] == "c == a * b: True"


def _copies_said(capsys):
    out = capsys.readouterr().out
    return next(line for line in out.splitlines() if line.startswith("The kernel ran on the GPU"))


@pytest.mark.gpu
def test_cuda_kernel_on_a_gpu(real_gpu, capsys):
    """The seed's 400 elements in auto mode: NumPy arrays, over and back, counted; GPU arrays (from
    the crossover up, or XPSHIM_DEVICE=gpu): the kernel on their own memory, no copy."""
    with xpshim.device("auto"):
        a, b, c = cuda_kernel.main([])
    assert type(c) is numpy.ndarray and c.shape == (400,) and c.dtype == numpy.float32
    assert "400-element NumPy arrays" in (said := _copies_said(capsys)) and "3 copies to the GPU and 3 back" in said
    with xpshim.device("auto"):
        a, b, c = cuda_kernel.main(["--n", str(1 << 20)])
    assert xpshim.get_device(c) == "gpu" and "no copy" in _copies_said(capsys)
    with xpshim.device("gpu"):
        a, b, c = cuda_kernel.main([])
    assert xpshim.get_device(c) == "gpu" and "400-element GPU arrays: no copy" in _copies_said(capsys)
    r = _example("cuda_kernel.py")  # as a user runs it: auto mode
    assert r.returncode == 0 and "3 copies to the GPU and 3 back" in r.stdout and r.stdout.endswith("c == a * b: True\n")
