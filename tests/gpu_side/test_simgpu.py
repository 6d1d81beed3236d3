"""The simulated GPU (``XPSHIM_SIMULATE_GPU=1``, ``xpshim._simgpu``): its API against the
committed CuPy snapshot, the snapshot against the installed CuPy, the variable end to end,
and the places where the old test stand-in differed from CuPy (each checked against NumPy
through the ``gpu`` fixture, so the real GPU checks CuPy's side too)."""

import inspect
import os
import subprocess
import sys

import numpy
import pytest

import xpshim
from xpshim import _config, _coverage, _signatures, _simgpu
from xpshim._registry import ROUTED_MODULES
from xpshim._simgpu import cupy as sim
from xpshim._simgpu import kernels

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
API = _simgpu.api()


def _sub(dotted, root):
    for part in filter(None, dotted.split(".")):
        root = getattr(root, part)
    return root


SUBMODULES = {sub: _sub(sub, sim) for sub in API["modules"]}


def _functions():
    """(module key, name, snapshot entry) of every CuPy function the simulated module has."""
    out = []
    for sub, entries in API["modules"].items():
        for name, spec in entries.items():
            if spec["kind"] == "function" and hasattr(SUBMODULES[sub], name):
                out.append((sub, name, spec))
    return out


def test_the_snapshot_names_a_version_and_covers_the_routed_modules():
    assert API["cupy"].count(".") == 2
    # (CuPy 14.2 has every module xpshim routes to: a module it lacked would be absent here)
    assert set(API["modules"]) == {"", *(m for m in ROUTED_MODULES.values() if m)}
    for sub, mod in SUBMODULES.items():
        assert isinstance(mod, type(sim)) and (not sub or mod.__name__ == "cupy." + sub), sub
    assert len(_functions()) > 250  # (CuPy 14.2: 282 top-level functions, most of them in NumPy too)


@pytest.mark.parametrize("sub,name,spec", _functions(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_function_takes_the_keywords_cupy_takes(sub, name, spec):
    f = getattr(SUBMODULES[sub], name)
    keywords = spec["keywords"]
    assert _signatures.accepted(f) == (None if keywords is None else frozenset(keywords))
    if spec["params"] is not None:  # (xpshim's own functions here have CuPy's parameters, kinds and order)
        got = [(p.name, p.kind.name) for p in inspect.signature(f).parameters.values()]
        assert got == [(n, k) for n, k, _ in spec["params"]]
    if keywords is not None:
        with pytest.raises(TypeError, match="no_such_keyword"):
            f(no_such_keyword=1)


def test_names_cupy_lacks_are_absent():
    for sub, mod in SUBMODULES.items():
        npmod = _sub(sub, numpy)
        missing = [n for n in dir(npmod) if not n.startswith("_") and n not in API["modules"][sub]]
        assert missing or sub == "lib.stride_tricks"
        for n in missing:
            assert not hasattr(mod, n), f"cupy.{sub}.{n}" if sub else f"cupy.{n}"


def test_array_methods_and_attributes_follow_the_snapshot():
    spec = API["classes"]["ndarray"]
    a = sim.arange(6.0)
    for name in dir(numpy.ndarray):
        if name.startswith("_"):
            continue
        if name not in spec:
            assert not hasattr(a, name), name
        elif spec[name]["kind"] == "method":
            keywords = spec[name]["keywords"]
            # (the class's function: a bound method is new at each access; its self is no keyword)
            got = _signatures.accepted(getattr(sim.ndarray, name))
            assert (got and got - {"self"}) == (None if keywords is None else frozenset(keywords) - {"self"}), name
            assert hasattr(a, name)
    for name in ("get", "copy", "__dlpack__"):
        own = {p.name for p in inspect.signature(getattr(a, name)).parameters.values() if p.kind in (
            p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        assert own == set(spec[name]["keywords"]), name


def test_ufunc_loops_follow_the_snapshot():
    for name, spec in API["modules"][""].items():
        if spec["kind"] == "ufunc" and isinstance(getattr(numpy, name, None), numpy.ufunc):
            u = getattr(sim, name)
            assert (u.nin, u.nout, list(u.types)) == (spec["nin"], spec["nout"], spec["types"])
            z = sim.asarray(numpy.ones(2, complex))
            if not any(c in t.split("->")[0] for t in spec["types"] for c in "FD"):
                with pytest.raises(TypeError, match="Wrong type"):
                    u(*[z] * u.nin)


def test_random_classes_have_the_snapshots_methods():
    for cls in ("Generator", "RandomState"):
        spec = API["classes"][f"random.{cls}"]
        c = getattr(sim.random, cls)
        assert isinstance(c, type), cls
        want = {n: s for n, s in spec.items() if s["kind"] == "method" and not n.startswith("__")}
        assert {n for n in dir(c) if not n.startswith("_")} == set(want), cls
        for n, s in want.items():
            got = _signatures.accepted(getattr(c, n))
            assert got == (None if s["keywords"] is None else frozenset(s["keywords"])), f"{cls}.{n}"
    g, r = sim.random.default_rng(0), sim.random.RandomState(0)
    assert isinstance(g, sim.random.Generator) and isinstance(r, sim.random.RandomState)
    # NumPy's generators behind them: the same streams, as device arrays
    assert g.standard_normal(3).get().tolist() == numpy.random.default_rng(0).standard_normal(3).tolist()
    assert r.randint(0, 9, size=4).get().tolist() == numpy.random.RandomState(0).randint(0, 9, size=4).tolist()
    assert not hasattr(g, "multinomial") and not hasattr(r, "multinomial")  # (CuPy's have none)


def _installed_cupy():
    """The installed CuPy where it is the snapshot's version; else the test skips, saying why."""
    try:
        import cupy
    except Exception as e:
        pytest.skip(f"CuPy is not installed ({type(e).__name__}: {e}): nothing to compare the snapshot with")
    if cupy.__version__ != API["cupy"]:
        pytest.skip(f"CuPy {cupy.__version__} is installed, the snapshot is of {API['cupy']}: "
                    "run `python -m xpshim._simgpu.snapshot` to take one of this version")
    return cupy


def _comparable(a, b):
    """True where two snapshot entries differ. Parameters and keywords that one Python cannot read
    (``None``: 3.11 reads no signature from some of CuPy's Cython functions, 3.13 reads one) are
    not compared."""
    if isinstance(a, dict) and isinstance(b, dict):
        unread = {k for k in ("params", "keywords") if a.get(k) is None or b.get(k) is None}
        a, b = {k: v for k, v in a.items() if k not in unread}, {k: v for k, v in b.items() if k not in unread}
    return a != b


def test_the_snapshot_matches_the_installed_cupy():
    cupy = _installed_cupy()
    from xpshim._simgpu import snapshot

    now = snapshot.take(cupy)
    assert set(now["modules"]) == set(API["modules"])
    for key in ("modules", "classes"):
        for part in API[key]:
            differ = sorted(n for n in set(now[key][part]) | set(API[key][part])
                            if _comparable(now[key][part].get(n), API[key][part].get(n)))
            assert not differ, f"{key} {part!r}: {differ[:20]}"


def _first_difference(got, want):
    return next(((i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w), (len(want), got[len(want):], ""))


def test_gaps_rows_are_the_same_with_the_simulated_module_and_with_cupy(monkeypatch):
    cupy = _installed_cupy()
    monkeypatch.setattr(_config, "simulate_gpu", False)
    assert _coverage.cupy_module() is cupy
    real = _coverage.rows()
    monkeypatch.setattr(_config, "simulate_gpu", True)
    assert _coverage.cupy_module() is sim
    simulated = _coverage.rows()
    assert any(n.startswith("random.RandomState.") and w == "cupy" for n, w, _ in real)
    assert simulated == real, _first_difference(simulated, real)


# ---- the variable, end to end, in fresh processes -----------------------------------

def _run(code, *, argv=None, **env):
    """``python -c code`` (or ``python argv...``) in a fresh process, with only the XPSHIM_ variables in ``env``."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(("XPSHIM_", "NUMBA_ENABLE_CUDASIM"))}
    e.update(env, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, *(argv or ["-c", code])], capture_output=True, text=True, env=e, cwd=ROOT)


def test_simulate_gpu_places_counts_and_raises():
    code = ("import xpshim as np\nfrom xpshim import _backend\n"
            "_backend.gpu_status()\n"  # (auto mode: the GPU's start, which the first call begins, waited for)
            "a = np.arange(2.0**16)\n"  # above the crossover: on the (simulated) GPU
            "print(np.get_device(a), np.get_device(np.ones(3)), repr(np.ones(2)))\n"
            "b = np.asnumpy(a * 2)\n"
            "print(np.stats()['transfers']['device_to_host']['count'])\n"
            "try:\n    np.subtract.reduce(a, where=a > 1, initial=0.0)\n"
            "except np.FallbackError as e:\n    print('raised', 'XPSHIM_FALLBACK' in str(e))\n")
    r = _run(code, XPSHIM_SIMULATE_GPU="1", XPSHIM_FALLBACK="raise")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["gpu cpu array([1., 1.])", "1", "raised True"]


def test_simulate_gpu_with_device_gpu_and_info():
    r = _run("import xpshim as np; print(np.get_device(np.ones(3)))", XPSHIM_SIMULATE_GPU="1", XPSHIM_DEVICE="gpu")
    assert r.stdout.strip() == "gpu", r.stderr
    e = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    info = subprocess.run([sys.executable, "-m", "xpshim", "info"], capture_output=True, text=True, cwd=ROOT,
                          env=dict(e, XPSHIM_SIMULATE_GPU="1", PYTHONPATH=ROOT, CXX="no-such-compiler-here"))
    assert info.returncode == 0, info.stderr
    assert f"simulated (XPSHIM_SIMULATE_GPU=1): NumPy on the CPU with CuPy {API['cupy']}'s API" in info.stdout
    assert "no C++ compiler" in info.stdout


def test_explain_all_is_the_same_with_the_simulated_module_and_with_cupy():
    _installed_cupy()
    out = {}
    for v in ("0", "1"):
        r = _run(None, argv=["-m", "xpshim", "explain", "--all"], XPSHIM_SIMULATE_GPU=v)
        assert r.returncode == 0, r.stderr
        out[v] = r.stdout.splitlines()
    assert "  CuPy function: cupy.polynomial.polyutils.trimcoef" in out["0"]
    assert out["1"] == out["0"], _first_difference(out["1"], out["0"])


def test_random_draws_are_numpys_on_the_simulated_gpu_as_the_docs_say():
    """docs/simulated-gpu.md: the simulated GPU draws NumPy's streams (a real GPU, CuPy's)."""
    code = ("import json, xpshim as np\n"
            "g = np.random.default_rng(0).random(3)\n"
            "np.random.seed(1)\n"
            "print(json.dumps([np.get_device(g), np.asnumpy(g).tolist(), np.asnumpy(np.random.rand(2)).tolist()]))\n")
    r = _run(code, XPSHIM_SIMULATE_GPU="1", XPSHIM_DEVICE="gpu")
    assert r.returncode == 0, r.stderr
    numpy.random.seed(1)
    import json

    assert json.loads(r.stdout) == ["gpu", numpy.random.default_rng(0).random(3).tolist(), numpy.random.rand(2).tolist()]
    with open(os.path.join(ROOT, "docs", "simulated-gpu.md")) as f:
        doc = " ".join(f.read().split())
    assert "the simulated CuPy's generators are NumPy's algorithms" in doc and "fails on a GPU" in doc


def test_simulate_gpu_bad_value_names_the_fix():
    r = _run("import xpshim", XPSHIM_SIMULATE_GPU="yes")
    assert r.returncode != 0
    assert "XPSHIM_SIMULATE_GPU='yes' is not a valid value; use one of 0, 1" in r.stderr


def test_without_a_compiler_the_kernel_name_is_absent():
    code = "from xpshim._simgpu import cupy; print(hasattr(cupy, 'ElementwiseKernel'))"
    assert _run(code, CXX="no-such-compiler-here").stdout.strip() == "False"
    assert _run(code).stdout.strip() == str(kernels.compiler() is not None)


# ---- where the old stand-in differed from CuPy: each against NumPy, on both sides -----

def test_asarray_copy(gpu):
    a = xpshim.asarray(numpy.arange(4.0))
    b = xpshim.asarray(a, copy=True)
    b[0] = 9.0
    c = xpshim.asarray(a, copy=False)
    c[1] = 7.0
    assert xpshim.asnumpy(a).tolist() == [0.0, 7.0, 2.0, 3.0]
    assert xpshim.asnumpy(b).tolist() == [9.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        xpshim.asarray(a, dtype=numpy.float32, copy=False)


def test_dlpack_device_and_round_trip(gpu):
    a = xpshim.asarray(numpy.arange(5.0))
    assert a.__dlpack_device__() == (2, 0)  # kDLCUDA, device 0
    b = xpshim.from_dlpack(a)
    assert xpshim.get_device(b) == "gpu"
    assert xpshim.asnumpy(b).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("name,fields", [("unique_all", ("values", "indices", "inverse_indices", "counts")),
                                         ("unique_counts", ("values", "counts")),
                                         ("unique_inverse", ("values", "inverse_indices"))])
def test_unique_results_are_named(gpu, name, fields):
    h = numpy.array([3, 1, 3, 2, 1, 3])
    got, want = getattr(xpshim, name)(xpshim.asarray(h)), getattr(numpy, name)(h)
    assert got._fields == want._fields == fields
    for f in fields:
        assert xpshim.asnumpy(getattr(got, f)).tolist() == getattr(want, f).tolist()


def test_any_all_methods_read_a_tuple_axis(gpu):
    h = numpy.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5) % 7 == 0
    x = xpshim.asarray(h)
    for m in ("any", "all"):
        assert xpshim.asnumpy(getattr(x, m)((3, 1))).tolist() == getattr(h, m)((3, 1)).tolist()


def test_unique_along_an_axis(gpu):
    h = numpy.array([[1, 2], [3, 4], [1, 2], [0, 9]])
    got = xpshim.unique(xpshim.asarray(h), axis=0)
    assert xpshim.get_device(got) == "gpu"
    assert xpshim.asnumpy(got).tolist() == numpy.unique(h, axis=0).tolist()


@pytest.mark.parametrize("call", [
    lambda a: sim.dot(a, 2), lambda a: sim.dot(a, [1.0, 2.0, 3.0]), lambda a: sim.vdot(a, 2), lambda a: sim.inner(a, 7),
    lambda a: sim.outer(a, 2), lambda a: sim.tensordot(a, 2, 0), lambda a: sim.column_stack([a, 1]),
    lambda a: sim.column_stack([a, [1.0, 2.0, 3.0]]), lambda a: sim.ediff1d(a, to_end=0),
    lambda a: sim.trapezoid(a, x=[1.0, 2.0, 3.0]), lambda a: sim.select([a > 1], [2]),
    lambda a: sim.histogram(a, 3, weights=[1.0, 1.0, 1.0]),
])
def test_python_data_where_cupy_reads_arrays_only_is_refused(call):
    """As CuPy 14's functions that read their array parameters as CuPy arrays (``a.dot(b)``,
    ``isinstance(x, cupy.ndarray)``): a Python number or list there raises on the simulated GPU,
    so xpshim's handling of it is tested without a GPU."""
    with pytest.raises(TypeError):
        call(sim.asarray(numpy.array([0.5, 1.5, 2.5])))


def test_cupy_answers_and_checks_that_differ_from_numpy_are_simulated():
    a = sim.asarray(numpy.array([0.5, 1.5, 2.5]))
    assert type(sim.atleast_1d(a, a)) is list and type(sim.atleast_3d(a, a)) is list  # (NumPy 2: tuples)
    r = sim.broadcast_arrays(a, 2)
    assert type(r) is list and r[1] == 2 and type(r[1]) is int  # (CuPy's broadcast passes numbers through)
    with pytest.raises(ValueError):
        sim.column_stack([a, a.reshape(1, 1, 3)])
    empty = sim.asarray(numpy.array([], dtype=float))
    for call in (lambda: sim.percentile(a, empty), lambda: sim.quantile(a, empty),
                 lambda: sim.histogram(a, empty), lambda: sim.bincount(sim.asarray(numpy.array([], int)), a)):
        with pytest.raises(ValueError):
            call()
