"""``keepdims`` read as NumPy reads it, as a class: booleans, NumPy's booleans, integers, None and
other objects, with and without an axis. NumPy answers (its shape) or raises; xpshim on the GPU
side gives the same outcome.

Generated from the namespace: every routed function whose NumPy signature has ``keepdims``, a call
NumPy answers with the default, then the same call at each value below, alone and with axis=0.
"""

import numpy

import xpshim
from arguments import outcome, routed_calls

KEEPDIMS = [True, False, numpy.True_, numpy.False_, 1, 0, 2, None, "yes", 1.5, [True]]


def test_keepdims_values_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, xf, npf, args, _ in routed_calls(lambda params: any(p.name == "keepdims" for p in params)):
        for kd in KEEPDIMS:
            for extra in ({}, {"axis": 0}):
                want = outcome(npf, [a.copy() for a in args], {"keepdims": kd, **extra})
                got = outcome(xf, [xpshim.asarray(a) for a in args], {"keepdims": kd, **extra})
                n += 1
                if got != want:
                    differ.append(f"np.{name}(..., keepdims={kd!r}, {extra}): {got} != {want}"[:300])
    assert n > 300, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
