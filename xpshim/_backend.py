"""Is CuPy usable here, and if not, why; and which backend owns an object.

Nothing here imports CuPy until a GPU is really wanted: the driver is probed
through ``ctypes`` first, so a machine without one never pays CuPy's import.
With ``XPSHIM_SIMULATE_GPU=1`` the GPU is the simulated one (``xpshim._simgpu``), and
neither CuPy nor the driver is looked at.

Where the GPU may be chosen, ``preload`` starts CuPy's import on a thread at ``import xpshim``
(``_preload``), and auto mode leaves the choice to the first call that needs it (``pending``);
``gpu_status`` waits for that import, and settles the choice.
"""

import ctypes
import importlib.util
import os
import sys
from typing import NamedTuple

from . import _config
from ._errors import INFO_HINT, DeviceError

# The GPU array module (CuPy) once loaded; None until then.
xp = None
# True once a GPU array may exist; the CPU fast path checks only this.
live = False
# True from `import xpshim` in auto mode, with CuPy's import started on a thread, until the
# first call that needs the device settles it (gpu_status): `live` is True meanwhile, `xp` None.
pending = False
_preloading = None  # xpshim._preload once CuPy's import has started there (loaded only then)
class GpuStatus(NamedTuple):  # (not a dataclass: that module costs 1 ms of every import)
    usable: bool
    reason: str
    device_count: int = 0


_status = None

_CU_ERRORS = {100: "CUDA_ERROR_NO_DEVICE", 35: "CUDA_ERROR_INSUFFICIENT_DRIVER",
              999: "CUDA_ERROR_UNKNOWN", 3: "CUDA_ERROR_NOT_INITIALIZED"}


_driver_lib = []  # [the driver's library, or None], once looked for


def _driver():
    """The CUDA driver's library, loaded (not initialised: no cuInit), or None; looked for once."""
    if not _driver_lib:
        lib = None
        for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        _driver_lib.append(lib)
    return _driver_lib[0]


def _probe_driver():
    """Return (device_count, reason) from the driver API without CuPy."""
    lib = _driver()
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


def preload():
    """At ``import xpshim``: start CuPy's import on a thread where the GPU may be chosen
    (``_preload`` says why these conditions, and why no CUDA call); True if it started."""
    global _preloading
    if (_config.simulate_gpu or _config.requested_device not in ("auto", "gpu") or forced is not None
            or importlib.util.find_spec("cupy") is None or _driver() is None):
        return False
    from . import _preload  # (only here: the CPU path does not load it)

    _preload.start()
    _preloading = _preload
    return True


def defer_choice():
    """Auto mode with CuPy's import under way: a GPU array may exist (``live``), and the first
    call that needs the device decides (``gpu_status`` settles it)."""
    global pending
    pending = True
    mark_live()


def gpu_status():
    """Probe once whether CuPy and a CUDA device are usable; cached. Waits for CuPy's import
    begun at ``import xpshim`` (``_preload``), and settles the choice auto mode deferred then."""
    global _status
    if _status is None:
        _status = _probe()
        if pending:
            _settle()
    return _status


def probed():
    """The GPU status if it is known already, else None: never probes, never waits for CuPy's
    import (``%load_ext xpshim`` says where arrays go without starting the GPU)."""
    return _status


def _settle():
    """The choice deferred at import is made: the listeners hear of CuPy (now ``xp``), or that no
    GPU array can exist after all."""
    global pending, live
    pending = False
    live = _status.usable
    _changed()


def _probe():
    global xp
    if _config.simulate_gpu:
        status, xp = _simulated()
        return status
    if importlib.util.find_spec("cupy") is None:
        return GpuStatus(False, "CuPy is not installed (pip install cupy-cuda12x, or cupy-cuda13x for "
                                "CUDA 13; from the xpshim repository checkout: pip install '.[cuda12]')")
    count, why = _probe_driver()  # (cuInit here, while CuPy's import may still run on its thread)
    if count == 0:
        return GpuStatus(False, why)
    try:
        error = _preloading and _preloading.wait()  # the import begun at `import xpshim`: its failure is told here
        if error is not None:
            raise error
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        cupy.empty(1)  # the first allocation is where a runtime/driver mismatch shows
    except Exception as exc:  # any failure here means "not usable", and we say which
        return GpuStatus(False, f"CuPy cannot use the GPU ({type(exc).__name__}: {exc})")
    xp = cupy
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return GpuStatus(True, f"{count} CUDA device(s), device 0 is {name}", count)


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
        raise DeviceError(f"{who} asks for the GPU, but none is usable: {st.reason}. To go on without one, {fix}; {INFO_HINT}")
    mark_live()
    return xp


def mark_live():
    """The GPU is in use from now on (a default of "gpu", or xpshim.device("gpu"|"auto"))."""
    global live
    if not live:
        live = True
        _changed()


# Upper layers that keep something derived from the backend (the CuPy array type, the
# crossover, the default device) register here, and are told when it changes.
_listeners = []
forced = None  # ("gpu", placing) while ``install`` is in force, else None


def on_change(listener):
    """Call ``listener()`` whenever the backend changes: the GPU goes live, or ``install`` (or
    its undo) swaps the array module. Usable as a decorator."""
    _listeners.append(listener)
    return listener


def _changed():
    for listener in _listeners:
        listener()


def install(module, reason="installed by hand", placement=False):
    """Use ``module`` as the GPU array module and the GPU as the default device: every
    array on it (as ``XPSHIM_DEVICE=gpu``), or placed by size (``placement=True``, as auto
    mode on a GPU).

    Tests use this with a NumPy-backed stand-in; returns a function that undoes it.
    """
    global xp, _status, live, forced
    saved = (xp, _status, live, forced)
    xp, _status, live, forced = module, GpuStatus(True, reason, 1), True, ("gpu", placement)
    _raw_types.clear()
    _changed()

    def undo():
        global xp, _status, live, forced
        xp, _status, live, forced = saved
        _raw_types.clear()
        _changed()
    return undo


# --- classification: never import CuPy for it --------------------------------------

_raw_types = {}


def is_raw_gpu_array(x):
    """True for a bare ``cupy.ndarray`` (not wrapped by xpshim)."""
    t = type(x)
    hit = _raw_types.get(t)
    if hit is None:
        if pending:
            gpu_status()  # (CuPy may be half-imported on its thread until then)
        cp = xp or sys.modules.get("cupy")
        hit = cp is not None and isinstance(x, cp.ndarray)
        _raw_types[t] = hit
    return hit
