"""Dask mode: the same NumPy script on a Dask cluster (``XPSHIM_DEVICE=dask``).

In Dask mode the creation functions (``array``, ``asarray``, ``zeros``, ``arange``,
``random.*``, ...) make chunked ``dask.array`` arrays, wrapped as ``DaskArray``
(``array.py``); every NumPy name given such an array runs ``dask.array``'s function
of the same name where it has one (``routing.py``), and otherwise gathers the whole
array to this process, runs NumPy and sends the result back: a visible, counted
fallback. Host interop (``numpy.asarray``, Pillow, ``print``, ``float``, iteration)
computes and gathers, each gather counted in ``xpshim.stats()`` (the cluster is the
"device": gathers count as ``device_to_host``, data sent to it as ``host_to_device``).

Chunks are NumPy arrays, or CuPy arrays on GPU workers. Environment variables, checked at
import by ``_config`` (``xpshim.device("dask", ...)`` overrides each per thread):

XPSHIM_DASK_SCHEDULER   where to compute: a scheduler address (``tcp://host:8786``);
                        ``local`` (start a local cluster: dask-cuda's LocalCUDACluster,
                        one worker per visible GPU, when dask-cuda is installed and a GPU
                        is usable, else distributed's LocalCluster); ``threads`` or
                        ``synchronous`` (Dask's in-process schedulers, no distributed).
                        Default: the current ``distributed`` client if one exists, else ``local``.
XPSHIM_DASK_CHUNK_TYPE  ``auto`` (default: CuPy when every worker has a usable GPU,
                        found by asking the workers), ``numpy`` or ``cupy``.
XPSHIM_DASK_CHUNK_BYTES target bytes per chunk for new arrays (``256MiB``, ``1e9``, ...);
                        default 128 MiB for NumPy chunks, 512 MiB for CuPy chunks.

Dask is imported only here, and only when the mode is chosen.
"""

import contextlib
import threading

from . import settings
from .settings import (  # noqa: F401  (Dask mode's public settings, used across xpshim)
    CHUNK_TYPES, DEFAULT_CHUNK_BYTES, INSTALL_HINT, LOCAL_SCHEDULERS, chunk_bytes, chunk_type, current,
    describe, require, scheduler,
)

_enabled = False
_lock = threading.RLock()


def enable():
    """Switch Dask mode on for this process (idempotent): import Dask, read the
    environment, and route every NumPy name through the Dask-aware wrappers."""
    global _enabled
    if _enabled:
        return
    with _lock:
        if _enabled:
            return
        require()
        from . import array, routing

        settings.start()
        array.route_with(routing)  # (DaskArray's NumPy protocols, answered by the routing above it)
        routing.install()
        _enabled = True


def disable():
    """Undo ``enable()`` (for tests): names resolve as without Dask mode again."""
    global _enabled
    from . import routing

    with _lock:
        routing.uninstall()
        _enabled = False
        settings.forget_chunk_types()


@contextlib.contextmanager
def options(**kwargs):
    """Dask-mode settings for this thread (``xpshim.device("dask", ...)`` uses this); the
    keywords are those of ``settings.options``: ``client``, ``scheduler``, ``chunk_type``,
    ``chunk_bytes``, ``chunks``."""
    enable()
    with settings.options(**kwargs) as s:
        yield s
