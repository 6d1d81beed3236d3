"""xpshim arrays across processes, run by tests/gpu_side/test_processes.py in new interpreters.

    python processes_prog.py dump PATH    pickle CASES, each an xpshim array beside NumPy's same data
    python processes_prog.py load PATH    unpickle them here; report what differs from NumPy
    python processes_prog.py pool METHOD  the same through multiprocessing (Pool.map, a Process and
                                          Queues) started by METHOD (spawn, forkserver, fork)

Each prints one JSON line: {"kinds": [...], "diffs": [...]}: the kind of array each process got
("gpu": xpshim's, "numpy": NumPy's) and every method whose answer is not NumPy's.
"""

import json
import multiprocessing
import pickle
import sys
import warnings

import numpy

import xpshim as np


def cases():
    """(xpshim array, NumPy's same array): dtypes, shapes, views, memory orders, 0-d, empty."""
    out = []
    for dt in ("float64", "float32", "int64", "int8", "uint16", "bool", "complex128"):
        h = (numpy.arange(24) % 7 - 2).astype(dt).reshape(2, 3, 4)
        x = np.asarray(h)
        out += [(x, h), (x[:, 1], h[:, 1]), (x.T, h.T), (x[..., ::-2], h[..., ::-2]),
                (np.asfortranarray(x), numpy.asfortranarray(h)), (x[0, 0, 0:1].reshape(()), h[0, 0, 0:1].reshape(())),
                (x[:0], h[:0])]
    return out


def _methods():
    """NumPy's ndarray methods that take no argument and leave the array as it is: every one."""
    skip = {"dump", "dumps", "tofile", "sort", "resize", "setflags", "fill", "itemset", "newbyteorder",
            "partition", "put", "setfield", "to_device"}
    return sorted(n for n in dir(numpy.ndarray) if not n.startswith("_") and n not in skip
                  and callable(getattr(numpy.ndarray, n)))


def _answer(f):
    try:
        r = f()
    except Exception as e:
        return ("raises", type(e).__name__, str(e))
    if isinstance(r, (numpy.ndarray, np.ndarray)) or isinstance(r, numpy.generic):
        r = numpy.asarray(r)
        return ("array", r.dtype.str, r.shape, r.tobytes(order="A" if r.flags.f_contiguous else "C"))
    if isinstance(r, tuple):
        return ("tuple", tuple(_answer(lambda v=v: v) for v in r))
    return ("value", repr(r))


def kind(x):
    return "numpy" if type(x) is numpy.ndarray else "gpu" if isinstance(x, np.ndarray) else type(x).__name__


def differences(x, h):
    """The methods whose answer on ``x`` is not NumPy's on ``h``: values, dtype, shape, or error."""
    bad = []
    if numpy.asarray(x).tobytes() != h.tobytes() or x.shape != h.shape or x.dtype != h.dtype:
        bad.append("data")
    for m in _methods():
        a, b = _answer(getattr(x, m)), _answer(getattr(h, m))
        if a != b and not (_real_gpu() and _last_bits(a, b)):
            bad.append(m)
            if len(_details) < 3:  # (the first few answers side by side, for the failure's message)
                _details.append(f"{m}: got {str(a)[:160]} want {str(b)[:160]}")
    return bad


_details = []


def _real_gpu():
    return getattr(np._backend.xp, "__name__", "") == "cupy"


def _last_bits(a, b):
    """Float answers within 4 units in the last place: a real GPU sums in another order
    (x.std(), x.var(): docs/differences.md, "Last bits")."""
    if a[0] != "array" or b[0] != "array" or a[1:3] != b[1:3] or numpy.dtype(a[1]).kind not in "fc":
        return False
    u, v = (numpy.frombuffer(t[3], a[1]) for t in (a, b))
    u, v = (numpy.concatenate([w.real, w.imag]) if w.dtype.kind == "c" else w for w in (u, v))
    fin = numpy.isfinite(v)
    return numpy.array_equal(u[~fin], v[~fin], equal_nan=True) and \
        bool(numpy.all(numpy.abs(u[fin] - v[fin]) <= 4 * numpy.spacing(numpy.abs(v[fin]))))


def check(pair):
    """A child's work on one (xpshim, NumPy) pair: its kind, what differs, and an array of its own
    sent back (twice the input) beside NumPy's."""
    x, h = pair
    y = x * 2 if x.dtype != bool else ~x
    return kind(x), differences(x, h), (y, numpy.asarray(h * 2 if h.dtype != bool else ~h)), _details


def _producer(q_in, q_out):
    x, h = q_in.get()
    q_out.put((kind(x), differences(x, h), check((x, h))[2], _details))


def main():
    warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's mean of an empty array, in both)
    what, arg = sys.argv[1], sys.argv[2]
    if what == "dump":
        with open(arg, "wb") as f:
            pickle.dump(cases(), f)
        return
    kinds, diffs = [], []
    if what == "load":
        with open(arg, "rb") as f:
            got = pickle.load(f)
        for i, (x, h) in enumerate(got):
            kinds.append(kind(x))
            diffs += [f"case {i}: {m}" for m in differences(x, h)]
    else:
        ctx = multiprocessing.get_context(arg)
        pairs = cases()
        with ctx.Pool(2) as pool:
            answers = pool.map(check, pairs)
        q_in, q_out = ctx.Queue(), ctx.Queue()
        p = ctx.Process(target=_producer, args=(q_in, q_out))
        p.start()
        q_in.put(pairs[0])
        answers.append(q_out.get(timeout=120))
        p.join(120)
        for i, (k, bad, (y, hy), det) in enumerate(answers):
            _details.extend(det[:3 - len(_details)])
            kinds += [k, "back:" + kind(y)]
            diffs += [f"child {i}: {m}" for m in bad]
            diffs += [f"back {i}: {m}" for m in differences(y, hy)]
    print(json.dumps({"kinds": sorted(set(kinds)), "diffs": diffs, "details": _details}))


if __name__ == "__main__":
    main()
