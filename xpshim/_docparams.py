"""Which parameters of a NumPy function take array data, read from NumPy's own documentation.

NumPy documents each parameter's type in its docstring (``z : array_like``,
``a1, a2 : array_like or poly1d object``, ``multi_index : tuple of array_like``). A list or
tuple given at such a parameter is array data to NumPy (``np.angle([1, 1j])``), while CuPy's
functions take arrays only there, so the GPU path converts it. Reading NumPy's documentation
makes this a rule over every routed name rather than a list of names kept by hand.

CuPy takes arrays only: https://docs.cupy.dev/en/stable/user_guide/difference.html
"""

import inspect
import re

_SECTION = re.compile(r"^Parameters\n-{3,}\n(.*?)(?:^\w[\w ]*\n-{3,}|\Z)", re.S | re.M)
_HEADER = re.compile(r"^([\w*, .]+?)\s*:\s*(.*)$")
# Documented as array_like, but read by CuPy's function (and NumPy's) as Python numbers, a shape,
# axes or an object, not as array data: a list there stays a list. (histogramdd's sample: NumPy
# reads a list as D sequences, an array as (N, D) rows.)
NOT_DATA = frozenset({
    "axes", "pad_width", "reps", "like", "seed", "range", "new", "old", "out", "X", "deg", "object",
    "rcond", "tol", "base", "start", "stop", "n", "sample",
})


def documented(npf):
    """(array-like parameter names, sequence-of-array-like parameter names) that NumPy's
    docstring of ``npf`` declares, less ``NOT_DATA``."""
    try:
        doc = inspect.getdoc(npf) or ""
    except Exception:  # (an object whose __doc__ is a property that fails)
        return frozenset(), frozenset()
    m = _SECTION.search(doc)
    if not m:
        return frozenset(), frozenset()
    arrays, seqs = set(), set()
    for line in m.group(1).splitlines():
        if not line or line[0].isspace():
            continue
        h = _HEADER.match(line)
        if not h:
            continue
        kind = h.group(2)
        if "array_like" not in kind and "array-like" not in kind:
            continue
        seq = re.match(r"(sequence|tuple|list) of (1-D )?array", kind) is not None
        for n in h.group(1).split(","):
            n = n.strip().lstrip("*")
            if n and n not in NOT_DATA:
                (seqs if seq else arrays).add(n)
    return frozenset(arrays), frozenset(seqs)


_REFUSES = re.compile(r"array[_-]likes``?\s+are\s+explicitly\s+not\s+supported", re.I)


def refuses_array_likes(npf):
    """The parameters NumPy's docstring of ``npf`` says take arrays and no array-likes
    (``np.astype``'s ``x``: "``array_likes`` are explicitly not supported"): a list there is
    NumPy's TypeError on either device, not array data to convert."""
    try:
        doc = inspect.getdoc(npf) or ""
    except Exception:  # (as in documented)
        return frozenset()
    m = _SECTION.search(doc)
    if not m:
        return frozenset()
    described = {}  # (parameter names) -> their description, joined over its lines
    current = ()
    for line in m.group(1).splitlines():
        h = _HEADER.match(line) if line and not line[0].isspace() else None
        if h:
            current = tuple(n.strip().lstrip("*") for n in h.group(1).split(","))
        elif current:
            described[current] = described.get(current, "") + " " + line.strip()
    return frozenset(n for names, text in described.items() if _REFUSES.search(text) for n in names)


_RETURNS = re.compile(r"^Returns\n-{3,}\n(.*?)(?:^\w[\w ]*\n-{3,}|\Z)", re.S | re.M)


def answers_tuple(npf):
    """True where NumPy's docstring of ``npf`` documents a tuple answer and no list
    (``atleast_1d`` of several arrays, ``broadcast_arrays``, ``gradient``): NumPy 2 answers
    tuples there, where some of CuPy's functions answer lists."""
    try:
        doc = inspect.getdoc(npf) or ""
    except Exception:  # (as in documented)
        return False
    m = _RETURNS.search(doc)
    return m is not None and re.search(r"\btuple\b", m.group(1)) is not None and \
        re.search(r"\blist\b", m.group(1)) is None
