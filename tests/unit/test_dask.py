"""Dask mode on a real multi-process cluster (2 workers, 1 thread each): the seed examples,
common workloads compared with NumPy (values, dtype, shape), the fallback, host interop,
and the error cases."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy
import pytest

pytest.importorskip("dask.array", reason='Dask mode needs dask: pip install ".[dask]"')
distributed = pytest.importorskip("distributed", reason='Dask mode needs distributed: pip install ".[dask]"')

import xpshim  # noqa: E402
from xpshim import ConfigError, FallbackWarning  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import grayscale  # noqa: E402
import matmul  # noqa: E402
from test_examples import numpy_gray  # noqa: E402

CHUNK = "64KiB"  # small chunks, so that the test arrays span several chunks and both workers


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, worker_dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()
    from xpshim import _dask

    _dask.disable()  # the other test modules see xpshim as without Dask mode


@pytest.fixture
def dask_mode(client):
    with xpshim.device("dask", client=client, chunk_bytes=CHUNK):
        yield client


def gathers():
    return xpshim.stats()["transfers"]["device_to_host"]["count"]


def check(got, want, rtol=1e-10):
    """got (a DaskArray or a value gathered from one) equals NumPy's want."""
    if isinstance(want, numpy.ndarray) or isinstance(want, numpy.generic):
        # Arrays stay on the cluster; a scalar may come back from a fallback as a host scalar.
        assert xpshim.get_device(got) == "dask" or type(got) is type(want) is not numpy.ndarray, type(got)
        h = numpy.asarray(got)
        assert h.dtype == want.dtype and h.shape == want.shape, (h.dtype, h.shape, want.dtype, want.shape)
        numpy.testing.assert_allclose(h, want, rtol=rtol, atol=1e-12)
    else:
        assert got == pytest.approx(want, rel=rtol)


from dask_workloads import A, B, V, WORKLOADS  # noqa: E402


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_matches_numpy(dask_mode, name):
    f = WORKLOADS[name]
    want = f(numpy, A, B, V)
    got = f(xpshim, xpshim.asarray(A), xpshim.asarray(B), xpshim.asarray(V))
    check(got, want)


def test_arrays_are_chunked_over_the_cluster(dask_mode):
    a = xpshim.asarray(A)
    assert type(a).__name__ == "DaskArray" and xpshim.get_device(a) == "dask"
    assert a.dask_array.npartitions > 1
    assert max(a.dask_array.blocks[0, 0].nbytes, 1) <= 64 * 1024
    assert isinstance(a.dask_array._meta, numpy.ndarray)  # CPU workers: NumPy chunks
    assert xpshim.get_device() == "dask"
    assert xpshim.get_device() != "dask" or xpshim._dask.chunk_type() == "numpy"


def test_creation_functions(dask_mode):
    for make in (lambda np: np.zeros((300, 200)), lambda np: np.ones((40,), dtype=np.int16),
                 lambda np: np.full((30, 30), 7), lambda np: np.arange(1000),
                 lambda np: np.arange(0.5, 10, 0.25), lambda np: np.linspace(0, 1, 501),
                 lambda np: np.eye(50, k=1), lambda np: np.identity(20), lambda np: np.tri(9),
                 lambda np: np.array([[1, 2], [3, 4]], dtype=np.uint8), lambda np: np.asarray(A.tolist())):
        check(make(xpshim), make(numpy))
    z = xpshim.zeros((2000, 1000))
    assert len(z.chunks[0]) > 1 and max(z.chunks[0]) * max(z.chunks[1]) * 8 <= 64 * 1024


def test_explicit_chunks(client):
    with xpshim.device("dask", client=client, chunks=(50, 25)):
        a = xpshim.ones((100, 100))
    assert a.chunks == ((50, 50), (25,) * 4)


def test_random(dask_mode):
    xpshim.random.seed(0)
    r = xpshim.random.rand(200, 100)
    h = numpy.asarray(r)
    assert r.shape == (200, 100) and h.dtype == numpy.float64 and 0 <= h.min() and h.max() < 1
    assert numpy.array_equal(h, numpy.asarray(r))  # the same graph gives the same numbers
    n = xpshim.random.default_rng(1).normal(2.0, 0.5, size=20000)
    assert xpshim.get_device(n) == "dask" and abs(float(n.mean()) - 2) < 0.05
    assert xpshim.random.randint(0, 10, size=(30,)).dtype.kind == "i"
    assert xpshim.random.randn(10, 3).shape == (10, 3)


def test_setitem_and_inplace(dask_mode):
    want = numpy.zeros((6, 6))
    got = xpshim.zeros((6, 6))
    b = got[:2]  # Dask arrays have no views: b keeps its values
    for x in (want, got):
        x[1:3] = 1
        x[0, 0] = 7
        x[:, 4] = numpy.arange(6)
        x += 2
        x *= 1.5
    check(got, want)
    assert float(b.sum()) == 0


def test_numpy_functions_on_dask_arrays_route_too(dask_mode):
    a = xpshim.asarray(A)
    check(numpy.mean(a, axis=0), A.mean(axis=0))  # __array_function__
    check(numpy.sin(a), numpy.sin(A))  # __array_ufunc__
    check(a + A, A + A)  # a NumPy operand goes to the cluster
    check(numpy.add(A, a), A + A)


def test_fallback_gathers_visibly(dask_mode):
    a = xpshim.asarray(A)
    before = gathers()
    with pytest.warns(FallbackWarning, match="gathered whole"):
        s = xpshim.sort(a, axis=0)  # dask.array has no sort
    check(s, numpy.sort(A, axis=0))
    assert gathers() > before
    fb = xpshim.stats()["fallbacks"]
    assert fb["xpshim.sort"]["count"] == 1 and __file__ in next(iter(fb["xpshim.sort"]["sites"]))
    with pytest.warns(FallbackWarning, match="axis"):
        check(xpshim.median(a), numpy.median(A))  # dask's median needs an axis
    with pytest.warns(FallbackWarning, match="approximate"):
        check(xpshim.percentile(a, 30), numpy.percentile(A, 30))
    c = xpshim.asarray(V)
    with pytest.warns(FallbackWarning, match="ndarray.sort"):
        c.sort()  # an in-place method: the result is written back to the cluster
    check(c, numpy.sort(V))


def test_fallback_raise_policy(dask_mode, monkeypatch):
    from xpshim import _config

    monkeypatch.setattr(_config, "fallback_policy", "raise")
    with pytest.raises(xpshim.FallbackError, match="no Dask implementation"):
        xpshim.sort(xpshim.asarray(V))


def test_host_interop_gathers_and_counts(dask_mode, capsys):
    from PIL import Image

    a = xpshim.asarray(A)
    n = gathers()
    assert numpy.array_equal(numpy.asarray(a), A)
    img = Image.fromarray((a * 0 + 100).astype(xpshim.uint8))
    assert img.size == (90, 120) and numpy.asarray(img).max() == 100
    print(a[0, :3])
    assert capsys.readouterr().out.strip() == str(A[0, :3])
    assert float(a.sum()) == pytest.approx(A.sum())
    assert int(xpshim.asarray(V).max()) == V.max()
    assert bool((a > -100).all())
    assert f"{a[0, 0]:.4f}" == f"{A[0, 0]:.4f}"
    assert len(a) == 120
    rows = list(a)
    assert len(rows) == 120 and numpy.array_equal(rows[3], A[3])
    assert a[:2, :2].tolist() == A[:2, :2].tolist()
    assert xpshim.asnumpy(a).shape == A.shape
    t = xpshim.stats()["transfers"]
    sites = {**t["device_to_host"]["sites"], **t["values_read"]["sites"]}
    assert gathers() - n >= 7 and all("Dask gather" in s for s in sites)
    # float, int and bool each read one value (stats are fresh per test): values read, not array copies
    assert t["values_read"]["count"] == 3 and t["values_read"]["bytes"] == 8 + V.itemsize + 1
    assert len(a) == 120 and gathers() - n >= 7  # len needs no gather


def test_grayscale_example(dask_mode, tmp_path):
    src, out = tmp_path / "in.png", tmp_path / "out.png"
    grayscale.make_example(str(src), 640, 480)
    n = gathers()
    grayscale.main([str(src), "--out", str(out)])
    got = numpy.asarray(Image_open(out))
    diff = numpy.abs(got.astype(int) - numpy_gray(src).astype(int))
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-3
    assert gathers() - n == 1  # Image.fromarray: one gather
    sent = xpshim.stats()["transfers"]["host_to_device"]["sites"]
    assert any("to the Dask cluster: array" in s for s in sent)


def Image_open(path):
    from PIL import Image

    return Image.open(path)


def test_matmul_example(dask_mode):
    A_, B_, result = matmul.main(["--n", "200", "--no-loop"])
    assert xpshim.get_device(result) == "dask" and len(A_.chunks[0]) > 1
    numpy.testing.assert_allclose(xpshim.asnumpy(result), xpshim.asnumpy(A_) @ xpshim.asnumpy(B_), rtol=1e-10)


def test_matmul_example_runs_its_numba_loop_on_gathered_copies(dask_mode, capsys):
    """Numba cannot take a Dask array: the example gathers both inputs (and the product, to
    compare) to this process, counted, and says so in its output."""
    before = gathers()
    A_, B_, result = matmul.main(["--n", "40"])
    out = capsys.readouterr().out
    assert "gathered from the Dask cluster" in out and "matches np.dot: True" in out, out
    assert gathers() - before >= 3  # A, B and the product, each one counted gather
    loop = matmul.matrix_multiplication(xpshim.asnumpy(A_), xpshim.asnumpy(B_))
    numpy.testing.assert_allclose(loop, numpy.dot(xpshim.asnumpy(A_), xpshim.asnumpy(B_)), rtol=1e-10)


def _run(code, **env):
    e = {**os.environ, "PYTHONPATH": ROOT, **env}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=e, timeout=120)


def test_env_mode_runs_an_unchanged_script(client, tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "grayscale.py")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": ROOT, "XPSHIM_DEVICE": "dask",
                            "XPSHIM_DASK_SCHEDULER": client.scheduler.address})
    assert r.returncode == 0, r.stderr
    assert "device: dask" in r.stdout and (tmp_path / "gray_example.jpg").exists()


def test_import_does_not_import_dask():
    r = _run("import sys, xpshim; xpshim.zeros(3) + 1; print('dask' in sys.modules)", XPSHIM_DEVICE="cpu")
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


def test_missing_dask_says_how_to_install():
    r = _run("import sys; sys.modules['dask'] = None; import xpshim", XPSHIM_DEVICE="dask")
    assert r.returncode != 0 and 'pip install "dask[array]" distributed' in r.stderr and "ConfigError" in r.stderr
    r = _run("import sys; sys.modules['dask'] = None; import xpshim\nwith xpshim.device('dask'): pass")
    assert r.returncode != 0 and 'pip install "dask[array]" distributed' in r.stderr


@pytest.mark.parametrize("var,value,says", [
    ("XPSHIM_DASK_CHUNK_TYPE", "tpu", "auto, numpy, cupy"),
    ("XPSHIM_DASK_CHUNK_BYTES", "lots", "256MiB"),
    ("XPSHIM_DEVICE", "dusk", "dask"),
])
def test_wrong_values_stop_the_import(var, value, says):
    r = _run("import xpshim", **{"XPSHIM_DEVICE": "dask", var: value})
    assert r.returncode != 0 and "ConfigError" in r.stderr and says in r.stderr and var in r.stderr


def test_context_manager_errors(client):
    with pytest.raises(ConfigError, match="auto, numpy, cupy"):
        with xpshim.device("dask", client=client, chunk_type="tpu"):
            pass
    with pytest.raises(TypeError, match="only device"):
        with xpshim.device("cpu", client=client):
            pass
    with xpshim.device("dask", client=client, chunk_type="cupy"):
        with pytest.raises(ConfigError, match="GPU workers"):
            xpshim.zeros(3)


def test_no_scheduler_at_address(monkeypatch):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with xpshim.device("dask", scheduler="tcp://127.0.0.1:9"):
            with pytest.raises(ConfigError, match="no Dask scheduler answers"):
                xpshim.zeros(3)


def test_leaving_the_mode(dask_mode):
    with xpshim.device("cpu"):
        z = xpshim.zeros(3)
        assert type(z) is numpy.ndarray
        d = xpshim.asarray(A)
        assert type(d) is numpy.ndarray
    a = xpshim.asarray(A)
    with xpshim.device("cpu"):
        assert type(xpshim.asarray(a)) is numpy.ndarray  # gathered onto the CPU device
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert type(xpshim.sum(A)) is numpy.float64  # NumPy arrays still run on NumPy
