"""Is CuPy usable here, and if not, why; and which backend owns an object.

Nothing here imports CuPy until a GPU is really wanted: the driver is probed
through ``ctypes`` first, so a machine without one never pays CuPy's import.
With ``XPSHIM_SIMULATE_GPU=1`` the GPU is the simulated one (``xpshim._simgpu``), and
neither CuPy nor the driver is looked at.
"""

import ctypes
import importlib.util
import os
import sys
from typing import NamedTuple

from . import _config
from ._errors import DeviceError

# The GPU array module (CuPy) once loaded; None until then.
xp = None
# True once a GPU array may exist; the CPU fast path checks only this.
live = False
# Told ``live``'s new value whenever it changes (``when_live_changes``).
_watchers = []


def when_live_changes(fn):
    """Call ``fn(live)`` each time ``live`` changes: xpshim's ufuncs call NumPy's directly while no
    GPU array can exist (a Python frame per call is 10-15% of a small ufunc's time)."""
    _watchers.append(fn)


def _tell():
    for fn in _watchers:
        fn(live)


class GpuStatus(NamedTuple):  # (not a dataclass: that module costs 1 ms of every import)
    usable: bool
    reason: str
    device_count: int = 0


_status = None

_CU_ERRORS = {100: "CUDA_ERROR_NO_DEVICE", 35: "CUDA_ERROR_INSUFFICIENT_DRIVER",
              999: "CUDA_ERROR_UNKNOWN", 3: "CUDA_ERROR_NOT_INITIALIZED"}


def _probe_driver():
    """Return (device_count, reason) from the driver API without CuPy."""
    lib = None
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        return 0, "no NVIDIA driver found (libcuda cannot be loaded)"
    rc = lib.cuInit(0)
    if rc != 0:
        return 0, f"the CUDA driver does not initialise (cuInit: {_CU_ERRORS.get(rc, rc)})"
    n = ctypes.c_int(0)
    rc = lib.cuDeviceGetCount(ctypes.byref(n))
    if rc != 0 or n.value == 0:
        return 0, "no CUDA device is visible (check CUDA_VISIBLE_DEVICES and the driver)"
    return n.value, ""


def gpu_status():
    """Probe once whether CuPy and a CUDA device are usable; cached."""
    global _status, xp
    if _status is not None:
        return _status
    if _config.simulate_gpu:
        _status, xp = _simulated()
        return _status
    if importlib.util.find_spec("cupy") is None:
        _status = GpuStatus(False, "CuPy is not installed (pip install cupy-cuda12x, or cupy-cuda13x for "
                                   "CUDA 13; from the xpshim repository checkout: pip install '.[cuda12]')")
        return _status
    count, why = _probe_driver()
    if count == 0:
        _status = GpuStatus(False, why)
        return _status
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        cupy.empty(1)  # the first allocation is where a runtime/driver mismatch shows
    except Exception as exc:  # any failure here means "not usable", and we say which
        _status = GpuStatus(False, f"CuPy cannot use the GPU ({type(exc).__name__}: {exc})")
        return _status
    xp = cupy
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    _status = GpuStatus(True, f"{count} CUDA device(s), device 0 is {name}", count)
    return _status


def _simulated():
    """(status, module) of the simulated GPU."""
    from . import _simgpu

    if "numba" not in sys.modules:
        # xpshim's Numba CUDA kernels run in Numba's own simulator (read when Numba loads)
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    return GpuStatus(True, f"simulated: NumPy with CuPy {_simgpu.version()}'s API", 1), _simgpu.module()


def require_gpu(who, fix=None):
    """Raise DeviceError with the reason and the fix (by default: XPSHIM_DEVICE's) if the GPU is
    not usable."""
    st = gpu_status()
    if not st.usable:
        if fix is None:
            from . import _config

            fix = ("set XPSHIM_DEVICE=cpu (or unset it) to run on the CPU" if _config.requested_device == "gpu"
                   else 'keep the data on the CPU (xpshim.device("cpu"), or NumPy arrays)')
        raise DeviceError(
            f"{who} asks for the GPU, but none is usable: {st.reason}. To go on without one, {fix}; "
            "`python -m xpshim info` shows what was detected."
        )
    mark_live()
    return xp


def mark_live():
    """The GPU is in use from now on (a default of "gpu", or xpshim.device("gpu"|"auto"))."""
    global live
    if not live and xp is not None:
        from . import _ndarray

        _ndarray._bind_cupy()  # wrap() recognises CuPy arrays by type from here on
    if not live:
        live = True
        _tell()
    from . import _namespace, _placement

    _placement.refresh()
    _namespace.host_copy_numpy_testing()  # GPU arrays can exist from now on


def install(module, reason="installed by hand", placement=False):
    """Use ``module`` as the GPU array module and the GPU as the default device: every
    array on it (as ``XPSHIM_DEVICE=gpu``), or placed by size (``placement=True``, as auto
    mode on a GPU).

    Tests use this with a NumPy-backed stand-in; returns a function that undoes it.
    """
    global xp, _status, live
    from . import _config, _namespace, _ndarray, _placement

    saved = (xp, _status, live, _config._default, _config._sized, _ndarray._cupy_ndarray)
    xp, _status, live = module, GpuStatus(True, reason, 1), True
    _config._default, _config._sized = "gpu", placement
    _ndarray._bind_cupy()
    _raw_types.clear()
    _placement.refresh()
    _namespace.host_copy_numpy_testing()
    _tell()

    def undo():
        global xp, _status, live
        xp, _status, live, _config._default, _config._sized, _ndarray._cupy_ndarray = saved
        _raw_types.clear()
        _placement.refresh()
        _tell()
    return undo


# --- classification: never import CuPy for it --------------------------------------

_raw_types = {}


def is_raw_gpu_array(x):
    """True for a bare ``cupy.ndarray`` (not wrapped by xpshim)."""
    t = type(x)
    hit = _raw_types.get(t)
    if hit is None:
        cp = xp or sys.modules.get("cupy")
        hit = cp is not None and isinstance(x, cp.ndarray)
        _raw_types[t] = hit
    return hit
