"""Is CuPy usable here, and if not, why; and which backend owns an object.

Nothing here imports CuPy until a GPU is really wanted: the driver is probed
through ``ctypes`` first, so a machine without one never pays CuPy's import.
With ``XPSHIM_SIMULATE_GPU=1`` the GPU is the simulated one (``xpshim._simgpu``), and
neither CuPy nor the driver is looked at.

Where the GPU may be chosen, ``preload`` makes CuPy's import ready to start on a thread
(``_preload``; on the simulated GPU a thread that stands for it): at ``import xpshim`` in gpu
mode; in auto mode ``begin`` starts it, and the GPU's start, at the first call that needs the
device, and auto mode leaves the choice to a call after it (``pending``); ``gpu_status`` waits
for the start, and settles the choice.

The GPU array module is read as ``_backend.xp``, and only so. While the choice is pending that
attribute does not exist: reading it lands in this module's ``__getattr__``, which settles the
choice first (``gpu_status``) and answers CuPy, or None where no GPU turned out usable. Once
settled it is a plain module attribute again, free to read. So no code can see the module before
the device is chosen: the class of "read the backend while the choice is pending" is closed here,
not audited name by name (``tests/unit/test_first_call.py`` calls every public name then).
"""

import ctypes
import importlib.util
import os
import sys
import time
from typing import NamedTuple

from . import _config, _exitreaper
from ._errors import INFO_HINT, DeviceError

# The GPU array module (CuPy) once loaded; None until then. Read from outside as ``xp``
# (published by _publish, or settled first by __getattr__ while the choice is pending).
_xp = None
xp = None
# True once a GPU array may exist; the CPU fast path checks only this.
live = False
# True from `import xpshim` in auto mode, with CuPy's import started on a thread, until the
# first call that needs the device settles it (gpu_status): `live` is True meanwhile, `xp` absent.
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
    global cuda_started
    lib = _driver()
    if lib is None:
        return 0, "no NVIDIA driver found (libcuda cannot be loaded)"
    cuda_started = True
    rc = lib.cuInit(0)
    if rc != 0:
        return 0, f"the CUDA driver does not initialise (cuInit: {_CU_ERRORS.get(rc, rc)})"
    n = ctypes.c_int(0)
    rc = lib.cuDeviceGetCount(ctypes.byref(n))
    if rc != 0 or n.value == 0:
        return 0, "no CUDA device is visible (check CUDA_VISIBLE_DEVICES and the driver)"
    return n.value, ""


def _retain_context():
    """Make device 0's primary context through the driver (about 0.1 s on an H100), on the
    start-up thread while CuPy still imports on the other: CuPy's runtime calls use that same
    context (the runtime API's, retained here for the process's life), so its first allocation
    finds it made instead of making it after the import. ctypes releases the GIL meanwhile.
    Failures are left to CuPy's first allocation, which reports them as before."""
    lib = _driver()
    dev, ctx = ctypes.c_int(0), ctypes.c_void_p()
    try:
        if lib.cuDeviceGet(ctypes.byref(dev), 0) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    except AttributeError:  # (a driver without these entry points: CuPy's allocation makes it)
        pass


# Seconds from the GPU's start (begin) to each of its steps on the start-up thread: read by
# ``python -m xpshim info`` and the start-up benchmarks
start_times = {}


def _stamp(step):
    start_times[step] = time.perf_counter() - start_times.get("t0", 0.0)


def describe_start():
    """The GPU's start, step by step (``start_times``), for ``python -m xpshim info``."""
    steps = [f"{k} {v * 1e3:.0f} ms" for k, v in start_times.items() if k != "t0"]
    return "; ".join(steps) if steps else "not started in this process"


def preload(now=True):
    """At ``import xpshim``: where the GPU may be chosen (``_preload`` says why these
    conditions, and why no CUDA call), make CuPy's import ready to start on a thread, and start
    it now unless ``now`` is False (auto mode: ``begin`` starts it at the first call that needs
    the device); True where it may start."""
    global _preloading, _armed
    if _config.requested_device not in ("auto", "gpu") or forced is not None:
        return False
    if _config.simulate_gpu:
        if _config.requested_device != "auto":
            return False
        # the simulated GPU takes the real one's start-up path: a thread stands for CuPy's import
        # (XPSHIM_SIMULATE_IMPORT_MS long), and auto mode's choice waits for the first call
        from . import _preload
    elif importlib.util.find_spec("cupy") is None or _driver() is None:
        return False
    else:
        from . import _preload  # (only here: the CPU path does not load it)
    import threading

    global _begin_lock
    _preloading = _preload
    _begin_lock = threading.Lock()
    _armed = True
    if now:
        begin(background=False)
    return True


_armed = False  # preload found the GPU possible; begin has not started its threads yet
_begin_lock = None  # (made by preload: two threads' first calls start the threads once)


def begin(background=True):
    """Start what ``preload`` made ready, once: CuPy's import on its thread, and in auto mode
    (``background``) the GPU's start on a second (``start_in_background``). Auto mode calls it
    once calls have asked for the device for ``START_AFTER_S`` (``status_now``), when the device
    is asked for by name (``gpu_status``), or for data worth it (``start_for``: a large photo,
    before its decode, in ``xpshim.array``), not at import: until then a program that never uses xpshim's
    arrays pays nothing, and its own Python work shares the GIL with no import. At the
    interpreter's shutdown (a first call from an ``atexit`` function) no thread can start: the
    choice is then made on the calling thread (``gpu_status``), as without these threads."""
    global _armed
    if not _armed:
        return
    with _begin_lock:  # (a second thread's first call waits here until both threads exist)
        if not _armed:
            return
        import threading

        try:
            if sys.is_finalizing() or getattr(threading, "_SHUTTING_DOWN", False):
                raise RuntimeError("the interpreter is shutting down")
            sim = _config.simulate_import_ms / 1e3 if _config.simulate_gpu else None
            start_times["t0"] = time.perf_counter()
            _preloading.start(simulated_s=sim)
            if background:
                start_in_background()
        except RuntimeError:
            pass  # (no thread could start: gpu_status probes on the caller's thread, importing CuPy there)
        _armed = False  # (only now: another thread sees either the armed state, under the lock, or both threads)


def start_in_background():
    """Auto mode, with CuPy's import started (``preload``): the GPU's start (the driver's
    ``cuInit``, the wait for the import, the context) goes on a thread now, so that it
    overlaps the program's own work; calls made before it ends run on the CPU (``status_now``),
    and the first call after it settles the choice (docs/placement.md, "Start-up"). The end of a
    process does not wait for it (ending in the middle of cuInit or the
    context's creation died of SIGSEGV at exit on an H100): a daemon that ``_quickexit`` keeps
    from delaying the process's end, where it can (glibc), else a thread that the end waits for."""
    global _bg
    import threading

    from . import _quickexit

    daemon = _quickexit.daemon_ok()
    t = threading.Thread(target=_probe_in_background, name="xpshim-gpu-start", daemon=daemon)
    if daemon:
        # the process's end skips the C-level teardown only while CUDA is starting: once the
        # probe has ended the program may use the GPU, and its end waits for cuBLAS's warm-up
        _quickexit.watch(t, lambda: _early is None)
    t.start()
    _bg = t


_bg = None       # the thread of start_in_background
_early = None    # its GpuStatus, read by gpu_status once it has ended
cuda_started = False  # cuInit was called in this process (a forked child cannot use CUDA then)


FORKED = ("this process was forked from one that had started CUDA, and CUDA cannot be used in such "
          "a child; to use the GPU in child processes, start them with multiprocessing's 'spawn' or "
          "'forkserver' method (multiprocessing.set_start_method('spawn'))")


def _forked():
    """In a child of ``os.fork``: where the parent had started CUDA, the GPU is not usable here
    (CUDA's rule), so new arrays are made on the CPU, and the child says why, once."""
    global _status, _xp, live, pending, _bg, _early
    if not cuda_started:
        return
    _status, _xp, live, pending, _bg, _early = GpuStatus(False, FORKED), None, False, False, None, None
    _publish()
    _raw_types.clear()
    _changed()
    import warnings

    warnings.warn(f"xpshim: {FORKED}; arrays are made on the CPU in this process", RuntimeWarning, stacklevel=2)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _probe_in_background():
    global _early
    try:
        if _config.simulate_gpu:
            _preloading.wait()  # (the simulated GPU loads xpshim's module on the caller's thread, at settling)
            return
        status = _probe()
    except BaseException as exc:  # (reported at settling, as the probe's own failures are)
        status = GpuStatus(False, f"CuPy cannot use the GPU ({type(exc).__name__}: {exc})")
    _early = status  # (calls may settle on the GPU from here on: status_now)
    _stamp("probe")
    if status.usable:
        try:
            # cuBLAS's first handle loads the library and its kernels (50-200 ms on an H100): here,
            # not in the program's first product; the handle is this thread's, the load is the process's
            _xp.cuda.device.get_cublas_handle()
            _stamp("cuBLAS")
        except Exception:  # (the first product then pays it, and reports any error itself)
            pass


def defer_choice():
    """Auto mode with CuPy's import under way: a GPU array may exist (``live``), and the first
    call that needs the device decides (``gpu_status`` settles it)."""
    global pending
    pending = True
    _publish()
    mark_live()


def _publish():
    """``xp`` as a plain attribute once the choice is made; absent while it is pending, so that
    reading it settles the choice first (``__getattr__``)."""
    if pending:
        globals().pop("xp", None)
    else:
        globals()["xp"] = _xp


def __getattr__(name):
    # (PEP 562: reached only while ``xp`` is absent, that is while auto mode's choice is pending)
    if name == "xp":
        gpu_status()
        return _xp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def gpu_status():
    """Probe once whether CuPy and a CUDA device are usable; cached. Starts the GPU's start where
    it was only made ready (``begin``), waits for it (``_preload``, ``start_in_background``), and
    settles the choice auto mode deferred at import."""
    global _status
    if _status is None:
        begin()
        if _bg is not None and _early is None:
            _bg.join()
        _status = _early if _early is not None else _probe()
        if pending:
            _settle()
    return _status


# Auto mode buys the GPU's start as one buys skis: it costs the program's own thread about
# 0.3 s (CuPy's import holds the GIL in bursts, and a GPU process's end pays CUDA's teardown; on
# an H100 a 1920x1080 photo's read-convert-write went from 0.49 to 0.88 s), and pays back only
# on the work that comes after it. So the start is rented until the program has gone on asking
# for the device for about that long: a script done sooner never starts the GPU, and runs as it
# would on the CPU path; a longer one starts it then, at most START_AFTER_S late. Data large
# enough to pay for the start at once starts it at once (``start_for``).
START_AFTER_S = _config.start_after_ms / 1e3  # (XPSHIM_START_AFTER_MS, default 300)
# A single array this large given to xpshim starts the GPU at once (its work would pay for the
# start): a 6000x4000 photo (7.2e7 elements) does, a 1920x1080 one (6.2e6) does not.
START_SIZE = 1 << 23
_first_need = None  # perf_counter of the first call that needed the device, while armed


def status_now():
    """``gpu_status()`` where it is known without waiting; None while the GPU has not started
    (``START_AFTER_S``) or is still starting on its thread (``start_in_background``): auto mode
    runs such calls on the CPU."""
    global _first_need
    if _armed:
        now = time.perf_counter()
        if _first_need is None:
            _first_need = now
        if now - _first_need >= START_AFTER_S:
            begin()  # (the program has asked for the device long enough: the GPU starts, on its threads)
        return None
    if _status is None and _early is None and _bg is not None and _bg.is_alive():
        return None
    return gpu_status()


def start_for(size):
    """Auto mode, the GPU not started yet: start it now where data of ``size`` elements is worth
    its start (``START_SIZE``)."""
    if _armed and size >= START_SIZE:
        begin()


def not_started():
    """True while auto mode has not started the GPU (``START_AFTER_S``)."""
    return _armed


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
    _publish()
    _changed()


def _probe():
    global _xp
    if _config.simulate_gpu:
        _preloading and _preloading.wait()  # (the thread that stands for CuPy's import)
        global cuda_started
        cuda_started = True  # (as the real GPU's start would have: a forked child gets the CPU)
        if _unusable_once:
            _unusable_once.clear()
            _xp = None
            _publish()
            return GpuStatus(False, "simulated: made unusable for this choice by a test")
        status, _xp = _simulated()
        _publish()
        return status
    if importlib.util.find_spec("cupy") is None:
        return GpuStatus(False, "CuPy is not installed (pip install cupy-cuda12x, or cupy-cuda13x for "
                                "CUDA 13; from the xpshim repository checkout: pip install '.[cuda12]')")
    start_times.setdefault("t0", time.perf_counter())  # (a probe on the caller's thread: timed from here)
    count, why = _probe_driver()  # (cuInit here, while CuPy's import may still run on its thread)
    if count == 0:
        return GpuStatus(False, why)
    _stamp("cuInit")
    try:
        _retain_context()  # (the context too, while the import still runs)
        _stamp("context")
        error = _preloading and _preloading.wait()  # the import begun on its thread: its failure is told here
        _stamp("import waited for")
        if error is not None:
            raise error
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        cupy.empty(1)  # the first allocation is where a runtime/driver mismatch shows
        _stamp("first allocation")
    except Exception as exc:  # any failure here means "not usable", and we say which
        return GpuStatus(False, f"CuPy cannot use the GPU ({type(exc).__name__}: {exc})")
    _xp = cupy
    _publish()
    _exitreaper.arm(_compute_mode_default)  # (the driver's release of the context, after the end)
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return GpuStatus(True, f"{count} CUDA device(s), device 0 is {name}", count)


def _compute_mode_default():
    """Whether device 0 takes contexts of several processes at once (CUDA's default compute mode)."""
    rt = _xp.cuda.runtime
    return rt.deviceGetAttribute(rt.cudaDevAttrComputeMode, 0) == 0


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
    return _xp


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
    global _xp, _status, live, forced, pending
    saved = (_xp, _status, live, forced, pending)
    _xp, _status, live, forced, pending = module, GpuStatus(True, reason, 1), True, ("gpu", placement), False
    _publish()
    _raw_types.clear()
    _changed()

    def undo():
        global _xp, _status, live, forced, pending
        _xp, _status, live, forced, pending = saved
        _publish()
        _raw_types.clear()
        _changed()
    return undo


_unusable_once = []  # defer_again(usable=False): the next settling on the simulated GPU finds none


def defer_again(usable=True):
    """For tests: put auto mode back in the state ``import xpshim`` leaves it in where the GPU
    may be chosen (``pending``, the module unread), so that the next call meets an undecided
    device; with ``usable=False`` (simulated GPU only) that choice then finds no usable GPU.
    Arrays made before stay valid."""
    global _status, _xp, _early
    if forced is not None or _preloading is None:
        raise RuntimeError("defer_again: only where auto mode deferred its choice at import")
    _status, _xp, _early = None, None, None
    if not usable:
        _unusable_once.append(True)
    _raw_types.clear()
    defer_choice()
    _changed()


# --- classification: never import CuPy for it --------------------------------------

_raw_types = {}


def is_raw_gpu_array(x):
    """True for a bare ``cupy.ndarray`` (not wrapped by xpshim)."""
    t = type(x)
    hit = _raw_types.get(t)
    if hit is None:
        if pending:
            if not t.__module__.startswith("cupy"):
                return False  # (not cached: no other type is CuPy's array, and nothing waits for the GPU)
            gpu_status()  # (CuPy may be half-imported on its thread until then)
        cp = _xp or sys.modules.get("cupy")
        hit = cp is not None and isinstance(x, cp.ndarray)
        _raw_types[t] = hit
    return hit
