"""Known differences between xpshim on the GPU and NumPy, each with its reason.

NAMES: routed names whose differential test is expected to fail as a whole (strict xfail:
a fix makes the suite say so). INPUTS: inputs the suite does not generate, and why; the
README's "Known differences" section says the same for users.
"""

# Names whose GPU (cuda) run differs from NumPy. On the stand-in they must pass; on the GPU a
# listed name that now matches NumPy fails the run, so the list cannot go stale.
NAMES = {
    "float_power": "complex powers are exp(b log a) in CuPy; NumPy special-cases integral exponents, so 1j ** (1+0j) has real part 0 in NumPy and 6.1e-17 on the GPU",
    "nextafter": "CuPy's float16 nextafter of an infinity toward a finite value gives nan (NumPy: the largest float16, 65504)",
    "fft.hfft": "an output length cuFFT refuses raises CuFFTError (CUFFT_INVALID_SIZE) where NumPy raises ValueError",
    "fft.irfft": "an output length cuFFT refuses raises CuFFTError (CUFFT_INVALID_SIZE) where NumPy raises ValueError",
}

INPUTS = {
    "integer division by zero": "NumPy returns 0 and warns; CUDA integer division by zero is "
                                "undefined (CuPy returns what the hardware gives). Not generated.",
    "shift by >= the bit width": "undefined in C and CUDA; NumPy defines it as 0. Not generated.",
    "integer power with a negative exponent": "NumPy raises ValueError; CuPy computes. Not generated.",
    "integer overflow in abs/negative/gcd of the most negative value": "C-undefined; not generated.",
    "float32 subnormals": "CuPy compiles its kernels with flush-to-zero (-ftz=true): float32 and complex64 "
                          "subnormal inputs are read as 0.0 (fabs, comparisons, nonzero, log of 1e-45 is -inf) and "
                          "results below 2**-126 come back as 0.0 (so does an intermediate: complex64 division by a "
                          "number with a part below 1e-30). float16 and float64 keep them. Not generated; a "
                          "result NumPy gives as a float32 subnormal may be 0.0 (or the smallest normal) on the GPU.",
    "complex special values": "CuPy's complex kernels are its own formulas, without C99 Annex G's special "
                              "cases: exp2(inf+0j) and log2(0j) have a NaN imaginary part, sign(infj) is nan+nanj, "
                              "0j ** -1 is inf+nanj, "
                              "log1p near the largest double overflows, log(inf+nanj) and tanh(infj) have NaN "
                              "real parts, sin(inf+infj) has the other infinite sign, products through an "
                              "infinite part (prod, cumprod) differ, and < / <= order a NaN part as NumPy does "
                              "not (-1+nanj < 0 is True). Complex inputs to those are finite, below 1e300 and "
                              "nonzero where a zero is special; complex products get no infinite parts.",
    "complex expm1, log1p and logical_not": "CuPy computes complex expm1 as exp(z) - 1 (near 0 its real part "
                                            "keeps only ulps of 1) and complex log1p as log(1 + z) through its "
                                            "own clog (8 ulp off NumPy's real part at 0.25j as complex64; NumPy's "
                                            "own formula, log(hypot(1 + x, y)), run on the GPU was tried and "
                                            "is no closer where the log cancels: CUDA's hypot rounds otherwise "
                                            "than the host's), and has no complex logical_not loop (TypeError "
                                            "'Wrong type'). Their complex signatures are not generated.",
    "complex medians near the largest double": "NumPy's nanmedian of a small array (and median of an even "
                                                "count) adds the two middle values and halves the sum, so a "
                                                "part above half the largest double overflows, and the complex "
                                                "halving of an infinite part gives a NaN real part, even for "
                                                "one middle value (0+9e307j gives nan+infj); the GPU's is the "
                                                "value. Complex medians are compared on parts below 1e300.",
    "integer fmod beyond 2**53": "CuPy's integer fmod goes through float64, so dividends past 2**53 lose their "
                                 "low bits (fmod(2**53 + 1, 2) is 0). Not generated.",
    "sum of complex to an integer dtype": "NumPy drops the imaginary part (ComplexWarning); CuPy's reduction "
                                          "kernel fails to compile (CompileException). Not generated.",
    "out-of-bounds indices": "CuPy does not bounds-check indices and masks on the GPU (checking would need a "
                             "device sync): compress, delete, put, take_along_axis and put_along_axis wrap or "
                             "read past the axis where NumPy raises IndexError. Not generated.",
    "histogram values on a bin edge": "CuPy finds a value's bin with searchsorted on the computed edges, NumPy "
                                      "by arithmetic with a correction: a value that equals an edge up to its "
                                      "rounding (0.0 with 6 bins over (-10, 10)) can fall in the neighbouring bin. "
                                      "Not generated.",
}

# Differences in xpshim itself that the suite found and that are not fixed yet: expected to
# fail on every target (strict), so a fix shows up as an unexpected pass.
XPSHIM_BUGS = {}

# NumPy's own tests (tests/numpy_suite/numpy_suite.py) that pass with NumPy but fail with
# `import xpshim as np` on the CPU, and why. test_numpy_suite.py keeps this list exact.
NUMPY_SUITE_CPU = {
    **{t: "checks `type(x) is np.ndarray`: xpshim.ndarray is the GPU array class, which NumPy arrays "
          "are instances of (isinstance, issubclass and == hold; `is` cannot)"
       for t in ("lib_tests_test_function_base.py::TestDiff::test_n",
                 "_core_tests_test_numeric.py::TestNonzero::test_return_type",
                 "_core_tests_test_numeric.py::TestRequire::test_ensure_array",
                 "lib_tests_test_stride_tricks.py::test_subclasses",
                 "_core_tests_test_indexing.py::TestSubclasses::test_basic",
                 # linalg's consistent_subclass() compares with `is np.ndarray`
                 *(f"linalg_tests_test_linalg.py::{c}" for c in (
                     "TestEig::test_sq_cases", "TestInv::test_sq_cases", "TestLstsq::test_sq_cases",
                     "TestPinv::test_sq_cases", "TestPinvHermitian::test_herm_cases", "TestSVD::test_sq_cases",
                     "TestSVDHermitian::test_herm_cases", "TestSolve::test_sq_cases")))},
    **{t: "calls `x.view(np.ndarray)`: NumPy's view() accepts only NumPy's own ndarray subclasses"
       for t in ("lib_tests_test_shape_base.py::TestApplyAlongAxis::test_0d_array",
                 "lib_tests_test_shape_base.py::TestApplyAlongAxis::test_axis_insertion",
                 "lib_tests_test_shape_base.py::TestApplyAlongAxis::test_scalar_array")},
    **{t: "checks `np.lib._nanfunctions_impl._nan_mask(a) is True` where `a` comes from xpshim's "
          "parametrization; not yet triaged"
       for t in ("lib_tests_test_nanfunctions.py::test__nan_mask[arr0-expected0]",
                 "lib_tests_test_nanfunctions.py::test__nan_mask[arr3-expected3]")},
}
