"""NumPy's warnings raised inside xpshim's wrappers, told at the user's line.

NumPy's C loops warn (``RuntimeWarning: divide by zero encountered in log``) at the Python frame
that called them: under xpshim that is a wrapper in xpshim's own files, so every such warning
named the same file and line, and Python's default filter (once per location) showed only the
first of a program. The display hook here tells each such warning again at the user's line
(``_callsite``), where Python's filters (once per user line, ``error``, ``ignore``) then decide,
as they do for NumPy called directly; and it forgets that xpshim's line has warned, so the next
user line's warning is not swallowed there. Code that records warnings
(``warnings.catch_warnings(record=True)``, ``pytest.warns``) gets them as raised.

https://docs.python.org/3/library/warnings.html#the-warnings-filter (the registry per location)
"""

import sys
import warnings

from . import _callsite

_installed = []


def _show(message, category, filename, lineno, file=None, line=None):
    if filename.startswith(_callsite.PKG_DIR):
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename != filename:
            f = f.f_back  # (the warnings module's own frames)
        if f is not None:
            reg = f.f_globals.get("__warningregistry__")
            if reg:  # (Python's filter remembered xpshim's line: forget it, the user's line decides)
                text = str(message)
                reg.pop((text, category, lineno), None)
                reg.pop((text, category, 0), None)
        while f is not None and f.f_code.co_filename.startswith(_callsite.PKG_DIR):
            f = f.f_back
        near = f  # (the caller of xpshim: a library's frame, or python -c's <string>)
        while f is not None and _callsite.is_inside(f.f_code):
            f = f.f_back
        f = f or near
        if f is not None:
            glb = f.f_globals
            warnings.warn_explicit(message, category, f.f_code.co_filename, f.f_lineno,
                                   module=glb.get("__name__", "__main__"),
                                   registry=glb.setdefault("__warningregistry__", {}))
            return
    _installed[0](message, category, filename, lineno, file, line)


def install():
    """Put the display hook in place (once)."""
    if not _installed:
        _installed.append(warnings.showwarning)
        warnings.showwarning = _show
