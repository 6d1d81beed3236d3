"""Views, in-place writes and threads keep NumPy's semantics through every placement move.

Every xpshim array on the GPU is a view of one storage (the allocation) that auto mode moves
as a whole (docs/placement.md): these tests run programs beside NumPy, on the NumPy-backed
CuPy stand-in in auto mode (moves happen) and gpu mode (none do), and check every array and
view after every step. ``XPSHIM_ALIASING_EXAMPLES`` raises the number of random programs, and
``XPSHIM_ALIASING_REAL=1`` runs them on real CuPy (200+ examples on a real GPU).
"""

import inspect
import os
import sys
import threading
import warnings

import numpy
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

import xpshim as np
from xpshim import _backend, _device, _placement

import fakecupy

EXAMPLES = int(os.environ.get("XPSHIM_ALIASING_EXAMPLES", "50"))
_REAL = os.environ.get("XPSHIM_ALIASING_REAL") == "1"
CROSSOVER = 32  # small, so that arrays on both sides of it stay small


def _backend_module():
    """The stand-in, or real CuPy with XPSHIM_ALIASING_REAL=1 on a machine with a usable GPU."""
    if os.environ.get("XPSHIM_ALIASING_REAL") == "1":
        if not (_backend.gpu_status().usable and getattr(_backend.xp, "__name__", "") == "cupy"):
            pytest.skip(f"XPSHIM_ALIASING_REAL=1 but no usable CUDA GPU: {_backend.gpu_status().reason}")
        return _backend.xp
    return fakecupy


def _install(mode):
    undo = _backend.install(_backend_module(), "tests (test_aliasing)", placement=(mode == "auto"))
    saved = _device._crossover
    _device._crossover = (CROSSOVER, "set by the test")
    _placement.refresh()
    _placement.forget_lines()

    def restore():
        _device._crossover = saved
        undo()
        _placement.forget_lines()
        _placement.refresh()
    return restore


@pytest.fixture(params=["auto", "gpu"])
def mode(request):
    restore = _install(request.param)
    try:
        yield request.param
    finally:
        restore()


# ---------------------------------------------------------------- the examples

def test_a_view_sees_writes_through_a_move(mode):
    a = np.arange(100_000.0)
    for i in range(10):
        a[i]  # element reads in a loop: in auto mode the data moves to the host
    head = a[:5]
    a *= 2  # large: GPU work
    numpy.testing.assert_array_equal(np.asnumpy(head), [0.0, 2.0, 4.0, 6.0, 8.0])
    head[0] = -1
    assert float(a[0]) == -1.0
    y = a[2:]
    assert y.base is a and a[2:].base is a and head.base is a and a.base is None


def test_moves_happen_in_auto_mode_and_views_follow(mode):
    a = np.arange(100.0)
    before = a[10:20]
    for i in range(20):
        a[i] = a[i] + 1.0
    assert (a._h is not None) == (mode == "auto")
    after = a[::3]
    a += 1  # a GPU operation: the storage moves back with every view
    before[0] = 0.5
    after[1] = 0.25
    ref = numpy.arange(100.0)
    ref[:20] += 1
    ref += 1
    ref[10] = 0.5
    ref[3] = 0.25
    numpy.testing.assert_array_equal(np.asnumpy(a), ref)
    numpy.testing.assert_array_equal(np.asnumpy(before), ref[10:20])
    numpy.testing.assert_array_equal(np.asnumpy(after), ref[::3])


def test_threads_writing_distinct_elements_lose_nothing(mode):
    """8 threads each write 400 distinct elements of one 100,000-element array: every write
    lands, in every run, while auto mode moves the data under them."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # (switch threads often: the moves must be atomic)
    try:
        for run in range(25):
            _placement.forget_lines()
            a = np.zeros(100_000)

            def work(t):
                for i in range(t * 400, (t + 1) * 400):
                    a[i] = 1.0
                    a[i]  # (reads between the writes: the loop counts them too)
            threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            h = np.asnumpy(a)
            assert h.sum() == 3200.0 and h[:3200].all(), f"run {run}: {h.sum()}"
    finally:
        sys.setswitchinterval(interval)


# ---------------------------------------------------------------- methods that write into arguments

def _out_methods(cls):
    """NumPy's methods of ``cls`` that take out= (from their signatures)."""
    names = []
    for n in dir(cls):
        f = getattr(cls, n)
        try:
            if not n.startswith("_") and "out" in inspect.signature(f).parameters:
                names.append(n)
        except (TypeError, ValueError):
            pass
    return names


_OUT_ARGS = {"standard_gamma": ((2.0,), {}), "permuted": ((numpy.arange(8.0).reshape(2, 4),), {"axis": 1})}


@pytest.mark.parametrize("name", _out_methods(numpy.random.Generator))
@pytest.mark.parametrize("where", ["numpy", "gpu"])
def test_generator_out_is_written(mode, name, where):
    rng = np.random.default_rng(5)
    h = numpy.zeros((2, 4))
    out = h if where == "numpy" else np.to_device(h, "gpu")
    a, kw = _OUT_ARGS.get(name, ((), {}))
    r = getattr(rng, name)(*a, out=out, **kw)
    assert r is out
    got = np.asnumpy(out)
    if name == "permuted":
        assert sorted(got.ravel().tolist()) == list(range(8))  # every element, permuted within its row
        assert all(sorted(got[i].tolist()) == list(range(4 * i, 4 * i + 4)) for i in range(2))
    else:
        assert (got != 0).all()


@pytest.mark.parametrize("make", [lambda: np.random.default_rng(3), lambda: np.random.RandomState(3)],
                         ids=["Generator", "RandomState"])
@pytest.mark.parametrize("where", ["numpy", "gpu"])
def test_shuffle_writes_into_its_argument(mode, make, where):
    h = numpy.arange(50.0)
    x = h if where == "numpy" else np.to_device(h.copy(), "gpu")
    make().shuffle(x)
    got = np.asnumpy(x)
    assert sorted(got.tolist()) == list(range(50)) and (got != numpy.arange(50.0)).any()


@pytest.mark.parametrize("make", [lambda: np.random.default_rng(3), lambda: np.random.RandomState(3)],
                         ids=["Generator", "RandomState"])
def test_shuffle_of_a_list_shuffles_the_list(mode, make):
    x = list(range(50))
    if mode == "auto":  # (auto mode's generators are NumPy's: its own shuffle of a list)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            make().shuffle(x)
    else:
        with pytest.warns(np.FallbackWarning, match="in place on the host"):  # (a counted host run)
            make().shuffle(x)
    assert sorted(x) == list(range(50)) and x != list(range(50))


def test_writes_into_numpy_arguments_are_counted(mode):
    # a GPU generator writes into a NumPy out= through a device copy, both ways counted; auto
    # mode's, NumPy's own, writes into it directly, and into a GPU out= through a host copy
    np.reset_stats()
    b = numpy.zeros(5)
    np.random.default_rng(1).random(out=b)
    t = np.stats()["transfers"]
    if mode == "auto":
        assert t["host_to_device"]["count"] == t["device_to_host"]["count"] == 0 and (b != 0).all()
        g = np.to_device(numpy.zeros(5), "gpu")
        np.reset_stats()
        np.random.default_rng(1).random(out=g)
        t = np.stats()["transfers"]
    assert t["host_to_device"]["count"] >= 1 and t["device_to_host"]["count"] >= 1


# ---------------------------------------------------------------- copy=False

@pytest.mark.parametrize("name", ["array", "asarray"])
def test_copy_false_refuses_a_copy_across_devices(mode, name):
    f = getattr(np, name)
    big = numpy.arange(float(2 * CROSSOVER))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        f(big, copy=False)
    small = numpy.arange(4.0)
    if mode == "auto":  # small data stays on the host: no copy, NumPy's answer
        assert f(small, copy=False) is small
    else:
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            f(small, copy=False)
    with pytest.raises(ValueError):  # (a list always needs a copy: NumPy's own error)
        f([1.0, 2.0], copy=False)


# ---------------------------------------------------------------- estimates never consume arguments

ESTIMATED = sorted(set(_placement._ESTIMATES) | set(_placement.GROWS))


@pytest.mark.parametrize("name", ESTIMATED)
def test_no_estimate_reads_a_generator(mode, name):
    for at in range(3):
        args = [2, 3, 4]
        gen = (n for n in (3, 2, 2))
        args[at] = gen
        _placement.estimate(name, tuple(args), {})
        _placement.grows(name, tuple(args), {})
        _placement.estimate(name, (), {"size": gen, "shape": gen, "dimensions": gen})
        assert next(gen) == 3, f"{name} read a generator at position {at}"


def _resolve(mod, name):
    for part in name.split(".")[1:]:
        mod = getattr(mod, part)
    return mod


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001  (NumPy's error is the answer to match)
        return type(e).__name__
    return ("shape", numpy.shape(r))


@pytest.mark.parametrize("name", ESTIMATED)
def test_every_estimated_name_given_a_generator_answers_as_numpy(name):
    """Each name with a placement estimate, called with a generator first in auto mode (where
    estimates run): NumPy's answer (its result's shape, or its error)."""
    restore = _install("auto")
    try:
        _generator_first(name)
    finally:
        restore()


def _generator_first(name):
    want = _outcome(lambda: _resolve(numpy, name)((n for n in (3, 2, 2))))
    got = _outcome(lambda: _resolve(np, name)((n for n in (3, 2, 2))))
    assert got == want


def test_indices_of_a_generator_is_numpys(mode):
    assert np.indices(n for n in (3, 2, 2)).shape == numpy.indices(n for n in (3, 2, 2)).shape == (3, 3, 2, 2)


# ---------------------------------------------------------------- random programs beside NumPy

MOVES = {"auto": 0, "gpu": 0}  # moves to the host seen by the programs (tell whether they test moves)
SHAPES = [(4,), (12,), (40,), (100,), (4, 10), (10, 10), (3, 4), (8, 8)]


class Programs(RuleBasedStateMachine):
    """Random programs run on xpshim (auto or gpu mode, the stand-in) and NumPy side by side:
    after every step, every live array and view equals NumPy's."""

    MODE = "auto"
    pairs = Bundle("pairs")

    def __init__(self):
        super().__init__()
        self.restore = _install(self.MODE)
        np.reset_stats()
        self.live = []
        self.held = []  # (element read, NumPy's) kept in variables

    def teardown(self):
        MOVES[self.MODE] += np.stats()["placement"]["to_host"]["count"]
        self.restore()

    def _keep(self, x, ref):
        self.live.append((x, ref))
        return (x, ref)

    @initialize(target=pairs, shape=st.sampled_from(SHAPES))
    def first(self, shape):
        return self.make(shape)

    @initialize(target=pairs)
    def first_large(self):
        return self.make((100,))

    @rule(target=pairs, shape=st.sampled_from(SHAPES))
    def make(self, shape):
        _placement.forget_lines()  # (so that arrays keep being made on the GPU too)
        n = int(numpy.prod(shape))
        if len(shape) == 1:  # (an array of its own; the 2-d ones are views of one)
            return self._keep(np.arange(float(n)), numpy.arange(float(n)))
        return self._keep(np.arange(float(n)).reshape(shape), numpy.arange(float(n)).reshape(shape))

    @rule(target=pairs, p=pairs)
    def copy(self, p):
        x, ref = p
        return self._keep(x.copy(), ref.copy())

    @rule(target=pairs, shape=st.sampled_from(SHAPES))
    def from_numpy(self, shape):
        h = numpy.linspace(-1, 1, int(numpy.prod(shape))).reshape(shape)
        return self._keep(np.asarray(h.copy()), h.copy())

    @rule(target=pairs, p=pairs, how=st.sampled_from(["slice", "strided", "reversed", "T", "ravel", "reshape",
                                                        "split", "row", "np.ravel", "np.transpose"]))
    def view(self, p, how):
        x, ref = p
        if how == "slice":
            f = lambda a: a[1:]  # noqa: E731
        elif how == "strided":
            f = lambda a: a[::2]  # noqa: E731
        elif how == "reversed":
            f = lambda a: a[::-1]  # noqa: E731
        elif how == "T":
            f = lambda a: a.T  # noqa: E731
        elif how == "ravel":
            f = lambda a: a.ravel()  # noqa: E731
        elif how.startswith("np."):
            f = lambda a: getattr(np if type(a) is not numpy.ndarray else numpy, how[3:])(a)  # noqa: E731
        elif how == "reshape":
            if ref.size % 2:
                return p
            f = lambda a: a.reshape(2, -1)  # noqa: E731
        elif how == "split":
            if ref.shape[0] % 2:
                return p
            f = lambda a: (np if type(a) is not numpy.ndarray else numpy).split(a, 2)[1]  # noqa: E731
        else:
            if ref.ndim < 2 or ref.shape[0] < 2:
                return p
            f = lambda a: a[1]  # noqa: E731
        return self._keep(f(x), f(ref))

    @rule(p=pairs, count=st.sampled_from([3, 10, 25]), write=st.booleans())
    def loop(self, p, count, write):
        """A Python loop over elements (reads, or read-modify-writes): auto mode moves the data."""
        x, ref = p
        if ref.size == 0:
            return
        for k in range(count):
            i = numpy.unravel_index(k % ref.size, ref.shape)
            i = tuple(int(v) for v in i)
            assert float(x[i]) == float(ref[i])
            if write:
                x[i] = x[i] + 1.0
                ref[i] = ref[i] + 1.0

    @rule(target=pairs, p=pairs, how=st.sampled_from(["slice", "strided", "row", "ravel", "np.ravel", "np.transpose"]),
          op=st.sampled_from(["+=", "*="]), write=st.booleans())
    def loop_then_view_then_whole(self, p, how, op, write):
        """The issue's phrase: a loop moves the data, a view is taken, the whole array is used."""
        self.loop(p, 10, write)
        v = self.view(p, how)
        self.inplace(p, op, 1.5)
        return v

    @rule(p=pairs, op=st.sampled_from(["+=", "*=", "-="]), value=st.sampled_from([1.5, -2.0, "numpy", "self"]))
    def inplace(self, p, op, value):
        x, ref = p
        if value == "numpy":
            vx = vr = numpy.linspace(0, 1, ref.size).reshape(ref.shape)
        elif value == "self":
            vx, vr = x.copy(), ref.copy()
        else:
            vx = vr = value
        if op == "+=":
            x += vx
            ref += vr
        elif op == "*=":
            x *= vx
            ref *= vr
        else:
            x -= vx
            ref -= vr

    @rule(p=pairs, q=pairs)
    def out(self, p, q):
        (x, ref), (y, yref) = p, q
        if ref.shape != yref.shape:
            return
        mod = np if type(x) is not numpy.ndarray or type(y) is not numpy.ndarray else numpy
        mod.multiply(y, 0.5, out=x)
        numpy.multiply(yref, 0.5, out=ref)

    @rule(p=pairs, value=st.sampled_from([3.0, "numpy"]))
    def copyto(self, p, value):
        x, ref = p
        v = 3.0 if value == 3.0 else numpy.arange(float(ref.size)).reshape(ref.shape)
        np.copyto(x, v)
        numpy.copyto(ref, v)

    @rule(p=pairs, value=st.floats(-4, 4, allow_nan=False, width=32))
    def fancy(self, p, value):
        x, ref = p
        if ref.ndim == 0 or ref.shape[0] == 0:
            return
        idx = [0, ref.shape[0] - 1]
        x[idx] = value
        ref[idx] = value

    @rule(p=pairs, value=st.floats(-4, 4, allow_nan=False, width=32), numpy_mask=st.booleans())
    def masked(self, p, value, numpy_mask):
        x, ref = p
        cut = float(numpy.median(ref)) if ref.size else 0.0
        mask = ref > cut
        x[mask if numpy_mask else (x > cut)] = value
        ref[mask] = value

    @rule(p=pairs)
    def basic_write(self, p):
        x, ref = p
        x[..., :1] = -7.0
        ref[..., :1] = -7.0

    # -- values: an element read is NumPy's scalar, whatever is written afterwards

    def _element(self, ref, k):
        if ref.size == 0:
            return None
        return tuple(int(v) for v in numpy.unravel_index(k % ref.size, ref.shape))

    @rule(p=pairs, k=st.integers(0, 99), negative=st.booleans())
    def hold(self, p, k, negative):
        """``t = a[i]`` kept in a variable: later writes to ``a`` leave it as it was."""
        x, ref = p
        i = self._element(ref, k)
        if i is None:
            return
        if negative:
            i = tuple(v - n for v, n in zip(i, ref.shape))
        self.held.append((x[i], ref[i]))

    @rule(op=st.sampled_from(["+=", "*=", "-="]), k=st.integers(0, 99))
    def inplace_on_held(self, op, k):
        """``s = a[i]; s += 10``: rebinds ``s``, never writes into ``a`` (nor into a copy of ``s``)."""
        if not self.held:
            return
        j = k % len(self.held)
        v, r = self.held[j]
        other, other_ref = v, r  # (another name for the same value: it keeps the old one, as NumPy's)
        if op == "+=":
            v += 10.0
            r += 10.0
        elif op == "*=":
            v *= 3.0
            r *= 3.0
        else:
            v -= 1.5
            r -= 1.5
        self.held[j] = (v, r)
        self.held.append((other, other_ref))

    @rule(p=pairs, k=st.integers(0, 99), m=st.integers(0, 99))
    def swap(self, p, k, m):
        """``a[i], a[j] = a[j], a[i]`` (bubble sort's step)."""
        x, ref = p
        i, j = self._element(ref, k), self._element(ref, m)
        if i is None:
            return
        x[i], x[j] = x[j], x[i]
        ref[i], ref[j] = ref[j], ref[i]

    @rule(p=pairs, k=st.integers(0, 99))
    def rotate(self, p, k):
        x, ref = p
        i, j, m = (self._element(ref, k + d) for d in (0, 1, 2))
        if i is None:
            return
        x[i], x[j], x[m] = x[j], x[m], x[i]
        ref[i], ref[j], ref[m] = ref[j], ref[m], ref[i]

    @rule(p=pairs)
    def iterate_writing(self, p):
        """A loop that sees its own writes: ``for i, v in enumerate(a[:-1]): a[i + 1] += v``."""
        x, ref = p
        if ref.ndim != 1 or ref.size > 40:
            return
        for i, v in enumerate(x[:-1]):
            x[i + 1] += v
        for i, v in enumerate(ref[:-1]):
            ref[i + 1] += v

    @rule(p=pairs, method=st.sampled_from(["reduce", "accumulate"]), numpy_out=st.booleans())
    def method_out(self, p, method, numpy_out):
        """A ufunc method writing into ``out=``, a NumPy array or the program's array."""
        x, ref = p
        if ref.ndim != 2:
            return
        shape = ref.shape[1:] if method == "reduce" else ref.shape
        o = numpy.full(shape, -7.0) if numpy_out else np.full(shape, -7.0)
        o_ref = numpy.full(shape, -7.0)
        got = getattr(np.add, method)(x, axis=0, out=o)
        getattr(numpy.add, method)(ref, axis=0, out=o_ref)
        assert got is o
        self.live.append((o, o_ref))

    @rule(p=pairs, numpy_out=st.booleans())
    def where_out(self, p, numpy_out):
        x, ref = p
        o = numpy.full(ref.shape, -7.0) if numpy_out else np.full(ref.shape, -7.0)
        o_ref = numpy.full(ref.shape, -7.0)
        mask = numpy.arange(ref.size).reshape(ref.shape) % 3 == 0
        with warnings.catch_warnings():  # (where= runs on the host, visibly: CuPy's ufuncs take none)
            warnings.simplefilter("ignore", np.FallbackWarning)
            got = np.add(x, 1.0, out=o, where=mask)
        numpy.add(ref, 1.0, out=o_ref, where=mask)
        assert got is o
        self.live.append((o, o_ref))

    @invariant()
    def every_value_held_is_as_read(self):
        for v, r in self.held:
            assert float(v) == float(r)

    @invariant()
    def every_array_equals_numpys(self):
        for x, ref in self.live:
            if _REAL:  # (a real GPU's reductions add in another order: last bits, docs/differences.md;
                # a lost or misplaced write differs by far more)
                numpy.testing.assert_allclose(np.asnumpy(x), ref, rtol=1e-12, atol=1e-12)
            else:
                numpy.testing.assert_array_equal(np.asnumpy(x), ref)
            # (a view of an array the program holds has a base, as NumPy's; NumPy's base of a copy
            # that reshape made internally is an array no program holds: not compared)
            held = ref.base is None or any(ref.base is o for _, o in self.live)
            assert not held or (x.base is None) == (ref.base is None) or type(x) is numpy.ndarray, "base differs"


class AutoPrograms(Programs):
    MODE = "auto"


class GpuPrograms(Programs):
    MODE = "gpu"


_SETTINGS = settings(max_examples=EXAMPLES, stateful_step_count=30, deadline=None,
                     suppress_health_check=list(HealthCheck))
TestAutoPrograms = _SETTINGS(AutoPrograms).TestCase
TestGpuPrograms = _SETTINGS(GpuPrograms).TestCase


def test_the_programs_moved_data():
    """The random programs above did move data in auto mode (else they test nothing of moves)."""
    if MOVES["auto"] == 0:  # (run alone: run the programs here)
        run_state_machine_as_test(AutoPrograms, settings=_SETTINGS)
    assert MOVES["auto"] > 0  # (gpu mode moves only for iteration: iterate_writing)
