"""Import hooks that load nothing early.

* ``after_import(name, then)``: run ``then`` once another package (Numba, numpy.testing)
  is imported, or now if it has been, without importing it.
* ``lazy_module(name)``: a module imported on first use (the GPU copy machinery, ``_pinned``).
"""

import importlib
import importlib.util
import sys


class _AfterImport:
    """A meta-path finder that runs ``then`` once module ``name`` has been imported."""

    def __init__(self, name, then):
        self.name, self.then = name, then

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module, then = spec.loader.exec_module, self.then

        def exec_then(module):
            exec_module(module)
            parent, _, child = name.rpartition(".")
            if parent in sys.modules:  # (what the import system does next: `from numba import cuda` then works)
                setattr(sys.modules[parent], child, module)
            then()

        spec.loader.exec_module = exec_then
        return spec


def after_import(name, then):
    """Run ``then()`` when module ``name`` is imported; now, if it already is. Once per name and
    function, however often this is called."""
    if name in sys.modules:
        then()
    elif not any(isinstance(f, _AfterImport) and f.name == name and f.then is then for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, then))


class _LazyModule:
    """Stands for a module until an attribute of it is read; then imports it (once)."""

    def __init__(self, name):
        self.__dict__["_name"] = name

    def __getattr__(self, attr):
        mod = self.__dict__.get("_mod") or importlib.import_module(self._name)
        self.__dict__["_mod"] = mod
        return getattr(mod, attr)

    def __repr__(self):
        return f"<module {self._name!r}, imported on first use>"


def lazy_module(name):
    """``name``'s module, imported when an attribute of it is first read (``_pinned.to_device``)."""
    return sys.modules.get(name) or _LazyModule(name)
