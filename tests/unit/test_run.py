"""Zero edits: ``python -m xpshim run`` runs unmodified NumPy programs (real subprocesses, against
plain ``python``), ``import numpy`` is scoped to the user's code, and ``%load_ext xpshim``."""

import importlib
import json
import os
import shutil
import subprocess
import sys

import numpy
import pytest
from PIL import Image

import xpshim
from xpshim import _config, _registry, _scope

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(ROOT, "tests", "seeds")

# The simulated GPU (XPSHIM_SIMULATE_GPU=1) is read by xpshim._config as `simulate_gpu`.
needs_sim = pytest.mark.skipif(not hasattr(_config, "simulate_gpu"),
                               reason="this xpshim has no simulated GPU (xpshim._config.simulate_gpu)")


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def python(*args, cwd=SEEDS, **env):
    """``python args...`` (the reference) in a fresh process."""
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=300)


def xprun(*args, cwd=SEEDS, **env):
    """``python -m xpshim run args...`` in a fresh process."""
    return python("-m", "xpshim", "run", *args, cwd=cwd, **env)


def seed(name):
    return os.path.join(SEEDS, name)


def _photo(path, size=(96, 64)):
    rng = numpy.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=numpy.uint8)).save(path)


# ---- the seed's scripts, untouched ----------------------------------------------------------

def _grayscale(tmp_path, runner, **env):
    src, out = tmp_path / "in.png", tmp_path / "out.png"
    if not src.exists():
        _photo(src)
    r = runner(seed("grayscale.py"), str(src), str(out), **env)
    assert r.returncode == 0, r.stderr
    return numpy.asarray(Image.open(out))


def test_grayscale_cpu_writes_numpys_file(tmp_path):
    want = _grayscale(tmp_path, python)
    got = _grayscale(tmp_path, xprun, XPSHIM_DEVICE="cpu")
    assert got.dtype == want.dtype and got.shape == want.shape == (64, 96)
    numpy.testing.assert_array_equal(got, want)


def _matmul(tmp_path, runner, tag, **env):
    out = tmp_path / f"{tag}.npz"
    r = runner(seed("matmul.py"), "24", str(out), **env)
    assert r.returncode == 0, r.stderr
    with numpy.load(out) as f:
        return r.stdout, {k: f[k] for k in f.files}


def test_matmul_cpu_same_output_as_numpy(tmp_path):
    want_out, want = _matmul(tmp_path, python, "numpy")
    got_out, got = _matmul(tmp_path, xprun, "xpshim", XPSHIM_DEVICE="cpu")
    assert got_out == want_out == "loop matches np.dot: True\n"
    assert sorted(got) == sorted(want) == ["A", "B", "loop", "result"]
    for k in want:
        numpy.testing.assert_array_equal(got[k], want[k], err_msg=k)


@needs_sim
def test_seeds_on_the_simulated_gpu(tmp_path):
    want = _grayscale(tmp_path, python)
    report = tmp_path / "report.json"
    got = _grayscale(tmp_path, xprun, XPSHIM_SIMULATE_GPU="1", XPSHIM_DEVICE="gpu", XPSHIM_REPORT=str(report))
    # a different summation order may move a pixel across an integer (as tests/unit/test_examples.py)
    assert numpy.abs(got.astype(int) - want.astype(int)).max() <= 1
    stats = json.loads(report.read_text())
    assert stats["transfers"]["host_to_device"]["count"] >= 1  # the image went to the (simulated) device
    out, arrays = _matmul(tmp_path, xprun, "sim", XPSHIM_SIMULATE_GPU="1", XPSHIM_DEVICE="gpu")
    assert out == "loop matches np.dot: True\n"
    numpy.testing.assert_allclose(arrays["result"], arrays["A"] @ arrays["B"], rtol=1e-12)
    numpy.testing.assert_allclose(arrays["loop"], arrays["result"], rtol=1e-12)


# ---- scoping: the user's modules get xpshim, libraries keep NumPy ---------------------------------

def _app(**env):
    r = xprun(seed(os.path.join("app", "main.py")), **env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_local_module_gets_xpshim_scipy_and_pandas_keep_numpy():
    ref = python(seed(os.path.join("app", "main.py")))
    assert ref.returncode == 0, ref.stderr
    want, got = json.loads(ref.stdout), _app(XPSHIM_DEVICE="cpu")
    assert want["xpshim_holders"] == [] and want["linalg"] == "numpy.linalg"
    # Of every loaded module (SciPy's, pandas', Pillow's, the standard library's), only the
    # script and its local helper hold xpshim; NumPy stays in sys.modules.
    assert got["xpshim_holders"] == ["__main__", "helper"]
    assert got["linalg"] == "xpshim.linalg" and got["sys.modules"] == "numpy"
    assert got["scipy"] == got["pandas"] == "numpy.ndarray"
    assert got["smooth_sum"] == want["smooth_sum"] and got["unit_sum"] == want["unit_sum"]


@needs_sim
def test_simulated_gpu_script_arrays_are_xpshims_scipys_are_numpys():
    got = _app(XPSHIM_SIMULATE_GPU="1", XPSHIM_DEVICE="gpu")
    assert got["array"] == "xpshim.ndarray"
    assert got["scipy"] == got["pandas"] == "numpy.ndarray"
    assert got["xpshim_holders"] == ["__main__", "helper"]
    assert got["smooth_sum"] == 120.0


def test_run_module_with_relative_imports():
    want = python("-m", "pkgdemo.main", "x", "--y")
    got = xprun("-m", "pkgdemo.main", "x", "--y", XPSHIM_DEVICE="cpu")
    assert want.returncode == got.returncode == 0, got.stderr
    w, g = json.loads(want.stdout), json.loads(got.stdout)
    assert (w["np"], w["part"]) == ("numpy", "numpy") and (g["np"], g["part"]) == ("xpshim", "xpshim")
    assert g["argv"] == w["argv"] == ["x", "--y"] and g["name"] == w["name"] == "__main__"
    assert g["total"] == w["total"] == 2.5


def test_include_names_a_package_outside_the_scripts_folder(tmp_path):
    (tmp_path / "main.py").write_text("import json, pkgdemo.part as p, numpy as np\n"
                                      "print(json.dumps([np.__name__, p.np.__name__]))\n")
    env = {"PYTHONPATH": SEEDS + os.pathsep + ROOT}
    plain = xprun(str(tmp_path / "main.py"), XPSHIM_DEVICE="cpu", **env)
    included = xprun("--include", "pkgdemo", str(tmp_path / "main.py"), XPSHIM_DEVICE="cpu", **env)
    assert json.loads(plain.stdout) == ["xpshim", "numpy"], plain.stderr
    assert json.loads(included.stdout) == ["xpshim", "xpshim"], included.stderr


def test_multiprocessing_children_run_scoped():
    methods = ["spawn", "fork", "forkserver"] if sys.platform != "win32" else ["spawn"]
    r = xprun(seed("spawned.py"), *methods, XPSHIM_DEVICE="cpu")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {m: ["xpshim", "xpshim", "numpy"] for m in methods}


# ---- behaving as `python script.py` ---------------------------------------------------------------

@pytest.mark.parametrize("what,code", [("ok", 0), ("exit3", 3), ("message", 1), ("raise", 1)])
def test_argv_exit_status_and_stderr_as_python(what, code):
    script = seed("exits.py")
    want = python(script, what, "--flag", "two words")
    got = xprun(script, what, "--flag", "two words", XPSHIM_DEVICE="cpu")
    assert (got.returncode, want.returncode) == (code, code)
    assert got.stdout == want.stdout  # argv, __name__, __file__, sys.path[0]
    assert got.stderr == want.stderr  # the message, or a traceback of the script's own lines only


def test_traceback_names_the_scripts_line(tmp_path):
    # The script in a folder named xpshim, as `git clone` names a checkout: the word is then in the
    # script's path, so the frames are what is checked, not the text.
    folder = tmp_path / "xpshim"
    folder.mkdir()
    script = folder / "exits.py"
    shutil.copy(seed("exits.py"), script)
    got = xprun(str(script), "raise", XPSHIM_DEVICE="cpu")
    with open(script) as f:
        line = next(i for i, text in enumerate(f, 1) if "the line a traceback names" in text)
    frames = [ln.strip() for ln in got.stderr.splitlines() if ln.strip().startswith('File "')]
    assert len(frames) == 2 and all(f.startswith(f'File "{script}", line ') for f in frames), got.stderr
    assert frames[-1] == f'File "{script}", line {line}, in fail'
    assert "runpy" not in got.stderr and os.path.join(ROOT, "xpshim") not in got.stderr


def test_in_scope_the_version_is_numpys_as_the_docs_say(tmp_path):
    (tmp_path / "v.py").write_text("import json, numpy as np\n"
                                   "print(json.dumps([np.__name__, np.__version__, np.__xpshim_version__]))\n")
    r = xprun(str(tmp_path / "v.py"), XPSHIM_DEVICE="cpu")
    assert json.loads(r.stdout) == ["xpshim", numpy.__version__, xpshim.__xpshim_version__], r.stderr
    with open(os.path.join(ROOT, "docs", "zero-edit.md")) as f:
        doc = " ".join(f.read().split())
    assert "`np.__version__` is NumPy's version" in doc and "`np.__version__` is xpshim's" not in doc


def test_relative_script_path_sets_the_scripts_folder_first():
    r = xprun("exits.py", "ok", XPSHIM_DEVICE="cpu")
    info = json.loads(r.stdout)
    assert info["path0"] == SEEDS and info["file"] == seed("exits.py") and info["argv"] == ["exits.py", "ok"]
    assert info == json.loads(python("exits.py", "ok").stdout)  # argv[0] as typed, as Python keeps it


# ---- options --------------------------------------------------------------------------------------

def _probe(tmp_path):
    p = tmp_path / "probe.py"
    p.write_text("import json, xpshim._config as c\n"
                 "print(json.dumps([c.requested_device, c.fallback_policy, c.report_path]))\n")
    return str(p)


def test_options_become_the_environment_xpshim_reads(tmp_path):
    report = tmp_path / "r.json"
    r = xprun("--device", "cpu", "--fallback=raise", "--report", str(report), _probe(tmp_path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == ["cpu", "raise", str(report)]
    assert set(json.loads(report.read_text())) >= {"transfers", "fallbacks"}


@pytest.mark.parametrize("args,words", [
    (["--report", "/no/such/folder/r.json"], "does not exist"),
    (["--device", "tpu"], "use one of auto, cpu, gpu"),
    (["--fallback", "loud"], "use one of warn, silent, raise"),
    (["--frobnicate"], "unknown option"),
    (["--device"], "name a script"),  # the script was taken as the value
])
def test_bad_options_fail_before_the_script_runs(tmp_path, args, words):
    marker = tmp_path / "ran"
    script = tmp_path / "s.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    r = xprun(*args, str(script))
    assert r.returncode == 2 and words in r.stderr and not marker.exists()


def test_report_folder_is_refused(tmp_path):
    r = xprun("--report", str(tmp_path), seed("exits.py"), "ok")
    assert r.returncode == 2 and "is a folder" in r.stderr and r.stdout == ""


def test_missing_script_exits_2_as_python():
    r = xprun("no_such_script.py")
    assert r.returncode == python("no_such_script.py").returncode == 2
    assert "can't open file" in r.stderr


# ---- the import forms, in-process: every NumPy submodule xpshim mirrors ---------------------------

_SUBS = sorted(set(_registry.ROUTED_MODULES) | set(_registry.HOST_MODULES) | set(_registry.NUMPY_MODULES))


def _exec_as(path, code):
    g = {"__name__": "mod", "__file__": str(path)}
    exec(compile(code, str(path), "exec"), g)
    return g


@pytest.fixture
def user_tree(tmp_path):
    scope = _scope.add(_scope.Files([tmp_path]))
    try:
        yield tmp_path
    finally:
        _scope.remove(scope)


@pytest.mark.parametrize("sub", _SUBS)
def test_import_forms_for_every_submodule(user_tree, sub):
    try:
        real = __import__("numpy." + sub, fromlist=["_"])
    except ImportError:
        pytest.skip(f"numpy.{sub} is not in this NumPy")
    mine = importlib.import_module("xpshim." + sub)  # (xpshim's submodules are made on first import)
    code = (f"import numpy.{sub} as m1\nfrom numpy.{sub} import __name__ as n1\n"
            f"import numpy.{sub}\ntop = numpy\nfrom numpy import {sub.split('.')[0]} as first\n")
    user = _exec_as(user_tree / "user.py", code)
    lib = _exec_as(os.path.join(os.path.dirname(numpy.__file__), "fake_lib.py"), code)
    assert user["m1"] is mine and user["top"] is xpshim and user["n1"] == mine.__name__
    assert user["first"] is getattr(xpshim, sub.split(".")[0])
    assert lib["m1"] is real and lib["top"] is numpy and lib["first"] is getattr(numpy, sub.split(".")[0])
    assert sys.modules["numpy"] is numpy


def test_from_numpy_import_names(user_tree):
    names = [n for n in ("zeros", "dot", "ndarray", "float64", "pi", "newaxis", "sum", "einsum")]
    g = _exec_as(user_tree / "u.py", f"from numpy import {', '.join(names)}\nfrom numpy.linalg import norm\n")
    for n in names:
        assert g[n] is getattr(xpshim, n), n
    assert g["norm"] is xpshim.linalg.norm


def test_out_of_scope_and_missing_names_behave_as_numpy(user_tree, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere") / "x.py"
    assert _exec_as(other, "import numpy as np")["np"] is numpy
    with pytest.raises(ImportError):
        _exec_as(user_tree / "u.py", "import numpy.no_such_module")
    g = _exec_as(user_tree / "u.py", "import importlib\nnp = importlib.import_module('numpy')\n")
    assert g["np"] is numpy  # the documented limit: import_module does not pass through __import__


def test_removing_the_last_scope_restores_import():
    import builtins

    scope = _scope.add(_scope.Files([]))
    assert builtins.__import__ is not _scope._original
    _scope.remove(scope)
    assert builtins.__import__ is _scope._original


# ---- IPython ----------------------------------------------------------------------------------------

_IPYTHON_SESSION = """
import contextlib, io, json, sys
import numpy, xpshim
from IPython.core.interactiveshell import InteractiveShell
from xpshim._info import report

def out(magic, arg):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        shell.run_line_magic(magic, arg)
    return buf.getvalue()

shell = InteractiveShell.instance()
loaded = out("load_ext", "xpshim")
ok = shell.run_cell("import numpy as np\\nfrom numpy.linalg import norm\\nimport cellhelper\\n"
                    "def f():\\n    import numpy\\n    return numpy\\n").success
ns = shell.user_ns
seen = {"ok": ok, "np": ns["np"].__name__, "norm": ns["norm"] is xpshim.linalg.norm, "f": ns["f"]().__name__,
        "helper": ns["cellhelper"].np.__name__, "sys.modules": sys.modules["numpy"].__name__,
        "info": out("xpshim", "info").strip() == report().strip(), "stats": out("xpshim", "stats"),
        "loaded": loaded}
shell.run_line_magic("unload_ext", "xpshim")
seen["after"] = [shell.run_cell("import numpy as np2").success, ns["np2"].__name__, ns["np"].__name__]
print(json.dumps(seen))
"""


def test_ipython_load_ext_scopes_cells(tmp_path):
    """IPython's real shell, in its own process (it takes over ``sys.modules["__main__"]``)."""
    (tmp_path / "cellhelper.py").write_text("import numpy as np\n")
    r = python("-c", _IPYTHON_SESSION, cwd=tmp_path, IPYTHONDIR=str(tmp_path / "ipython"),
               PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}", XPSHIM_DEVICE="cpu")
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen["ok"] and seen["np"] == "xpshim" and seen["norm"] and seen["f"] == "xpshim"
    assert seen["helper"] == "numpy" and seen["sys.modules"] == "numpy"  # modules the cells import keep NumPy
    assert seen["info"]  # %xpshim info prints `python -m xpshim info`
    # %load_ext says in one line that it took effect, and where arrays go (XPSHIM_DEVICE=cpu here:
    # the tests' environment is cleared of XPSHIM_*; auto mode is test_preload.py's)
    assert seen["loaded"].count("\n") == 1 and "`import numpy` in later cells gives xpshim" in seen["loaded"]
    assert "new arrays: on the CPU (XPSHIM_DEVICE=cpu)" in seen["loaded"]
    assert "'transfers'" in seen["stats"] and "'fallbacks'" in seen["stats"]
    assert seen["after"] == [True, "numpy", "xpshim"]  # %unload_ext: later imports NumPy, bound names stay


def test_parse_reads_options_then_the_script_or_module():
    from xpshim._run import UsageError, parse

    assert parse(["--device=cpu", "--include", "a,b", "--include", "c", "s.py", "--device", "x"]) == (
        {"XPSHIM_DEVICE": "cpu"}, ["a", "b", "c"], None, "s.py", ["--device", "x"])
    assert parse(["--fallback", "raise", "-m", "pkg.mod", "-m", "x"]) == (
        {"XPSHIM_FALLBACK": "raise"}, [], "pkg.mod", None, ["-m", "x"])
    assert parse(["--", "-weird.py", "a"])[3:] == ("-weird.py", ["a"])
    for argv, words in ((["--device"], "needs a value"), (["-m"], "needs a module name"), ([], "name a script")):
        with pytest.raises(UsageError, match=words):
            parse(argv)
