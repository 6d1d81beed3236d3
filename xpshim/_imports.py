"""Import hooks, so that ``import xpshim`` loads little and patches nothing.

* ``import xpshim.linalg`` (and every other submodule name of NumPy's that xpshim has):
  a finder on ``sys.meta_path`` answers for the names in ``_registry``'s ROUTED_MODULES,
  HOST_MODULES and NUMPY_MODULES, building the module when it is first imported; it is
  ``_namespace``'s, the same object that ``xpshim.linalg`` resolves to.

(``_lazy`` has the hooks that run code when another package is imported.)
"""

import importlib.util
import sys

from ._registry import HOST_MODULES, NUMPY_MODULES, ROUTED_MODULES

_NAMES = frozenset(ROUTED_MODULES) | frozenset(HOST_MODULES) | frozenset(NUMPY_MODULES)


class _Loader:
    """Loads ``xpshim.<sub>``: the import system's placeholder is swapped for _namespace's module."""

    def __init__(self, sub):
        self.sub = sub

    def create_module(self, spec):
        return None  # a placeholder: exec_module puts the real module in sys.modules

    def exec_module(self, module):
        from . import _namespace

        del sys.modules[module.__name__]  # (else _namespace would take the placeholder for the module)
        sys.modules[module.__name__] = _namespace.submodule(self.sub)


class _Finder:
    """Finds ``xpshim.<sub>`` for the submodules that _namespace builds."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("xpshim."):
            return None
        sub = fullname[len("xpshim."):]
        if sub not in _NAMES:
            return None
        # (NumPy's submodules that xpshim does not build, e.g. xpshim.ma.core, are not found: as before)
        return importlib.util.spec_from_loader(fullname, _Loader(sub))


def install():
    """Put the submodule finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
