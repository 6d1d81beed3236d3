"""The ``gaps`` report runs without a GPU, and its tables name real NumPy callables."""

import numpy

import xpshim
from xpshim import _coverage, _gaps
from xpshim.__main__ import main
from xpshim._registry import HOST_IO, HOST_ONLY, NUMPY_OWN


def _numpy_callable(name):
    parts = name.split(".")
    obj = numpy.random if parts[0] == "random" else numpy
    for p in parts[1:]:
        obj = getattr(obj, p)  # AttributeError: not a NumPy name
    return obj


def test_report_runs(capsys):
    assert main(["gaps"]) == 0
    text = capsys.readouterr().out
    assert "GPU-native:" in text and "%" in text


def test_every_row_is_classified():
    rows = _coverage.rows()
    assert rows and {w for _, w, _ in rows} <= {"cupy", "gap:cupy", "gap:numba", "host", "host-io"}
    where = {n: w for n, w, _ in rows}
    assert where["xpshim.nanquantile"] == "gap:cupy"
    assert where["xpshim.loadtxt"] == "host-io"
    assert where["xpshim.piecewise"] == "gap:cupy"  # CuPy has one, but takes no callables: replaced
    assert "xpshim.lib.array_utils.normalize_axis_index" not in where  # no array data: NumPy's own


def test_every_table_entry_names_a_numpy_callable():
    for name in _gaps.table():
        if name.startswith("ufunc."):
            assert hasattr(numpy.add, name.split(".", 1)[1]), name
            continue
        assert callable(_numpy_callable(name)), name


def test_host_only_names_numpy_callables():
    for name in [*HOST_ONLY, *HOST_IO, *(n for n in NUMPY_OWN if "." in n)]:
        np_obj, xp_obj = numpy, xpshim
        for part in name.split("."):
            np_obj, xp_obj = getattr(np_obj, part), getattr(xp_obj, part)
        assert callable(np_obj) and callable(xp_obj), name
