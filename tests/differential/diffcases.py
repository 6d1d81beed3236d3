"""Tables of the differential suite: what to call, on what inputs, with what tolerance.

Every routed NumPy name with an entry here is exercised by tests/differential/test_differential.py;
tests/differential/diff_coverage.py counts them against the routing table.
"""

import numpy
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from diffcore import COMPLEX, FLOATS, INTS, NUMERIC, Arr, arrays, elements

# ---------------------------------------------------------------- ufuncs

_CODES = set("?bhilqBHILQefdFD")  # no longdouble, object, datetime
UFUNCS = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc)
                and n not in ("isnat", "matvec", "vecmat", "vecdot", "matmul"))

# IEEE operations that CUDA rounds exactly as the host does: compared bit for bit.
EXACT = {
    "add", "subtract", "multiply", "negative", "positive", "absolute", "abs", "fabs", "maximum",
    "minimum", "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "sign", "floor", "ceil", "trunc", "rint",
    "sqrt", "divide", "true_divide", "square", "reciprocal", "copysign", "nextafter", "signbit", "isnan",
    "isinf", "isfinite", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
    "bitwise_invert", "left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift", "conj",
    "conjugate", "heaviside", "ldexp", "frexp", "fmod", "gcd", "lcm", "bitwise_count",
}
ULP_DEFAULT = 4  # transcendental functions: CUDA's libdevice bounds, with room for NumPy's own


def _ushift_bits(code):
    return numpy.dtype(code).itemsize * 8 - 1


def ufunc_limits(name, code, i):
    """Input ranges where NumPy's result is defined by NumPy (not by C undefined behaviour)."""
    dt = numpy.dtype(code)
    if dt.kind in "iu":
        if name in ("left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift") and i == 1:
            return {"lo": 0, "hi": _ushift_bits(code)}
        if name in ("power", "pow") and i == 1:
            return {"lo": 0, "hi": 6}
        if name in ("divide", "true_divide", "floor_divide", "remainder", "mod", "fmod", "divmod") and i == 1:
            return {"lo": 1, "hi": 100}  # integer division by zero: see divergences.INPUTS
        if name == "reciprocal":
            return {"lo": 1, "hi": 100}  # 1 // 0: integer division by zero
        if name == "fmod" and i == 0:
            return {"lo": max(-(2 ** 53), numpy.iinfo(dt).min), "hi": min(2 ** 53, numpy.iinfo(dt).max)}
        if name == "lcm":
            return {"lo": -11, "hi": 11}  # lcm of larger int8 values overflows, differently in C and CUDA
        if name in ("gcd", "absolute", "abs", "negative", "floor_divide", "divmod") and dt.kind == "i":
            return {"lo": -(2 ** 15), "hi": 2 ** 15}
    if name == "ldexp" and i == 1:
        return {"lo": -60, "hi": 60}
    return {}


# ufuncs with no complex loop in CuPy, or whose complex loop is CuPy's own formula
# (divergences.INPUTS): their complex signatures are not generated
NO_COMPLEX = {"logical_not", "expm1", "log1p"}
# complex inputs kept finite (and nonzero where named) for CuPy's complex special-value
# handling (divergences.INPUTS): name -> positions that must be nonzero
COMPLEX_FINITE = {"exp2": (), "sign": (), "less": (), "less_equal": (), "log1p": (), "log2": (0,),
                  "power": (0,), "pow": (0,), "log": (), "log10": (), "sin": (), "tanh": ()}


def ufunc_excluded(name, args):
    """Why NumPy and the GPU are not compared on these inputs (divergences.INPUTS), or None."""
    vals = [numpy.asarray(a.np() if isinstance(a, Arr) else a) for a in args]
    with numpy.errstate(all="ignore"):
        return _excluded(name, vals)


def _excluded(name, vals):
    if name == "spacing" and vals[0].dtype == numpy.float16 and numpy.signbit(vals[0]).any():
        return "NumPy's float16 spacing of a negative value"  # positive and half the gap (float32/64: -ulp)
    if name in ("divide", "true_divide") and any(v.dtype == numpy.complex64 for v in vals):
        parts = [p for v in vals for p in (numpy.real(v), numpy.imag(v))]
        if any(((p != 0) & (numpy.abs(p) < 1e-30)).any() for p in parts):
            return "float32 subnormals"  # (Smith's ratio of a tiny part goes subnormal, then flushed)
    if name in COMPLEX_FINITE and any(v.dtype.kind == "c" for v in vals):
        if not all(numpy.isfinite(v).all() and (numpy.abs(v) < 1e300).all() for v in vals):
            return "complex special values"
        if any(not numpy.all(vals[i]) for i in COMPLEX_FINITE[name]):
            return "complex special values"
    return None


def reduction_excluded(name, a):
    """Why NumPy and the GPU are not compared on this reduction input (divergences.INPUTS), or None."""
    if name in ("median", "nanmedian") and a.dtype.kind == "c":
        parts = numpy.concatenate([a.real.ravel(), a.imag.ravel()])
        with numpy.errstate(all="ignore"):
            if (numpy.isfinite(parts) & (numpy.abs(parts) > 1e300)).any():
                return "complex medians near the largest double"
    return None


@st.composite
def ufunc_inputs(draw, name):
    uf = getattr(numpy, name)
    sigs = [t for t in uf.types if set(t.replace("->", "")) <= _CODES
            and not (name in NO_COMPLEX and set(t) & set("FD"))]
    sig = draw(st.sampled_from(sigs))
    ins = sig.split("->")[0]
    if uf.nin == 1:
        shapes = [draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))]
    else:
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=uf.nin, max_dims=3, max_side=4)).input_shapes
    args = [draw(arrays(numpy.dtype(c), shape=sh, **ufunc_limits(name, c, i))) for i, (c, sh) in enumerate(zip(ins, shapes))]
    if uf.nin == 2 and draw(st.integers(0, 4)) == 0:
        # a Python scalar operand: NEP 50's weak-scalar rules
        c = ins[1]
        kind = numpy.dtype(c).kind
        lim = ufunc_limits(name, c, 1)
        py = {"b": st.booleans(), "i": st.integers(lim.get("lo", -100), lim.get("hi", 100)),
              "u": st.integers(max(lim.get("lo", 0), 0), lim.get("hi", 100)),
              "f": st.floats(-1e3, 1e3), "c": st.complex_numbers(max_magnitude=1e3)}[kind]
        args[1] = draw(py)
    return args


def ufunc_tolerance(name, args=()):
    if name in ("absolute", "abs") and any(numpy.asarray(a.base if isinstance(a, Arr) else a).dtype.kind == "c"
                                           for a in args):
        return {"ulp": 3}  # |z| is hypot, not an IEEE operation: libdevice's hypot is within 2 ulp, NumPy's 1
    if name in ("maximum", "minimum", "fmax", "fmin"):
        return {"ulp": 0, "signed_zeros": False}  # which of +0.0 and -0.0 NumPy returns is unspecified
    return {"ulp": 0} if name in EXACT else {"ulp": ULP_DEFAULT}


# ---------------------------------------------------------------- reductions

REDUCTION_DTYPES = [numpy.dtype(c) for c in "?ilfdD"]
# name -> keywords it takes beyond axis/keepdims
REDUCTIONS = {
    "sum": ("initial", "where", "dtype"), "prod": ("initial", "where"), "mean": ("where",),
    "std": ("ddof", "where"), "var": ("ddof", "where"), "min": ("initial", "where"),
    "max": ("initial", "where"), "amin": (), "amax": (), "argmin": (), "argmax": (),
    "all": ("where",), "any": ("where",), "ptp": (), "count_nonzero": (),
    "nansum": (), "nanprod": (), "nanmean": (), "nanstd": ("ddof",), "nanvar": ("ddof",),
    "nanmin": (), "nanmax": (), "nanargmin": (), "nanargmax": (), "median": (), "nanmedian": (),
    "cumsum": (), "cumprod": (), "nancumsum": (), "nancumprod": (),
}
PRODUCTS = {"prod", "nanprod", "cumprod", "nancumprod"}
NO_KEEPDIMS = {"cumsum", "cumprod", "nancumsum", "nancumprod"}
INT_AXIS_ONLY = {"argmin", "argmax", "nanargmin", "nanargmax", "cumsum", "cumprod", "nancumsum", "nancumprod"}


@st.composite
def reduction_inputs(draw, name):
    dt = draw(st.sampled_from(REDUCTION_DTYPES if not name.startswith("nan") else FLOATS[1:] + COMPLEX[1:]))
    if name in PRODUCTS and dt.kind in "fc":
        # partial products that overflow make the result depend on the order of the factors
        # (inf * 0): magnitudes up to 2 keep 125 factors finite, NaN and infinities still come
        # (and partial products that underflow to 0 before an infinity: 0 * inf; factors of at
        # least 0.5 in magnitude, or 0, keep 125 of them above float32's smallest normal)
        w = 64 if dt.itemsize >= 8 else 32
        finite = st.one_of(st.floats(0.5, 2, width=w), st.floats(-2, -0.5, width=w), st.just(0.0))
        part = st.one_of(finite, st.sampled_from([numpy.nan, numpy.inf, -numpy.inf]))
        if dt.kind == "c":  # complex products through infinities: divergences.INPUTS
            part = st.one_of(finite, st.just(numpy.nan))
        el = st.builds(complex, part, part) if dt.kind == "c" else part
        a = draw(st.builds(Arr, hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), elements=el),
                           st.sampled_from(["plain", "reversed", "strided", "transposed"])))
    else:
        a = draw(arrays(dt, lo=-1e3 if dt.kind in "fc" else -100, hi=1e3 if dt.kind in "fc" else 100)
                 if draw(st.integers(0, 3)) else arrays(dt))
    nd = a.base.ndim if a.view != "transposed" else a.base.ndim
    kw = {}
    axis_choices = [None] + list(range(-nd, nd)) if nd else [None]
    ax = draw(st.sampled_from(axis_choices))
    if ax is not None or name not in INT_AXIS_ONLY:
        kw["axis"] = ax
    if nd >= 2 and name not in INT_AXIS_ONLY and draw(st.booleans()):
        kw["axis"] = (0, nd - 1)
    if name not in NO_KEEPDIMS and name != "count_nonzero" or (name == "count_nonzero" and draw(st.booleans())):
        kw["keepdims"] = draw(st.booleans())
    extra = REDUCTIONS[name]
    if "ddof" in extra:
        kw["ddof"] = draw(st.sampled_from([0, 1]))
    if "initial" in extra and draw(st.integers(0, 3)) == 0 and dt.kind != "c":
        kw["initial"] = draw(st.integers(-5, 5)) if dt.kind != "b" else True
    if "where" in extra and draw(st.integers(0, 3)) == 0:
        kw["where"] = Arr(numpy.asarray(draw(st.booleans())), "plain")
    if "dtype" in extra and draw(st.integers(0, 3)) == 0:
        # complex to an integer dtype: not generated (divergences.INPUTS)
        kw["dtype"] = draw(st.sampled_from([numpy.float64] + ([numpy.int64] if dt.kind != "c" else [])))
    return [a], kw


def reduction_tolerance(name, a):
    if a.dtype.kind in "biu" and name not in ("mean", "std", "var", "median", "nanmean", "nanstd", "nanvar", "nanmedian"):
        return {"ulp": 0}
    # summation order differs between CuPy's tree reductions and NumPy's pairwise sums
    return {"rtol": 1e-9 if a.dtype.itemsize >= 8 or a.dtype.kind in "biu" else 1e-4, "atol": 1e-9 * max(1, a.size) * 1e3}


# ---------------------------------------------------------------- other functions

def A(dtypes=NUMERIC, shape=None, views=True, **el):
    """Strategy for one Arr argument."""
    return st.sampled_from(dtypes).flatmap(lambda dt: arrays(dt, shape, views, **el))


def _no_tiny(a):
    # coefficients far below the others' rounding: whether the GPU's product keeps them as
    # nonzero (and so the trimmed result's length) depends on rounding
    b = numpy.where(numpy.abs(a.base) < 1e-6, 0, a.base).astype(a.base.dtype)
    return Arr(b, a.view)


def _off_edges(case):
    # a value on a bin edge (computed in floating point) may fall in either neighbour on the
    # GPU (divergences.INPUTS)
    (a,), kw = case
    pos = (a.np() + 10) * kw["bins"] / 20
    return not numpy.any(numpy.abs(pos - numpy.round(pos)) < 1e-6)


def shapes(min_dims=1, max_dims=3, min_side=1, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


F = FLOATS[1:]
R = [numpy.dtype(c) for c in "ilfd"]  # real numbers people compute with
SMALL = {"lo": -100, "hi": 100}


def _args(*strats, **kw):
    return st.tuples(st.tuples(*strats), st.fixed_dictionaries(kw))


def _axis_of(a_strat, fn):
    return a_strat.flatmap(lambda a: _args(st.just(a), **fn(a)))


def _ax(a, allow_none=True):
    nd = a.np().ndim
    return st.sampled_from(([None] if allow_none else []) + list(range(-nd, nd))) if nd else st.just(None)


sq = lambda n=4: st.integers(1, n).map(lambda k: (k, k))  # noqa: E731
well_conditioned = st.integers(1, 4).flatmap(
    lambda n: hnp.arrays(numpy.float64, (n, n), elements=st.floats(-1, 1)).map(
        lambda m: Arr(m + n * numpy.eye(n), "plain")))

FUNCS = {
    # creation
    "zeros": _args(shapes(0, 3, 0), dtype=st.sampled_from([None, "f4", "i8", "?"])),
    "ones": _args(shapes(0, 3, 0), dtype=st.sampled_from([None, "f4", "i8"])),
    "full": _args(shapes(0, 3, 0), st.floats(-10, 10)),
    "arange": _args(st.integers(-20, 20), st.integers(-20, 20), st.sampled_from([1, 2, 3, -1])),
    "linspace": _args(st.floats(-100, 100), st.floats(-100, 100), st.integers(0, 20), endpoint=st.booleans()),
    "logspace": _args(st.floats(-3, 3), st.floats(-3, 3), st.integers(0, 10)),
    "eye": _args(st.integers(0, 5), st.integers(0, 5), st.integers(-3, 3)),
    "identity": _args(st.integers(0, 5)),
    "tri": _args(st.integers(0, 5), st.integers(0, 5), st.integers(-2, 2)),
    "zeros_like": _args(A()), "ones_like": _args(A()), "full_like": _args(A(R), st.integers(-3, 3)),
    "copy": _args(A()),
    "diag": _args(A(R, shapes(1, 2)), st.integers(-2, 2)),
    "diagflat": _args(A(R, shapes(1, 2))),
    "tril": _args(A(R, shapes(2, 3)), st.integers(-2, 2)), "triu": _args(A(R, shapes(2, 3)), st.integers(-2, 2)),
    "indices": _args(shapes(1, 3, 0, 4)),
    "meshgrid": _args(A(R, shapes(1, 1)), A(R, shapes(1, 1)), indexing=st.sampled_from(["xy", "ij"])),
    # shape manipulation
    "ravel": _args(A()), "transpose": _args(A()), "squeeze": _args(A(R, shapes(0, 3, 1, 2))),
    "expand_dims": _axis_of(A(R), lambda a: {"axis": st.integers(-a.np().ndim - 1, a.np().ndim)}),
    "flip": _axis_of(A(R), lambda a: {"axis": _ax(a)}),
    "roll": _axis_of(A(R), lambda a: {"shift": st.integers(-7, 7), "axis": _ax(a)}),
    "swapaxes": _axis_of(A(R, shapes(2, 3)), lambda a: {"axis1": _ax(a, False), "axis2": _ax(a, False)}),
    "moveaxis": _axis_of(A(R, shapes(1, 3)), lambda a: {"source": _ax(a, False), "destination": _ax(a, False)}),
    "rot90": _args(A(R, shapes(2, 3)), st.integers(-3, 3)),
    "tile": _args(A(R, shapes(0, 2)), st.tuples(st.integers(0, 3), st.integers(1, 2))),
    "repeat": _axis_of(A(R), lambda a: {"repeats": st.integers(0, 3), "axis": _ax(a)}),
    "broadcast_to": _args(A(R, shapes(1, 1, 1, 1)), st.just((3, 2, 4))),
    "atleast_1d": _args(A(R, shapes(0, 3, 0))), "atleast_2d": _args(A(R, shapes(0, 3, 0))),
    "atleast_3d": _args(A(R, shapes(0, 3, 0))),
    "concatenate": st.integers(1, 3).flatmap(lambda k: _args(st.lists(A(R, st.just((2, k))), min_size=1, max_size=3),
                                                             axis=st.sampled_from([0, 1, None]))),
    "stack": _args(st.lists(A(R, st.just((2, 3))), min_size=1, max_size=3), axis=st.integers(-3, 2)),
    "vstack": _args(st.lists(A(R, st.just((2, 3))), min_size=1, max_size=3)),
    "hstack": _args(st.lists(A(R, st.just((3, 2))), min_size=1, max_size=3)),
    "column_stack": _args(st.lists(A(R, st.just((3,))), min_size=1, max_size=3)),
    "split": _args(A(R, st.just((6, 2))), st.sampled_from([1, 2, 3, [1, 4]])),
    "array_split": _args(A(R, shapes(1, 2)), st.integers(1, 4)),
    "pad": _args(A(R, shapes(1, 2)), st.integers(0, 2), mode=st.sampled_from(["constant", "edge", "reflect", "wrap"])),
    "append": _args(A(R, shapes(1, 1)), A(R, shapes(1, 1))),
    # in-bounds indices only: the GPU does not check them (divergences.INPUTS), so no view
    # that changes the shape the indices were written for
    "delete": _args(A(R, st.just((5,)), views=False), st.sampled_from([0, 2, [1, 3], slice(1, 3)])),
    "resize": _args(A(R, shapes(1, 2)), shapes(1, 2, 1, 4)),
    # element-wise helpers
    "clip": _args(A(R, **SMALL), st.integers(-50, 0), st.integers(0, 50)),
    "around": _args(A(F, lo=-1e3, hi=1e3), st.integers(0, 3)),
    "real": _args(A(COMPLEX + F)), "imag": _args(A(COMPLEX + F)), "angle": _args(A(COMPLEX, lo=-1e3, hi=1e3)),
    "nan_to_num": _args(A(F)),
    "where": st.tuples(shapes(0, 2), st.just(0)).flatmap(lambda s: _args(A([numpy.dtype("?")], st.just(s[0])),
                                                                          A(R, st.just(s[0])), A(R, st.just(s[0])))),
    "isclose": _args(A(F, st.just((4,))), A(F, st.just((4,)))),
    "allclose": _args(A(F, st.just((4,)), lo=-10, hi=10), A(F, st.just((4,)), lo=-10, hi=10)),
    "array_equal": _args(A(R, st.just((3,))), A(R, st.just((3,)))),
    "diff": _axis_of(A(R, shapes(1, 2), **SMALL), lambda a: {"n": st.integers(0, 2), "axis": _ax(a, False)}),
    "ediff1d": _args(A(R, shapes(1, 1), **SMALL)),
    "trace": _args(A(R, shapes(2, 3), **SMALL)),
    "diagonal": _args(A(R, shapes(2, 3)), st.integers(-2, 2)),
    # sorting, searching, counting
    "sort": _axis_of(A(R), lambda a: {"axis": _ax(a)}),
    "argsort": _axis_of(A(R, **SMALL), lambda a: {"axis": _ax(a), "kind": st.just("stable")}),
    "searchsorted": _args(A(R, shapes(1, 1), **SMALL).map(lambda a: Arr(numpy.sort(a.np()), "plain")), A(R, **SMALL),
                          side=st.sampled_from(["left", "right"])),
    "nonzero": _args(A(R, shapes(1, 3), **SMALL)), "argwhere": _args(A(R, shapes(0, 3), **SMALL)),
    "flatnonzero": _args(A(R, **SMALL)),
    "unique": _args(A(R, shapes(1, 1), lo=-5, hi=5), return_counts=st.booleans(), return_index=st.booleans()),
    "union1d": _args(A(R, shapes(1, 1), lo=-9, hi=9), A(R, shapes(1, 1), lo=-9, hi=9)),
    "intersect1d": _args(A(R, shapes(1, 1), lo=-9, hi=9), A(R, shapes(1, 1), lo=-9, hi=9)),
    "setdiff1d": _args(A(R, shapes(1, 1), lo=-9, hi=9), A(R, shapes(1, 1), lo=-9, hi=9)),
    "setxor1d": _args(A(R, shapes(1, 1), lo=-9, hi=9), A(R, shapes(1, 1), lo=-9, hi=9)),
    "isin": _args(A(R, lo=-9, hi=9), A(R, shapes(1, 1), lo=-9, hi=9)),
    "bincount": _args(A([numpy.dtype("i8")], shapes(1, 1), lo=0, hi=20)),
    "digitize": _args(A(F, lo=-10, hi=10), st.just(Arr(numpy.array([-5.0, 0.0, 5.0]), "plain"))),
    "histogram": _args(A(F, shapes(1, 1), lo=-10, hi=10), bins=st.integers(1, 8), range=st.just((-10, 10))).filter(_off_edges),
    # statistics
    "percentile": _args(A(F, shapes(1, 2), lo=-1e3, hi=1e3), st.floats(0, 100)),
    "quantile": _args(A(F, shapes(1, 2), lo=-1e3, hi=1e3), st.floats(0, 1)),
    "average": _args(A(F, shapes(1, 2), lo=-1e3, hi=1e3)),
    "cov": _args(A(F, st.just((3, 6)), lo=-10, hi=10)),
    "corrcoef": _args(A(F, st.just((3, 6)), lo=1, hi=10)),
    # products and linear algebra
    "dot": st.integers(1, 4).flatmap(lambda k: _args(A(F, st.just((3, k)), lo=-10, hi=10), A(F, st.just((k, 2)), lo=-10, hi=10))),
    "matmul": st.integers(1, 4).flatmap(lambda k: _args(A(F, st.just((2, 3, k)), lo=-10, hi=10), A(F, st.just((k, 2)), lo=-10, hi=10))),
    "vdot": _args(A(F + COMPLEX, st.just((5,)), lo=-10, hi=10), A(F + COMPLEX, st.just((5,)), lo=-10, hi=10)),
    "inner": _args(A(F, st.just((2, 4)), lo=-10, hi=10), A(F, st.just((3, 4)), lo=-10, hi=10)),
    "outer": _args(A(R, shapes(1, 1), **SMALL), A(R, shapes(1, 1), **SMALL)),
    "kron": _args(A(R, shapes(1, 2, 1, 3), **SMALL), A(R, shapes(1, 2, 1, 3), **SMALL)),
    "cross": _args(A(F, st.just((4, 3)), lo=-10, hi=10), A(F, st.just((4, 3)), lo=-10, hi=10)),
    "tensordot": _args(A(F, st.just((2, 3, 4)), lo=-10, hi=10), A(F, st.just((3, 4, 2)), lo=-10, hi=10), axes=st.just(2)),
    "einsum": _args(st.just("ij,jk->ik"), A(F, st.just((2, 3)), lo=-10, hi=10), A(F, st.just((3, 2)), lo=-10, hi=10)),
    "convolve": _args(A(F, shapes(1, 1), lo=-10, hi=10), A(F, shapes(1, 1), lo=-10, hi=10)),
    "correlate": _args(A(F, shapes(1, 1), lo=-10, hi=10), A(F, shapes(1, 1), lo=-10, hi=10)),
    "interp": _args(A(F, lo=-10, hi=10), st.just(Arr(numpy.array([-5.0, 0.0, 5.0]), "plain")),
                    st.just(Arr(numpy.array([1.0, -2.0, 3.0]), "plain"))),
    "polyval": _args(A(F, shapes(1, 1), lo=-3, hi=3), A(F, lo=-3, hi=3)),
    "vander": _args(A(F, shapes(1, 1), lo=-3, hi=3), st.integers(1, 4)),
    "linalg.norm": _args(A(F + COMPLEX, shapes(1, 2), lo=-1e3, hi=1e3)),
    "linalg.det": _args(well_conditioned), "linalg.inv": _args(well_conditioned),
    "linalg.solve": _args(well_conditioned, A(F, st.just((4,)), lo=-10, hi=10)).filter(
        lambda t: t[0][0].np().shape[0] == 4),
    "linalg.eigvalsh": _args(well_conditioned.map(lambda a: Arr(a.np() + a.np().T, "plain"))),
    "linalg.cholesky": _args(well_conditioned.map(lambda a: Arr(a.np() @ a.np().T, "plain"))),
    "linalg.matrix_rank": _args(A(F, st.just((3, 3)), lo=-2, hi=2)),
    "linalg.pinv": _args(well_conditioned),
    "linalg.svd": _args(well_conditioned, compute_uv=st.just(False)),
    # fft
    "fft.fft": _args(A(F + COMPLEX, shapes(1, 2), lo=-1e3, hi=1e3)),
    "fft.ifft": _args(A(F + COMPLEX, shapes(1, 2), lo=-1e3, hi=1e3)),
    "fft.rfft": _args(A(F, shapes(1, 2), lo=-1e3, hi=1e3)),
    "fft.irfft": _args(A(COMPLEX, shapes(1, 2, 2), lo=-1e3, hi=1e3)),
    "fft.fft2": _args(A(F + COMPLEX, shapes(2, 2), lo=-1e3, hi=1e3)),
    "fft.fftn": _args(A(F + COMPLEX, shapes(1, 3), lo=-1e3, hi=1e3)),
    "fft.fftshift": _args(A(R)), "fft.ifftshift": _args(A(R)),
    "fft.fftfreq": _args(st.integers(1, 10), st.floats(0.1, 10)),
    "fft.rfftfreq": _args(st.integers(1, 10), st.floats(0.1, 10)),
    # more manipulation, searching and helpers
    "reshape": _args(A(R, st.just((2, 6))), st.sampled_from([(12,), (3, 4), (-1, 2), (2, 2, 3)])),
    "take": _axis_of(A(R, shapes(1, 2)), lambda a: {"indices": st.lists(st.integers(0, a.np().shape[0] - 1), max_size=4),
                                                   "axis": st.just(0)}),
    "take_along_axis": _args(A(R, st.just((3, 4)), views=False), st.just(Arr(numpy.array([[0], [3], [1]]), "plain")), axis=st.just(1)),
    "fliplr": _args(A(R, shapes(2, 3))), "flipud": _args(A(R, shapes(1, 3))),
    "dstack": _args(st.lists(A(R, st.just((2, 3))), min_size=1, max_size=3)),
    "hsplit": _args(A(R, st.just((2, 4))), st.sampled_from([1, 2, 4])),
    "vsplit": _args(A(R, st.just((4, 2))), st.sampled_from([1, 2, 4])),
    "rollaxis": _args(A(R, st.just((2, 3, 4))), st.integers(0, 2), st.integers(0, 3)),
    "concat": _args(st.lists(A(R, st.just((2, 2))), min_size=1, max_size=3)),
    "permute_dims": _args(A(R, st.just((2, 3, 4))), st.permutations([0, 1, 2]).map(tuple)),
    "matrix_transpose": _args(A(R, shapes(2, 3))),
    "broadcast_arrays": _args(A(R, st.just((3, 1))), A(R, st.just((1, 4)))),
    "sinc": _args(A(F, lo=-10, hi=10)), "i0": _args(A(F, lo=-10, hi=10)), "fix": _args(A(F)),
    "isposinf": _args(A(F)), "isneginf": _args(A(F)), "isreal": _args(A(COMPLEX + F)), "iscomplex": _args(A(COMPLEX + F)),
    "real_if_close": _args(A(COMPLEX, lo=-10, hi=10)),
    "gradient": _args(A(F, shapes(1, 1, 2), lo=-100, hi=100)),
    "unwrap": _args(A(F, shapes(1, 1), lo=-10, hi=10)),
    "trapezoid": _args(A(F, shapes(1, 2), lo=-100, hi=100)),
    "geomspace": _args(st.floats(0.1, 100), st.floats(0.1, 100), st.integers(1, 10)),
    "hamming": _args(st.integers(0, 9)), "hanning": _args(st.integers(0, 9)), "bartlett": _args(st.integers(0, 9)),
    "blackman": _args(st.integers(0, 9)), "kaiser": _args(st.integers(0, 9), st.floats(0, 10)),
    "cumulative_sum": _args(A(R, shapes(1, 1), **SMALL)), "cumulative_prod": _args(A(R, shapes(1, 1), lo=-3, hi=3)),
    "nanpercentile": _args(A(F, shapes(1, 2)), st.floats(0, 100)),
    "nanquantile": _args(A(F, shapes(1, 2)), st.floats(0, 1)),
    "select": _args(st.lists(A([numpy.dtype("?")], st.just((4,))), min_size=1, max_size=3).map(lambda l: l),
                    st.just([Arr(numpy.arange(4.0), "plain")] * 3)).filter(lambda t: len(t[0][0]) <= 3).map(
                        lambda t: ((t[0][0], t[0][1][:len(t[0][0])]), t[1])),
    "extract": st.just(0).flatmap(lambda _: _args(A([numpy.dtype("?")], st.just((5,))), A(R, st.just((5,))))),
    "compress": _args(st.lists(st.booleans(), min_size=3, max_size=3), A(R, st.just((3, 2)), views=False), axis=st.just(0)),
    "choose": _args(A([numpy.dtype("i8")], st.just((4,)), lo=0, hi=2), st.just([Arr(numpy.arange(4), "plain"),
                                                                               Arr(numpy.arange(4) * 10, "plain"),
                                                                               Arr(numpy.arange(4) * 100, "plain")])),
    "ix_": _args(A([numpy.dtype("i8")], shapes(1, 1), lo=0, hi=3), A([numpy.dtype("i8")], shapes(1, 1), lo=0, hi=3)),
    "tril_indices": _args(st.integers(0, 5), st.integers(-2, 2)), "triu_indices": _args(st.integers(0, 5), st.integers(-2, 2)),
    "diag_indices": _args(st.integers(0, 5)),
    "unravel_index": _args(A([numpy.dtype("i8")], lo=0, hi=23), st.just((2, 3, 4))),
    "ravel_multi_index": _args(st.just((Arr(numpy.array([0, 1, 1]), "plain"), Arr(numpy.array([2, 0, 1]), "plain"))),
                               st.just((2, 3))),
    "lexsort": _args(st.tuples(A(R, st.just((6,)), lo=0, hi=3), A(R, st.just((6,)), lo=0, hi=3)).map(list)),
    "sort_complex": _args(A(COMPLEX, shapes(1, 1), lo=-5, hi=5)),
    "trim_zeros": _args(A(R, shapes(1, 1), lo=0, hi=2)),
    "insert": _args(A(R, st.just((5,))), st.integers(0, 5), st.integers(-9, 9)),
    "packbits": _args(A([numpy.dtype("?")], shapes(1, 2))),
    "unpackbits": _args(A([numpy.dtype("u1")], shapes(1, 2))),
    "round": _args(A(F, lo=-1e3, hi=1e3), st.integers(0, 3)),
    # float to int16 only for values int16 holds: NumPy's cast of others is C-undefined
    "astype": st.one_of(_args(A(R), st.sampled_from([numpy.float32, numpy.bool_])),
                        _args(A(R, lo=-(2 ** 15), hi=2 ** 15 - 1), st.just(numpy.int16))),
    "histogram_bin_edges": _args(A(F, shapes(1, 1), lo=-10, hi=10), bins=st.integers(1, 8)),
    "histogram2d": _args(A(F, st.just((10,)), lo=0, hi=1), A(F, st.just((10,)), lo=0, hi=1), bins=st.integers(1, 4)),
    "vecdot": _args(A(F, st.just((2, 4)), lo=-10, hi=10), A(F, st.just((4,)), lo=-10, hi=10)),
    "polyadd": _args(A(R, shapes(1, 1), **SMALL), A(R, shapes(1, 1), **SMALL)),
    "polysub": _args(A(R, shapes(1, 1), **SMALL), A(R, shapes(1, 1), **SMALL)),
    "polymul": _args(A(R, shapes(1, 1), **SMALL).map(_no_tiny), A(R, shapes(1, 1), **SMALL).map(_no_tiny)),
    "polyder": _args(A(R, shapes(1, 1), **SMALL)), "polyint": _args(A(F, shapes(1, 1), **SMALL)),
    "polyfit": _args(st.just(Arr(numpy.linspace(-1, 1, 8), "plain")), A(F, st.just((8,)), lo=-5, hi=5), st.integers(0, 3)),
    "linalg.matrix_power": _args(well_conditioned, st.integers(0, 4)),
    "linalg.slogdet": _args(well_conditioned), "linalg.cond": _args(well_conditioned),
    "linalg.multi_dot": _args(st.just([Arr(numpy.arange(6.0).reshape(2, 3), "plain"), Arr(numpy.ones((3, 4)), "plain"),
                                       Arr(numpy.arange(8.0).reshape(4, 2), "plain")])),
    "linalg.vector_norm": _args(A(F, shapes(1, 2), lo=-1e3, hi=1e3)),
    "linalg.matrix_norm": _args(A(F, shapes(2, 3), lo=-1e3, hi=1e3)),
    "linalg.trace": _args(A(R, shapes(2, 3), **SMALL)), "linalg.diagonal": _args(A(R, shapes(2, 3))),
    "linalg.outer": _args(A(R, shapes(1, 1), **SMALL), A(R, shapes(1, 1), **SMALL)),
    "linalg.tensordot": _args(A(F, st.just((2, 3)), lo=-9, hi=9), A(F, st.just((3, 2)), lo=-9, hi=9), axes=st.just(1)),
    "linalg.svdvals": _args(well_conditioned),
    "linalg.vecdot": _args(A(F, st.just((2, 4)), lo=-10, hi=10), A(F, st.just((4,)), lo=-10, hi=10)),
    "linalg.matmul": _args(A(F, st.just((2, 3)), lo=-9, hi=9), A(F, st.just((3, 2)), lo=-9, hi=9)),
    "linalg.cross": _args(A(F, st.just((4, 3)), lo=-10, hi=10), A(F, st.just((4, 3)), lo=-10, hi=10)),
    "fft.ifft2": _args(A(F + COMPLEX, shapes(2, 2), lo=-1e3, hi=1e3)),
    "fft.ifftn": _args(A(F + COMPLEX, shapes(1, 3), lo=-1e3, hi=1e3)),
    "fft.rfft2": _args(A(F, shapes(2, 2), lo=-1e3, hi=1e3)), "fft.rfftn": _args(A(F, shapes(1, 3), lo=-1e3, hi=1e3)),
    "fft.irfft2": _args(A(COMPLEX, shapes(2, 2, 2), lo=-1e3, hi=1e3)),
    "fft.hfft": _args(A(COMPLEX, shapes(1, 1, 2), lo=-1e3, hi=1e3)), "fft.ihfft": _args(A(F, shapes(1, 1), lo=-1e3, hi=1e3)),
    "emath.sqrt": _args(A(F, lo=-1e3, hi=1e3)), "emath.log": _args(A(F, lo=-1e3, hi=1e3)),
    "emath.log10": _args(A(F, lo=-1e3, hi=1e3)), "emath.log2": _args(A(F, lo=-1e3, hi=1e3)),
    "emath.arccos": _args(A(F, lo=-3, hi=3)), "emath.arcsin": _args(A(F, lo=-3, hi=3)),
    "emath.arctanh": _args(A(F, lo=-0.5, hi=0.5)), "emath.power": _args(A(F, lo=-9, hi=9), st.integers(0, 3)),
    "lib.scimath.sqrt": _args(A(F, lo=-1e3, hi=1e3)),
    # creation from data, and what NumPy returns about arrays
    "array": _args(A()), "asarray": _args(A()), "asanyarray": _args(A()), "ascontiguousarray": _args(A()),
    "asfortranarray": _args(A(R)), "asarray_chkfinite": _args(A(F)), "require": _args(A(R)),
    "empty_like": _args(A(R).map(lambda a: a), dtype=st.just("f8")).map(lambda t: t),
    "array_equiv": _args(A(R, st.just((3,))), A(R, st.just((1,)))),
    "iscomplexobj": _args(A()), "isrealobj": _args(A()), "isfortran": _args(A(R, shapes(2, 2))),
    "result_type": _args(A(), A()), "common_type": _args(A(F)), "min_scalar_type": _args(st.integers(-300, 300)),
    "can_cast": _args(st.sampled_from(["i4", "f4", "f8"]), st.sampled_from(["i8", "f8", "f2"])),
    "may_share_memory": _args(A(R), A(R)), "shares_memory": _args(A(R), A(R)),
    "unique_values": _args(A(R, shapes(1, 1), lo=-5, hi=5)), "unique_counts": _args(A(R, shapes(1, 1), lo=-5, hi=5)),
    "unique_inverse": _args(A(R, shapes(1, 1), lo=-5, hi=5)), "unique_all": _args(A(R, shapes(1, 1), lo=-5, hi=5)),
    "unstack": _args(A(R, shapes(1, 3))),
    "block": _args(st.just([[Arr(numpy.ones((2, 2)), "plain"), Arr(numpy.zeros((2, 1)), "plain")]])),
    "dsplit": _args(A(R, st.just((2, 2, 4))), st.sampled_from([1, 2, 4])),
    "tril_indices_from": _args(A(R, st.just((4, 4)))), "triu_indices_from": _args(A(R, st.just((4, 4)))),
    "diag_indices_from": _args(A(R, st.just((3, 3)))),
    "apply_along_axis": _args(st.just(numpy.sum), st.integers(0, 1), A(R, st.just((3, 4)), **SMALL)),
    "piecewise": _args(A(F, st.just((6,)), lo=-5, hi=5).map(lambda a: a), st.just(None)).map(
        lambda t: ((t[0][0], [t[0][0]], [lambda v: v * 2, 0]), {})),
    "partition": _args(A(R, st.just((6,)), **SMALL), st.integers(0, 5)),
    "argpartition": _args(A(R, st.just((6,)), **SMALL), st.integers(0, 5)),
    "polydiv": _args(A(F, shapes(1, 1, 1, 4), lo=-5, hi=5), st.just(Arr(numpy.array([1.0, 2.0]), "plain"))),
    "poly": _args(A(F, shapes(1, 1, 1, 4), lo=-5, hi=5)),
    "polynomial.polynomial.polyval": _args(A(F, lo=-3, hi=3), A(F, shapes(1, 1), lo=-3, hi=3)),
    "polynomial.polynomial.polyadd": _args(A(F, shapes(1, 1), **SMALL), A(F, shapes(1, 1), **SMALL)),
    "polynomial.polynomial.polysub": _args(A(F, shapes(1, 1), **SMALL), A(F, shapes(1, 1), **SMALL)),
    "polynomial.polynomial.polymul": _args(A(F, shapes(1, 1), **SMALL).map(_no_tiny), A(F, shapes(1, 1), **SMALL).map(_no_tiny)),
    "polynomial.polynomial.polyder": _args(A(F, shapes(1, 1), **SMALL)),
    "polynomial.polynomial.polyint": _args(A(F, shapes(1, 1), **SMALL)),
    "polynomial.polynomial.polyvander": _args(A(F, shapes(1, 1), lo=-3, hi=3), st.integers(0, 4)),
    "polynomial.polynomial.polyfromroots": _args(A(F, shapes(1, 1, 1, 4), lo=-3, hi=3)),
    "polynomial.polynomial.polytrim": _args(A(F, shapes(1, 1), lo=0, hi=2)),
    "polynomial.polynomial.polyline": _args(st.floats(-5, 5), st.floats(-5, 5)),
    "polynomial.polynomial.polymulx": _args(A(F, shapes(1, 1), **SMALL)),
    "polynomial.polynomial.polypow": _args(A(F, shapes(1, 1, 1, 3), lo=-3, hi=3).map(_no_tiny), st.integers(0, 3)),
    # in place: the first argument is compared after the call (see MUTATES_FIRST)
    "copyto": _args(A(R, st.just((3, 4))), A(R, st.just((3, 4)))),
    "place": _args(A(R, st.just((5,))), A([numpy.dtype("?")], st.just((5,))), st.just([7])),
    "put": _args(A(R, st.just((5,)), views=False), st.just([0, 3]), st.just([9, 8])),
    "putmask": _args(A(R, st.just((5,))), A([numpy.dtype("?")], st.just((5,))), st.just(Arr(numpy.arange(5), "plain"))),
    "put_along_axis": _args(A(R, st.just((3, 4)), views=False), st.just(Arr(numpy.array([[0], [3], [1]]), "plain")), st.just(7),
                            axis=st.just(1)),
    "fill_diagonal": _args(A(R, st.just((3, 3))), st.integers(-5, 5)),
    # text, paths and helpers
    "array2string": _args(A(R, shapes(0, 2))), "array_repr": _args(A(R, shapes(0, 2))), "array_str": _args(A(R, shapes(0, 2))),
    "einsum_path": _args(st.just("ij,jk->ik"), A(F, st.just((2, 3)), lo=-9, hi=9), A(F, st.just((3, 2)), lo=-9, hi=9)),
    "emath.logn": _args(st.sampled_from([2, 10]), A(F, lo=-1e3, hi=1e3)),
    "lib.scimath.log": _args(A(F, lo=-1e3, hi=1e3)), "lib.scimath.log10": _args(A(F, lo=-1e3, hi=1e3)),
    "lib.scimath.log2": _args(A(F, lo=-1e3, hi=1e3)), "lib.scimath.logn": _args(st.just(3), A(F, lo=-1e3, hi=1e3)),
    "lib.scimath.arccos": _args(A(F, lo=-3, hi=3)), "lib.scimath.arcsin": _args(A(F, lo=-3, hi=3)),
    "lib.scimath.arctanh": _args(A(F, lo=-0.5, hi=0.5)), "lib.scimath.power": _args(A(F, lo=-9, hi=9), st.integers(0, 3)),
    "empty": _args(shapes(0, 3, 0), dtype=st.sampled_from(["f4", "i8"])),
    "fft.irfftn": _args(A(COMPLEX, shapes(2, 2, 2), lo=-1e3, hi=1e3)),
    "histogramdd": _args(A(F, st.just((10, 2)), lo=0, hi=1), bins=st.integers(1, 4)),
    "lib.array_utils.normalize_axis_index": _args(st.integers(-3, 2), st.just(3)),
    "lib.array_utils.normalize_axis_tuple": _args(st.sampled_from([0, -1, (0, 1)]), st.just(3)),
    "lib.stride_tricks.sliding_window_view": _args(A(R, shapes(1, 1, 3)), st.integers(1, 3)),
    "lib.stride_tricks.as_strided": _args(A(R, st.just((6,))), shape=st.just((3, 2)), strides=st.just(None)).map(
        lambda t: (t[0], {"shape": (3, 2)})),
    "linalg.eigvals": _args(well_conditioned), "linalg.eig": _args(well_conditioned),
    "linalg.eigh": _args(well_conditioned.map(lambda a: Arr(a.np() + a.np().T, "plain"))),
    "linalg.lstsq": _args(well_conditioned, A(F, st.just((4,)), lo=-10, hi=10), rcond=st.just(None)).filter(
        lambda t: t[0][0].np().shape[0] == 4),
    "linalg.qr": _args(well_conditioned),
    "linalg.matrix_transpose": _args(A(R, shapes(2, 3))),
    "linalg.tensorinv": _args(st.just(Arr(numpy.eye(4).reshape(4, 2, 2) * 2.0, "plain")), ind=st.just(1)),
    "linalg.tensorsolve": _args(st.just(Arr(numpy.eye(6).reshape(6, 2, 3) + 0.5, "plain")), A(F, st.just((6,)), lo=-5, hi=5)),
    "mask_indices": _args(st.integers(1, 5), st.just(numpy.triu)),
    "matvec": _args(A(F, st.just((2, 3, 4)), lo=-9, hi=9), A(F, st.just((4,)), lo=-9, hi=9)),
    "vecmat": _args(A(F, st.just((4,)), lo=-9, hi=9), A(F, st.just((2, 4, 3)), lo=-9, hi=9)),
    "roots": _args(A(F, shapes(1, 1, 2, 4), lo=1, hi=5)),
    "apply_over_axes": _args(st.just(numpy.sum), A(R, st.just((2, 3, 4)), **SMALL), st.just([0, 2])),
    "fromfunction": _args(st.just(lambda i, j: i * 10 + j), st.just((3, 4))),
    "polynomial.polynomial.polycompanion": _args(A(F, shapes(1, 1, 2, 5), lo=1, hi=5)),
    "polynomial.polynomial.polydiv": _args(A(F, shapes(1, 1, 1, 5), lo=-5, hi=5), st.just(Arr(numpy.array([1.0, 2.0]), "plain"))),
    "polynomial.polynomial.polyfit": _args(st.just(Arr(numpy.linspace(-1, 1, 8), "plain")), A(F, st.just((8,)), lo=-5, hi=5), st.integers(0, 3)),
    "polynomial.polynomial.polyroots": _args(A(F, shapes(1, 1, 2, 4), lo=1, hi=5)),
    "polynomial.polynomial.polyval2d": _args(A(F, st.just((3,)), lo=-2, hi=2), A(F, st.just((3,)), lo=-2, hi=2), A(F, st.just((2, 2)), lo=-2, hi=2)),
    "polynomial.polynomial.polygrid2d": _args(A(F, st.just((3,)), lo=-2, hi=2), A(F, st.just((2,)), lo=-2, hi=2), A(F, st.just((2, 2)), lo=-2, hi=2)),
    "polynomial.polynomial.polyvalfromroots": _args(A(F, lo=-2, hi=2), A(F, shapes(1, 1, 1, 3), lo=-2, hi=2)),
    "polynomial.polynomial.polyvander2d": _args(A(F, st.just((3,)), lo=-2, hi=2), A(F, st.just((3,)), lo=-2, hi=2), st.just([1, 2])),
    "polynomial.polynomial.polyval3d": _args(*[A(F, st.just((3,)), lo=-2, hi=2)] * 3, A(F, st.just((2, 2, 2)), lo=-2, hi=2)),
    "polynomial.polynomial.polygrid3d": _args(A(F, st.just((3,)), lo=-2, hi=2), A(F, st.just((2,)), lo=-2, hi=2),
                                              A(F, st.just((2,)), lo=-2, hi=2), A(F, st.just((2, 2, 2)), lo=-2, hi=2)),
    "polynomial.polynomial.polyvander3d": _args(*[A(F, st.just((3,)), lo=-2, hi=2)] * 3, st.just([1, 2, 1])),
    # datetime has no GPU form: on numbers both raise TypeError (no loop for them)
    "isnat": _args(A(R)),
    "polynomial.polyutils.as_series": _args(st.just([Arr(numpy.array([1.0, 2.0]), "plain"), Arr(numpy.array([3.0]), "plain")])),
    "polynomial.polyutils.trimcoef": _args(A(F, shapes(1, 1), lo=0, hi=2)),
    "polynomial.polyutils.trimseq": _args(A(F, shapes(1, 1), lo=0, hi=2)),
    "polynomial.polyutils.getdomain": _args(A(F, shapes(1, 1), lo=-5, hi=5)),
    "polynomial.polyutils.mapparms": _args(st.just([0.0, 1.0]), st.just([-1.0, 1.0])),
    "polynomial.polyutils.mapdomain": _args(A(F, shapes(1, 1), lo=0, hi=1), st.just([0.0, 1.0]), st.just([-1.0, 1.0])),
}
if hasattr(numpy, "row_stack"):  # removed in NumPy 2.5
    FUNCS["row_stack"] = _args(st.lists(A(R, st.just((3,))), min_size=1, max_size=3))
# functions that work in place and return None: their first argument is the result
MUTATES_FIRST = {"copyto", "place", "put", "putmask", "put_along_axis", "fill_diagonal"}
# results defined only up to order or contents: compared after sorting / by shape and dtype
RESULT_VIEW = {
    "partition": lambda r, args: numpy.sort(numpy.asarray(r)),
    "argpartition": lambda r, args: numpy.sort(numpy.asarray(args[0])[numpy.asarray(r)]),
    "empty_like": lambda r, args: numpy.zeros(numpy.shape(r), numpy.asarray(r).dtype),
    "poly": lambda r, args: numpy.round(numpy.asarray(r), 6),
    "unique_values": lambda r, args: numpy.sort(numpy.asarray(r)),  # in no specified order
    "empty": lambda r, args: numpy.zeros(numpy.shape(r), numpy.asarray(r).dtype),
    # eigenvalues come in no fixed order, eigenvectors and QR factors up to sign: compare invariants
    "linalg.eigvals": lambda r, args: numpy.sort_complex(numpy.asarray(r)),
    "linalg.eig": lambda r, args: numpy.sort_complex(numpy.asarray(r[0])),
    "linalg.eigh": lambda r, args: numpy.asarray(r[0]),
    "linalg.qr": lambda r, args: numpy.abs(numpy.diag(numpy.asarray(r[1]))),
    "linalg.lstsq": lambda r, args: numpy.asarray(r[0]),
    "roots": lambda r, args: numpy.sort_complex(numpy.asarray(r)),
    "polynomial.polynomial.polyroots": lambda r, args: numpy.sort_complex(numpy.asarray(r)),
}

# relative tolerances where the GPU library sums, factors or transforms in another order
FUNC_TOL = {n: {"rtol": 1e-9, "atol": 1e-9} for n in (
    "percentile", "quantile", "average", "cov", "corrcoef", "dot", "matmul", "vdot", "inner", "tensordot",
    "einsum", "convolve", "correlate", "polyval", "trace", "linalg.norm", "linalg.det", "linalg.inv",
    "linalg.solve", "linalg.eigvalsh", "linalg.cholesky", "linalg.pinv", "linalg.svd", "fft.fft", "fft.ifft",
    "fft.rfft", "fft.irfft", "fft.fft2", "fft.fftn", "logspace", "linspace", "angle", "cross", "interp",
    "kron", "vander", "histogram", "fft.fftfreq", "fft.rfftfreq", "sinc", "i0", "gradient", "unwrap", "trapezoid",
    "geomspace", "hamming", "hanning", "bartlett", "blackman", "kaiser", "nanpercentile", "nanquantile",
    "histogram_bin_edges", "histogram2d", "vecdot", "polyint", "polyfit", "linalg.matrix_power", "linalg.slogdet",
    "linalg.cond", "linalg.multi_dot", "linalg.vector_norm", "linalg.matrix_norm", "linalg.tensordot",
    "linalg.svdvals", "linalg.vecdot", "linalg.matmul", "linalg.cross", "fft.ifft2", "fft.ifftn", "fft.rfft2",
    "fft.rfftn", "fft.irfft2", "fft.hfft", "fft.ihfft", "emath.sqrt", "emath.log", "cumulative_prod", "real_if_close",
    "emath.log10", "emath.log2", "emath.arccos", "emath.arcsin", "emath.arctanh", "emath.power", "lib.scimath.sqrt",
    "apply_along_axis", "polydiv", "polynomial.polynomial.polyval", "polynomial.polynomial.polymul",
    "polynomial.polynomial.polyint", "polynomial.polynomial.polyvander", "polynomial.polynomial.polyfromroots",
    "polynomial.polynomial.polypow", "polynomial.polynomial.polyadd", "polynomial.polynomial.polysub",
    "emath.logn", "lib.scimath.log", "lib.scimath.log10", "lib.scimath.log2", "lib.scimath.logn", "lib.scimath.arccos",
    "lib.scimath.arcsin", "lib.scimath.arctanh", "lib.scimath.power", "fft.irfftn", "histogramdd", "linalg.eigvals",
    "linalg.eig", "linalg.eigh", "linalg.lstsq", "linalg.qr", "linalg.tensorinv", "linalg.tensorsolve", "matvec",
    "vecmat", "roots", "polynomial.polynomial.polycompanion", "polynomial.polynomial.polydiv",
    "polynomial.polynomial.polyfit", "polynomial.polynomial.polyroots", "polynomial.polynomial.polyval2d",
    "polynomial.polynomial.polygrid2d", "polynomial.polynomial.polyvalfromroots", "polynomial.polynomial.polyvander2d",
    "polynomial.polynomial.polyval3d", "polynomial.polynomial.polygrid3d", "polynomial.polynomial.polyvander3d",
    "polynomial.polyutils.mapdomain", "apply_over_axes")}
FUNC_TOL.update({"linspace": {"rtol": 1e-12, "atol": 1e-13}, "logspace": {"rtol": 1e-12},
                 "cumulative_sum": {"rtol": 1e-9, "atol": 1e-9}, "polymul": {"rtol": 1e-9, "atol": 1e-9},
                 "polyadd": {"rtol": 1e-12}, "polysub": {"rtol": 1e-12}})
# float32 inputs get float32 tolerances
FUNC_TOL["linalg.trace"] = FUNC_TOL["trace"]  # a sum: CuPy adds in another order
FUNC_TOL["poly"] = {"rtol": 1e-9, "atol": 1e-9}  # products of (x - r): a zero's sign follows the summation order
# a non-symmetric matrix of small integers can be defective (a repeated eigenvalue with one
# eigenvector): its eigenvalues are then fixed only to about eps**(1/k) for a k-fold block
# (3.5e-8 for [[3, 1, 0], [1, 4, 1], [1, 0, 4]]), and LAPACK and cuSOLVER round differently
for _n in ("linalg.eig", "linalg.eigvals"):
    FUNC_TOL[_n] = {"rtol": 1e-9, "atol": 1e-5}
# transforms, convolutions (CuPy's convolve may go through cuFFT) and what is built on them
# (polynomial products, companion-matrix roots): their error bounds are norm-wise, so a
# result that is exactly 0 in NumPy carries the transform's rounding on the GPU
NORM_WISE = {n for n in FUNC_TOL if n.startswith("fft.")} | {
    "convolve", "correlate", "polymul", "polynomial.polynomial.polymul", "polynomial.polynomial.polypow",
    "polynomial.polynomial.polyroots", "roots", "cross", "linalg.cross",
    "poly",  # (the products of (x - r) are convolutions)
    "vdot"}  # (a part that cancels carries the other part's rounding)
for _n in NORM_WISE:
    FUNC_TOL[_n] = dict(FUNC_TOL.get(_n, {"rtol": 1e-9, "atol": 1e-9}), norm=True)
# which zero (+0.0 or -0.0) stands for equal values, or is the min/max of a tie, is unspecified
# (and which of two equal values, -0.0 and 0.0, a partition puts first)
for _n in ("unique_counts", "unique_inverse", "unique_all", "unique", "polynomial.polyutils.getdomain",
           "partition", "argpartition"):
    FUNC_TOL[_n] = dict(FUNC_TOL.get(_n, {"ulp": 0}), signed_zeros=False)
# float32 inputs get float32 tolerances
RTOL32 = 1e-4
# and, where a function's values are O(1) but may be 0 (sinc at the integers), an absolute
# error of a few float32 ulps of 1
ATOL32 = {"sinc": 4 * float(numpy.finfo(numpy.float32).eps)}


def resolve(mod, dotted):
    for part in dotted.split("."):
        mod = getattr(mod, part)
    return mod
