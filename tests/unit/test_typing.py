"""Type information (xpshim/__init__.pyi, py.typed): a type checker sees NumPy's types through
``import xpshim as np``, the same as through ``import numpy as np``, and xpshim's own names
with their signatures. Runs mypy (a development tool: ``pip install mypy``) on generated code."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Expressions whose type must be NumPy's: creation, ufuncs, reductions, submodules, methods,
# scalar types and constants.
SAME_AS_NUMPY = [
    "np.zeros(3)", "np.ones((2, 3), dtype=np.int32)", "np.arange(5)", "np.array([1.0, 2.0])",
    "np.sqrt(np.ones(3))", "np.add(np.ones(3), 1)", "np.sum(np.ones(3))", "np.ones(3).sum()",
    "np.mean(np.ones(3))", "np.linalg.norm(np.ones(3))", "np.fft.fft(np.ones(4))",
    "np.random.default_rng(0)", "np.concatenate([np.ones(2), np.ones(2)])", "np.ones(3) @ np.ones(3)",
    "np.float64", "np.pi", "np.newaxis", "np.asarray([1, 2])", "np.dtype('float32')", "np.where(np.ones(3) > 0)",
    "np.testing.assert_array_equal", "np.einsum('i,i', np.ones(3), np.ones(3))",
]
# xpshim's own names: the type each reveals.
OWN = {
    "np.stats()": "dict[str, Any]",
    "np.reset_stats()": "None",
    "np.asnumpy(np.zeros(3))": "numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]",
    "np.to_device(np.zeros(3), 'gpu')": "numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]",
    "np.get_device()": "Literal['cpu'] | Literal['gpu'] | Literal['dask']",
    "np.empty_pinned((2, 3))": "numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]",
    "np.zeros_pinned(4, dtype=np.float32)": "numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]",
    "np.get_array_module(np.zeros(3))": "types.ModuleType",
    "np.free_gpu_memory()": "None",
    "np.device('cpu')": "contextlib.AbstractContextManager[str",
    "np.ConfigError('x')": "xpshim.ConfigError",
    "np.FallbackWarning": "def (*args: object) -> xpshim.FallbackWarning",
}


def _reveal(module, exprs, tmp_path):
    api = pytest.importorskip("mypy.api")
    src = tmp_path / f"check_{module}.py"
    src.write_text(f"import {module} as np\n" + "".join(f"reveal_type({e})\n" for e in exprs)
                   # the names as annotations: an error if one is not a type
                   + "def f(a: np.ndarray, t: np.dtype, g: np.random.Generator) -> np.float64:\n    return np.float64(a.sum())\n")
    env_path = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = ROOT  # this checkout's xpshim, installed or not
    try:
        out, err, _ = api.run([str(src), "--cache-dir", str(tmp_path / "cache"), "--python-executable", sys.executable])
    finally:
        if env_path is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = env_path
    found = dict(re.findall(r":(\d+): note: Revealed type is \"(.*)\"", out))
    assert "error" not in out, out + err
    return [found.get(str(i + 2), f"(nothing revealed: {out}{err})") for i in range(len(exprs))]


def test_numpy_names_type_as_numpys(tmp_path):
    want = _reveal("numpy", SAME_AS_NUMPY, tmp_path)
    got = _reveal("xpshim", SAME_AS_NUMPY, tmp_path)
    assert dict(zip(SAME_AS_NUMPY, got)) == dict(zip(SAME_AS_NUMPY, want))
    assert "numpy.ndarray" in got[0] and "float64" in got[0]  # not Any


def test_xpshims_own_names_have_signatures(tmp_path):
    got = _reveal("xpshim", list(OWN), tmp_path)
    for (expr, want), have in zip(OWN.items(), got):
        assert have.startswith(want), f"{expr}: {have}"


def test_every_own_public_name_is_in_the_stub():
    """xpshim's own public names (``xpshim._OWN``, beside NumPy's) each have a stub entry."""
    import ast

    import xpshim

    with open(os.path.join(ROOT, "xpshim", "__init__.pyi")) as f:
        tree = ast.parse(f.read())
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    defined |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}  # (__array_api_version__: str)
    assert set(xpshim._OWN) - defined == set()


def test_wheel_data_lists_the_type_information():
    """py.typed and the stub are in the package folder, where setuptools' package discovery
    ships them (pyproject's package-data)."""
    import tomllib

    for name in ("py.typed", "__init__.pyi"):
        assert os.path.isfile(os.path.join(ROOT, "xpshim", name)), name
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]["xpshim"]
    assert "py.typed" in data and "*.pyi" in data
