"""Numba CUDA ufuncs for ``xpshim.numba_vectorize``: one elementwise kernel per loop.

The user's scalar function is compiled as a CUDA device function for one loop
of the CPU ufunc (the input and output dtypes that NumPy's type resolution
picked for the call), and called by a kernel generated for the number of
inputs and the result's dimensions: thread ``t`` computes element ``t`` of the
output in C order, reading each array input at the same index (inputs are
broadcast views, stride 0 where broadcast) and taking each scalar input as it
is. Every access goes through the arrays' strides, so views and non-contiguous
arrays are read, and an ``out=`` view written, in place.
"""

import numpy

from . import cuda, launch

nc = None  # numba.cuda, set on first use: kernels reach it as a global (the simulator swaps it)


def _source(scalars, ndim):
    names = [f"a{k}" for k in range(len(scalars))]
    lines = [f"def kernel(out, {', '.join(names)}, n):", "    t = nc.grid(1)", "    if t < n:", "        r = t"]
    for d in range(ndim - 1, 0, -1):  # unravel t in C order: last axis fastest
        lines += [f"        i{d} = r % out.shape[{d}]", f"        r = r // out.shape[{d}]"]
    lines.append("        i0 = r")
    idx = ", ".join(f"i{d}" for d in range(ndim))
    operands = ", ".join(n if s else f"{n}[{idx}]" for n, s in zip(names, scalars))
    lines.append(f"        out[{idx}] = core({operands})")
    return "\n".join(lines) + "\n"


def ufunc_kernel(cache, pyfunc, in_dtypes, out_dtype, scalars, ndim, options):
    """The kernel computing ``pyfunc`` for one loop (dtypes), scalar pattern and ndim.

    ``cache`` is the caller's dict (one per vectorized function); ``options``
    are passed to the device function's ``cuda.jit`` (fastmath, ...)."""
    key = (in_dtypes, out_dtype, scalars, ndim)
    k = cache.get(key)
    if k is not None:
        return k
    global nc
    c = nc = cuda()
    from numba import from_dtype

    core_key = (in_dtypes, out_dtype)
    core = cache.get(core_key)
    if core is None:
        sig = from_dtype(out_dtype)(*[from_dtype(d) for d in in_dtypes])
        core = cache[core_key] = c.jit(sig, device=True, **options)(pyfunc)
    env = {"nc": c, "core": core}
    exec(_source(scalars, ndim), env)
    k = cache[key] = c.jit(env["kernel"])
    return k


def run(kernel, out, operands):
    """Launch over every element of ``out`` (ndim >= 1); ``operands`` broadcast to it."""
    n = int(numpy.prod(out.shape))
    launch(kernel, n, out, *operands, n)
