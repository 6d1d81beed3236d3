"""Find the user's own line: the first frame outside xpshim and the libraries it calls."""

import os
import sys

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
    ``lines``: instruction offset -> line number, as frames of the code were found at them."""

    __slots__ = ("code", "inside", "co_filename", "lines")

    def __init__(self, code):
        self.code = code
        self.co_filename = fn = code.co_filename
        self.inside = fn.startswith(PKG_DIR) or any(s in fn for s in _SKIP)
        self.lines = {}

    def __repr__(self):
        return f"<code {self.code.co_name} of {self.co_filename}>"


# id(code object) -> its Code. The entry holds the code object, so its id is not reused while
# listed (a code object is as long-lived as its function, and few are made at run time).
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
    k = codes.get(id(code))
    return (k if k is not None else key(code)).inside


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
