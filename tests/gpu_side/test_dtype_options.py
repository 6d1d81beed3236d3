"""The ``dtype`` argument read as NumPy reads it, as a class: each kind and width, by type, by
string and by dtype object, ones NumPy refuses or reads on the host only (object, strings). NumPy
raises its TypeError, or answers in that dtype; xpshim on the GPU side gives the same outcome (the
same values in the same dtype).

Generated from the namespace: every routed function whose NumPy signature has ``dtype``, a call
NumPy answers with the default, then the same call at each dtype below.
"""

import numpy

from arguments import differences, routed_calls, takes

DTYPES = [numpy.float32, numpy.float16, numpy.int8, numpy.uint16, numpy.int64, numpy.bool_, numpy.complex64, "f4",
          ">f8", "i", "float", float, int, bool, complex, numpy.dtype("u1"), None, "bogus", object, "U5", "M8[s]", 3]


def test_dtypes_answer_as_numpy(gpu):
    differ, n = differences(routed_calls(takes("dtype")), [("dtype", v) for v in DTYPES])
    assert n > 300, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
