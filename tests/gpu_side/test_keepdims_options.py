"""``keepdims`` read as NumPy reads it, as a class: booleans, NumPy's booleans, integers, None and
other objects, with and without an axis. NumPy answers (its shape) or raises; xpshim on the GPU
side gives the same outcome.

Generated from the namespace: every routed function whose NumPy signature has ``keepdims``, a call
NumPy answers with the default, then the same call at each value below, alone and with axis=0.
"""

import numpy

from arguments import differences, routed_calls, takes

KEEPDIMS = [True, False, numpy.True_, numpy.False_, 1, 0, 2, None, "yes", 1.5, [True]]


def test_keepdims_values_answer_as_numpy(gpu):
    differ, n = differences(routed_calls(takes("keepdims")), [("keepdims", v) for v in KEEPDIMS], ({}, {"axis": 0}))
    assert n > 300, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
