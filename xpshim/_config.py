"""Device and fallback policy: environment variables and per-thread overrides.

Environment variables, read once at import:

XPSHIM_DEVICE    auto | cpu | gpu | dask   where new arrays are made (default auto;
                 dask: chunked Dask arrays, see xpshim/_dask and its XPSHIM_DASK_* variables)
XPSHIM_FALLBACK  warn | silent | raise   what a host fallback does (default warn)
XPSHIM_TRANSFERS count | warn        implicit copies are always counted; ``warn`` also warns
XPSHIM_REPORT    path                write ``xpshim.stats()`` there as JSON at exit
"""

import contextlib
import os
import threading

from ._errors import ConfigError

DEVICES = ("auto", "cpu", "gpu", "dask")
FALLBACKS = ("warn", "silent", "raise")
TRANSFERS = ("count", "warn")


def _read(var, valid, default):
    raw = os.environ.get(var, "")
    value = raw.strip().lower() or default
    if value not in valid:
        raise ConfigError(
            f"{var}={raw!r} is not a valid value; use one of {', '.join(valid)} "
            f"(or unset {var} for the default, {default!r})"
        )
    return value


requested_device = _read("XPSHIM_DEVICE", DEVICES, "auto")
fallback_policy = _read("XPSHIM_FALLBACK", FALLBACKS, "warn")
transfer_policy = _read("XPSHIM_TRANSFERS", TRANSFERS, "count")
report_path = os.environ.get("XPSHIM_REPORT") or None


class _Local(threading.local):
    device = None  # "cpu" | "gpu" | "dask" | None (use the process default)


_local = _Local()
_default = None  # resolved process default, "cpu", "gpu" or "dask"


def _resolve_default():
    global _default
    if _default is None:
        from . import _backend

        if requested_device == "cpu":
            _default = "cpu"
        elif requested_device == "dask":
            from . import _dask  # the one place Dask mode is switched on from the environment

            _dask.enable()
            _default = "dask"
        elif requested_device == "gpu":
            _backend.require_gpu("XPSHIM_DEVICE=gpu")
            _default = "gpu"
        else:
            _default = "gpu" if _backend.gpu_status().usable else "cpu"
    return _default


def current_device():
    """Where new arrays are made in this thread: ``"cpu"``, ``"gpu"`` or ``"dask"``."""
    return _local.device or _default or _resolve_default()


def why_device():
    """One sentence saying why the current device was chosen."""
    from . import _backend

    if _local.device:
        return f"set for this thread by xpshim.device({_local.device!r})"
    dev = current_device()
    if requested_device != "auto":
        return f"forced by XPSHIM_DEVICE={requested_device}"
    st = _backend.gpu_status()
    if dev == "gpu":
        return f"XPSHIM_DEVICE=auto and a CUDA device is usable ({st.reason})"
    return f"XPSHIM_DEVICE=auto and no usable GPU: {st.reason}"


@contextlib.contextmanager
def device(name, **dask_options):
    """Make new arrays on ``name`` ("cpu", "gpu", "dask" or "auto") in this thread.

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
        from . import _dask

        with _dask.options(**dask_options):
            before = _local.device
            _local.device = "dask"
            try:
                yield "dask"
            finally:
                _local.device = before
        return
    if dask_options:
        raise TypeError(f"device({name!r}) takes no keyword arguments (only device('dask', ...) does)")
    from . import _backend

    if name == "gpu":
        _backend.require_gpu('xpshim.device("gpu")')
    resolved = name
    if name == "auto":
        resolved = "gpu" if _backend.gpu_status().usable else "cpu"
        if resolved == "gpu":
            _backend.mark_live()
    before = _local.device
    _local.device = resolved
    try:
        yield resolved
    finally:
        _local.device = before
