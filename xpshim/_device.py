"""The device policy: where new arrays are made, per thread and asyncio task (``with
xpshim.device(...)``), the process default resolved from ``XPSHIM_DEVICE`` and the GPU found,
and auto mode's crossover.

State here is reset when the backend changes (``_backend.on_change``), so tests that install the
simulated GPU see a fresh default.
"""

import contextlib
import contextvars
import os

from . import _backend, _config, _hotwork
from ._config import DEFAULT_CROSSOVER, DEVICES, calibration_path, crossover_env, requested_device
from ._errors import ConfigError

# Dask mode's options context (``_dask.options``), wired by the package ``__init__``: the plug-in
# sits above this layer.
dask_hook = None

_crossover = None  # (elements, where the value came from), resolved once the GPU is in use


def crossover():
    """(elements, source): arrays smaller than ``elements`` stay on the CPU in auto mode."""
    global _crossover
    if _crossover is None:
        if crossover_env is not None:
            _crossover = (crossover_env, f"XPSHIM_CROSSOVER={os.environ['XPSHIM_CROSSOVER'].strip()}")
        else:
            _crossover = _calibrated() or (DEFAULT_CROSSOVER, "the default, 2**15 (measured on an H200)")
    return _crossover


def _calibrated():
    import json  # (only where a file is read)

    path = calibration_path()
    try:
        with open(path) as f:
            saved = json.load(f)
        value = int(saved["crossover"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    st = _backend.gpu_status()
    if saved.get("gpu") and saved["gpu"] not in st.reason:
        return None  # measured on another GPU
    return value, f"calibrated {saved.get('date', '')} on {saved.get('gpu', 'this GPU')} ({path})"


# The device policy of ``with xpshim.device(...)``, in a ContextVar (as NumPy 2's errstate): it
# holds in the thread and the asyncio task that entered the block, and nowhere else (a new thread
# starts from the process default). (device, sized): device "cpu" | "gpu" | "dask" | None (the
# process default); sized True for size-aware placement (device("auto") on a GPU), None for the
# process default's.
NO_POLICY = (None, None)  # (no device block in this context: the ContextVar's default, this very object)
_policy = contextvars.ContextVar("xpshim_device", default=NO_POLICY)
_default = None  # resolved process default, "cpu", "gpu" or "dask"
_sized = False  # the process default is auto on a usable GPU: size-aware placement
default_placing = None  # _sized once the process default is resolved, else None (placing's answer, read inline)


policy_now = _policy.get  # (this context's (device, sized): placing's first step, for the hot paths to read inline)


def placing():
    """True when this thread places arrays by size (auto mode with a GPU), not all on one device."""
    s = _policy.get()[1]
    if s is None:
        if _default is None:
            resolve_default()
        return _sized
    return s


# Data this large, given to xpshim while the GPU is still starting (auto mode), waits for the
# GPU rather than going on on the CPU: its work on the CPU would take longer than what is left
# of the GPU's start (about 0.45 s from import on an H100: CuPy's import, cuInit, the context;
# NumPy works through about 1e8 elements a second in the seed's grayscale dot). 2**24 elements:
# a 6000x4000 photo (7.2e7) waits, a 1920x1080 one (6.2e6) runs on the CPU meanwhile.
WAIT_FOR_GPU = 1 << 24


def wait_for_gpu(size):
    """Auto mode: wait for the GPU's start where data of ``size`` elements is worth it."""
    if size >= WAIT_FOR_GPU and _backend.pending and _policy.get()[0] is None:
        _backend.gpu_status()


def resolve_default():
    global _default, _sized, default_placing
    if _default is None:
        if _backend.forced is not None:   # _backend.install (tests, the simulated GPU)
            _default, _sized = _backend.forced
        elif requested_device == "cpu":
            _default = "cpu"
        elif requested_device == "dask":
            _default = "dask"   # (the package __init__ switched Dask mode on at import)
        elif requested_device == "gpu":
            _backend.require_gpu("XPSHIM_DEVICE=gpu")
            _default = "gpu"
        else:
            st = _backend.status_now()
            if st is None:  # auto mode, the GPU still starting on its thread: this call on the CPU
                return "cpu"  # (not kept: a later call looks again)
            _default = "gpu" if st.usable else "cpu"
            _sized = _default == "gpu"
            if _sized and _config.seeds == "learn":  # (large host work found by time: _hotwork)
                _hotwork.start()
        default_placing = _sized if _default is not None else None
    return _default


def resolve_at_import():
    """The process default at ``import xpshim``. Resolved now, as a forced GPU that is absent
    must fail here, with the reason; but in auto mode where the GPU may be chosen
    (``_backend.preload``), calls that need the device start CuPy's import and the GPU's start
    on threads (once they have asked for it for ``_backend.START_AFTER_S``), and a call after
    them resolves it, so that the start overlaps the program's own work."""
    if _backend.preload(now=requested_device != "auto") and requested_device == "auto":
        _backend.defer_choice()  # (the GPU starts once calls need it: _backend.status_now, begin)
    elif resolve_default() == "gpu":
        _backend.mark_live()


def current_device():
    """Where new arrays are made in this thread: ``"cpu"``, ``"gpu"`` or ``"dask"``."""
    return _policy.get()[0] or _default or resolve_default()


def new_arrays():
    """``(current_device(), placing())`` in one step (a call that makes an array from a shape
    asks both). The device first: in auto mode it may settle here, and placing reads that."""
    d, s = _policy.get()
    if d is None:
        d = _default or resolve_default()
    if s is None:
        if _default is None:
            resolve_default()
        s = _sized
    return d, s


def set_policy(device, sized):
    """Make ``device`` current in this context; ``reset_policy`` of the token undoes it."""
    return _policy.set((device, sized))


def reset_policy(token):
    _policy.reset(token)


def why_device():
    """One sentence saying why the current device was chosen (``xpshim.why_device()``).

    >>> import xpshim as np
    >>> np.why_device()    # doctest: +SKIP
    'XPSHIM_DEVICE=auto and no usable GPU: CuPy is not installed (...)'
    """
    dev = _policy.get()[0]
    if dev:
        return f"set for this thread (or asyncio task) by xpshim.device({dev!r})"
    if requested_device != "auto":
        return f"forced by XPSHIM_DEVICE={requested_device}"
    st = _backend.status_now()
    if st is None and _backend.not_started():
        return ("XPSHIM_DEVICE=auto and the GPU not started yet: it starts once the program has asked "
                f"for the device for {_backend.START_AFTER_S:g} s (or at once for data of "
                f"{_backend.START_SIZE} elements or more), as it would cost a shorter script more than "
                "it saves; until it has started, calls run on the CPU")
    if st is None:  # (asking must not wait for the start: a script's last line often asks)
        return ("XPSHIM_DEVICE=auto and the GPU is still starting (CuPy's import and CUDA's start run "
                "on threads since the first call that needed the device): until it is ready, calls run "
                "on the CPU, but those given "
                f"{WAIT_FOR_GPU} elements or more, which wait for it")
    dev = current_device()
    if dev == "gpu" and placing():
        return (f"XPSHIM_DEVICE=auto and a CUDA device is usable ({st.reason}); arrays of fewer "
                f"than {crossover()[0]} elements stay on the CPU")
    if dev == "gpu":
        return f"XPSHIM_DEVICE=auto and a CUDA device is usable ({st.reason})"
    return f"XPSHIM_DEVICE=auto and no usable GPU: {st.reason}"


@contextlib.contextmanager
def device(name, **dask_options):
    """Make new arrays on ``name`` ("cpu", "gpu", "dask" or "auto") in this thread or asyncio task.

    The choice lives in a ``contextvars.ContextVar``: it holds in the block, in the thread (or
    asyncio task) that entered it; other threads, and tasks started outside the block, keep theirs.

    Arrays that already exist stay where they are; a call runs where its
    array arguments live, and on this device when it has none.

    >>> import xpshim as np
    >>> with np.device("cpu"):
    ...     a = np.zeros(3)     # a NumPy array, whatever the default

    ``"dask"`` makes chunked Dask arrays; it takes the keywords ``client``,
    ``scheduler``, ``chunk_type``, ``chunk_bytes`` and ``chunks`` (see
    ``xpshim._dask.options``), e.g. ``np.device("dask", client=Client(addr))``.
    """
    name = str(name).lower()
    if name not in DEVICES:
        raise ConfigError(f"unknown device {name!r}; use one of {', '.join(DEVICES)}")
    if name == "dask":
        with dask_hook(**dask_options):
            token = _policy.set(("dask", False))
            try:
                yield "dask"
            finally:
                _policy.reset(token)
        return
    if dask_options:
        raise TypeError(f"device({name!r}) takes no keyword arguments (only device('dask', ...) does)")

    if name == "gpu":
        _backend.require_gpu('xpshim.device("gpu")', fix='use xpshim.device("auto") (the GPU when one is '
                             'usable, else the CPU) or xpshim.device("cpu") to run on the CPU')
    resolved = name
    if name == "auto":
        resolved = "gpu" if _backend.gpu_status().usable else "cpu"
        if resolved == "gpu":
            _backend.mark_live()
            if _config.seeds == "learn" and _backend.forced is None:  # (as the process default's auto)
                _hotwork.start()
    # "auto" on a GPU places by size (_placement); "gpu" puts every new array on the GPU.
    token = _policy.set((resolved, name == "auto" and resolved == "gpu"))
    try:
        yield resolved
    finally:
        _policy.reset(token)


@_backend.on_change
def _backend_changed():
    """The backend changed (the GPU went live, or a test installed or removed one): resolve the
    default device again on next use."""
    global _default, _sized, default_placing
    _default, _sized = _backend.forced or (None, False)
    default_placing = _sized if _default is not None else None
