"""One element of a GPU array read into a Python value is counted as a value read, apart from
array copies (``xpshim.stats()["transfers"]["values_read"]``).

The cases are generated: every way Python and NumPy turn an array into a Python scalar, over
each dtype kind, on a 0-d array (what xpshim's reductions return where NumPy returns a scalar)
and on a one-element 1-d array. NumPy, given the same data (the scalar for the 0-d case),
decides each case's answer: a value, or an error. A call NumPy answers must give the same
value and count exactly one value read and no array copy; one NumPy refuses must raise the
same error and copy no array.
"""

import math
import operator
import warnings

import numpy
import pytest

import xpshim
from xpshim import _config

# Every entry point that converts one element to a Python value, with the shapes it applies to
# ("0-d": a 0-d array; "1": a one-element 1-d array; "3": an element of a 3-element array)
CONVERSIONS = {
    "bool": (bool, ("0-d", "1")),
    "if": (lambda x: "yes" if x else "no", ("0-d", "1")),
    "not": (operator.not_, ("0-d", "1")),
    "int": (int, ("0-d", "1")),
    "float": (float, ("0-d", "1")),
    "complex": (complex, ("0-d", "1")),
    "operator.index": (operator.index, ("0-d",)),
    "list index": (lambda x: [10, 20, 30, 40][x], ("0-d",)),
    "range": (lambda x: list(range(x)), ("0-d",)),
    "round": (round, ("0-d",)),
    "math.floor": (math.floor, ("0-d", "1")),
    "math.isfinite": (math.isfinite, ("0-d", "1")),
    "item()": (lambda x: x.item(), ("0-d", "1")),
    "item(-1)": (lambda x: x.item(-1), ("3",)),
    "item(0,)": (lambda x: x.item((0,)), ("1", "3")),
    "tolist() of a 0-d array": (lambda x: x.tolist(), ("0-d",)),
    "in": (lambda x: 3 in x, ("1", "3")),
}
VALUES = {"b": True, "i": 3, "u": 3, "f": 2.5, "c": 1 + 2j}
DTYPES = [numpy.bool_, numpy.int64, numpy.uint8, numpy.float32, numpy.float64, numpy.complex128]


def _host(dtype, shape):
    v = numpy.asarray(VALUES[numpy.dtype(dtype).kind], dtype=dtype)
    return {"0-d": v, "1": v.reshape(1), "3": numpy.stack([v, v, v])}[shape]


def _reference(f, h):
    """NumPy's answer: (value, None) or (None, exception type). The 0-d case runs on NumPy's
    scalar, which NumPy's reductions return where xpshim's return a 0-d GPU array."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a case NumPy warns about, deprecated or lossy, is left out)
        try:
            return f(h[()] if h.ndim == 0 else h), None
        except Warning:
            return None, Warning
        except (TypeError, ValueError) as e:
            return None, type(e)


CASES = [pytest.param(name, dtype, shape, id=f"{name}-{numpy.dtype(dtype).name}-{shape}")
         for name, (_, shapes) in CONVERSIONS.items() for dtype in DTYPES for shape in shapes
         if _reference(CONVERSIONS[name][0], _host(dtype, shape))[1] is not Warning]


def _counts():
    t = xpshim.stats()["transfers"]
    return {d: (t[d]["count"], t[d]["bytes"]) for d in t}


@pytest.mark.parametrize("name, dtype, shape", CASES)
def test_a_value_read_is_counted_as_one_and_copies_no_array(gpu, name, dtype, shape):
    f = CONVERSIONS[name][0]
    h = _host(dtype, shape)
    x = xpshim.asarray(h)
    assert type(x) is xpshim.ndarray
    want, error = _reference(f, h)
    xpshim.reset_stats()
    if error is not None:
        with pytest.raises(error):
            f(x)
        c = _counts()
        assert c["device_to_host"] == (0, 0) and c["host_to_device"] == (0, 0), (name, c)
        return
    got = f(x)
    assert got == want and type(got) is type(want), (name, got, want)
    # (in: the one bool of the comparison's any(); otherwise one element of the array's dtype)
    nbytes = 1 if name == "in" else h.itemsize
    assert _counts() == {"host_to_device": (0, 0), "device_to_host": (0, 0), "values_read": (1, nbytes)}, name
    sites = xpshim.stats()["transfers"]["values_read"]["sites"]
    assert list(sites) and all(s.startswith(__file__) for s in sites), sites  # told at this file's line


def test_every_conversion_has_cases():
    """Each entry point is generated for at least one dtype that NumPy answers."""
    answered = {name for name, (f, shapes) in CONVERSIONS.items() for dtype in DTYPES for shape in shapes
                if _reference(f, _host(dtype, shape))[1] is None}
    assert answered == set(CONVERSIONS)


ARRAY_COPIES = {
    "numpy.asarray": lambda x: numpy.asarray(x),
    "get()": lambda x: x.get(),
    "xpshim.asnumpy": xpshim.asnumpy,
    "tolist() of a 1-d array": lambda x: x.tolist(),
}


@pytest.mark.parametrize("shape", ["1", "3"])
@pytest.mark.parametrize("name", ARRAY_COPIES)
def test_an_array_copy_is_still_an_array_copy(gpu, name, shape):
    h = _host(numpy.float64, shape)
    x = xpshim.asarray(h)
    xpshim.reset_stats()
    got = ARRAY_COPIES[name](x)
    assert numpy.array_equal(numpy.asarray(got), h)
    assert _counts() == {"host_to_device": (0, 0), "device_to_host": (1, h.nbytes), "values_read": (0, 0)}, name


@pytest.mark.parametrize("shape", ["1", "3"])
def test_iteration_moves_the_array_once_at_its_first_step(gpu, shape):
    """A loop over a 1-d GPU array reads NumPy's scalars from the host: its storage moves there at
    the first step (one move, counted with the placement's), and ``iter(x)`` alone moves nothing."""
    h = _host(numpy.float64, shape)
    x = xpshim.asarray(h)
    xpshim.reset_stats()
    it = iter(x)
    assert xpshim.stats()["placement"]["to_host"]["count"] == 0 and _counts()["device_to_host"] == (0, 0)
    got = list(it)
    assert [type(v) for v in got] == [numpy.float64] * len(h) and numpy.array_equal(got, h)
    moved = xpshim.stats()["placement"]["to_host"]
    assert (moved["count"], moved["bytes"]) == (1, h.nbytes)
    assert all(s.startswith(__file__) for s in moved["sites"]), moved["sites"]  # (told at the loop's line)
    assert _counts() == {"host_to_device": (0, 0), "device_to_host": (0, 0), "values_read": (0, 0)}


def test_values_read_warn_under_the_copy_policy(gpu, monkeypatch):
    """XPSHIM_TRANSFERS=warn warns of each value read too, at the user's line, saying it is one."""
    x = xpshim.asarray(numpy.arange(4.0)).sum()
    monkeypatch.setattr(_config, "transfer_policy", "warn")
    with pytest.warns(xpshim.TransferWarning, match=r"read one value \(8 bytes\) from the GPU into Python \(float\(\)\)") as rec:
        assert float(x) == 6.0
    assert rec[0].filename == __file__
    monkeypatch.setattr(_config, "transfer_policy", "count")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x) == 6.0  # (count: no warning)
    assert xpshim.stats()["transfers"]["values_read"]["count"] == 2
