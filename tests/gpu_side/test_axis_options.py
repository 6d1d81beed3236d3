"""The ``axis`` argument read as NumPy reads it, as a class: out of range, negative, repeated in a
tuple, a float, a string, a NumPy integer, None. NumPy raises its AxisError, TypeError or ValueError,
or answers; xpshim on the GPU side gives the same outcome (CuPy's functions check axes each their
own way: some wrap an axis out of range, some read a float).

Generated from the namespace: every routed function whose NumPy signature has ``axis``, a call
NumPy answers with the default, then the same call at each axis value below.
"""

import numpy

import xpshim
from arguments import outcome, routed_calls

AXES = [0, 1, -1, -2, 2, -3, 5, (0, 1), (1, 0), (0, 0), (0, -2), (2,), (), 1.0, "0", numpy.int64(1), numpy.bool_(True),
        True, [0, 1], None]


def test_axis_values_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, xf, npf, args, _ in routed_calls(lambda params: any(p.name == "axis" for p in params)):
        for ax in AXES:
            want = outcome(npf, [a.copy() for a in args], {"axis": ax})
            got = outcome(xf, [xpshim.asarray(a) for a in args], {"axis": ax})
            n += 1
            if got != want:
                differ.append(f"np.{name}(..., axis={ax!r}): {got} != {want}"[:300])
    assert n > 500, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
