"""``python -m xpshim gaps``: which NumPy callables run natively on the GPU, re-derived
from the installed NumPy and CuPy by their names alone (no CuPy function is called,
so it works on a machine without a GPU).

Each callable is one of: ``cupy`` (CuPy has it), ``gap:cupy`` / ``gap:numba`` (the gap
table has a composition or a kernel), ``host-io`` (files, buffers, text: NumPy's function
plus the one counted copy the job needs, ``_registry.HOST_IO``), ``host`` (a counted host
fallback). NumPy's own objects (configuration, dtype introspection, Python-number helpers:
``_registry.NUMPY_OWN``) never see array data and are left out. The share counts host I/O
as not native.
"""

import numpy

from . import _gaps

from ._route import resolve_path as _path
from ._namespace import numpy_module, public_names
from ._registry import (HOST_IO, HOST_ONLY, NUMPY_OWN, ROUTED_MODULES, UFUNC_ACCUMULATE,
                        UFUNC_REDUCE)

UFUNC_METHODS = ("reduce", "accumulate", "reduceat", "outer", "at")


def cupy_module():
    """The CuPy whose API the report reads: the installed one; where none is (or with
    XPSHIM_SIMULATE_GPU=1), the simulated GPU's, which is CuPy's API from xpshim's snapshot."""
    from . import _config

    if not _config.simulate_gpu:
        try:
            import cupy
        except Exception:  # not installed, or broken: the snapshot stands in
            pass
        else:
            return cupy
    from . import _simgpu

    return _simgpu.module()


def _cupy_name(cp):
    from . import _simgpu

    if cp is _simgpu.module():
        return f"{_simgpu.version()} (xpshim's snapshot of its API; CuPy itself is not used)"
    return cp.__version__


def _where(name, cupy_has, table):
    if cupy_has:
        return "cupy"
    how = table.get(name)
    return f"gap:{how}" if how else "host"


def rows(cp=None):
    """[(name, where, reason)] for every public NumPy callable xpshim routes, read against
    ``cp`` (default: the installed CuPy, else the simulated GPU's snapshot)."""
    cp = cupy_module() if cp is None else cp
    table = _gaps.table()
    replaced = _gaps.replacing()
    out = []
    for sub, cupy_sub in {"": "", **ROUTED_MODULES}.items():
        npmod = numpy_module(sub)
        for n in public_names(sub):
            obj = getattr(npmod, n, None)
            key = f"{sub}.{n}" if sub else n
            if obj is None or not callable(obj) or isinstance(obj, type) or n in NUMPY_OWN or key in NUMPY_OWN:
                continue
            if hasattr(obj, "__spec__") or (sub and f"{sub}.{n}" in ROUTED_MODULES):
                continue  # a module
            name = f"xpshim.{sub}.{n}" if sub else f"xpshim.{n}"
            if key in HOST_ONLY:
                out.append((name, "host", HOST_ONLY[key]))
                continue
            if key in HOST_IO:
                out.append((name, "host-io", HOST_IO[key]))
                continue
            cpath = None if cupy_sub is None else (f"{cupy_sub}.{n}" if cupy_sub else n)
            has = cp is not None and cpath is not None and _path(cp, cpath) is not None and name not in replaced
            out.append((name, _where(name, has, table), ""))
            if isinstance(obj, numpy.ufunc) and not sub and obj.nin == 2 and obj.nout == 1 and obj.signature is None:
                cu = _path(cp, n) if cp is not None else None
                for m in UFUNC_METHODS:
                    native = cu is not None and (
                        (m == "reduce" and n in UFUNC_REDUCE) or (m == "accumulate" and n in UFUNC_ACCUMULATE)
                        or (m == "outer") or (m == "at" and n == "add"))
                    mname = f"{name}.{m}"
                    w = _where(mname, native, table)
                    if w == "host" and f"ufunc.{m}" in table:
                        from ._gaps import ufuncs

                        how = ufuncs.covers(obj.__name__, m)
                        w = f"gap:{how}" if how else w
                    out.append((mname, w, ""))
    for cls in ("Generator", "RandomState"):
        npc = getattr(numpy.random, cls)
        cpc = _path(cp, f"random.{cls}") if cp is not None else None
        for m in sorted(dir(npc)):
            if m.startswith("_") or not callable(getattr(npc, m)):
                continue
            name = f"random.{cls}.{m}"
            out.append((name, _where(name, cpc is not None and hasattr(cpc, m), table), ""))
    return out


def share():
    """(GPU-native callables, all callables) for the installed NumPy and CuPy."""
    rs = rows()
    return sum(1 for _, w, _ in rs if not w.startswith("host")), len(rs)


def report():
    rs = rows()
    counts = {}
    for _, w, _ in rs:
        counts[w] = counts.get(w, 0) + 1
    native = sum(v for k, v in counts.items() if not k.startswith("host"))
    total = len(rs)
    cp = cupy_module()
    lines = [f"NumPy {numpy.__version__}, CuPy {_cupy_name(cp)}",
             f"{total} NumPy callables (functions, ufuncs, ufunc methods, random Generator and RandomState methods)",
             *(f"  {k:10} {v}" for k, v in sorted(counts.items())),
             f"GPU-native: {native} of {total} ({100.0 * native / total:.1f}%)" if total else "nothing found",
             ""]
    kw = {n: sorted(i.kwargs) for n, i in _gaps.IMPL.items() if i.kwargs is not None}
    lines += [f"Keywords CuPy lacks, filled on the GPU by the gap table ({len(kw)} functions):",
              *(f"  {n}: {', '.join(k)}" for n, k in sorted(kw.items())),
              "", "Host I/O (files, buffers, text: NumPy's function and one counted copy, no fallback):"]
    lines += [f"  {n}  ({why})" for n, w, why in rs if w == "host-io"]
    lines += ["", "On the host (a counted fallback on GPU arrays):"]
    lines += [f"  {n}" + (f"  ({why})" if why else "") for n, w, why in rs if w == "host"]
    return "\n".join(lines)
