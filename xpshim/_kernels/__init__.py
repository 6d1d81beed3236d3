"""Numba CUDA kernels for what CuPy lacks, one family per module, each with its launcher.

Numba is imported on the first launch, never at ``import xpshim``, and kernels
are compiled lazily (a kernel given a signature eagerly fails at definition on
a machine without a GPU). When Numba's CUDA target cannot be used, ``cuda()``
raises ``Unavailable`` with the reason; the gap implementations then decline
and the call runs on the host, visibly (``python -m xpshim info`` says why).

With ``NUMBA_ENABLE_CUDASIM=1`` the same kernels run in Numba's simulator on
the CPU, over the NumPy arrays of the test stand-in: that is how CI tests them.
"""

import os
import threading

import numpy

_lock = threading.RLock()  # (a user's import of numba.cuda may come while it is held)
_state = {}


class Unavailable(RuntimeError):
    """Numba's CUDA target cannot be used here; the message says why."""


def _import_numba_cuda():
    # numba-cuda 0.30 registers an overload for numpy.row_stack, which NumPy 2.5
    # removed: loading its CUDA target fails with AttributeError. The name is lent
    # while the target loads (import, and one probe kernel compiled and run, which
    # imports the rest), then taken away, so user code sees NumPy unchanged.
    # (numba-cuda is in maintenance mode; upstream declined the fix.)
    lent = not hasattr(numpy, "row_stack")
    if lent:
        numpy.row_stack = numpy.vstack
    try:
        from numba import cuda
        if not simulated():
            if not cuda.is_available():
                raise Unavailable("numba.cuda sees no usable GPU")

            @cuda.jit
            def probe(x):
                x[0] = 1.0

            buf = cuda.to_device(numpy.zeros(1))
            probe[1, 1](buf)
            if buf.copy_to_host()[0] != 1.0:
                raise Unavailable("a probe kernel ran but wrote nothing")
    finally:
        if lent:
            del numpy.row_stack
    return cuda


def simulated():
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def cuda():
    """The ``numba.cuda`` module, ready to compile; raises Unavailable."""
    with _lock:
        if "cuda" in _state:
            return _state["cuda"]
        if "problem" in _state:
            raise Unavailable(_state["problem"])
        try:
            c = _import_numba_cuda()
        except Unavailable as e:
            _state["problem"] = str(e)
            raise
        except Exception as e:  # a broken Numba install: say what broke, once
            _state["problem"] = f"Numba's CUDA target failed to load ({type(e).__name__}: {e})"
            raise Unavailable(_state["problem"]) from e
        _state["cuda"] = c
        return c


def preload():
    """Load the CUDA target now if it loads (a user's own numba.cuda import); a failure here is
    not kept, so xpshim's first kernel tries again and reports it then."""
    with _lock:
        if "cuda" in _state or "problem" in _state:
            return
        try:
            _state["cuda"] = _import_numba_cuda()
        except Exception:
            pass


def problem():
    """Why the kernels cannot run here, or None (loads Numba's CUDA target)."""
    try:
        cuda()
        return None
    except Unavailable as e:
        return str(e)


def arg(x):
    """A kernel argument for a backend array: CuPy's as is (CUDA array interface);
    under the simulator, the test stand-in's NumPy memory as a simulated device
    array, used in place whatever its strides (as CuPy's is on a GPU)."""
    h = getattr(x, "_h", None)
    if h is None or not simulated():
        if any(st < 0 for st in getattr(x, "strides", ())):
            # numba-cuda reads negative strides as an overflowing unsigned size: an input is
            # copied; a one-element view (CuPy calls it contiguous and keeps its strides) is
            # re-viewed with positive ones, so writes through it still land
            if x.size <= 1:
                return type(x)(x.shape, x.dtype, x.data, strides=tuple(abs(st) for st in x.strides))
            return x.copy()
        return x
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    return FakeCUDAArray(h)


def launch(kernel, n, *args):
    """Run ``kernel`` over ``n`` threads (1-d grid)."""
    if n == 0:
        return
    tpb = 128
    kernel[(n + tpb - 1) // tpb, tpb](*[arg(a) for a in args])
