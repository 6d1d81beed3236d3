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
from ._handwritten import empty_pinned, free_gpu_memory, get_array_module, get_device, to_device, zeros_pinned  # noqa: F401
from ._ndarray import ndarray  # noqa: F401
from ._vectorize import numba_vectorize  # noqa: F401
from . import _namespace, _warnlines

# NumPy's version: code that checks ``np.__version__`` (``>= "2"``) takes NumPy's branch, as it
# runs on NumPy's functions. xpshim's own version: ``xpshim.__xpshim_version__`` (docs/differences.md).
__xpshim_version__ = "0.1.0"
__version__ = _numpy.__version__

# Resolve the process default device now: a forced GPU that is absent fails
# here, at import, with the reason; auto probes the driver without CuPy first.
if _config._resolve_default() == "gpu":
    _backend.mark_live()

_namespace.register_submodules()
_warnlines.install()  # NumPy's RuntimeWarnings from inside xpshim's wrappers told at the user's line
_OWN = {"device", "stats", "reset_stats", "asnumpy", "to_device", "get_device", "empty_pinned", "zeros_pinned",
        "get_array_module", "free_gpu_memory", "numba_vectorize", "ConfigError", "DeviceError", "FallbackError",
        "FallbackWarning", "OutOfMemoryError", "TransferWarning", "XpshimError"}
__all__ = sorted(set(getattr(_numpy, "__all__", ())) - {"__array_namespace_info__"} | _OWN)  # (NumPy lists it, has none)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'xpshim' has no attribute {name!r}")
    try:
        obj = _namespace.resolve("", name)
    except AttributeError:
        raise AttributeError(f"module 'xpshim' has no attribute {name!r} (nor has numpy)") from None
    globals()[name] = obj  # resolved once: later lookups never come here
    return obj


def __dir__():
    return sorted(set(_namespace.public_names("")) | set(globals()))

from . import _numba

# Numba's @jit learns xpshim's names and arrays when Numba loads (or now, if it has).
_numba.install_import_hook()
