"""The package's layers, read from the syntax tree: no import cycle, no upward import, no use of
another module's private name.

Every module of ``xpshim/`` is parsed with ``ast`` (nothing is imported). An import is any of:
``import xpshim.x``, ``from . import x``, ``from .x import y``, ``from .. import z``, and
``importlib.import_module(...)`` whose argument is a string known from the source (a literal,
``__name__``, a module-level tuple or dict of strings, joined with ``+`` or an f-string), at the
top level or inside a function, method or ``if TYPE_CHECKING`` block alike. ``from P import x``
is an import of the submodule ``P.x`` where there is one, else of the package ``P`` itself.
Importing a submodule is not counted as importing its parent package (every submodule would
otherwise sit in a cycle with the top ``__init__``, which imports them all).

The checks:

* cycle: each strongly connected component of the import graph (two or more modules);
* upward: an import of a module in a higher layer than the importer's (``LAYERS`` below). The
  package ``__init__`` is where everything is wired together and may import any module; as an
  imported module it sits in the namespace layer;
* private: ``from .x import _y`` or ``x._y`` (also ``getattr(x, "_y")``) where ``x`` is another
  xpshim module and ``_y`` is not one of its submodules; ``__dunder__`` names are public.

The test fails on any violation, and says where each is. ``python tests/unit/test_architecture.py``
prints the same report.
"""

import ast
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent / "xpshim"

# The layers, bottom to top (docs/architecture.md, "The modules, bottom to top"). A module may
# import modules of its own layer or lower ones. "pkg" names a subpackage and every module in it;
# "__init__" is the package itself.
LAYERS = (
    ("configuration", ("_errors", "_config", "_lazy", "_callsite", "_warnlines", "_registry")),
    ("backend", ("_backend", "_preload", "_quickexit", "_exitreaper", "_hotwork", "_device", "_simgpu")),
    ("bytes", ("_transfer", "_storage", "_pinned", "_ntcopy", "_register", "_pil")),
    ("placement", ("_placement",)),
    ("formulas", ("_exact", "_gemv", "_pcg64")),
    ("array", ("_ndarray", "_arrayapi", "_fallback", "_flatiter", "_nditer", "_foreign")),
    ("corrections", ("_edges", "_options", "_fused", "_gaps", "_kernels")),
    ("routing", ("_docparams", "_signatures", "_arguments", "_methods", "_route", "_dispatch", "_ufunc", "_ufuncroute",
                 "_objects", "_hostfast", "_cpupath", "_hostio")),
    ("namespace", ("_namespace", "_handwritten", "_imports", "__init__")),
    ("plug-ins", ("_dask", "_numba", "_vectorize", "_cupykernel", "_scope", "_run")),
    ("tools", ("_info", "_coverage", "_explain", "_calibrate", "__main__", "_ipython", "_simgpu.snapshot")),
)


# --- reading the package -------------------------------------------------------------------------

def modules(root, package):
    """{dotted module name: (path, is_package)} for every ``.py`` file under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        found[".".join(parts)] = (path, is_pkg)
    return found


_ATTR_CALLS = ("getattr", "setattr", "hasattr", "delattr")


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _bound_names(body, args=None):
    """Names a scope binds (assignments, imports, definitions, arguments), not descending into
    nested functions or classes, which are scopes of their own."""
    names = set()
    if args is not None:
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if a is not None:
                names.add(a.arg)
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names


class _Reader:
    """Reads one module: its imports (with line numbers) and its uses of other modules' private
    names."""

    def __init__(self, name, is_pkg, tree, known):
        self.name, self.known, self.tree = name, known, tree
        self.package = name if is_pkg else name.rpartition(".")[0]
        self.top = name.split(".")[0]
        self.imports = []   # (imported module, line)
        self.private = []   # (module, private name, line)
        self.consts, self.dicts = self._module_consts(tree)

    def _base(self, node):
        """The module ``from <base> import ...`` names."""
        if not node.level:
            return node.module
        parts = self.package.split(".")
        base = ".".join(parts[:len(parts) - (node.level - 1)])
        return f"{base}.{node.module}" if node.module else base

    def _ours(self, mod):
        return mod == self.top or mod.startswith(self.top + ".")

    def _module_consts(self, tree):
        """Module-level names bound to string constants, or tuples/lists/dicts of them; and which
        of those are dicts."""
        consts, dicts = {}, set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = node.value
                seq = isinstance(v, (ast.Tuple, ast.List, ast.Set))
                elts = v.values if isinstance(v, ast.Dict) else v.elts if seq else [v]
                if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elts):
                    consts[node.targets[0].id] = {e.value for e in elts}
                    if isinstance(v, ast.Dict):
                        dicts.add(node.targets[0].id)
        return consts, dicts

    def _strings(self, expr, loops):
        """Every string ``expr`` can be, from the source alone, or None when it is not known."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.Name):
            if expr.id == "__name__":
                return {self.name}
            if expr.id == "__package__":
                return {self.package}
            if expr.id in loops:
                return self._strings(loops[expr.id], loops)
            return self.consts.get(expr.id)
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id in self.dicts:
            return self.consts[expr.value.id]       # a dict of module names: any of its values
        if isinstance(expr, ast.FormattedValue):
            return self._strings(expr.value, loops)
        parts = [expr.left, expr.right] if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) \
            else expr.values if isinstance(expr, ast.JoinedStr) else None
        if parts is None:
            return None
        out = {""}
        for p in parts:
            s = self._strings(p, loops)
            if s is None:
                return None
            out = {a + b for a in out for b in s}
        return out

    def read(self):
        self._scope(self.tree.body, None, [], {}, False)
        return self

    def _scope(self, body, args, outer, loops, is_class):
        """Walk one scope; ``outer`` is the enclosing scopes it sees, innermost first, each as
        (names it binds, {name: xpshim module it is bound to})."""
        scope = (_bound_names(body, args), {})
        chain = [scope, *outer]
        # First the bindings (a name imported anywhere in a function is local to all of it) ...
        for node, lp in self._walk(body, loops):
            self._bind(node, scope[1], lp)
        # ... then the uses.
        for node, lp in self._walk(body, loops):
            self._use(node, chain, lp)
        # (what is defined in a class body does not see the class's names)
        seen = outer if is_class else chain
        for node in self._nested(body):
            is_cls = isinstance(node, ast.ClassDef)
            self._scope(node.body, None if is_cls else node.args, seen, loops, is_cls)

    def _walk(self, body, loops):
        """(node, loop variables) for each node of this scope, not of nested scopes."""
        stack = [(n, loops) for n in reversed(body)]
        while stack:
            node, lp = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.extend((d, lp) for d in node.decorator_list)
                continue
            yield node, lp   # (a lambda's body is read as part of this scope: it binds no module)
            loops_here = [node] if isinstance(node, ast.For) else getattr(node, "generators", [])
            for loop in loops_here:
                if isinstance(loop.target, ast.Name):
                    lp = {**lp, loop.target.id: loop.iter}
            stack.extend((c, lp) for c in reversed(list(ast.iter_child_nodes(node))))

    def _nested(self, body):
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield node
                continue
            stack.extend(ast.iter_child_nodes(node))

    def _import_call(self, node, loops):
        """The modules ``importlib.import_module(...)`` imports, or ()."""
        f = node.func if isinstance(node, ast.Call) else None
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name != "import_module" or not node.args:
            return ()
        return {m for m in self._strings(node.args[0], loops) or () if self._ours(m)}

    def _bind(self, node, names, loops):
        """Record the imports of ``node`` and the names it binds to xpshim modules."""
        if isinstance(node, ast.Import):
            for a in node.names:
                if self._ours(a.name):
                    self.imports.append((a.name, node.lineno))
                    names[a.asname or self.top] = a.name if a.asname else self.top
        elif isinstance(node, ast.ImportFrom):
            base = self._base(node)
            if not base or not self._ours(base):
                return
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in self.known:
                    self.imports.append((sub, node.lineno))
                    names[a.asname or a.name] = sub
                else:
                    self.imports.append((base, node.lineno))
                    if _is_private(a.name) and base != self.name:
                        self.private.append((base, a.name, node.lineno))
        elif isinstance(node, ast.Assign):
            mods = self._import_call(node.value, loops)
            if len(mods) == 1 and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                names[node.targets[0].id] = next(iter(mods))
        if isinstance(node, ast.Call):
            self.imports.extend((m, node.lineno) for m in self._import_call(node, loops))

    def _lookup(self, name, chain):
        for bound, mods in chain:
            if name in bound or name in mods:
                return mods.get(name)
        return None

    def _use(self, node, chain, loops):
        """A private name of another module reached through ``mod._x`` or ``getattr(mod, "_x")``."""
        named = isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
        if named and isinstance(node.func, ast.Name) and node.func.id in _ATTR_CALLS \
                and isinstance(node.args[1].value, str):
            obj, attrs = node.args[0], [node.args[1].value]
        elif isinstance(node, ast.Attribute):
            obj, attrs = node.value, [node.attr]
        else:
            return
        while isinstance(obj, ast.Attribute):   # a.b.c: resolve from the name at its root
            attrs.insert(0, obj.attr)
            obj = obj.value
        if not isinstance(obj, ast.Name):
            return
        mod = self._lookup(obj.id, chain)
        if mod is None:
            return
        for attr in attrs[:-1]:                 # walk down submodules only
            if f"{mod}.{attr}" not in self.known:
                return
            mod = f"{mod}.{attr}"
        attr = attrs[-1]
        if f"{mod}.{attr}" not in self.known and _is_private(attr) and mod != self.name:
            self.private.append((mod, attr, node.lineno))


def read_package(root, package):
    """{module: _Reader} for every module of the package at ``root``."""
    mods = modules(root, package)
    out = {}
    for name, (path, is_pkg) in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out[name] = _Reader(name, is_pkg, tree, mods).read()
    return out


# --- the checks ----------------------------------------------------------------------------------

def layer_of(module, package, layers):
    """The index of ``module``'s layer in ``layers``, or None when the table does not name it."""
    rel = module[len(package) + 1:] if module != package else "__init__"
    # (the longest name that matches: "_simgpu.snapshot" is a tool in the backend's "_simgpu")
    found = [(len(n), i) for i, (_, names) in enumerate(layers) for n in names
             if rel == n or rel.startswith(n + ".")]
    return max(found)[1] if found else None


def components(graph):
    """The strongly connected components of two or more nodes (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(tuple(sorted(comp)))
    return sorted(out)


def check(root, package, layers):
    """(violations, where, unassigned): violations is a set of lines of the form
    (``cycle m1 m2 ...``, ``upward importer imported``, ``private importer module._name``); where
    maps each to "file:line" places (or, for a cycle, the imports inside it)."""
    readers = read_package(root, package)
    graph = {m: set() for m in readers}
    where = {}   # violation: {(module, line, note)}
    for m, r in readers.items():
        for imported, line in r.imports:
            if imported == m or imported not in readers:
                continue
            graph[m].add(imported)
            lo, hi = layer_of(m, package, layers), layer_of(imported, package, layers)
            if m != package and lo is not None and hi is not None and hi > lo:
                key = f"upward {m} {imported}"
                where.setdefault(key, set()).add((m, line, f" ({layers[lo][0]} -> {layers[hi][0]})"))
        for mod, name, line in r.private:
            where.setdefault(f"private {m} {mod}.{name}", set()).add((m, line, ""))
    where = {k: [f"{m}:{line}{note}" for m, line, note in sorted(v)] for k, v in where.items()}
    for comp in components(graph):
        inside = set(comp)
        where[f"cycle {' '.join(comp)}"] = [f"{a} -> {b}" for a in comp for b in sorted(graph[a] & inside)]
    unassigned = sorted(m for m in readers if layer_of(m, package, layers) is None)
    return set(where), where, unassigned


def summary(violations):
    """One line counting the violations by kind (cycle sizes in brackets)."""
    sizes = sorted((len(v.split()) - 1 for v in violations if v.startswith("cycle ")), reverse=True)
    count = {k: sum(v.startswith(k + " ") for v in violations) for k in ("upward", "private")}
    return (f"{len(sizes)} import cycle(s) (modules in each: {', '.join(map(str, sizes)) or '-'}), "
            f"{count['upward']} upward import(s), {count['private']} use(s) of another module's private name")


def _explain(entries, where):
    return "\n".join(f"  {e}\n      " + "\n      ".join(where.get(e, [])[:40]) for e in sorted(entries))


# --- the tests -----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)   # read once for all the tests of this file
def _today():
    return check(ROOT, "xpshim", LAYERS)


def test_every_module_has_a_layer():
    _, _, unassigned = _today()
    assert not unassigned, f"modules with no layer: add each to LAYERS in tests/unit/test_architecture.py: {unassigned}"
    stale = [n for _, names in LAYERS for n in names
             if n != "__init__" and not (ROOT / f"{n.replace('.', '/')}.py").exists()
             and not (ROOT / n / "__init__.py").exists()]
    assert not stale, f"LAYERS names modules that do not exist (remove them): {stale}"


def test_no_violation():
    found, where, _ = _today()
    assert not found, (f"{len(found)} violation(s) of the layering (import only from your layer or below, "
                       f"no cycle, no other module's _private name):\n{_explain(found, where)}")


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_checker_reports_each_kind(tmp_path):
    """A tiny package with violations of each kind, written in each form an import takes."""
    _write(tmp_path / "pkg", {
        "__init__.py": "from . import _top\n",             # the package imports anything: allowed
        "_low.py": ("import importlib\n"
                    "_WHERE = {'g': '_top'}\n"
                    "def f():\n"
                    "    from . import _mid\n"             # upward, and a cycle _low -> _mid -> _low
                    "    return _mid._secret\n"            # private, through an imported module
                    "def load(n):\n"
                    "    return importlib.import_module('pkg.' + _WHERE[n])\n"),  # upward, to _top
        "_mid.py": ("from ._low import f, _helper\n"      # private, by name
                    "class C:\n"
                    "    import pkg._low as low\n"
                    "    def m(self, low):\n"
                    "        return low._arg\n"            # an argument, not the module: nothing
                    "def h():\n"
                    "    import pkg._low as low\n"
                    "    return low._z\n"),                # private, through an absolute import
        "_top.py": ("import importlib\n"
                    "from . import _mid\n"
                    "k = lambda: _mid._y\n"             # private, inside a lambda
                    "def g():\n"
                    "    m = importlib.import_module('pkg._low')\n"
                    "    m.__doc__\n"                      # a dunder: public
                    "    return getattr(m, '_hidden')\n"), # private, through import_module and getattr
        "sub/__init__.py": "",
        "sub/a.py": "from .. import _top\nfrom . import b\nb._x\n",  # upward; sub.b._x is private
        "sub/b.py": ("import importlib\n_MODS = ('a',)\n"
                     "def load():\n"
                     "    for m in _MODS:\n"
                     "        importlib.import_module(f'{__package__}.{m}')\n"),  # a cycle sub.a -> sub.b -> sub.a
    })
    layers = (("low", ("_low", "sub")), ("mid", ("_mid",)), ("top", ("_top", "__init__")))
    found, where, unassigned = check(tmp_path / "pkg", "pkg", layers)
    assert unassigned == []
    assert found == {
        "cycle pkg._low pkg._mid pkg._top",
        "cycle pkg.sub.a pkg.sub.b",
        "upward pkg._low pkg._mid",
        "upward pkg._low pkg._top",
        "upward pkg.sub.a pkg._top",
        "private pkg._low pkg._mid._secret",
        "private pkg._mid pkg._low._helper",
        "private pkg._mid pkg._low._z",
        "private pkg._top pkg._low._hidden",
        "private pkg._top pkg._mid._y",
        "private pkg.sub.a pkg.sub.b._x",
    }
    assert where["upward pkg._low pkg._mid"] == ["pkg._low:4 (low -> mid)"]
    # a module the table does not name is reported
    assert check(tmp_path / "pkg", "pkg", layers[1:])[2] == ["pkg._low", "pkg.sub", "pkg.sub.a", "pkg.sub.b"]


if __name__ == "__main__":
    found, where, unassigned = _today()
    if found:
        print(_explain(found, where))
    print(summary(found))
    if unassigned:
        print(f"modules with no layer: {unassigned}")
