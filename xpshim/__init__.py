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

from . import _config, _backend, _device  # noqa: F401  (reads the environment first)
from ._errors import (  # noqa: F401
    ConfigError, DeviceError, FallbackError, FallbackWarning, OutOfMemoryError,
    TransferWarning, XpshimError,
)
from ._device import device  # noqa: F401

# NumPy's version: code that checks ``np.__version__`` (``>= "2"``) takes NumPy's branch, as it
# runs on NumPy's functions. xpshim's own version: ``xpshim.__xpshim_version__`` (docs/differences.md).
__xpshim_version__ = "0.1.0"
__version__ = _numpy.__version__

# xpshim's own names, each loaded from its module on first use (as NumPy's names are, through
# _namespace), so that `import xpshim` costs about what `import numpy` does.
_LAZY = {
    "stats": "_transfer", "reset_stats": "_transfer", "asnumpy": "_objects", "ufunc": "_ufunc",
    "empty_pinned": "_handwritten", "free_gpu_memory": "_handwritten", "get_array_module": "_handwritten",
    "get_device": "_cpupath", "zeros_pinned": "_handwritten",
    "ndarray": "_ndarray", "numba_vectorize": "_vectorize", "cupy_kernel": "_cupykernel",
    "to_device": "_arrayapi", "__array_namespace_info__": "_arrayapi", "why_device": "_device",
}
__array_api_version__ = _numpy.__array_api_version__  # the standard's version NumPy implements


def _dask_options(**settings):
    from . import _dask

    return _dask.options(**settings)


_device.dask_hook = _dask_options  # `with xpshim.device("dask", ...)`: Dask mode's options

if _config.requested_device == "dask" and not _config.problems:
    from . import _dask

    try:
        _dask.enable()  # the one place Dask mode is switched on from the environment
    except XpshimError as _e:  # (Dask missing, a scheduler that does not answer)
        _config.problems.append(_e)


@_backend.on_change
def _gpu_live():
    """Once a GPU array can exist, numpy.testing's scalar asserts take GPU arrays: patched now
    (or when the program imports numpy.testing), before a test module binds them by name."""
    if _backend.live:
        from . import _namespace

        _namespace.host_copy_numpy_testing()


# Resolve the process default device now: a forced GPU that is absent fails here, at import,
# with the reason; auto mode where the GPU may be chosen starts CuPy's import on a thread and
# decides at the first call (xpshim/_preload.py).
if not _config.problems:
    try:
        _device.resolve_at_import()
    except DeviceError as _e:
        _config.problems.append(_e)

# A setting xpshim cannot start with stops the import with its error, which names the setting
# and the fix. It is raised here, afresh: the traceback shows the user's `import xpshim` and this
# one line of xpshim, not the readers inside. Under `python -m xpshim` the import goes on, so that
# `info` can show the settings, what was detected and the fix (xpshim/__main__.py: exit status 2).
if _config.problems and not _config.started_by_cli():
    raise _config.startup_error()  # a setting xpshim cannot start with: the message names it and the fix

if _config.report_path:
    import atexit

    def _write_report():
        from . import _transfer

        _transfer.write_report(_config.report_path)

    atexit.register(_write_report)  # (here, not in _transfer: a run that never copies still reports)

from . import _imports, _lazy, _warnlines  # noqa: E402


def _wire_array():
    """The GPU array type's calls into the layers above it (xpshim/_ndarray.py's ``above``),
    handed in when that module first loads: on the GPU path only. NumPy's methods (``x.sum``)
    are put on the type then too: an array unpickled in a new interpreter (a ``multiprocessing``
    child's argument) is made before any call has loaded the routes that install them."""
    from . import _fallback, _flatiter, _foreign, _methods, _namespace, _ndarray  # noqa: F401

    above = _ndarray.above
    above.namespace = _namespace.package()
    above.ufunc_for, above.function_for = _namespace.ufunc_for, _namespace.function_for
    above.fallback, above.foreign_call, above.flatiter = _fallback, _foreign.call, _flatiter


_lazy.after_import("xpshim._ndarray", _wire_array)

_imports.install()  # `import xpshim.linalg` and friends, each built when first imported
_warnlines.install()  # NumPy's RuntimeWarnings from inside xpshim's wrappers told at the user's line
_OWN = {"device", "why_device", "stats", "reset_stats", "asnumpy", "to_device", "get_device", "empty_pinned", "zeros_pinned",
        "get_array_module", "free_gpu_memory", "numba_vectorize", "cupy_kernel", "ConfigError", "DeviceError", "FallbackError",
        "FallbackWarning", "OutOfMemoryError", "TransferWarning", "XpshimError",
        "__array_api_version__", "__array_namespace_info__"}
__all__ = sorted(set(getattr(_numpy, "__all__", ())) | _OWN)


def __getattr__(name):
    # (`from . import _x` asks here first for a module not imported yet: that is not NumPy's)
    if (name.startswith("__") and name not in _LAZY) or (name.startswith("_") and not hasattr(_numpy, name)
                                                          and name not in _LAZY):
        raise AttributeError(f"module 'xpshim' has no attribute {name!r}")
    import importlib

    if name in _LAZY:
        obj = getattr(importlib.import_module("xpshim." + _LAZY[name]), name)
    else:
        _namespace = importlib.import_module("xpshim._namespace")
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
    import importlib

    _namespace = importlib.import_module("xpshim._namespace")
    return sorted(set(_namespace.public_names("")) | set(_LAZY) | set(globals()))

from . import _numba  # noqa: E402

# Numba's @jit learns xpshim's names and arrays when Numba loads (or now, if it has).
_numba.install_import_hook()
