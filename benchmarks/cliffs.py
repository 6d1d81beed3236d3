"""Cliffs: every routed NumPy name timed on NumPy and on xpshim's GPU device, one process, to
list the calls that are slower on the GPU than on the host at 10^6 elements.

    python benchmarks/cliffs.py                       # 10^4 and 10^6 elements, on the GPU
    python benchmarks/cliffs.py --quick --stand-in    # 10^3 and 10^4, on the NumPy-backed stand-in:
                                                      # a smoke run of this script, timing nothing real
    python benchmarks/cliffs.py --only sort --only unique

Each name is called with simple, valid arguments: a float64 vector in (0.1, 0.9), a second
one, an integer vector, a square symmetric positive definite matrix, a Python number, in the
first of a fixed list of forms that NumPy accepts (``SPECIAL`` gives the names that need
others; ``SKIP`` those left out, each with its reason). The form is tried at two small sizes
first: a name whose result grows as the square of its input (``outer``, ``diag`` of a vector,
``tri``) gets inputs of sqrt(size) elements, so that its result has about ``size``; faster
growth is skipped with the reason. GPU inputs are made on the GPU beforehand, under
``xpshim.device("gpu")``, and the GPU is synchronised before each clock read. The time is the
median of up to five calls after a first (warm-up) call.

Sizes are climbed as a ladder (10^3, 10^4, 10^5, 10^6; the odd powers are probes, not
reported): before each step the time of the next is predicted from the last two, and a name
predicted past ``--limit`` seconds (2) is not run there. A first call that takes longer than
the limit is cut by an alarm where it is in Python code (a loop over rows, say), and the name
is recorded as a cliff with its time so far. At the first size the limit is ``--compile-limit``
(CuPy compiles its kernels there). ``CASES`` adds calls the table of names would not make:
``np.unique(I.reshape(-1, 3), axis=0)`` of a 256 x 256 x 3 uint8 image, known to take over 20 s
on the GPU.

Writes <out>/<tag>.json (every name: the form used, sizes, medians, xpshim's host fallbacks,
notes) and <tag>.md: the names slower on the GPU than NumPy at the largest size, sorted by
the ratio, then the cliffs, then what was skipped and why (default --out benchmarks/results/).
"""

import argparse
import datetime
import gc
import math
import os
import signal
import statistics
import sys
import time
import warnings

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))
sys.path.insert(2, os.path.join(os.path.dirname(HERE), "tests", "support"))

import run as runner  # noqa: E402  (progress bar, machine description, writing results)
import run_workloads as rw  # noqa: E402  (GPU variants, the stand-in, synchronisation)
import xpshim  # noqa: E402
import first_calls  # noqa: E402  (the test suite's list of routed names)

LADDER = {"full": (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6), "quick": (10 ** 2, 10 ** 3, 10 ** 4)}
REPORTED = {"full": (10 ** 4, 10 ** 6), "quick": (10 ** 3, 10 ** 4)}


# ---------------------------------------------------------------- arguments

def _vec(m, seed=0, lo=0.1, hi=0.9):
    return numpy.random.default_rng(seed).uniform(lo, hi, max(int(m), 2))


def _ints(m, seed=1):
    return numpy.random.default_rng(seed).integers(1, 31, max(int(m), 2))


def _bytes(m):
    return numpy.random.default_rng(2).integers(0, 256, max(int(m), 2)).astype(numpy.uint8)


def _index(m):
    return numpy.random.default_rng(8).integers(0, max(int(m), 2), max(int(m), 2))


def _side(m):
    return max(int(round(math.sqrt(m))), 2)


def _spd(m):
    """A square symmetric positive definite matrix of about m elements (Cholesky, solves, eigh)."""
    k = _side(m)
    r = numpy.random.default_rng(3).uniform(-1, 1, (k, k))
    return (r + r.T) / 2 + k * numpy.eye(k)


def _cube(m):
    k = max(int(round(m ** (1 / 3))), 2)
    return numpy.random.default_rng(4).uniform(0.1, 0.9, (k, k, k))


# The forms tried, in order, for a name without an entry in SPECIAL: (label, m -> (args, kwargs)).
FORMS = [
    ("f(x)", lambda m: ((_vec(m),), {})),
    ("f(x, y)", lambda m: ((_vec(m), _vec(m, 5)), {})),
    ("f(x, i)", lambda m: ((_vec(m), _ints(m)), {})),
    ("f(x, 2)", lambda m: ((_vec(m), 2), {})),
    ("f(x, -1)", lambda m: ((_vec(m), -1), {})),
    ("f(i)", lambda m: ((_ints(m),), {})),
    ("f(i, j)", lambda m: ((_ints(m), _ints(m, 6)), {})),
    ("f(u8)", lambda m: ((_bytes(m),), {})),
    ("f(A)", lambda m: ((_spd(m),), {})),
    ("f(A, B)", lambda m: ((_spd(m), _spd(m) * 0.5), {})),
    ("f(A, x)", lambda m: ((_spd(m), _vec(_side(m))), {})),
    ("f(m)", lambda m: ((int(m),), {})),
    ("f((m,))", lambda m: (((int(m),),), {})),
    ("f(size=m)", lambda m: ((), {"size": int(m)})),
    ("f(0.5, size=m)", lambda m: ((0.5,), {"size": int(m)})),
    ("f(2.0, size=m)", lambda m: ((2.0,), {"size": int(m)})),
    ("f(0.5, 2.0, size=m)", lambda m: ((0.5, 2.0), {"size": int(m)})),
    ("f(10, 0.5, size=m)", lambda m: ((10, 0.5), {"size": int(m)})),
    ("f(0.0, 0.5, 1.0, size=m)", lambda m: ((0.0, 0.5, 1.0), {"size": int(m)})),
    ("f(10, 5, 3, size=m)", lambda m: ((10, 5, 3), {"size": int(m)})),
]

# Names that need other arguments than FORMS gives (or whose first fitting form is not the use
# people make of them): name -> (label, m -> (args, kwargs)).
SPECIAL = {
    "concatenate": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "concat": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "stack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "vstack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "hstack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "dstack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "column_stack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "row_stack": ("f([x, y])", lambda m: (([_vec(m / 2), _vec(m / 2, 5)],), {})),
    "block": ("f([[A, A]])", lambda m: (([[_spd(m / 2), _spd(m / 2)]],), {})),
    "broadcast_arrays": ("f(x[:, None], y[None, :k])", lambda m: ((_vec(m / 8)[:, None], _vec(8, 5)[None, :]), {})),
    "meshgrid": ("f(x, y) of sqrt(m) each", lambda m: ((_vec(_side(m)), _vec(_side(m), 5)), {})),
    "unstack": ("f(A)", lambda m: ((_spd(m),), {})),
    "astype": ("f(x, float32)", lambda m: ((_vec(m), numpy.float32), {})),
    "convolve": ("f(x, 9 taps)", lambda m: ((_vec(m), _vec(9, 5)), {})),
    "correlate": ("f(x, 9 taps)", lambda m: ((_vec(m), _vec(9, 5)), {})),
    "einsum": ("f('ij,ij->i', A, A)", lambda m: (("ij,ij->i", _spd(m), _spd(m)), {})),
    "einsum_path": ("f('ij,ij->i', A, A)", lambda m: (("ij,ij->i", _spd(m), _spd(m)), {})),
    "choose": ("f(i % 2, [x, y])", lambda m: ((_ints(m) % 2, [_vec(m), _vec(m, 5)]), {})),
    "select": ("f([x < .3, x > .7], [x, y])", lambda m: (([_vec(m) < 0.3, _vec(m) > 0.7], [_vec(m), _vec(m, 5)]), {})),
    "piecewise": ("f(x, [x < .5], [lambda v: 2 * v, 0])", lambda m: ((_vec(m), [_vec(m) < 0.5], [lambda v: 2 * v, 0]), {})),
    "apply_along_axis": ("f(np.sum, 1, A)", lambda m: ((numpy.sum, 1, _spd(m)), {})),
    "apply_over_axes": ("f(np.sum, cube, [0, 2])", lambda m: ((numpy.sum, _cube(m), [0, 2]), {})),
    "fromfunction": ("f(lambda i, j: i + j, (k, k))", lambda m: ((lambda i, j: i + j, (_side(m), _side(m))), {})),
    "take": ("f(x, indices)", lambda m: ((_vec(m), _index(m)), {})),
    "put": ("f(x, indices, 0.0)", lambda m: ((_vec(m), _index(m), 0.0), {})),
    "place": ("f(x, x < .5, [0.0])", lambda m: ((_vec(m), _vec(m) < 0.5, [0.0]), {})),
    "putmask": ("f(x, x < .5, 0.0)", lambda m: ((_vec(m), _vec(m) < 0.5, 0.0), {})),
    "insert": ("f(x, indices, 0.0)", lambda m: ((_vec(m / 2), _index(m / 2), 0.0), {})),
    "broadcast_to": ("f(x, (4, m/4))", lambda m: ((_vec(m / 4), (4, max(int(m) // 4, 2))), {})),
    "cross": ("f(x as (m/3, 3), y as (m/3, 3))", lambda m: ((_vec(m // 3 * 3).reshape(-1, 3), _vec(m // 3 * 3, 5).reshape(-1, 3)), {})),
    "linalg.cross": ("f(x as (m/3, 3), y as (m/3, 3))", lambda m: ((_vec(m // 3 * 3).reshape(-1, 3), _vec(m // 3 * 3, 5).reshape(-1, 3)), {})),
    "full": ("f((m,), 1.5)", lambda m: (((int(m),), 1.5), {})),
    "kaiser": ("f(m, 14.0)", lambda m: ((int(m), 14.0), {})),
    "mask_indices": ("f(k, np.triu)", lambda m: ((_side(m), numpy.triu), {})),
    "linalg.matrix_power": ("f(A, 3)", lambda m: ((_spd(m), 3), {})),
    "linalg.multi_dot": ("f([A, A, A])", lambda m: (([_spd(m), _spd(m), _spd(m)],), {})),
    "moveaxis": ("f(cube, 0, -1)", lambda m: ((_cube(m), 0, -1), {})),
    "swapaxes": ("f(A, 0, 1)", lambda m: ((_spd(m), 0, 1), {})),
    "vsplit": ("f(A, [k/2])", lambda m: ((_spd(m), [_side(m) // 2]), {})),
    "dsplit": ("f(cube, [k/2])", lambda m: ((_cube(m), [_cube(m).shape[2] // 2]), {})),
    "polynomial.polynomial.polyval2d": ("f(x, y, 3x3 coefficients)", lambda m: ((_vec(m), _vec(m, 5), _spd(9)), {})),
    "polynomial.polynomial.polyvander2d": ("f(x, y, [2, 2])", lambda m: ((_vec(m / 9), _vec(m / 9, 5), [2, 2]), {})),
    "polynomial.polynomial.polygrid2d": ("f(x, y of sqrt(m), 3x3 coefficients)", lambda m: ((_vec(_side(m)), _vec(_side(m), 5), _spd(9)), {})),
    "polynomial.polynomial.polyval3d": ("f(x, y, z, 2x2x2 coefficients)", lambda m: ((_vec(m), _vec(m, 5), _vec(m, 6), _cube(8)), {})),
    "polynomial.polynomial.polyvander3d": ("f(x, y, z, [1, 1, 1])", lambda m: ((_vec(m / 8), _vec(m / 8, 5), _vec(m / 8, 6), [1, 1, 1]), {})),
    "polynomial.polynomial.polygrid3d": ("f(x, y, z of m^(1/3), 2x2x2 coefficients)", lambda m: (
        tuple(_vec(round(m ** (1 / 3)), s) for s in (0, 5, 6)) + (_cube(8),), {})),
    "polynomial.polyutils.mapdomain": ("f(x, [0, 1], [-1, 1])", lambda m: ((_vec(m), [0.0, 1.0], [-1.0, 1.0]), {})),
    "take_along_axis": ("f(A, argsort(A))", lambda m: ((_spd(m), numpy.argsort(_spd(m), axis=1)), {"axis": 1})),
    "put_along_axis": ("f(A, idx, 0.0, axis=1)", lambda m: ((_spd(m), numpy.argsort(_spd(m), axis=1)[:, :1], 0.0), {"axis": 1})),
    "ravel_multi_index": ("f((i, j), (31, 31))", lambda m: (((_ints(m), _ints(m, 6)), (31, 31)), {})),
    "unravel_index": ("f(i, (31, 31))", lambda m: ((_ints(m), (31, 31)), {})),
    "searchsorted": ("f(sorted x, y)", lambda m: ((numpy.sort(_vec(m)), _vec(m, 5)), {})),
    "digitize": ("f(x, 16 edges)", lambda m: ((_vec(m), numpy.linspace(0, 1, 16)), {})),
    "interp": ("f(x, sorted y, y)", lambda m: ((_vec(m), numpy.sort(_vec(m, 5)), _vec(m, 6)), {})),
    "histogram2d": ("f(x, y)", lambda m: ((_vec(m), _vec(m, 5)), {})),
    "histogramdd": ("f(x as (m/2, 2))", lambda m: ((_vec(m).reshape(-1, 2)[: int(m) // 2],), {})),
    "cov": ("f(A)", lambda m: ((_spd(m),), {})),
    "corrcoef": ("f(A)", lambda m: ((_spd(m),), {})),
    "polyfit": ("f(x, y, 3)", lambda m: ((_vec(m), _vec(m, 5), 3), {})),
    "polynomial.polynomial.polyfit": ("f(x, y, 3)", lambda m: ((_vec(m), _vec(m, 5), 3), {})),
    "polyval": ("f(4 coefficients, x)", lambda m: ((_vec(4, 5), _vec(m)), {})),
    "polynomial.polynomial.polyval": ("f(x, 4 coefficients)", lambda m: ((_vec(m), _vec(4, 5)), {})),
    "polymul": ("f(x, 9 coefficients)", lambda m: ((_vec(m), _vec(9, 5)), {})),
    "polynomial.polynomial.polymul": ("f(x, 9 coefficients)", lambda m: ((_vec(m), _vec(9, 5)), {})),
    "polydiv": ("f(x, 3 coefficients)", lambda m: ((_vec(m), _vec(3, 5) + 1), {})),
    "polynomial.polynomial.polydiv": ("f(x, 3 coefficients)", lambda m: ((_vec(m), _vec(3, 5) + 1), {})),
    "linalg.lstsq": ("f(A, x)", lambda m: ((_spd(m), _vec(_side(m))), {"rcond": None})),
    "linalg.tensorsolve": ("f(A, x)", lambda m: ((_spd(m), _vec(_side(m))), {})),
    "linalg.tensorinv": ("f(A, ind=1)", lambda m: ((_spd(m),), {"ind": 1})),
    "lib.stride_tricks.as_strided": ("f(x, shape=(m/2, 2))", lambda m: ((_vec(m),), {"shape": (int(m) // 2, 2), "strides": (16, 8)})),
    "lib.stride_tricks.sliding_window_view": ("f(x, 3)", lambda m: ((_vec(m), 3), {})),
    "tile": ("f(x, 2)", lambda m: ((_vec(m / 2), 2), {})),
    "roots": ("f(sqrt(m) coefficients)", lambda m: ((_vec(_side(m)),), {})),
    "polynomial.polynomial.polyroots": ("f(sqrt(m) coefficients)", lambda m: ((_vec(_side(m)),), {})),
    "polynomial.polynomial.polycompanion": ("f(sqrt(m) coefficients)", lambda m: ((_vec(_side(m)),), {})),
    "random.zipf": ("f(2.0, size=m)", lambda m: ((2.0,), {"size": int(m)})),
    "arccosh": ("f(1 + x)", lambda m: ((_vec(m) + 1,), {})),
    "acosh": ("f(1 + x)", lambda m: ((_vec(m) + 1,), {})),
    "random.choice": ("f(x, size=m)", lambda m: ((_vec(m),), {"size": int(m)})),
    "random.dirichlet": ("f([1, 2, 3], size=m/3)", lambda m: (([1.0, 2.0, 3.0],), {"size": int(m) // 3})),
    "random.multinomial": ("f(10, [.2, .3, .5], size=m/3)", lambda m: ((10, [0.2, 0.3, 0.5]), {"size": int(m) // 3})),
    "random.multivariate_normal": ("f([0, 0], I, size=m/2)", lambda m: (([0.0, 0.0], numpy.eye(2)), {"size": int(m) // 2})),
    "random.noncentral_f": ("f(3, 5, 1, size=m)", lambda m: ((3.0, 5.0, 1.0), {"size": int(m)})),
    "random.rand": ("f(m)", lambda m: ((int(m),), {})),
    "random.randn": ("f(m)", lambda m: ((int(m),), {})),
    "random.randint": ("f(0, 100, size=m)", lambda m: ((0, 100), {"size": int(m)})),
    "random.random_integers": ("f(1, 100, size=m)", lambda m: ((1, 100), {"size": int(m)})),
}

# Names left out, with the reason.
SKIP = {
    "random.seed": "sets the global stream: no work to time",
    "random.default_rng": "makes a generator object: no work to time",
    "random.bytes": "Python bytes, made on the host",
    "isnat": "datetime dtypes: on the host by design (no GPU form)",
    "lib.array_utils.byte_bounds": "reads an array's memory bounds: no work to time",
    "can_cast": "answers about dtypes: no array work to time",
    "polynomial.polynomial.polyline": "makes a two-coefficient series from two numbers: no array work to time",
}

# Calls the table of names would not make, at a fixed size: label -> (name, host args, kwargs).
CASES = {
    "unique(image.reshape(-1, 3), axis=0), 256x256x3 uint8": (
        "unique", 256 * 256 * 3, lambda: ((numpy.random.default_rng(7).integers(0, 256, (256, 256, 3)).astype(numpy.uint8).reshape(-1, 3),),
                           {"axis": 0})),
}


def routed_names():
    """(name, NumPy's callable, xpshim's) for every routed callable, ufuncs included (the test
    suite's list of routed names, less random's classes and the names xpshim leaves as NumPy's)."""
    out = []
    for name, npo, resolve in first_calls.routed():
        if isinstance(npo, type):
            continue
        try:
            xo = resolve()
        except AttributeError:
            continue
        if xo is not npo:
            out.append((name, npo, xo))
    return out


def _elements(r):
    if isinstance(r, (tuple, list)):
        return sum(_elements(p) for p in r)
    if r is None:
        return 0
    size = getattr(r, "size", 1)
    return size if isinstance(size, int) else 1  # (a type's size is a descriptor)


def choose_form(name, npo):
    """(label, builder, exponent) of the first form NumPy accepts at two small sizes, with the
    growth of its result; or (None, why, None)."""
    if name in SPECIAL:
        forms = [SPECIAL[name]]
    elif name.startswith("random."):  # (a distribution's parameters first: an array there is a parameter per draw)
        forms = [f for f in FORMS if "size=" in f[0]] + [f for f in FORMS if "size=" not in f[0]]
    else:
        forms = FORMS
    for label, build in forms:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, 2.0)  # (a form that makes NumPy work long is not a simple one)
        try:
            sizes = []
            for m in (16, 256):
                args, kw = build(m)
                sizes.append(_elements(npo(*args, **kw)))
        except Exception:  # (Late included)
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        e = math.log(max(sizes[1], 1) / max(sizes[0], 1)) / math.log(16)  # (256 / 16)
        if e <= 2.3:
            return label, build, e
        if name in SPECIAL:
            break
    if name in SPECIAL:
        return None, f"NumPy refuses the form {SPECIAL[name][0]}, or its result grows too fast", None
    return None, "no simple float/int form that NumPy accepts with a result growing at most as size^2", None


# ---------------------------------------------------------------- timing

class Late(Exception):
    pass


def _alarm(signum, frame):
    raise Late()


def to_gpu(x):
    if isinstance(x, numpy.ndarray):
        return xpshim.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(to_gpu(p) for p in x)
    if isinstance(x, dict):
        return {k: to_gpu(v) for k, v in x.items()}
    return x


def first_call(fn, args, kw, limit):
    """Seconds of one call, cut by an alarm after ``limit`` where the call is in Python code;
    (seconds, cut)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        rw.sync()
        fn(*args, **kw)
        rw.sync()
        return time.perf_counter() - t0, False
    except Late:
        return time.perf_counter() - t0, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def timed(fn, args, kw, first, reps):
    """Median seconds of up to ``reps`` calls after the first (the GPU synchronised around each)."""
    k = max(1, min(reps, int(0.3 / max(first, 1e-9))))
    ts = []
    for _ in range(k):
        rw.sync()
        t0 = time.perf_counter()
        fn(*args, **kw)
        rw.sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), k


def ladder(fn, build, m_of, variant, sizes, limit, compile_limit, reps):
    """Time one callable up the ladder of sizes. Returns {size: entry} and the note that stopped it."""
    out, hist = {}, []
    for i, size in enumerate(sizes):
        m = m_of(size)
        if len(hist) >= 2 and hist[-1][1] > 1e-4:
            (m0, t0), (m1, t1) = hist[-2], hist[-1]
            e = max(1.0, math.log(max(t1, 1e-9) / max(t0, 1e-9)) / math.log(max(m1 / m0, 1.0001)))
            pred = t1 * (m / m1) ** e
            if pred > limit:
                return out, {"size": size, "predicted": pred, "note": f"predicted {pred:.3g} s at {size:.0e} (> {limit:g} s): not run"}
        args, kw = build(m)
        if variant == "gpu":
            with xpshim.device("gpu"):
                args, kw = to_gpu(args), to_gpu(kw)
        lim = compile_limit if i == 0 else limit
        with (xpshim.device("gpu") if variant == "gpu" else _nothing()):
            xpshim.reset_stats()
            t, cut = first_call(fn, args, kw, lim)
            if t > lim or cut:
                return out, {"size": size, "first": t, "cut": cut,
                             "note": f"first call at {size:.0e} took {t:.3g} s{' (cut)' if cut else ''} (> {lim:g} s)"}
            fallbacks = sum(f["count"] for f in xpshim.stats()["fallbacks"].values()) if variant == "gpu" else 0
            med, k = timed(fn, args, kw, t, reps)
        out[size] = {"m": m, "first": t, "median": med, "reps": k}
        if fallbacks:
            out[size]["host_fallbacks"] = fallbacks
        hist.append((m, med))
        del args, kw
        rw.free_gpu()
    return out, None


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def one_line(exc):
    return rw.one_line(exc)


def measure(name, npo, xo, build, m_of, sizes, args, compile_limit=None):
    row = {}
    for variant, fn in (("numpy", npo), ("gpu", xo)):
        try:
            res, stop = ladder(fn, build, m_of, variant, sizes, args.limit,
                               args.compile_limit if compile_limit is None else compile_limit, args.reps)
        except Exception as exc:  # a call that NumPy takes and the GPU path refuses is a finding too
            rw.free_gpu()
            row[variant] = {"error": one_line(exc)}
            continue
        row[variant] = {"sizes": {str(s): e for s, e in res.items()}}
        if stop:
            row[variant]["stop"] = stop
        if variant == "numpy":
            if not res:
                break
            sizes = [s for s in sizes if s <= max(res)]  # the GPU is timed where NumPy was
    return row


def run(args):
    vs = {v.name: v for v in rw.variants(args.stand_in)}
    skip_gpu = vs["xpshim-gpu"].skip
    if skip_gpu:
        raise SystemExit(f"no GPU to time: {skip_gpu} (use --stand-in for a smoke run)")
    size_key = "quick" if args.quick else "full"
    sizes = LADDER[size_key]
    top = REPORTED[size_key][-1]
    res = {"machine": rw.machine(args.stand_in), "quick": args.quick, "stand_in": args.stand_in,
           "sizes": list(REPORTED[size_key]), "probes": [s for s in sizes if s not in REPORTED[size_key]],
           "limit_s": args.limit, "names": {}, "cases": {}, "skipped": {}}
    todo = [(n, a, b) for n, a, b in routed_names() if not args.only or n in args.only]
    cases = {k: v for k, v in CASES.items() if not args.only or v[0] in args.only}
    i, n = args.part
    todo = todo[i::n]  # every n-th name from the i-th; the fixed cases go with part 0
    cases = cases if i == 0 else {}
    res["part"] = f"{i}/{n}"
    res["not_reached"] = []
    stop_at = time.perf_counter() + args.seconds if args.seconds else None
    gc.collect()
    bar = runner.progress(todo + list(cases.items()), "cliffs")
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for item in bar:
            if stop_at is not None and time.perf_counter() > stop_at:  # out of time: say what was left
                res["not_reached"].append(item[0])
                continue
            if len(item) == 2:  # a fixed case
                label, (name, elements, make) = item
                _, npo, xo = next(r for r in routed_names() if r[0] == name)
                row = measure(label, npo, xo, lambda m, make=make: make(), lambda s: s, [elements], args,
                              compile_limit=args.limit)  # (cut at the limit: no kernels of its own to compile)
                res["cases"][label] = row
                continue
            name, npo, xo = item
            if hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(name)
            if name in SKIP:
                res["skipped"][name] = SKIP[name]
                continue
            label, build, e = choose_form(name, npo)
            if label is None:
                res["skipped"][name] = build
                continue
            quadratic = e > 1.3
            m_of = (lambda s: _side(s)) if quadratic else (lambda s: s)
            row = measure(name, npo, xo, build, m_of, sizes, args)
            row["form"] = label + (" (inputs of sqrt(size): the result grows as their square)" if quadratic else "")
            res["names"][name] = row
    res["slower"] = slower(res, top)
    return res


def _median_at(entry, size):
    return entry.get("sizes", {}).get(str(size), {}).get("median")


def slower(res, top):
    """Names (and cases) slower on the GPU than NumPy at the top size, and cliffs, sorted by ratio."""
    rows = []
    for group in ("names", "cases"):
        for name, row in res[group].items():
            size = top if group == "names" else max((int(s) for s in row.get("numpy", {}).get("sizes", {})), default=top)
            n_t = _median_at(row.get("numpy", {}), size)
            g = row.get("gpu", {})
            if n_t is None:
                continue
            g_t = _median_at(g, size)
            stop = g.get("stop")
            if g_t is None and stop and stop["size"] <= size:  # a cliff: the GPU never got there in time
                t = stop.get("first", stop.get("predicted"))
                rows.append({"name": name, "numpy": n_t, "gpu": t, "ratio": t / n_t, "cliff": stop["note"],
                             "form": row.get("form", "")})
            elif g_t is not None and g_t > n_t:
                rows.append({"name": name, "numpy": n_t, "gpu": g_t, "ratio": g_t / n_t, "form": row.get("form", ""),
                             "host_fallbacks": g.get("sizes", {}).get(str(size), {}).get("host_fallbacks", 0)})
    return sorted(rows, key=lambda r: -r["ratio"])


def fmt(s):
    return runner.fmt(s)


def markdown(res):
    m = res["machine"]
    top = res["sizes"][-1]
    lines = [f"# Cliffs {m['date']}{' (quick)' if res['quick'] else ''}{', part ' + res['part'] if res.get('part', '0/1') != '0/1' else ''}", "",
             f"{m.get('gpu', 'no GPU')}; {m['cpus']} CPUs; Python {m['python']}, NumPy {m['numpy']}, "
             f"CuPy {m.get('cupy', '-')}, xpshim {m['xpshim']}", "",
             f"Routed names on NumPy and on xpshim's GPU device (inputs made on the GPU beforehand), "
             f"median of up to 5 calls after a first; sizes {', '.join(f'{s:.0e}' for s in res['sizes'])} "
             f"elements; a first call over {res['limit_s']:g} s, or one predicted over it, is not timed further.", "",
             f"## Slower on the GPU than NumPy at {top:.0e} elements ({len(res['slower'])} of "
             f"{len(res['names']) + len(res['cases'])})", "",
             "| name | form | NumPy | xpshim gpu | GPU / NumPy | host fallbacks | note |",
             "|---|---|---:|---:|---:|---:|---|"]
    for r in res["slower"]:
        lines.append(f"| `{r['name']}` | {r['form']} | {fmt(r['numpy'])} | {fmt(r['gpu'])} | {r['ratio']:.3g} | "
                     f"{r.get('host_fallbacks', '')} | {r.get('cliff', '')} |")
    errors = [(n, v, row[v]["error"]) for group in ("names", "cases") for n, row in res[group].items()
              for v in ("numpy", "gpu") if "error" in row.get(v, {})]
    stops = [(n, v, row[v]["stop"]["note"]) for group in ("names", "cases") for n, row in res[group].items()
             for v in ("numpy", "gpu") if "stop" in row.get(v, {})]
    if res["cases"]:
        lines += ["", "## Fixed cases", "", "| case | NumPy | xpshim gpu | GPU / NumPy |", "|---|---:|---:|---:|"]
        for label, row in res["cases"].items():
            n_t = [e["median"] for e in row.get("numpy", {}).get("sizes", {}).values()]
            g = row.get("gpu", {})
            g_t = [e["median"] for e in g.get("sizes", {}).values()]
            gpu = (fmt(g_t[0]) if g_t else g.get("stop", {}).get("note") or g.get("error", "-"))
            lines.append(f"| {label} | {fmt(n_t[0]) if n_t else '-'} | {gpu} | "
                         f"{g_t[0] / n_t[0]:.3g} |" if n_t and g_t else f"| {label} | {fmt(n_t[0]) if n_t else '-'} | {gpu} | - |")
    if stops:
        lines += ["", "## Stopped before the largest size", ""] + [f"- `{n}` ({v}): {note}" for n, v, note in stops]
    if errors:
        lines += ["", "## Raised", ""] + [f"- `{n}` ({v}): {e}" for n, v, e in errors]
    if res.get("not_reached"):
        lines += ["", f"## Not reached in --seconds ({len(res['not_reached'])})", "", ", ".join(f"`{n}`" for n in res["not_reached"])]
    if res["skipped"]:
        lines += ["", f"## Skipped ({len(res['skipped'])})", ""] + [f"- `{n}`: {why}" for n, why in sorted(res["skipped"].items())]
    return "\n".join(lines) + "\n"


def _part(text):
    try:
        i, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--part takes I/N, such as 0/2, not {text!r}") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"--part {text}: I must be from 0 to N - 1")
    return i, n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 10^3 and 10^4, 3 repeats: a smoke run")
    ap.add_argument("--stand-in", action="store_true",
                    help="the GPU side on the NumPy-backed test stand-in: checks this script, times nothing real")
    ap.add_argument("--only", action="append", metavar="NAME", help="time only this routed name (repeatable)")
    ap.add_argument("--limit", type=float, default=2.0, help="seconds a first call may take (default 2)")
    ap.add_argument("--compile-limit", type=float, default=20.0,
                    help="seconds a first call may take at the smallest size, where kernels compile (default 20)")
    ap.add_argument("--reps", type=int, default=None, help="timed calls after the first (default 5, 3 with --quick)")
    ap.add_argument("--part", default="0/1", type=_part, metavar="I/N",
                    help="time every N-th name from the I-th (0-based; runs split over calls)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="start no name after this many seconds; the rest are listed as not reached")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--tag", default=None, help="file name stem (default: date, machine, cliffs)")
    args = ap.parse_args(argv)
    args.reps = args.reps or (3 if args.quick else 5)
    t0 = time.perf_counter()
    res = run(args)
    res["seconds"] = time.perf_counter() - t0
    m = res["machine"]
    tag = args.tag or (datetime.date.today().isoformat() + "-" + m.get("gpu", "cpu").replace(" ", "_")
                       + "-cliffs" + ("-quick" if args.quick else ""))
    md = runner.write(res, markdown(res), args.out, tag)
    print(md)
    return res


if __name__ == "__main__":
    main()
