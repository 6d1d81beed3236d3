"""The Routes of xpshim's routed functions, read from the namespace (not listed by hand)."""

from xpshim import _namespace, _route


def route_in(f, depth=3):
    """The Route that the wrapper ``f`` (or a function it closes over) calls, or None."""
    g = getattr(f, "__globals__", {}).get("_routed")  # (a wrapper with NumPy's parameters: xpshim/_cpupath.py)
    if g is not None:
        f = g.target() if hasattr(g, "target") else g
        f = getattr(type(f).__dict__.get("__call__"), "__func__", f)  # (an object whose class's __call__ is it)
    for cell in getattr(f, "__closure__", None) or ():
        try:
            v = cell.cell_contents
        except ValueError:  # (an empty cell)
            continue
        if isinstance(v, _route.Route):
            return v
        if depth and callable(v) and getattr(v, "__closure__", None):
            r = route_in(v, depth - 1)
            if r is not None:
                return r
    return None


def routes():
    """(name, Route) of every routed function of NumPy's namespace and its linalg and fft, each
    made anew (call it with the GPU live: the routed wrapper, not the CPU path's light one)."""
    found = []
    for sub in ("", "linalg", "fft"):
        for name in _namespace.public_names(sub):
            try:
                f = _namespace._resolve(sub, name)
            except (AttributeError, ImportError):
                continue
            # (a function's wrapper, or a wrapper that is its class's __call__: np.zeros, for its repr)
            call = f if hasattr(f, "__closure__") else type(f).__dict__.get("__call__")
            r = route_in(getattr(call, "__func__", call))  # (a staticmethod's function)
            if r is not None:
                found.append((f"{sub}.{name}" if sub else name, r))
    return found
