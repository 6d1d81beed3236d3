"""``axis=`` and ``dtype=`` of the arrays' methods read as NumPy's, as a class (``x.sum(axis=5)``,
``x.mean(dtype="i1")``, ``x.max(axis=(0, 0))``): the same outcome as NumPy's method, its error's
class or its answer. The functions' side of these is test_axis_options.py and test_dtype_options.py,
whose values this takes.

Generated from NumPy's ndarray: every method that has a NumPy function of its name whose
signature (after the array) has the argument.
"""

import numpy

import xpshim
from arguments import ndarray_methods, outcome, required
from test_axis_options import AXES
from test_dtype_options import DTYPES

_M = numpy.arange(12.0).reshape(3, 4) + 1
SKIP = ("put", "fill", "resize", "setfield", "itemset", "sort", "partition")  # (write into the array)


def _methods_with(arg):
    for name, params in ndarray_methods(SKIP):
        if arg not in {p.name for p in params}:
            continue
        if required(params) or outcome(lambda: getattr(_M.copy(), name)(), [], {})[0] != "answer":
            continue
        yield name


def _compare(arg, values):
    differ, n = [], 0
    for name in _methods_with(arg):
        for v in values:
            want = outcome(lambda **k: getattr(_M.copy(), name)(**k), [], {arg: v})
            got = outcome(lambda **k: getattr(xpshim.asarray(_M), name)(**k), [], {arg: v})
            n += 1
            if got != want:
                differ.append(f"x.{name}({arg}={v!r}): {got} != {want}"[:300])
    return differ, n


def test_methods_read_axis_as_numpy(gpu):
    differ, n = _compare("axis", AXES)
    assert n > 200, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])


def test_methods_read_dtype_as_numpy(gpu):
    differ, n = _compare("dtype", DTYPES)
    assert n > 100, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
