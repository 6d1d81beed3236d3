"""NumPy functions CuPy lacks that are Python code over functions CuPy has: NumPy's own code
run on CuPy (``_rebind``), so each is NumPy's algorithm, checks and exceptions, step for step
on GPU arrays. numpy.polynomial.polynomial and polyutils, numpy.emath, and at the top level
insert, geomspace, unstack, histogram_bin_edges, histogramdd, trim_zeros(axis=),
quantile/percentile(weights=), polyder, polyint, polydiv, pad, sinc.
"""

import numpy
import numpy.polynomial.polynomial as _P
import numpy.polynomial.polyutils as _pu
import numpy.lib._scimath_impl as _scimath
import numpy._core.function_base as _function_base
import numpy._core.shape_base as _shape_base
import numpy.lib._function_base_impl as _function_base_impl
import numpy.lib._histograms_impl as _histograms
import numpy.lib._polynomial_impl as _polynomial

from ._table import Decline, implements
from ._rebind import late, on_device, patch_in, patched, rebind


def _xp():
    from .. import _backend
    return _backend.xp


def _eigvals(a):
    # numpy.linalg.eigvals returns a real array when every eigenvalue is real
    xp = _xp()
    w = xp.linalg.eigvals(a)
    if w.dtype.kind == "c" and not bool(xp.any(w.imag != 0)):
        w = w.real.astype(numpy.result_type(a.dtype, numpy.float64) if a.dtype.kind != "c" else w.real.dtype)
    return w


_np = on_device(linalg=lambda: on_device(numpy.linalg, "linalg", eigvals=lambda: _eigvals))
def _as_int(x, desc):
    # NumPy's 0-d arrays are integers to operator.index; CuPy's are not
    if isinstance(x, _xp().ndarray) and x.ndim == 0 and x.dtype.kind in "iu":
        x = int(x)
    return _pu._as_int(x, desc)


PU = rebind(_pu, {"np": _np, "_as_int": _as_int})
P = rebind(_P, {"np": _np, "pu": PU})

# CuPy has polyval, polyvander, polycompanion and polyvalfromroots; the rest is here.
POLYNOMIAL = ("polyadd", "polysub", "polymul", "polymulx", "polydiv", "polypow", "polyder", "polyint",
              "polyfromroots", "polyroots", "polyline", "polytrim", "polyfit", "polyval2d", "polyval3d",
              "polygrid2d", "polygrid3d", "polyvander2d", "polyvander3d")
POLYUTILS = ("getdomain", "mapdomain", "mapparms")

# NumPy's code for these loops in Python over the coefficients (or the roots, or the quotient's
# terms), one element read or write a step: on GPU arrays each step is a device call, and a read a
# wait for the device (an H100: polyder of 10**6 coefficients predicted at 23.6 s against NumPy's
# 0.15 s, polydiv 80x slower at 10**5; benchmarks/RESULTS.md, "Cliffs"). They run NumPy's on the
# host, a visible fallback (a few coefficients copied each way).
LOOPS = {
    "polyder": "NumPy's polyder writes the derivative's coefficients one by one in a Python loop",
    "polyint": "NumPy's polyint writes the integral's coefficients one by one in a Python loop",
    "polydiv": "NumPy's polydiv reads the quotient's terms one by one in a Python loop",
    "polyfromroots": "NumPy's polyfromroots makes one array per root in a Python loop",
}


def _on_host(name, why):
    def decline(*args, **kwargs):
        raise Decline(why + ": on the host")
    decline.__name__ = decline.__qualname__ = f"{name}_on_host"
    decline.__doc__ = f"numpy.polynomial.polynomial.{name} on GPU arrays: NumPy's on the host ({why})."
    return decline


for _n in POLYNOMIAL:
    # (polytrim is polyutils.trimcoef under another name)
    implements(f"xpshim.polynomial.polynomial.{_n}")(
        _on_host(_n, LOOPS[_n]) if _n in LOOPS else PU.trimcoef if _n == "polytrim" else getattr(P, _n))
for _n in POLYUTILS:
    implements(f"xpshim.polynomial.polyutils.{_n}")(getattr(PU, _n))

# numpy.emath (numpy.lib.scimath): a real input with values out of the real domain becomes
# complex first (NumPy checks the values: one reduction), then CuPy's ufunc.
EMATH = rebind(_scimath)
for _n in ("sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"):
    for _m in ("emath", "lib.scimath"):
        implements(f"xpshim.{_m}.{_n}")(getattr(EMATH, _n))


# the top level
def _broadcast_to(array, shape, subok=False):
    # (NumPy's average and vectorize ask subok=True: no subclasses on the device)
    return _xp().broadcast_to(array, shape)


FUNCTION_BASE = rebind(_function_base_impl, {"np": on_device(broadcast_to=lambda: _broadcast_to)})
_CF = rebind(_function_base, {"linspace": late("linspace")})  # (NumPy's passes device= to arange)
_SB = rebind(_shape_base)
def _unsigned_subtract(a, b):
    """NumPy's _unsigned_subtract (a >= b; signed integers subtract in the unsigned type, so
    the width of an int16 range fits), written for device values."""
    xp = _xp()
    a, b = xp.asarray(a), xp.asarray(b)
    dt = numpy.result_type(a.dtype, b.dtype)
    if dt.kind == "i":
        u = numpy.dtype(f"u{dt.itemsize}")
        return xp.subtract(a.astype(dt).astype(u), b.astype(dt).astype(u))
    return xp.subtract(a.astype(dt), b.astype(dt))


HISTOGRAMS = rebind(_histograms, {"_unsigned_subtract": _unsigned_subtract})
# (a range that drops values: NumPy's test `np.logical_and.reduce(keep)`, a ufunc method the
# device namespace has as a function)
patch_in(_histograms._get_bin_edges, HISTOGRAMS, [("np.logical_and.reduce(keep)", "keep.all()")])
_PI = rebind(_polynomial, {"eigvals": _eigvals})


def _multi_index(multi_index, dims, *args, **kwargs):
    # (histogramdd's dims are a NumPy array of counts: CuPy's ravel_multi_index wants ints)
    return _xp().ravel_multi_index(multi_index, tuple(int(n) for n in dims), *args, **kwargs)


# histogramdd: CuPy's takes a count or a GPU array of edges per dimension, not a mix with lists
# (nor a list of samples); NumPy's own code, with its bin counts (nbin, shapes) kept on the host
_HDD = rebind(_histograms, {"_unsigned_subtract": _unsigned_subtract, "np": on_device(
    empty=lambda: numpy.empty, ones=lambda: numpy.ones, ravel_multi_index=lambda: _multi_index)})

_histogramdd = (patched(_HDD.histogramdd, _HDD, [
    ("hist.reshape(nbin)", "hist.reshape(tuple(nbin.tolist()))"),  # (CuPy's shapes: ints, not arrays)
    ("minlength=nbin.prod()", "minlength=int(nbin.prod())"),
    ("dedges[i].reshape(shape)", "dedges[i].reshape(tuple(shape.tolist()))"),
    ("hist.astype(float, casting='safe')", "hist.astype(float)")]) or _HDD.histogramdd)  # (counts: safe)


@implements("xpshim.histogramdd", replaces=True)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    xp = _xp()
    if isinstance(bins, xp.ndarray) and bins.ndim in (1, 2):
        bins = bins.tolist() if bins.ndim == 1 else list(bins)  # (NumPy reads a count or edges per row)
    if type(sample) in (list, tuple):  # D sequences of N values: NumPy's atleast_2d(sample).T
        from ._rebind import holds_device, array
        from .. import _transfer
        sample = xp.atleast_2d(array(sample) if holds_device(sample, xp) else
                               _transfer.to_device(numpy.asarray(sample), "histogramdd's samples")).T
    return _histogramdd(sample, bins, range, density, weights)

# (CuPy's argsort takes kind=None or "stable" only; NumPy's insert asks for "mergesort", the same thing)
implements("xpshim.insert")(patched(FUNCTION_BASE.insert, FUNCTION_BASE, [("kind='mergesort'", "kind='stable'")]) or FUNCTION_BASE.insert)
@implements("xpshim.geomspace")
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    # (an integer dtype casts NumPy's float powers down: the GPU's last bits can land a value
    # one lower, 10 ** 3 as 999; those are NumPy's on the host)
    if dtype is not None and numpy.dtype(dtype).kind in "biu":
        raise Decline(f"an integer dtype ({numpy.dtype(dtype)}) truncates the powers' last bits")
    return _CF.geomspace(start, stop, num, endpoint, dtype, axis)
# (CuPy's sinc is a ufunc of the input's float kind: float16 of bool, float32 of int16; NumPy's
# multiplies by pi first, which makes integers and booleans float64)
implements("xpshim.sinc", replaces=True)(FUNCTION_BASE.sinc)


@implements("xpshim.unstack")
def _unstack(x, /, *, axis=0):
    # NumPy's unstack iterates its array: of a 1-d one, NumPy's scalars (new values); CuPy's
    # iteration gives 0-d views, so those are copied (each then a value: xpshim/_ndarray.fresh)
    r = _SB.unstack(x, axis=axis)
    return tuple([v.copy() for v in r]) if x.ndim == 1 else r


implements("xpshim.histogram_bin_edges")(HISTOGRAMS.histogram_bin_edges)
implements("xpshim.polyder")(_PI.polyder)
# (CuPy's roots takes real symmetric companion matrices only: eigvalsh)
implements("xpshim.roots", replaces=True)(_PI.roots)
implements("xpshim.polydiv")(_PI.polydiv)
def _host_bounds(pair):
    # trim_zeros slices at these: host integers (one element per axis), as CuPy's 0-d arrays
    # are not indices
    from .. import _transfer

    xp = _xp()
    return tuple(_transfer.to_host(v, "trim_zeros bounds") if isinstance(v, xp.ndarray) else v for v in pair)


patch_in(FUNCTION_BASE.trim_zeros, FUNCTION_BASE, [("start, stop = _arg_trim_zeros(filt_)",
                                "start, stop = _host_bounds(_arg_trim_zeros(filt_))")], _host_bounds=_host_bounds)
# (always: CuPy 14's takes no axis, also where NumPy's axis comes by position,
# https://github.com/cupy/cupy/blob/v14.0.0/cupy/_manipulation/add_remove.py)
implements("xpshim.trim_zeros", replaces=True)(FUNCTION_BASE.trim_zeros)


@implements("xpshim.polyint")
def polyint(p, m=1, k=None):
    xp = _xp()
    if type(k) in (list, tuple):  # NumPy's atleast_1d reads a list; CuPy's takes arrays only
        k = xp.asarray(k)
    return _PI.polyint(p, m, k)


# weights= (method="inverted_cdf" only, as NumPy): NumPy's weighted quantile, which finds each
# slice's quantiles by a search in its cumulative weights (one small search per slice); and the
# methods CuPy lacks (hazen, weibull, inverted_cdf, ...): NumPy's _quantile. It partitions at
# positions it computes as arrays, which CuPy's partition refuses (its kth is ints): a sort
# instead, which is every partition at once.
def _sorted_in_place(arr, kth, axis=-1):
    # (_quantile's arr is a moved-axis view; CuPy sorts contiguous arrays in place only)
    if arr.flags.c_contiguous:
        arr.sort(axis=axis)
    else:
        arr[...] = _xp().sort(arr, axis=axis)


def _lerp(a, b, t, out=None):
    # NumPy's _lerp, whose second step is a ufunc with where= (CuPy's ufuncs take none): the
    # same subtraction in the result's dtype, then copied in where t >= 0.5
    xp = _xp()
    diff_b_a = b - a
    lerp = xp.add(a, diff_b_a * t, out=out)
    dt = lerp.dtype
    upper = xp.subtract(xp.asarray(b).astype(dt, copy=False), xp.asarray(diff_b_a * (1 - t)).astype(dt, copy=False))
    xp.copyto(lerp, upper, where=xp.asarray(t >= 0.5))
    return lerp


patch_in(FUNCTION_BASE._quantile, FUNCTION_BASE, [("arr.partition(", "_sorted_in_place(arr, ")],
         _sorted_in_place=_sorted_in_place, _lerp=_lerp)
implements("xpshim.quantile", kwargs={"weights", "method"})(FUNCTION_BASE.quantile)
implements("xpshim.percentile", kwargs={"weights", "method"})(FUNCTION_BASE.percentile)

# pad: CuPy's own lacks mode="median" and NumPy's argument checks (pad_width's type and
# shape, negative widths, stat_length), and refuses arrays NumPy takes; NumPy's pad is Python
# over slicing, concatenation and reductions, all of which CuPy has.
import numpy.lib._arraypad_impl as _arraypad  # noqa: E402

def _as_pairs(x, ndim, as_index=False):
    # Widths as NumPy's host scalars: on CuPy, ((x[0], x[0]),) would be two 0-d views of one
    # element, and pad's `left -= chunk` would then change both sides at once
    if not as_index:
        return _AP_pairs(x, ndim, as_index)
    xp = _xp()
    if isinstance(x, xp.ndarray):
        from .. import _transfer
        x = _transfer.to_host(x, "pad_width")
    return _arraypad._as_pairs(x, ndim, as_index=True)


def _pad_asarray(x, *args, **kwargs):
    # pad_width given as text, None or ragged sequences: NumPy's array (then pad's own TypeError)
    xp = _xp()
    if not isinstance(x, xp.ndarray) and numpy.asarray(x, *args, **kwargs).dtype.kind not in "biufc":
        return numpy.asarray(x, *args, **kwargs)
    return xp.asarray(x, *args, **kwargs)


def _pad_median(a, axis=None, keepdims=False, **kwargs):
    # (stat_length=0: NumPy's median of no values is NaN; CuPy's raises)
    xp = _xp()
    if a.size:
        return xp.median(a, axis=axis, keepdims=keepdims, **kwargs)
    shape = tuple(1 if axis is None or i == axis else n for i, n in enumerate(a.shape)) if keepdims else \
        tuple(n for i, n in enumerate(a.shape) if axis is not None and i != axis)
    return xp.full(shape, numpy.nan, a.dtype if a.dtype.kind in "fc" else numpy.float64)


_AP = rebind(_arraypad, {"_as_pairs": _as_pairs, "np": on_device(asarray=lambda: _pad_asarray,
                                                                  median=lambda: _pad_median)})
_AP_pairs = rebind(_arraypad)._as_pairs
@implements("xpshim.pad", replaces=True)
def pad(array, pad_width, mode="constant", **kwargs):
    if not isinstance(pad_width, _xp().ndarray):  # NumPy's checks of the widths' shape come first:
        widths = numpy.asarray(pad_width)       # their errors are the answer (CuPy's pad takes more)
        if widths.dtype.kind in "iu":
            _arraypad._as_pairs(widths, numpy.ndim(array), as_index=True)
    stat = kwargs.get("stat_length")
    if stat is not None and not isinstance(stat, _xp().ndarray):  # (so are those of stat_length)
        _arraypad._as_pairs(stat, numpy.ndim(array), as_index=True)
    try:
        return _AP.pad(array, pad_width, mode, **kwargs)
    except Exception as numpys:
        # Where NumPy's code meets a CuPy function that takes less than NumPy's, CuPy's own pad
        # still answers (as before); where both refuse, NumPy's error is the one raised
        try:
            return _xp().pad(array, pad_width, mode, **kwargs)
        except Exception:
            raise numpys from None


@implements("xpshim.float_power", replaces=True)
def _float_power(x1, x2, /, *args, **kwargs):
    # CuPy 14's loop for complex64 (FF->D) computes in complex64 before widening the answer: 3 ** 300
    # is inf, where NumPy's float_power computes in float64 and complex128 only; its operands are
    # widened first (a float32 one too, beside a Python complex), then CuPy's DD->D and dd->d loops
    xp = _xp()
    for v in (x1, x2):
        if not isinstance(v, (xp.ndarray, int, float, complex, numpy.generic)):
            raise Decline(f"a {type(v).__name__} operand")  # (a range, a list: NumPy reads it, on the host)
    if "dtype" not in kwargs and not args:
        x1, x2 = (v.astype(numpy.complex128 if v.dtype.kind == "c" else numpy.float64)
                  if isinstance(v, xp.ndarray) and v.dtype.kind in "fc" and v.dtype.itemsize < (16 if v.dtype.kind == "c" else 8)
                  else v for v in (x1, x2))
    return xp.float_power(x1, x2, *args, **kwargs)
