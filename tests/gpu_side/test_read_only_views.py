"""The views NumPy makes read-only are read-only on the GPU too: ``x.diagonal()``,
``np.diagonal(x)``, ``np.broadcast_to(x, shape)``, ``sliding_window_view``, ``as_strided(...,
writeable=False)``, ``np.frombuffer`` of bytes, an array or view the program made read-only (``setflags(write=False)``,
``flags.writeable = False``), and the views of them.

Generated: every maker, then every view-making step on its result (none, indexing, ``T``,
``transpose``, ``reshape``, ``view``, ``swapaxes``, ``np.transpose``, ...), then every kind of write
(item assignment, in-place operators, ``out=`` of a ufunc, a reduction and a method, ``fill``,
``sort``, ``partition``, ``put``, ``np.copyto``, ``np.put``, ``np.putmask``, ``np.place``,
``x.flat``, ``np.add.at``) and ``setflags(write=True)``, each on fresh data beside NumPy's same
program: the flag is NumPy's, a write NumPy refuses raises NumPy's error (class and message) and
changes nothing, and a write NumPy takes lands as NumPy's does. CuPy's views are all writeable:
on a real GPU, without the rule, every refused write would land.
"""

import numpy
import pytest

import xpshim

MAKERS = {
    "x.diagonal()": lambda m, a: a.diagonal(),
    "np.diagonal(x, 1)": lambda m, a: m.diagonal(a, 1),
    "np.broadcast_to(row, shape)": lambda m, a: m.broadcast_to(a[0], (3, 4)),
    "sliding_window_view(x, 2, axis=0)": lambda m, a: m.lib.stride_tricks.sliding_window_view(a, 2, axis=0),
    "as_strided(x, writeable=False)": lambda m, a: m.lib.stride_tricks.as_strided(a, (2, 4), a.strides, writeable=False),
    # (a reader's: NumPy's array over read-only memory)
    "np.frombuffer(bytes)": lambda m, a: m.frombuffer(a.tobytes()).reshape(a.shape),
    # (the program's own: the array itself, or a view of it, made read-only by its flag)
    "x.setflags(write=False)": lambda m, a: (a.setflags(write=False), a)[1],
    "x[1:].flags.writeable = False": lambda m, a: (lambda v: (setattr(v.flags, "writeable", False), v)[1])(a[1:]),
}
VIEWS = {
    "itself": lambda m, v: v,
    "v[1:]": lambda m, v: v[1:],
    "v[...]": lambda m, v: v[...],
    "v.T": lambda m, v: v.T,
    "v.transpose()": lambda m, v: v.transpose(),
    "v.reshape(-1)": lambda m, v: v.reshape(-1),
    "v.view()": lambda m, v: v.view(),
    "np.transpose(v)": lambda m, v: m.transpose(v),
    "v.copy()": lambda m, v: v.copy(),
    "v + 0": lambda m, v: v + 0,
}
WRITES = {
    "v[0] = 7": lambda m, v: v.__setitem__(0, 7.0),
    "v[...] = 7": lambda m, v: v.__setitem__(Ellipsis, 7.0),
    "v += 1": lambda m, v: v.__iadd__(1.0),
    "np.add(v, 1, out=v)": lambda m, v: m.add(v, 1.0, out=v),
    "np.sum(w, out=v)": lambda m, v: m.sum(m.ones((2,) + v.shape), axis=0, out=v),
    "v.clip(0, 1, out=v)": lambda m, v: v.clip(0, 1, out=v),
    "w.cumsum(-1, None, v)": lambda m, v: (v + 1).cumsum(-1, None, v),
    "v.fill(7)": lambda m, v: v.fill(7.0),
    "v.sort()": lambda m, v: v.sort(),
    "v.partition(0)": lambda m, v: v.partition(0),
    "v.put([0], [7])": lambda m, v: v.put([0], [7.0]),
    "np.copyto(v, 7)": lambda m, v: m.copyto(v, 7.0),
    "np.put(v, [0], [7])": lambda m, v: m.put(v, [0], [7.0]),
    "np.putmask(v, v > 0, 7)": lambda m, v: m.putmask(v, v > 0, 7.0),
    "v.flat[0] = 7": lambda m, v: v.flat.__setitem__(0, 7.0),
    "np.add.at(v, [0], 1)": lambda m, v: m.add.at(v, [0], 1.0),
    "v.byteswap(True)": lambda m, v: v.byteswap(True),
    "v.setflags(write=True)": lambda m, v: v.setflags(write=True),
    "rng.shuffle(v)": lambda m, v: m.random.default_rng(5).shuffle(v),
    "rng.permuted(w, out=v)": lambda m, v: m.random.default_rng(5).permuted(v + 0, out=v),
}
# (writes of a random permutation: NumPy's stream and the GPU's differ, so what lands is compared
# as a multiset)
PERMUTING = {"rng.shuffle(v)", "rng.permuted(w, out=v)"}


def _run(m, maker, view, write):
    a = m.asarray(numpy.arange(12.0).reshape(3, 4) + 1.0)
    v = VIEWS[view](m, MAKERS[maker](m, a))
    flag = bool(v.flags.writeable)
    try:
        WRITES[write](m, v)
        err = None
    except Exception as e:  # (NumPy's error is the reference: its class and message)
        err = (type(e).__name__, str(e))
    return flag, err, numpy.asarray(xpshim.asnumpy(a)) if m is xpshim else a, bool(v.flags.writeable)


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("maker", list(MAKERS))
def test_a_view_numpy_makes_read_only_is_read_only(gpu, maker, view, write):
    want = _run(numpy, maker, view, write)
    got = _run(xpshim, maker, view, write)
    assert got[0] == want[0], "flags.writeable before the write"
    assert got[1] == want[1], "the write's error"
    if write in PERMUTING:
        got, want = [(*r[:2], numpy.sort(r[2], axis=None), *r[3:]) for r in (got, want)]
    numpy.testing.assert_array_equal(got[2], want[2])  # (what landed in the array underneath)
    assert got[3] == want[3], "flags.writeable after it"
