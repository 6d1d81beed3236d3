"""NumPy's own stride tricks (``numpy.lib.stride_tricks.as_strided``, ``sliding_window_view``,
``numpy.broadcast_to``, in code that imported NumPy itself) on views of GPU arrays: as_strided
views the memory around a view as NumPy's view of a larger buffer allows, so it reads NumPy's
elements (a host copy of the whole allocation, counted), where a copy of the view's elements
alone let its strides read other memory; the two that dispatch answer xpshim's views. Each view
kind, against NumPy's same program."""

import numpy
import pytest
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import xpshim

VIEWS = {
    "x[0, 1:]": lambda x: x[0, 1:],
    "x[1:, 1:]": lambda x: x[1:, 1:],
    "x[1]": lambda x: x[1],
    "x.ravel()[2:]": lambda x: x.ravel()[2:],
    "x[:, 1]": lambda x: x[:, 1],
    "x.T[1:]": lambda x: x.T[1:],
}
TRICKS = {
    # (strides past the view's own elements, into the rest of x: every window stays in x)
    "as_strided(v, (2,), (16,))": lambda v: as_strided(v, (2,), (16,)),
    "as_strided(v, (2, 2), (12, 4))": lambda v: as_strided(v, (2, 2), (12, 4)),
    "as_strided(v, v.shape, v.strides)": lambda v: as_strided(v, v.shape, v.strides),
    "sliding_window_view(v, 1)": lambda v: sliding_window_view(v, 1, axis=0),
    "numpy.broadcast_to(v, (2,) + v.shape)": lambda v: numpy.broadcast_to(v, (2,) + v.shape),
}


@pytest.mark.parametrize("trick", list(TRICKS))
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("order", ["C", "F"])
def test_numpys_own_stride_tricks_read_numpys_elements(gpu, order, view, trick):
    h = numpy.array(numpy.arange(16, dtype=numpy.int32).reshape(4, 4), order=order)
    want = TRICKS[trick](VIEWS[view](h))
    with xpshim.device("gpu"):
        x = xpshim.asarray(h) if order == "C" else xpshim.asfortranarray(xpshim.asarray(h))
        got = TRICKS[trick](VIEWS[view](x))
    if trick.startswith("as_strided"):  # (no __array_function__: NumPy's array, of a host copy)
        assert type(got) is numpy.ndarray
    # (sliding_window_view and broadcast_to dispatch: xpshim's views of the GPU array)
    numpy.testing.assert_array_equal(xpshim.asnumpy(got) if type(got) is xpshim.ndarray else got, want)
