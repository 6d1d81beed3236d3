"""Dask mode's settings: the environment's, those of ``device("dask", ...)`` blocks per thread
and asyncio task, the cluster to compute on, and the chunk type and size of new arrays."""


import contextlib
import contextvars
import threading

from .. import _config
from .._errors import ConfigError

# (xpshim is not on PyPI: its extras install only from a checkout of its repository)
INSTALL_HINT = 'pip install "dask[array]" distributed (from the xpshim repository checkout: pip install ".[dask]")'
CHUNK_TYPES = _config.DASK_CHUNK_TYPES
LOCAL_SCHEDULERS = ("threads", "synchronous")
DEFAULT_CHUNK_BYTES = {"numpy": 128 * 2**20, "cupy": 512 * 2**20}

_enabled = False
_lock = threading.RLock()


def require():
    """Import dask.array, or say how to install it."""
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as e:
        raise ConfigError(
            f"Dask mode needs dask[array] and distributed, which do not import here ({e}); "
            f"install them with: {INSTALL_HINT}  (for GPU workers also: pip install dask-cuda)"
        ) from None
    return dask


def _parse_bytes(value, source):
    return _config.parse_size(value, source)


def _check_type(value, source):
    return _config.check_chunk_type(value, source)


class _Settings:
    __slots__ = ("client", "scheduler", "chunk_type", "chunk_bytes", "chunks")

    def __init__(self, client=None, scheduler=None, chunk_type="auto", chunk_bytes=None, chunks=None):
        self.client, self.scheduler = client, scheduler
        self.chunk_type, self.chunk_bytes, self.chunks = chunk_type, chunk_bytes, chunks


_process = None  # _Settings from the environment, set by start()


def start():
    """Take the environment's settings (read and checked at import by ``_config``) into use."""
    global _process
    if _process is None:
        _process = _Settings(scheduler=_config.dask_scheduler, chunk_type=_config.dask_chunk_type,
                             chunk_bytes=_config.dask_chunk_bytes)


def forget_chunk_types():
    """Ask the workers again for the chunk type (Dask mode switched off, for tests)."""
    _chunk_types.clear()


# The options of nested ``device("dask", ...)`` blocks, innermost last, per thread and asyncio
# task (a ContextVar, as the device policy in _device).
_stack = contextvars.ContextVar("xpshim_dask_options", default=())


@contextlib.contextmanager
def options(client=None, scheduler=None, chunk_type=None, chunk_bytes=None, chunks=None):
    """Dask-mode settings for this thread (``xpshim.device("dask", ...)`` uses this).

    client       a ``distributed.Client`` to compute on
    scheduler    as ``XPSHIM_DASK_SCHEDULER`` (an address, ``local``, ``threads``, ``synchronous``)
    chunk_type   ``auto``, ``numpy`` or ``cupy`` (as ``XPSHIM_DASK_CHUNK_TYPE``)
    chunk_bytes  target bytes per chunk (as ``XPSHIM_DASK_CHUNK_BYTES``)
    chunks       an explicit Dask chunks spec for new arrays (``(1000, 1000)``, ``"auto"``, ...)
    """
    top = current()
    s = _Settings(
        client=client if client is not None else (top.client if scheduler is None else None),
        scheduler=scheduler if scheduler is not None else top.scheduler,
        chunk_type=_check_type(chunk_type, "chunk_type") if chunk_type is not None else top.chunk_type,
        chunk_bytes=_parse_bytes(chunk_bytes, "chunk_bytes") if chunk_bytes is not None else top.chunk_bytes,
        chunks=chunks if chunks is not None else top.chunks,
    )
    token = _stack.set(_stack.get() + (s,))
    try:
        yield s
    finally:
        _stack.reset(token)


def current():
    """The settings in force in this thread."""
    stack = _stack.get()
    return stack[-1] if stack else _process


# ------------------------------------------------------------------ clusters

_clients = {}  # scheduler address or "local" -> Client
_chunk_types = {}  # id(client) or scheduler name -> "numpy" | "cupy"


def _distributed(why):
    try:
        import distributed
    except ImportError as e:
        raise ConfigError(f"{why} needs the distributed package ({e}); install it with: {INSTALL_HINT}") from None
    return distributed


def _local_cluster():
    from .. import _backend

    if _backend.gpu_status().usable:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            pass
        else:
            return LocalCUDACluster()  # one worker per GPU that CUDA_VISIBLE_DEVICES shows
    return _distributed("a local Dask cluster").LocalCluster(processes=False)


def scheduler():
    """What computes in this thread: a ``distributed.Client``, or "threads"/"synchronous"."""
    s = current()
    if s.client is not None:
        return s.client
    name = s.scheduler
    if name in LOCAL_SCHEDULERS:
        return name
    with _lock:
        if name is None:
            try:
                import distributed

                return distributed.get_client()
            except (ImportError, ValueError):
                name = "local"
        c = _clients.get(name)
        if c is None or c.status in ("closed", "closing"):
            distributed = _distributed(f"XPSHIM_DASK_SCHEDULER={name}")
            if name == "local":
                c = distributed.Client(_local_cluster())
            else:
                try:
                    c = distributed.Client(name)  # waits distributed.comm.timeouts.connect
                except (OSError, TimeoutError) as e:
                    raise ConfigError(
                        f"no Dask scheduler answers at {name!r} ({type(e).__name__}: {e}); start one "
                        "(dask scheduler; dask worker ADDRESS, or dask cuda worker ADDRESS for GPUs) "
                        "or set XPSHIM_DASK_SCHEDULER to its address"
                    ) from None
            _clients[name] = c
        return c


# Runs on each worker; defined from source so that it is pickled by value: workers need
# NumPy (and CuPy for GPU chunks), not xpshim.
_PROBE_SRC = '''
def probe():
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy
        cupy.empty(1)
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False
'''


def by_value(src, name):
    ns = {"__name__": "xpshim_dask_worker_code"}
    exec(compile(src, f"<xpshim dask {name}>", "exec"), ns)
    return ns[name]


probe_gpu = by_value(_PROBE_SRC, "probe")


def chunk_type():
    """"numpy" or "cupy": the chunk type new arrays get in this thread."""
    s = current()
    sched = scheduler()
    key = (s.chunk_type, sched if isinstance(sched, str) else id(sched))
    t = _chunk_types.get(key)
    if t is not None:
        return t
    if isinstance(sched, str):
        gpus = [probe_gpu()]
        where = "this process (Dask's local scheduler)"
    else:
        if not sched.scheduler_info().get("workers"):
            sched.wait_for_workers(1, timeout=60)
        gpus = list(sched.run(probe_gpu).values())
        where = f"{len(gpus)} worker(s) of {sched.scheduler.address}"
    if s.chunk_type == "cupy" and not all(gpus):
        raise ConfigError(
            f"chunk type cupy asks for GPU workers, but {sum(not g for g in gpus)} of {where} cannot use "
            "CuPy on a GPU; start GPU workers (dask-cuda: LocalCUDACluster, or dask cuda worker ADDRESS) "
            "with CuPy installed, or set XPSHIM_DASK_CHUNK_TYPE=numpy (or auto)"
        )
    t = "cupy" if s.chunk_type == "cupy" or (s.chunk_type == "auto" and gpus and all(gpus)) else "numpy"
    _chunk_types[key] = t
    return t


def chunk_bytes():
    """Target bytes per chunk for new arrays in this thread."""
    return current().chunk_bytes or DEFAULT_CHUNK_BYTES[chunk_type()]


def describe():
    """One line: where Dask mode computes and with which chunks."""
    sched = scheduler()
    where = f"Dask's {sched} scheduler" if isinstance(sched, str) else f"the cluster at {sched.scheduler.address}"
    return f"Dask mode on {where}: {chunk_type()} chunks of about {chunk_bytes() / 2**20:.0f} MiB"
