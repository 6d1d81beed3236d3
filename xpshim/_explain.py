"""``python -m xpshim explain NAME``: one NumPy name's whole route, read from the tables.

For ``median``, ``linalg.norm``, ``add.reduce`` or ``random.Generator.normal`` it says what
``xpshim.NAME`` is, what runs on the CPU path, and on GPU arrays: CuPy's function and the
keywords it lacks, the gap implementation (``xpshim/_gaps``), the edge-case correction
(``_edges``), NumPy's formula on the GPU (``_exact``), when the call falls back to the host
and why, auto mode's placement estimate, the host fast path, and the Dask route. Nothing is
called and no array is made, so it works on a machine without a GPU; the CuPy side is read
from the CuPy installed, else from the simulated GPU's snapshot of CuPy's API.

``explain_all()`` gives every routed callable's explanation, one after another: a dump that
stays byte-identical while the code is reorganised is the check that routes did not change.
"""

import inspect

import numpy

from . import _coverage, _edges, _exact, _gaps, _handwritten, _hostfast, _placement
from ._dispatch import SHAPE_FIRST
from ._namespace import numpy_module, public_names
from ._registry import HOST_IO, HOST_MODULES, HOST_ONLY, NUMPY_OWN, ROUTED_MODULES, WRITES_INTO
from ._route import Route, resolve_path

_FALLBACK_ALWAYS = (
    "an argument of a dtype with no GPU form (object, string, datetime, structured, longdouble), "
    "or a NumPy subclass (np.matrix, a masked array): NumPy's function on host copies (counted)")


def _factory(fn):
    """A function made inside another (``_edges._into_out(...)``'s ``edge``) is named by its maker."""
    qual = getattr(fn, "__qualname__", "") or ""
    if "<locals>" not in qual:
        return fn
    mod = inspect.getmodule(fn)
    return getattr(mod, qual.split(".<locals>")[0], fn) if mod is not None else fn


def _doc1(obj):
    """The first paragraph of a docstring, on one line."""
    doc = (getattr(_factory(obj), "__doc__", None) or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


def _where(fn):
    fn = _factory(fn)
    mod = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"{mod}.{name}" if mod else name


def _split(name):
    """'np.linalg.norm' -> ('linalg', 'norm', None); 'add.reduce' -> ('', 'add', 'reduce')."""
    for prefix in ("numpy.", "np.", "xpshim."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        sub = ".".join(parts[:i])
        if sub in ROUTED_MODULES or sub in HOST_MODULES:
            rest = parts[i:]
            return sub, rest[0], ".".join(rest[1:]) or None
    return "", parts[0], ".".join(parts[1:]) or None


def _numpy_keywords(npf):
    try:
        ps = inspect.signature(npf).parameters.values()
    except (TypeError, ValueError):
        return None
    return [p.name for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _gap_lines(full):
    g = _gaps.lookup(full)
    if g is None:
        return ["gap implementation: none"]
    kind = "a Numba CUDA kernel" if g.how == "numba" else "a composition of CuPy operations"
    cover = "every keyword NumPy's takes" if g.kwargs is None else "the keywords " + ", ".join(sorted(g.kwargs))
    lines = [f"gap implementation: {_where(g.fn)} ({kind}; takes {cover})"]
    if g.replaces:
        lines.append("  used instead of CuPy's function of that name, which does not do what NumPy's does")
    lines.append("  declines (and the call runs on the host, saying why) a case it cannot do exactly")
    return lines


def _dask_lines(sub, name):
    try:
        from ._dask import routing
    except Exception as exc:  # Dask mode's module needs nothing installed to be read; say so if it breaks
        return [f"Dask mode: unknown ({type(exc).__name__}: {exc})"]
    key = f"{sub}.{name}" if sub else name
    if key in routing.NOT_ROUTED:
        return [f"Dask mode: gathered to this process, NumPy runs (a counted fallback): {routing.NOT_ROUTED[key]}"]
    try:
        f = routing.dask_function(sub, name)
    except ImportError:
        return ["Dask mode: dask is not installed (pip install '.[dask]')"]
    if f is None:
        return ["Dask mode: dask.array has no such function: gathered to this process, NumPy runs (counted)"]
    extra = []
    if name in routing.CONDITIONS:
        extra.append(f"  only when {_doc1(routing.CONDITIONS[name]) or routing.CONDITIONS[name].__name__}; "
                     "else gathered (counted)")
    if name in routing.ADAPTED:
        extra.append(f"  arguments adapted by {_where(routing.ADAPTED[name])}")
    return [f"Dask mode: dask.array{'.' + sub if sub else ''}.{name}", *extra]


def _function(sub, name, npf, cp):
    full = f"xpshim.{sub}.{name}" if sub else f"xpshim.{name}"
    key = f"{sub}.{name}" if sub else name
    cupy_sub = ROUTED_MODULES.get(sub, "") if sub else ""
    lines = [f"CPU path (NumPy arrays, or no arrays on the cpu device): numpy{'.' + sub if sub else ''}.{name}"]
    if full in _hostfast.FAST:
        lines.append(f"  host fast path: NumPy's own steps without its argument handling ({_where(_hostfast.FAST[full])})")
    if key in HOST_ONLY:
        lines.append(f"GPU arrays: copied to the host, NumPy runs (a counted fallback): {HOST_ONLY[key]}")
        return lines
    if key in HOST_IO:
        lines.append(f"GPU arrays: NumPy's function with the one counted copy the job needs ({HOST_IO[key]})")
        return lines
    path = None if cupy_sub is None else (f"{cupy_sub}.{name}" if cupy_sub else name)
    lines.append("GPU arrays (or no arrays on the gpu device):")
    cpf = resolve_path(cp, path) if cp is not None and path else None
    if path is None:
        lines.append(f"  CuPy function: none (CuPy has no module for numpy.{sub})")
    elif cpf is None:
        lines.append(f"  CuPy function: none (cupy.{path} {'does not exist' if cp is not None else 'unknown: CuPy not installed'})")
    else:
        from ._signatures import accepted

        acc = accepted(cpf)
        nkw = _numpy_keywords(npf)
        lacks = [k for k in (nkw or ()) if acc is not None and k not in acc and k != "like"]
        lines.append(f"  CuPy function: cupy.{path}")
        lines.append(f"  keywords NumPy takes that CuPy's lacks: {', '.join(lacks) if lacks else 'none'}")
        if Route(full, npf, path).plain:
            lines.append("  a plain call (GPU arrays and Python numbers, alone or in a flat list or tuple; keywords of "
                         "numbers that CuPy's function takes and no gap claims, but out= and dtype=) goes to it at "
                         "once, without the checks for out=, dtypes, axes given as arrays and arguments of no GPU form")
    lines += ["  " + s for s in _gap_lines(full)]
    edge = _edges.TABLE.get(full)
    if edge is not None:
        lines.append(f"  edge cases answered as NumPy does, before CuPy runs: {_where(edge)}")
        if _doc1(edge):
            lines.append(f"    {_doc1(edge)}")
    if name in WRITES_INTO and not sub:
        lines.append("  writes into its first argument: a NumPy array there runs NumPy's function (the write lands in it)")
    lines.append(f"  host fallback (counted, FallbackWarning at your line): {_FALLBACK_ALWAYS}")
    if cpf is None and _gaps.lookup(full) is None:
        lines.append("    and always on GPU arrays: neither CuPy nor xpshim has a GPU version")
    else:
        lines.append("    and a keyword that neither CuPy's function nor the gap implementation takes")
    lines.append("Auto mode (a GPU present):")
    if full.startswith("xpshim.random."):
        lines.append("  NumPy's global generator draws (NumPy's numbers, whenever the GPU became ready); GPU arrays "
                     "given are read from host copies, and shuffle's is written back (counted)")
    if full in _placement.GROWS:
        lines.append("  NumPy inputs whose result reaches the crossover run on the GPU (the size is estimated from the arguments)")
    if full in SHAPE_FIRST:
        lines.append("  a shape below the crossover makes a NumPy array; from the crossover up, a GPU array")
    lines.append("  a NumPy result of the crossover's size or more moves to the GPU (counted), unless it is a view of an argument")
    return lines


def _ufunc(name, npu, method, cp):
    lines = [f"ufunc numpy.{name} (nin={npu.nin}, nout={npu.nout})"]
    cu = getattr(cp, name, None) if cp is not None else None
    full = f"xpshim.{name}"
    if method is None:
        lines.append(f"CPU path: numpy.{name}")
        lines.append("GPU arrays: " + (f"cupy.{name}" if cu is not None else "no CuPy ufunc"))
        if name in _exact.TABLE:
            lines.append("  NumPy's formula compiled as a CuPy elementwise kernel (xpshim/_exact.cuh), where CuPy's loop differs")
        edge = _edges.TABLE.get(full)
        if edge is not None:
            lines.append(f"  edge cases: {_where(edge)}")
        lines.append("  keywords CuPy's ufunc lacks (where=, subok=, order=, ...) and dtypes with no GPU form: host fallback (counted)")
        return lines
    rows = {r[0]: r for r in _coverage.rows(cp)}
    w = rows.get(f"{full}.{method}", (None, None, ""))[1]
    lines.append(f"{name}.{method} on GPU arrays: " + {"cupy": "CuPy", None: "unknown (CuPy not installed)"}.get(
        w, w.replace("gap:cupy", "xpshim's composition of CuPy operations").replace("gap:numba", "xpshim's Numba CUDA kernel")
        .replace("host", "the host (a counted fallback)")))
    for key in (f"{full}.{method}", f"ufunc.{method}"):
        g = _gaps.lookup(key)
        if g is not None:
            lines.append(f"  gap implementation {key}: {_where(g.fn)}")
    return lines


def _numpy_object(sub, attr, method):
    """NumPy's object that ``sub``, ``attr`` and ``method`` name, or None where NumPy has none."""
    obj = getattr(numpy_module(sub), attr, None)
    if obj is None or method is None:
        return obj
    if isinstance(obj, numpy.ufunc):
        return getattr(obj, method, None) if method in _coverage.UFUNC_METHODS else None
    for part in method.split("."):
        obj = getattr(obj, part, None)
    return obj


def _own_names():
    """xpshim's own names, which NumPy has not (``stats``, ``asnumpy``, ...)."""
    from ._namespace import package

    return sorted(n for n in package().__all__ if not hasattr(numpy, n))


def known(name):
    """True when ``name`` is a NumPy name (``median``, ``linalg.norm``, ``add.reduce``,
    ``random.Generator.normal``) or one of xpshim's own (``stats``)."""
    sub, attr, method = _split(name)
    if not sub and method is None and attr in _own_names():
        return True
    return _numpy_object(sub, attr, method) is not None


def close_names(name, n=5):
    """The NumPy names (and xpshim's own) nearest to ``name``, a name NumPy lacks (a typo's fix)."""
    import difflib

    def near(word, words):
        return difflib.get_close_matches(word, words, n=n, cutoff=0.75)

    sub, attr, method = _split(name)
    obj = getattr(numpy_module(sub), attr, None)
    if method is not None and obj is not None:  # a method or member the object lacks
        members = _coverage.UFUNC_METHODS if isinstance(obj, numpy.ufunc) else \
            [m for m in dir(obj) if not m.startswith("_")]
        head = f"{sub}.{attr}" if sub else attr
        return [f"{head}.{m}" for m in near(method.split(".")[0], members)]
    if sub:  # a name the submodule lacks
        return [f"{sub}.{m}" for m in near(attr, public_names(sub))]
    if method is None:  # a top-level name
        return near(attr, [*public_names(""), *_own_names()])
    dotted = [f"{s}.{m}" for s in (*ROUTED_MODULES, *HOST_MODULES) for m in public_names(s)]
    return near(f"{attr}.{method}", dotted)  # a submodule's name misspelt (lnalg.norm)


def explain(name, cp=None):
    """The route of one NumPy name, as text."""
    cp = _coverage.cupy_module() if cp is None else cp
    sub, attr, method = _split(name)
    title = f"xpshim.{sub}.{attr}" if sub else f"xpshim.{attr}"
    if not known(name):
        top = f"numpy{'.' + sub if sub else ''}"
        has_attr = method is not None and getattr(numpy_module(sub), attr, None) is not None
        where, missing = (f"{top}.{attr}", method) if has_attr else (top, attr)
        close = close_names(name)
        return (f"{title}{'.' + method if method else ''}: NumPy has no such name ({where} has no {missing!r})"
                + (f"; close names: {', '.join(close)}" if close else ""))
    if not sub and method is None and attr in _own_names():
        from ._namespace import package

        return f"{title}: xpshim's own name (NumPy has none): {_doc1(getattr(package(), attr))}"
    if sub in HOST_MODULES:
        return f"{title}: numpy.{sub}.{attr}, with GPU arrays copied to the host first (counted)"
    npmod = numpy_module(sub)
    if method is not None and attr in ("Generator", "RandomState") and sub == "random":
        key = f"random.{attr}.{method}"
        cpc = getattr(getattr(cp, "random", None), attr, None) if cp is not None else None
        lines = [f"xpshim.{key}: on the GPU device, a CuPy {attr}; on the CPU, NumPy's"]
        if cpc is not None and hasattr(cpc, method):
            lines.append(f"GPU: cupy.random.{attr}.{method}")
        lines += _gap_lines(key)
        return "\n".join(lines)
    hand = _handwritten.TABLE.get((f"xpshim.{sub}" if sub else "xpshim", attr))
    if hand is not None:
        return "\n".join([f"{title}: hand-written ({_where(hand)})", f"  {_doc1(hand)}"])
    npobj = getattr(npmod, attr, None)
    if npobj is None:
        return f"{title}: NumPy has no such name (numpy{'.' + sub if sub else ''} has no {attr!r})"
    if attr in HOST_ONLY and not sub:
        return f"{title}: NumPy's function; GPU arrays are copied to the host first (a counted fallback): {HOST_ONLY[attr]}"
    if isinstance(npobj, numpy.ufunc):
        return "\n".join([title] + _ufunc(attr, npobj, method, cp))
    key = f"{sub}.{attr}" if sub else attr
    if attr in NUMPY_OWN or key in NUMPY_OWN or isinstance(npobj, type) or not callable(npobj):
        return f"{title}: NumPy's own object ({type(npobj).__name__}), handed out unchanged (it never holds array data)"
    if inspect.ismodule(npobj):
        return f"{title}: a module ({'routed' if key in ROUTED_MODULES else 'NumPy own'})"
    lines = [title]
    lines += _function(sub, attr, npobj, cp)
    lines += _dask_lines(sub, attr)
    return "\n".join(lines)


def explain_all(cp=None):
    """Every routed callable's explanation (top level and routed submodules), in name order."""
    cp = _coverage.cupy_module() if cp is None else cp
    out = []
    for sub in ("", *ROUTED_MODULES):
        npmod = numpy_module(sub)
        for n in public_names(sub):
            obj = getattr(npmod, n, None)
            if obj is None or not callable(obj) or inspect.ismodule(obj):
                continue
            out.append(explain(f"{sub}.{n}" if sub else n, cp))
    return "\n\n".join(out) + "\n"
