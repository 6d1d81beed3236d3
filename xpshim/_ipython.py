"""``%load_ext xpshim``: ``import numpy`` in later IPython/Jupyter cells gives xpshim.

The scope is the shell's user namespace (the cells, and functions defined in them); modules the
cells import, and every library, keep NumPy. ``%unload_ext xpshim`` ends it for later imports
(names already bound stay what they are). ``%xpshim info`` and ``%xpshim stats`` print
``python -m xpshim info`` and ``xpshim.stats()``.
"""

from . import _scope

_loaded = {}  # id(shell) -> its scope


def _magic(line):
    """%xpshim info | stats: what xpshim chose and why, or what it has counted (xpshim.stats())."""
    what = line.strip()
    if what == "info":
        from ._info import report

        print(report())
    elif what == "stats":
        import pprint

        from . import _namespace

        xpshim = _namespace.package()

        pprint.pprint(xpshim.stats(), sort_dicts=False)
    else:
        print("usage: %xpshim info | stats")


def load(shell):
    """Scope ``import numpy`` in ``shell``'s cells to xpshim and add the ``%xpshim`` magic."""
    if id(shell) not in _loaded:
        _loaded[id(shell)] = _scope.add(_scope.Namespace(lambda: shell.user_ns))
    shell.register_magic_function(_magic, "line", "xpshim")


def unload(shell):
    """Give later ``import numpy`` in ``shell``'s cells NumPy again."""
    scope = _loaded.pop(id(shell), None)
    if scope is not None:
        _scope.remove(scope)
