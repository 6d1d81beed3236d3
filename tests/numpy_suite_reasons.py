"""Why a test of NumPy's own files fails under xpshim and not under NumPy: one table.

Each rule is (test id pattern, message pattern, reason); the first rule whose two patterns
both match (``re.search``) gives the reason. A failure no rule matches is unexplained, and
``numpy_suite.py`` reports it by name. Reasons say why the result cannot match, or what
NumPy's test checks that is not a result (a warning, a class, a message's wording).
"""

import re

_ANY = r""

# Failures of the H200 run that xpshim fixed after it (each checked on the stand-in, made as
# strict as CuPy at that point; not yet re-run on a GPU): the reason says what was done.
_FIXED = "fixed after the H200 run (stand-in only so far): "

RULES = [
    (r"TestPercentile|TestQuantile", r"method is not yet supported|cannot be interpreted as an integer",
     _FIXED + "the quantile methods CuPy lacks, and weights=None, run NumPy's own quantile code on CuPy "
              "(sorting where it partitions at array positions)"),
    (_ANY, r"method is not yet supported",
     _FIXED + "the quantile methods CuPy lacks run NumPy's own quantile code on CuPy"),
    (r"test_array_equal_equal_nan|test_return_class_is_ndarray|TestArrayComparisons",
     r"^AssertionError",
     _FIXED + "array_equal, array_equiv and allclose answer a Python bool, as NumPy's"),
    (r"test_histograms", r"only integer and array bins are implemented|array-like bins not supported",
     _FIXED + "histogram with bins named by a rule ('auto', 'fd', ...) or a list: NumPy's edges, CuPy's counts"),
    (_ANY, r"incorrect type \(expected <?(class ')?cupy\._core\.core\._ndarray_base'?>?, got <?(class ')?[\w.]*"
           r"(MySubclass|MyNDArray|MaskedArray|matrix|MyArray|SubClass|Sub|ArraySubclass)|"
           r"must be a cupy\.ndarray object, not <class '[\w.<>]*(MyArray|MyNDArray|C|SubClass|Sub|matrix)'>",
     _FIXED + "NumPy subclasses (masked arrays, np.matrix, a user's class) run NumPy's call, which keeps their class"),
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
    (r"test_trim_zeros|TestTrimZeros", r"only 0-dimensional arrays can be converted",
     _FIXED + "trim_zeros slices at host integers (CuPy's 0-d arrays are not indices)"),
    (_ANY, r"DESIRED: <class '[\w.<>]*(subclass|Sub|MyArray)'>",
     _FIXED + "NumPy subclasses run NumPy's call, which keeps their class"),
    # CuPy's functions take less than NumPy's, or answer otherwise (not yet covered by xpshim)
    (_ANY, r"must be a cupy\.ndarray object, not <class 'numpy\.(bool|float64|int64|complex128|"
           r"float32|int32)'>|incorrect type \(expected <class 'cupy\._core\.core\._ndarray_base'>, got <class 'numpy\.",
     "not yet covered: a NumPy scalar as the array argument of a call made on the GPU device; CuPy takes "
     "only its own arrays there"),
    (_ANY, r"'out' must be an array|output must be an array",
     "not yet covered: a NumPy array as out= on a path that hands it to CuPy (concatenate with dtype= or "
     "casting=, the clip method, multi_dot)"),
    (_ANY, r"got an unexpected keyword argument 'casting'",
     "not yet covered: CuPy's clip takes no casting= (its signature takes any keyword, so xpshim does not see the gap)"),
    (r"TestInterp", r"'(float|int)' object has no attribute 'flags'",
     "not yet covered: a Python number as interp's x on the GPU device; CuPy's interp takes arrays only"),
    (r"TestBincount", r"object has no attribute 'ndim'",
     "not yet covered: bincount of a list, a number or an array-like object on the GPU device; CuPy's takes arrays only"),
    (r"TestRavelUnravelIndex", r"object has no attribute 'shape'|can_cast\(\) does not support Python ints",
     "not yet covered: ravel_multi_index/unravel_index with Python numbers or lists on the GPU device; CuPy's take arrays"),
    (r"TestKron", r"'tuple' object has no attribute 'shape'",
     "not yet covered: kron of Python sequences on the GPU device; CuPy's takes arrays only"),
    (r"TestClip", r"Wrong type \(\(dtype\('complex128'\), dtype\('int64'\)",
     "CuPy's clip has no loop for a complex array with integer bounds"),
    (r"TestClip::test_out_of_bound_pyints", r"Python int too large to convert to C long",
     "CuPy converts clip's bounds to C integers; NumPy 2 takes Python ints beyond the dtype's range"),
    (r"TestCross::test_zero_dimension", r"At least one array has zero dimension",
     "NumPy's exception class, with CuPy's wording of the message"),
    (r"test_keepdims_out|test_out_nan|TestPercentile::test_out$", r"cannot select an axis to squeeze out|Out shape is mismatched",
     "not yet covered: median/percentile with keepdims=True and out= on the GPU (CuPy's squeezes out= first)"),
    (_ANY, r"unsupported iterator index",
     "CuPy's flat iterator takes integers and slices only (no fancy, boolean or empty-string index)"),
    (_ANY, r"Unsupported dtype object",
     "object arrays have no GPU form: a test that assigns objects into a GPU array"),
    (r"test_pocketfft", r"DID NOT WARN",
     "NumPy warns (DeprecationWarning) for s= without axes=; CuPy's transforms do not"),
    (r"TestNanFunctions_Median::test_float_special", r"inf location mismatch",
     "CuPy's median of the two middle values 1.8e308 and inf is 1.8e308, NumPy's is inf"),
]

_COMPILED = [(re.compile(t), re.compile(m), why) for t, m, why in RULES]


def explain(test_id, message):
    """The listed reason for ``test_id`` failing with ``message``, or None."""
    for t, m, why in _COMPILED:
        if t.search(test_id) and m.search(message or ""):
            return why
    return None
