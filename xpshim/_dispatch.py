"""The wrapper for one NumPy function (``function``): decide where the call runs, then run it there.

Where a call runs: on the GPU if any argument is a GPU array; on the CPU if
any is a NumPy array; otherwise on the current device (``xpshim.device``).
Creation from data (``array``, ``asarray``, ...) always uses the current device.
In auto mode on a GPU, sizes decide too (``_placement``): a call without arrays
makes a small result on the CPU, and a NumPy result that reaches the crossover
moves to the GPU. A call that runs on the GPU takes its name's route (``_route.Route``).
"""

import functools
import inspect

import numpy

from . import _arrayapi, _backend, _device, _errors, _fallback, _hostfast, _placement, _transfer
from ._arguments import locate, numbers_alone
from ._cpupath import describe as _describe, where as _where
from ._ndarray import host, is_read_only, ndarray, refuse_write, wrap
from ._route import Route, dtype_position

_HOST_OPERAND = frozenset({numpy.ndarray, int, float, complex, bool})
_PLAIN_KW = frozenset({int, float, bool, str, type(None)})  # keyword values that hold no array (axis=0)
_PLAIN_ARG = _PLAIN_KW | {complex, type}  # (and dtypes: np.zeros(5, np.float32), np.full(3, 1j))
# Functions whose first argument is the shape of what they make (a small int: NumPy's, in auto mode)
SHAPE_FIRST = frozenset({"xpshim.zeros", "xpshim.ones", "xpshim.empty", "xpshim.full"})


def follow_like(f, npf, args, kwargs):
    """NumPy's ``like=`` (np.zeros(3, like=a)): the array is made where ``like``'s type makes
    arrays: on the GPU for a GPU array (xpshim's or CuPy's, whose functions take no ``like``), a
    NumPy array for a NumPy array; any other type keeps NumPy's own dispatch to it."""
    kwargs = dict(kwargs)
    like = kwargs.pop("like")
    if like is None:
        return f(*args, **kwargs)
    if type(like) is ndarray or _backend.is_raw_gpu_array(like):
        where = "gpu"
    elif type(like) is numpy.ndarray:
        where = "cpu"
    else:
        return npf(*args, like=like, **kwargs)
    with _device.device(where):
        return f(*args, **kwargs)


def host_answer(r, args, kwargs):
    """A NumPy answer ``r`` of at least the crossover's size, of a call on the host: moved to the
    GPU where auto mode places it there (``_placement.promote``), else ``r``."""
    p = _placement.promote(r, args, kwargs)
    return p if p is r else wrap(p)


def numpys_stream(route, args, kwargs):
    """A draw of ``np.random``'s global generator (``rand``, ``normal``, ``shuffle``, ...) in auto
    mode: NumPy's generator draws it (``numpys_draw``). Auto mode's numbers are NumPy's, however
    long the GPU took to start: a draw made by CuPy's generator once the GPU was ready, and by
    NumPy's before, made a seeded program's numbers depend on the time (docs/placement.md,
    "Random numbers")."""
    return numpys_draw(route.npf, route.name == "xpshim.random.shuffle", args, kwargs)


def numpys_draw(f, first, args, kwargs):
    """``f(*args, **kwargs)``, a draw of NumPy's generator: GPU arrays it reads, NumPy reads from
    host copies (counted); a GPU array it writes into (the first argument where ``first``:
    ``shuffle(x)``; ``out=``) is given to it as a host copy and written back (both counted: given
    the GPU array itself, NumPy would write into a copy of it, and the write would be lost); an
    answer of the crossover's size or more goes to the GPU (``host_answer``)."""
    into = []  # (GPU array, its host copy NumPy writes into)
    if first and args and type(args[0]) is ndarray:
        into.append((args[0], host(args[0], "an array NumPy's generator writes into")))
        args = (into[-1][1], *args[1:])
    if kwargs and type(kwargs.get("out")) is ndarray:
        into.append((kwargs["out"], host(kwargs["out"], "an array NumPy's generator writes into")))
        kwargs = {**kwargs, "out": into[-1][1]}
    for d, h in into:
        if is_read_only(d):
            h.flags.writeable = False  # (NumPy's own refusal, before it draws)
    r = f(*args, **kwargs)
    for d, h in into:
        refuse_write(d)  # (as every write: bounds known of its storage forgotten, element values copied)
        d._a[...] = _transfer.to_device(h, "an array NumPy's generator wrote into")
        if r is h:
            return d  # (NumPy answers with out= itself)
    if type(r) is numpy.ndarray and r.size >= _placement.limit:
        return host_answer(r, args, kwargs)
    return r


def _takes_like(npf):
    try:
        return "like" in inspect.signature(npf).parameters
    except (TypeError, ValueError):
        return False


def function(modname, name, npf, cupy_path, creation=False):
    """The xpshim wrapper for one NumPy function."""
    route = Route(f"{modname}.{name}", npf, cupy_path)
    takes_like = _takes_like(npf)
    # the array API's device= (np.zeros(3, device=x.device)): read by xpshim (_arrayapi), CuPy takes none
    takes_device = dtype_position(npf, "device") is not None

    if creation:
        def wrapper(*args, **kwargs):
            try:
                if kwargs and takes_device and "device" in kwargs:
                    return _arrayapi.on_device(wrapper, args, kwargs)
                if takes_like and "like" in kwargs:
                    return follow_like(wrapper, npf, args, kwargs)
                if not _backend.live or _device.current_device() == "cpu":
                    return route.cpu(args, kwargs)
                return route.gpu(args, kwargs)
            except Exception as e:
                raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)

    else:
        grows = route.name in _placement.GROWS
        host_array, plain_kw, host_operand, plain_arg = numpy.ndarray, _PLAIN_KW, _HOST_OPERAND, _PLAIN_ARG  # (closure cells: fast)
        gpu_array = ndarray
        shape_first = route.name in SHAPE_FIRST
        # (np.arange(10), np.linspace(0, 1, 50): what they make is told by their numbers)
        sized_by_numbers = route.name in _placement.MAKERS and not shape_first
        scalar_answer = route.name not in _placement.MAKERS  # (numbers alone: NumPy's scalar)
        draws = modname == "xpshim.random"  # (auto mode: NumPy's generator: numpys_stream)
        # NumPy's function without its own __array_function__ check, for arguments that are plain
        # NumPy arrays and numbers only (nothing there can override it): that check costs about
        # as much as ours; for np.roll and np.linalg.norm, NumPy's steps without its argument
        # handling (_hostfast)
        plain_npf = _hostfast.fast(route.name, getattr(npf, "_implementation", npf))

        no_policy, policy_get = _device.NO_POLICY, _device.policy_now

        def wrapper(*args, **kwargs):
            try:
                # (auto mode's np.zeros(16): a count under the crossover, no keyword, no device
                # block, is NumPy's array, as the steps below decide after a dozen checks: 0.5 us
                # over NumPy's 0.1-0.2 on small arrays, which loops pay per call)
                if shape_first and not kwargs and len(args) == 1:
                    n = args[0]
                    if type(n) is int and n < _placement.limit and _device.default_placing and policy_get() is no_policy:
                        return npf(n)
                # (a GPU array first, its data on the device, no keyword: none of the steps below
                # but the last applies, np.sum(a, 0); auto mode's draws take NumPy's generator)
                if args and not kwargs and type(args[0]) is gpu_array and not draws and not args[0]._st.host and _backend.live:
                    return route.gpu(args, kwargs)
                if kwargs and takes_device and "device" in kwargs:
                    return _arrayapi.on_device(wrapper, args, kwargs)
                # The common cases first, in as few steps as can be (a loop over small arrays pays
                # for each one: 0.2-0.4 us a call was 5-15% of rk4_oscillators): plain NumPy arrays,
                # numbers and plain keywords (axis=0) call NumPy's implementation, and a small shape
                # in auto mode makes NumPy's array, without a call to locate.
                if args and not grows:
                    a0 = args[0]
                    t = type(a0)
                    host = False
                    if t is host_array:  # np.linalg.norm(w), np.dot(a, b), np.roll(x, 1), np.where(c, a, 0)
                        host = len(args) == 1 or (len(args) == 2 and type(args[1]) in host_operand)
                        if not host and len(args) > 2:
                            for v in args:
                                if type(v) not in host_operand:
                                    break
                            else:
                                host = True
                    elif shape_first:
                        # np.zeros(5), np.ones((3, 3)) in auto mode: a small array is NumPy's (as
                        # placement's arrayless would say, sooner)
                        n = a0 if t is int else _placement.small_shape(a0) if t is tuple else None
                        # (or any shape where new arrays are made on the CPU: xpshim.device("cpu"))
                        if n is not None:
                            dev, placing = _device.new_arrays()
                            if placing and n < _placement.limit:
                                dev = "cpu"  # (a small shape in auto mode: made where the CPU makes it)
                            if dev == "cpu":
                                if len(args) == 1 and not kwargs:  # (np.zeros(16): nothing else to check)
                                    return npf(a0)
                                for v in args[1:]:
                                    if type(v) not in plain_arg and not isinstance(v, numpy.dtype):
                                        break
                                else:
                                    for v in kwargs.values():
                                        if type(v) not in plain_arg and not isinstance(v, numpy.dtype):
                                            break
                                    else:
                                        return npf(*args, **kwargs)
                            elif dev == "gpu" and not placing and len(args) == 1 and not kwargs and _backend.live:
                                # gpu mode's np.zeros(16): CuPy's, as locate and the device would say
                                # after the steps below (a shape alone: no array to locate)
                                return route.gpu(args, kwargs)
                    elif sized_by_numbers and (t is int or t is float) and not kwargs:
                        # auto mode: a small result is NumPy's (placement's arrayless says so,
                        # later), unless learnt seeds make it on the GPU
                        if not _placement.seek and _device.placing():
                            for v in args:
                                if type(v) is not int and type(v) is not float:
                                    break
                            else:
                                n = _placement.estimate_of_numbers(route.name, args)
                                if n is not None and n < _placement.limit:
                                    return npf(*args)
                    elif t is tuple or t is list:  # np.concatenate((v, w)), np.stack([a, b])
                        if len(args) == 1 and a0:
                            host = True
                            for b in a0:
                                if type(b) is not host_array:
                                    host = False
                                    break
                    if host:
                        if kwargs:
                            for v in kwargs.values():
                                if type(v) not in plain_kw:
                                    break
                            else:
                                r = plain_npf(*args, **kwargs)
                                if type(r) is host_array and r.size >= _placement.limit:
                                    return host_answer(r, args, kwargs)
                                return r
                        else:
                            r = plain_npf(*args)
                            if type(r) is host_array and r.size >= _placement.limit:
                                return host_answer(r, args, kwargs)
                            return r
                if takes_like and "like" in kwargs:
                    return follow_like(wrapper, npf, args, kwargs)
                if not _backend.live:
                    return npf(*args, **kwargs)
                if draws and _device.placing():
                    return numpys_stream(route, args, kwargs)
                loc = None
                if args and grows:  # (the same cases, for names whose result may outgrow the inputs)
                    a0 = args[0]
                    t = type(a0)
                    if t is host_array:
                        if len(args) == 1 or (len(args) == 2 and type(args[1]) in host_operand):
                            loc = "cpu"
                    elif (t is tuple or t is list) and len(args) == 1 and a0:
                        for b in a0:
                            if type(b) is not host_array:
                                break
                        else:
                            loc = "cpu"
                    if loc is not None and kwargs:
                        for v in kwargs.values():
                            if type(v) not in plain_kw:
                                loc = None
                                break
                if loc is None:
                    # (a GPU array first, its data on the device: locate's answer at its first step)
                    loc = "gpu" if args and type(args[0]) is ndarray and not args[0]._st.host else locate(args, kwargs)
                if loc == "cpu":
                    if grows and _device.placing() and _placement.grows(route.name, args, kwargs):
                        return route.gpu(args, kwargs)  # a result past the crossover from small inputs
                    r = npf(*args, **kwargs)
                    if type(r) is host_array and r.size >= _placement.limit:
                        return host_answer(r, args, kwargs)
                    return r
                if loc is None:
                    loc = _device.current_device()
                    if loc == "cpu":
                        return npf(*args, **kwargs)
                    if _device.placing():
                        r = _placement.arrayless(route, args, kwargs)
                        return wrap(r) if _backend.is_raw_gpu_array(r) else r
                    if scalar_answer and numbers_alone(args, kwargs):
                        return _fallback.result_to_device(npf(*args, **kwargs), "a result of numbers alone")
                return route.gpu(args, kwargs)
            except Exception as e:
                raise _errors.trimmed(e)  # (NumPy's error at the user's line: xpshim/_errors.py)

    # (the host path's steps, for the CPU path's object of this name, made before the GPU was
    # live, to take them itself: xpshim/_cpupath.py; none where a result may outgrow the inputs)
    wrapper.host_path = None if creation or grows else (_placement, host_answer)
    # (the route for a call whose first argument is a GPU array with its data on the device, and
    # no keyword, for the CPU path's object of this name to take itself; none for auto mode's draws)
    wrapper.gpu_path = None if creation or draws else (route.gpu, ndarray)
    return _describe(functools.update_wrapper(wrapper, npf, assigned=(), updated=()), modname, name, npf,
                     _where(cupy_path))
