"""Every public name, called while auto mode's device choice is still pending, against the same
call once the choice has settled (``tests/unit/test_first_call.py`` runs this in a fresh process).

``import xpshim`` in auto mode, where the GPU may be chosen, starts CuPy's import on a thread and
leaves the choice to the first call that needs it (xpshim/_preload.py). Each call here meets that
undecided state (``_backend.defer_again`` puts it back before every call, as a new process would
find it), and must give what the same call gives once the device is chosen: the same type, dtype,
shape and values, or for random draws the same type, dtype and shape (streams differ by design),
or the same exception class. ``--unusable`` makes each choice find no usable GPU instead (the
simulated GPU only): the names that read the backend after ``live`` said "maybe" must still
answer NumPy's.

Where the device is not deferred (``XPSHIM_DEVICE=gpu``, or a machine with no GPU) each name is
called twice in the same way, so that the script also runs as a smoke test of every first call.

Prints, as its last line, one JSON object: ``{"calls": N, "pending": P, "bad": {name: why}}``.
"""

import importlib
import json
import sys
import types
import warnings

import numpy

import xpshim as np
from xpshim import _backend, _registry
from xpshim._namespace import numpy_module

UNUSABLE = "--unusable" in sys.argv
BIG = 100_003  # past any crossover: auto mode places such data on the GPU

_V1, _V2, _I1 = [0.5, 1.5, 2.0, 3.0], [[2.0, 1.0], [1.0, 3.0]], [1, 0, 2, 1]
# argument tuples tried in order; a name gets the first that NumPy accepts (else the first)
_COMBOS = [(_V1,), (_V2,), (_I1,), (_V1, _V1), (_V2, _V2), (_V2, _V1), (_I1, _I1), (_V1, 2), (_V2, 1),
           (3,), (2.5,), (3, 4), (2.5, 1.5), (_V1, 2.5, 1), ()]


# NumPy's names that run a test suite or print a report: not first calls of a program
_NOT_CALLED = {"test", "show_config", "show_runtime", "info"}


def routed():
    """(qualified name, NumPy's callable, xpshim's) for every routed name, random's included."""
    out = []
    for sub in ["", *_registry.ROUTED_MODULES]:
        npmod = numpy_module(sub)
        xmod = np if not sub else importlib.import_module("xpshim." + sub)
        for name in sorted(set(getattr(npmod, "__all__", None) or dir(npmod))):
            npo = getattr(npmod, name, None)
            if name.startswith("_") or npo is None or name in _NOT_CALLED or isinstance(npo, types.ModuleType) or not callable(npo) \
                    or name in _registry.HOST_IO or isinstance(npo, type) and not sub.startswith("random"):
                continue
            out.append((f"{sub}.{name}" if sub else name, npo, lambda m=xmod, n=name: getattr(m, n)))
    return out


def _args_for(npo):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for combo in _COMBOS:
            try:
                npo(*combo)
                return combo
            except Exception:
                continue
    return _COMBOS[0]


def _deep(v):
    return [_deep(x) for x in v] if isinstance(v, list) else v  # (fresh lists: a call may write into them)


def summary(r, random):
    """What is compared of a result: its class, dtype, shape and (unless drawn at random) values."""
    if isinstance(r, (tuple, list)):
        return [type(r).__name__, [summary(x, random) for x in r]]
    if r is None or isinstance(r, (str, bool, int, float, complex, dict)) and not random:
        return [type(r).__name__, repr(r) if not isinstance(r, dict) else sorted(r)]
    if isinstance(r, (numpy.ndarray, numpy.generic, np.ndarray)) or type(r).__module__ == "xpshim":
        h = numpy.asarray(np.asnumpy(r))
        kind = type(r).__name__
        if random or h.dtype.kind not in "biufcM?" or h.size > 10_000:
            return [kind, str(h.dtype), list(h.shape)]
        return [kind, str(h.dtype), list(h.shape), repr(h.tolist())]  # (repr: NaN equals NaN)
    return [type(r).__name__]  # (an object: a Generator, poly1d, a vectorized function)


def outcome(f, random):
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ["ok", summary(f(), random)]
        except Exception as e:
            return ["raised", type(e).__name__]


def cases():
    """(name, a function making the call, random?) for every public name people call first."""
    out = []
    for name, npo, xo in routed():
        args = _args_for(npo)
        out.append((name, lambda xo=xo, a=args: xo()(*_deep(list(a))), name.startswith("random")))
    for name in sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc)):
        u = getattr(numpy, name)
        args = (_V1,) * u.nin
        out.append((name, lambda n=name, a=args: getattr(np, n)(*_deep(list(a))), False))
    big = numpy.linspace(0, 1, BIG)
    own = {
        "random.seed": lambda: np.random.seed(0),
        "random.seed, then a small draw": lambda: (np.random.seed(1), np.random.rand(3)),
        "random.default_rng": lambda: np.random.default_rng(0).random(3),
        "random.RandomState": lambda: np.random.RandomState(0).rand(3),
        "random.rand (large)": lambda: np.random.rand(BIG),
        "random.Generator": lambda: np.random.Generator(numpy.random.PCG64(0)).random(3),
        "empty_pinned": lambda: np.empty_pinned(3).shape,
        "zeros_pinned": lambda: np.zeros_pinned((2, 2)),
        "free_gpu_memory": lambda: np.free_gpu_memory(),
        "get_device": lambda: np.get_device(np.asarray(big)),
        "stats": lambda: type(np.stats()),
        "reset_stats": lambda: np.reset_stats(),
        "why_device": lambda: type(np.why_device()),
        "asnumpy": lambda: np.asnumpy(np.asarray(big)),
        "asnumpy (list)": lambda: np.asnumpy(_V1),
        "to_device": lambda: np.to_device(np.asarray(big), "cpu"),
        "get_array_module": lambda: np.get_array_module(np.asarray(big)).__name__ in ("numpy", "cupy", "xpshim._simgpu.cupy"),
        "numba_vectorize": lambda: type(np.numba_vectorize(["float64(float64)"])),
        "asarray (large)": lambda: np.asarray(big),
        "array (large)": lambda: np.array(big) * 2,
        "zeros (large)": lambda: np.zeros(BIG),
        "arange (large)": lambda: np.arange(BIG).sum(),
        "ndarray": lambda: np.ndarray((3,)).shape,
        "sum (large)": lambda: np.sum(np.asarray(big)),
        "dot (large)": lambda: np.dot(np.asarray(big), np.asarray(big)),
        "testing.assert_allclose": lambda: np.testing.assert_allclose(_V1, _V1),
        "testing.assert_array_equal": lambda: np.testing.assert_array_equal(np.asarray(big), big),
        "add.reduce": lambda: np.add.reduce(_V1),
        "add.outer": lambda: np.add.outer(_V1, _V1),
        "add.accumulate": lambda: np.add.accumulate(_V1),
        "device('auto')": lambda: np.device("auto").__enter__(),
        "__array_namespace_info__": lambda: np.__array_namespace_info__().default_device(),
    }
    if UNUSABLE:
        for n in ("get_device", "asnumpy", "to_device", "get_array_module", "sum (large)", "dot (large)",
                  "testing.assert_array_equal", "device('auto')", "__array_namespace_info__"):
            del own[n]  # (compared on a usable GPU; these ask "which device" of a GPU array)
    out += [(n, f, n.startswith("random") and "small draw" not in n) for n, f in own.items()]
    return out


def main():
    deferred = _backend.pending
    calls = pending_calls = 0
    bad = {}
    for name, f, random in cases():
        if deferred:
            _backend.defer_again(usable=not UNUSABLE)
            assert _backend.pending
        was_pending = _backend.pending
        first = outcome(f, random)
        if deferred:
            _backend.gpu_status()  # (settled now, whatever the call needed)
        second = outcome(f, random)
        calls += 1
        pending_calls += was_pending
        if first != second:
            bad[name] = {"pending": first, "settled": second}
    print(json.dumps({"calls": calls, "pending": pending_calls, "bad": bad}))


if __name__ == "__main__":
    main()
