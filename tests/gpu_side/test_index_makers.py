"""``np.mgrid``, ``np.ogrid``, ``np.r_`` and ``np.c_`` (NumPy's objects, indexed to make arrays):
NumPy's values and dtypes, made where new arrays go, as ``np.array`` makes them: on the GPU device
a GPU array (they were NumPy's arrays there, silently on the host), on the CPU device NumPy's, in
auto mode NumPy's below the crossover and a GPU array at it; with a GPU array among the items, a
GPU array. Every maker, with each kind of key NumPy documents for it."""

import numpy
import pytest

import xpshim
from xpshim import _backend, _device, _placement, _simgpu

KEYS = {
    "mgrid": [(slice(0, 3), slice(0, 2)), slice(0, 1, 5j), (slice(-1, 1, 0.5), slice(0, 4))],
    "ogrid": [(slice(0, 3), slice(0, 2)), slice(0, 1, 5j)],
    "r_": [(slice(1, 4), 0, 4), ("0,2", [1, 2], [3, 4]), ("r", [1, 2, 3], [4, 5, 6]), (numpy.arange(3.0), 7)],
    "c_": [(numpy.array([1, 2, 3]), numpy.array([4, 5, 6])), (numpy.array([[1, 2, 3]]), 0, 0, numpy.array([[4, 5, 6]]))],
}
CASES = [(m, i) for m, keys in KEYS.items() for i in range(len(keys))]


def _arrays(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.fixture(params=["gpu", "auto", "auto, crossover 8"])
def mode(request):
    undo = _backend.install(_simgpu.module(), _simgpu.describe(), placement=request.param != "gpu")
    saved = _device._crossover
    if request.param.endswith("8"):
        _device._crossover = (8, "set by the test")
        _placement.refresh()
    try:
        yield request.param
    finally:
        _device._crossover = saved
        _placement.refresh()
        undo()


@pytest.mark.parametrize("maker,i", CASES)
@pytest.mark.parametrize("gpu_item", [False, True], ids=["host items", "a GPU item"])
def test_index_makers_answer_numpys_arrays_where_new_arrays_go(mode, maker, i, gpu_item):
    key = KEYS[maker][i]
    items = key if type(key) is tuple else (key,)
    if gpu_item and not any(isinstance(k, numpy.ndarray) for k in items):
        pytest.skip("no array among this key's items")
    want = getattr(numpy, maker)[key]
    if gpu_item:
        items = tuple(xpshim.asarray(k) if isinstance(k, numpy.ndarray) else k for k in items)
        assert any(type(k) is xpshim.ndarray for k in items) or mode != "gpu"
    got = getattr(xpshim, maker)[items if type(key) is tuple else items[0]]
    assert type(got) is type(want) or not isinstance(want, (tuple, list))
    for g, w in zip(_arrays(got), _arrays(want)):
        h = numpy.asarray(xpshim.asnumpy(g))
        assert h.dtype == w.dtype and h.shape == w.shape and numpy.array_equal(h, w)
        if type(w) is not numpy.ndarray:  # (np.r_["r", ...]: NumPy's matrix, which has no GPU form)
            assert type(g) is type(w)
            continue
        on_gpu = mode == "gpu" or (gpu_item and any(type(k) is xpshim.ndarray for k in items)) or (
            sum(a.size for a in _arrays(want)) >= _placement.limit)
        assert type(g) is (xpshim.ndarray if on_gpu else numpy.ndarray), (mode, type(g))


def test_index_makers_on_the_cpu_device_are_numpys(mode):
    with xpshim.device("cpu"):
        for maker, keys in KEYS.items():
            for key in keys:
                assert all(isinstance(a, numpy.ndarray) for a in _arrays(getattr(xpshim, maker)[key]))
    assert xpshim.mgrid.__getitem__ and repr(xpshim.r_) == repr(numpy.r_)
