"""``xpshim.cupy_kernel(kernel)``: your own CUDA C kernel, compiled by CuPy, called with xpshim arrays.

    import cupy
    import xpshim as np

    multiply_them = np.cupy_kernel(cupy.RawKernel(r'''
    extern "C" __global__ void multiply_them(const float *a, const float *b, float *c, int n) {
        int i = threadIdx.x + blockIdx.x * blockDim.x;
        if (i < n) c[i] = a[i] * b[i];
    }''', "multiply_them"))
    multiply_them((blocks,), (threads,), (a, b, c, np.int32(n)))   # a, b, c: xpshim arrays

CuPy's user kernels take CuPy's own arrays. ``ElementwiseKernel`` and ``ReductionKernel``
also take objects with ``__cuda_array_interface__`` (or ``__cupy_get_ndarray__``), xpshim's GPU
arrays among them; ``RawKernel`` (and a ``RawModule``'s functions) does not: its launch packs
only ``cupy.ndarray``, ``MemoryPointer``, ``CPointer``, textures and scalars, and raises
``TypeError: Unsupported type`` for anything else, with no hook for other array types
(``cupy/cuda/function.pyx``, ``_pointer``). None of them takes a NumPy array, which is what auto
mode makes of an array under the crossover (the seed's 400 elements). So the one call
``cupy_kernel`` hands each argument over as the kernel needs it:

- an xpshim GPU array: its own device memory, no copy (it stays on the GPU from then on, as
  after ``cupy.asarray(x)``);
- a NumPy array of one or more dimensions: copied to the GPU for the call and, where the kernel
  may have written it, copied back into the same NumPy array once the kernel is done (every
  argument of a raw kernel, the outputs of the others); each copy counted in ``xpshim.stats()``
  at the caller's line;
- anything else (numbers, NumPy scalars, 0-d arrays, which CuPy passes by value; CuPy arrays):
  as given.

New arrays the kernel returns (``ElementwiseKernel``'s and ``ReductionKernel``'s results) are
xpshim GPU arrays; an output given is returned as given. It needs CuPy on a usable GPU: elsewhere
(no GPU, the simulated GPU) ``cupy_kernel`` raises ``DeviceError`` saying why.
"""

import numpy

from . import _backend, _ndarray, _transfer
from ._errors import DeviceError

_FIX = "run the kernel's NumPy equivalent instead (examples/cuda_kernel.py shows how)"


def _is_cupy_kernel(kernel):
    return (type(kernel).__module__ or "").split(".")[0] == "cupy"


class CupyKernel:
    """A CuPy user kernel that takes xpshim arrays (``xpshim.cupy_kernel``): called as the kernel
    is (``(grid, block, args, ...)`` for a raw kernel, ``(*args, ...)`` for an elementwise or
    reduction kernel); its other attributes are the kernel's."""

    def __init__(self, kernel):
        self.kernel = kernel
        # ElementwiseKernel and ReductionKernel name their parameters; a raw kernel does not
        self.elementwise = hasattr(kernel, "in_params") and hasattr(kernel, "nin")

    def __getattr__(self, name):
        return getattr(self.kernel, name)

    def __repr__(self):
        return f"<xpshim.cupy_kernel of {self.kernel!r}>"

    def __call__(self, *args, **kwargs):
        back = []  # (NumPy array, its device copy): copied back after the kernel
        given = {}  # id(device array handed over) -> the argument it stands for
        if self.elementwise:
            nin = self.kernel.nin
            args = tuple(_argument(a, i >= nin, back, given, output=i >= nin) for i, a in enumerate(args))
            if kwargs.get("out") is not None:
                kwargs["out"] = _argument(kwargs["out"], True, back, given, output=True)
        elif len(args) >= 3:
            args = (*args[:2], _arguments(args[2], back, given), *args[3:])
        elif "args" in kwargs:
            kwargs["args"] = _arguments(kwargs["args"], back, given)
        result = self.kernel(*args, **kwargs)
        if back:
            stream = kwargs.get("stream")
            if stream is not None:
                stream.synchronize()  # (the copies back run on the current stream)
            for host, dev in back:
                host[...] = _transfer.to_host(dev, "cupy_kernel: a NumPy argument, back")
        return _result(result, given)


def _arguments(seq, back, given):
    """A raw kernel's argument tuple, each handed over; every NumPy array may have been written."""
    return tuple(_argument(a, True, back, given) for a in seq)


def _argument(a, written, back, given, output=False):
    """``a`` as the kernel takes it (see the module's docstring); a 0-d NumPy array is a value
    passed as such, unless it is an output (a reduction's)."""
    if type(a) is _ndarray.ndarray:
        d = a.__cupy_get_ndarray__()  # its own memory, kept on the device from now on
        given[id(d)] = a
        return d
    if isinstance(a, numpy.ndarray) and (a.ndim > 0 or output):
        # (C order, as a raw kernel reads it; numpy.ascontiguousarray would make a 0-d output 1-d)
        d = _transfer.to_device(a if a.flags.c_contiguous else a.copy(order="C"), "cupy_kernel: a NumPy argument")
        if written and a.flags.writeable:
            back.append((a, d))
        given[id(d)] = a
        return d
    return a


def _result(r, given):
    """The kernel's result: an argument handed back is the argument itself; a new array, an
    xpshim GPU array."""
    if isinstance(r, (tuple, list)):
        return type(r)(_result(x, given) for x in r)
    if r is None:
        return None
    if id(r) in given:
        return given[id(r)]
    return _ndarray.wrap(r) if _backend.is_raw_gpu_array(r) else r


def cupy_kernel(kernel):
    """A CuPy user kernel (``cupy.RawKernel``, a ``cupy.RawModule``'s function,
    ``cupy.ElementwiseKernel``, ``cupy.ReductionKernel``) that takes xpshim arrays.

    Called as the kernel is. xpshim GPU arrays go to it without a copy; NumPy arrays (auto mode's
    arrays under the crossover) are copied to the GPU for the call and back into themselves after
    it, where the kernel may have written them (each copy counted in ``xpshim.stats()``). New arrays
    it returns are xpshim GPU arrays. Raises ``DeviceError`` where no GPU runs CUDA C (no GPU, or
    the simulated one): docs/kernels.md.

    >>> k = np.cupy_kernel(cupy.RawKernel(source, "multiply_them"))   # doctest: +SKIP
    >>> k((1,), (400,), (a, b, c))                                     # doctest: +SKIP
    """
    if isinstance(kernel, CupyKernel):
        return kernel
    if not callable(kernel):
        raise TypeError(f"xpshim.cupy_kernel takes a CuPy kernel (cupy.RawKernel, cupy.ElementwiseKernel, "
                        f"cupy.ReductionKernel), not {type(kernel).__name__}")
    xp = _backend.require_gpu("xpshim.cupy_kernel", fix=_FIX)
    if _is_cupy_kernel(kernel) and getattr(xp, "__name__", "") != "cupy":
        raise DeviceError("xpshim.cupy_kernel: the simulated GPU (XPSHIM_SIMULATE_GPU=1) runs no CUDA C, and CuPy's "
                          f"kernels need a real GPU; to go on without one, {_FIX}")
    return CupyKernel(kernel)
