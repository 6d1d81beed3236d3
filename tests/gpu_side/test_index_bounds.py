"""An index array found in bounds once is not checked again until it is written, and every write
makes it checked again: an out-of-bounds index raises NumPy's IndexError whatever wrote it.

CuPy wraps an out-of-bounds integer index around where NumPy raises, so xpshim checks each GPU
index array before use, and remembers the arrays found in bounds (and what is selected from them)
until their storage is written (``xpshim/_ndarray.py``, ``_IN_BOUNDS``). Generated: every maker of
an index array, then every alias of it that a write can go through (itself, its views, the array
it is a view of), then every kind of write (item assignment, in-place operators, ``out=`` of
ufuncs, ``fill``, ``put``, ``np.copyto``, ``np.put``, ``np.putmask``, ``np.place``, ``np.add.at``,
``x.flat``, ``np.nditer``, ``x.real``, ``sort``, a raw CuPy handle), each beside NumPy's same program: the index
array is used (found in bounds), written through the alias, then used again for a read and a
write, and the answers, errors and arrays are NumPy's. The simulated GPU wraps as CuPy does.
"""

import numpy
import pytest

import xpshim
from xpshim import _backend, _ndarray

N = 8  # (the indexed array's length: 99 and -20 are out of its bounds, -3 is not)
MAKERS = {
    "np.arange(8)": lambda m: (m.arange(N), None),
    "np.array(list)": lambda m: (m.array([0, 3, 5, 7]), None),
    "np.nonzero(mask)[0]": lambda m: (m.nonzero(m.arange(N) % 2 == 0)[0], None),
    "idx[mask]": lambda m: (m.arange(N)[m.arange(N) > 2], None),
    "row of a 2-d array": lambda m: (lambda p: (p[1], p))(m.arange(2 * N).reshape(2, N) % N),
}
ALIASES = {
    "itself": lambda m, idx, parent: idx,
    "idx[:2]": lambda m, idx, parent: idx[:2],
    "idx[::-1]": lambda m, idx, parent: idx[::-1],
    "idx.view()": lambda m, idx, parent: idx.view(),
    "its parent": lambda m, idx, parent: parent,
}
WRITES = {
    "t[0] = 99": lambda m, t: t.__setitem__(0, 99),
    "t[...] = -20": lambda m, t: t.__setitem__(Ellipsis, -20),
    "t[0] = -3": lambda m, t: t.__setitem__(0, -3),
    "t += 99": lambda m, t: t.__iadd__(99),
    "t -= 20": lambda m, t: t.__isub__(20),
    "np.add(t, 99, out=t)": lambda m, t: m.add(t, 99, out=t),
    "np.negative(t, out=t)": lambda m, t: m.negative(t, out=t),
    "np.multiply(t, 30, out=t)": lambda m, t: m.multiply(t, 30, out=t),
    "np.cumsum(t, -1, out=t)": lambda m, t: m.cumsum(t, -1, out=t),
    "np.clip(t, 50, 60, out=t)": lambda m, t: m.clip(t, 50, 60, out=t),
    "(t + 50).cumsum(-1, None, t)": lambda m, t: (t + 50).cumsum(-1, None, t),
    "t.fill(99)": lambda m, t: t.fill(99),
    "t.put([0], [99])": lambda m, t: t.put([0], [99]),
    "np.copyto(t, 99)": lambda m, t: m.copyto(t, 99),
    "np.put(t, [0], [99])": lambda m, t: m.put(t, [0], [99]),
    "np.putmask(t, t >= 0, 99)": lambda m, t: m.putmask(t, t >= 0, 99),
    "np.place(t, t >= 0, [99])": lambda m, t: m.place(t, t >= 0, [99]),
    "np.add.at(t, [0], 99)": lambda m, t: m.add.at(t, [0], 99),
    "t.flat[0] = 99": lambda m, t: t.flat.__setitem__(0, 99),
    "t.flat = 99": lambda m, t: setattr(t, "flat", 99),
    "t.real = 99": lambda m, t: setattr(t, "real", 99),
    "np.nditer(t, readwrite)": lambda m, t: _nditer_write(m, t),
    "cupy.asarray(t)[0] = 99": lambda m, t: _raw(m, t).__setitem__(0, 99),
    "t.byteswap(inplace=True)": lambda m, t: t.byteswap(inplace=True),
    "t.sort()": lambda m, t: t.sort(),
    "t[::-1].sort()": lambda m, t: t[::-1].sort(),
}


def _raw(m, t):
    """``t`` itself for NumPy; the GPU array's raw CuPy handle (its memory shared) for xpshim."""
    return t if m is numpy else _backend.xp.asarray(t)


def _nditer_write(m, t):
    with m.nditer(t, op_flags=[["readwrite"]]) as it:
        for x in it:
            x[...] = 99


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # (NumPy's error is the reference: its class and message)
        return (type(e).__name__, str(e))
    return None if r is None else numpy.asarray(xpshim.asnumpy(r))


def _run(m, maker, alias, write):
    a = m.arange(float(N)) * 10
    idx, parent = MAKERS[maker](m)
    first = _outcome(lambda: a[idx])  # (found in bounds: remembered)
    part = idx[idx >= -N]  # (selected from a known array: known too)
    WRITES[write](m, ALIASES[alias](m, idx, parent))
    after = [_outcome(lambda: a[idx]), _outcome(lambda: a.__setitem__(idx, -1.0)), _outcome(lambda: a[part])]
    host = (lambda x: numpy.asarray(xpshim.asnumpy(x))) if m is xpshim else numpy.asarray
    return first, after, host(a), host(idx)


CASES = [(mk, al, w) for mk in MAKERS for al in ALIASES for w in WRITES
         if al != "its parent" or mk == "row of a 2-d array"]


def _same(got, want):
    if isinstance(want, tuple):
        return got == want
    if want is None or got is None:
        return got is want
    return want.shape == got.shape and numpy.array_equal(want, got)


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")  # (np.nditer runs on the host, by design)
@pytest.mark.parametrize("maker, alias, write", CASES)
def test_an_index_array_written_is_checked_again(gpu, maker, alias, write):
    want = _run(numpy, maker, alias, write)
    got = _run(xpshim, maker, alias, write)
    assert _same(got[0], want[0]), "the first use"
    for g, w, what in zip(got[1], want[1], ("a[idx] after the write", "a[idx] = -1 after it", "a[part] after it")):
        assert _same(g, w), f"{what}: {g!r} != NumPy's {w!r}"
    numpy.testing.assert_array_equal(got[2], want[2])
    numpy.testing.assert_array_equal(got[3], want[3])


def test_a_loop_over_active_points_checks_its_list_once(gpu):
    """The pattern the rule is for (z[idx] = f(z[idx]); idx = idx[keep]): one check in the whole loop."""
    calls = []
    real = _ndarray.check_bounds
    _ndarray.check_bounds = lambda *a: (calls.append(1), real(*a))[1]
    try:
        z = xpshim.zeros(1000)
        idx = xpshim.arange(1000)
        for step in range(10):
            z[idx] = z[idx] + idx * 0.001
            idx = idx[z[idx] < 0.5 - step * 0.04]
    finally:
        _ndarray.check_bounds = real
    zn = numpy.zeros(1000)
    ih = numpy.arange(1000)
    for step in range(10):
        zn[ih] = zn[ih] + ih * 0.001
        ih = ih[zn[ih] < 0.5 - step * 0.04]
    numpy.testing.assert_array_equal(xpshim.asnumpy(z), zn)
    assert len(calls) == 1, f"{len(calls)} bounds checks in a loop of 10 steps"
