"""xpshim.ndarray's methods that NumPy's ndarray has and xpshim's class does not define itself.

Each (``method``) runs CuPy's method of the same name where it takes the call's keywords, else
NumPy's on a host copy (counted, warned). They are put on the class when this module is imported
(``install_methods``): the modules whose calls answer with GPU arrays (``_route``, ``_objects``,
``_hostio``) import it.
"""

import numpy

from . import _backend, _errors, _fallback, _options
from ._arguments import call_gpu, check_index_dtype, converter, into_host, kwargs_gap, out_of_memory, refusal
from ._edges import search_side
from ._ndarray import (MAKES_READ_ONLY, dev, fresh, value_answer, host, host_only_dtype, keep_order, mark_read_only, ndarray,
                       element_readers, in_bounds_arrays, read_only_arrays, refuse_write, wrap)
from ._registry import KEEPS_ORDER, METHOD_ARRAY_ARGS, ZERO_D_ARRAY_METHODS


_OUT_AT = {}
# (methods whose dtype= is not an answer's dtype: astype has its own steps, a view's must share memory)
_OWN_DTYPE_STEPS = frozenset({"astype", "view"})


def _out_position(name):
    """Where the method ``name`` takes ``out`` by position (x.clip(lo, hi, out): 2), read from
    NumPy's function of that name, whose first parameter is the array (once); None where it
    takes none."""
    if name not in _OUT_AT:
        import inspect

        f = getattr(numpy, name, None)
        try:
            params = list(inspect.signature(f).parameters) if callable(f) else []
        except (TypeError, ValueError):  # (a C function with no signature)
            params = []
        _OUT_AT[name] = params.index("out") - 1 if "out" in params and params.index("out") >= 1 else None
    return _OUT_AT[name]


def method(name):
    """An ndarray method for GPU arrays: CuPy's method if it has one that takes
    the given keywords, else NumPy's on a host copy (counted, warned)."""
    npm = getattr(numpy.ndarray, name)
    arrays = METHOD_ARRAY_ARGS.get(name, {})
    read_args = _READ_ARGS.get(name)  # (arguments CuPy's method reads otherwise: as NumPy's first)
    qualname = f"ndarray.{name}"
    # (x.choose(choices): x is the index array, which CuPy's kernel truncates where it is floats)
    indexed = name == "choose"
    # a new 0-d answer is NumPy's scalar (x.sum(), x.max()), except of the methods that answer arrays
    answer = _array_answer if name in ZERO_D_ARRAY_METHODS else value_answer
    if name in KEEPS_ORDER:  # (x.round(), x.byteswap(): NumPy's memory order, keep_order)
        answer = _ordered_answer(answer)
    bare_answer, makes = answer, name in MAKES_READ_ONLY
    answer = _flagged_answer(answer, name)
    writes = _WRITES_SELF.get(name)  # (x.sort(), x.put(...): NumPy's error where x is read-only)
    # a method NumPy refuses to call without arguments (x.reshape(): TypeError) is refused so here,
    # before CuPy's: CuPy's reshape() reshapes to () (a size-1 array's 0-d view, else ValueError)
    needs_args = _refuses_bare(npm)
    nones = _required(name, arrays)
    # (axis, keepdims, casting, order given by keyword, read as NumPy's method reads them: _options;
    # by position they are the common kinds: x.sum(1), where x.reshape(3, 4) is no order)
    options = dict.fromkeys(_options.positions(getattr(numpy, name), 1), -1) if callable(getattr(numpy, name, None)) else {}

    def m(self, *args, **kwargs):
        if read_only_arrays or in_bounds_arrays or element_readers:
            if writes is not None:
                refuse_write(self, writes)
            elif name == "byteswap" and (kwargs.get("inplace") or (args and args[0])):
                refuse_write(self, "byteswap")
            if kwargs.get("out") is not None:
                refuse_write(kwargs["out"], "output")
            elif len(args) > 1:
                at = _out_position(name)
                if at is not None and len(args) > at and args[at] is not None:
                    refuse_write(args[at], "output")  # (out= by position: x.clip(0, 1, o))
        bare = not args and not kwargs
        if options and kwargs:
            try:
                args, kwargs = _options.check(npm, options, args, kwargs, self)
            except (TypeError, ValueError) as numpys:
                raise _errors.trimmed(numpys) from None
        if bare and needs_args:
            try:
                _numpys_error(self, name, (), {})
            except TypeError as numpys:
                raise _errors.trimmed(numpys) from None
        try:
            # (self._a, a frame less where it is self._d; no local holds the device array: x.resize
            # counts its references)
            if nones and any((args[i] if i < len(args) else kwargs.get(k, 0)) is None for k, i in nones):
                # None as the array: NumPy's 0-d object array, no GPU form (and x.dot(None) ends
                # the process in CuPy's: its Cython parameter typed as an array lets None through)
                return _fallback.run_method(self, name, args, kwargs, "None as an array (NumPy's object array)")
            if (kwargs and kwargs.get("dtype") is not None and name in ("var", "std")
                    and numpy.dtype(kwargs["dtype"]).kind != "f"):
                # (x.var(dtype=int8) is NumPy's -9, x.var(dtype=complex64) complex: CuPy's method
                # answers float64, its std fails to compile; xpshim.var's edge computes the float ones)
                return _fallback.run_method(self, name, args, kwargs, f"{name} in dtype {kwargs['dtype']!r} "
                                            "(CuPy's computes in float64)")
            if (kwargs and kwargs.get("dtype") is not None and name not in _OWN_DTYPE_STEPS
                    and host_only_dtype(kwargs["dtype"])):
                # x.cumsum(dtype=object): NumPy's answer in a dtype no GPU array has (its function's rule)
                return _fallback.run_method(self, name, args, kwargs, f"dtype {kwargs['dtype']!r} (no GPU form)")
            cm = getattr(self._a if self._d is None or self._st.host else self._d, name, None)
            if cm is None:
                return _fallback.run_method(self, name, args, kwargs, f"cupy.ndarray has no {name}()")
            if read_args is not None:
                args, kwargs = read_args(args, kwargs)
            elif indexed and not bare:  # (NumPy counts the arguments first: x.choose() is its TypeError)
                check_index_dtype(self.dtype)
            if not kwargs and not arrays:
                for x in args:
                    if type(x) is ndarray or type(x) is numpy.ndarray:
                        return answer(call_gpu(cm, [dev(x) for x in args], kwargs), self)
                try:  # (call_gpu's work, inline)
                    r = cm(*args)
                except _backend.xp.cuda.memory.OutOfMemoryError as e:
                    raise out_of_memory(cm, e) from e
                r = bare_answer(r, self)  # (answer's steps, inline: a frame less for x.sum(), x.reshape(4, 4))
                return mark_read_only(r, name, self) if read_only_arrays or makes else r
            gap = kwargs_gap(getattr(type(self._a), name), kwargs)
            if gap:
                return _fallback.run_method(self, name, args, kwargs,
                                            f"cupy.ndarray.{name}() takes no {', '.join(map(repr, gap))} argument")
            out = kwargs.get("out")
            if type(out) is numpy.ndarray:  # a host out= (NumPy's test of clip: choose(..., out=ac)): copied in
                into_host((out,), m(self, *args, **{k: v for k, v in kwargs.items() if k != "out"}), f"ndarray.{name}")
                return out
            if arrays:
                at = {i: converter(k, qualname) for k, i in arrays.items()}
                args = [at[i](x) if i in at else dev(x) for i, x in enumerate(args)]
                kwargs = {k: converter(k, qualname)(v) if k in arrays else dev(v) for k, v in kwargs.items()}
            else:
                args = [dev(x) for x in args]
                kwargs = {k: dev(v) for k, v in kwargs.items()} if kwargs else kwargs
            try:
                r = call_gpu(cm, args, kwargs)
            except ValueError:
                if name == "repeat":
                    _numpys_error(self, name, args, kwargs)
                raise
            return out if type(out) is ndarray and r is out._a else answer(r, self)  # as NumPy: out= itself
        except Exception as e:
            if bare and refusal(e):
                # CuPy refused a call with no arguments (x.clip(): "must set either max or min"):
                # NumPy's error where NumPy refuses it too, else NumPy's answer on a host copy
                try:
                    _numpys_error(self, name, (), {})
                except Exception as numpys:
                    raise _errors.trimmed(numpys) from None
                return _fallback.run_method(self, name, (), {}, f"CuPy's {name}() refused the call "
                                            f"({type(e).__name__}: {str(e)[:80]})")
            if name == "dot" and isinstance(e, TypeError) and args and not isinstance(args[0], (ndarray, numpy.ndarray)):
                # x.dot(0): NumPy's multiplies by a number; CuPy's takes arrays only
                return _fallback.run_method(self, name, args, kwargs, f"CuPy's dot() refused a "
                                            f"{type(args[0]).__name__} (TypeError: {str(e)[:80]})")
            raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)

    if name == "astype":
        m = _astype(m)
    m.__name__ = m.__qualname__ = name
    m.__qualname__ = f"ndarray.{name}"
    m.__module__ = "xpshim"
    m.__wrapped__ = npm
    m.__doc__ = f"ndarray.{name} on the GPU (cupy.ndarray.{name}; NumPy's on a host copy where CuPy lacks it)\n\n{npm.__doc__}"
    return m


def _required(name, arrays):
    """((keyword, position), ...) of the method ``name``'s array parameters that have no default,
    read from NumPy's function of that name (one it cannot read, such as ``numpy.dot``'s C
    function, or that names it otherwise, counts as required)."""
    import inspect

    try:
        params = inspect.signature(getattr(numpy, name)).parameters
    except (AttributeError, TypeError, ValueError):
        params = {}
    return tuple((k, i) for k, i in arrays.items()
                 if k not in params or params[k].default is inspect.Parameter.empty)


def _refuses_bare(npm):
    """True where NumPy's method raises TypeError when called with no argument (its signature)."""
    try:
        npm(numpy.zeros(1))
    except TypeError:
        return True
    except Exception:
        pass
    return False


def _numpys_error(x, name, args, kwargs):
    """NumPy's error for a call of ``x.name`` that CuPy refuses in its own words (counts
    ``x.repeat`` refuses, an argument a method lacks: ``x.argpartition()``): NumPy's method on a
    stand-in of ``x``'s shape and dtype with no memory behind it (zero strides), which checks its
    arguments before any work; where it raises nothing, the caller raises CuPy's error."""
    stand_in = numpy.lib.stride_tricks.as_strided(numpy.zeros((), x.dtype), x.shape, (0,) * x.ndim)
    getattr(stand_in, name)(*args, **kwargs)




# methods that write into the array itself, and the kind of NumPy's error where it is read-only
# (not resize: NumPy's resizes a read-only array, and the data it keeps is not written)
_WRITES_SELF = {"sort": "sort", "partition": "partition", "put": "put", "setfield": "assign", "itemset": "assign"}


def _flagged_answer(answer, name):
    """A method's answer, read-only where NumPy's would be (``mark_read_only``: x.diagonal(), and
    views of a read-only array whose views NumPy makes read-only)."""
    makes = name in MAKES_READ_ONLY

    def flagged(r, x):
        res = answer(r, x)
        return mark_read_only(res, name, x) if read_only_arrays or makes else res
    return flagged


def _ordered_answer(answer):
    def ordered(r, x):
        return answer(keep_order(r, (x,)), x)
    return ordered


def _array_answer(r, x):
    # (a new array, x.astype(...), x.copy(): through fresh, so that auto mode knows the user's line
    # that made it, as for a function's result; a 0-d answer of these methods stays an array)
    return fresh(r, (x,)) if r.ndim else wrap(r)


def _astype(routed):
    """astype: to a dtype with no GPU form, a NumPy array (as np.array makes), else ``routed``."""
    def astype(self, *args, **kwargs):
        dt = args[0] if args else kwargs.get("dtype")
        if dt is not None and host_only_dtype(dt):
            return host(self, f"astype({numpy.dtype(dt)}) (no GPU form)").astype(*args, **kwargs)
        return routed(self, *args, **kwargs)
    return astype


def _stable_sort(args, kwargs):
    """``x.sort``/``x.argsort``'s ``(axis, kind, order)`` and ``stable=`` as CuPy's method takes them:
    CuPy's sort is always stable and takes kind=None or "stable" only, so NumPy's kinds (checked as
    NumPy checks them) become the stable sort, as in xpshim's functions (_gaps.compose's sorting;
    NumPy's own insert asks for kind="mergesort")."""
    # https://github.com/cupy/cupy/blob/v14.0.0/cupy/_core/core.pyx (ndarray.sort: only "stable")
    kwargs = dict(kwargs)
    stable = kwargs.pop("stable", None)
    if len(args) > 1:
        kind, args = args[1], args[:1] + args[2:]
        if len(args) > 1:
            kwargs["order"], args = args[1], args[:1]
    else:
        kind = kwargs.pop("kind", None)
    if kind is not None:
        numpy.empty(0).sort(kind=kind, stable=stable)  # (NumPy's errors: a kind it does not know, or both)
    return args, kwargs


def _search_side(args, kwargs):
    """``x.searchsorted``'s side read as NumPy's (``_edges.search_side``: CuPy's reads any side but
    "right" as "left")."""
    if len(args) > 1:
        return (args[0], search_side(args[1]), *args[2:]), kwargs
    if kwargs and "side" in kwargs:
        return args, {**kwargs, "side": search_side(kwargs["side"])}
    return args, kwargs


_READ_ARGS = {"sort": _stable_sort, "argsort": _stable_sort, "searchsorted": _search_side}


def install_methods():
    """Give xpshim.ndarray every public numpy.ndarray method it does not define itself."""
    for name in dir(numpy.ndarray):
        if name.startswith("_") or name in ndarray.__dict__:
            continue
        if callable(getattr(numpy.ndarray, name)):
            setattr(ndarray, name, method(name))


install_methods()
