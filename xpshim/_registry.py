"""Tables only: which NumPy name runs where, and why.

Every public name of the installed NumPy resolves in xpshim (see
``_namespace.resolve``). The default for a callable is *routed*: it runs on
the GPU through the CuPy function of the same name and path when an argument
is a GPU array (or, with no array arguments, when the current device is the
GPU), and on NumPy otherwise. These tables list the exceptions to that rule.
"""

# Sub-namespaces built the same way as the top level: xpshim name -> CuPy path
# (None: CuPy has no such module; its functions fall back on GPU arrays).
ROUTED_MODULES = {
    "linalg": "linalg",
    "fft": "fft",
    "random": "random",
    "lib": "lib",
    "lib.stride_tricks": "lib.stride_tricks",
    "lib.scimath": None,
    "lib.array_utils": None,
    "emath": None,
    "polynomial": "polynomial",
    "polynomial.polynomial": "polynomial.polynomial",
    "polynomial.polyutils": "polynomial.polyutils",
}
# NumPy's submodules whose functions take GPU arrays as host copies (counted): their
# code compares and prints on the host, and some of it (assert_equal) never converts.
HOST_MODULES = ("testing",)
# numpy.testing's functions that take an object that is not a numpy.ndarray for a scalar and
# compare it with == and bool() (a GPU array raises there): code that imported them from
# numpy.testing gets them with GPU arrays copied to the host (counted). The other asserts
# already convert with asanyarray.
NUMPY_TESTING_SCALAR_ASSERTS = ("assert_equal", "assert_almost_equal", "assert_approx_equal")
# NumPy's own submodules, handed out unchanged: they work on GPU arrays by
# converting them (each copy counted), or they never see arrays at all.
NUMPY_MODULES = (
    "exceptions", "dtypes", "typing", "ctypeslib", "f2py", "ma", "char",
    "rec", "strings", "version", "core", "matlib", "lib.format", "lib.mixins",
    "lib.npyio", "lib.recfunctions", "lib.introspect", "polynomial.chebyshev",
    "polynomial.hermite", "polynomial.hermite_e", "polynomial.laguerre", "polynomial.legendre",
)

# Callables that are NumPy's own objects in xpshim: configuration, dtype
# introspection, and functions that only read attributes of their argument
# (NumPy's versions never copy a GPU array, so routing them would only cost).
NUMPY_OWN = frozenset({
    "set_printoptions", "get_printoptions", "printoptions", "seterr", "geterr", "seterrcall",
    "geterrcall", "errstate", "setbufsize", "getbufsize", "get_include", "show_config",
    "show_runtime", "info", "test", "typename", "issubdtype", "isdtype", "promote_types",
    "format_float_positional", "format_float_scientific", "base_repr", "binary_repr",
    "mintypecode", "datetime_data", "busday_count", "busday_offset", "is_busday",
    "datetime_as_string", "add_docstring", "add_newdoc", "add_newdoc_ufunc", "iterable",
    "isscalar", "shape", "ndim", "size", "broadcast_shapes", "asmatrix", "bmat",
    "frompyfunc", "nested_iters", "deprecate", "deprecate_with_doc", "get_state", "set_state",
    # in submodules ("<sub>.<name>"): Python numbers and print settings, no array data
    "lib.array_utils.normalize_axis_index", "lib.array_utils.normalize_axis_tuple",
    "polynomial.set_default_printstyle", "polynomial.polyutils.format_float",
    # Python slicing of whatever sequence it is given (a list stays a list; a GPU array's slice is a
    # GPU view): CuPy's version refuses lists
    "polynomial.polyutils.trimseq",
})

# Parameters that take array-likes: a list or tuple given there becomes a GPU
# array (counted) on the GPU path, since CuPy refuses lists in most functions.
ARRAY_PARAMS = frozenset({
    "a", "b", "x", "y", "x1", "x2", "v", "m", "A", "arr", "ary", "ar", "ar1", "ar2", "array",
    "condition", "condlist", "indices", "values", "weights", "xp", "fp", "p", "q", "c",
    "choices", "vals", "fill_value", "mask", "element", "test_elements", "bins",
    "coef", "pvals", "cov", "mean", "where", "a_min", "a_max", "rtol", "atol",
    "seq_of_zeros", "u", "prototype",
})
# Parameters that take a sequence of array-likes: each element is converted.
SEQUENCE_PARAMS = frozenset({"arrays", "tup", "condlist", "choicelist", "xi", "operands", "args", "arys"})
# NumPy's functions that write into their first argument (nan_to_num with copy=False). Called by code that imported NumPy
# itself on a GPU array, they run as xpshim's (ndarray.__array_function__), so the write lands;
# xpshim's, writing into a NumPy array, run NumPy's (the other arguments copied to the host).
# (name -> (the first parameter's name, None: it always writes; or the position and name of the
# flag whose false value makes it write))
WRITES_INTO = {"put_along_axis": ("arr", None), "put": ("a", None), "place": ("arr", None),
               "putmask": ("a", None), "copyto": ("dst", None), "fill_diagonal": ("a", None),
               "nan_to_num": ("x", (1, "copy")), "shuffle": ("x", None)}
# ... and where one function reads an array parameter as a sequence (histogramdd's bins: a count
# or an array of edges per dimension, each keeping its dtype)
SEQUENCE_PARAMS_OF = {"xpshim.histogramdd": frozenset({"bins"})}

# ufunc methods CuPy lacks for most ufuncs, written as the CuPy reduction that is
# exactly the same operation (ufunc.reduce's default axis is 0).
UFUNC_REDUCE = {
    "add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
    "logical_and": "all", "logical_or": "any", "fmax": "nanmax", "fmin": "nanmin",
}
UFUNC_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}

# ndarray methods that change the array in place: a host fallback writes back.
# NumPy's answer for a 0-d result is its scalar (a value: ufuncs, operators, reductions, element
# reads), except for these functions and methods, whose 0-d answers are 0-d arrays (found by
# calling every routed name on a 0-d array; tests/gpu_side/test_values.py checks it against NumPy)
ZERO_D_ARRAYS = frozenset({
    "array", "asanyarray", "asarray", "ascontiguousarray", "asfortranarray", "block", "copy", "cov",
    "empty_like", "from_dlpack", "full_like", "i0", "imag", "isin", "ones_like", "pad", "permute_dims",
    "real", "real_if_close", "require", "roll", "squeeze", "transpose", "trim_zeros", "where", "zeros_like",
    "linalg.tensorsolve", "fft.fftn", "fft.ifftn", "lib.stride_tricks.as_strided", "zeros", "ones", "empty",
    "full", "reshape", "broadcast_to", "expand_dims", "moveaxis", "swapaxes", "astype", "atleast_1d",
    "unique_all", "unique_inverse",  # (their inverse indices: of the input's shape, 0-d for a 0-d input)
    "cross", "piecewise",  # (the cross product of 2-vectors; piecewise of a 0-d x: NumPy makes a 0-d array)
})
ZERO_D_ARRAY_METHODS = frozenset({"copy", "astype", "reshape", "squeeze", "view", "transpose", "swapaxes", "real",
                                  "imag", "conj", "conjugate", "__copy__", "__deepcopy__", "flatten", "ravel"})
MUTATING_METHODS = frozenset({"sort", "partition", "fill", "put", "resize", "setfield", "byteswap", "setflags"})
# ndarray methods whose arguments are array-likes: name -> position.
METHOD_ARRAY_ARGS = {
    "take": {"indices": 0}, "put": {"indices": 0, "values": 1},
    "searchsorted": {"v": 0, "sorter": 2}, "dot": {"b": 0}, "choose": {"choices": 0},
    "compress": {"condition": 0}, "clip": {"min": 0, "max": 1}, "repeat": {"repeats": 0},
}
# Keyword values that mean "the default", so they need no fallback.
NO_OP_KWARGS = {"where": True}

# NumPy callables that run on the host by design (top-level names, and "<sub>.<name>"), with the reason (the ``gaps`` report
# lists them apart from the gaps that a GPU version could still fill).
HOST_ONLY = {
    "isnat": "datetime dtypes: CuPy has none",
    # in submodules: "<sub>.<name>"
    **{f"random.{n}": "NumPy's global bit generator, a host object" for n in ("get_bit_generator", "set_bit_generator")},
}
# Files, buffers and text: NumPy's function plus the one counted copy the job needs (_hostio.py).
HOST_IO = {
    **{n: "file I/O: NumPy reads or writes it on the host" for n in (
        "loadtxt", "savetxt", "genfromtxt", "save", "savez", "savez_compressed", "load", "fromfile",
        "fromregex")},
    **{n: "reads Python or host memory objects" for n in ("frombuffer", "fromstring", "fromiter")},
    **{n: "text output, made on the host" for n in ("array2string", "array_repr", "array_str")},
}

# The names _handwritten.TABLE holds (tests/unit/test_import.py keeps the two equal): _namespace looks
# here first, so that resolving any other name never loads _handwritten and all it imports.
HANDWRITTEN = frozenset({
    *(("xpshim", n) for n in ("array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "ndarray",
                              "from_dlpack", "lexsort", "nditer", "dot", "mgrid", "ogrid", "r_", "c_")),
    *(("xpshim.random", n) for n in ("seed", "default_rng", "RandomState", "Generator")),
})

# Elementwise functions and methods that are not ufuncs: NumPy lays their new answer out as their
# input is (order='K'); CuPy's ElementwiseKernels and ufuncs answer C order (_ndarray.keep_order)
KEEPS_ORDER = frozenset({"clip", "round", "around", "fix", "nan_to_num", "sinc", "i0", "byteswap", "conj",
                         "conjugate"})
