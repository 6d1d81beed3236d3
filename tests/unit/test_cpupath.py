"""The CPU path's objects (xpshim/_cpupath.py) against the routed ones they stand for.

While no GPU array can exist, names are made by ``_cpupath`` without the routing machinery.
Each must look as the routed object does (type, name, module, ``__wrapped__``, docstring), answer
as NumPy does, and route GPU arrays as the routed one does once a GPU array can exist. xpshim's
ufuncs call NumPy's ufunc directly while no GPU array can exist, and route once one can.
"""

import inspect
import types

import numpy
import pytest

import xpshim
from xpshim import _backend, _cpupath, _dispatch, _handwritten, _namespace, _ndarray, _registry, _simgpu, _ufunc


def _routed_names():
    """(sub, name, npf, cupy_path) of every top-level, linalg and fft name _dispatch.function routes."""
    out = []
    for sub in ("", "linalg", "fft"):
        npmod = getattr(numpy, sub) if sub else numpy
        for name in _namespace.public_names(sub):
            npf = getattr(npmod, name, None)
            modname = "xpshim." + sub if sub else "xpshim"
            if (npf is None or isinstance(npf, (type, types.ModuleType, numpy.ufunc)) or not callable(npf)
                    or name in _registry.NUMPY_OWN or (modname, name) in _registry.HANDWRITTEN
                    or (not sub and name in _registry.HOST_IO)):
                continue
            out.append((sub, name, npf, f"{_registry.ROUTED_MODULES[sub]}.{name}" if sub else name))
    return out


ROUTED = _routed_names()


def _look(obj):
    t = type(obj)
    return (isinstance(obj, types.FunctionType), t.__module__ if t.__module__ != "builtins" else None,
            getattr(obj, "__name__", None), getattr(obj, "__qualname__", None), getattr(obj, "__module__", None),
            getattr(getattr(obj, "__wrapped__", None), "__func__", getattr(obj, "__wrapped__", None)), obj.__doc__, repr(obj) if not isinstance(obj, types.FunctionType) else "",
            hasattr(t, "__get__"))


def test_there_are_names_to_compare():
    assert len(ROUTED) > 250 and {"flip", "dot", "zeros", "norm"} - {n for _, n, _, _ in ROUTED} == {"dot"}


@pytest.mark.parametrize("sub,name,npf,cupy_path", ROUTED, ids=[f"{s}.{n}".lstrip(".") for s, n, _, _ in ROUTED])
def test_function_looks_as_the_routed_one(sub, name, npf, cupy_path):
    modname = "xpshim." + sub if sub else "xpshim"
    light = _cpupath.function(modname, name, npf, cupy_path, None)
    assert _look(light) == _look(_dispatch.function(modname, name, npf, cupy_path))


@pytest.mark.parametrize("key", sorted(_cpupath.HANDWRITTEN))
def test_handwritten_looks_as_the_routed_one(key):
    light = _cpupath.HANDWRITTEN[key](key[1], None)
    full = _handwritten.TABLE[key]
    assert _look(light) == _look(full)
    if callable(full):  # (np.mgrid, np.r_, ...: NumPy's are indexed, not called)
        assert inspect.signature(light) == inspect.signature(full)


def test_handwritten_names_listed_as_the_table_has_them():
    assert _registry.HANDWRITTEN == frozenset(_handwritten.TABLE)
    assert set(_cpupath.HANDWRITTEN) <= _registry.HANDWRITTEN


CALLS = [  # (name, args, kwargs): every branch of the CPU path's wrapper
    ("flip", (numpy.arange(6.0).reshape(2, 3),), {}),
    ("flip", (numpy.arange(6.0).reshape(2, 3), 1), {}),
    ("flip", (numpy.arange(6.0).reshape(2, 3),), {"axis": 0}),
    ("roll", (numpy.arange(5), 2), {}),
    ("roll", (numpy.arange(6).reshape(2, 3), 1, 0), {}),
    ("concatenate", ((numpy.ones(2), numpy.zeros(3)),), {}),
    ("concatenate", ([numpy.ones(2), [4, 5]],), {}),
    ("zeros", (3,), {}),
    ("ones", ((2, 2),), {"dtype": numpy.int8}),
    ("sum", ([[1, 2], [3, 4]],), {"axis": 1}),
    ("arange", (5,), {"like": numpy.empty(0)}),
    ("linalg.norm", (numpy.array([3.0, 4.0]),), {}),
    ("array", ([1, 2, 3],), {}),
    ("asarray", ([1.5, 2],), {"dtype": numpy.float32}),
    ("array", ([1, 2, 3],), {"copy": True}),
    ("dot", (numpy.ones((2, 3)), [1.0, 2.0, 3.0]), {}),
    ("dot", (numpy.ones((2, 2)), numpy.eye(2)), {}),
    ("dot", (numpy.ones((2, 2)), 2), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_cpu_path_answers_as_numpy(name, args, kwargs):
    sub, _, leaf = name.rpartition(".")
    npf = getattr(getattr(numpy, sub) if sub else numpy, leaf)
    modname = "xpshim." + sub if sub else "xpshim"
    key = (modname, leaf)
    light = (_cpupath.HANDWRITTEN[key](leaf, lambda: _handwritten.TABLE[key]) if key in _cpupath.HANDWRITTEN else
             _cpupath.function(modname, leaf, npf, name, lambda: _dispatch.function(modname, leaf, npf, name)))
    got, want = light(*args, **kwargs), npf(*args, **kwargs)
    assert type(got) is type(want) and type(want) in (numpy.ndarray, numpy.float64)
    assert got.dtype == want.dtype and got.shape == want.shape and numpy.array_equal(got, want)
    if type(want) is numpy.ndarray:
        assert got.flags.c_contiguous == want.flags.c_contiguous


def test_dot_out_lands_in_out():
    light = _cpupath.HANDWRITTEN[("xpshim", "dot")]("dot", lambda: _handwritten.TABLE[("xpshim", "dot")])
    out = numpy.empty((2, 2))
    assert light(numpy.ones((2, 2)), numpy.eye(2), out=out) is out and (out == 1).all()


def test_get_device_without_the_array_module():
    assert _ndarray.ndarray._xpshim_device == "gpu"
    assert xpshim.get_device(numpy.zeros(2)) == "cpu" and xpshim.get_device([1]) == "cpu"
    assert xpshim.get_device() == xpshim._device.current_device()


@pytest.mark.parametrize("gpu", ["fake"], indirect=True)
def test_made_on_the_cpu_path_then_routed(gpu):
    # objects made while no GPU array could exist route GPU arrays once one can (the fixture
    # makes the simulated GPU the device after they were made)
    x = xpshim.asarray(numpy.arange(6.0).reshape(2, 3))
    assert type(x) is _ndarray.ndarray
    key = ("xpshim", "dot")
    made = [_cpupath.function("xpshim", "flip", numpy.flip, "flip",
                              lambda: _dispatch.function("xpshim", "flip", numpy.flip, "flip")),
            _cpupath.HANDWRITTEN[key]("dot", lambda: _handwritten.TABLE[key])]
    flipped = made[0](x)
    assert type(flipped) is _ndarray.ndarray and (xpshim.asnumpy(flipped) == numpy.flip(numpy.arange(6.0).reshape(2, 3))).all()
    d = made[1](x, numpy.ones(3))
    assert type(d) is _ndarray.ndarray and (xpshim.asnumpy(d) == [3.0, 12.0]).all()
    assert xpshim.get_device(x) == "gpu"


def _next_step(f):
    """What a CPU-path object calls once a GPU array can exist."""
    if not isinstance(f, types.FunctionType):  # (a C function's object: its class's __call__)
        return _cpupath._call_of(f)
    if "_routed" in f.__globals__:  # (a wrapper with NumPy's parameters: its own globals)
        return f.__globals__["_routed"]
    return dict(zip(f.__code__.co_freevars, f.__closure__))["to"].cell_contents[0]


@pytest.mark.parametrize("placing", [True, False], ids=["auto", "gpu"])
def test_made_on_the_cpu_path_then_called_again_and_again(placing):
    # A program reaches names before the GPU is live (auto mode: the GPU starts at the first call
    # that needs it), keeps them, and calls them in a loop after. Each stays the object it was
    # (the program may compare it with `is`), answers as the routed object does on each call, and
    # from its first call with a GPU live calls the routed object itself, with no step of its own;
    # once no GPU array can exist again, NumPy's answers still.
    key = ("xpshim", "array")
    names = {  # (a generated wrapper with NumPy's parameters, a wrapper of *args, two C functions' objects)
        "sum": _cpupath.function("xpshim", "sum", numpy.sum, "sum",
                                 lambda: _dispatch.function("xpshim", "sum", numpy.sum, "sum")),
        "concatenate": _cpupath.function("xpshim", "concatenate", numpy.concatenate, "concatenate",
                                         lambda: _dispatch.function("xpshim", "concatenate", numpy.concatenate,
                                                                    "concatenate")),
        "zeros": _cpupath.function("xpshim", "zeros", numpy.zeros, "zeros",
                                   lambda: _dispatch.function("xpshim", "zeros", numpy.zeros, "zeros")),
        "array": _cpupath.HANDWRITTEN[key]("array", lambda: _handwritten.TABLE[key]),
    }
    held = dict(names)
    h = numpy.arange(6.0)
    calls = {"sum": ((h,), {"axis": 0}), "concatenate": (([h, h],), {}), "zeros": ((3,), {}),
             "array": (([1.0, 2.0],), {})}
    want = {n: getattr(numpy, n)(*a, **k) for n, (a, k) in calls.items()}
    undo = _backend.install(_simgpu.module(), _simgpu.describe(), placement=placing)
    try:
        x = xpshim.asarray(numpy.arange(40000.0))  # (large: a GPU array in either mode)
        for _ in range(3):
            for n, f in names.items():
                got = f(*calls[n][0], **calls[n][1])
                # (NumPy arrays given: NumPy's answer; a shape or a list: a GPU array in gpu mode)
                made_here = n in ("zeros", "array") and not placing
                assert type(got) is (_ndarray.ndarray if made_here else type(want[n])), n
                assert numpy.array_equal(xpshim.asnumpy(got), want[n]), n
            assert float(names["sum"](x)) == float(numpy.arange(40000.0).sum())
            c = names["concatenate"]([x, x])
            assert type(c) is _ndarray.ndarray and c.shape == (80000,)
        for n, f in names.items():
            assert f is held[n]
            # (its next step: the routed object's own function, not the builder of _later)
            assert _next_step(f).__code__.co_filename.endswith(("_dispatch.py", "_handwritten.py")), n
    finally:
        undo()
    for n, f in names.items():
        got = f(*calls[n][0], **calls[n][1])
        assert type(got) is type(want[n]) and numpy.array_equal(got, want[n]), n


def test_ufunc_calls_numpy_while_no_gpu_array_can_exist():
    u = _ufunc.ufunc(numpy.hypot)
    assert not _backend.live and u.func is numpy.hypot
    undo = _backend.install(_simgpu.module())
    try:
        assert u.func == u._route.fast  # (a GPU array can exist: the routed call)
        x = xpshim.asarray([3.0, 5.0])
        r = u(x, numpy.array([4.0, 12.0]))
        assert type(r) is _ndarray.ndarray and (xpshim.asnumpy(r) == [5.0, 13.0]).all()
    finally:
        undo()
    assert u.func is numpy.hypot and (u(numpy.array([3.0]), 4.0) == [5.0]).all()


@pytest.mark.parametrize("call,passed", [
    ((([3, 1, 2], 1), {}), (([3, 1, 2], 1), {})),
    ((([3, 1, 2], 1, 0), {}), (([3, 1, 2], 1, 0), {})),
    ((([3, 1, 2],), {"kth": 1, "axis": 0}), (([3, 1, 2], 1, 0), {})),
    ((([3, 1, 2], 1), {"kind": "introselect"}), (([3, 1, 2], 1), {"kind": "introselect"})),
])
def test_routed_gets_positions_up_to_the_first_not_given(call, passed, monkeypatch):
    # (the routed wrapper reads some arguments by position: partition's kth)
    seen = []
    f = _cpupath.function("xpshim", "partition", numpy.partition, "partition",
                          lambda: lambda *a, **k: seen.append((a, k)))
    monkeypatch.setattr(_backend, "live", True)
    f(*call[0], **call[1])
    assert seen == [passed]
