"""The simulated GPU (``XPSHIM_SIMULATE_GPU=1``): NumPy on the CPU in CuPy's place, with
CuPy's API taken from a committed snapshot (``api.json``, written by
``python -m xpshim._simgpu.snapshot`` where CuPy is installed).

It shows what the GPU code path does (which calls run on the device, which fall back to
the host, which copies happen, and where) on a machine with no GPU and no CuPy. It cannot
show speed or CUDA's numerics. The module acting as ``cupy`` is ``xpshim._simgpu.cupy``;
``kernels`` compiles CuPy's ``ElementwiseKernel`` with the host's C++ compiler.
"""

from .apidata import api


def version():
    """The CuPy version the snapshot was taken from."""
    return api()["cupy"]


def module():
    """The module that acts as ``cupy`` on the simulated device."""
    from . import cupy

    return cupy


def describe():
    """One line for ``python -m xpshim info``."""
    from . import kernels

    cxx = kernels.compiler()
    how = (f"xpshim's elementwise kernels compiled by {cxx}" if cxx else
           "no C++ compiler (c++, or $CXX): xpshim's elementwise kernels use NumPy's loops")
    return f"simulated (XPSHIM_SIMULATE_GPU=1): NumPy on the CPU with CuPy {version()}'s API, from xpshim's snapshot; {how}"
