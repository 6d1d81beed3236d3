"""The workload suite: real NumPy programs, one a module, each written against ``np``.

Every workload module has a one-line docstring, ``KIND`` ("vectorized" or "loop"),
``SIZES = {"quick": n, "full": n}``, ``TOLERANCE`` (``(rtol, atol)``, or one pair per
element of a tuple result) and ``run(np, n)``, which takes the array module to use
(``numpy``, ``cupy`` or ``xpshim``) and returns what is checked against NumPy's result.
"""

import importlib
import os

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))


def names():
    """The workload module names, sorted."""
    return sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".py") and not f.startswith("_"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")


def all_workloads():
    return [load(n) for n in names()]


def parts(result):
    """A result as a list of its parts (a tuple or list of arrays and scalars, or one)."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def to_host(result):
    """The result with every part a NumPy array (GPU parts copied back)."""
    import xpshim

    out = []
    for p in parts(result):
        if not isinstance(p, (int, float, complex, bool, numpy.ndarray, numpy.generic)):
            p = xpshim.asnumpy(p)  # xpshim arrays, and raw CuPy arrays
        out.append(numpy.asarray(p))
    return out


def tolerances(mod, k):
    tol = mod.TOLERANCE
    return list(tol) if isinstance(tol[0], (tuple, list)) else [tuple(tol)] * k


def mismatch(mod, got, want):
    """None when ``got`` (host parts) matches ``want`` within the workload's tolerance, else why not."""
    if len(got) != len(want):
        return f"{len(got)} parts returned, NumPy returned {len(want)}"
    for i, ((g, w), (rtol, atol)) in enumerate(zip(zip(got, want), tolerances(mod, len(want)))):
        if g.shape != w.shape:
            return f"part {i}: shape {g.shape}, NumPy's is {w.shape}"
        if g.dtype.kind != w.dtype.kind and not (g.dtype.kind in "iu" and w.dtype.kind in "iu"):
            return f"part {i}: dtype {g.dtype}, NumPy's is {w.dtype}"
        if not numpy.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            err = numpy.abs(g.astype(numpy.complex128) - w) if g.size else numpy.zeros(1)
            bad = int(numpy.count_nonzero(~numpy.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)))
            return (f"part {i}: {bad} of {w.size} values differ, max |diff| {float(err.max()):.3g} "
                    f"(rtol={rtol:g}, atol={atol:g})")
    return None
