"""A part of an array written from another array (``B[i, :] = row``, ``B[1:3] = block``) holds
NumPy's values, whatever the part, the value's layout and dtype.

Generated over the parts a loop writes (rows, columns, blocks, strided and 0-d parts) and the
values' layouts and dtypes; NumPy's array written the same way is the reference.
"""

import numpy
import pytest

import xpshim

KEYS = {
    "row": 2, "row, all": (2, slice(None)), "rows": slice(1, 3), "column": (slice(None), 3),
    "strided row part": (2, slice(1, 7, 2)), "ellipsis column": (Ellipsis, 1), "block": (slice(2, 4), slice(0, 8)),
    "one column block": (slice(None), slice(0, 1)), "element": (3, 4), "empty": (slice(2, 2), slice(None)),
}
# value layouts, each made of the source S (NumPy's or xpshim's, by the module m) for the part's shape
VALUES = {
    "as the part": lambda m, S, key: S[key],
    "contiguous copy": lambda m, S, key: m.ascontiguousarray(S[key]) if S[key].ndim else S[key],  # (ndim >= 1)
    "F-ordered copy": lambda m, S, key: m.asfortranarray(S[key]) if S[key].ndim else S[key],
    "reversed rows": lambda m, S, key: S[::-1][key],
    "broadcast last row": lambda m, S, key: S[-1, :S[key].shape[-1]] if S[key].ndim else S[0, 0],
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16"])
@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("key", sorted(KEYS))
def test_a_part_written_from_another_array_is_numpys(gpu, key, value, dtype):
    k, make = KEYS[key], VALUES[value]
    B = numpy.arange(48, dtype="float64").reshape(6, 8)
    S = (numpy.arange(48).reshape(6, 8) * 7 - 100).astype(dtype)
    hv = make(numpy, S, k)
    xB, xS = xpshim.asarray(B.copy()), xpshim.asarray(S)
    xv = make(xpshim, xS, k)
    assert xv.strides == hv.strides and xv.shape == hv.shape  # (the value's layout on the GPU is the host's)
    want = B.copy()
    want[k] = hv
    xB[k] = xv
    assert xpshim.asnumpy(xB).tolist() == want.tolist()
    assert xpshim.asnumpy(xS).tolist() == S.tolist()  # (the value's array untouched)


def test_a_part_written_from_its_own_array_reads_it_first(gpu):
    """``B[1:] = B[:-1]`` and ``B[2] = B[3]``: the value is read whole before the part is written,
    as NumPy does (the overlapping case goes through a copy first)."""
    B = numpy.arange(40, dtype="float64").reshape(5, 8)
    xB = xpshim.asarray(B.copy())
    for k, src in [(slice(1, None), slice(None, -1)), (2, 3), ((slice(None), slice(1, None)), (slice(None), slice(None, -1)))]:
        B[k] = B[src]
        xB[k] = xB[src]
        assert xpshim.asnumpy(xB).tolist() == B.tolist()


def test_a_row_loop_writing_rows_is_numpys(gpu):
    """A loop that writes each row from the row above (a recurrence): each write is seen by the next read."""
    rng = numpy.random.default_rng(3)
    B = rng.uniform(0, 1, (50, 40))
    xB = xpshim.array(B)
    for i in range(1, 50):
        B[i, :] = B[i - 1, :] * 0.5 + B[i, :]
        xB[i, :] = xB[i - 1, :] * 0.5 + xB[i, :]
    numpy.testing.assert_array_equal(xpshim.asnumpy(xB), B)
