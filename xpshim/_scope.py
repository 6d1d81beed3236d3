"""Scoped ``import numpy``: the user's code gets xpshim, every library keeps NumPy.

Replacing ``sys.modules["numpy"]`` for the whole process (as cuPyNumeric's ``lgpatch`` and
Bohrium do) hands xpshim to SciPy, pandas and Pillow too, which are built against NumPy's C
API and its exact types. Here ``builtins.__import__`` is wrapped instead, and an import
statement gets xpshim only when the module that runs it is in scope, judged by that module's
globals (``__file__``, ``__name__``, or the namespace itself for IPython cells):

    import numpy / import numpy as np      -> xpshim
    from numpy import zeros                -> xpshim.zeros
    import numpy.linalg as la              -> xpshim.linalg
    from numpy.linalg import norm          -> xpshim.linalg.norm

The real module is imported first every time, so a name NumPy lacks fails as it would, and
``sys.modules["numpy"]`` stays NumPy. What does not pass through ``__import__`` is not seen:
``importlib.import_module("numpy")`` and ``sys.modules["numpy"]`` give NumPy even in scope.
"""

import builtins
import importlib
import json
import os
import sys
import sysconfig

_original = builtins.__import__
_scopes = []  # callables(globals) -> bool; any True puts that module in scope
ENV = "XPSHIM_RUN_SCOPE"  # the scope, as JSON, for multiprocessing children started with spawn


def _is_numpy(name):
    return name == "numpy" or name.startswith("numpy.")


def _target(name, fromlist):
    """What ``__import__(name, fromlist=...)`` returns for user code: xpshim or one of its modules."""
    from . import _namespace

    xpshim = _namespace.package()

    if not fromlist or name == "numpy":
        return xpshim  # `import numpy.linalg [as la]` binds the top package (or reads .linalg from it)
    mod = sys.modules.get("xpshim" + name[5:])
    if mod is not None:
        return mod
    try:  # xpshim's submodules are made when first imported (xpshim/_imports.py)
        return importlib.import_module("xpshim" + name[5:])
    except ImportError:
        pass
    mod = xpshim
    try:
        for part in name.split(".")[1:]:
            mod = getattr(mod, part)
    except AttributeError:
        return sys.modules[name]  # a NumPy module xpshim does not mirror: NumPy's own
    return mod


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    mod = _original(name, globals, locals, fromlist, level)
    if level == 0 and globals is not None and _is_numpy(name):
        for wants in _scopes:
            if wants(globals):
                return _target(name, fromlist)
    return mod


def add(scope):
    """Put the modules ``scope(globals)`` accepts in scope; returns ``scope`` (for ``remove``)."""
    _scopes.append(scope)
    builtins.__import__ = _import
    return scope


def remove(scope):
    """Take ``scope`` out; with none left, ``builtins.__import__`` is restored (if still ours)."""
    if scope in _scopes:
        _scopes.remove(scope)
    if not _scopes and builtins.__import__ is _import:
        builtins.__import__ = _original


def _norm(path):
    return os.path.normcase(os.path.realpath(path))


def _library_dirs():
    """Folders whose modules are never user code: the standard library, installed packages, xpshim."""
    dirs = {_norm(os.path.dirname(os.path.abspath(__file__)))}
    for scheme_vars in ({}, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}):
        paths = sysconfig.get_paths(vars=scheme_vars or None)
        dirs.update(_norm(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths)
    return tuple(d + os.sep for d in dirs)


class Files:
    """The script's tree: modules under ``roots``, modules of ``packages`` (by name, wherever
    installed), and the ``files`` named; never the standard library, site-packages or xpshim."""

    def __init__(self, roots=(), packages=(), files=()):
        self.roots = tuple(_norm(r) for r in roots)
        self.packages = tuple(packages)
        self.files = frozenset(_norm(f) for f in files)
        self._libs = _library_dirs()
        self._seen = {}  # filename -> verdict (one realpath per module file)

    def __call__(self, g):
        name = g.get("__name__") or ""
        for p in self.packages:
            if name == p or name.startswith(p + "."):
                return True
        fn = g.get("__file__")
        if not fn:
            return False
        hit = self._seen.get(fn)
        if hit is None:
            hit = self._seen[fn] = self._judge(_norm(fn))
        return hit

    def _judge(self, path):
        if path in self.files:
            return True
        if path.startswith(self._libs) or f"{os.sep}site-packages{os.sep}" in path \
                or f"{os.sep}dist-packages{os.sep}" in path:
            return False
        return any(path.startswith(r + os.sep) for r in self.roots)

    def to_json(self):
        return json.dumps({"roots": self.roots, "packages": self.packages, "files": sorted(self.files)})


class Namespace:
    """One namespace's code (IPython's cells, and functions defined in them): ``get()`` returns it."""

    def __init__(self, get):
        self._get = get

    def __call__(self, g):
        return g is self._get()


# ---- multiprocessing children started with spawn or forkserver -----------------------------------

_PRELUDE = "import os; os.environ.pop('XPSHIM_REPORT', None); import xpshim._scope as s; s.from_environment(); "
_CHILDREN = ("from multiprocessing.spawn import", "from multiprocessing.forkserver import")


def _with_prelude(cmd):
    """``cmd`` with the scope installed first when it starts a multiprocessing child (``-c`` program)."""
    cmd = list(cmd)
    if "-c" in cmd[:-1]:
        i = cmd.index("-c") + 1
        if cmd[i].startswith(_CHILDREN):
            cmd[i] = _PRELUDE + cmd[i]
    return cmd


def pass_to_children(scope):
    """Make multiprocessing's spawn and forkserver children run with the same scope: it travels in
    ``XPSHIM_RUN_SCOPE``, and the child installs it before multiprocessing loads the script as
    ``__mp_main__``. Children write no ``XPSHIM_REPORT``: the report is the main process's."""
    import multiprocessing.spawn as spawn
    import multiprocessing.util as util

    os.environ[ENV] = scope.to_json()
    if getattr(spawn.get_command_line, "xpshim_original", None) is None:
        get_command_line = spawn.get_command_line  # spawn on Windows starts its child from this

        def command_line(**kwds):
            return _with_prelude(get_command_line(**kwds))

        command_line.xpshim_original = get_command_line
        spawn.get_command_line = command_line
    if getattr(util.spawnv_passfds, "xpshim_original", None) is None:
        spawnv_passfds = util.spawnv_passfds  # spawn and forkserver on POSIX start theirs here

        def spawn_passing_fds(path, args, passfds):
            return spawnv_passfds(path, _with_prelude(args), passfds)

        spawn_passing_fds.xpshim_original = spawnv_passfds
        util.spawnv_passfds = spawn_passing_fds


def from_environment():
    """In a multiprocessing child: install the scope the parent left in ``XPSHIM_RUN_SCOPE`` (if any)."""
    raw = os.environ.get(ENV)
    if raw:
        d = json.loads(raw)
        pass_to_children(add(Files(d["roots"], d["packages"], d["files"])))
