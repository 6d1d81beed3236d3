"""The CPU path without the routing machinery: names reached while no GPU array can exist.

While ``_backend.live`` is False (no usable GPU, or ``XPSHIM_DEVICE=cpu``), a call of a NumPy
function through xpshim is NumPy's call. The names first reached then (``_namespace``) are made
here: each calls NumPy's function itself, and builds the routed object (``_dispatch``'s wrapper,
or the hand-written one; ``build``) only when a GPU array may exist or a keyword needs it
(``device=``, ``like=``). So a short script on the CPU loads none of ``_dispatch``, ``_ndarray``,
``_edges``, ... (5-9 ms of imports on a 2-core machine, more than such a script computes), and a
loop of small calls pays one short Python frame. Each object looks as the routed one does: its
type, name, module, ``__wrapped__`` and docstring (``describe``; ``tests/unit/test_import.py``).
"""

import inspect
import keyword
import os
import types

import numpy

from . import _backend, _device, _errors, _hostfast

_HOST_OPERAND = frozenset({numpy.ndarray, int, float, complex, bool})
_API_KEYWORDS = ("device", "like")  # (the routed wrapper reads these, also on the CPU: _arrayapi, follow_like)


def where(cupy_path):
    """What a routed function's docstring says it does with GPU arrays."""
    return (f"runs cupy.{cupy_path} on GPU arrays" if cupy_path else
            "has no GPU implementation: GPU arrays are copied to the host (a counted, warned fallback)")


def describe(wrapper, modname, name, npf, where):
    """``wrapper`` named and documented as xpshim's ``modname.name`` (NumPy's ``npf``)."""
    wrapper.__name__ = name
    wrapper.__qualname__ = name
    wrapper.__module__ = modname
    wrapper.__wrapped__ = npf
    wrapper.__doc__ = f"{modname}.{name}: {where}\n\n" + (getattr(npf, "__doc__", None) or "")
    return wrapper if hasattr(npf, "__get__") else non_binding(wrapper)


def non_binding(f):
    """``f`` as an object that, like NumPy's C functions (``np.array``, ``np.zeros``), does not
    become a method when stored on a class (``class T: array = np.array``).

    Its class calls ``f`` directly (a staticmethod ``__call__``: no extra frame), and it
    pickles by name, as ``f`` did.
    """
    cls = type(f.__name__, (), {
        "__slots__": (), "__call__": staticmethod(f), "__doc__": f.__doc__, "__module__": f.__module__,
        "__reduce__": lambda self: f.__qualname__, "__repr__": lambda self: f"<xpshim function {f.__module__}.{f.__name__}>",
        "__wrapped__": f.__wrapped__, "__name__": f.__name__, "__qualname__": f.__qualname__,
        "__signature__": property(lambda self: inspect.signature(f)),
    })
    return cls()


def _later(build):
    """A function that calls ``build()``'s object, built on its first call. Once a GPU array can
    exist, its ``aim`` (set by the name's object) is told of that object, so that the name calls
    it directly from then on: a Python frame less on each call, which auto mode's loops of small
    calls pay (names reached before the GPU started are these objects, kept as they are: the
    program may hold them, and compare them with ``is``)."""
    made = []

    def routed(*args, **kwargs):
        if not made:
            made.append(build())
        if routed.aim is not None and _backend.live:
            aim, routed.aim = routed.aim, None
            aim(made[0])
        return made[0](*args, **kwargs)
    def target():
        """The object ``build()`` makes, made now if not yet (``explain`` and tests read it)."""
        if not made:
            made.append(build())
        return made[0]
    routed.aim, routed.target = None, target
    return routed


def _call_of(obj):
    """What calling ``obj`` runs: a non-binding object's function (``non_binding``), or ``obj``."""
    f = type(obj).__dict__.get("__call__")
    return f.__func__ if isinstance(f, staticmethod) else obj


def _aimed(obj, routed):
    """``obj`` (a non-binding object) calls ``routed``'s object itself once that is built with a
    GPU live (``_later``): its class's ``__call__`` is that object's function."""
    routed.aim = lambda r: setattr(type(obj), "__call__", staticmethod(_call_of(r)))
    return obj


def _plain(modname, name, npf):
    """NumPy's implementation past its __array_function__ check, for plain NumPy arrays and
    numbers (nothing there can override it), as the routed wrapper's host path calls it."""
    return _hostfast.fast(f"{modname}.{name}", getattr(npf, "_implementation", npf))


def numpys_parameters(modname, name, npf, cupy_path, build):
    """xpshim's ``modname.name`` with NumPy's parameters (``_with_numpys_parameters``), or None
    where they do not allow it. Also made while a GPU array can exist: its plain calls, the
    loops' common case, take the routed wrapper's host path themselves (the ``host_path`` of the
    object ``build()`` makes, told at its first call: ``_later``), without its ``*args`` call."""
    routed = _later(build)
    fixed = _with_numpys_parameters(name, npf, _plain(modname, name, npf), routed)
    if fixed is None:
        return None
    obj = describe(fixed, modname, name, npf, where(cupy_path))
    if type(obj) is not types.FunctionType:  # (NumPy's function does not bind: neither may ours)
        return _aimed(obj, routed)
    routed.aim = lambda r: fixed.__globals__.update(  # (its own globals: exec'd)
        _routed=r, _host=getattr(_call_of(r), "host_path", None), _gpu=getattr(_call_of(r), "gpu_path", None))
    return obj


def function(modname, name, npf, cupy_path, build):
    """xpshim's ``modname.name`` for NumPy's function ``npf``, made while no GPU array can exist:
    NumPy's function, or ``build()``'s routed wrapper once one can."""
    fixed = numpys_parameters(modname, name, npf, cupy_path, build)
    if fixed is not None:
        return fixed
    routed = _later(build)
    plain_npf = _plain(modname, name, npf)
    host_array, host_operand, api = numpy.ndarray, _HOST_OPERAND, _API_KEYWORDS
    to = [routed]  # (the routed object itself, once aimed)

    def wrapper(*args, **kwargs):
        if _backend.live:
            return to[0](*args, **kwargs)
        if kwargs:
            if api[0] in kwargs or api[1] in kwargs:
                return routed(*args, **kwargs)
            return npf(*args, **kwargs)
        if args:
            t = type(args[0])
            if t is host_array:  # np.dot(a, b), np.flip(x), np.roll(x, 1)
                if len(args) == 1 or (len(args) == 2 and type(args[1]) in host_operand):
                    return plain_npf(*args)
            elif (t is tuple or t is list) and len(args) == 1 and args[0]:  # np.concatenate((v, w))
                for b in args[0]:
                    if type(b) is not host_array:
                        break
                else:
                    return plain_npf(*args)
        return npf(*args)

    obj = describe(wrapper, modname, name, npf, where(cupy_path))
    if type(obj) is types.FunctionType:
        routed.aim = lambda r: to.__setitem__(0, r)
        return obj
    return _aimed(obj, routed)


# Argument types that hold no array NumPy's __array_function__ could defer to (an exact NumPy
# array cannot override it either)
_PLAIN = frozenset({numpy.ndarray, int, float, complex, bool, str, type(None)})
_UNSET = object()  # (a parameter the caller did not give)


def _with_numpys_parameters(name, npf, plain_npf, routed):
    """For a NumPy function written in Python whose parameters are all positional-or-keyword
    (``flip(m, axis=None)``, ``roll``, ``sum``, ...): a wrapper with those parameters, which packs
    no ``*args``/``**kwargs`` (about 70 ns a call: a loop of ``np.flip`` on 16 elements runs at
    NumPy's speed, not 1.2x). Plain arguments call ``plain_npf`` with NumPy's defaults filled in;
    anything else calls NumPy's function (or, once a GPU array can exist, ``routed``) with the
    arguments given. None where the parameters do not allow it."""
    impl = getattr(npf, "_implementation", None)
    if not isinstance(impl, types.FunctionType) or "device" in impl.__code__.co_varnames \
            or "like" in impl.__code__.co_varnames:
        return None
    try:
        params = list(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params or any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.name.startswith("_") or keyword.iskeyword(p.name)
                         for p in params) or params[0].default is not inspect.Parameter.empty:
        return None
    first, rest = params[0].name, params[1:]
    env = {"_b": _backend, "_npf": npf, "_impl": plain_npf, "_routed": routed, "_host": None, "_nd": numpy.ndarray,
           "_plain": _PLAIN, "_M": _UNSET, "_gpu": None, "_trim": _errors.trimmed}
    head, plain, call, given = [first], [f"type({first}) is _nd"], [first], [first]
    for i, p in enumerate(rest):
        if p.default is p.empty:
            head.append(p.name)
            plain.append(f"type({p.name}) in _plain")
            call.append(p.name)
            given.append(p.name)
        else:
            env[f"_d{i}"] = p.default
            head.append(f"{p.name}=_M")
            plain.append(f"({p.name} is _M or type({p.name}) in _plain)")
            call.append(f"_d{i} if {p.name} is _M else {p.name}")
    optional = [p.name for p in rest if p.default is not p.empty]
    every = [first] + [p.name for p in rest]
    src = [f"def {name}({', '.join(head)}):",
           f"    if {' and '.join(plain)}:",
           "        if not _b.live:",
           f"            return _impl({', '.join(call)})",
           # (a GPU live: the routed wrapper's host path, taken here: NumPy's answer, or, where
           # it reaches the crossover, _dispatch.host_answer's; _host is set with _routed)
           "        if _host is not None:",
           f"            _r = _impl({', '.join(call)})",
           "            if type(_r) is not _nd or _r.size < _host[0].limit:",
           "                return _r",
           f"            return _host[1](_r, ({', '.join(every)},), {{}})",
           f"    _a, _kw = [{', '.join(given)}], {{}}"]
    # (the arguments as positions up to the first one not given, the rest by keyword: as the
    # caller most likely wrote them, and as the routed wrapper reads positions: partition's kth)
    for n in optional:
        src += [f"    if {n} is not _M:", f"        if _kw or len(_a) < {len(given) + optional.index(n)}:",
                f"            _kw[{n!r}] = {n}", "        else:", f"            _a.append({n})"]
    # (a GPU array first, its data on the device, nothing by keyword: the routed wrapper's first
    # step, taken here, without its *args call; _gpu is set with _routed: _dispatch's gpu_path)
    src += ["    if _gpu is not None and not _kw and _b.live and type(" + first + ") is _gpu[1] and not " + first + "._st.host:",
            "        try:", "            return _gpu[0](tuple(_a), _kw)",
            "        except Exception as _e:", "            raise _trim(_e)  # (as the routed wrapper raises it)",
            "    return (_routed if _b.live else _npf)(*_a, **_kw)"]
    code = "\n".join(src)
    # (named as a file of this package: warnings and call sites pass over its frames, as over ours)
    exec(compile(code, os.path.join(os.path.dirname(os.path.abspath(__file__)), f"<{name}>"), "exec"), env)  # noqa: S102
    return env[name]


def creation_doc(name, npf):
    """The docstring of xpshim's ``array``, ``asarray``, ... (``_handwritten``)."""
    return (f"xpshim.{name}: makes the array on the current device (xpshim.get_device()); "
            f"host data is read by NumPy and copied over once (counted); in auto mode, data "
            f"smaller than the crossover stays a NumPy array\n\n{npf.__doc__}")


def _creation(name, build):
    """xpshim's ``array`` (and ``asarray``, ...) while no GPU array can exist: NumPy's, but for a
    GPU array given (one made before the GPU stopped being used, in tests) and the array API's
    keywords, which the hand-written one reads."""
    npf = getattr(numpy, name)
    routed = _later(build)
    host_array = numpy.ndarray

    def f(a, dtype=None, *args, **kwargs):
        t = type(a)
        if _backend.live or (kwargs and ("like" in kwargs or "device" in kwargs or "copy" in kwargs)) or \
                (t is not host_array and t is not list and getattr(t, "_xpshim_device", None) is not None):
            return routed(a, dtype, *args, **kwargs)
        if args or kwargs:
            return npf(a, dtype, *args, **kwargs)
        return npf(a, dtype)

    f.__name__ = f.__qualname__ = name
    f.__module__ = "xpshim"
    f.__wrapped__ = npf
    f.__doc__ = creation_doc(name, npf)
    return _aimed(non_binding(f), routed)


def documented(f, doc):
    """``f`` with the docstring ``doc``."""
    f.__doc__ = doc
    return f


DOT_DOC = ("xpshim.dot: runs cupy.dot on GPU arrays (an (..., k) array times a weight vector "
           "of length k <= 8 runs as one elementwise kernel)\n\n" + (numpy.dot.__doc__ or ""))


def _dot(name, build):
    """xpshim's ``dot`` while no GPU array can exist: NumPy's C function (for plain NumPy arrays
    and numbers, past its __array_function__ check, as the routed wrapper calls it)."""
    routed = _later(build)
    host_array, host_operand = numpy.ndarray, _HOST_OPERAND
    host_dot = getattr(numpy.dot, "_implementation", numpy.dot)

    def dot(a, b, out=None):
        if _backend.live or out is not None:
            return routed(a, b) if out is None else routed(a, b, out=out)
        if type(a) is host_array and type(b) in host_operand:
            return host_dot(a, b)
        return numpy.dot(a, b)

    dot.__name__ = dot.__qualname__ = "dot"
    dot.__module__ = "xpshim"
    dot.__wrapped__ = numpy.dot
    dot.__doc__ = DOT_DOC
    return _aimed(non_binding(dot), routed)


class IndexMaker:
    """``np.mgrid``, ``np.ogrid``, ``np.r_``, ``np.c_``: NumPy's object's arrays, made where new
    arrays go, as ``np.array`` makes them (on the GPU device, or with a GPU array among the key's
    items, a GPU array; in auto mode a small one stays NumPy's: ``_handwritten.IndexMaker``).
    This one, made while no GPU array can exist, is NumPy's object until one can."""

    __slots__ = ("_np", "_build", "_made")
    __module__ = "xpshim"

    def __init__(self, name, build):
        self._np, self._build, self._made = getattr(numpy, name), build, None

    def __getitem__(self, key):
        if _backend.live:
            if self._made is None:
                self._made = self._build()
            return self._made[key]
        return self._np[key]

    def __getattr__(self, name):  # (NumPy's object's own attributes: mgrid.sparse, r_.axis)
        return getattr(self._np, name)

    def __len__(self):
        return len(self._np)

    def __repr__(self):
        return repr(self._np)


# Hand-written names (``_handwritten.TABLE``) whose CPU path is NumPy's: made here while no GPU
# array can exist, the hand-written object built on first need.
HANDWRITTEN = {("xpshim", n): _creation for n in ("array", "asarray", "asanyarray", "ascontiguousarray",
                                                  "asfortranarray")}
HANDWRITTEN[("xpshim", "dot")] = _dot
HANDWRITTEN.update({("xpshim", n): IndexMaker for n in ("mgrid", "ogrid", "r_", "c_")})


def get_device(x=None):
    """The device of array ``x`` ("gpu", "cpu" or "dask"), or with no argument the current device."""
    if x is None:
        return _device.current_device()
    # (xpshim's GPU arrays and Dask mode's say so in their class: neither module is loaded for this)
    dev = getattr(type(x), "_xpshim_device", None)
    if dev is not None:
        return dev
    return "gpu" if _backend.is_raw_gpu_array(x) else "cpu"
