"""Find the user's own line: the first frame outside xpshim and the libraries it calls."""

import os
import sys

PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# Frames in these packages are passed over, so a warning raised while NumPy,
# Pillow or Numba handles an xpshim array still names the line that called them.
_SKIP = tuple(
    os.sep + p + os.sep for p in ("numpy", "cupy", "cupyx", "numba", "PIL", "matplotlib", "pandas")
) + ("<frozen ", "<string>")


inside = {}  # code object -> True when it belongs to xpshim or a library it drives


def is_inside(code):
    hit = inside.get(code)
    if hit is None:
        fn = code.co_filename
        hit = inside[code] = fn.startswith(PKG_DIR) or any(s in fn for s in _SKIP)
    return hit


def user_frame(depth=2):
    """Return (filename, lineno, module globals) of the nearest user frame."""
    f = sys._getframe(depth)
    first = f
    while f is not None:
        if not is_inside(f.f_code):
            return f.f_code.co_filename, f.f_lineno, f.f_globals
        f = f.f_back
    return first.f_code.co_filename, first.f_lineno, first.f_globals
