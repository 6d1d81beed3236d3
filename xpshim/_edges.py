"""Edge cases where CuPy's function exists but answers otherwise than NumPy's.

Each entry takes the call in CuPy's terms (GPU arrays unwrapped) and returns NumPy's
answer for the edge case, or ``PASS`` to let CuPy's function run as usual. They are
checked before CuPy is called, on shapes and dtypes only (no device sync), except
where a sync is the price of NumPy's error (``linalg.inv`` on a singular matrix).

* reductions of an empty array (``amax``, ``argmin``, ``ptp``, ``nanmean``, ``median``,
  ...): CuPy returns an empty array, 0, or raises another error; NumPy raises
  "zero-size array to reduction operation ... which has no identity", or returns NaN
  and warns. The array is empty, so NumPy's answer is computed on the host from no data
  (the copies are counted, and carry no bytes but the result's);
* ``extract`` with a condition longer than the array (NumPy raises IndexError for a true
  entry past the end; CuPy's wraps it around), ``interp`` of non-contiguous arrays (CuPy refuses them), ``as_strided`` of a contiguous
  array with a shape and no strides (CuPy keeps the array's own strides; NumPy's are
  C-contiguous for the new shape), ``shares_memory`` and ``may_share_memory``: NumPy's solver on
  the arrays' addresses (CuPy says True for any two 0-d arrays, and takes no integer ``max_work``);
* ``arange`` steps by its first two elements' difference in the dtype, as NumPy's (CuPy's by the
  step cast to it: ``arange(-3, 3, 0.5, dtype=int)`` repeats -3);
* ``nanargmax``/``nanargmin`` with an all-NaN slice (CuPy returns -1; NumPy raises ValueError),
  ``nanprod``/``nancumprod`` of complex arrays (NumPy counts an element with a NaN part as 1);
* ``around``/``round`` of float16, float32 and complex64: NumPy scales, rounds and scales
  back in the array's dtype, CuPy in float64 (they differ at halfway values);
* ``percentile``/``quantile`` and their nan versions of complex arrays raise NumPy's TypeError
  (CuPy's kernel fails to compile);
* ``linalg.tensorsolve`` and ``matrix_rank`` of empty arrays: NumPy's answer from no data (CuPy's
  reshape fails, and its maximum of nothing);
  ``linalg.norm``'s axes checked as NumPy's (AxisError out of range);
* ``linalg.inv``/``cholesky``/``solve``: CuPy reports LAPACK's failures only when asked, so they
  run under ``cupyx.errstate(linalg="raise")``, as NumPy raises ``LinAlgError``;
* complex ``nansum``, ``nanmean``, ``nanvar``, ``nanstd``, ``nancumsum``, ``nanmedian``: an element
  with one NaN part is dropped whole, as NumPy's isnan says (CuPy drops the NaN part alone);
* ``nanvar``/``nanstd`` with a ddof that is not an integer (CuPy's kernel truncates it);
  ``nanmean``/``nanvar``/``nanstd`` of an inexact array refuse an integer dtype= or out=, as NumPy;
  ``var``/``std``/``nanvar``/``nanstd`` with dtype= (and no out=) compute in it (CuPy's answers
  float64, or fails for complex); in an integer or bool dtype, NumPy's call decides (host, counted);
* ``logspace`` in an integer dtype: NumPy's on the host (the GPU's last bits cast 10 ** 3 down to
  999); ``cumulative_sum``/``cumulative_prod`` into an out= of another dtype accumulate in the
  input's dtype, then cast (CuPy's accumulate in out='s);
* ``zeros_like`` and the rest with ``shape=()`` make a 0-d array (CuPy reads () as not given);
* ``convolve``/``correlate`` with NumPy's integer modes (0, 1, 2), of float and complex data by
  direct sums (CuPy's by cuFFT round otherwise), of arrays of more than one dimension NumPy's error
  (CuPy's convolve ravels them);
* calls NumPy refuses where CuPy's function answers (``Refused``: NumPy's call then raises its
  own error): ``choose``/``take``/``put`` with float index arrays, ``compress`` with a condition
  that is not 1-d or has a true entry past the end, ``fft2`` and the rest with axes past the
  array's dimensions;
* ``delete`` answers in NumPy's memory order (CuPy's is always C-ordered); ``polyval`` of no
  coefficients is zeros in x's dtype;
* ``linalg.eigh``/``eigvalsh`` with ``UPLO="l"`` or ``"u"`` (NumPy upper-cases it);
* ``require`` with "A", "W" or "E" (true of every GPU array; CuPy's refuses the flags);
* ``percentile``/``quantile`` of a slice holding NaN answer NaN (CuPy's interpolate among the rest);
* ``median``/``percentile``/``quantile`` (and the nan versions) with a GPU ``out=``: computed apart
  and copied in (CuPy's squeezes out= for keepdims, and its median writes out= before its NaN step);
* ``histogram`` of integers narrower than int64 counts them as int64 (CuPy's overflows int8 ranges);
* ``percentile``/``quantile`` check that every q is in range (CuPy's passes when any one is);
* ``nan_to_num(x, copy=False)`` answers ``x`` itself; ``gradient`` answers a tuple (CuPy's a list); ``ix_`` of an empty array keeps its dtype;
* ``unique`` of a 1-d array along its axis merges NaNs by ``equal_nan`` as without an axis; of a
  boolean array along an axis it runs as uint8 (CuPy's subtracts booleans); of numbers along an
  axis of two or more dimensions, rows are sorted by one stable sort a column (CuPy's sorts them by
  a quicksort in Python, one device comparison a step);
* ``rollaxis`` raises NumPy's AxisError; ``tensordot`` contracting no axes of a 0-d input is the
  outer product; ``concatenate(..., axis=None)`` of 0-d arrays flattens them; ``packbits``'s
  ``bitorder`` is read by its first letter, as NumPy's;
* ``cross`` of 2-element vectors raises NumPy 2's ValueError (CuPy still computes them);
* ``histogram`` with ``bins`` named by a rule ("auto", "fd", "sturges", ...) or a list: NumPy's
  own edges, then CuPy's counts (CuPy takes a count or an array of edges only);
* ``fftn``, ``rfft2`` and the rest with -1 in ``s``: the whole input along that axis, as
  NumPy 2 (CuPy reads -1 as a length);
* ``linalg.svd``, ``qr``, ``eig``, ``eigh`` and ``slogdet`` answer NumPy's named tuples (``.U``, ``.Q``);
* ``intersect1d(..., assume_unique=True)`` sorts first (CuPy's searches unsorted input as sorted: wrong
  answers); ``array_split`` into 0 sections, ``broadcast_to`` of a shape NumPy refuses, ``delete`` of
  indices out of bounds and ``trim_zeros`` with another trim raise NumPy's errors; ``stack`` of numbers reads them as 0-d arrays; ``cov`` with weights runs NumPy's code;
  ``average`` with weights matching some axes (NumPy 2) runs NumPy's code; ``ediff1d`` takes
  numbers and lists as ``to_begin``/``to_end``; ``i0`` of complex values raises NumPy's TypeError;
  with NumPy 2.5, ``rot90`` with a k that is not an integer and ``fix`` warn as NumPy's (deprecated);
* ``dot`` refuses an ``out=`` that is not C-contiguous or not of the answer's dtype, as NumPy's
  (CuPy's writes into any); ``median``/``percentile``/``quantile`` refuse a GPU ``out=`` of a dtype
  NumPy's casting rule refuses;
* ``searchsorted`` reads ``side`` as NumPy's: its error for a side that is not "left" or "right"
  (CuPy's answers "left" for any other);
* ``array_equal``, ``array_equiv`` and ``allclose`` answer a Python bool, as NumPy's (CuPy's a
  0-d array); ``isclose`` of a float32 array and a Python float compares in float32 (NEP 50).
"""

import inspect
import math
import operator

import numpy
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _backend, _transfer
from ._gaps._rebind import wide_ints
from ._gaps.compose import direct_convolve, direct_correlate, numpy_strides
from ._placement import call_arg  # (args[i], else the keyword, else a default)

PASS = object()


def check_index_dtype(dt, casting="safe"):
    """NumPy's TypeError for an index array of a dtype that does not cast to intp by ``casting``."""
    if not numpy.can_cast(dt, numpy.intp, casting):
        raise TypeError(f"Cannot cast array data from {numpy.dtype(dt)!r} to {numpy.dtype(numpy.intp)!r} "
                        f"according to the rule {casting!r}")


def host_repeats(r):
    """``repeat``'s counts read as NumPy's C code reads them (cast to intp, an array by the "safe"
    rule), as the host numbers CuPy's ``_repeat`` takes: a Python int or a list of them. CuPy
    refuses a CuPy array there ("cupy.ndaray cannot be specified as `repeats` argument",
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/_routines_manipulation.pyx, _repeat) and
    reads a sequence on the host anyway: GPU counts are copied over (counted)."""
    if isinstance(r, _backend.xp.ndarray):
        check_index_dtype(r.dtype)
        r = _transfer.to_host(r, "repeat's counts")
    elif isinstance(r, numpy.ndarray):
        check_index_dtype(r.dtype)
    return numpy.asarray(r, dtype=numpy.intp).tolist()


def _repeat(args, kwargs):
    """repeat with its counts as CuPy takes them (``host_repeats``)."""
    a, r, axis = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "repeats"), call_arg(args, kwargs, 2, "axis")
    if not isinstance(a, _backend.xp.ndarray) or len(args) + len(kwargs) > 3:
        return PASS
    return _backend.xp.repeat(a, host_repeats(r), axis)


def _moved(v, why):
    """A host value (a number, a list) as the GPU array NumPy would read it as (the copy counted)."""
    return _transfer.to_device(numpy.asarray(v), why)


def _with(args, kwargs, i, name, value):
    """The call's arguments with parameter ``name`` (position ``i``) set to ``value``."""
    if len(args) > i:
        return (*args[:i], value, *args[i + 1:]), kwargs
    return args, {**kwargs, name: value}

_EMPTY_REDUCTIONS = ("amax", "amin", "max", "min", "ptp", "argmax", "argmin", "nanmax", "nanmin",
                     "nanargmax", "nanargmin", "nanmean", "nanstd", "nanvar", "median", "nanmedian")


def _empty_reduction(name):
    npf = getattr(numpy, name)

    def edge(args, kwargs):
        a = call_arg(args, kwargs, 0, "a")
        if not isinstance(a, _backend.xp.ndarray) or kwargs.get("out") is not None:
            return PASS
        if a.ndim == 0 and kwargs.get("keepdims") and name in ("median", "nanmedian"):
            # CuPy's keeps one dimension of a 0-d input; NumPy's result is 0-d
            kw = {k: v for k, v in kwargs.items() if k != "keepdims"}
            return getattr(_backend.xp, name)(a, *args[1:], **kw).reshape(())
        if a.size:
            if name in ("nanargmax", "nanargmin") and a.dtype.kind in "fc":
                axis = call_arg(args, kwargs, 1, "axis")
                if bool(_backend.xp.isnan(a).all(axis=axis).any()):  # (one sync: NumPy's check too)
                    raise ValueError("All-NaN slice encountered")
            return PASS
        h = _transfer.to_host(a, f"{name} of an empty array: NumPy's answer")
        rest = [_transfer.to_host(v, name) if isinstance(v, _backend.xp.ndarray) else v for v in args[1:]]
        r = npf(h, *rest, **kwargs)  # (raises NumPy's error, or returns NaN and warns, as NumPy)
        return _transfer.to_device(r, f"{name} of an empty array: NumPy's answer") if isinstance(r, numpy.ndarray) \
            else _backend.xp.asarray(r)
    return edge


def _on_host_when_empty(path):
    """``path`` (``linalg.tensorsolve``) with an empty input: NumPy's answer from no data, on the
    host (the copies carry no bytes; CuPy's cannot reshape to a zero-length axis of -1)."""
    npf = numpy
    for part in path.split("."):
        npf = getattr(npf, part)

    def edge(args, kwargs):
        xp = _backend.xp
        if not any(isinstance(v, xp.ndarray) and v.size == 0 for v in (*args, *kwargs.values())):
            return PASS
        why = f"{path} of an empty array: NumPy's answer"
        r = npf(*[_transfer.to_host(v, why) if isinstance(v, xp.ndarray) else v for v in args],
                **{k: _transfer.to_host(v, why) if isinstance(v, xp.ndarray) else v for k, v in kwargs.items()})
        return _transfer.to_device(r, why)
    return edge


def _interp(args, kwargs):
    """interp of non-contiguous arrays (CuPy refuses them), and of complex fp: each part apart,
    as NumPy's (a NaN part where the two values of that part are equal is that value; CuPy's
    complex kernel reads the pair as one)."""
    xp = _backend.xp
    x, xq, fp = (call_arg(args, kwargs, i, n) for i, n in ((0, "x"), (1, "xp"), (2, "fp")))
    cplx = isinstance(fp, xp.ndarray) and fp.dtype.kind == "c"
    if not cplx and all(not isinstance(v, xp.ndarray) or v.flags.c_contiguous for v in (x, xq, fp)):
        return PASS
    x, xq, fp = (xp.ascontiguousarray(v) if isinstance(v, xp.ndarray) and not v.flags.c_contiguous else v
                 for v in (x, xq, fp))  # (ascontiguousarray makes a 0-d x 1-d: only where needed)
    left, right = call_arg(args, kwargs, 3, "left"), call_arg(args, kwargs, 4, "right")
    period = call_arg(args, kwargs, 5, "period")
    if not cplx:
        return xp.interp(x, xq, fp, left, right, period)

    def part(get):
        return xp.interp(x, xq, xp.ascontiguousarray(get(fp)), None if left is None else get(complex(left)),
                         None if right is None else get(complex(right)), period)
    re, im = part(lambda v: v.real), part(lambda v: v.imag)
    out = xp.empty(re.shape, numpy.complex128)
    out.real, out.imag = re, im
    return out


def _as_strided(args, kwargs):
    x = call_arg(args, kwargs, 0, "x")
    shape = call_arg(args, kwargs, 1, "shape")
    strides = numpy_strides(x, shape, call_arg(args, kwargs, 2, "strides"))
    if strides is None:
        return PASS
    kw = {k: v for k, v in kwargs.items() if k not in ("x", "shape", "strides")}
    return _backend.xp.lib.stride_tricks.as_strided(x, shape, strides, *args[3:], **kw)


class _Layout:
    """An array's addresses, shape and strides, as NumPy reads an ``__array_interface__``."""

    def __init__(self, x):
        self.__array_interface__ = {"shape": x.shape, "strides": x.strides, "typestr": x.dtype.str,
                                    "data": (x.data.ptr, True), "version": 3}


def _shares_memory(name):
    """NumPy's own overlap solver on the two arrays' device addresses, shapes and strides (NumPy
    arrays over those addresses, whose data nothing reads): NumPy's answer for every max_work,
    TooHardError included, with no kernel and no copy. CuPy's compares every element's address on
    the device, takes no integer max_work (may_share_memory: no max_work at all), and says True
    for any two 0-d arrays: https://github.com/cupy/cupy/blob/v14.0.0/cupy/_misc/memory_ranges.py"""
    npf = getattr(numpy, name)

    def edge(args, kwargs):
        xp = _backend.xp
        a, b = (list(args) + [None, None])[:2]
        if len(args) > 3 or kwargs.keys() - {"max_work"} or not (
                isinstance(a, xp.ndarray) and isinstance(b, xp.ndarray)):
            return PASS
        work = args[2] if len(args) > 2 else kwargs.get("max_work")
        if not (a.size and b.size):
            return npf(numpy.empty(0), numpy.empty(0), max_work=work)  # (NumPy's checks of max_work, then False)
        return npf(numpy.asarray(_Layout(a)), numpy.asarray(_Layout(b)), max_work=work)
    return edge


def _arange(args, kwargs):
    """NumPy's arange sets its first two elements from ``start`` and ``start + step`` (cast to the
    dtype) and steps by their difference (PyArray_ArangeObj in
    https://github.com/numpy/numpy/blob/v2.4.0/numpy/_core/src/multiarray/ctors.c); CuPy's
    computes ``typ(start) + i * typ(step)``, so a step the dtype truncates (``arange(-3, 3, 0.5,
    dtype=int)``) repeats the start (https://github.com/cupy/cupy/blob/v14.0.0/cupy/_creation/ranges.py).
    Where the two differ, NumPy's elements ``first + i * delta`` in the dtype, on the GPU."""
    p = dict(zip(("start", "stop", "step", "dtype"), args))
    p.update(kwargs)
    start, stop, step, dtype = p.get("start"), p.get("stop"), p.get("step", 1), p.get("dtype")
    if p.keys() - {"start", "stop", "step", "dtype"}:
        return PASS
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    bounds = (start, stop, step)
    if not all(type(v) in (int, float) for v in bounds) or (dtype is None and not all(type(v) is int for v in bounds)
                                                           and not any(type(v) is float for v in bounds)):
        return PASS
    dt = numpy.result_type(*bounds) if dtype is None else numpy.dtype(dtype)
    if dt.kind not in "iufc":
        return PASS
    try:
        n = math.ceil((stop - start) / step)  # (NumPy's length, in Python's arithmetic as NumPy's)
        two = numpy.empty(2, dt)
        with numpy.errstate(all="ignore"):
            two[0], two[1] = start, start + step  # (NumPy's elements set from Python numbers)
            delta = two[1] - two[0]
            same = dt.type(start).tobytes() == two[0].tobytes() and dt.type(step).tobytes() == delta.tobytes() \
                and dt != numpy.float16  # (CuPy's float16 kernel computes in float16, NumPy's fill in float32)
    except (ValueError, OverflowError, ZeroDivisionError):
        return PASS  # (NumPy's or CuPy's own error)
    if n < 2 or same:
        return PASS
    # (NumPy's fill of float16 computes in float32, its step too: HALF_fill in arraytypes.c.src)
    work = numpy.dtype(numpy.float32) if dt == numpy.float16 else dt
    r = _backend.xp.arange(n, dtype=work)
    with numpy.errstate(all="ignore"):
        r *= work.type(two[1]) - work.type(two[0])
    r += work.type(two[0])
    if dt.kind in "fc":  # (NumPy's first two elements are those it set, not first + i * delta: 0.1 + 0.7)
        r[0], r[1] = work.type(two[0]), work.type(two[1])
    return r if work == dt else r.astype(dt)


def _linalg_raises(name):
    def edge(args, kwargs):
        xp = _backend.xp
        if xp.__name__ != "cupy":
            return PASS
        import cupyx

        with cupyx.errstate(linalg="raise"):
            return getattr(xp.linalg, name)(*args, **kwargs)
    return edge


def _complex_nan(name, fill, via):
    """``name`` of a complex array, with each element that has a NaN part (NumPy's isnan is
    True for it) replaced by ``fill`` first and ``via`` run on the result.

    nanprod/nancumprod: NumPy takes such an element as 1 (fill 1, then prod/cumprod); nansum,
    nanmean, ...: NumPy drops it, CuPy's reductions drop the NaN part alone (nansum([1+nanj])
    is 1 there, 0 in NumPy): filled with NaN in both parts, CuPy drops it whole."""
    def edge(args, kwargs):
        xp = _backend.xp
        a = call_arg(args, kwargs, 0, "a")
        if not isinstance(a, xp.ndarray) or a.dtype.kind != "c":
            return PASS
        kw = {k: v for k, v in kwargs.items() if k != "a"}
        return getattr(xp, via)(xp.where(xp.isnan(a), a.dtype.type(fill), a), *args[1:], **kw)
    return edge


def _first(*edges):
    """The first of ``edges`` that answers (a name with two edge cases: nanmean of an empty
    array, then complex NaN parts)."""
    def edge(args, kwargs):
        for e in edges:
            r = e(args, kwargs)
            if r is not PASS:
                return r
        return PASS
    return edge


def _inexact_only(name):
    """nanmean/nanvar/nanstd of an inexact array with an integer or boolean dtype= or out=: NumPy
    raises TypeError (CuPy's kernel computes, or fails to compile)."""
    def edge(args, kwargs):
        a = call_arg(args, kwargs, 0, "a")
        if not isinstance(a, _backend.xp.ndarray) or a.dtype.kind not in "fc":
            return PASS
        dtype, out = call_arg(args, kwargs, 2, "dtype"), call_arg(args, kwargs, 3, "out")
        if dtype is not None and numpy.dtype(dtype).kind not in "fc":
            raise TypeError("If a is inexact, then dtype must be inexact")
        if out is not None and getattr(out, "dtype", numpy.dtype(float)).kind not in "fc":
            raise TypeError("If a is inexact, then out must be inexact")
        return PASS
    return edge


def _in_dtype(name, rest):
    """var/std/nanvar/nanstd with dtype= (and no out=): computed on the array cast to it, as NumPy's
    (CuPy's answers float64 for float16 and float32, and fails to compile for complex); the rest
    as ``rest``."""
    def edge(args, kwargs):
        xp = _backend.xp
        a, dtype = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 2, "dtype")
        if dtype is not None and isinstance(a, xp.ndarray) and numpy.dtype(dtype).kind not in "fc":
            # (an integer or bool dtype: NumPy's sums in it, var(int8) is -9; CuPy's var answers
            # float64, its std fails to compile: NumPy's call decides, on the host, counted)
            raise Refused(f"{name} in dtype {numpy.dtype(dtype)} (CuPy's computes in float)")
        if dtype is None or not isinstance(a, xp.ndarray) or numpy.dtype(dtype).kind not in "fc" or \
                numpy.dtype(dtype).itemsize > 16 or call_arg(args, kwargs, 3, "out") is not None:
            return rest(args, kwargs)
        a2, k2 = _with(args, kwargs, 0, "a", a.astype(dtype, copy=False))
        a2, k2 = _with(a2, k2, 2, "dtype", None)
        r = rest(a2, k2)
        r = getattr(xp, name)(*a2, **k2) if r is PASS else r
        # (NumPy's variance of real data in a complex dtype is complex, of complex data real)
        return r.astype(dtype) if numpy.dtype(dtype).kind == "c" and a.dtype.kind != "c" else r
    return edge


def _logspace(args, kwargs):
    """logspace in an integer dtype: NumPy's on the host (it casts float powers down, and the GPU's
    last bits land a value one lower: 10 ** 3 as 999; out-of-range casts differ too)."""
    dtype = call_arg(args, kwargs, 4, "dtype")
    if dtype is not None and numpy.dtype(dtype).kind in "biu":
        raise Refused(f"logspace in dtype {numpy.dtype(dtype)} (its float powers cast down)")
    return PASS


def _cumulative(name):
    """cumulative_sum/cumulative_prod into an out= of another dtype, no dtype= given: NumPy's
    accumulates in the input's dtype and casts into out= (cumulative_prod([1, 2, 2, 3.5]) into int8
    ends 14); CuPy 14's accumulates in out='s (12)."""
    def edge(args, kwargs):
        xp = _backend.xp
        x, out = call_arg(args, kwargs, 0, "x"), kwargs.get("out")
        if not isinstance(out, xp.ndarray) or kwargs.get("dtype") is not None or not isinstance(x, xp.ndarray):
            return PASS
        if getattr(numpy, name)(numpy.zeros(1, x.dtype)).dtype == out.dtype:  # (the answer's dtype, from NumPy)
            return PASS
        r = getattr(xp, name)(*args, **{k: v for k, v in kwargs.items() if k != "out"})
        if r.shape != out.shape:
            raise Refused(f"{name}: out= of shape {out.shape}")  # (NumPy's ValueError)
        out[...] = r.astype(out.dtype)
        return out
    return edge


def _fractional_ddof(name, rest):
    """nanvar/nanstd with a ddof that is not an integer: CuPy's kernel takes an integer (0.5
    becomes 0). The ddof=0 variance (through ``rest``, the other edges) times n / (n - ddof),
    NaN where n - ddof <= 0 (as NumPy, which warns there); nanstd its square root."""
    def edge(args, kwargs):
        xp = _backend.xp
        ddof = call_arg(args, kwargs, 4, "ddof", 0)
        a = call_arg(args, kwargs, 0, "a")
        if (type(ddof) is not float and not isinstance(ddof, numpy.floating)) or ddof == int(ddof) or (
                not isinstance(a, xp.ndarray) or call_arg(args, kwargs, 3, "out") is not None):
            return rest(args, kwargs)
        axis, keepdims = call_arg(args, kwargs, 1, "axis"), call_arg(args, kwargs, 5, "keepdims", False)
        a0, k0 = _with(args, kwargs, 4, "ddof", 0)
        half = a.dtype == numpy.float16 and call_arg(args, kwargs, 2, "dtype") is None
        if half:  # (in float32 and rounded once at the end, as NumPy's float16 variance)
            a0, k0 = _with(a0, k0, 0, "a", a.astype(numpy.float32))
        v0 = rest(a0, k0)
        if v0 is PASS:
            v0 = xp.nanvar(*a0, **k0)
        elif name == "nanstd":
            v0 = v0 * v0  # (rest answered nanstd: back to the variance)
        n = xp.sum(~xp.isnan(a), axis=axis, keepdims=keepdims)
        v = (v0 * (n / xp.where(n - ddof > 0, n - ddof, numpy.nan))).astype(v0.dtype, copy=False)
        v = xp.sqrt(v) if name == "nanstd" else v
        return v.astype(numpy.float16) if half else v
    return edge


def _like_0d(name, at):
    """empty_like/zeros_like/ones_like/full_like with ``shape=()``: CuPy reads the empty tuple
    as "not given" (``shape if shape else a.shape``); NumPy makes a 0-d array."""
    def edge(args, kwargs):
        shape = call_arg(args, kwargs, at, "shape")
        if shape is None or numpy.ndim(shape) != 1 or len(shape) != 0:
            return PASS
        args, kwargs = _with(args, kwargs, at, "shape", (1,))
        return getattr(_backend.xp, name)(*args, **kwargs).reshape(())
    return edge


def search_side(side):
    """``searchsorted``'s side as NumPy reads it: "left" or "right", else NumPy's own TypeError or
    ValueError. CuPy's reads anything but "right" as "left" (``side == 'right'``, no check:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_sorting/search.py, _searchsorted), so a
    misspelt side answered there where NumPy refuses it."""
    if type(side) is str and (side == "left" or side == "right"):
        return side
    # (NumPy's converter, by NumPy's own call: its error, or the side it reads, as of b"right")
    return "right" if numpy.zeros(1).searchsorted(0.0, side) else "left"


def _searchsorted(args, kwargs):
    """searchsorted with its side read as NumPy's (``search_side``)."""
    side = call_arg(args, kwargs, 2, "side", "left")
    s = search_side(side)
    if s is side:
        return PASS
    if len(args) > 2:
        args = (*args[:2], s, *args[3:])
    else:
        kwargs = {**kwargs, "side": s}
    return _backend.xp.searchsorted(*args, **kwargs)


class Refused(ValueError):
    """A call that NumPy refuses, told by its shapes and dtypes, where CuPy's function answers: the
    route then runs NumPy's call, which raises NumPy's own error (its class and words)."""


def _refuses(check, rest=None):
    """An edge that raises ``Refused`` where ``check(xp, args, kwargs)`` finds the call one NumPy
    refuses (else ``rest``, the name's other edge cases)."""
    def edge(args, kwargs):
        if check(_backend.xp, args, kwargs):
            raise Refused("NumPy refuses these arguments")
        return PASS if rest is None else rest(args, kwargs)
    edge.__qualname__, edge.__doc__ = check.__qualname__, check.__doc__  # (what explain shows)
    return edge


def _dot_out(args, kwargs):
    """dot with an out= NumPy refuses: not C-contiguous, or not of the answer's exact dtype (NumPy's
    ValueError: "a performance feature", numpy.dot's documentation). CuPy's writes into any. (Raised
    here: NumPy's call on host copies would find a copy of a strided out= contiguous.)"""
    xp = _backend.xp
    out = call_arg(args, kwargs, 2, "out")
    if isinstance(out, xp.ndarray):
        a, b = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "b")
        if not out.flags.c_contiguous or out.dtype != numpy.result_type(
                *(v.dtype if isinstance(v, xp.ndarray) else v for v in (a, b))):
            raise ValueError("output array is not acceptable (must have the right datatype, number of dimensions, "
                             "and be a C-Array)")
    return PASS


def _not_indices(at, name, casting="safe"):
    """An index array (parameter ``name``) that NumPy cannot cast to intp safely (floats: NumPy's
    TypeError). CuPy's kernels read any dtype: choose and put truncate floats, take's kernel does
    not compile (``indices % index_range``): cupy/_core/_routines_indexing.pyx, _ndarray_choose,
    _ndarray_put, _take_kernel_core."""
    def check(xp, args, kwargs):
        v = call_arg(args, kwargs, at, name)
        return isinstance(v, xp.ndarray) and not numpy.can_cast(v.dtype, numpy.intp, casting)
    return check


def _compress_refused(xp, args, kwargs):
    """compress with a GPU condition that is not 1-d, or longer than the axis with a true entry past
    its end: NumPy's ValueError or IndexError. CuPy's checks a host condition only, and takes the
    nonzero indices of the first axis, wrapping those past the end (_ndarray_compress)."""
    cond, a = call_arg(args, kwargs, 0, "condition"), call_arg(args, kwargs, 1, "a")
    if not isinstance(cond, xp.ndarray) or not isinstance(a, xp.ndarray):
        return False
    if cond.ndim != 1:
        return True
    axis = call_arg(args, kwargs, 2, "axis")
    try:
        n = a.size if axis is None else a.shape[normalize_axis_index(axis, a.ndim)]
    except (TypeError, ValueError, IndexError):
        return True  # (NumPy's AxisError)
    return cond.size > n and bool(cond[n:].any())  # (one sync, as NumPy's bounds check)


def _fft_axes_refused(name):
    """fft2 and the rest with axes past the array's dimensions (fft2 of a 1-d array, whose default
    axes are (-2, -1): NumPy's IndexError; CuPy's 1-d path takes the axes modulo ndim and
    transforms the one axis twice: _fft, _exec_fft in cupy/fft/_fft.py); then -1 in ``s``
    (``_fft_whole_axis``)."""
    default = inspect.signature(getattr(numpy.fft, name)).parameters["axes"].default

    def check(xp, args, kwargs):
        a, s = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "s")
        axes = call_arg(args, kwargs, 2, "axes", default)
        if not isinstance(a, xp.ndarray) or (axes is None and s is None):
            return False
        try:
            axes = range(-len(s), 0) if axes is None else axes
            return any(not -a.ndim <= operator.index(ax) < a.ndim for ax in axes)
        except TypeError:
            return False
    return check


def _mode_name(mode):
    """convolve/correlate's ``mode`` as CuPy takes it (the names only): NumPy's integers (0 valid,
    1 same, 2 full) as their names; None and other types are NumPy's TypeError."""
    if type(mode) is str:
        return mode
    if mode is None or not isinstance(mode, (int, numpy.integer)) or isinstance(mode, bool):
        raise TypeError(f"mode must be a string or an integer, not {type(mode).__name__}")
    if mode not in (0, 1, 2):
        raise ValueError(f"integer mode {mode} is not one of 0 (valid), 1 (same) or 2 (full)")
    return ("valid", "same", "full")[int(mode)]


def _convolution(name):
    """convolve/correlate: NumPy's integer modes; NumPy's refusal of arrays of more than one
    dimension (CuPy's convolve ravels ``a``: cupy/_math/misc.py#L61-L70); and float or complex
    data by direct sums, as NumPy's (CuPy's go through cuFFT: _gaps.compose.direct_convolve)."""
    direct = direct_correlate if name == "correlate" else direct_convolve

    def edge(args, kwargs):
        xp = _backend.xp
        a, v = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "v")
        raw = call_arg(args, kwargs, 2, "mode", "valid" if name == "correlate" else "full")
        mode = _mode_name(raw)
        if isinstance(a, xp.ndarray) and isinstance(v, xp.ndarray):
            if a.ndim > 1 or v.ndim > 1:
                raise Refused("object too deep for desired array")
            if a.ndim == 1 == v.ndim and a.size and v.size and {a.dtype.kind, v.dtype.kind} & {"f", "c"} \
                    and mode in ("full", "same", "valid"):
                return direct(a, v, mode)
        if mode is raw:
            return PASS
        args, kwargs = _with(args, kwargs, 2, "mode", mode)
        return getattr(xp, name)(*args, **kwargs)
    return edge


def _named(name, result, rest=None):
    """linalg's results as NumPy's named tuples (``svd(a).U``, ``qr(a).Q``, ``eigh(a).eigenvalues``,
    ``slogdet(a).logabsdet``); CuPy's are plain tuples. ``rest``: the name's other edge cases."""
    cls = getattr(getattr(numpy.linalg, "_linalg", None), result, None)

    def edge(args, kwargs):
        r = rest(args, kwargs) if rest is not None else PASS
        if r is PASS:
            r = getattr(_backend.xp.linalg, name)(*args, **kwargs)
        if cls is None or type(r) is not tuple or len(r) != len(cls._fields):
            return r
        if name == "qr" and call_arg(args, kwargs, 1, "mode", "reduced") not in ("reduced", "complete"):
            return r  # (mode="raw": NumPy's plain (h, tau))
        return cls(*r)
    return edge


def _uplo(name):
    """eigh/eigvalsh with UPLO in lower case: NumPy takes "l" and "u" (it upper-cases them)."""
    def edge(args, kwargs):
        uplo = call_arg(args, kwargs, 1, "UPLO", "L")
        if type(uplo) is not str or uplo in ("L", "U") or uplo.upper() not in ("L", "U"):
            return PASS
        args, kwargs = _with(args, kwargs, 1, "UPLO", uplo.upper())
        return getattr(_backend.xp.linalg, name)(*args, **kwargs)
    return edge


_ALWAYS = {"A", "ALIGNED", "W", "WRITEABLE", "E", "ENSUREARRAY"}  # (every GPU array is these)


def _require(args, kwargs):
    """require with "A" (aligned), "W" (writeable) or "E" (the base class): NumPy takes them,
    CuPy's refuses them; every GPU array is all three, so they drop out."""
    req = call_arg(args, kwargs, 2, "requirements")
    if not req:
        return PASS
    req = [req] if type(req) is str else list(req)
    kept = [r for r in req if not (type(r) is str and r.upper() in _ALWAYS)]
    if len(kept) == len(req):
        return PASS
    args, kwargs = _with(args, kwargs, 2, "requirements", kept or None)
    return _backend.xp.require(*args, **kwargs)


def _nan_propagates(name):
    """percentile/quantile of a float array with NaN: NumPy's answer is NaN for a slice that
    holds one; CuPy's sorts the NaN last and interpolates among the rest. Its answer, with NaN
    where the slice has one (one more pass over the data, no sync)."""
    def edge(args, kwargs):
        xp = _backend.xp
        a = call_arg(args, kwargs, 0, "a")
        if not isinstance(a, xp.ndarray) or a.dtype.kind != "f" or call_arg(args, kwargs, 3, "out") is not None:
            return PASS
        has_nan = xp.isnan(a).any(axis=call_arg(args, kwargs, 2, "axis"), keepdims=call_arg(args, kwargs, 6, "keepdims", False))
        r = getattr(xp, name)(*args, **kwargs)  # (may sort ``a`` in place: overwrite_input; NaN counted first)
        return xp.where(has_nan, xp.asarray(numpy.nan, dtype=r.dtype), r)
    return edge


def _into_out(name, at, rest):
    """median/percentile/quantile (and the nan versions): axes checked as NumPy checks them. With
    a GPU out=: CuPy's squeezes out= for keepdims=True (an error), and its median writes out=
    before its NaN step, so the answer is computed apart (through ``rest``, the other edges) and
    copied into out=, which is returned."""
    def edge(args, kwargs):
        xp = _backend.xp
        a, axis = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, at - 1, "axis")
        if axis is not None and isinstance(a, xp.ndarray):  # NumPy's AxisError, and ValueError for a repeat
            normalize_axis_tuple(axis, a.ndim)
        out = call_arg(args, kwargs, at, "out")
        if not isinstance(out, xp.ndarray):
            return rest(args, kwargs)
        if len(args) > at:
            args = (*args[:at], None, *args[at + 1:])
        else:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        r = rest(args, kwargs)
        if r is PASS:
            r = getattr(xp, name)(*args, **kwargs)
        if not numpy.can_cast(r.dtype, out.dtype, "same_kind"):
            raise Refused("NumPy's casting rule refuses out=")  # (its UFuncTypeError, out= untouched)
        out[...] = r  # (NumPy's broadcasting into out=: a 0-d answer fills out of shape (1,))
        return out
    return edge


def _q_in_range(name):
    """percentile/quantile (and the nan versions): every q in range, as NumPy checks (CuPy's
    check passes when any one is, so NaN or 101 among others went through)."""
    top = 100 if "percentile" in name else 1

    def edge(args, kwargs):
        xp = _backend.xp
        q = call_arg(args, kwargs, 1, "q")
        with numpy.errstate(invalid="ignore"):
            if isinstance(q, xp.ndarray):
                ok = bool(xp.all((q >= 0) & (q <= top)))  # (one sync, as NumPy's check)
            else:
                qh = numpy.asarray(q)
                ok = qh.dtype.kind not in "fiub" or bool(numpy.all((qh >= 0) & (qh <= top)))
        if not ok:
            raise ValueError(f"{'Percentiles' if top == 100 else 'Quantiles'} must be in the range [0, {top}]")
        return PASS
    return edge


def _q_nd(name, rest):
    """percentile/quantile with q of two or more dimensions: CuPy's takes at most one
    (https://github.com/cupy/cupy/blob/v14.0.0/cupy/_statistics/order.py#L193-L195); q raveled,
    the answer's first axis given q's shape, as NumPy's. ``rest``: the other edge cases."""
    def edge(args, kwargs):
        q = call_arg(args, kwargs, 1, "q")
        if not isinstance(q, _backend.xp.ndarray) or q.ndim < 2:
            return rest(args, kwargs)
        args, kwargs = _with(args, kwargs, 1, "q", q.ravel())
        r = rest(args, kwargs)
        if r is PASS:
            r = getattr(_backend.xp, name)(*args, **kwargs)
        return r.reshape(q.shape + r.shape[1:])
    return edge


def _gradient(args, kwargs):
    """gradient of several axes: NumPy answers a tuple, CuPy a list; spacings given as lists are
    coordinates, as NumPy reads them (CuPy takes arrays and numbers)."""
    if any(type(v) in (list, tuple) for v in args[1:]):
        args = (args[0], *(_moved(v, "gradient's spacing") if type(v) in (list, tuple)
                           else v for v in args[1:]))
    r = _backend.xp.gradient(*args, **kwargs)
    return tuple(r) if type(r) is list else r


def _ix(*args):
    """ix_ of an empty array keeps its dtype (NumPy makes only empty lists intp; CuPy any empty input)."""
    xp = _backend.xp
    if not any(isinstance(a, xp.ndarray) and a.size == 0 and a.dtype != numpy.intp for a in args):
        return PASS
    r = xp.ix_(*args)
    return tuple(v.astype(a.dtype) if isinstance(a, xp.ndarray) and a.size == 0 else v for v, a in zip(r, args))


def _rollaxis(args, kwargs):
    """rollaxis: NumPy's AxisError for an axis or start out of range (CuPy's ValueError), and a
    view where nothing moves."""
    a = call_arg(args, kwargs, 0, "a")
    n = getattr(a, "ndim", None)
    if n is None:
        return PASS
    normalize_axis_index(call_arg(args, kwargs, 1, "axis"), n)
    start = call_arg(args, kwargs, 2, "start", 0)
    if not -n <= start <= n:
        raise numpy.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}", None)
    r = _backend.xp.rollaxis(*args, **kwargs)
    return r[...] if r is a else r  # (no move: NumPy's a[...] is a view; CuPy answers a itself)


def _tensordot(args, kwargs):
    """tensordot contracting no axes (axes=0 or ([], [])) with a 0-d input: the outer product, as
    NumPy's (CuPy refuses a 0-d input there)."""
    xp = _backend.xp
    a, b, axes = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "b"), call_arg(args, kwargs, 2, "axes", 2)
    none = axes == 0 if isinstance(axes, int) else (
        isinstance(axes, (list, tuple)) and len(axes) == 2 and all(numpy.ndim(x) == 1 and len(x) == 0 for x in axes))
    if not none or not (isinstance(a, xp.ndarray) and isinstance(b, xp.ndarray)) or (a.ndim and b.ndim):
        return PASS
    return xp.multiply(a.reshape(a.shape + (1,) * b.ndim), b)


def _concatenate_flat(args, kwargs):
    """concatenate of 0-d arrays (or of a 1-d GPU array's elements): with axis=None NumPy
    flattens each first, and along an axis raises ValueError; CuPy's raises TypeError."""
    xp = _backend.xp
    arrays = call_arg(args, kwargs, 0, "arrays")
    flat = (len(args) > 1 or "axis" in kwargs) and call_arg(args, kwargs, 1, "axis") is None
    if isinstance(arrays, xp.ndarray):  # (its elements are the parts: 0-d when it is 1-d)
        if arrays.ndim == 1 and not flat:
            raise ValueError("zero-dimensional arrays cannot be concatenated")
        return PASS  # (axis=None: CuPy ravels each part)
    if type(arrays) not in (list, tuple) or not any(isinstance(p, xp.ndarray) and p.ndim == 0 for p in arrays):
        return PASS
    if not flat:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    args, kwargs = _with(args, kwargs, 1, "axis", 0)
    return xp.concatenate([p.ravel() if isinstance(p, xp.ndarray) else p for p in arrays], *args[1:], **kwargs)


def _bitorder(name):
    """packbits/unpackbits: ``bitorder`` read as NumPy reads it (its first letter; TypeError for
    what is not text); CuPy takes "big" and "little" only."""
    def edge(args, kwargs):
        order = kwargs.get("bitorder", "big")
        if order in ("big", "little"):
            return PASS
        from ._gaps.compose import bitorder_name
        return getattr(_backend.xp, name)(*args, **{**kwargs, "bitorder": bitorder_name(order)})
    return edge


def _unique_1d_axis(args, kwargs):
    """unique of a 1-d array along its one axis: NumPy's answer is that without an axis (NaNs
    merged by equal_nan); CuPy's axis path ignores equal_nan."""
    xp = _backend.xp
    a, axis = call_arg(args, kwargs, 0, "ar"), call_arg(args, kwargs, 4, "axis")
    if not isinstance(a, xp.ndarray) or a.ndim != 1 or not isinstance(axis, (int, numpy.integer)) or \
            isinstance(axis, bool) or axis not in (0, -1):
        return PASS  # (a float axis: CuPy's raises NumPy's TypeError)
    args, kwargs = _with(args, kwargs, 4, "axis", None)
    return xp.unique(*args, **kwargs)


def _nan_to_num(args, kwargs):
    """nan_to_num(x, copy=False) answers x itself, as NumPy's (CuPy's may answer another
    array object over x's memory)."""
    x = call_arg(args, kwargs, 0, "x")
    if call_arg(args, kwargs, 1, "copy", True) or not isinstance(x, _backend.xp.ndarray):
        return PASS
    _backend.xp.nan_to_num(*args, **kwargs)
    return x


def _array_equal(args, kwargs):
    """array_equal: a Python bool, as NumPy's; NumPy's scalars and numbers read as 0-d arrays
    (CuPy's indexes them with a mask), NaNs compared without masks (one reduction, one sync)."""
    xp = _backend.xp
    try:
        a1, a2 = (v if isinstance(v, xp.ndarray) else xp.asarray(v)
                  for v in (call_arg(args, kwargs, 0, "a1"), call_arg(args, kwargs, 1, "a2")))
    except (ValueError, TypeError):  # (strings, None, objects: no GPU form; NumPy's answer)
        why = "array_equal of what has no GPU form"
        return numpy.array_equal(*[_transfer.to_host(v, why) if isinstance(v, xp.ndarray) else v for v in args],
                                 **kwargs)
    if a1.shape != a2.shape:
        return False
    same = a1 == a2
    if call_arg(args, kwargs, 2, "equal_nan", False) and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        n1, n2 = xp.isnan(a1), xp.isnan(a2)
        same = (n1 == n2) & (same | n1)  # (NaNs at the same places, the rest equal)
    return bool(same.all())


def _isclose(args, kwargs):
    """isclose of an array and a Python number: the number is weak (NEP 50), as in NumPy's
    (float32 and a Python float compare in float32); CuPy's makes it a float64 array."""
    xp = _backend.xp
    a, b = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "b")
    weak = (int, float, complex)
    if isinstance(a, xp.ndarray) and type(b) in weak:
        arr, i, num = a, 1, b
    elif isinstance(b, xp.ndarray) and type(a) in weak:
        arr, i, num = b, 0, a
    else:
        return PASS
    if arr.dtype.kind not in "fc" or arr.dtype.itemsize >= 8 * (1 + (arr.dtype.kind == "c")):
        return PASS  # (float64 and complex128: the same either way)
    dt = numpy.result_type(arr.dtype, float(num) if type(num) is int else num)
    with numpy.errstate(over="ignore"):
        v = xp.asarray(numpy.asarray(num, dt))  # (a 0-d array: no bytes but the number's)
    args, kwargs = _with(args, kwargs, i, "ab"[i], v)
    return xp.isclose(*args, **kwargs)


def _intersect1d(args, kwargs):
    """intersect1d(..., assume_unique=True): CuPy's searches the second array as if sorted (wrong
    answers for unsorted input); both are sorted first, so the answer is NumPy's (sorted), and
    return_indices point into the inputs."""
    xp = _backend.xp
    a1, a2 = call_arg(args, kwargs, 0, "ar1"), call_arg(args, kwargs, 1, "ar2")
    if not call_arg(args, kwargs, 2, "assume_unique", False) or not (
            isinstance(a1, xp.ndarray) and isinstance(a2, xp.ndarray)):
        return PASS
    ri = call_arg(args, kwargs, 3, "return_indices", False)
    a1, a2 = a1.ravel(), a2.ravel()
    o1, o2 = xp.argsort(a1), xp.argsort(a2)
    r = xp.intersect1d(a1[o1], a2[o2], assume_unique=True, return_indices=ri)
    return (r[0], o1[r[1]], o2[r[2]]) if ri else r


def _array_split(args, kwargs):
    """array_split into 0 sections: NumPy's ValueError (CuPy's divides by zero)."""
    n = call_arg(args, kwargs, 1, "indices_or_sections")
    if type(n) is int and n <= 0:
        raise ValueError("number sections must be larger than 0.")
    return PASS


def _broadcast_to(args, kwargs):
    """broadcast_to checks the shapes as NumPy does; CuPy's takes a -1, or a shape of fewer
    dimensions, where NumPy raises ValueError."""
    a, shape = call_arg(args, kwargs, 0, "array"), call_arg(args, kwargs, 1, "shape")
    if not isinstance(a, _backend.xp.ndarray):
        return PASS
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    if len(shape) < a.ndim or any(m != n and m != 1 for m, n in zip(a.shape[::-1], shape[::-1])):
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {a.shape} and requested shape {shape}")
    return PASS


def _stack(args, kwargs):
    """stack of numbers or NumPy scalars ((1, 2, 3)): each read as a 0-d array, as NumPy's."""
    xp = _backend.xp
    arrays = call_arg(args, kwargs, 0, "arrays")
    if type(arrays) not in (list, tuple) or all(isinstance(v, xp.ndarray) for v in arrays):
        return PASS
    parts = [v if isinstance(v, xp.ndarray) else _moved(v, "stack of numbers") for v in arrays]
    args, kwargs = _with(args, kwargs, 0, "arrays", parts)
    return xp.stack(*args, **kwargs)


def _trim_zeros(args, kwargs):
    """trim_zeros with a trim that is not "f", "b", "fb" or "bf": NumPy's ValueError."""
    trim = call_arg(args, kwargs, 1, "trim", "fb")
    if type(trim) is str and trim.lower() not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    return PASS


def _delete(args, kwargs):
    """delete of integer indices out of bounds: NumPy's IndexError (CuPy's ignores them)."""
    xp = _backend.xp
    arr, obj, axis = call_arg(args, kwargs, 0, "arr"), call_arg(args, kwargs, 1, "obj"), call_arg(args, kwargs, 2, "axis")
    if not isinstance(arr, xp.ndarray) or isinstance(obj, (slice, bool, int, numpy.integer)):
        return PASS
    idx = obj if isinstance(obj, xp.ndarray) else numpy.asarray(obj)
    if idx.dtype.kind not in "iu" or idx.size == 0:
        return PASS
    ax = 0 if axis is None else normalize_axis_index(axis, arr.ndim)
    n = arr.size if axis is None else arr.shape[ax]
    if isinstance(idx, xp.ndarray):
        from ._ndarray import check_bounds
        check_bounds(idx, n, ax)  # (one reduction and a sync, as NumPy's check costs)
        return PASS
    lo, hi = int(idx.min()), int(idx.max())
    if lo < -n or hi >= n:
        raise IndexError(f"index {hi if hi >= n else lo} is out of bounds for axis {ax} with size {n}")
    return PASS


def _take_bounds(args, kwargs):
    """take with mode "raise" (its default) of indices out of bounds: NumPy's IndexError (CuPy's
    wraps them around, https://github.com/cupy/cupy/blob/v14.0.0/cupy/_indexing/indexing.py)."""
    xp = _backend.xp
    a, idx, axis = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 1, "indices"), call_arg(args, kwargs, 2, "axis")
    if call_arg(args, kwargs, 4, "mode", "raise") not in (None, "raise") or not isinstance(a, xp.ndarray):
        return PASS
    ax = 0 if axis is None else normalize_axis_index(axis, a.ndim)
    n = a.size if axis is None else a.shape[ax]
    if isinstance(idx, xp.ndarray):
        from ._ndarray import check_bounds
        check_bounds(idx, n, ax)  # (one reduction and a sync, as NumPy's check costs)
    elif isinstance(idx, (int, numpy.integer)) and not -n <= idx < n:
        raise IndexError(f"index {idx} is out of bounds for axis {ax} with size {n}")
    return PASS


def _diag_indices(args, kwargs):
    """diag_indices of an array n (``np.diag_indices(x.sum())``): NumPy's ``arange(n)``, in the
    dtype that arange gives for it (float64 of a float: CuPy's are integers)."""
    xp = _backend.xp
    n, ndim = call_arg(args, kwargs, 0, "n"), call_arg(args, kwargs, 1, "ndim", 2)
    if not isinstance(n, xp.ndarray) or n.ndim or n.dtype.kind in "iu":
        return PASS
    v = n.item()  # (the number NumPy's arange reads: one sync)
    idx = xp.arange(v, dtype=numpy.arange(numpy.asarray(v, n.dtype)).dtype)
    return (idx,) * ndim


def _keeps_order(name):
    """insert of an F-ordered array: F-ordered, as NumPy's (``arrorder = 'F' if arr.flags.fnc``:
    numpy/lib/_function_base_impl.py); CuPy's answers C-ordered."""
    def edge(args, kwargs):
        xp = _backend.xp
        arr = call_arg(args, kwargs, 0, "arr")
        if not isinstance(arr, xp.ndarray) or not arr.flags.f_contiguous or arr.flags.c_contiguous:
            return PASS
        r = getattr(xp, name)(*args, **kwargs)
        return xp.asfortranarray(r) if r.ndim > 1 else r
    return edge


def _delete_order(args, kwargs):
    """delete's answer in NumPy's memory order; CuPy's is a new C-ordered array (compress, then
    take: cupy/_manipulation/add_remove.py#L12-L69). NumPy's (numpy/lib/_function_base_impl.py,
    delete): one index, or a slice, into a new array of the input's order ("F" for an
    F-ordered one); other indices select by advanced indexing, ``arr[..., keep]``, which lays the
    axis outermost in memory and the other axes in the input's order."""
    xp = _backend.xp
    arr, obj, axis = call_arg(args, kwargs, 0, "arr"), call_arg(args, kwargs, 1, "obj"), call_arg(args, kwargs, 2, "axis")
    if not isinstance(arr, xp.ndarray) or axis is None or arr.ndim < 2:
        return PASS
    ax = normalize_axis_index(axis, arr.ndim)
    fortran = arr.flags.f_contiguous and not arr.flags.c_contiguous
    one = isinstance(obj, (slice, int, numpy.integer)) and not isinstance(obj, bool) or (
        isinstance(obj, xp.ndarray) and obj.size == 1 and obj.dtype.kind in "ui")
    r = xp.delete(*args, **kwargs)
    if one:
        return _laid_out(r, list(range(r.ndim))[::-1]) if fortran else r
    rest = [i for i in range(arr.ndim) if i != ax]
    return _laid_out(r, [ax, *(rest[::-1] if fortran else rest)])


def _laid_out(r, perm):
    """``r`` copied into new memory laid out as NumPy lays out an array whose axes, outermost first,
    are ``perm``: its strides exactly NumPy's, those of axes of length 1 too (CuPy's
    ``asfortranarray`` and ``ascontiguousarray`` hand back an array that is already contiguous
    either way, with the strides it has: (32, 8) where NumPy's F-ordered (1, 4) has (8, 8))."""
    out = _backend.xp.empty(tuple(r.shape[i] for i in perm), r.dtype).transpose(tuple(numpy.argsort(perm)))
    out[...] = r
    return out


def _polymul(args, kwargs):
    """polymul of float or complex coefficients: NumPy's product, poly1d's leading zeros trimmed
    and then direct sums (CuPy's convolve goes through cuFFT, whose last bits differ:
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/lib/_routines_poly.py, polymul)."""
    xp = _backend.xp
    if len(args) != 2 or kwargs or not all(isinstance(x, xp.ndarray) and x.ndim == 1 and x.size for x in args) \
            or not {args[0].dtype.kind, args[1].dtype.kind} & {"f", "c"}:
        return PASS
    return direct_convolve(*(_trimmed(x) for x in args))


def _trimmed(c):
    """poly1d's coefficients: leading zeros dropped, [0] where nothing is left (one value read:
    the count of leading zeros, which sets the shape)."""
    nonzero = c != 0
    first = int(nonzero.argmax()) if bool(nonzero.any()) else c.size
    return c[first:] if first < c.size else _backend.xp.zeros(1, c.dtype)


def _diag(args, kwargs):
    """diag of a 2-d array: NumPy's answer is a view of its diagonal (``diagonal``), where CuPy's
    is a copy (https://github.com/cupy/cupy/blob/v14.0.0/cupy/_creation/matrix.py, diag)."""
    v, k = call_arg(args, kwargs, 0, "v"), call_arg(args, kwargs, 1, "k", 0)
    if not isinstance(v, _backend.xp.ndarray) or v.ndim != 2 or len(args) + len(kwargs) > 2:
        return PASS
    return v.diagonal(operator.index(k))


def _polyval(args, kwargs):
    """polyval of no coefficients: NumPy's zeros_like(x), in x's dtype (CuPy's zeros are in the
    dtype of p and x together: float64 for an empty list):
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/lib/_routines_poly.py#L345-L348"""
    xp = _backend.xp
    p, x = call_arg(args, kwargs, 0, "p"), call_arg(args, kwargs, 1, "x")
    if not isinstance(p, xp.ndarray) or p.ndim != 1 or p.size or isinstance(x, numpy.poly1d):
        return PASS
    return xp.zeros_like(x) if isinstance(x, xp.ndarray) else xp.zeros(numpy.shape(x), numpy.asarray(x).dtype)


def _unique_axis(args, kwargs):
    """unique of booleans or real numbers along an axis of an array of two or more dimensions:
    NumPy compares the rows as records of their elements (a structured view, NaN last in each
    field, -0.0 equal to 0.0, rows holding NaN unequal to every row); here they are sorted by a
    stable argsort of each column, last column first, and the sorted rows compared. CuPy's own
    sorts the rows by a quicksort written in Python, one device comparison and read a step
    (a 256 x 256 x 3 image's pixels: over 80 s on an H100;
    https://github.com/cupy/cupy/blob/v14.0.0/cupy/_manipulation/add_remove.py, ``unique``)."""
    xp = _backend.xp
    a, axis = call_arg(args, kwargs, 0, "ar"), call_arg(args, kwargs, 4, "axis")
    if not isinstance(a, xp.ndarray) or a.ndim < 2 or a.size == 0 or a.dtype.kind not in "biuf" or \
            not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        return PASS
    ax = normalize_axis_index(axis, a.ndim)
    flags = [call_arg(args, kwargs, i, k, False) for i, k in ((1, "return_index"), (2, "return_inverse"), (3, "return_counts"))]
    moved = xp.moveaxis(a, ax, 0)
    shape = moved.shape
    rows = moved.reshape(shape[0], -1)
    keys = rows.view(numpy.uint8) if a.dtype.kind == "b" else rows
    perm = xp.arange(shape[0])
    for c in range(keys.shape[1] - 1, -1, -1):  # (stable sorts, the first column last: lexicographic)
        col = keys[perm, c]
        if col.dtype.kind == "f":
            col = col + 0.0  # (-0.0 becomes 0.0: the two compare equal in NumPy's order)
        perm = perm[xp.argsort(col, kind="stable")]
    ordered = rows[perm]
    first = xp.empty(shape[0], dtype=numpy.bool_)
    first[:1] = True
    first[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)  # (NaN != NaN: a row holding NaN stands alone)
    kept = ordered[first]
    out = [xp.moveaxis(kept.reshape(kept.shape[0], *shape[1:]), 0, ax)]
    if flags[0]:
        out.append(perm[first])
    if flags[1]:
        inverse = xp.empty(shape[0], dtype=numpy.intp)
        inverse[perm] = xp.cumsum(first) - 1
        out.append(inverse)
    if flags[2]:
        starts = xp.flatnonzero(first)
        out.append(xp.diff(xp.concatenate([starts, xp.asarray([shape[0]], dtype=starts.dtype)])))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_bool_axis(args, kwargs):
    """unique of a boolean array along an axis: as uint8 and back (CuPy's compares rows by
    subtraction, which it refuses for booleans)."""
    xp = _backend.xp
    a, axis = call_arg(args, kwargs, 0, "ar"), call_arg(args, kwargs, 4, "axis")
    if not isinstance(a, xp.ndarray) or a.dtype != numpy.bool_ or axis is None:
        return PASS
    args, kwargs = _with(args, kwargs, 0, "ar", a.view(numpy.uint8))
    r = xp.unique(*args, **kwargs)
    return (r[0].view(numpy.bool_), *r[1:]) if type(r) is tuple else r.view(numpy.bool_)


def _norm_axes(args, kwargs):
    """linalg.norm with axes out of range or repeated: NumPy's AxisError / ValueError (CuPy's
    ValueError for both)."""
    a, axis = call_arg(args, kwargs, 0, "x"), call_arg(args, kwargs, 2, "axis")
    if axis is None or not isinstance(a, _backend.xp.ndarray):
        return PASS
    axes = tuple(axis) if isinstance(axis, tuple) else (int(axis),)  # (NumPy's int(axis): TypeError else)
    if len(axes) > 2:
        raise ValueError("Improper number of dimensions to norm.")
    normalize_axis_tuple(axes, a.ndim)  # (AxisError out of range; ValueError for a repeated axis)
    return PASS


def _cov_weights(args, kwargs):
    """cov with fweights or aweights: NumPy's own code on CuPy (its checks: integer, 1-d,
    non-negative weights; and its formula: CuPy's differs with both kinds of weights)."""
    if call_arg(args, kwargs, 5, "fweights") is None and call_arg(args, kwargs, 6, "aweights") is None:
        return PASS
    from ._gaps.numpy_code import FUNCTION_BASE
    return FUNCTION_BASE.cov(*args, **kwargs)


def _average(args, kwargs):
    """average with weights of another shape than the array's, along the axes they match
    (NumPy 2): NumPy's own code on CuPy (CuPy's takes 1-d weights only)."""
    xp = _backend.xp
    a, w = call_arg(args, kwargs, 0, "a"), call_arg(args, kwargs, 2, "weights")
    if not isinstance(a, xp.ndarray) or not isinstance(w, xp.ndarray) or w.shape == a.shape or w.ndim <= 1:
        return PASS
    from ._gaps.numpy_code import FUNCTION_BASE
    return FUNCTION_BASE.average(*args, **kwargs)


def _put_along_axis(args, kwargs):
    """put_along_axis with axis=None and indices of more than one dimension: NumPy's ValueError
    (CuPy's raises NotImplementedError)."""
    idx = call_arg(args, kwargs, 1, "indices")
    if (len(args) > 3 or "axis" in kwargs) and call_arg(args, kwargs, 3, "axis") is None and getattr(idx, "ndim", 1) != 1:
        raise ValueError("when axis=None, `indices` must have a single dimension.")
    return PASS


def _ediff1d(args, kwargs):
    """ediff1d with to_begin/to_end given as numbers or lists: read as arrays, as NumPy's (CuPy's
    takes GPU arrays only; its casting check is then NumPy's)."""
    xp = _backend.xp
    ends = [(i, n) for i, n in ((1, "to_end"), (2, "to_begin"))
            if (v := call_arg(args, kwargs, i, n)) is not None and not isinstance(v, xp.ndarray)]
    if not ends:
        return PASS
    for i, n in ends:
        args, kwargs = _with(args, kwargs, i, n, _moved(call_arg(args, kwargs, i, n), f"ediff1d's {n}"))
    return xp.ediff1d(*args, **kwargs)


_NUMPY_2_5 = tuple(int(v) for v in numpy.__version__.split(".")[:2]) >= (2, 5)


def _deprecated(message):
    """NumPy's DeprecationWarning, at the user's line (as NumPy's stacklevel=2 puts it)."""
    import warnings
    from ._callsite import user_frame

    fn, line, glb = user_frame(3)
    warnings.warn_explicit(message, DeprecationWarning, fn, line, module=glb.get("__name__", "__main__"),
                           registry=glb.setdefault("__warningregistry__", {}))


def _rot90(args, kwargs):
    """rot90 with a k that is not an integer: NumPy 2.5 warns (deprecated) and casts it."""
    k = call_arg(args, kwargs, 1, "k", 1)
    try:
        operator.index(k)
        return PASS
    except TypeError:
        if not _NUMPY_2_5:
            return PASS
    _deprecated(f"Passing a value for k ({k!r}) that is not an integer type has been deprecated in NumPy 2.5. "
                "The value will be cast to an integer.  In the future this will be an error.")
    args, kwargs = _with(args, kwargs, 1, "k", int(k))
    return _backend.xp.rot90(*args, **kwargs)


def _fix(args, kwargs):
    """fix: deprecated in NumPy 2.5 (trunc does the same), which warns at each call."""
    if _NUMPY_2_5:
        _deprecated("numpy.fix is deprecated. Use numpy.trunc instead, which is faster and follows the "
                    "Array API standard.")
    return PASS


def _i0(args, kwargs):
    """i0 of complex values: NumPy's TypeError (CuPy's kernel fails to compile)."""
    x = call_arg(args, kwargs, 0, "x")
    if isinstance(x, _backend.xp.ndarray) and x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    return PASS


def _python_bool(name):
    """array_equal, array_equiv, allclose: NumPy answers a Python bool (``res is True`` holds);
    CuPy a 0-d GPU array. The answer is read back (one sync, as ``if np.allclose(...)`` costs)."""
    def edge(args, kwargs):
        return bool(getattr(_backend.xp, name)(*args, **kwargs))
    return edge


def _histogram(args, kwargs):
    """histogram with ``bins`` named by a rule ("auto", "fd", ...) or given as a list: CuPy's
    takes a count or an array only. NumPy's histogram_bin_edges (its own code, run on CuPy)
    makes the edges, then CuPy's histogram counts over them."""
    xp = _backend.xp
    a = call_arg(args, kwargs, 0, "a")
    bins = call_arg(args, kwargs, 1, "bins", 10)
    if numpy.ndim(bins) > 1:
        raise ValueError("`bins` must be 1d, when an array")
    if not isinstance(bins, (str, list, tuple)):
        return PASS
    rng = call_arg(args, kwargs, 2, "range")
    density = call_arg(args, kwargs, 3, "density")
    weights = call_arg(args, kwargs, 4, "weights")
    if isinstance(bins, str):
        from ._gaps.numpy_code import HISTOGRAMS

        edges = HISTOGRAMS.histogram_bin_edges(a, bins, rng, weights)
    else:
        edges = xp.asarray(bins)
    return xp.histogram(wide_ints(a), edges, density=density, weights=weights)


def _histogram_int(args, kwargs):
    a = call_arg(args, kwargs, 0, "a")
    if wide_ints(a) is a:
        return _histogram(args, kwargs)
    args, kwargs = _with(args, kwargs, 0, "a", wide_ints(a))
    r = _histogram(args, kwargs)
    return _backend.xp.histogram(*args, **kwargs) if r is PASS else r


def _cross(args, kwargs):
    """cross of 2-element vectors: NumPy 2 raises ValueError (3-element vectors only); CuPy
    still computes them (with a DeprecationWarning)."""
    if _CROSS_TAKES_2D:
        return PASS
    a = call_arg(args, kwargs, 0, "a")
    b = call_arg(args, kwargs, 1, "b")
    axis = kwargs.get("axis")
    axa = axis if axis is not None else call_arg(args, kwargs, 2, "axisa", -1)
    axb = axis if axis is not None else call_arg(args, kwargs, 3, "axisb", -1)
    try:
        na, nb = a.shape[axa], b.shape[axb]
    except (AttributeError, IndexError, TypeError):
        return PASS  # (CuPy's own checks answer)
    if (na, nb) != (3, 3) and na in (2, 3) and nb in (2, 3):
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they are {na} and {nb} dimensional instead.")
    return PASS


def _numpy_cross_takes_2d():
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            numpy.cross(numpy.zeros(2), numpy.zeros(3))
    except ValueError:
        return False
    return True


_CROSS_TAKES_2D = _numpy_cross_takes_2d()


def _power_of_ten(n):
    r = 1.0
    for _ in range(n):  # NumPy's: exact up to 1e22, and the same roundings past it
        r *= 10.0
    return r


def _round(args, kwargs):
    """around/round of float16, float32 and complex64: NumPy scales, rounds to an integer and
    scales back in the array's own dtype (263.0655 as float32 to 3 decimals is 263.066);
    CuPy computes in float64 (263.065)."""
    xp = _backend.xp
    a = call_arg(args, kwargs, 0, "a")
    decimals = call_arg(args, kwargs, 1, "decimals", 0)
    out = call_arg(args, kwargs, 2, "out")
    if (not isinstance(a, xp.ndarray) or a.dtype.char not in "efF" or out is not None
            or not isinstance(decimals, (int, numpy.integer)) or isinstance(decimals, bool)):
        return PASS
    if a.dtype.kind == "c":  # as NumPy: each part rounded as a real array
        r = xp.empty_like(a)
        r.real, r.imag = _rounded(xp, a.real, int(decimals)), _rounded(xp, a.imag, int(decimals))
        return r
    return _rounded(xp, a, int(decimals))


def _rounded(xp, a, d):
    with numpy.errstate(over="ignore"):
        f = a.dtype.type(_power_of_ten(abs(d)))  # (a Python float is converted so in NumPy)
    y = xp.rint(a * f if d >= 0 else a / f)
    return y / f if d >= 0 else y * f

def _extract(args, kwargs):
    """extract with a condition longer than the array: NumPy's take raises IndexError for a
    true entry past the array's end; CuPy's take wraps it around."""
    xp = _backend.xp
    cond = call_arg(args, kwargs, 0, "condition")
    a = call_arg(args, kwargs, 1, "arr")
    if not isinstance(a, xp.ndarray) or numpy.size(cond) <= a.size:
        return PASS
    nz = xp.asarray(cond).ravel().nonzero()[0]
    past = int(xp.searchsorted(nz, a.size))  # (one sync: NumPy's bounds check)
    if past < nz.size:
        raise IndexError(f"index {int(nz[past])} is out of bounds for axis 0 with size {a.size}")
    return a.ravel().take(nz)


def _real_only(name):
    """percentile/quantile (and nan*) of complex arrays: NumPy raises TypeError; CuPy's kernel
    fails to compile."""
    def edge(args, kwargs):
        a = call_arg(args, kwargs, 0, "a")
        if isinstance(a, _backend.xp.ndarray) and a.dtype.kind == "c":
            raise TypeError("a must be an array of real numbers")
        return PASS
    return edge


def _fft_whole_axis(name):
    """fftn and the rest with -1 in ``s``: NumPy 2 takes the whole input along that axis; CuPy
    reads -1 as a length (and trims one element)."""
    def edge(args, kwargs):
        s = call_arg(args, kwargs, 1, "s")
        if s is None or numpy.ndim(s) != 1 or not any(type(n) is int and n == -1 for n in s):
            return PASS
        a = call_arg(args, kwargs, 0, "a")
        axes = call_arg(args, kwargs, 2, "axes")
        axes = list(range(-len(s), 0)) if axes is None else list(axes)
        if len(axes) != len(s) or not isinstance(a, _backend.xp.ndarray):
            return PASS
        s = [a.shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
        args, kwargs = _with(args, kwargs, 1, "s", s)
        return getattr(_backend.xp.fft, name)(*args, **kwargs)
    return edge


TABLE = {
    **{f"xpshim.{n}": _empty_reduction(n) for n in _EMPTY_REDUCTIONS},
    **{f"xpshim.fft.{n}": _refuses(_fft_axes_refused(n), _fft_whole_axis(n))
       for n in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn")},
    "xpshim.choose": _refuses(_not_indices(0, "a")),
    "xpshim.take": _refuses(_not_indices(1, "indices", "same_kind"), _take_bounds),  # (take's C code casts same_kind)
    "xpshim.put": _refuses(_not_indices(1, "ind")),
    "xpshim.compress": _refuses(_compress_refused),
    "xpshim.dot": _dot_out,
    "xpshim.polyval": _polyval,
    "xpshim.nanprod": _complex_nan("nanprod", 1, "prod"),
    "xpshim.nancumprod": _complex_nan("nancumprod", 1, "cumprod"),
    "xpshim.around": _round,
    "xpshim.round": _round,
    "xpshim.interp": _interp,
    "xpshim.extract": _extract,
    "xpshim.cross": _cross,
    "xpshim.histogram": _histogram_int,
    **{f"xpshim.{n}": _python_bool(n) for n in ("array_equiv", "allclose")},
    "xpshim.array_equal": _array_equal,
    "xpshim.isclose": _isclose,
    "xpshim.linalg.solve": _linalg_raises("solve"),
    "xpshim.nanmean": _first(_inexact_only("nanmean"), _empty_reduction("nanmean"),
                             _complex_nan("nanmean", complex(numpy.nan, numpy.nan), "nanmean")),
    "xpshim.nanmedian": _first(_empty_reduction("nanmedian"),
                               _complex_nan("nanmedian", complex(numpy.nan, numpy.nan), "nanmedian")),
    **{f"xpshim.{n}": _first(_inexact_only(n), _in_dtype(n, _fractional_ddof(n, _first(
        _empty_reduction(n), _complex_nan(n, complex(numpy.nan, numpy.nan), n))))) for n in ("nanvar", "nanstd")},
    **{f"xpshim.{n}": _complex_nan(n, complex(numpy.nan, numpy.nan), n) for n in ("nansum", "nancumsum")},
    **{f"xpshim.{n}": _first(_real_only(n), _q_in_range(n), _q_nd(n, _nan_propagates(n)))
       for n in ("percentile", "quantile")},
    **{f"xpshim.{n}": _first(_real_only(n), _q_in_range(n)) for n in ("nanpercentile", "nanquantile")},
    "xpshim.lib.stride_tricks.as_strided": _as_strided,
    **{f"xpshim.{n}": _shares_memory(n) for n in ("shares_memory", "may_share_memory")},
    "xpshim.arange": _arange,
    "xpshim.repeat": _repeat,
    **{f"xpshim.{n}": _like_0d(n, 4) for n in ("empty_like", "zeros_like", "ones_like")},
    "xpshim.full_like": _like_0d("full_like", 5),
    **{f"xpshim.{n}": _convolution(n) for n in ("convolve", "correlate")},
    "xpshim.require": _require,
    "xpshim.rollaxis": _rollaxis,
    "xpshim.unique": _first(_unique_axis, _unique_bool_axis, _unique_1d_axis),
    "xpshim.nan_to_num": _nan_to_num,
    "xpshim.cov": _cov_weights,
    "xpshim.rot90": _rot90,
    "xpshim.fix": _fix,
    "xpshim.i0": _i0,
    "xpshim.linalg.matrix_rank": _on_host_when_empty("linalg.matrix_rank"),
    "xpshim.ediff1d": _ediff1d,
    "xpshim.put_along_axis": _put_along_axis,
    **{f"xpshim.{n}": _in_dtype(n, lambda args, kwargs: PASS) for n in ("var", "std")},
    "xpshim.logspace": _logspace,
    "xpshim.diag_indices": _diag_indices,
    **{f"xpshim.{n}": _cumulative(n) for n in ("cumulative_sum", "cumulative_prod")},
    "xpshim.average": _average,
    "xpshim.intersect1d": _intersect1d,
    "xpshim.searchsorted": _searchsorted,
    "xpshim.array_split": _array_split,
    "xpshim.broadcast_to": _broadcast_to,
    "xpshim.stack": _stack,
    "xpshim.trim_zeros": _trim_zeros,
    "xpshim.delete": _first(_delete, _delete_order),
    "xpshim.polymul": _polymul,
    "xpshim.diag": _diag,
    "xpshim.insert": _keeps_order("insert"),
    "xpshim.tensordot": _tensordot,
    "xpshim.concatenate": _concatenate_flat,
    **{f"xpshim.{n}": _bitorder(n) for n in ("packbits", "unpackbits")},
    "xpshim.gradient": _gradient,
    "xpshim.ix_": lambda args, kwargs: _ix(*args) if not kwargs else PASS,
    "xpshim.linalg.eigh": _named("eigh", "EighResult", _uplo("eigh")),
    "xpshim.linalg.eigvalsh": _uplo("eigvalsh"),
    **{f"xpshim.linalg.{n}": _named(n, r) for n, r in (("svd", "SVDResult"), ("qr", "QRResult"),
                                                        ("eig", "EigResult"), ("slogdet", "SlogdetResult"))},
    "xpshim.linalg.inv": _linalg_raises("inv"),
    "xpshim.linalg.tensorsolve": _on_host_when_empty("linalg.tensorsolve"),
    "xpshim.linalg.norm": _norm_axes,
    "xpshim.linalg.cholesky": _linalg_raises("cholesky"),
}
for _n, _at in (("median", 2), ("nanmedian", 2), ("percentile", 3), ("quantile", 3), ("nanpercentile", 3),
                ("nanquantile", 3), ("nanargmin", 2), ("nanargmax", 2)):  # (CuPy's nanargmin leaves out= unwritten)
    TABLE[f"xpshim.{_n}"] = _into_out(_n, _at, TABLE.get(f"xpshim.{_n}", lambda args, kwargs: PASS))
