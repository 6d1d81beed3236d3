"""The ``axis`` argument read as NumPy reads it, as a class: out of range, negative, repeated in a
tuple, a float, a string, a NumPy integer, None. NumPy raises its AxisError, TypeError or ValueError,
or answers; xpshim on the GPU side gives the same outcome (CuPy's functions check axes each their
own way: some wrap an axis out of range, some read a float).

Generated from the namespace: every routed function whose NumPy signature has ``axis``, a call
NumPy answers with the default, then the same call at each axis value below.
"""

import numpy

from arguments import differences, routed_calls, takes

AXES = [0, 1, -1, -2, 2, -3, 5, (0, 1), (1, 0), (0, 0), (0, -2), (2,), (), 1.0, "0", numpy.int64(1), numpy.bool_(True),
        True, [0, 1], None]


def test_axis_values_answer_as_numpy(gpu):
    differ, n = differences(routed_calls(takes("axis")), [("axis", v) for v in AXES])
    assert n > 500, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
