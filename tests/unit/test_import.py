"""What ``import xpshim`` loads, and what it leaves alone (each check in a fresh interpreter).

On the CPU path, ``import xpshim`` and a first use load none of NumPy's test and build
tools, nor Numba, llvmlite or CuPy; a program that uses Numba without xpshim never loads
xpshim; and every NumPy name resolves to the same object however lazily it was reached.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAVY = ("numpy.testing", "numpy.f2py", "numba", "llvmlite", "cupy")
GPU_MACHINERY = ("xpshim._pinned", "xpshim._ntcopy", "xpshim._register", "concurrent.futures")


def run(code, **env):
    """Run ``code`` in a fresh interpreter from the repository root; the completed process."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    e.update(env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=e,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def loaded_after(code, names):
    """Which of ``names`` are in sys.modules after ``code`` runs in a fresh interpreter."""
    r = run(code + f"\nimport sys, json\nprint(json.dumps([m for m in {list(names)!r} if m in sys.modules]))",
            XPSHIM_DEVICE="cpu")
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import xpshim",
    "import xpshim as np\nnp.dot(np.array([[1, 2, 3]], np.uint8), [0.2989, 0.5870, 0.1140]).astype(np.uint8)",
    "import xpshim as np\nnp.zeros(3) + np.ones(3); np.sum(np.arange(4)); np.get_device(); np.stats()",
    "import xpshim.linalg, xpshim.fft, xpshim.lib.stride_tricks",
])
def test_cpu_path_loads_no_heavy_module(code):
    assert loaded_after(code, HEAVY + GPU_MACHINERY) == []


# The routing machinery: what a GPU array needs, loaded on the CPU only when a call needs it
# (device=, like=). xpshim/_cpupath.py says why.
ROUTING = ("xpshim._dispatch", "xpshim._route", "xpshim._arguments", "xpshim._methods", "xpshim._objects",
           "xpshim._ufuncroute", "xpshim._handwritten", "xpshim._ndarray", "xpshim._edges", "xpshim._placement",
           "xpshim._transfer", "xpshim._docparams", "xpshim._arrayapi", "xpshim._gaps")


@pytest.mark.parametrize("code", [
    # the seed's grayscale script, as examples/grayscale.py runs it (a NumPy array for the image)
    "import xpshim as np\nimport numpy\nimage_array = np.array(numpy.zeros((4, 6, 3), numpy.uint8))\n"
    "g = np.dot(image_array[..., :3], [0.2989, 0.5870, 0.1140]).astype(np.uint8)\n"
    "print(np.get_device(image_array), np.why_device())",
    "import xpshim as np\nx = np.zeros(5)\nnp.flip(x); np.concatenate((x, np.ones(2))); np.sum(x, axis=0)\n"
    "np.linalg.norm(x); np.roll(x, 1); np.asarray([1, 2]); np.fft.fft(x); np.mean(np.arange(4))",
])
def test_cpu_functions_load_no_routing_machinery(code):
    assert loaded_after(code, ROUTING) == []


def test_cpu_ufuncs_load_no_routing_machinery():
    # On the CPU path a ufunc is NumPy's ufunc itself: its class (_ufunc) is all it loads; the
    # routed calls (_ufuncroute) and the machinery under them come once the GPU is live
    code = ("import xpshim as np\nimport numpy\nx = numpy.ones(3)\n"
            "np.sqrt(x); np.add(x, 1.0); np.multiply.reduce(x); np.maximum.accumulate(x); np.add.outer(x, x)")
    assert loaded_after(code, ROUTING) == []
    assert loaded_after(code, ("xpshim._ufunc",)) == ["xpshim._ufunc"]  # (the call went through xpshim's ufunc)


def test_numpy_submodules_load_when_touched():
    code = "import xpshim as np\nnp.testing, np.f2py, np.ma\nimport xpshim.polynomial.chebyshev"
    assert loaded_after(code, ("numpy.testing", "numpy.f2py", "numpy.ma", "numpy.polynomial.chebyshev")) == [
        "numpy.testing", "numpy.f2py", "numpy.ma", "numpy.polynomial.chebyshev"]


def test_numpy_testing_untouched_on_the_cpu():
    # numpy.testing's asserts are made GPU-aware only once a GPU array can exist (test_interop)
    r = run("""
        import xpshim, numpy.testing, numpy.testing._private.utils as u
        print(all(getattr(f, "__module__", "").startswith("numpy.testing")
                  for f in (numpy.testing.assert_equal, numpy.testing.assert_almost_equal,
                            numpy.testing.assert_approx_equal, u.assert_equal)))
    """, XPSHIM_DEVICE="cpu")
    assert r.stdout.split() == ["True"]


NUMBA_ONLY = """
    import sys, numba

    @numba.njit
    def f(x):
        return x + 1

    print(f(41), "xpshim" in sys.modules, sorted(k for k in sys.modules if k.startswith("xpshim")))
"""


def test_installed_metadata_has_no_numba_entry_point():
    # (an entry point inside xpshim would import all of xpshim into every Numba program)
    import importlib.metadata as md

    eps = [ep.value for ep in md.entry_points(group="numba_extensions") if ep.value.startswith("xpshim")]
    assert eps == [], (f"the installed xpshim still declares {eps} as a numba_extensions entry point: "
                       "reinstall it (pip install -e .) so that its metadata matches pyproject.toml")


@pytest.mark.parametrize("device", ["gpu", "cpu", None])
def test_plain_numba_program_never_loads_xpshim(device):
    pytest.importorskip("numba")
    r = run(NUMBA_ONLY, **({"XPSHIM_DEVICE": device} if device else {}))
    assert r.stdout.split()[:3] == ["42", "False", "[]"]
    assert "xpshim" not in r.stderr.lower()


@pytest.mark.parametrize("order", ["import numba\nimport xpshim as np", "import xpshim as np\nimport numba"])
def test_numba_jit_on_xpshim_names_in_either_import_order(order):
    pytest.importorskip("numba")
    r = run(order + """
        import numpy
        @numba.njit
        def f(n):
            return np.sqrt(np.zeros(n) + np.arange(n)).sum()
        print(f(5) == numpy.sqrt(numpy.arange(5.0)).sum())
    """.replace("\n        ", "\n"), XPSHIM_DEVICE="cpu")
    assert r.stdout.split() == ["True"]


DESCRIBE = """
import json, sys, types, numpy, xpshim

def describe(xmod, nmod, name):
    try:
        x = getattr(xmod, name)
    except AttributeError:
        return "missing"
    n = getattr(nmod, name, None)
    if x is n:
        return "numpy's own"
    if isinstance(x, types.ModuleType):
        return "module " + x.__name__
    return " ".join(map(str, (type(x).__module__, type(x).__qualname__, getattr(x, "__module__", None),
                              getattr(x, "__name__", None), getattr(x, "__wrapped__", None) is n)))

subs = ["", "linalg", "fft", "random", "lib", "emath", "polynomial", "testing"]
names = json.loads(sys.argv[1])
out = {}
for sub in subs:
    xmod = xpshim if not sub else getattr(xpshim, sub)
    nmod = numpy if not sub else getattr(numpy, sub)
    for name in names[sub]:
        out[f"{sub}.{name}"] = describe(xmod, nmod, name)
print(json.dumps(out))
"""

EAGER = """
import warnings, importlib, numpy.testing, numpy.f2py, numpy.ma
import xpshim
from xpshim import _dispatch, _handwritten, _ndarray, _namespace, _transfer, _vectorize, _pinned
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for sub in sorted(_namespace.SUBMODULES):
        try:
            importlib.import_module("xpshim." + sub)
        except ImportError:
            pass
"""


def test_every_numpy_name_resolves_as_when_loaded_eagerly():
    # A fresh interpreter that reaches each name lazily, against one that loaded all of xpshim
    # (and NumPy's submodules) first, as `import xpshim` used to: the same object, name by name.
    names = run("""
        import json, warnings, numpy
        warnings.simplefilter("ignore")
        subs = ["", "linalg", "fft", "random", "lib", "emath", "polynomial", "testing"]
        print(json.dumps({s: sorted(n for n in dir(getattr(numpy, s) if s else numpy) if not n.startswith("_"))
                          for s in subs}))
    """).stdout
    lazy = subprocess.run([sys.executable, "-W", "ignore", "-c", DESCRIBE, names], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "XPSHIM_DEVICE": "cpu"}, timeout=300)
    eager = subprocess.run([sys.executable, "-W", "ignore", "-c", EAGER + DESCRIBE, names], cwd=ROOT,
                           capture_output=True, text=True, env={**os.environ, "XPSHIM_DEVICE": "cpu"}, timeout=300)
    assert lazy.returncode == 0 and eager.returncode == 0, lazy.stderr + eager.stderr
    lazy, eager = json.loads(lazy.stdout), json.loads(eager.stdout)
    assert len(lazy) > 600 and sum(v == "numpy's own" for v in lazy.values()) > 100  # (the comparison is not empty)
    assert {k: v for k, v in lazy.items() if eager[k] != v} == {}
