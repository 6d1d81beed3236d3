"""Shapes read as NumPy reads them, as a class: the functions that make an array of a shape
(``zeros``, ``ones``, ``empty``, ``full``, ``eye``, ``identity``, ``tri``, ...) given an int, a tuple,
a list, a NumPy integer, zero, an empty tuple, a negative size, a float, a string, None, each with
the memory orders NumPy takes. On the GPU device, xpshim gives NumPy's outcome: the shape, dtype,
values (but ``empty``'s) and order of the answer, or its error's class.
"""

import numpy

import xpshim
from arguments import outcome

SHAPES = [3, (2, 3), [2, 3], numpy.int64(3), 0, (), (0, 2), -1, (2, -1), 2.5, "3", None, (2, 3.0), True]
MAKERS = {  # name -> the arguments after the shape
    "zeros": (), "ones": (), "empty": (), "full": (7.5,), "eye": (), "identity": (), "tri": (),
}
ORDERS = [None, "C", "F", "A", "K", "x"]
TAKE_ORDER = {"zeros", "ones", "empty", "full", "eye"}


def test_shapes_answer_as_numpy(gpu):
    differ, n = [], 0
    with xpshim.device("gpu"):
        for name, rest in MAKERS.items():
            nf, xf = getattr(numpy, name), getattr(xpshim, name)
            for shape in SHAPES:
                for order in ORDERS if name in TAKE_ORDER else [None]:
                    kw = {} if order is None else {"order": order}
                    want = outcome(lambda *a, **k: _described(nf(*a, **k)), [shape, *rest], kw)
                    got = outcome(lambda *a, **k: _described(xf(*a, **k)), [shape, *rest], kw)
                    if name == "empty":
                        want, got = _no_values(want), _no_values(got)
                    n += 1
                    if got != want:
                        differ.append(f"np.{name}({shape!r}, {rest}, {kw}): {got} != {want}"[:300])
    assert n > 300, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])


def _described(r):
    """An answer as (its values, whether C- and F-contiguous): the order is part of NumPy's answer."""
    h = numpy.asarray(xpshim.asnumpy(r) if type(r) is xpshim.ndarray else r)
    flags = r.flags if type(r) is xpshim.ndarray else h.flags
    return (h, bool(flags.c_contiguous), bool(flags.f_contiguous))


def _no_values(o):
    if o[0] != "answer":
        return o
    arr = o[1][1][0]  # (tuple -> [array's plain data, c, f])
    return ("answer", (arr[0], arr[1]), o[1][1][1:])
