"""Find the user's own line: the first frame outside xpshim and the libraries it calls."""

import os
import sys
import weakref

PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Frames in these packages are passed over, so a warning raised while NumPy,
# Pillow or Numba handles an xpshim array still names the line that called them.
_SKIP = tuple(
    os.sep + p + os.sep for p in ("numpy", "cupy", "cupyx", "numba", "PIL", "matplotlib", "pandas")
) + ("<frozen ", "<string>")


class Code:
    """A code object as a key of xpshim's tables (the user's lines, the functions placement
    remembers), hashed and compared by identity. A code object's own hash walks its instructions
    and constants, the code of functions defined in it too, at every lookup: on Python 3.12, 1.8 us
    for one of xpshim's wrappers, 68 us for a script's module, paid at each frame a lookup passes
    (https://github.com/python/cpython/pull/100183; still so on 3.13; identity hashing:
    https://github.com/python/cpython/issues/101346). ``inside``: the code is xpshim's or a
    library's it drives (its frames are passed over when looking for the user's line).
    ``lines``: instruction offset -> line number, as frames of the code were found at them.
    The record holds its code object weakly: code compiled at run time (``eval`` in a loop,
    generated functions) leaves no entry behind in ``codes``."""

    __slots__ = ("ref", "inside", "co_filename", "lines")

    def __init__(self, code):
        i = id(code)

        def gone(r):  # (the code object's end: its entry goes, unless a new code's record took the id)
            k = codes.get(i)
            if k is not None and k.ref is r:
                del codes[i]

        self.ref = weakref.ref(code, gone)
        self.co_filename = fn = code.co_filename
        self.inside = fn.startswith(PKG_DIR) or any(s in fn for s in _SKIP)
        self.lines = {}

    @property
    def code(self):
        """The code object (None once it is gone)."""
        return self.ref()

    def __repr__(self):
        c = self.ref()
        return f"<code {c.co_name if c is not None else '(gone)'} of {self.co_filename}>"


# id(code object) -> its Code, while the code object lives (a later code object may reuse the id:
# its record is a new one, so a table keyed by the old record never matches it).
codes = {}


def key(code):
    """``code``'s ``Code``, the one for the life of the process."""
    k = codes.get(id(code))
    if k is None:  # (setdefault: two threads meeting a new code object agree on one Code)
        k = codes.setdefault(id(code), Code(code))
    return k


def lineno(k, f):
    """The line frame ``f`` (of ``k``'s code) is at. A frame's ``f_lineno`` reads the code's line
    table from its start to the instruction: 4.7 us at the end of a 2,000-line module on Python
    3.12, 10.5 on 3.11, at each call; the line of an instruction is the same for every frame."""
    i = f.f_lasti
    n = k.lines.get(i)
    if n is None:
        n = f.f_lineno
        if f.f_trace is None:  # (a traced frame's line may be a debugger's jump's: not kept)
            k.lines[i] = n
    return n


def is_inside(code):
    return key(code).inside


def user_frame(depth=2):
    """Return (filename, lineno, module globals) of the nearest user frame."""
    f = sys._getframe(depth)
    first = f
    while f is not None:
        k = codes.get(id(f.f_code))
        if k is None:
            k = key(f.f_code)
        if not k.inside:
            return k.co_filename, lineno(k, f), f.f_globals
        f = f.f_back
    return first.f_code.co_filename, first.f_lineno, first.f_globals
