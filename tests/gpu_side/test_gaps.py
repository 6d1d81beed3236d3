"""The gap table (xpshim/_gaps): every entry against NumPy, on the GPU side, with no host fallback.

Each registered name has cases in ``CASES`` (a new entry without cases fails
``test_every_entry_has_cases``); each case runs over several dtypes and memory
layouts (contiguous, strided, reversed) and is compared with NumPy's answer:
value, dtype and shape, or the exception class where NumPy raises.
"""

import warnings

import inspect

import numpy
import pytest

import xpshim
from xpshim import _gaps
from xpshim._gaps import numpy_code

FLOAT = ("float64", "float32")
INT = ("int64", "int8", "uint8")
NUM = FLOAT + ("int64", "int32", "bool", "complex128")
LAYOUTS = ("c", "strided", "reversed")


def data(shape, dtype="float64", layout="c", special=True, seed=0, low=-5, high=6):
    """A NumPy array of ``shape`` and ``dtype`` (NaN and inf among floats when ``special``),
    laid out as ``layout``: "c", "strided" (every other element of a wider array) or "reversed"."""
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    full = tuple(shape[:-1]) + (2 * shape[-1],) if shape and layout == "strided" else tuple(shape)
    if dt.kind == "b":
        v = rng.random(full) < 0.5
    elif dt.kind in "iu":
        v = rng.integers(max(low, 0) if dt.kind == "u" else low, high, size=full)
    elif dt.kind == "c":
        v = rng.standard_normal(full) + 1j * rng.standard_normal(full)
    else:
        v = rng.standard_normal(full) * 3
    v = numpy.asarray(v).astype(dt)
    if special == "real" and dt.kind == "c":
        special = False  # complex inf in products: NumPy's own dot and vecdot disagree there
    if special and dt.kind in "fc" and v.size >= 4:
        flat = v.reshape(-1)
        flat[1], flat[-2] = numpy.nan, numpy.inf
    if shape and layout == "strided":
        v = v[..., ::2]
    elif shape and layout == "reversed":
        v = numpy.ascontiguousarray(v[::-1])[::-1]
    return v


def _xp(v):
    if type(v) is numpy.ndarray:
        return xpshim.asarray(v)
    if type(v) in (list, tuple) and any(type(x) is numpy.ndarray for x in v):
        return type(v)(_xp(x) for x in v)
    return v


def _tol(dt):
    dt = numpy.dtype(dt)
    if dt.kind not in "fc":
        return 0, 0
    return {2: (1e-2, 1e-2), 4: (2e-5, 1e-5), 8: (1e-5, 1e-6)}.get(dt.itemsize // (2 if dt.kind == "c" else 1),
                                                                     (1e-12, 1e-12))


def same(expected, got, what):
    """``got`` (xpshim, on the GPU) matches NumPy's ``expected``: type of result, shape, dtype, values."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), f"{what}: {got!r}"
        for i, (e, g) in enumerate(zip(expected, got)):
            same(e, g, f"{what}[{i}]")
        return
    if isinstance(expected, (str, int)) or expected is None:  # (ints: Python numbers, like byte counts)
        assert type(got) is type(expected) and got == expected, f"{what}: {got!r} != {expected!r}"
        return
    assert type(got) is xpshim.ndarray, f"{what}: {type(got)} is not a GPU array"
    e = numpy.asarray(expected)
    g = xpshim.asnumpy(got)
    assert g.shape == e.shape, f"{what}: shape {g.shape} != {e.shape}"
    assert g.dtype == e.dtype, f"{what}: dtype {g.dtype} != {e.dtype}"
    rtol, atol = _tol(e.dtype)
    if rtol:
        for part in ((g.real, e.real), (g.imag, e.imag)) if e.dtype.kind == "c" else ((g, e),):
            numpy.testing.assert_allclose(*part, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        numpy.testing.assert_array_equal(g, e, err_msg=what)


def compare(nf, xf, args, kwargs, what, post=None, on_host=False):
    """Call NumPy and xpshim alike; same result, or same exception class; no host fallback (one,
    visible, where the entry declines every call: ``on_host``)."""
    xargs, xkw = [_xp(a) for a in args], {k: _xp(v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = nf(*args, **kwargs)
        except Exception as e:
            with pytest.raises(type(e)):
                xf(*xargs, **xkw)
            assert on_host or not xpshim.stats()["fallbacks"], xpshim.stats()["fallbacks"]
            return
        xpshim.reset_stats()
        got = xf(*xargs, **xkw)
    if on_host:
        assert xpshim.stats()["fallbacks"], f"{what}: expected NumPy's on the host, a visible fallback"
    else:
        assert not xpshim.stats()["fallbacks"], f"{what}: {xpshim.stats()['fallbacks']}"
    if post is not None:
        expected, got = post(expected), post(got)
    same(expected, got, what)


def resolve(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


# ------------------------------------------------------------------ cases
# name -> list of (label, make, dtypes, layouts); make(D) -> (args, kwargs), D(shape) a NumPy array
# of the dtype and layout under test (D(shape, dtype=...) to fix a dtype).

def case(label, make, dtypes=NUM, layouts=LAYOUTS, post=None):
    return (label, make, dtypes, layouts, post)


def _mask(shape, seed=1):
    return numpy.random.default_rng(seed).random(shape) < 0.6


def _reduction_cases(name, initial=True, where=True, extreme=False, dtypes=NUM):
    out = []
    if where:
        out += [case("where", lambda D: ((D((3, 4)),), {"where": _mask((3, 4)), **({"initial": 2} if extreme else {})})),
                case("where-axis", lambda D: ((D((3, 4)),), {"axis": 1, "where": _mask((4,)),
                                                             **({"initial": -1} if extreme else {})})),
                case("where-keepdims", lambda D: ((D((2, 3, 4)),), {"axis": (0, 2), "keepdims": True, "where": _mask((2, 3, 4)),
                                                                    **({"initial": 0} if extreme else {})})),
                case("where-none-kept", lambda D: ((D((2, 3)),), {"axis": 0, "where": numpy.zeros(3, bool),
                                                                  **({"initial": 1} if extreme else {})})),
                case("where-list", lambda D: ((D((4,)),), {"where": [True, False, True, True],
                                                           **({"initial": 1} if extreme else {})}), layouts=("c",)),
                case("where-bad-shape", lambda D: ((D((3, 4)),), {"where": _mask((3,)), **({"initial": 1} if extreme else {})}),
                     layouts=("c",))]
        if extreme:
            out.append(case("where-no-initial", lambda D: ((D((3, 4)),), {"where": _mask((3, 4))}), layouts=("c",)))
    if initial:
        out += [case("initial", lambda D: ((D((3, 4)),), {"initial": 3})),
                case("initial-axis", lambda D: ((D((3, 4)),), {"axis": 0, "initial": 1})),
                case("initial-float", lambda D: ((D((5,)),), {"initial": 2.5}), layouts=("c",)),
                case("initial-empty", lambda D: ((D((0, 3)),), {"axis": 0, "initial": 4}), layouts=("c",)),
                case("initial-0d", lambda D: ((D(()),), {"initial": 1}), layouts=("c",))]
    return [c[:2] + (dtypes,) + c[3:] if c[2] is NUM else c for c in out]


CASES = {}
for _n in ("sum", "nansum"):
    CASES[f"xpshim.{_n}"] = _reduction_cases(_n)
for _n in ("prod", "nanprod"):  # complex: declined (see DECLINED)
    CASES[f"xpshim.{_n}"] = _reduction_cases(_n, dtypes=tuple(d for d in NUM if d != "complex128"))
for _n in ("max", "amax", "min", "amin", "nanmax", "nanmin"):
    CASES[f"xpshim.{_n}"] = _reduction_cases(_n, extreme=True)
for _n in ("all", "any", "mean", "nanmean"):
    CASES[f"xpshim.{_n}"] = _reduction_cases(_n, initial=False)
CASES["xpshim.mean"] += [case("where-dtype", lambda D: ((D((3, 4)),), {"where": _mask((3, 4)), "dtype": "float32"})),
                         case("where-float16", lambda D: ((D((3, 4), dtype="float16"),), {"where": _mask((3, 4))}),
                              dtypes=("float16",))]
for _n in ("var", "std", "nanvar", "nanstd"):
    CASES[f"xpshim.{_n}"] = _reduction_cases(_n, initial=False) + [
        case("correction", lambda D: ((D((3, 4)),), {"axis": 1, "correction": 1})),
        case("correction-and-ddof", lambda D: ((D((3, 4)),), {"ddof": 1, "correction": 1}), layouts=("c",)),
        case("mean", lambda D: ((D((3, 4)),), {"axis": 1, "keepdims": True,
                                                "mean": numpy.mean(D((3, 4)), axis=1, keepdims=True)})),
        case("where-ddof", lambda D: ((D((3, 5)),), {"axis": 1, "ddof": 2, "where": _mask((3, 5))})),
        case("where-mean", lambda D: ((D((3, 4)),), {"axis": 0, "where": _mask((3, 4)),
                                                      "mean": numpy.zeros((1, 4))})),
    ]
CASES["xpshim.count_nonzero"] = [
    case("keepdims", lambda D: ((D((3, 4)),), {"axis": 1, "keepdims": True})),
    case("keepdims-none", lambda D: ((D((3, 4)),), {"keepdims": True})),
    case("keepdims-tuple", lambda D: ((D((2, 3, 4)),), {"axis": (0, 2), "keepdims": True})),
    case("keepdims-empty", lambda D: ((D((0, 4)),), {"axis": 0, "keepdims": True}), layouts=("c",)),
    case("keepdims-false", lambda D: ((D((3, 4)),), {"axis": 0, "keepdims": False})),
]
for _n in ("sort", "argsort"):
    CASES[f"xpshim.{_n}"] = [
        case("stable", lambda D: ((D((4, 6), low=-2, high=3),), {"stable": True})),
        case("stable-axis0", lambda D: ((D((5, 3), low=-1, high=2),), {"axis": 0, "stable": True})),
        case("stable-none-axis", lambda D: ((D((3, 4), low=-1, high=2),), {"axis": None, "stable": True})),
        case("unstable", lambda D: ((D((7,), low=0, high=40),), {"stable": False}), dtypes=FLOAT + ("int64",)),
        case("stable-empty", lambda D: ((D((0,)),), {"stable": True}), layouts=("c",)),
        case("stable-and-kind", lambda D: ((D((5,)),), {"stable": True, "kind": "stable"}), layouts=("c",)),
    ]
CASES["xpshim.unique"] = [
    case("sorted-false", lambda D: ((D((12,), low=-2, high=3),), {"sorted": False}), dtypes=FLOAT + INT,
         post=xpshim.sort),  # NumPy's order is unspecified there
    case("sorted-true-counts", lambda D: ((D((12,), low=-2, high=3),), {"sorted": True, "return_counts": True}),
         dtypes=FLOAT + INT),
]
CASES["xpshim.take"] = [
    case("raise", lambda D: ((D((3, 4)), numpy.array([0, -1, 2])), {"axis": 1, "mode": "raise"})),
    case("raise-out-of-bounds", lambda D: ((D((3, 4)), numpy.array([0, 4])), {"axis": 1, "mode": "raise"}),
         layouts=("c",)),
    case("raise-negative-out-of-bounds", lambda D: ((D((3, 4)), [-13]), {"mode": "raise"}), layouts=("c",)),
    case("wrap", lambda D: ((D((3, 4)), numpy.array([[5, -7], [11, 0]])), {"axis": 0, "mode": "wrap"})),
    case("clip", lambda D: ((D((3, 4)), numpy.array([-3, 1, 9])), {"mode": "clip"})),
    case("clip-axis", lambda D: ((D((3, 4)), [-3, 1, 9]), {"axis": -1, "mode": "clip"})),
    case("empty-axis", lambda D: ((D((0, 4)), [0]), {"axis": 0, "mode": "wrap"}), layouts=("c",)),
    case("empty-indices", lambda D: ((D((3,)), numpy.array([], dtype=numpy.intp)), {"mode": "raise"}), layouts=("c",)),
    case("bad-mode", lambda D: ((D((3,)), [0]), {"mode": "nearest"}), layouts=("c",)),
    case("0d-index", lambda D: ((D((3, 4)), 2), {"axis": 0, "mode": "raise"}), layouts=("c",)),
]
METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest")
REAL = FLOAT + ("int64", "int8", "float16")


def _all_nan_row(D):
    x = D((3, 5)).astype(float)
    x[1] = numpy.nan
    return x


for _n, _scale in (("nanquantile", 1), ("nanpercentile", 100)):
    CASES[f"xpshim.{_n}"] = [
        case("scalar-q", lambda D, s=_scale: ((D((4, 5)), 0.3 * s), {})),
        case("list-q-axis", lambda D, s=_scale: ((D((4, 5)), [0.0, 0.25 * s, 0.5 * s, 1.0 * s]), {"axis": 1})),
        case("array-q-keepdims", lambda D, s=_scale: ((D((2, 3, 4)), numpy.array([0.1, 0.9]) * s),
                                                      {"axis": (0, 2), "keepdims": True})),
        case("float32-q", lambda D, s=_scale: ((D((4, 5)), numpy.array([0.2, 0.7], numpy.float32) * s), {"axis": 0}),
             dtypes=REAL),
        case("0d-q-axis-none", lambda D, s=_scale: ((D((3, 4)), numpy.array(0.5 * s)), {"keepdims": True})),
        case("all-nan-slice", lambda D, s=_scale: ((_all_nan_row(D), 0.4 * s), {"axis": 1}), dtypes=FLOAT),
        case("empty", lambda D, s=_scale: ((D((0, 3)), 0.5 * s), {"axis": 0}), layouts=("c",)),
        case("0d", lambda D, s=_scale: ((D(()), 0.5 * s), {}), layouts=("c",)),
        case("q-out-of-range", lambda D, s=_scale: ((D((4,)), 1.5 * s), {}), layouts=("c",)),
        case("complex", lambda D, s=_scale: ((D((4,), dtype="complex128"), 0.5 * s), {}), layouts=("c",), dtypes=("c16",)),
        case("bad-method", lambda D, s=_scale: ((D((4,)), 0.5 * s), {"method": "cubic"}), layouts=("c",)),
    ] + [case(f"method-{m}", lambda D, s=_scale, m=m: ((D((5, 7)), [0.0, 0.13 * s, 0.5 * s, 0.75 * s, s]),
                                                       {"axis": 1, "method": m}), dtypes=REAL)
         for m in METHODS] + [case(f"method-{m}-scalar", lambda D, s=_scale, m=m: ((D((6, 4)), 0.37 * s),
                                                                              {"axis": 0, "method": m}),
                                   dtypes=FLOAT + ("int64",), layouts=("c", "strided")) for m in METHODS]

LIN = ("float64", "float32", "complex128", "int64")
CASES.update({
    "xpshim.linalg.diagonal": [case("2d", lambda D: ((D((3, 4)),), {})),
                               case("stack-offset", lambda D: ((D((2, 3, 4)),), {"offset": 1})),
                               case("negative-offset", lambda D: ((D((4, 3)),), {"offset": -2})),
                               case("1d", lambda D: ((D((4,)),), {}), layouts=("c",))],
    "xpshim.linalg.trace": [case("2d", lambda D: ((D((3, 4), special=False),), {})),
                            case("stack-offset-dtype", lambda D: ((D((2, 3, 3), special=False),),
                                                                  {"offset": -1, "dtype": "float64"}))],
    "xpshim.linalg.outer": [case("1d", lambda D: ((D((3,)), D((4,), seed=1)), {})),
                            case("2d-refused", lambda D: ((D((2, 2)), D((2,))), {}), layouts=("c",))],
    "xpshim.linalg.tensordot": [case("axes1", lambda D: ((D((3, 4), special=False), D((4, 2), seed=1, special=False)),
                                                         {"axes": 1})),
                                case("axes-default", lambda D: ((D((2, 3, 4), special=False),
                                                                 D((3, 4), seed=1, special=False)), {}))],
    "xpshim.linalg.svdvals": [case("2d", lambda D: ((D((4, 3), special=False),), {}), dtypes=FLOAT + ("complex128",)),
                              case("stack", lambda D: ((D((2, 3, 3), special=False),), {}), dtypes=FLOAT)],
    "xpshim.linalg.matrix_norm": [case(f"ord-{o}", lambda D, o=o: ((D((2, 3, 4), special=False),), {"ord": o}),
                                       dtypes=LIN) for o in ("fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf)]
                                 + [case("keepdims", lambda D: ((D((3, 4), special=False),), {"keepdims": True}),
                                         dtypes=LIN)],
    "xpshim.linalg.vector_norm": [case(f"ord-{o}", lambda D, o=o: ((D((3, 4), special=False),), {"ord": o}), dtypes=LIN)
                                  for o in (2, 1, 0, 3, -1, numpy.inf, -numpy.inf)]
                                 + [case("axis-tuple-keepdims", lambda D: ((D((2, 3, 4), special=False),),
                                                                           {"axis": (0, 2), "keepdims": True}), dtypes=LIN),
                                    case("axis-int", lambda D: ((D((3, 4)),), {"axis": 1}), dtypes=LIN),
                                    case("keepdims-none", lambda D: ((D((3, 4)),), {"keepdims": True}), dtypes=LIN),
                                    case("0d", lambda D: ((D(()),), {}), layouts=("c",), dtypes=LIN)],
    "xpshim.linalg.multi_dot": [
        case("three", lambda D: (([D((3, 4), special=False), D((4, 5), seed=1, special=False),
                                   D((5, 2), seed=2, special=False)],), {}), dtypes=LIN),
        case("four-vectors", lambda D: (([D((4,), special=False), D((4, 6), seed=1, special=False),
                                          D((6, 3), seed=2, special=False), D((3,), seed=3, special=False)],), {}),
             dtypes=LIN),
        case("five", lambda D: (([D((2, 7), special=False), D((7, 3), seed=1, special=False), D((3, 8), seed=2, special=False),
                                  D((8, 1), seed=3, special=False), D((1, 4), seed=4, special=False)],), {}), dtypes=LIN),
        case("two", lambda D: (([D((2, 3)), D((3, 2), seed=1)],), {}), dtypes=LIN),
        case("one", lambda D: (([D((2, 3))],), {}), layouts=("c",)),
        case("3d-refused", lambda D: (([D((2, 2, 2)), D((2, 2)), D((2, 2))],), {}), layouts=("c",)),
    ],
})
for _n in ("xpshim.linalg.vecdot", "xpshim.vecdot"):
    CASES[_n] = [case("1d", lambda D: ((D((5,), special="real"), D((5,), seed=1, special="real")), {}), dtypes=NUM + INT),
                 case("broadcast", lambda D: ((D((3, 4), special="real"), D((4,), seed=1, special="real")), {}), dtypes=NUM),
                 case("axis0", lambda D: ((D((4, 3), special="real"), D((4, 3), seed=1, special="real")), {"axis": 0}), dtypes=NUM),
                 case("empty", lambda D: ((D((2, 0), special="real"), D((2, 0), seed=1, special="real")), {}), layouts=("c",)),
                 case("mismatch", lambda D: ((D((3,), special="real"), D((4,), special="real")), {}), layouts=("c",)),
                 case("0d", lambda D: ((D((), special="real"), D((), special="real")), {}), layouts=("c",))]
for _n in ("matvec", "vecmat"):
    CASES[f"xpshim.{_n}"] = [
        case("2d", lambda D, n=_n: ((D((3, 4), special="real"), D((4,), seed=1, special="real")) if n == "matvec" else (D((3,), special="real"), D((3, 4), seed=1, special="real")), {}),
             dtypes=NUM + INT),
        case("stack", lambda D, n=_n: ((D((2, 3, 4), special="real"), D((2, 4), seed=1, special="real")) if n == "matvec" else
                                       (D((2, 3), special="real"), D((2, 3, 4), seed=1, special="real")), {}), dtypes=NUM),
        case("mismatch", lambda D, n=_n: ((D((3, 4), special="real"), D((3,), special="real")) if n == "matvec" else (D((4,), special="real"), D((3, 4), special="real")), {}),
             layouts=("c",)),
    ]

def _on_gpu_side(v):
    """A callback's check: on the GPU side it gets xpshim arrays, never raw CuPy ones."""
    assert isinstance(v, (numpy.ndarray, xpshim.ndarray)) and "cupy" not in type(v).__module__, type(v)
    return v


CASES.update({
    "xpshim.apply_along_axis": [
        case("scalar-result", lambda D: ((lambda v: xpshim.sum(_on_gpu_side(v)) * 2, 1, D((3, 4))), {})),
        case("vector-result", lambda D: ((lambda v: xpshim.sort(_on_gpu_side(v))[::-1], 0, D((3, 4))), {})),
        case("matrix-result", lambda D: ((lambda v: xpshim.outer(v, v), -1, D((2, 3))), {}), layouts=("c",)),
        case("args-kwargs", lambda D: ((lambda v, k, s=1: v[:k] * s, 1, D((2, 4)), 2), {"s": 3}), layouts=("c",)),
        case("empty-iteration", lambda D: ((xpshim.sum, 0, D((3, 0))), {}), layouts=("c",))],
    "xpshim.apply_over_axes": [
        case("sum", lambda D: ((xpshim.sum, D((2, 3, 4)), [0, 2]), {})),
        case("negative-axis", lambda D: ((xpshim.max, D((2, 3)), -1), {}), dtypes=("float64", "int32")),
        case("wrong-shape", lambda D: ((lambda a, ax: xpshim.sum(a), D((2, 3)), [0]), {}), layouts=("c",))],
    "xpshim.piecewise": [
        case("callables", lambda D: ((D((6,)), [D((6,)) > 0.3, D((6,)) <= 0.3], [lambda v: -_on_gpu_side(v), lambda v: v * 2]), {}),
             dtypes=("float64", "float32")),
        case("scalars-otherwise", lambda D: ((D((2, 3)), [D((2, 3)) < 0.5], [1.5, -1.0]), {}), dtypes=("float64",)),
        case("args", lambda D: ((D((5,)), [D((5,)) > 0.2], [lambda v, k: v + k, 0], 10), {}), dtypes=("float64",)),
        case("too-few-functions", lambda D: ((D((4,)), [D((4,)) > 0.1, D((4,)) > 0.5], [1]), {}), dtypes=("float64",),
             layouts=("c",))],
})

# windows: NumPy's formulas in float64 (CuPy's take their step as float32); sizes 0 and 1 are
# NumPy's special cases, 5.5 a float size
for _w in ("hanning", "hamming", "blackman", "bartlett"):
    CASES[f"xpshim.{_w}"] = [case(f"M={m}", lambda D, m=m: ((m,), {}), dtypes=("float64",), layouts=("c",))
                             for m in (-1, 0, 1, 2, 9, 5.5, 1000)]
CASES["xpshim.kaiser"] = [case(f"M={m}", lambda D, m=m: ((m, 8.6), {}), dtypes=("float64",), layouts=("c",))
                          for m in (0, 1, 2, 9, 1000)]

CASES["xpshim.roots"] = [  # (CuPy's own takes real symmetric companion matrices only)
    case("complex-pair", lambda D: ((numpy.array([1.0, 1.0, 1.0]),), {}), dtypes=("float64",), layouts=("c",),
         post=lambda r: (xpshim if type(r) is xpshim.ndarray else numpy).sort_complex(r)),
    case("real", lambda D: ((numpy.array([1.0, -6.0, 11.0, -6.0]),), {}), dtypes=("float64",), layouts=("c",),
         post=lambda r: (xpshim if type(r) is xpshim.ndarray else numpy).sort(r)),
    case("leading-zeros", lambda D: ((numpy.array([0.0, 0.0, 2.0, -4.0]),), {}), dtypes=("float64",), layouts=("c",)),
    case("2d", lambda D: ((numpy.ones((2, 2)),), {}), dtypes=("float64",), layouts=("c",))]

# byte_bounds: addresses differ between host and device; the span they bound must not
# (contiguous inputs only: a strided host view becomes a contiguous GPU array; test_byte_bounds_of_views below)
CASES["xpshim.lib.array_utils.byte_bounds"] = [
    case("span", lambda D: ((D((3, 4)),), {}), layouts=("c",), post=lambda r: r[1] - r[0]),
    case("empty", lambda D: ((D((0, 3)),), {}), layouts=("c",), post=lambda r: r[1] - r[0])]


def test_byte_bounds_of_views(gpu):
    h = numpy.arange(24.0).reshape(4, 6)
    d = xpshim.asarray(h)
    for key in (numpy.s_[::-1, 1::2], numpy.s_[2:, ::-3], numpy.s_[1]):
        want = numpy.lib.array_utils.byte_bounds(h[key])
        got = xpshim.lib.array_utils.byte_bounds(d[key])
        base = numpy.lib.array_utils.byte_bounds(h)[0], xpshim.lib.array_utils.byte_bounds(d)[0]
        assert (got[0] - base[1], got[1] - base[1]) == (want[0] - base[0], want[1] - base[0]), key
    assert not xpshim.stats()["fallbacks"]

CASES["xpshim.block"] = [
    case("2x2", lambda D: (([[D((2, 2)), D((2, 3), seed=1)], [D((1, 2), seed=2), D((1, 3), seed=3)]],), {})),
    case("1d", lambda D: (([D((2,)), D((3,), seed=1)],), {})),
]

# reshape's NumPy 2.1 / array API keywords (shape=, copy=), which CuPy's reshape lacks
CASES["xpshim.reshape"] = [
    case("shape", lambda D: ((D((3, 4)),), {"shape": (4, 3)})),
    case("shape-F", lambda D: ((D((3, 4)),), {"shape": (2, 6), "order": "F"})),
    case("copy-true", lambda D: ((D((2, 6)),), {"shape": (3, 4), "copy": True})),
    case("copy-false-view", lambda D: ((D((2, 6)),), {"shape": (12,), "copy": False}), layouts=("c",)),
    case("newshape", lambda D: ((D((2, 3)),), {"newshape": (3, 2)})),
]

# NumPy's own code run on CuPy (xpshim/_gaps/numpy_code.py)
POLY = FLOAT + ("int64", "complex128")
EMATH = FLOAT + ("int64", "int8", "uint8", "complex128", "complex64")


def P(D, shape, seed=0):
    return D(shape, special=False, seed=seed)


for _m in ("emath", "lib.scimath"):
    for _n in ("sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"):
        CASES[f"xpshim.{_m}.{_n}"] = [case("mixed-signs", lambda D: ((D((3, 4), low=-3, high=4),), {}),
                                           dtypes=EMATH),
                                      case("in-domain", lambda D: ((abs(D((5,), special=False, low=0, high=2)) * 0.5,), {}),
                                           dtypes=EMATH)]
    CASES[f"xpshim.{_m}.logn"] = [case("mixed-signs", lambda D: ((D((3,), seed=1, low=-3, high=4), D((3, 4), low=-3, high=4)), {}),
                                       dtypes=EMATH),
                                  case("scalar-base", lambda D: ((2, D((4,), low=-3, high=4)), {}), dtypes=EMATH)]
    CASES[f"xpshim.{_m}.power"] = [case("negative-base", lambda D: ((D((3, 4), low=-3, high=4), 2), {}), dtypes=EMATH),
                                   case("negative-exponent", lambda D: ((D((4,), special=False, low=1, high=4),
                                                                         numpy.array([-1, 2, -2, 1])), {}), dtypes=EMATH)]

_PP = "xpshim.polynomial.polynomial."
CASES.update({
    _PP + "polyadd": [case("two", lambda D: ((P(D, (4,)), P(D, (2,), 1)), {}), dtypes=POLY),
                      case("list", lambda D: (([1, 2], P(D, (3,))), {}), dtypes=POLY, layouts=("c",))],
    _PP + "polysub": [case("two", lambda D: ((P(D, (2,)), P(D, (4,), 1)), {}), dtypes=POLY)],
    _PP + "polymul": [case("two", lambda D: ((P(D, (3,)), P(D, (4,), 1)), {}), dtypes=POLY)],
    _PP + "polymulx": [case("one", lambda D: ((P(D, (3,)),), {}), dtypes=POLY)],
    _PP + "polydiv": [case("two", lambda D: ((P(D, (5,)), numpy.array([1.0, 2.0, 0.5])), {}), dtypes=POLY),
                      case("by-zero", lambda D: ((P(D, (3,)), numpy.array([0.0])), {}), dtypes=FLOAT, layouts=("c",))],
    _PP + "polypow": [case("cube", lambda D: ((P(D, (3,)), 3), {}), dtypes=POLY),
                      case("negative", lambda D: ((P(D, (3,)), -1), {}), dtypes=FLOAT, layouts=("c",))],
    _PP + "polyder": [case("m2-scl", lambda D: ((P(D, (5,)),), {"m": 2, "scl": 3}), dtypes=POLY),
                      case("axis", lambda D: ((P(D, (4, 3)),), {"axis": 1}), dtypes=FLOAT),
                      case("negative-m", lambda D: ((P(D, (4,)),), {"m": -1}), dtypes=FLOAT, layouts=("c",))],
    _PP + "polyint": [case("m2-k", lambda D: ((P(D, (4,)),), {"m": 2, "k": [1, 2], "lbnd": 1}), dtypes=POLY),
                      case("axis", lambda D: ((P(D, (4, 3)),), {"axis": 0, "scl": 2}), dtypes=FLOAT)],
    _PP + "polyfromroots": [case("roots", lambda D: ((P(D, (4,)),), {}), dtypes=POLY)],
    _PP + "polyroots": [case("real", lambda D: ((numpy.array([-6.0, 11.0, -6.0, 1.0]),), {}), dtypes=("float64",),
                             layouts=("c",)),
                        case("linear", lambda D: ((P(D, (2,)),), {}), dtypes=FLOAT),
                        case("constant", lambda D: ((P(D, (1,)),), {}), dtypes=FLOAT, layouts=("c",))],
    _PP + "polyline": [case("scalars", lambda D: ((2, 3), {}), dtypes=("float64",), layouts=("c",))],
    _PP + "polytrim": [case("tol", lambda D: ((numpy.array([1.0, 2.0, 1e-9, 0.0]),), {"tol": 1e-6}), dtypes=("float64",),
                            layouts=("c",)),
                       case("all-small", lambda D: ((numpy.array([1e-9, 0.0]),), {"tol": 1e-6}), dtypes=("float64",),
                            layouts=("c",))],
    _PP + "polyfit": [case("cubic", lambda D: ((numpy.linspace(-1, 1, 9), numpy.linspace(-1, 1, 9) ** 3 - 0.5), {"deg": 3}),
                           dtypes=("float64",), layouts=("c",)),
                      case("degrees-full", lambda D: ((numpy.linspace(0, 2, 7), numpy.linspace(0, 2, 7) ** 2), {"deg": [0, 2],
                                                                                                              "full": True}),
                           dtypes=("float64",), layouts=("c",), post=lambda r: r[0]),
                      case("bad-deg", lambda D: ((numpy.arange(3.0), numpy.arange(3.0)), {"deg": -1}), dtypes=("float64",),
                           layouts=("c",))],
    _PP + "polyval2d": [case("grid", lambda D: ((P(D, (4,)), P(D, (4,), 1), P(D, (2, 3), 2)), {}), dtypes=POLY)],
    _PP + "polyval3d": [case("grid", lambda D: ((P(D, (3,)), P(D, (3,), 1), P(D, (3,), 2), P(D, (2, 2, 2), 3)), {}), dtypes=POLY)],
    _PP + "polygrid2d": [case("grid", lambda D: ((P(D, (4,)), P(D, (3,), 1), P(D, (2, 3), 2)), {}), dtypes=POLY)],
    _PP + "polygrid3d": [case("grid", lambda D: ((P(D, (2,)), P(D, (3,), 1), P(D, (2,), 2), P(D, (2, 2, 2), 3)), {}),
                              dtypes=POLY)],
    _PP + "polyvander2d": [case("deg", lambda D: ((P(D, (4,)), P(D, (4,), 1), [1, 2]), {}), dtypes=POLY)],
    _PP + "polyvander3d": [case("deg", lambda D: ((P(D, (4,)), P(D, (4,), 1), P(D, (4,), 2), [1, 2, 1]), {}), dtypes=POLY)],
    "xpshim.polynomial.polyutils.getdomain": [case("real", lambda D: ((P(D, (5,)),), {}), dtypes=FLOAT + ("int64",)),
                                              case("complex", lambda D: ((P(D, (5,)),), {}), dtypes=("complex128",))],
    "xpshim.polynomial.polyutils.mapdomain": [case("lists", lambda D: ((P(D, (5,)), [-1, 1], [0, 3]), {}), dtypes=FLOAT)],
    "xpshim.polynomial.polyutils.mapparms": [case("arrays", lambda D: ((P(D, (2,)), P(D, (2,), 1)), {}), dtypes=FLOAT)],
})

CASES.update({
    "xpshim.insert": [case("scalar", lambda D: ((D((3, 4)), 1, 9), {})),
                      case("axis-list", lambda D: ((D((3, 4)), [1, 3], D((2,), seed=1)), {"axis": 1})),
                      case("slice", lambda D: ((D((3, 4)), slice(0, 2), 5), {"axis": 0})),
                      case("array-index", lambda D: ((D((5,)), numpy.array([0, 2, 2]), D((3,), seed=1)), {})),
                      case("negative", lambda D: ((D((5,)), -2, 7), {})),
                      case("out-of-bounds", lambda D: ((D((5,)), 9, 1), {}), layouts=("c",)),
                      case("2d-index", lambda D: ((D((5,)), numpy.array([[0, 1]]), 1), {}), layouts=("c",))],
    "xpshim.geomspace": [case("scalars", lambda D: ((1, 1000, 4), {}), dtypes=("float64",), layouts=("c",)),
                         case("arrays-axis", lambda D: ((numpy.array([1.0, -2.0]), numpy.array([16.0, -32.0])),
                                                        {"num": 5, "axis": 1, "endpoint": False}), dtypes=("float64",),
                              layouts=("c",)),
                         case("complex", lambda D: ((1j, 1000j), {"num": 4}), dtypes=("float64",), layouts=("c",)),
                         # (an integer dtype runs on the host, by design: the GPU's last bits cast down)
                         case("dtype", lambda D: ((numpy.array([2.0, 3.0]), 100.0), {"num": 3, "dtype": "float32"}),
                              dtypes=("float64",), layouts=("c",)),
                         case("zero", lambda D: ((numpy.array([0.0, 1.0]), 10), {}), dtypes=("float64",), layouts=("c",))],
    "xpshim.unstack": [case("axis0", lambda D: ((D((3, 4)),), {})),
                       case("axis-neg", lambda D: ((D((2, 3, 4)),), {"axis": -1})),
                       case("0d", lambda D: ((D(()),), {}), layouts=("c",))],
    "xpshim.histogram_bin_edges": [
        case(f"bins-{b}", lambda D, b=b: ((D((40,), special=False, seed=3),), {"bins": b}), dtypes=FLOAT + ("int64",))
        for b in ("auto", "fd", "doane", "scott", "rice", "sturges", "sqrt", 7)] + [
        case("range", lambda D: ((D((40,), special=False),), {"bins": 5, "range": (-1, 2)}), dtypes=FLOAT + ("int64",)),
        case("array-bins", lambda D: ((D((10,), special=False), numpy.array([-3.0, 0.0, 4.0])), {})),
        case("not-monotonic", lambda D: ((D((10,), special=False), numpy.array([0.0, -1.0])), {}), layouts=("c",)),
        case("not-finite", lambda D: ((D((10,)),), {}), dtypes=FLOAT, layouts=("c",)),
        case("weights-shape", lambda D: ((D((10,), special=False),), {"weights": numpy.ones(3)}), layouts=("c",))],
    "xpshim.polyder": [case("m2", lambda D: ((P(D, (5,)),), {"m": 2}), dtypes=POLY),
                       case("m0", lambda D: ((P(D, (3,)),), {"m": 0}), dtypes=POLY),
                       case("negative", lambda D: ((P(D, (3,)),), {"m": -1}), dtypes=FLOAT, layouts=("c",))],
    "xpshim.polyint": [case("m2-k", lambda D: ((P(D, (4,)),), {"m": 2, "k": [1, 2]}), dtypes=POLY),
                       case("k-scalar", lambda D: ((P(D, (4,)),), {"m": 3, "k": 2}), dtypes=FLOAT),
                       case("bad-k", lambda D: ((P(D, (4,)),), {"m": 3, "k": [1, 2]}), dtypes=FLOAT, layouts=("c",))],
    "xpshim.polydiv": [case("two", lambda D: ((P(D, (5,)), numpy.array([1.0, 2.0, 0.5])), {}), dtypes=POLY),
                       case("longer-divisor", lambda D: ((P(D, (2,)), P(D, (4,), 1)), {}), dtypes=FLOAT)],
    "xpshim.trim_zeros": [case("axis0", lambda D: ((numpy.pad(D((2, 3), low=1, high=4), 2),), {"axis": 0})),
                          case("axis-tuple-f", lambda D: ((numpy.pad(D((2, 3), low=1, high=4), 1),), {"axis": (0, 1),
                                                                                                    "trim": "f"})),
                          case("all-zero", lambda D: ((numpy.zeros((3, 4), D((1,)).dtype),), {"axis": -1}), layouts=("c",)),
                          # (NumPy's TestTrimZeros::test_multiple_axes failed so on the H200: axis=None, trim="b")
                          *[case(f"axis-none-{t}", lambda D, t=t: ((numpy.pad(D((2, 3, 2), low=1, high=4), 1),),
                                                                   {"axis": None, "trim": t})) for t in ("b", "f", "fb")],
                          case("bad-trim", lambda D: ((D((3,)),), {"axis": 0, "trim": "x"}), layouts=("c",))],
    "xpshim.packbits": [case(f"axis{ax}-{bo}", lambda D, ax=ax, bo=bo: ((D((3, 13), dtype=dt),), {"axis": ax, "bitorder": bo}),
                             dtypes=("bool", "uint8", "int64"))
                        for ax in (0, 1, -1, None) for bo in ("big", "little") for dt in ("bool",)] + [
                        case("float", lambda D: ((D((3,), dtype="float64"),), {"axis": 0}), dtypes=("float64",), layouts=("c",)),
                        case("bad-order", lambda D: ((D((3,), dtype="bool"),), {"axis": 0, "bitorder": "x"}), dtypes=("bool",),
                             layouts=("c",))],
    "xpshim.unpackbits": [case(f"axis{ax}-count{c}-{bo}", lambda D, ax=ax, c=c, bo=bo: (
                                (D((3, 2), dtype="uint8", low=0, high=256),), {"axis": ax, "count": c, "bitorder": bo}),
                               dtypes=("uint8",))
                          for ax in (0, 1, None) for c in (None, 3, 20, -3) for bo in ("big", "little")] + [
                          case("count-too-negative", lambda D: ((D((3, 2), dtype="uint8"),), {"axis": 1, "count": -17}),
                               dtypes=("uint8",), layouts=("c",)),
                          case("not-uint8", lambda D: ((D((3,), dtype="int64"),), {"axis": 0}), dtypes=("int64",),
                               layouts=("c",))],
    "xpshim.spacing": [case("values", lambda D: ((D((3, 4)),), {}), dtypes=FLOAT + ("float16", "int8", "int64", "bool")),
                       case("edges", lambda D: ((numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, 5e-324,
                                                              numpy.finfo(float).max]),), {}), dtypes=("float64",),
                            layouts=("c",))],
    "xpshim.einsum_path": [case("greedy", lambda D: (("ij,jk,kl->il", D((3, 4)), D((4, 5)), D((5, 2))), {}), post=str),
                           case("optimal", lambda D: (("ij,jk,kl,lm", D((2, 9)), D((9, 3)), D((3, 8)), D((8, 2))),
                                                      {"optimize": "optimal"}), post=str, layouts=("c",)),
                           case("bad-shapes", lambda D: (("ij,jk", D((3, 4)), D((5, 2))), {}), layouts=("c",))],
})
for _n, _s in (("quantile", 1), ("percentile", 100)):
    CASES[f"xpshim.{_n}"] = [
        case("weights", lambda D, s=_s: ((D((4, 5), special=False), [0.0, 0.3 * s, s]),
                                         {"method": "inverted_cdf", "weights": abs(D((4, 5), seed=2, special=False))}),
             dtypes=FLOAT + ("int64",)),
        case("weights-axis", lambda D, s=_s: ((D((4, 5), special=False), 0.5 * s),
                                              {"axis": 1, "method": "inverted_cdf", "weights": abs(D((4, 5), seed=2, special=False))}),
             dtypes=FLOAT + ("int64",)),
        case("weights-1d-axis", lambda D, s=_s: ((D((4, 5), special=False), 0.7 * s),
                                                 {"axis": 0, "method": "inverted_cdf", "weights": numpy.array([1.0, 2.0, 0.0, 3.0])}),
             dtypes=FLOAT),
        case("weights-keepdims", lambda D, s=_s: ((D((3, 4), special=False), 0.2 * s),
                                                  {"axis": 1, "keepdims": True, "method": "inverted_cdf",
                                                   "weights": numpy.ones((3, 4))}), dtypes=FLOAT, layouts=("c",)),
        case("weights-other-method", lambda D, s=_s: ((D((4,)), 0.5 * s), {"weights": numpy.ones(4)}), layouts=("c",)),
        case("weights-negative", lambda D, s=_s: ((D((4,)), 0.5 * s), {"method": "inverted_cdf",
                                                                        "weights": numpy.array([1.0, -1.0, 1.0, 1.0])}),
             layouts=("c",), dtypes=FLOAT)]
    # the methods CuPy lacks (NumPy's _quantile, sorting where it partitions at array positions),
    # and weights=None passed as NumPy's own tests pass it
    CASES[f"xpshim.{_n}"] += [
        case(f"method-{m}", lambda D, s=_s, m=m: ((D((4, 5), special=False), [0.1 * s, 0.5 * s, s]),
                                                  {"axis": 1, "method": m}), dtypes=FLOAT + ("int64",))
        for m in ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                  "hazen", "weibull", "median_unbiased", "normal_unbiased")]
    CASES[f"xpshim.{_n}"] += [
        case("weights-none", lambda D, s=_s: ((D((7,), special=False), 0.4 * s), {"method": "hazen", "weights": None}),
             dtypes=FLOAT, layouts=("c",)),
        case("method-linear-nan", lambda D, s=_s: ((D((3, 4)), 0.5 * s), {"method": "linear", "axis": 0}),
             dtypes=FLOAT)]


# Cases the GPU version declines: they run on the host, visibly, and still match NumPy.
DECLINED = {
    "prod-complex-where": ("prod", lambda: ((data((3, 4), "complex128"),), {"where": _mask((3, 4))})),
    "nanprod-complex-initial": ("nanprod", lambda: ((data((3, 4), "complex128"),), {"initial": 2})),
    "nanquantile-weights": ("nanquantile", lambda: ((data((3, 4)), 0.5), {"axis": 1, "method": "inverted_cdf",
                                                                         "weights": numpy.ones((3, 4))})),
}


@pytest.mark.parametrize("label", sorted(DECLINED))
def test_declined_runs_on_host(gpu, label):
    name, make = DECLINED[label]
    args, kwargs = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = resolve(numpy, name)(*args, **kwargs)
        got = resolve(xpshim, name)(*[_xp(a) for a in args], **{k: _xp(v) for k, v in kwargs.items()})
    assert xpshim.stats()["fallbacks"], "expected a visible host fallback"
    numpy.testing.assert_array_equal(xpshim.asnumpy(got), expected)


CASES["xpshim.clip"] = [  # (NumPy's argument handling and NaN propagation; CuPy's kernel keeps x at a NaN bound)
    case("numbers", lambda D: ((D((3, 4)), -0.5, 0.5), {})),
    case("nan-min", lambda D: ((D((5,)),), {"min": numpy.nan}), dtypes=FLOAT),
    case("nan-max", lambda D: ((D((5,)), -1.0, numpy.nan), {}), dtypes=FLOAT),
    case("keywords", lambda D: ((D((4,)),), {"min": 0, "max": 2})),
    case("no-bounds", lambda D: ((D((4,)),), {}), layouts=("c",)),
    case("array-bounds", lambda D: ((D((3, 4)), numpy.zeros(4), numpy.full((3, 1), 0.5)), {}), dtypes=FLOAT),
    case("missing-max", lambda D: ((D((4,)), 1), {}), layouts=("c",)),
    case("both-ways", lambda D: ((D((4,)), 1, 2), {"min": 0}), layouts=("c",)),
    case("int-past-range", lambda D: ((D((4,)), -10**30, 10**30), {}), dtypes=("int8", "int32"), layouts=("c",)),
    case("dtype-unsafe", lambda D: ((D((4,)), 0, 3), {"dtype": numpy.float32, "casting": "unsafe"}), layouts=("c",)),
]

CASES["xpshim.lib.stride_tricks.as_strided"] = [  # (check_bounds=: NumPy 2.5; its byte bounds: test_edges.py)
    case("subok", lambda D: ((D((6,)),), {"shape": (2, 3), "subok": True}), layouts=("c",)),
    *([case("check-bounds", lambda D: ((D((6,)),), {"shape": (2, 3), "check_bounds": True}), layouts=("c",))]
      if "check_bounds" in inspect.signature(numpy.lib.stride_tricks.as_strided).parameters else []),
]

CASES["xpshim.select"] = [  # (NumPy's checks and dtypes: Python numbers weak, conditions booleans only)
    case("basic", lambda D: (([D((4,), "bool", seed=1), D((4,), "bool", seed=2)], [D((4,)), D((4,), seed=3)]), {})),
    case("default", lambda D: (([D((3, 4), "bool", seed=1)], [D((3, 4))]), {"default": 7})),
    case("broadcast", lambda D: (([numpy.array(True), D((3,), "bool", seed=2)], [1, D((4, 3))]), {})),
    case("complex-default", lambda D: (([D((4,), "bool", seed=1)], [D((4,))]), {"default": 1j}), dtypes=FLOAT + ("int8",)),
    case("int-conditions", lambda D: (([D((4,), "int64", seed=1)], [D((4,))]), {}), dtypes=FLOAT, layouts=("c",)),
    case("lengths", lambda D: (([D((4,), "bool")], [D((4,)), D((4,))]), {}), dtypes=FLOAT, layouts=("c",)),
]
CASES["xpshim.float_power"] = [  # (widened first: CuPy's complex64 loop computes in complex64)
    case("scalar", lambda D: ((D((3, 4)), 300), {}), dtypes=("float32", "float64", "complex64", "int32")),
    case("arrays", lambda D: ((D((3, 4)), D((4,), low=1, high=3)), {}), dtypes=("float32", "complex64", "int16")),
    case("out", lambda D: ((D((3, 4)), 2.5), {"out": numpy.zeros((3, 4), numpy.complex128)}), dtypes=("complex64",)),
]
CASES["xpshim.sinc"] = [  # (NumPy's own: integers and booleans become float64)
    case("values", lambda D: ((D((3, 4)),), {}), dtypes=FLOAT + ("int16", "uint8", "bool", "int64", "complex128")),
    case("0d", lambda D: ((D(()),), {}), dtypes=FLOAT),
]
CASES["xpshim.histogramdd"] = [  # (NumPy's own: counts and edges mixed per dimension, lists of samples)
    case("count", lambda D: ((D((30, 2), special=False, seed=4),), {"bins": 4}), dtypes=FLOAT + ("int64",)),
    case("mixed", lambda D: ((D((30, 2), special=False, seed=5), [3, [-10.0, 0.0, 0.5, 10.0]]), {})),
    case("weights-density", lambda D: ((D((20, 3), special=False, seed=6),),
                                       {"bins": (2, 3, 4), "weights": D((20,), special=False, seed=7), "density": True}),
         dtypes=("float64",)),
    case("range", lambda D: ((D((25, 2), special=False),), {"bins": 5, "range": [(-1, 1), (-2, 2)]}), dtypes=FLOAT),
    case("not-finite", lambda D: ((D((10, 2)),), {}), dtypes=FLOAT, layouts=("c",)),
]
CASES["xpshim.pad"] = [  # (NumPy's own pad: its checks, and mode="median", which CuPy's lacks)
    case(mode, lambda D, mode=mode: ((D((3, 4)), ((1, 2), (3, 1))), {"mode": mode}))
    for mode in ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect",
                 "symmetric", "wrap")
] + [
    case("reflect-long", lambda D: ((D((3,)), 7), {"mode": "reflect"})),  # the pad longer than the array
    case("odd", lambda D: ((D((4,)), (5, 2)), {"mode": "symmetric", "reflect_type": "odd"}), dtypes=("float64",)),
    case("stat-length", lambda D: ((D((5, 4)), 2), {"mode": "mean", "stat_length": ((1, 2), (2, 1))}),
         dtypes=("float64",)),
    case("constant-values", lambda D: ((D((2, 3)), (1, 2)), {"constant_values": (4, 6)})),
    case("negative-width", lambda D: ((D((3,)), -1), {}), layouts=("c",)),
    case("float-width", lambda D: ((D((3,)), 1.5), {}), layouts=("c",)),
    *[case(f"misshaped-width-{i}", lambda D, w=w: ((D((6, 5)), w), {"mode": "edge"}), layouts=("c",), dtypes=("int64",))
      for i, w in enumerate([(4, 5, 6, 7), ((1,), (2,), (3,)), ((1, 2), (3, 4), (5, 6)), ((3, 4, 5), (0, 1, 2))])],
]


def _params():
    for name in sorted(CASES):
        for label, make, dtypes, layouts, post in CASES[name]:
            for dt in dtypes:
                for lay in layouts:
                    yield pytest.param(name, make, dt, lay, post, id=f"{name.removeprefix('xpshim.')}-{label}-{dt}-{lay}")


def test_every_entry_has_cases():
    # the generic ufunc methods ("ufunc.reduce", ...) have their own file: test_ufunc_methods.py;
    # the random Generator methods theirs: test_random_gaps.py (and test_random_stats.py)
    # (poly declines every call: NumPy's on the host, a visible fallback; test_edges.py)
    missing = sorted(n for n in set(_gaps.table()) - set(CASES) - {"xpshim.poly"} if not n.startswith(("ufunc.", "random.")))
    assert not missing, f"gap table entries without cases in tests/gpu_side/test_gaps.py: {missing}"


def test_every_case_is_an_entry():
    assert not sorted(set(CASES) - set(_gaps.table()))


@pytest.mark.parametrize("name, make, dtype, layout, post", list(_params()))
def test_gap(gpu, name, make, dtype, layout, post):
    def D(shape, dtype=dtype, layout=layout, **kw):
        return data(shape, dtype, layout if shape else "c", **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args, kwargs = make(D)
    qual = name.removeprefix("xpshim.")
    nf, xf = resolve(numpy, qual), resolve(xpshim, qual)
    # (NumPy's Python loops over coefficients: declined, NumPy's on the host; _gaps/numpy_code.LOOPS)
    on_host = qual.startswith("polynomial.polynomial.") and qual.rpartition(".")[2] in numpy_code.LOOPS
    compare(nf, xf, args, kwargs, f"{name}({dtype}, {layout}, {kwargs})", post=post, on_host=on_host)

