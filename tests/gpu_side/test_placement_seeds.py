"""Auto mode's seeds (xpshim/_placement.py): a function that gave GPU work a large NumPy array
that NumPy's own operators made from small host arrays has its small arrays made on the GPU the
next time, so the broadcast that makes the large array runs there; loops keep NumPy's arrays.
On the NumPy-backed stand-in: the decisions (where each array is), not the speed."""

import sys
import numpy
import pytest

import xpshim as np
from xpshim import _placement

from test_placement import LOOPS, auto, crossover, workloads  # noqa: F401 (fixtures)

N = 200  # a 200 x 200 grid: 40,000 elements, past the default crossover (32,768)
MASSES = numpy.random.default_rng(3).uniform(0.5, 1.5, N)


def is_gpu(x):
    return type(x) is np.ndarray and np.get_device(x) == "gpu"


def mandelbrot(np, n=N):
    """mandelbrot's grid: two small linspaces broadcast into an n x n complex grid."""
    x = np.linspace(-2.2, 0.8, n)
    y = np.linspace(-1.5, 1.5, n)
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)  # (an xpshim call on the large NumPy array: what teaches auto mode)
    for _ in range(3):
        z = z * z + c
    return x, y, c, z


def nbody_methods(np, data):
    """nbody's accelerations as the workload writes them: operators and methods only."""
    pos = np.asarray(data)
    dx = pos[None, :, :] - pos[:, None, :]
    w = MASSES[None, :] * ((dx ** 2).sum(axis=2) + 1e-2) ** -1.5
    return pos, dx, (dx * w[:, :, None]).sum(axis=1)


def nbody_calls(np, data):
    """The same with one xpshim call (np.sum) on the large differences."""
    pos = np.asarray(data)
    dx = pos[None, :, :] - pos[:, None, :]
    w = MASSES[None, :] * (np.sum(dx ** 2, axis=2) + 1e-2) ** -1.5
    return pos, dx, (dx * w[:, :, None]).sum(axis=1)


def read_only(x):
    """``x`` made read-only, as the workloads' inputs are (np.asarray of it may then be a GPU copy:
    no write through it can be lost)."""
    x.flags.writeable = False
    return x


def to_numpy(r):
    return [np.asnumpy(x) if type(x) is np.ndarray else x for x in r]


def test_a_broadcast_grid_is_made_on_the_gpu_from_the_second_call(auto):
    want = mandelbrot(numpy)
    first = mandelbrot(np)
    assert type(first[0]) is numpy.ndarray and type(first[2]) is numpy.ndarray  # (as before: learnt here)
    assert is_gpu(first[3])
    for _ in range(2):
        got = mandelbrot(np)
        x, y, c, z = got
        assert is_gpu(x) and is_gpu(y), "small arrays of a broadcasting function are made on the GPU"
        assert is_gpu(c) and is_gpu(z), "the broadcast and the work after it run on the GPU"
        for g, w in zip(to_numpy(got), want):
            numpy.testing.assert_array_equal(g, w)
            assert g.dtype == w.dtype


@pytest.fixture
def positions():
    data = numpy.random.default_rng(1).normal(size=(N, 3))
    data.flags.writeable = False  # (as the workloads' inputs)
    return data


def test_pairwise_differences_run_on_the_gpu_once_learnt(auto, positions):
    want = nbody_calls(numpy, positions)
    first = nbody_calls(np, positions)
    assert type(first[1]) is numpy.ndarray  # dx: NumPy's operator on small NumPy arrays
    for _ in range(2):
        got = nbody_calls(np, positions)
        assert all(is_gpu(g) for g in got), "positions made on the GPU: all the work after runs there"
        for g, w in zip(to_numpy(got), want):
            numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def test_operators_alone_teach_nothing(auto, positions):
    """Without the sampler (``_hotwork``, below), the limit of learning: when no xpshim call or GPU
    work ever takes the large array (only NumPy's operators and methods), xpshim never sees it,
    and every run stays NumPy's."""
    for _ in range(3):
        got = nbody_methods(np, positions)
    assert all(type(g) is numpy.ndarray for g in got) and not _placement.wide


def test_a_gather_by_gpu_indices_runs_on_the_gpu_once_learnt(auto):
    """kmeans: centers[labels] of small NumPy centers and GPU labels, added to GPU noise."""
    rng = numpy.random.default_rng(2)
    centers_h = read_only(rng.uniform(0, 20, (8, 3)))
    labels_h = rng.integers(0, 8, 40_000)
    noise_h = rng.normal(size=(40_000, 3))

    def points(np):
        centers = np.asarray(centers_h)
        labels = np.asarray(labels_h)  # 40,000: on the GPU
        return centers, centers[labels] + 0.5 * np.asarray(noise_h)

    want = points(numpy)[1]
    centers, X = points(np)
    assert type(centers) is numpy.ndarray and is_gpu(X)
    d2h = np.stats()["transfers"]["device_to_host"]["count"]
    assert d2h >= 1  # (the labels, copied to the host for NumPy's indexing)
    centers, X = points(np)
    assert is_gpu(centers), "the centers are made on the GPU: the gather is the GPU's"
    assert np.stats()["transfers"]["device_to_host"]["count"] == d2h, "nothing crosses back"
    numpy.testing.assert_array_equal(np.asnumpy(X), want)


MAKERS = {
    "linspace": lambda np: np.linspace(0.0, 1.0, N),
    "arange": lambda np: np.arange(N),
    "arange-float": lambda np: np.arange(0.0, 1.0, 1.0 / N),
    "logspace": lambda np: np.logspace(0, 1, N),
    "asarray": lambda np: np.asarray(read_only(numpy.arange(N) * 0.5)),
    "array-list": lambda np: np.array(list(range(N))),
    "asarray-int32": lambda np: np.asarray(read_only(numpy.arange(N, dtype=numpy.int32))),
    "asarray-converted": lambda np: np.asarray(numpy.arange(N, dtype=numpy.int32), dtype=numpy.float64),
}


NOT_SEEDS = {
    "zeros": lambda np: np.zeros(N), "zeros-dtype": lambda np: np.zeros(N, dtype=numpy.int64),
    "ones": lambda np: np.ones((2, N // 2)), "full": lambda np: np.full(N, 2.0), "eye": lambda np: np.eye(10),
    "random.rand": lambda np: np.random.rand(N), "random.uniform": lambda np: np.random.uniform(0, 1, N),
    "random.normal": lambda np: np.random.normal(size=N),
}


@pytest.mark.parametrize("name", sorted(NOT_SEEDS))
def test_constants_and_random_draws_are_never_seeds(auto, name):
    """Small constants and random draws in a broadcasting function stay NumPy's: the draws keep
    NumPy's stream of numbers."""
    make = NOT_SEEDS[name]

    def f(np):
        np.sqrt(numpy.ones((N, N)))  # (f broadcasts host data)
        return make(np)

    for _ in range(2):
        x = f(np)
    assert type(x) is numpy.ndarray


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_every_creation_from_data_or_ranges_makes_seeds(auto, name):
    make = MAKERS[name]

    def outer(np):
        v = make(np)
        return v, np.abs(v[:, None] * v[None, :])  # (np.abs of the large grid: learnt there)

    want = outer(numpy)
    for _ in range(2):  # (from one line: a line is its caller's line too)
        v, grid = outer(np)
    assert is_gpu(v) and is_gpu(grid)
    numpy.testing.assert_array_equal(np.asnumpy(v), want[0])
    numpy.testing.assert_array_equal(np.asnumpy(grid), want[1])
    assert np.asnumpy(v).dtype == want[0].dtype and np.asnumpy(grid).dtype == want[1].dtype


def test_seeds_used_only_in_small_work_are_made_on_the_host_again(auto):
    """A broadcasting function that also runs a loop of small whole-array operations: its loop's
    array is a seed until SEED_SMALL_USES small results, then a NumPy array again."""
    grid_h = numpy.ones((N, N))

    def f(np):
        np.sqrt(grid_h + 0.0)  # a large NumPy array into an xpshim call
        s = np.linspace(0.0, 1.0, 10)
        for _ in range(_placement.SEED_SMALL_USES):
            t = s * 2.0 + 1.0  # small work on the seed
        return s, t

    want = f(numpy)
    made = [f(np) for _ in range(2)]  # (from one line: a line is its caller's line too)
    assert is_gpu(made[0][0])  # a seed: the function gave GPU work a large NumPy array just before
    s, t = made[1]
    assert type(s) is numpy.ndarray and type(t) is numpy.ndarray, "its line is a loop's: NumPy's arrays"
    numpy.testing.assert_array_equal(t, want[1])


def test_a_seed_that_feeds_large_work_stays_a_seed(auto):
    grid_h = numpy.ones((N, N))

    def f(np):
        np.sqrt(grid_h + 0.0)
        v = np.linspace(0.0, 1.0, N)
        big = v[:, None] + v[None, :]
        for _ in range(2 * _placement.SEED_SMALL_USES):
            v = v * 0.5  # small work too, after the large one
        return big, v

    for _ in range(4):
        big, v = f(np)
    assert is_gpu(big)


def test_an_element_loop_over_a_seed_makes_its_line_numpys(auto):
    def f(np):
        v = np.linspace(0.0, 1.0, N)
        grid = v[:, None] * v[None, :]
        np.sqrt(grid)
        a = np.arange(float(N))
        total = 0.0
        for i in range(50):
            total += a[i]
        return a, total

    made = [f(np) for _ in range(2)]  # (from one line: a line is its caller's line too)
    a, total = made[0]  # a seed (np.sqrt(grid) came first), moved to the host by the loop
    assert type(a) is np.ndarray and a._h is not None and total == sum(range(50))
    a, total = made[1]  # its line remembered: NumPy's array
    assert type(a) is numpy.ndarray and total == sum(range(50))


# Loops whose learning is not yet what these tests ask (benchmarks/workloads/README.md's row-loop
# programs, newer than the rules): each fails today, and must (strict), until the rules cover it
_NOT_YET = {
    ("teach", "mandelbrot_rows", 64): "its masked row updates teach a broadcasting line at a crossover of 64",
    ("teach", "recursive_filter", 64): "its row recursion teaches a broadcasting line at a crossover of 64",
    ("eager", "jacobi_1d", None): "eager seeds copy its arrays 11 times a run after learning",
}


def _cases(test):
    return [pytest.param(name, limit, id=f"{'default-crossover' if limit is None else 'crossover-64'}-{name}",
                         marks=[pytest.mark.xfail(strict=True, reason=_NOT_YET[(test, name, limit)])]
                         if (test, name, limit) in _NOT_YET else [])
            for limit in (None, 64) for name in LOOPS]


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")
@pytest.mark.parametrize("name, limit", _cases("teach"))
def test_loop_workloads_teach_no_broadcast(auto, crossover, name, limit):
    """The loop workloads give no GPU work a large NumPy array of NumPy's making: none of their
    functions makes seeds, and their small arrays stay NumPy's from the first run to the third."""
    if limit is not None:
        crossover(limit)
    mod = workloads.load(name)
    want = workloads.to_host(mod.run(numpy, mod.SIZES["quick"]))
    for _ in range(3):
        got = workloads.to_host(mod.run(np, mod.SIZES["quick"]))
        assert workloads.mismatch(mod, got, want) is None
    assert not _placement.wide and not _placement.seeding


def test_nothing_is_learnt_outside_auto_mode(auto):
    grid_h = numpy.ones((N, N))
    with np.device("gpu"):
        v = np.linspace(0.0, 1.0, N)
        np.sqrt(grid_h + v)
    assert not _placement.wide


def test_forgetting_placement_forgets_broadcasting_functions(auto):
    for _ in range(2):
        x = mandelbrot(np)[0]
    assert is_gpu(x) and _placement.wide
    _placement.forget_lines()
    assert not _placement.wide and not _placement.seeding
    assert type(mandelbrot(np)[0]) is numpy.ndarray


def test_a_loop_of_small_work_on_a_seed_comes_back_to_the_host_in_the_same_call(auto):
    """A broadcasting function that then iterates on a small array: the chain of small results
    stays a seed line's, and after SEED_SMALL_USES of them it is NumPy's, for the rest of the loop."""
    grid_h = numpy.ones((N, N))

    def f(np):
        np.sqrt(grid_h + 0.0)  # a large NumPy array into an xpshim call: f broadcasts host data
        y = np.linspace(0.0, 1.0, 10)
        seen = []
        for _ in range(100):
            y = y * 0.99 + 0.01
            seen.append(type(y))
        return y, seen

    want, _ = f(numpy)
    (y, seen), (y2, seen2) = [f(np) for _ in range(2)]  # (from one line: a line is its caller's too)
    assert seen[0] is np.ndarray  # (small work on a seed: on the GPU, counted)
    assert sum(t is np.ndarray for t in seen) <= _placement.SEED_SMALL_USES
    assert all(t is numpy.ndarray for t in seen[_placement.SEED_SMALL_USES:])
    numpy.testing.assert_array_equal(y, want)
    assert all(t is numpy.ndarray for t in seen2), "the next call: NumPy's from the start"
    numpy.testing.assert_array_equal(y2, want)


def test_small_work_beside_other_gpu_arrays_keeps_a_seed(auto):
    """nbody's vel + 0.5 * dt * acc, acc from the large work: GPU work anyway, not a loop's sign."""
    grid_h = numpy.ones((N, N))
    acc = np.asarray(numpy.ones((N, N))).sum(axis=1)  # (a small GPU result of large work)

    def f(np):
        np.sqrt(grid_h + 0.0)
        vel = np.linspace(0.0, 1.0, N)
        for _ in range(2 * _placement.SEED_SMALL_USES):
            vel = vel + 0.5 * acc
        return vel

    got = [f(np) for _ in range(3)]
    assert all(is_gpu(v) for v in got) and not any(_placement.lines.values())
    numpy.testing.assert_array_equal(np.asnumpy(got[-1]), f(numpy) + 0 * np.asnumpy(acc))


def test_a_long_lived_seed_in_a_loop_of_small_work_settles_on_the_host(auto):
    """power iteration inside a broadcasting function: M, a seed, moves to the host once its line
    proves a loop's, and the rest of the loop is NumPy's there."""
    grid_h = numpy.ones((N, N))
    data = read_only(numpy.random.default_rng(4).uniform(size=(50, 50)))

    def f(np):
        np.sqrt(grid_h + 0.0)
        M = np.asarray(data)
        v = np.ones(50) / np.sqrt(50)
        kinds = []
        for _ in range(3 * _placement.SEED_SMALL_USES):
            w = M @ v
            v = w / np.linalg.norm(w)
            kinds.append(type(w))
        return M, v, kinds

    _, want, _ = f(numpy)
    M, v, kinds = f(np)
    assert kinds[0] is np.ndarray  # (a seed: on the GPU at first)
    assert all(k is numpy.ndarray for k in kinds[_placement.SEED_SMALL_USES:])
    assert type(M) is np.ndarray and M._st.host  # settled: its data on the host, for NumPy's work
    numpy.testing.assert_allclose(v, want, rtol=1e-12, atol=0)
    numpy.testing.assert_array_equal(np.asnumpy(M), data)  # (and still the same data, views and all)


@pytest.fixture
def eager(auto):
    """XPSHIM_SEEDS=eager for one test."""
    saved = _placement.eager
    _placement.eager = True
    _placement.forget_lines()
    yield
    _placement.eager = saved
    _placement.forget_lines()


def test_eager_seeds_place_operator_only_broadcasts_at_once(eager, positions):
    want = nbody_methods(numpy, positions)
    got = nbody_methods(np, positions)
    assert all(is_gpu(g) for g in got), "pos made on the GPU at once: dx and all after it run there"
    for g, w in zip(to_numpy(got), want):
        numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def _copies_per_run(mod, n, want, runs=3):
    moves = []
    for _ in range(runs):
        np.reset_stats()
        got = mod.run(np, n)
        assert workloads.mismatch(mod, workloads.to_host(got), want) is None
        t = np.stats()["transfers"]
        moves.append(t["host_to_device"]["count"] + t["device_to_host"]["count"])
    return moves, got


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")
@pytest.mark.parametrize("name, limit", _cases("eager"))
def test_eager_seeds_leave_loop_workloads_as_learnt_mode_once_learnt(eager, crossover, name, limit):
    """Eager seeds start a loop's small arrays on the GPU; its first runs teach each line, and by
    the third run (from one calling line) the run copies no more than without seeds (nothing, at
    the default crossover), and hands back NumPy's arrays where that does."""
    if limit is not None:
        crossover(limit)
    mod = workloads.load(name)
    n = mod.SIZES["quick"]
    want = workloads.to_host(mod.run(numpy, n))
    _placement.eager = False
    _placement.forget_lines()
    plain, plain_got = _copies_per_run(mod, n, want)
    _placement.eager = True
    _placement.forget_lines()
    moves, got = _copies_per_run(mod, n, want)
    assert moves[2] <= plain[2], (moves, plain)
    if limit is None:
        assert moves[2] == 0 and not any(type(g) is np.ndarray for g in (got if type(got) is tuple else (got,)))


def test_seeds_off_learns_nothing(auto, monkeypatch):
    monkeypatch.setattr(_placement._config, "seeds", "off")
    for _ in range(2):
        x = mandelbrot(np)[0]
    assert type(x) is numpy.ndarray and not _placement.wide


@pytest.mark.parametrize("name", ["asarray", "asanyarray", "ascontiguousarray", "asfortranarray"])
def test_a_writable_numpy_array_given_back_is_never_a_seed(auto, name):
    """np.asarray(v) of a writable NumPy array is v itself, in NumPy: writes through it reach the
    caller's array, so it stays that array in a broadcasting function too. A read-only one (no
    write can be lost), or a copy NumPy makes anyway (np.array), is a seed."""
    grid_h = numpy.ones((N, N))
    make = getattr(np, name)

    def f(np, v):
        np.sqrt(grid_h + 0.0)
        w = getattr(np, name)(v)
        w *= 2.0
        return w

    v = numpy.arange(10.0)
    for _ in range(2):
        w = f(np, v)
    assert w is v and v[1] == 4.0  # (the writes of both calls landed in the caller's array)
    ro = read_only(numpy.arange(10.0))
    np.sqrt(grid_h + 0.0)  # (this test's function now broadcasts host data)
    assert is_gpu(make(ro)) and is_gpu(np.array(v))
    numpy.testing.assert_array_equal(np.asnumpy(make(ro)), ro)


def test_seeds_in_a_forced_gpu_block_stay_on_the_gpu(auto):
    """xpshim.device("gpu") keeps every array on the GPU, seeds' small work included, and what
    is done there teaches auto mode nothing."""
    grid_h = numpy.ones((N, N))

    def f(np):
        np.sqrt(grid_h + 0.0)
        return np.linspace(0.0, 1.0, 10)

    s = f(np)
    assert is_gpu(s)
    with np.device("gpu"):
        for _ in range(2 * _placement.SEED_SMALL_USES):
            s = s * 1.0
        numpy.asarray(s)
    assert is_gpu(s) and not _placement.lines


@pytest.fixture
def sampling():
    """Auto mode's sampler of large host work, running for the test (on a real GPU it starts when
    auto mode chooses the GPU)."""
    from xpshim import _hotwork

    _hotwork.start()
    yield _hotwork
    _hotwork.stop()


def _pair_sums(np, data):
    """nbody's pairwise step written with operators and methods only, at a size whose NumPy
    operations each run for tens of milliseconds (27 million elements)."""
    pos = np.asarray(data)
    dx = pos[None, :, :] - pos[:, None, :]
    r2 = (dx ** 2).sum(axis=2) + 1e-2
    return pos, dx, (dx * (r2 ** -1.5)[:, :, None]).sum(axis=1)


@pytest.fixture
def sampling_later():
    """The sampler, started when the test calls this (stopped after the test)."""
    from xpshim import _hotwork

    _hotwork.stop()  # (a sampler an earlier test left running, and what it saw: not this test's)
    _hotwork.seen.clear()
    yield _hotwork.start
    _hotwork.stop()


def test_large_host_work_that_no_call_sees_is_found_by_time(auto, sampling_later):
    """nbody as written (only NumPy's operators and methods after its small arrays are made):
    the sampler finds one of its operations running for tens of milliseconds straight from the
    user's line, and the function's small arrays are made on the GPU from its next call."""
    pos = numpy.random.default_rng(2).normal(size=(3000, 3))
    pos.flags.writeable = False
    want = _pair_sums(numpy, pos)  # (before the sampler starts: it would learn from this run too)
    sampling_later()
    first = _pair_sums(np, pos)
    assert all(type(g) is numpy.ndarray for g in first)
    for _ in range(8):  # (a host too busy to run the program while the sampler looks: a few calls more)
        if _placement.wide:
            break
        assert all(type(g) is numpy.ndarray for g in _pair_sums(np, pos))
    assert _placement.wide, "no function found running large host work"
    got = _pair_sums(np, pos)
    assert all(is_gpu(g) for g in got), "the next call's small arrays were not made on the GPU"
    for g, w in zip(to_numpy(got), want):
        numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def test_a_loop_of_small_host_work_is_not_found_by_time(auto, sampling):
    """A loop of small NumPy operations runs for as long, but no one instruction runs for long:
    nothing is reported, and its arrays stay NumPy's."""
    import time

    a = np.asarray(numpy.arange(1000.0))
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        b = a * 0.5 + 1.0
        a = np.asarray(b[::-1].copy())
    assert type(a) is numpy.ndarray
    assert not sampling.seen and not _placement.wide


def test_what_the_sampler_reports_is_a_function_and_its_caller(auto):
    from xpshim import _hotwork

    def inner():
        return sys._getframe()

    def outer():
        return inner()

    f = outer()
    _hotwork.note(f)
    assert {k.code for k in _placement.wide} >= {inner.__code__, outer.__code__}
    assert _placement.seek


def test_a_reading_of_the_users_frame_keeps_nothing_alive():
    """The sampler's reading of a user function's frame holds none of its locals: ``del big``
    frees ``big`` at once, as without xpshim, and a ``locals()`` dict the function holds is not
    changed by it (a frame's ``f_locals`` before Python 3.13 would do both). A loop's moving
    counter still changes the reading (3.12 on; 3.11 reads the frame and instruction alone)."""
    import weakref

    from xpshim import _hotwork

    class Big:
        pass

    def user():
        snapshot = locals()
        big = Big()
        gone = weakref.ref(big)
        first = _hotwork.sample(sys._getframe())
        i = 1
        second = _hotwork.sample(sys._getframe())
        del big
        return gone() is None, "big" in snapshot or "i" in snapshot, first[:4], second[:4]

    freed, changed, first, second = user()
    assert freed, "the sampler's reading kept a deleted local alive"
    assert not changed, "the sampler's reading changed the function's locals() dict"
    assert first[:2] == second[:2]  # (one frame and code)
    assert first[3] != second[3], "a new local's value did not change the reading"


def test_a_reading_of_a_frames_locals_is_their_identities():
    """What the sampler compares of a function's locals: each slot's identity (0 where unbound),
    read in place, as ``id()`` gives it."""
    from xpshim import _hotwork

    def user(a, b=None):
        c = [a]
        d = _hotwork._locals_ids(sys._getframe())
        e = 1
        return d, (id(a), id(b), id(c), 0, 0), e

    for arg in (object(), 3.5, "x"):
        got, want, _ = user(arg)
        assert got == want
