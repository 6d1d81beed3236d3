"""Which keyword arguments a CuPy callable accepts, so an unsupported one is a
listed fallback decided before the call, never a retried exception."""

import inspect
import re

_cache = {}
# CuPy's Cython methods carry no __signature__, but their docstrings open with one:
# "_ndarray_base.sum(self, axis=None, dtype=None, out=None, keepdims=False) -> ..."
_DOC_SIG = re.compile(r"^\s*[\w.]+\((.*?)\)")
# CuPy ufunc.__call__ takes these keywords (cupy/_core/_kernel.pyx).
UFUNC_KWARGS = frozenset({"out", "dtype", "casting"})


def _from_doc(f):
    m = _DOC_SIG.match((getattr(f, "__doc__", None) or "").split("\n", 1)[0])
    if not m:
        return None
    names = set()
    for part in m.group(1).split(","):
        part = part.strip().split("=")[0].strip()
        if not part or part in ("self", "*", "/"):
            continue
        if part.startswith("*"):
            return None  # takes **kwargs or *args: accept anything
        names.add(part.split()[-1])
    return frozenset(names)


def accepted(f):
    """Frozenset of keyword names ``f`` accepts, or None when it takes any."""
    key = id(f)
    hit = _cache.get(key, False)
    if hit is not False:
        return hit
    try:
        sig = inspect.signature(f)
        if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            names = None
        else:
            names = frozenset(
                n for n, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            )
    except (TypeError, ValueError):
        names = _from_doc(f)
    _cache[key] = names
    return names


def unsupported(f, kwargs):
    """The keyword names in ``kwargs`` that ``f`` does not accept (a tuple, maybe empty)."""
    names = accepted(f)
    if names is None:
        return ()
    return tuple(k for k in kwargs if k not in names)
