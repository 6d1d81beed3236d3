"""Numba's CPU ``@jit`` on xpshim code, unchanged but for the import.

Two things are taught to Numba once both it and xpshim are imported, in either
order (``install_import_hook``, at ``import xpshim``):

* every xpshim function and ufunc is typed as the NumPy one it wraps, so
  ``np.zeros`` inside a jitted function compiles as ``numpy.zeros``;
* a GPU array passed to a jitted function arrives as a host copy (counted);
  if the function changed it, the change is copied back (counted) when the
  call returns. The function's results are NumPy arrays.
"""

import numpy

jit_ready = False
_snapshots = {}


def _host_for_numba(arr):
    from ._ndarray import host

    h = host(arr, "numba @jit argument")
    _snapshots[id(h)] = h.copy()
    return h


def _write_back(arr, h):
    from . import _transfer

    snap = _snapshots.pop(id(h), None)
    if snap is None or not numpy.array_equal(h.reshape(-1).view(numpy.uint8), snap.reshape(-1).view(numpy.uint8)):
        from ._ndarray import written

        written(arr)
        arr._a[...] = _transfer.to_device(h, "numba @jit write-back")


def alias_functions(ctx):
    from . import _namespace

    xpshim = _namespace.package()

    from . import _namespace
    from ._registry import ROUTED_MODULES

    for sub in ("",) + tuple(ROUTED_MODULES):
        npmod = _namespace.numpy_module(sub)
        xpmod = xpshim if not sub else _namespace.routed_module(sub)
        for name in _namespace.public_names(sub):
            if (f"{sub}.{name}" if sub else name) in _namespace.SUBMODULES:
                continue  # a module (and getattr would import numpy.testing, numpy.f2py, ...)
            npobj = getattr(npmod, name, None)
            if npobj is None or not callable(npobj) or isinstance(npobj, type):
                continue
            try:
                xpobj = getattr(xpmod, name)
            except AttributeError:
                continue
            if xpobj is npobj:
                continue
            try:
                ty = ctx.resolve_value_type(npobj)
            except Exception:  # Numba does not support this NumPy name; nor then for xpshim
                continue
            try:
                ctx.insert_global(xpobj, ty)
            except (TypeError, AssertionError):  # not weak-referenceable, or an alias seen already
                continue


def init():
    """Register xpshim with Numba (idempotent)."""
    global jit_ready
    if jit_ready:
        return
    jit_ready = True
    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.extending import NativeValue, models, register_model, typeof_impl, unbox
    from numba.np import numpy_support

    from ._ndarray import ndarray

    class XpshimArray(types.Array):
        """An xpshim GPU array seen by Numba: a host copy under @jit, the array itself
        (zero-copy) in a CUDA kernel."""

        def __init__(self, dtype, ndim, layout="C", readonly=False, aligned=True):
            super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned,
                             name=f"xpshim.ndarray({dtype}, {ndim}d, {layout})")

        def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
            # Arrays derived inside the function are plain NumPy arrays.
            return types.Array(dtype or self.dtype, self.ndim if ndim is None else ndim,
                               layout or self.layout, readonly=self.mutable is False if readonly is None else readonly)

    register_model(XpshimArray)(models.ArrayModel)

    @typeof_impl.register(ndarray)
    def _typeof(val, c):
        # The layout is the GPU array's own: a CUDA kernel (numba.cuda.jit) is given the
        # array itself through __cuda_array_interface__, strides and all; @jit gets a
        # C-contiguous host copy, which layout "A" describes too.
        layout = "C" if val.flags.c_contiguous else "A"
        return XpshimArray(numpy_support.from_dtype(val.dtype), val.ndim, layout)

    @unbox(XpshimArray)
    def _unbox(typ, obj, c):
        mod = c.pyapi.unserialize(c.pyapi.serialize_object(_host_for_numba))
        host = c.pyapi.call_function_objargs(mod, [obj])
        c.pyapi.decref(mod)
        native = c.unbox(types.Array(typ.dtype, typ.ndim, typ.layout), host)

        def cleanup():
            wb = c.pyapi.unserialize(c.pyapi.serialize_object(_write_back))
            res = c.pyapi.call_function_objargs(wb, [obj, host])
            c.pyapi.decref(res)
            c.pyapi.decref(wb)
            c.pyapi.decref(host)

        return NativeValue(native.value, is_error=native.is_error, cleanup=cleanup)

    cpu_target.target_context.refresh()  # loads Numba's NumPy typing registries
    ctx = cpu_target.typing_context
    ctx.refresh()
    alias_functions(ctx)
    return XpshimArray


def status():
    """One line for ``python -m xpshim info``."""
    import sys

    if "numba" not in sys.modules:
        return "not loaded yet (xpshim registers itself when Numba starts)"
    return "xpshim functions and arrays registered with numba.jit" if jit_ready else "loaded, xpshim not registered"


def _cuda_target_ready():
    """After the user's own ``import numba.cuda``: where NumPy lacks ``row_stack`` (2.5+), load
    Numba's CUDA target now, with the name lent (``_kernels.cuda``), so that the user's first
    ``@cuda.jit`` kernel compiles. Elsewhere nothing is done; a failure is left for ``info``."""
    import numpy

    if hasattr(numpy, "row_stack"):
        return
    from . import _backend, _kernels

    if _kernels.simulated() or _backend.gpu_status().usable:
        _kernels.preload()


def install_import_hook():
    """At ``import xpshim``: register with Numba when the program imports it (now, if it has).
    Nothing of Numba is imported here, and a program that never imports xpshim never runs this
    (there is no ``numba_extensions`` entry point: one inside this package would import xpshim
    into every Numba program)."""
    from ._lazy import after_import

    after_import("numba", init)
    after_import("numba.cuda", _cuda_target_ready)
