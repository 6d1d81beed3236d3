"""Why a test of NumPy's own files fails under xpshim and not under NumPy: one table.

Each rule is (test id pattern, message pattern, reason); the first rule whose two patterns
both match (``re.search``) gives the reason. A failure no rule matches is unexplained, and
``numpy_suite.py`` reports it by name. Reasons say why the result cannot match, or what
NumPy's test checks that is not a result (a warning, a class, a message's wording).
"""

import re

_ANY = r""

RULES = [
    # what the GPU or CUDA cannot do
    (_ANY, r"cudaErrorInitializationError|CUDA_ERROR_NOT_INITIALIZED",
     "the test forks a child process after CUDA started in the parent; CUDA cannot run in a forked child"),
    (_ANY, r"FloatingPointError not raised|did not raise fpe error",
     "np.errstate(...='raise') has nothing to read on the GPU: its kernels set no floating-point exception flags"),
    # what NumPy's test checks that is not a result
    (_ANY, r"consistent_subclass|assert <class 'xpshim\.ndarray'> is <class|type\(.*\) is (np\.)?ndarray",
     "the test asks for NumPy's own class (`type(r) is numpy.ndarray`, or its subclass): a GPU result is "
     "xpshim's array (README, known differences)"),
    (_ANY, r"Regex pattern did not match",
     "NumPy's exception class, with CuPy's or xpshim's wording of the message"),
    (r"test_nanfunctions", r"All-NaN (slice|axis) encountered|Mean of empty slice|Degrees of freedom|"
                           r"DID NOT WARN|No warning raised|did not warn|UserWarning|RuntimeWarning",
     "NumPy warns for all-NaN slices; on the GPU the check would cost a reduction and a sync per call "
     "(README, known differences)"),
    (_ANY, r"Arrays are not (almost )?equal[\s\S]*Max absolute difference among violations: [0-9.]+e-1[5-9]",
     "last-bit differences (the GPU library's order of operations) in a test that compares exactly"),
]

_COMPILED = [(re.compile(t), re.compile(m), why) for t, m, why in RULES]


def explain(test_id, message):
    """The listed reason for ``test_id`` failing with ``message``, or None."""
    for t, m, why in _COMPILED:
        if t.search(test_id) and m.search(message or ""):
            return why
    return None
