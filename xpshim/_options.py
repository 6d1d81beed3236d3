"""A call's options (``axis``, ``keepdims``, ``casting``, ``order``) read as NumPy reads them.

CuPy's functions read them more loosely: ``axis=True`` as 1, ``axis=[0, 1]`` as a tuple,
``argmax(axis=(0, 1))`` as the whole array, ``keepdims=None`` as False, ``casting="bogus"`` as
nothing at all, an axis out of range as IndexError (``x.std(axis=2)``). NumPy raises TypeError,
ValueError or AxisError there. A value of the common kinds (None, an int in range, a bool, a known
name) goes straight on; any other is first given, once per kind of call, to NumPy's own function
on stand-ins of the arrays (their shapes and dtypes, no memory behind them: zero strides), which
checks its options before any work: NumPy's error is the call's, else the call goes on to CuPy.
"""

import inspect
import warnings

import numpy

NAMES = ("axis", "keepdims", "casting", "order")
_CASTINGS = frozenset({"no", "equiv", "safe", "same_kind", "unsafe"})
_ORDERS = frozenset({"C", "F"})  # ("A" and "K": zeros refuses them; None: CuPy's ravel refuses it)
_NOVALUE = numpy._NoValue
_checked = {}  # (function, arrays' shapes and dtypes, the options) -> None (NumPy took them)
_axes_taken = {}  # (function, number of dimensions, an axis or a tuple of them) -> None (NumPy took them)


def positions(f, skip=0):
    """{option: position} of ``f``'s options among NAMES (-1: keyword only), its first ``skip``
    parameters left out (a method's array); {} where it takes none."""
    try:
        params = list(inspect.signature(f).parameters.values())[skip:]
    except (TypeError, ValueError):
        return {}
    return {p.name: (i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else -1)
            for i, p in enumerate(params) if p.name in NAMES}


def _ndim(args):
    """The number of dimensions an axis counts in: the first argument's (concatenate's and
    stack's: their first array's); -1 where the first argument is no array."""
    first = args[0] if args else None
    t = type(first)
    if (t is list or t is tuple) and first:
        first = first[0]
    nd = getattr(first, "ndim", -1)
    return nd if type(nd) is int else -1  # (-1: no array first, np.apply_along_axis(f, 1, x): checked)


def _stand_in(a):
    """NumPy's array of ``a``'s shape and dtype, of ones (geomspace refuses zeros), with no memory
    behind it (zero strides; writeable, as the functions that write into an argument need: a write
    lands on its one element)."""
    return numpy.lib.stride_tricks.as_strided(numpy.ones((), a.dtype), a.shape, (0,) * a.ndim)


def _arrays(v):
    """Whether ``v`` is an array (xpshim's, CuPy's or NumPy's; not NumPy's scalar, a value): a
    stand-in takes its place."""
    return (isinstance(getattr(v, "dtype", None), numpy.dtype) and type(getattr(v, "shape", None)) is tuple
            and not isinstance(v, numpy.generic))


def _key_of(v):
    """``v`` as part of a cache key: an array by its shape and dtype, a number or name as itself."""
    if _arrays(v):
        return ("a", v.shape, v.dtype.str)
    if type(v) in (list, tuple):
        return (type(v).__name__, *map(_key_of, v))
    return v if type(v) in (int, float, bool, str, type(None)) else (type(v).__name__, repr(v))


def _given(at, args, kwargs):
    """(option, position, value) of each option of ``at`` the call gives."""
    for name, i in at.items():
        if name in kwargs:
            yield name, i, kwargs[name]
        elif 0 <= i < len(args):
            yield name, i, args[i]


def check(f, at, args, kwargs, this=None):
    """NumPy's error where ``f`` (NumPy's function; or its method, called on a stand-in of the
    array ``this``) refuses one of the options of ``args``/``kwargs`` that CuPy may read otherwise;
    ``at`` is ``positions(f)`` (a method's: without its array). Nothing where every option is of
    the common kinds. Returns the call's ``args``, ``kwargs``, an order NumPy took as a lower-case
    letter or bytes (``"c"``, ``b"K"``) given as CuPy takes it (an upper-case letter)."""
    for name, i in at.items():  # (the common kinds first, in a few steps: every routed call with options)
        if name in kwargs:
            v = kwargs[name]
        elif 0 <= i < len(args):
            v = args[i]
        else:
            continue
        t = type(v)
        if name == "axis":
            if v is None:
                continue
            if t is int or t is tuple:
                nd = this.ndim if this is not None else _ndim(args)
                try:
                    taken = (t is int and -nd <= v < nd) or (f, nd, v) in _axes_taken
                except TypeError:  # (a tuple holding a list: unhashable, NumPy's error below)
                    taken = False
                if taken:
                    # (an axis in range; or axes NumPy took before for this function and this many
                    # dimensions: x.sum(axis=(0, 1)), np.expand_dims(x, 2) again)
                    continue
        elif name == "keepdims":
            if t is bool or v is _NOVALUE:
                continue
        elif t is str and v in (_CASTINGS if name == "casting" else _ORDERS):
            continue
        if _arrays(v):
            return args, kwargs  # (an axis given as an array: read by its values where it is used)
        break
    else:
        return args, kwargs
    try:
        key = (f, this is not None and _key_of(this), tuple(map(_key_of, args)), tuple((k, _key_of(v)) for k, v in kwargs.items() if k != "out"))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _checked:
        return _as_cupy_reads(at, args, kwargs)

    def shadow(v):
        if _arrays(v):
            return _stand_in(v)
        if type(v) in (list, tuple):
            return type(v)(map(shadow, v))
        return v
    a = [shadow(v) for v in args] if this is None else [_stand_in(this), *map(shadow, args)]
    kw = {k: shadow(v) for k, v in kwargs.items() if k != "out"}  # (out=: checked where it is written)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f(*a, **kw)
        except (TypeError, ValueError) as e:  # (AxisError is both)
            raise e.with_traceback(None) from None
        except IndexError as e:
            if (getattr(f, "__module__", None) or "").startswith("numpy.fft"):  # (NumPy's fft: an axis out of range)
                raise e.with_traceback(None) from None
            return args, kwargs
        except Exception:  # (a stand-in's own limits, not the options: CuPy's call decides)
            return args, kwargs
    if key is not None and len(_checked) < 4096:
        _checked[key] = None
    v = kwargs.get("axis", args[at["axis"]] if 0 <= at.get("axis", -1) < len(args) else None)
    nd = this.ndim if this is not None else _ndim(args)
    if (type(v) is int or (type(v) is tuple and all(type(x) is int for x in v))) and nd >= 0 and len(_axes_taken) < 4096:
        # (whether NumPy takes an axis, or a tuple of them, depends on the function and the number
        # of dimensions alone: the next call with them goes on in one step)
        _axes_taken[(f, nd, v)] = None
    return _as_cupy_reads(at, args, kwargs)


def _as_cupy_reads(at, args, kwargs):
    """The options NumPy took, as CuPy reads them alike: an order as an upper-case letter (``"c"``,
    ``b"K"``), a keepdims as a Python bool (``np.False_``, where NumPy ignores it: count_nonzero of
    the whole array), an axis of NumPy integers as Python ints (not arrays to copy over)."""
    for name, i, v in _given(at, args, kwargs):
        if name == "order" and type(v) in (str, bytes) and v not in ("C", "F", "A", "K"):
            v = (v.decode("latin-1") if type(v) is bytes else v).upper()
        elif name == "order" and v is None:
            v = "C"  # (NumPy's reading of None: x.ravel(order=None), np.copy(x, order=None))
        elif name == "keepdims" and type(v) is not bool and v is not _NOVALUE:
            v = bool(v)
        elif name == "axis" and isinstance(v, numpy.integer):
            v = int(v)
        elif name == "axis" and type(v) is tuple and any(isinstance(x, numpy.integer) for x in v):
            v = tuple(int(x) for x in v)
        else:
            continue
        if name in kwargs:
            kwargs = {**kwargs, name: v}
        else:
            args = (*args[:i], v, *args[i + 1:])
    return args, kwargs
