"""xpshim: NumPy code on the GPU by changing one line.

    import xpshim as np

Every NumPy name is here. A call runs on the GPU (through CuPy) when an
argument is a GPU array, on NumPy when one is a NumPy array, and otherwise on
the current device: the GPU when CuPy finds a usable CUDA device, else the CPU
(``XPSHIM_DEVICE=auto|cpu|gpu``; ``with xpshim.device("cpu"): ...``).
What has no GPU implementation runs on the host, counted in ``xpshim.stats()``
and announced by ``xpshim.FallbackWarning`` (``XPSHIM_FALLBACK=warn|silent|raise``).
``python -m xpshim info`` says what was chosen and why.
"""

import numpy as _numpy

from . import _config, _backend  # noqa: F401  (reads the environment first)
from ._errors import (  # noqa: F401
    ConfigError, DeviceError, FallbackError, FallbackWarning, OutOfMemoryError,
    TransferWarning, XpshimError,
)
from ._config import device  # noqa: F401
from ._transfer import reset_stats, stats  # noqa: F401
from ._dispatch import asnumpy, ufunc  # noqa: F401
from ._handwritten import empty_pinned, free_gpu_memory, get_array_module, get_device, zeros_pinned  # noqa: F401
from ._arrayapi import API_VERSION as __array_api_version__, __array_namespace_info__, to_device  # noqa: F401
from ._ndarray import ndarray  # noqa: F401
from ._vectorize import numba_vectorize  # noqa: F401
from . import _namespace

__version__ = "0.1.0"

# Resolve the process default device now: a forced GPU that is absent fails
# here, at import, with the reason; auto probes the driver without CuPy first.
if _config._resolve_default() == "gpu":
    _backend.mark_live()

_namespace.register_submodules()
_OWN = {"device", "stats", "reset_stats", "asnumpy", "to_device", "get_device", "empty_pinned", "zeros_pinned",
        "get_array_module", "free_gpu_memory", "numba_vectorize", "ConfigError", "DeviceError", "FallbackError",
        "FallbackWarning", "OutOfMemoryError", "TransferWarning", "XpshimError",
        "__array_api_version__", "__array_namespace_info__"}
__all__ = sorted(set(getattr(_numpy, "__all__", ())) | _OWN)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'xpshim' has no attribute {name!r}")
    try:
        obj = _namespace.resolve("", name)
    except AttributeError:
        raise AttributeError(f"module 'xpshim' has no attribute {name!r} (nor has numpy)") from None
    globals()[name] = obj  # resolved once: later lookups never come here
    return obj


def load_ipython_extension(ipython):
    """``%load_ext xpshim``: ``import numpy`` in later cells gives xpshim (xpshim/_ipython.py)."""
    from ._ipython import load

    load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext xpshim``: later ``import numpy`` in cells gives NumPy again."""
    from ._ipython import unload

    unload(ipython)


def __dir__():
    return sorted(set(_namespace.public_names("")) | set(globals()))

from . import _numba

# Numba's @jit learns xpshim's names and arrays when Numba loads (or now, if it has).
_numba.install_import_hook()
