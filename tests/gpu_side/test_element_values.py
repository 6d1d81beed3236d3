"""An element read is a value that no later write changes, however the write comes: generated over
every way to read an element, every alias the write can go through and every kind of write.

A GPU element read reads its array's memory in place until that memory is about to be written
(copy-on-write: ``xpshim/_ndarray.py``, ``_element``; ``xpshim/_storage.py``, ``READERS``): every
write through xpshim gives the values reading it their own copies first, as do a move of the data
back to the device and a raw CuPy handle given out. Each case holds two element values, uses one
before the write (an operator, a conversion) and both after it, beside NumPy's same program. The
write kinds are the index-bounds test's (item assignment, in-place operators, ``out=`` of ufuncs,
reductions and methods, ``fill``, ``put``, ``np.copyto``, ``np.put``, ``np.putmask``, ``np.place``,
``np.add.at``, ``x.flat``, ``np.nditer``, ``x.real``, ``sort``, ``byteswap``, a raw CuPy handle),
plus data moved to the host, written there unseen and moved back, and a random Generator's
``shuffle`` and ``permuted(out=)``.
"""

import numpy
import pytest

import xpshim
from xpshim import _ndarray, _storage
from test_index_bounds import WRITES as _BOUNDS_WRITES

N = 8
READS = {
    "a[0]": lambda m, a: a[0],
    "a[-1]": lambda m, a: a[-1],
    "a[np.int64(2)]": lambda m, a: a[numpy.int64(2)],
    "a2[1, 3]": lambda m, a: a.reshape(2, 4)[1, 3],
    "a[::-1][0]": lambda m, a: a[::-1][0],
    "a[2:][0]": lambda m, a: a[2:][0],
    "a.flat[3]": lambda m, a: a.flat[3],
    "a2.T.flat[-3]": lambda m, a: a.reshape(2, 4).T.flat[-3],
    "a.flat[np.argmax(a)]": lambda m, a: a.flat[m.argmax(a)],  # (a 0-d integer array: an element)
    "a.flat[np.array(5)]": lambda m, a: a.flat[m.array(5)],
}
ALIASES = {
    "itself": lambda a: a,
    "a[:]": lambda a: a[:],
    "a[::-1]": lambda a: a[::-1],
    "a.reshape(2, 4)": lambda a: a.reshape(2, 4),
}


def _moved_and_written_on_the_host(m, t):
    """The data moved to the host, written there by something xpshim does not see, moved back."""
    if m is numpy:
        t.reshape(-1)[...] = 99
        return
    st = t._st
    _storage.to_host(st, "test")
    _ndarray._hview(t).reshape(-1)[...] = 99  # (NumPy's own loop writing the host bytes)
    _storage.to_device(st, "test")


WRITES = {**_BOUNDS_WRITES, "moved, written on the host, moved back": _moved_and_written_on_the_host,
          "rng.shuffle(t)": lambda m, t: m.random.default_rng(5).shuffle(t),
          "rng.permuted(w, out=t)": lambda m, t: m.random.default_rng(5).permuted(t + 0, out=t)}
PERMUTING = {"rng.shuffle(t)", "rng.permuted(w, out=t)"}  # (NumPy's stream and the GPU's differ: as multisets)


def _run(m, read, alias, write):
    a = m.arange(N)
    v = READS[read](m, a)
    w = a[1]
    before = (int(v * 2), int(v))  # (read in place before the write)
    try:
        WRITES[write](m, ALIASES[alias](a))
        err = None
    except Exception as e:  # (NumPy's error is the reference)
        err = type(e).__name__
    after = (int(v), int(w), int(v + w), int(-v), bool(v > 3), repr(v))
    host = (lambda x: numpy.asarray(xpshim.asnumpy(x))) if m is xpshim else numpy.asarray
    return before, err, after, host(a)


CASES = [(r, al, w) for r in READS for al in ALIASES for w in WRITES]


@pytest.mark.filterwarnings("ignore::xpshim.FallbackWarning")  # (np.nditer runs on the host, by design)
@pytest.mark.parametrize("read, alias, write", CASES)
def test_an_element_read_keeps_its_value_through_any_write(gpu, read, alias, write):
    want = _run(numpy, read, alias, write)
    got = _run(xpshim, read, alias, write)
    assert got[0] == want[0], "read before the write"
    assert got[1] == want[1], "the write's error"
    assert got[2] == want[2], f"the values after the write: {got[2]} != NumPy's {want[2]}"
    if write in PERMUTING:
        numpy.testing.assert_array_equal(numpy.sort(got[3], axis=None), numpy.sort(want[3], axis=None))
    else:
        numpy.testing.assert_array_equal(got[3], want[3])


def test_an_element_read_is_not_copied_until_its_array_is_written(gpu):
    """The read itself copies nothing on the device; the first write into its array copies it, once."""
    copies = []
    real = _ndarray._copy_element
    _ndarray._copy_element = lambda r: (copies.append(1), real(r))[1]
    try:
        a = xpshim.arange(10.0)
        s = a[3]
        t = a[3] * 2 + a[4]  # (operators read in place)
        assert copies == [], "an element read copied at the read"
        a[3] = -1.0
        assert len(copies) == 1, f"{len(copies)} copies at the first write"
        a[3] = -2.0
        assert len(copies) == 1, "a second write copied again"
    finally:
        _ndarray._copy_element = real
    assert (float(s), float(t), float(a[3])) == (3.0, 10.0, -2.0)


def test_a_loop_of_element_reads_keeps_no_growing_list(gpu):
    """A loop that reads many elements and writes nothing keeps only the values still alive."""
    a = xpshim.arange(100.0)
    total = 0.0
    for _ in range(20):
        for i in range(100):
            total += float(a[i])
    e = _storage.READERS.get(id(a._st))
    assert total == 20 * 4950.0
    assert e is None or len(e) <= 257, f"{len(e)} entries kept"


def test_a_value_kept_after_its_array_is_gone_holds_no_memory_of_it(gpu):
    """``vals.append(temporary[3])``: NumPy's scalar keeps no array alive; nor does the value,
    which gets its own copy when its array goes (its view of the array's memory dropped)."""
    vals = []
    for k in range(5):
        t = xpshim.arange(1000.0) + k
        vals.append(t[3])
        del t
    import gc

    gc.collect()
    assert [float(v) for v in vals] == [3.0, 4.0, 5.0, 6.0, 7.0]
    held = [v for v in vals if v._hv is not None or v._d is None or v._d.base is not None]
    assert not held, f"{len(held)} of 5 values still view their array's memory"


def test_a_numba_vectorize_output_copies_the_values_reading_it(gpu):
    """xpshim.numba_vectorize's out= (a CUDA kernel writing the GPU array) is a write as any other."""
    pytest.importorskip("numba")
    f = xpshim.numba_vectorize(["float64(float64)"])(lambda x: x + 100.0)
    a = xpshim.arange(8.0)
    v = a[0]
    f(a, out=a)
    assert (float(v), float(a[0])) == (0.0, 100.0)
