"""Size-aware placement in auto mode (xpshim/_placement.py), on the NumPy-backed stand-in:
decisions by size, the crossover and its override, moves counted in stats()["placement"],
element-by-element loops moving a GPU array to the host and back, the loop-heavy workloads,
and XPSHIM_DEVICE=gpu left as it was."""

import json
import re
import os
import subprocess
import sys
import textwrap
import types

import warnings

import numpy
import pytest

import xpshim as np
from xpshim import _backend, _config, _device, _placement

import fakecupy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks"))

import workloads  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = _config.DEFAULT_CROSSOVER
LOOPS = [n for n in workloads.names() if workloads.load(n).KIND == "loop"]


@pytest.fixture
def auto():
    """Auto mode on a GPU (the stand-in): arrays placed by size."""
    undo = _backend.install(fakecupy, "NumPy-backed stand-in for tests", placement=True)
    try:
        yield
    finally:
        undo()


@pytest.fixture
def crossover():
    """Set the crossover for one test: crossover(64)."""
    saved = _device._crossover

    def set_to(n):
        _device._crossover = (n, "set by the test")
        _placement.refresh()
    yield set_to
    _device._crossover = saved
    _placement.refresh()


@pytest.fixture
def forced_gpu():
    undo = _backend.install(fakecupy, "NumPy-backed stand-in for tests")
    try:
        yield
    finally:
        undo()


def placed(direction):
    return np.stats()["placement"][direction]["count"]


def transfers():
    t = np.stats()["transfers"]
    return t["host_to_device"]["count"] + t["device_to_host"]["count"]


# ---------------------------------------------------------------- decisions by size

@pytest.mark.parametrize("make", [
    lambda n: np.zeros(n), lambda n: np.ones((1, n)), lambda n: np.empty(n), lambda n: np.full(n, 2.0),
    lambda n: np.arange(n), lambda n: np.arange(0, n, 1), lambda n: np.linspace(0, 1, n),
    lambda n: np.asarray(numpy.ones(n)), lambda n: np.array(list(range(n))), lambda n: np.ndarray((n,)),
], ids=["zeros", "ones", "empty", "full", "arange", "arange3", "linspace", "asarray", "array-list", "ndarray"])
def test_creation_is_placed_by_size(auto, make):
    assert type(make(N - 1)) is numpy.ndarray
    big = make(N)
    assert type(big) is np.ndarray and np.get_device(big) == "gpu"
    assert placed("to_device") == placed("to_host") == 0  # made where it belongs: nothing moved


def test_small_shapes_with_more_arguments(auto):
    # the short way for small shapes (np.zeros(5) in a loop) keeps NumPy's answers, and a GPU
    # argument still decides where the array is made
    z = np.zeros((2, 3), numpy.float32, order="F")
    assert type(z) is numpy.ndarray and z.dtype == numpy.float32 and z.flags.f_contiguous
    f = np.full(3, 1j, dtype=numpy.dtype("c8"))
    assert type(f) is numpy.ndarray and f.dtype == numpy.complex64 and f[0] == 1j
    assert type(np.ones([2, 2])) is numpy.ndarray and np.empty(4, int).dtype == numpy.int_
    g = np.zeros(N)
    r = np.full(3, g[0])
    assert np.get_device(r) == "gpu"
    numpy.testing.assert_array_equal(np.asnumpy(r), numpy.zeros(3))
    assert np.get_device(np.zeros(3, like=g)) == "gpu"
    # like= follows the reference array's device, as NumPy's __array_function__ protocol does
    a = np.asarray([1, 2], like=g)
    assert np.get_device(a) == "gpu"
    numpy.testing.assert_array_equal(np.asnumpy(a), [1, 2])
    assert np.get_device(np.arange(4, like=g)) == "gpu"
    with np.device("gpu"):
        assert type(np.zeros(3, like=numpy.zeros(1))) is numpy.ndarray
        assert type(np.array([1.0], like=numpy.zeros(1))) is numpy.ndarray
    with pytest.raises(ValueError, match="negative"):
        np.zeros(-1)
    with np.device("gpu"):
        assert np.get_device(np.zeros(5)) == "gpu" and np.get_device(np.ones((2, 2))) == "gpu"
    with np.device("cpu"):
        assert type(np.zeros(N)) is numpy.ndarray


# ---------------------------------------------------------------- random numbers: NumPy's

# The values each required parameter of np.random's functions takes below (by its name)
_DRAW_ARGS = {"a": 2.0, "b": 3.0, "n": 5, "p": 0.4, "df": 3.0, "dfnum": 3.0, "dfden": 4.0, "shape": 2.0,
              "ngood": 5, "nbad": 4, "nsample": 3, "nonc": 1.0, "left": 0.0, "mode": 0.5, "right": 1.0,
              "mu": 0.0, "kappa": 1.0, "mean": 1.0, "scale": 1.0, "alpha": [1.0, 2.0], "pvals": [0.2, 0.8],
              "low": 3, "high": 10, "cov": [[1.0, 0.0], [0.0, 1.0]]}


def _draws():
    """np.random's legacy functions (from the installed NumPy) that take a size: name -> (arguments)."""
    import inspect

    out = {}
    for name in numpy.random.__all__:
        f = getattr(numpy.random, name)
        if not (callable(f) and hasattr(numpy.random.RandomState, name)):
            continue
        if name in ("rand", "randn"):
            out[name] = ()
            continue
        params = inspect.signature(f).parameters
        if "size" not in params:
            continue
        args = []
        for p in params.values():
            if p.name == "size" or p.default is not p.empty:
                break
            args.append([0.0, 0.0] if (name, p.name) == ("multivariate_normal", "mean") else
                        10 if name == "choice" else _DRAW_ARGS[p.name])
        out[name] = tuple(args)
    return out


def _draw_sequence(m, names, n):
    """A program's draws, small and large in turn, with a seed, GPU arguments and generators."""
    got = []

    def keep(r):
        got.append(xpshim.asnumpy(r) if type(r) is np.ndarray else numpy.array(r))  # (a copy: x changes)
        return r

    m.random.seed(7)
    for name, args in names.items():
        f = getattr(m.random, name)
        for size in (3, n):
            keep(f(size) if name in ("rand", "randn") else f(*args, size=size))
    x = m.arange(float(n))  # (on the GPU in auto mode: its size)
    keep(m.random.permutation(x))
    m.random.shuffle(x)
    keep(x)
    keep(m.random.choice(x, 5))
    keep(numpy.frombuffer(m.random.bytes(8), numpy.uint8))
    rng = m.random.default_rng(1)
    keep(rng.normal(size=n))
    keep(rng.integers(0, 9, 4))
    rng.shuffle(x)  # (a GPU array: written back)
    keep(x)
    o = m.zeros(n)
    keep(rng.random(out=o) is o)
    keep(o)
    keep(m.random.RandomState(2).rand(n))
    return got


import xpshim  # noqa: E402


class _NoGpuDraws(types.ModuleType):
    """The stand-in CuPy, but its generators refuse to draw (the simulated GPU's draw NumPy's
    numbers: a draw made there could not be told apart from NumPy's by its numbers)."""

    def __getattr__(self, name):
        return getattr(fakecupy, name)


def _refuse(*args, **kwargs):
    raise AssertionError("drawn by the GPU's generator")


class _Generators(types.ModuleType):
    def __getattr__(self, name):  # (seeding is the stand-in's; a draw refuses)
        return getattr(fakecupy.random, name) if name in ("seed", "get_random_state", "reset_states") else _refuse


@pytest.fixture
def auto_no_gpu_draws():
    stand_in = _NoGpuDraws(fakecupy.__name__)  # (not "cupy": the stand-in's paths, not real CuPy's)
    stand_in.random = _Generators("cupy.random")
    undo = _backend.install(stand_in, "stand-in whose generators refuse to draw", placement=True)
    try:
        yield
    finally:
        undo()


def test_auto_modes_random_numbers_are_numpys(auto_no_gpu_draws):
    # every legacy draw of np.random, each small and large, then permutation, shuffle and choice
    # of a GPU array and the generators: NumPy's numbers (auto mode's draws are NumPy's
    # generators', whenever the GPU became ready); a large draw is then moved to the GPU
    names = _draws()
    assert len(names) > 35  # (every distribution of the installed NumPy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (random_integers)
        want = _draw_sequence(numpy, names, N)
        got = _draw_sequence(np, names, N)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, i
        numpy.testing.assert_array_equal(g, w, err_msg=f"draw {i} of {len(want)}")
    assert type(np.random.rand(N)) is np.ndarray and type(np.random.rand(N - 1)) is numpy.ndarray
    assert isinstance(np.random.default_rng(0), numpy.random.Generator)  # (NumPy's class: scikit-learn checks it)
    assert isinstance(np.random.RandomState(0), numpy.random.RandomState)
    with np.device("gpu"):  # (the GPU device chosen: CuPy's generators)
        with pytest.raises(AssertionError, match="GPU's generator"):
            np.random.rand(3)


@pytest.fixture(params=["fake", pytest.param("cuda", marks=pytest.mark.gpu)])
def auto_on(request):
    """Auto mode placing by size on the stand-in, or on real CuPy."""
    if request.param == "fake":
        module = fakecupy
    else:
        if not (_backend.gpu_status().usable and getattr(_backend.xp, "__name__", "") == "cupy"):
            pytest.skip(f"no usable CUDA GPU: {_backend.gpu_status().reason}")
        module = _backend.xp
    undo = _backend.install(module, "auto mode for the test", placement=True)
    try:
        yield request.param
    finally:
        undo()


def _before(g, how):
    """Draws that leave a generator's state otherwise: none, a float32 draw (half of a 64-bit
    output kept for the next one), integers then doubles, a jump of the bit generator."""
    if how == "float32":
        g.random(3, dtype=numpy.float32)
    elif how == "integers":
        g.integers(0, 10, 5)
        g.random(3)
    elif how == "advanced":
        g.bit_generator.advance(2**70 + 3)


@pytest.mark.parametrize("seed", [0, 12345, 2**100 + 7])
@pytest.mark.parametrize("how", ["none", "float32", "integers", "advanced"])
@pytest.mark.parametrize("size", [N, (2, N // 2 + 1), numpy.int64(3 * N), (N, 1, 1)])
def test_a_large_draw_of_default_rng_is_made_on_the_gpu_with_numpys_numbers(auto_on, seed, how, size):
    """``default_rng(seed).random(size)`` of the crossover's size or more is made on the GPU
    (``xpshim/_pcg64.py``): NumPy's numbers bit for bit, and the generator left where NumPy's
    is (the draws after it, of every kind, are NumPy's too)."""
    g, w = np.random.default_rng(seed), numpy.random.default_rng(seed)
    _before(g, how)
    _before(w, how)
    moved = xpshim_stats_moved()
    a, b = g.random(size), w.random(size)
    assert type(a) is np.ndarray and np.get_device(a) == "gpu" and a.dtype == b.dtype and a.shape == b.shape
    assert xpshim_stats_moved() == moved, "the draw was made on the host and moved"
    numpy.testing.assert_array_equal(np.asnumpy(a), b)
    assert g.bit_generator.state == w.bit_generator.state
    numpy.testing.assert_array_equal(g.random(5, dtype=numpy.float32), w.random(5, dtype=numpy.float32))
    numpy.testing.assert_array_equal(np.asnumpy(g.random(size=(N,))), w.random(size=(N,)))
    numpy.testing.assert_array_equal(g.normal(size=7), w.normal(size=7))


def test_a_draw_long_enough_to_need_four_digit_levels_is_numpys(auto_on):
    """Element i of a draw is i + 1 steps on: one jump per base-256 digit of it (``_pcg64.tables``);
    a draw of 2**24 + 5 elements needs four levels of them."""
    g, w = np.random.default_rng(2026), numpy.random.default_rng(2026)
    a, b = g.random(2**24 + 5), w.random(2**24 + 5)
    assert np.get_device(a) == "gpu"
    numpy.testing.assert_array_equal(np.asnumpy(a), b)
    assert g.bit_generator.state == w.bit_generator.state


@pytest.mark.parametrize("level, digit", [(0, 1), (0, 255), (1, 1), (2, 37), (3, 200), (7, 255)])
def test_each_jump_of_the_table_is_that_many_steps_of_pcg64(level, digit):
    from xpshim import _pcg64

    t = _pcg64.tables().reshape(8, 256, 4)[level, digit]
    a, m = (int(t[0]) << 64) | int(t[1]), (int(t[2]) << 64) | int(t[3])
    state, inc = (123456789 << 70) | 987, (5 << 100) | 1
    k = digit * 256**level
    assert a == pow(_pcg64.MULT, k, 2**128)
    # (NumPy's own advance, from the same state: the map of k steps)
    bg = numpy.random.PCG64()
    bg.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}
    assert (a * state + inc * m) % 2**128 == bg.advance(k).state["state"]["state"]


def xpshim_stats_moved():
    return np.stats()["placement"]["to_device"]["count"]


@pytest.mark.parametrize("call", [
    lambda g: g.random(N, dtype=numpy.float32),  # (32-bit draws: NumPy's on the host, then placed)
    lambda g: g.random(N, numpy.float64, None),
    lambda g: g.random(N - 1),  # (under the crossover: NumPy's array)
    lambda g: g.random(),
    lambda g: g.random((0, N)),
    lambda g: g.random(size=[N]),
    lambda g: g.random(N, out=numpy.empty(N)),
])
def test_every_other_random_call_is_numpys(auto_on, call):
    g, w = np.random.default_rng(3), numpy.random.default_rng(3)
    got, want = call(g), call(w)
    got = np.asnumpy(got) if type(got) is np.ndarray else got
    assert type(got) is type(want)
    numpy.testing.assert_array_equal(got, want)
    assert g.bit_generator.state == w.bit_generator.state


@pytest.mark.parametrize("size", [-1, (N, -2), 2.5, "3"])
def test_a_draw_numpy_refuses_is_refused_as_numpy_does(auto_on, size):
    g = np.random.default_rng(1)
    with pytest.raises(Exception) as want:
        numpy.random.default_rng(1).random(size)
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        g.random(size)


def test_a_seeded_run_draws_the_same_numbers_whenever_the_gpu_is_ready():
    # auto mode on the simulated GPU, the start asked for at once: draws before the GPU is ready
    # and after it, the same program with the GPU ready from its first line: NumPy's numbers, both
    code = textwrap.dedent("""
        import json, sys, time
        import xpshim as np
        from xpshim import _backend
        def ready():
            np.zeros(100000)  # (a call that needs the device)
            while not _backend.live:
                time.sleep(0.01)
        if sys.argv[1] == "wait":
            ready()
        np.random.seed(0)
        a = np.random.rand(100)
        ready()
        b = np.random.rand(100000)
        rng = np.random.default_rng(5)
        print(json.dumps([float(a.sum()), float(b.sum()), float(rng.normal(size=50000).sum()), _backend.live]))
    """)
    numpy.random.seed(0)
    a = numpy.random.rand(100)
    b = numpy.random.rand(100000)
    want = [float(a.sum()), float(b.sum()), float(numpy.random.default_rng(5).normal(size=50000).sum())]
    env = {k: v for k, v in os.environ.items() if not k.startswith("XPSHIM_")}
    env.update(XPSHIM_SIMULATE_GPU="1", XPSHIM_START_AFTER_MS="0", XPSHIM_SIMULATE_IMPORT_MS="0", XPSHIM_CROSSOVER="64")
    for how in ("go on", "wait"):
        r = subprocess.run([sys.executable, "-c", code, how], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        *got, live = json.loads(r.stdout.strip().splitlines()[-1])
        assert live and got == want, how


def test_square_creation_counts_elements(auto):
    k = int(N**0.5)
    assert type(np.eye(k - 1)) is numpy.ndarray and type(np.identity(k - 1)) is numpy.ndarray
    assert np.get_device(np.eye(k + 1)) == "gpu" and np.get_device(np.identity(k + 1)) == "gpu"


def test_small_data_stays_the_same_numpy_array(auto):
    h = numpy.arange(5.0)
    assert np.asarray(h) is h
    assert transfers() == 0


def _small_data():
    ro = numpy.arange(6.0).reshape(2, 3)
    ro.flags.writeable = False
    return {"float64": numpy.arange(6.0).reshape(2, 3), "float32-F": numpy.asfortranarray(numpy.ones((2, 3), "f4")),
            "read-only": ro, "view": numpy.arange(12)[::2], "0-d": numpy.array(2.5), "list": [1.0, 2.0],
            "nested list": [[1, 2], [3, 4]], "tuple": (1, 2.5), "tuple of arrays": (numpy.ones(2), numpy.zeros(2)),
            "int": 3, "float": 2.5}


@pytest.mark.parametrize("name", ["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray"])
@pytest.mark.parametrize("dtype", [None, "f4", "i8"])
def test_small_host_data_is_numpys_answer(auto, name, dtype):
    # every creation function of data, on each kind of small host data: NumPy's array itself
    # (type, dtype, layout, flags, values, and the memory it shares with its argument), nothing moved
    for kind, data in _small_data().items():
        want = getattr(numpy, name)(data, dtype)
        got = getattr(np, name)(data, dtype)
        assert type(got) is type(want), kind
        assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides, kind
        assert got.flags.writeable == want.flags.writeable and got.flags.owndata == want.flags.owndata, kind
        numpy.testing.assert_array_equal(got, want)
        if type(data) is numpy.ndarray:
            assert (got is data) == (want is data), kind
            assert numpy.shares_memory(got, data) == numpy.shares_memory(want, data), kind
    assert transfers() == 0 and placed("to_device") == 0


def test_calls_on_small_numpy_arrays_stay_numpy(auto):
    a = np.linspace(0, 1, 100)
    for r in (np.sin(a), np.sum(a), a + 1, np.concatenate([a, a]), np.add.accumulate(a)):
        assert isinstance(r, (numpy.ndarray, numpy.generic, float))
    assert placed("to_device") == 0 and transfers() == 0


def test_result_past_the_crossover_moves_to_the_gpu(auto):
    a, b = numpy.ones(200), numpy.arange(200.0)
    r = np.outer(a, b)
    assert np.get_device(r) == "gpu"
    numpy.testing.assert_array_equal(np.asnumpy(r), numpy.outer(a, b))
    assert placed("to_device") == 1 and np.stats()["placement"]["to_device"]["bytes"] == r.nbytes
    assert np.get_device(np.multiply.outer(a, b)) == "gpu"  # ufunc methods too
    assert np.get_device(np.tile(a, 200)) == "gpu"
    d = np.diag(b)  # one NumPy array and nothing else: the shortest way through a wrapper
    assert np.get_device(d) == "gpu"
    numpy.testing.assert_array_equal(np.asnumpy(d), numpy.diag(b))


def test_views_outputs_and_arguments_are_not_moved(auto):
    big = numpy.ones(N)
    v = np.reshape(big, (2, -1))  # a view of the user's data: writes must still reach it
    assert type(v) is numpy.ndarray and v.base is big
    out = numpy.empty(N)
    assert np.add(big, 1, out=out) is out
    assert np.asarray_chkfinite(big) is big
    assert placed("to_device") == 0


def test_gpu_arguments_still_decide(auto):
    g = np.zeros(N)
    small = numpy.arange(3.0)
    r = np.concatenate([g, small])
    assert np.get_device(r) == "gpu" and transfers() == 1  # the existing rule: the copy is counted
    assert np.get_device(g[:3] + small) == "gpu"


def test_crossover_override(auto, crossover):
    crossover(10)
    assert np.get_device(np.zeros(10)) == "gpu" and type(np.zeros(9)) is numpy.ndarray
    crossover(0)
    assert np.get_device(np.zeros(1)) == "gpu"


def test_gpu_context_inside_auto_puts_everything_on_the_gpu(auto):
    with np.device("gpu"):
        assert np.get_device(np.zeros(3)) == "gpu"
        assert np.get_device(np.asarray([1.0, 2.0])) == "gpu"
    with np.device("auto"):
        assert type(np.zeros(3)) is numpy.ndarray
    with np.device("cpu"):
        assert type(np.zeros(N)) is numpy.ndarray


# ---------------------------------------------------------------- element-by-element loops

def gauss_seidel(np, u, f, sweeps=3):
    n = u.shape[0]
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - f[i, j])
    return u


def test_scalar_loop_moves_a_small_gpu_array_to_the_host(auto):
    f = numpy.random.default_rng(0).random((12, 12))
    want = gauss_seidel(numpy, numpy.zeros((12, 12)), f)
    u = np.to_device(numpy.zeros((12, 12)), "gpu")
    got = gauss_seidel(np, u, f)
    assert got is u and np.get_device(u) == "gpu"  # the same wrapper; its data now on the host
    assert u._h is not None
    assert placed("to_host") == 1 and np.stats()["placement"]["to_host"]["bytes"] == u.nbytes
    assert placed("to_device") == 0
    numpy.testing.assert_array_equal(np.asnumpy(u), want)
    assert u.shape == (12, 12) and u.dtype == numpy.float64 and len(u) == 12 and placed("to_device") == 0
    assert type(u[1, 1]) is numpy.float64
    # any other use brings the data back to the GPU first, counted
    s = u.sum()
    assert placed("to_device") == 1 and u._h is None
    assert float(s) == pytest.approx(want.sum())
    numpy.testing.assert_array_equal(np.asnumpy(u * 2), want * 2)


def _row_products(xp, L, B):
    for i in range(L.shape[0] - 1, -1, -1):
        B[i, :] = L[i, :i + 1] @ B[:i + 1, :]
    return B


def _row_updates(xp, A):
    for i in range(1, A.shape[0]):
        A[i, :i] -= A[i, :i] @ A[:i, :i] * 1e-3
    return A


def test_small_parts_paired_with_large_gpu_work_stay_on_the_gpu(auto, crossover):
    """A loop whose steps multiply a small part of one array (a row of L) by a large part of
    another (a block of B) is GPU work for both: L does not move to the host, and nothing crosses
    at each step (moved there, each row went back to the GPU alone, synchronously). A loop over
    parts of one array alone (A's rows against A's block) is a loop's, and moves as before."""
    crossover(256)
    rng = numpy.random.default_rng(3)
    hl, hb = numpy.tril(rng.random((64, 64))), rng.random((64, 64))
    L, B = np.asarray(hl), np.asarray(hb)
    assert np.get_device(L) == np.get_device(B) == "gpu"
    np.reset_stats()
    got = _row_products(np, L, B)
    numpy.testing.assert_allclose(np.asnumpy(got), _row_products(numpy, hl, hb.copy()), rtol=1e-12)
    # (the last rows' blocks are below the crossover: there L may move once, late; it never goes
    # back and forth, and no row crosses on its own)
    assert placed("to_host") <= 1 and placed("to_device") == 0, np.stats()["placement"]
    assert np.stats()["transfers"]["host_to_device"]["count"] == 0
    ha = rng.random((64, 64))
    A = np.asarray(ha)
    np.reset_stats()
    got = _row_updates(np, A)
    numpy.testing.assert_allclose(np.asnumpy(got), _row_updates(numpy, ha.copy()), rtol=1e-12)
    assert placed("to_host") == 1  # (its own parts: a loop's, on the host)


def _jacobi(np, a, b, steps):
    for _ in range(steps):
        b[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
        a[1:-1] = (b[:-2] + b[1:-1] + b[2:]) / 3.0
    return a


@pytest.mark.parametrize("n, moves", [(300, True), (600, False)])
def test_a_loop_over_large_parts_of_an_array_below_twice_the_crossover_runs_on_the_host(auto, crossover, n, moves):
    """Parts of an array below twice the crossover, taken again and again (1-d Jacobi's shifted
    slices, each past the crossover), are a loop's: both arrays end on the host within the first
    steps (one goes first; the other's step may send it back once), and the loop's steps run
    there. Parts of an array at twice the crossover or more are GPU work: they stay on the GPU,
    and nothing crosses."""
    crossover(256)
    h = numpy.random.default_rng(4).random(n)
    a, b = np.asarray(h), np.asarray(h)
    assert np.get_device(a) == np.get_device(b) == "gpu"
    np.reset_stats()
    got = _jacobi(np, a, b, 40)
    crossed = sum(np.stats()["transfers"][k]["count"] for k in ("host_to_device", "device_to_host"))
    numpy.testing.assert_allclose(np.asnumpy(got), _jacobi(numpy, h.copy(), h.copy(), 40), rtol=1e-13)
    if moves:
        assert a._st.host and b._st.host, "both arrays end on the host"
        assert 2 <= placed("to_host") <= 3 and placed("to_device") <= 1, np.stats()["placement"]
        assert crossed <= 4, np.stats()["transfers"]  # (in 40 steps of 8 calls each)
    else:
        assert placed("to_host") == placed("to_device") == crossed == 0, np.stats()


def test_moved_array_serves_reads_and_writes_until_used_otherwise(auto):
    x = np.to_device(numpy.arange(50.0), "gpu")
    for i in range(50):
        x[i] = x[i] * 2
    assert x._h is not None and placed("to_host") == 1
    assert x[3] == 6.0 and float(x[3:4][0]) == 6.0  # a small part is served from the host too
    assert placed("to_device") == 0
    x + 1  # any other use is GPU work: the data moves back
    assert placed("to_device") == 1 and x._h is None
    numpy.testing.assert_array_equal(np.asnumpy(x), numpy.arange(50.0) * 2)
    # after moving back, it takes longer before it moves again
    for i in range(_placement.MIGRATE_AFTER + 1):
        x[i % 50]
    assert x._h is None and placed("to_host") == 1


def test_gpu_indices_and_masks_keep_their_meaning_across_the_count(auto):
    # mandelbrot on the H200 (auto mode): `escaped_at[out] = i` with `out` a GPU mask was
    # counted as a write of one element; at the count the data moved and the write went to
    # h[None] (every element). A GPU array in the key now keeps the data on the GPU, and a
    # mask counts as the pass over its whole extent.
    n = 2 * N
    h = numpy.full(n, 100, dtype=numpy.int32)
    x = np.asarray(h)
    idx = np.asarray(numpy.array([3, 7]))
    rng = numpy.random.default_rng(0)
    for i in range(3 * _placement.MIGRATE_AFTER):
        m = rng.random(n) < 0.001
        x[np.asarray(m)] = i
        h[m] = i
        x[idx] = i
        h[[3, 7]] = i
        assert int(x[idx][0]) == h[3]
    numpy.testing.assert_array_equal(np.asnumpy(x), h)
    assert x._h is None and placed("to_host") == 0


def test_a_transform_sized_by_its_argument_runs_on_the_gpu(auto):
    # fft_convolution: rfft2(kernel, s=image.shape) of a 17 x 17 NumPy kernel is an image-sized
    # transform; it ran on the host (161 ms against 6 ms on the H200) before moving
    k = numpy.random.default_rng(1).random((17, 17))
    side = int(N ** 0.5) + 2
    r = np.fft.rfft2(k, s=(side, side))
    assert type(r) is np.ndarray and placed("to_device") == 0  # made there: the kernel crossed, counted
    numpy.testing.assert_allclose(np.asnumpy(r), numpy.fft.rfft2(k, s=(side, side)), rtol=1e-12, atol=1e-12)
    assert type(np.fft.rfft2(k)) is numpy.ndarray  # its own size: NumPy's
    assert type(np.fft.fft(numpy.ones(5), n=2 * N)) is np.ndarray
    assert type(np.fft.fft(numpy.ones(5), n=10)) is numpy.ndarray


def test_views_move_with_their_storage(auto):
    """A view taken before the move and one taken after see every write, wherever the data is."""
    x = np.to_device(numpy.arange(50.0), "gpu")
    before = x[10:20]
    for _ in range(3):
        for i in range(50):
            x[i] = i + 1.0
    assert x._h is not None and placed("to_host") == 1  # views do not keep the data on the GPU
    after = x[20:30]
    assert type(after) is np.ndarray and after.base is x and before.base is x
    assert float(before[0]) == 11.0 and float(after[0]) == 21.0
    before[1] = -1.0
    after[1] = -2.0
    assert x[11] == -1.0 and x[21] == -2.0
    x *= 2  # GPU use: the storage moves back, with both views
    assert x._h is None and placed("to_device") == 1
    assert float(before[1]) == -2.0 and float(after[1]) == -4.0
    before[2] = 7.0
    assert float(x[12]) == 7.0


def test_raw_device_handles_keep_the_data_on_the_device(auto):
    y = np.to_device(numpy.arange(50.0), "gpu")
    raw = y.__cupy_get_ndarray__()  # a raw CuPy handle held elsewhere
    for _ in range(3):
        for i in range(50):
            y[i]
    assert y._h is None and raw is y._a and placed("to_host") == 0


def test_no_move_with_xpshim_device_gpu(auto):
    with np.device("gpu"):
        x = np.zeros(20)
        for _ in range(5):
            for i in range(20):
                x[i] = x[i] + 1
    assert x._h is None and placed("to_host") == 0
    numpy.testing.assert_array_equal(np.asnumpy(x), numpy.full(20, 5.0))


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")
@pytest.mark.parametrize("name", LOOPS)
@pytest.mark.parametrize("limit", [None, 64], ids=["default-crossover", "crossover-64"])
def test_loop_workloads_in_auto_mode_match_numpy(auto, crossover, name, limit):
    if limit is not None:
        crossover(limit)  # arrays of 64+ elements start on the GPU: the loops then move them
    mod = workloads.load(name)
    want = workloads.to_host(mod.run(numpy, mod.SIZES["quick"]))
    got = workloads.to_host(mod.run(np, mod.SIZES["quick"]))
    why = workloads.mismatch(mod, got, want)
    assert why is None, why


@pytest.mark.parametrize("name", ["gauss_seidel", "edit_distance", "scalar_recurrence"])
def test_element_loops_run_on_the_host_in_auto_mode(auto, crossover, name):
    crossover(64)
    mod = workloads.load(name)
    mod.run(np, mod.SIZES["quick"])
    assert placed("to_host") >= 1  # their GPU arrays moved to the host once, not per element
    assert transfers() + placed("to_host") + placed("to_device") < 20


# ---------------------------------------------------------------- XPSHIM_DEVICE=gpu unchanged

def test_forced_gpu_keeps_everything_on_the_gpu(forced_gpu):
    assert np.get_device(np.zeros(3)) == "gpu"
    assert np.get_device(np.asarray([1.0])) == "gpu"
    r = np.outer(numpy.ones(200), numpy.ones(200))  # NumPy arrays in, NumPy out, as before
    assert type(r) is numpy.ndarray
    x = np.zeros(10)
    for _ in range(5):
        for i in range(10):
            x[i] = x[i] + 1
    assert x._h is None
    assert np.stats()["placement"] == {d: {"count": 0, "bytes": 0, "sites": {}} for d in ("to_device", "to_host", "at_loop_lines")}


def py(code, **env):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests", "support")]), **env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)


@pytest.mark.parametrize("raw,want", [("100", 100), ("3.2e4", 32000), ("32_768", 32768), ("0", 0)])
def test_crossover_from_the_environment(raw, want):
    r = py("from xpshim import _device; print(*_device.crossover(), sep='|')", XPSHIM_CROSSOVER=raw)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"{want}|XPSHIM_CROSSOVER={raw}"


@pytest.mark.parametrize("raw", ["abc", "-5", "1.5", "inf"])
def test_bad_crossover_names_the_fix(raw):
    r = py("import xpshim", XPSHIM_CROSSOVER=raw)
    assert r.returncode != 0
    assert "ConfigError" in r.stderr and f"XPSHIM_CROSSOVER={raw!r}" in r.stderr
    assert "calibrate" in r.stderr and "unset XPSHIM_CROSSOVER" in r.stderr


def test_default_crossover_and_info():
    n, source = _device.crossover()
    assert (n, source.startswith("the default")) == (2**15, True) or "calibrated" in source
    r = subprocess.run([sys.executable, "-m", "xpshim", "info"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT, XPSHIM_CROSSOVER="5000"))
    assert "placement     crossover 5000 elements, from XPSHIM_CROSSOVER=5000" in r.stdout


def test_calibrated_value_is_read(tmp_path):
    code = ("import json, os\nfrom xpshim import _config, _device, _backend\n"
            "_backend._status = _backend.GpuStatus(True, '1 CUDA device(s), device 0 is Test GPU', 1)\n"
            "p = _config.calibration_path(); os.makedirs(os.path.dirname(p))\n"
            "json.dump({'crossover': 12345, 'gpu': 'Test GPU', 'date': '2026-01-01'}, open(p, 'w'))\n"
            "print(*_device.crossover(), sep='|')\n")
    # (XPSHIM_DEVICE=cpu: on a machine with a GPU, importing xpshim would take the crossover
    # into use for the real GPU before the test names its own)
    r = py(code, XDG_CACHE_HOME=str(tmp_path), XPSHIM_DEVICE="cpu")
    assert r.returncode == 0, r.stderr
    n, source = r.stdout.strip().split("|")
    assert n == "12345" and "calibrated 2026-01-01 on Test GPU" in source


def test_calibrate_refuses_without_a_gpu():
    if _backend.gpu_status().usable:
        pytest.skip("a GPU is usable here")
    r = subprocess.run([sys.executable, "-m", "xpshim", "calibrate"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 1 and "needs a usable GPU" in r.stdout


def test_calibration_arithmetic(auto):
    from xpshim import _calibrate

    rows = [(100, 1e-6, 10e-6), (1000, 5e-6, 10e-6), (10000, 20e-6, 10e-6)]
    c = _calibrate.crossing(rows)
    assert 1000 < c < 10000
    assert _calibrate.crossing([(100, 2e-6, 1e-6)]) == 100
    assert _calibrate.crossing([(100, 1e-6, 2e-6)]) == 100  # never crosses: the largest size
    table = _calibrate.measure(lambda h: np.to_device(h, "gpu"), lambda: None, sizes=(256, 1024), budget=0.001)
    assert set(table) == set(_calibrate.CASES) and all(len(r) == 2 for r in table.values())
    assert "crossover" in _calibrate.report(table, _calibrate.crossover(table))


@pytest.mark.parametrize("name", ["cholesky_by_hand", "lu_by_hand"])
def test_a_loop_over_small_parts_moves_to_the_host(auto, name):
    """Factorisations by hand: rows and columns of a GPU matrix read and written in a loop go
    to the host (counted moves), and the result is NumPy's."""
    w = workloads.load(name)
    n = 200  # 40000 elements: above the crossover, so the matrix starts on the GPU
    want = w.run(numpy, n)
    got = w.run(np, n)
    assert placed("to_host") >= 1
    for g, t in zip(got if type(got) is tuple else (got,), want if type(want) is tuple else (want,)):
        numpy.testing.assert_allclose(np.asnumpy(g), t, rtol=1e-10, atol=1e-12)


def test_large_parts_keep_an_array_on_the_gpu(auto):
    """Slices at or above the crossover are GPU work: a stencil loop over them stays."""
    u = np.to_device(numpy.linspace(0, 1, 3 * _placement.limit), "gpu")
    for _ in range(3 * _placement.MIGRATE_AFTER):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    assert u._h is None and placed("to_host") == 0


def test_moving_back_needs_no_warning_with_views_alive(auto):
    x = np.to_device(numpy.arange(64.0), "gpu")
    for i in range(64):
        x[i] = x[i] + 1
    assert x._h is not None
    row = x[:8]  # a view of the same storage, not of a copy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x + 1
    row[0] = 100.0
    assert x._h is None and float(x[0]) == 100.0


def test_part_size_is_numpys():
    a = numpy.zeros((5, 6, 7))
    keys = [0, (0,), slice(1, 3), (slice(None), 2), (Ellipsis, 1), (1, Ellipsis), (None, 1, slice(0, 4)),
            (slice(None, None, 2), Ellipsis, slice(1, 5)), (0, 0, 0), Ellipsis, (Ellipsis,), (0, Ellipsis, 0),
            (slice(-2, None), 1, Ellipsis), (slice(3, 1),)]
    for k in keys:
        assert _placement.part_size(a.shape, k, 1.0) == a[k].size, k


def test_filling_a_large_array_in_a_loop_keeps_it_on_the_gpu(auto):
    """`buf[:] = 0` writes the whole array: a large part, not a loop's small access."""
    buf = np.to_device(numpy.ones(2 * _placement.limit), "gpu")
    for _ in range(4 * _placement.MIGRATE_AFTER):
        buf[:] = 0.0
        buf[::2] = 1.0
    assert buf._h is None and placed("to_host") == 0


def _outer_cholesky(np, M):
    """Cholesky in place, column by column (its lower triangle is the factor)."""
    A = np.array(M)
    for k in range(A.shape[0]):
        A[k, k] = np.sqrt(A[k, k])
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k + 1:, k])
    return A


def _spd(n, seed):
    B = numpy.random.default_rng(seed).random((n, n))
    return B @ B.T + n * numpy.eye(n)


@pytest.mark.parametrize("name", ["cholesky_by_hand", "lu_by_hand"])
def test_a_loops_lines_make_host_arrays_when_called_again(auto, name):
    """The line that made an array a loop moved to the host is remembered: called again, the
    function makes those arrays on the host (NumPy arrays, counted by line), and its result is
    NumPy's each time."""
    w = workloads.load(name)
    n = 200
    want = w.run(numpy, n)
    got, ats, h2d = [], [], []
    for i in range(3):  # (one calling line: the line that calls is part of what is remembered)
        np.reset_stats()
        got.append(w.run(np, n))
        ats.append(np.stats()["placement"]["at_loop_lines"])
        h2d.append(np.stats()["transfers"]["host_to_device"]["count"])
        if i == 0:
            assert placed("to_host") >= 1 and ats[0]["count"] == 0
            assert _placement.lines and all(v is True for v in _placement.lines.values())
    first, second = got[0], got[2]
    at = ats[1]
    assert at["count"] >= 1 and all(f"{name}.py:" in site for site in at["sites"])
    # the input, made in _data.py for the loop's data only, is remembered from the second call
    # on: the third copies nothing to the GPU
    assert any("_data.py:" in site for site in ats[2]["sites"]) and h2d[2] == 0 < h2d[0]
    for got in (first, second):
        for g, t in zip(got if type(got) is tuple else (got,), want if type(want) is tuple else (want,)):
            numpy.testing.assert_allclose(np.asnumpy(g), t, rtol=1e-10, atol=1e-12)
    g = second[0] if type(second) is tuple else second
    assert type(g) is numpy.ndarray  # made on the host from its line on: NumPy's own array


def test_a_remembered_line_is_forgotten_when_its_array_goes_to_the_gpu(auto):
    M = np.to_device(_spd(200, 3), "gpu")
    want = numpy.linalg.cholesky(np.asnumpy(M))
    for i in range(4):
        A = _outer_cholesky(np, M)
        if i == 0:  # the loop moves A (made at np.array's line) to the host
            assert A._h is not None and list(_placement.lines.values()) == [True]
        elif i == 1:
            assert type(A) is numpy.ndarray  # made at the remembered line: a NumPy array, from the start
            numpy.testing.assert_allclose(numpy.tril(A), want, rtol=1e-10, atol=1e-12)
            s = M + A  # GPU work with A: its line is forgotten for good
            assert np.get_device(s) == "gpu" and list(_placement.lines.values()) == [False]
        else:
            assert type(A) is np.ndarray and A._h is not None  # on the GPU, moved again by the loop
            numpy.testing.assert_allclose(numpy.tril(np.asnumpy(A)), want, rtol=1e-10, atol=1e-12)
            assert list(_placement.lines.values()) == [False]  # (not learnt again)


def _layers(np, x, sizes):
    """Layers made at one line, each filled row by row from the last: a loop's arrays, all of them."""
    for m in sizes:
        y = np.empty((m, x.shape[1]))
        for i in range(m):
            y[i] = x[i % x.shape[0]] * 0.5 + i
        x = y
    return x


@pytest.mark.parametrize("sends", [1, 3])
def test_a_line_whose_arrays_mostly_serve_loops_stays_remembered(auto, sends):
    """A line making a loop's arrays, whose last array then goes to GPU work (a CNN's layers, the
    last one read by a dense layer): remembered, run after run, while the bytes it sends stay
    under half of what it makes; sent three times a run, it is forgotten (docs/placement.md)."""
    x0 = numpy.random.default_rng(8).random((200, 200))
    w = np.to_device(numpy.random.default_rng(9).random((200, 200)), "gpu")
    want = _layers(numpy, x0, (200, 200, 200))
    kinds = []
    for _ in range(4):
        h = _layers(np, np.asarray(x0), (200, 200, 200))
        kinds.append(type(h))
        numpy.testing.assert_allclose(np.asnumpy(h), want, rtol=1e-12)
        for _ in range(sends):
            s = w @ h  # GPU work with the last layer
            assert np.get_device(s) == "gpu"
    remembered = [v for (code, *_), v in _placement.lines.items() if code.code is _layers.__code__]
    # (the first layer's loop teaches the line within the first run: its next layers are NumPy's)
    if sends == 1:
        assert kinds == [numpy.ndarray] * 4 and remembered == [True]
    else:
        assert kinds == [numpy.ndarray] + [np.ndarray] * 3 and remembered == [False]


def test_a_line_is_remembered_with_the_line_that_called_it(auto):
    """A helper that makes arrays for a loop in one place and for other work in another is two
    lines: what the loop taught is used where the loop's caller calls it, not elsewhere."""
    M = np.to_device(_spd(200, 5), "gpu")
    for i in range(2):
        A = _outer_cholesky(np, M)
        assert (type(A) is numpy.ndarray) == (i == 1)
    B = _outer_cholesky(np, M)  # called from another line: learnt anew
    assert type(B) is np.ndarray and B._h is not None
    numpy.testing.assert_allclose(numpy.tril(np.asnumpy(B)), numpy.tril(A), rtol=1e-12, atol=1e-12)


def test_inputs_of_a_loops_data_are_remembered_with_it(auto):
    """M = B @ B.T made at a remembered line from a GPU array B: B's line is remembered as well,
    so that the next call makes B on the host and nothing crosses to the GPU and back."""
    data = numpy.random.default_rng(6).random((200, 200))

    def factor(np):
        B = np.asarray(data)
        M = B @ B.T + 200 * np.eye(200)
        return _outer_cholesky(np, M)

    want = numpy.linalg.cholesky(data @ data.T + 200 * numpy.eye(200))
    h2d = []
    for i in range(4):  # one step up per call: A's line, then M's, then B's
        np.reset_stats()
        L = factor(np)
        h2d.append(np.stats()["transfers"]["host_to_device"]["count"])
        numpy.testing.assert_allclose(numpy.tril(np.asnumpy(L)), want, rtol=1e-10, atol=1e-12)
    assert h2d[0] >= 1 and h2d[3] == 0
    assert type(L) is numpy.ndarray and sum(_placement.lines.values()) >= 3  # A's, M's and B's lines


def test_remembered_lines_do_not_apply_on_the_forced_gpu(auto):
    M = np.to_device(_spd(200, 4), "gpu")
    _outer_cholesky(np, M)
    assert any(_placement.lines.values())
    with np.device("gpu"):
        A = _outer_cholesky(np, M)
        assert type(A) is np.ndarray and A._h is None
    assert np.stats()["placement"]["at_loop_lines"]["count"] == 0
    _placement.forget_lines()
    assert not _placement.lines and type(_outer_cholesky(np, M)) is np.ndarray


def test_forced_gpu_runs_do_not_undo_a_remembered_line(auto):
    """The same host data given to the loop in auto mode and to a forced-GPU run of it: the GPU
    run goes to the GPU (as on XPSHIM_DEVICE=gpu) and auto mode keeps what it learnt."""
    data = _spd(200, 7)
    want = numpy.linalg.cholesky(data)

    def factor(np):
        return _outer_cholesky(np, np.asarray(data))

    for i in range(3):
        L = factor(np)
        with np.device("gpu"):
            G = factor(np)
        assert type(G) is np.ndarray and G._h is None
        numpy.testing.assert_allclose(numpy.tril(np.asnumpy(G)), want, rtol=1e-10, atol=1e-12)
    assert type(L) is numpy.ndarray and all(_placement.lines.values()) and len(_placement.lines) >= 2
    numpy.testing.assert_allclose(numpy.tril(L), want, rtol=1e-10, atol=1e-12)


def test_host_data_in_a_buffer_of_its_own_keeps_a_loops_results_on_the_host(auto, monkeypatch):
    """On the GPU, data moved to the host lands in pinned memory: a view of a byte array over
    that memory. Results made from views of it (LU's np.outer of a row and a column) must still
    be known as a loop's and stay on the host (the H200 showed LU by hand at 0.35x NumPy when
    they were not: every outer product went to the GPU and back)."""
    from xpshim import _transfer

    real = _transfer.place_on_host

    def pinned_like(dev, reason):
        h = real(dev, reason)
        buf = numpy.frombuffer(bytearray(h.nbytes), numpy.uint8)  # (as _pinned.to_host makes it)
        out = buf.view(h.dtype).reshape(h.shape)
        out[...] = h
        return out

    monkeypatch.setattr(_transfer, "place_on_host", pinned_like)
    w = workloads.load("lu_by_hand")
    want = w.run(numpy, 200)
    for _ in range(2):  # the first call moves A; the second makes it on the host at its line
        np.reset_stats()
        got = w.run(np, 200)
        assert placed("to_device") == 0
        for g, t in zip(got, want):
            numpy.testing.assert_allclose(np.asnumpy(g), t, rtol=1e-10, atol=1e-12)
    assert np.stats()["placement"]["at_loop_lines"]["count"] == 1


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["cholesky_by_hand", "lu_by_hand"])
def test_loop_lines_on_the_real_gpu(real_gpu, name):
    """Auto mode on real CuPy: the factorisations by hand give NumPy's results on both calls; the
    second makes its matrix on the host at the remembered line and moves nothing to the GPU."""
    w = workloads.load(name)
    n = 300
    want = w.run(numpy, n)
    with np.device("auto"):
        for call in range(2):
            np.reset_stats()
            got = w.run(np, n)
            for g, t in zip(got if type(got) is tuple else (got,), want if type(want) is tuple else (want,)):
                numpy.testing.assert_allclose(np.asnumpy(g), t, rtol=1e-10, atol=1e-12)
            assert placed("to_device") == 0
    assert np.stats()["placement"]["at_loop_lines"]["count"] >= 1
