"""Why a test of NumPy's own files fails under xpshim and not under NumPy: one table.

Each rule is (test id pattern, message pattern, reason); the first rule whose two patterns
both match (``re.search``) gives the reason. A failure no rule matches is unexplained, and
``numpy_suite.py`` reports it by name. Reasons say why the result cannot match, or what
NumPy's test checks that is not a result (a warning, a class, a message's wording).
"""

import re

_ANY = r""

RULES = [
    (r"TestFFTThreadSafe", r"queue\.Empty|_queue\.Empty",
     "FFTs run from many threads at once: CuPy's cuFFT calls fail in the worker threads (CUFFT_EXEC_FAILED), "
     "which then put no result (README, known differences)"),
    (r"test_intersect1d_array_like|test_gh_28354_array_like", r"object __array__ method not producing an array",
     "the test's __array__ returns np.arange(3) (np.array(...)), which under xpshim is a GPU array: NumPy's "
     "__array__ protocol takes NumPy arrays only"),
    (r"TestInterp::test_non_finite_any_nan\[complex", r"^AssertionError",
     "NaN among interp's sample points xp (then not increasing, where NumPy documents its results as nonsense): "
     "CuPy's search puts NaN last (README; the test's real case runs on the host, its arrays being NumPy's)"),
    (r"TestPiecewise::test_(0d|simple|multidimensional_extrafunc)$", _ANY,
     "the test calls NumPy's own piecewise (imported from numpy) with conditions xpshim computed: NumPy's code "
     "reads a 0-d GPU comparison as an array where its own is a scalar, and a list of GPU arrays as one condition "
     "(isinstance(c, numpy.ndarray) is false for them); xpshim's np.piecewise answers these as NumPy's"),
    (r"TestApplyAlongAxis::test_axis_insertion$", r"Cannot change data-type for array of references",
     "the test calls NumPy's own apply_along_axis (imported from numpy), which hands its function host copies; "
     "the function asks x.view(np.ndarray), and np.ndarray is xpshim's class, which NumPy's view reads as a dtype "
     "(README, known differences)"),
    (r"TestNanFunctions_NumberTypes::test_nanfunc_(ddof|correction)\[nan(var|std)-1d-e\]", r"Arrays are not almost equal",
     "float16 variance with a fractional ddof: xpshim's nanvar works in float32 and rounds once, as NumPy's var "
     "does; the test's reference is xpshim's var, which is CuPy's and rounds otherwise (1 ulp)"),
    (_ANY, r"DeadlineExceeded.*FlakyFailure",
     "a Hypothesis deadline of NumPy's test (200 ms) that one example passed only on its replay: its first run "
     "took seconds while CuPy compiled the kernels it needs (the kernel cache of a fresh machine is empty); a "
     "timing, not a result (Hypothesis reports it flaky)"),
    # what the GPU or CUDA cannot do
    (_ANY, r"FloatingPointError not raised|did not raise fpe error",
     "np.errstate(...='raise') has nothing to read on the GPU: its kernels set no floating-point exception flags"),
    # what NumPy's test checks that is not a result
    (_ANY, r"consistent_subclass|assert <class '(xpshim|numpy)\.ndarray'> is <class|type\(.*\) is (np\.)?ndarray",
     "the test asks for NumPy's own class (`type(r) is numpy.ndarray`, or its subclass): a GPU result is "
     "xpshim's array; or it asks that NumPy's own function (imported from numpy) answers `np.ndarray`, which "
     "is xpshim's class, for a list (README, known differences)"),
    (_ANY, r"Regex pattern did not match",
     "NumPy's exception class, with CuPy's or xpshim's wording of the message"),
    (r"test_nanfunctions", r"All-NaN (slice|axis) encountered|Mean of empty slice|Degrees of freedom|"
                           r"DID NOT WARN|No warning raised|did not warn|UserWarning|RuntimeWarning",
     "NumPy warns for all-NaN slices; on the GPU the check would cost a reduction and a sync per call "
     "(README, known differences)"),
    (_ANY, r"Arrays are not (almost )?equal[\s\S]*Max absolute difference among violations: [0-9.]+e-1[5-9]",
     "last-bit differences (the GPU library's order of operations) in a test that compares exactly"),
    # CuPy's functions take less than NumPy's, or answer otherwise (not yet covered by xpshim)
    (r"TestClip", r"output must be an array",
     "NumPy's own method (a NumPy array's choose(..., out=gpu_array), in the test's reference clip) given a GPU "
     "array as out=: NumPy's C methods take NumPy arrays only there, and a method is not dispatched to xpshim "
     "(docs/differences.md)"),
    (r"TestClip::test_out_of_bound_pyints", r"Python int too large to convert to C long",
     "CuPy converts clip's bounds to C integers; NumPy 2 takes Python ints beyond the dtype's range"),
    (r"TestCross::test_zero_dimension", r"At least one array has zero dimension",
     "NumPy's exception class, with CuPy's wording of the message"),
    (_ANY, r"unsupported iterator index",
     "CuPy's flat iterator takes integers and slices only (no fancy, boolean or empty-string index)"),
    (_ANY, r"Unsupported dtype object",
     "object arrays have no GPU form: a test that assigns objects into a GPU array"),
    (r"test_pocketfft", r"DID NOT WARN",
     "NumPy warns (DeprecationWarning) for s= without axes=; CuPy's transforms do not"),
    (r"TestNanFunctions_Median::test_float_special", r"inf location mismatch",
     "CuPy's median of the two middle values 1.8e308 and inf is 1.8e308, NumPy's is inf"),
    (_ANY, r'AssertionError: "[^"]*" does not match "',
     "NumPy's exception class, with CuPy's or xpshim's wording of the message"),
    (r"TestNanFunctions_NumberTypes::test_nanfunc\[nan(var|std)-1d-[fF]\]", r"Arrays are not almost equal",
     "float32 nanvar and var are different CuPy kernels: they differ by about 1e-7 relative, past the "
     "test's 7 decimals at values near 1e3 (NumPy's nanvar calls its var)"),
    (r"TestIndexing::test_too_many_advanced_indices", r"DID NOT RAISE IndexError|maximum supported dimension",
     "CuPy's arrays have at most 64 dimensions and it counts advanced indices otherwise than NumPy (which "
     "raises IndexError past 64 of them)"),
    (r"test_fft_with_order\[fftn-F-", r"Not equal to tolerance|^AssertionError",
     "cuFFT plans a C- and an F-ordered copy of the same data differently: their results differ past the "
     "test's tolerance (5e-15 for float64, 3e-6 for float32)"),
    (r"TestFFT1D::test_rfftn", r"assert \(20, 21\) == \(10, 21\)",
     "rfftn with a repeated axis (axes=(0, 0, 1), s=(10, 20, 40); NumPy's gh-27159): NumPy transforms "
     "from the last entry back, so axis 0 ends with length 10; CuPy's ends with 20"),
    (r"TestRavelUnravelIndex", r"(ValueError|TypeError) not raised",
     "CuPy's ravel_multi_index/unravel_index check less than NumPy's (float or empty index arrays, a 0-d "
     "shape): they compute where NumPy raises"),
    (r"test_as_strided_checked", r"Given shape and strides would access memory out of bounds",
     "the test calls NumPy's own as_strided (imported from numpy.lib._stride_tricks_impl, not through np), "
     "which reads a GPU array as a host copy whose buffer holds only the view's elements; xpshim's "
     "as_strided(check_bounds=True) checks against the GPU array the view belongs to"),
    (r"test_stride_tricks.*::test_writeable$", r"DID NOT WARN",
     "broadcast_arrays' broadcast views: NumPy warns when one is written or its flag read (its "
     "warn-on-write state, gh-20835); xpshim's GPU views carry no such state"),
    (r"TestNonzero::test_nonzero_byteorder|TestIndexing::test_unaligned|TestFancyIndexingEquivalence|"
     r"TestNonIntegerArrayLike", r"Unsupported dtype",
     "big-endian, bytes and string arrays have no GPU form (README, known differences)"),
    (r"TestNonzero::test_count_nonzero_non_aligned_array|TestIndexing::test_unaligned", r"the GPU cannot read unaligned",
     "an unaligned view is refused on the GPU (its first kernel would fault the process; README)"),
    (r"TestCApiAccess", _ANY, "NumPy's C-API test helpers take NumPy arrays only"),
    (r"TestBroadcast::test_broadcast_(in_args|single_arg|error_kwargs)", r"^AssertionError",
     "np.broadcast is NumPy's class: over GPU arrays its iterators read host copies, so the test's "
     "`mit.iters[0].base is a` is false (docs/differences.md)"),
    (r"TestBincount::test_dtype_reference_leaks|TestIndexing::test_small_regressions|TestMultiIndexingAutomated::test_multidim|"
     r"test__replace_nan", r"^AssertionError|^assert",
     "the test counts references (sys.getrefcount) or asks NumPy's private _replace_nan for its input back: "
     "xpshim's wrappers hold references of their own"),
    (r"TestUnique::test_unique_(1d|zero_sized)|TestNonzero::test_return_type|TestRequire::test_ensure_array|"
     r"test_stride_tricks.py::test_subclasses|TestSubclasses::test_basic", r"is <class|^AssertionError",
     "the test asks for NumPy's own class (`type(r) is numpy.ndarray`, or its subclass): a GPU result is "
     "xpshim's array (README, known differences)"),
    (r"TestIndexing::test_(scalar_return_type|empty_tuple_index)|TestImag::test_cmplx|TestReal::test_cmplx|"
     r"TestIsclose::test_non_finite_scalar",
     r"^AssertionError",
     "NumPy answers a NumPy scalar (or a Python number) for an element or a reduction of an array; on the GPU "
     "device a GPU array's answer is a 0-d GPU array (README, known differences)"),
    (r"TestNanFunctions_MeanVarStd::test_ddof_too_big|TestNanFunctions_Percentile::test_empty|TestIsclose::test_tol_warnings",
     r"^AssertionError|^assert 0 == 1",
     "NumPy warns here (degrees of freedom <= 0, an all-NaN slice, a tolerance of the wrong shape); on the GPU "
     "the check would cost a reduction and a sync per call (README, known differences)"),
    (r"TestFloatExceptions::test_warnings", r"^AssertionError",
     "np.errstate(all='warn') has nothing to read on the GPU: its kernels set no floating-point exception flags"),
    (r"TestIndexing::test_memory_order",
     r"^AssertionError|^assert False",
     "memory order of results: CuPy's fancy indexing answers C-ordered arrays where NumPy keeps "
     "an F-ordered input's order (the values are NumPy's)"),
    (r"TestIndexing::test_(broaderrors_indexing|index_no_floats|slicing_no_floats|single_int_index|"
     r"too_many_fancy_indices_special_case)|TestBooleanIndexing::test_(bool_as_int_argument_errors|boolean_indexing_weirdness)|"
     r"TestMultiIndexingAutomated::test_1d|TestBroadcastedAssignments::test_broadcast_error_reports_correct_shape", _ANY,
     "CuPy's indexing checks malformed indices otherwise than NumPy: another exception class (ValueError for "
     "fancy indices that do not broadcast, OverflowError past ssize_t), none for float indices and slices or "
     "booleans as integers, another message for a failed broadcast"),
    (r"TestIndexing::test_reverse_strides_and_subspace_bufferinit", r"^AssertionError",
     "assignment through repeated fancy indices: NumPy's last write in its iteration order wins; on the GPU "
     "the writes race and which one lands is not defined"),
    (r"TestPercentile::test_fraction|TestQuantile::test_fraction|TestQuantile::test_quantile_gh_29003_Fraction",
     r"Fraction", "q given as fractions.Fraction: NumPy computes with Python objects (an object answer), which have "
     "no GPU form"),
    (r"TestGradient::test_second_order_accurate|TestHistogramOptimBinNums::test_scott_vs_stone|TestPolynomial::test_polyfit",
     r"^AssertionError",
     "the test's tolerance holds for NumPy's random draws (default_rng(0), RandomState(seed), np.random.seed); "
     "random numbers on the GPU come from CuPy's generators (README, known differences)"),
    (r"TestHistogramOptimBinNums::test_simple_range", r"stone estimator",
     "the stone rule takes the least of 100 costs from histograms of linspace data, many of whose points lie on "
     "bin edges; CuPy can put a value on an edge in the neighbouring bin (README), which moves the least (72 "
     "bins where NumPy finds 80)"),
    (r"test_blas64_geqrf_lwork_smoketest", r"Expected an array for parameter a in lapack_lite",
     "the test calls NumPy's lapack_lite (C) directly, which takes NumPy arrays only"),
    (r"TestKron::test_return_type", r"bytes-like object is required, not '(cupy\.cuda\.memory\.MemoryPointer|types\.SimpleNamespace)'",
     "the test builds a NumPy array on a GPU array's .data, which is CuPy's device pointer (README)"),
    (r"TestUnique::test_unique_subclass|TestIndexing::test_array_like_values|test_writeable_memoryview",
     r"bytes-like object is required, not 'ndarray'",
     "on Python 3.11 a GPU array has no buffer protocol (3.12+ gives a counted host copy): the test's "
     "ndarray(buffer=gpu_array) and memoryview(gpu_array) refuse it"),
    (r"TestUnique::test_unique_sort_order_with_axis", r"Unsupported dtype \[\('f0'",
     "the stand-in only: its unique(axis=) runs NumPy's, which views rows as a structured dtype that the "
     "stand-in (strict as CuPy) refuses to hold"),
    (r"TestExtins::test_place", r"place\(\) argument 1 must be numpy\.ndarray",
     "the test calls NumPy's own place (imported from numpy), which takes NumPy arrays only"),
    (r"TestAsType::test_astype", r"DID NOT RAISE TypeError",
     "np.astype of a list: NumPy refuses what is not an array; xpshim converts array-likes at array "
     "parameters first"),
    (r"TestBincount::test_with_incorrect_minlength", r"invalid literal for int",
     "bincount(minlength='foobar'): NumPy raises TypeError, CuPy converts with int() (ValueError)"),

    (r"TestClip::test_(clip_with_out_array_int32|simple_int64_inout)", r"Type is mismatched\. choices",
     "the test's reference is ndarray.choose with choices of two dtypes, which CuPy's choose refuses"),
    (r"TestDiff::test_n", r"^AssertionError", "the test asks type(r) is numpy.ndarray of diff's results: a GPU "
     "result is xpshim's array (README, known differences)"),
    (r"TestNonarrayArgs::test_(mean|std|var)", r"list index out of range",
     "NumPy warns (RuntimeWarning) for the mean of an empty array; the GPU path returns NaN without the "
     "warning (README, known differences)"),
    (r"TestQuantile::test_quantile_scalar_nan|TestUfunclike::test_scalar|TestIsclose::test_scalar_return|"
     r"TestQuantile::test_correct_quantile_value|TestPercentile::test_scalar_q|TestNanFunctions_Percentile::test_scalar|"
     r"TestInterp::test_zero_dimensional_interpolation_point|TestReal::test_real|TestImag::test_real",
     r"isscalar|xpshim\.ndarray|^AssertionError",
     "NumPy answers a NumPy scalar for a reduction of an array or a 0-d array's input; on the GPU device a "
     "GPU array's answer is a 0-d GPU array (README, known differences)"),
]

_COMPILED = [(re.compile(t), re.compile(m), why) for t, m, why in RULES]


def explain(test_id, message):
    """The listed reason for ``test_id`` failing with ``message``, or None."""
    for t, m, why in _COMPILED:
        if t.search(test_id) and m.search(message or ""):
            return why
    return None
