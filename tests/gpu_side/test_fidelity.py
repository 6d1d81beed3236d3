"""GPU-side fidelity, class by class, each over every name it can touch (on the stand-in, and on a
real GPU with ``-m gpu``): Python sequences as array data, empty lists, positional ``out``,
foreign ufuncs, masked arrays, warnings' lines, iteration's copies."""

import importlib
import doctest
import inspect
import sys
import types
import warnings

import numpy
import pytest

import xpshim
from conftest import transfers
from diffcases import FUNC_TOL, RESULT_VIEW, ufunc_tolerance
from xpshim import _registry
from xpshim._namespace import numpy_module


def routed_callables(skip_random=False):
    """(qualified name, NumPy's callable, xpshim's) for every routed non-ufunc name."""
    out = []
    for sub in ["", *_registry.ROUTED_MODULES]:
        if skip_random and sub.startswith("random"):
            continue
        npmod = numpy_module(sub)
        xmod = xpshim if not sub else importlib.import_module("xpshim." + sub)  # (made on first import)
        for name in sorted(set(getattr(npmod, "__all__", None) or dir(npmod))):
            npo = getattr(npmod, name, None)
            if name.startswith("_") or npo is None or isinstance(npo, (type, types.ModuleType, numpy.ufunc)) \
                    or not callable(npo) or name in _registry.HOST_IO:
                continue
            try:
                xo = getattr(xmod, name)
            except AttributeError:
                continue
            if xo is not npo:
                out.append((f"{sub}.{name}" if sub else name, npo, xo))
    return out


def _same(ref, got):
    """NumPy's result ``ref`` and xpshim's ``got``: equal dtype, shape and values (NaN equal)."""
    if isinstance(ref, (tuple, list)):
        return type(got) is type(ref) and len(ref) == len(got) and all(map(_same, ref, got))
    if not isinstance(ref, (numpy.ndarray, numpy.generic, int, float, complex, bool)):
        return True  # (an object: poly1d, a generator; compared by the tests that own them)
    got = xpshim.asnumpy(got)
    ref = numpy.asarray(ref)
    return ref.dtype == got.dtype and ref.shape == got.shape and numpy.array_equal(ref, got, equal_nan=ref.dtype.kind in "fc")


def _close(ref, got, gpu, ulp=0, rtol=0.0):
    """``_same``, or on a real GPU within ``ulp`` units in the last place (CUDA's libdevice bounds
    for transcendental functions; docs/differences.md, "Last bits") or ``rtol`` (other libraries'
    formulas: cupyx.scipy.special)."""
    if gpu == "fake" or not (ulp or rtol):
        return _same(ref, got)
    got, ref = xpshim.asnumpy(got), numpy.asarray(ref)
    if ref.dtype != got.dtype or ref.shape != got.shape:
        return False
    if ref.dtype.kind not in "fc":
        return numpy.array_equal(ref, got)
    tol = ulp * numpy.spacing(numpy.abs(ref).astype(ref.dtype)) + rtol * numpy.abs(ref)
    fin = numpy.isfinite(ref)
    return numpy.array_equal(numpy.isnan(ref), numpy.isnan(got)) and numpy.array_equal(ref[~fin], got[~fin], equal_nan=True) \
        and bool(numpy.all(numpy.abs(got[fin] - ref[fin]) <= tol[fin]))


def _compare(name, npo, xo, args, gpu_args, bad, gpu="fake"):
    """NumPy's ``npo(*args)`` against xpshim's ``xo(*gpu_args)`` on the GPU side: 0 where NumPy
    raises (nothing compared), else 1, with any difference put in ``bad``. On a real GPU, float
    and complex answers within 4 units in the last place (CUDA's transcendental functions behind
    emath.*, geomspace: docs/differences.md, "Last bits"); exact on the simulated GPU."""
    if _undefined(name, args):
        return 0
    try:
        ref = npo(*args)
    except Exception:
        return 0
    with xpshim.device("gpu"):
        try:
            got = xo(*gpu_args)
        except Exception as e:
            bad[name] = (args, f"{type(e).__name__}: {e}"[:160])
            return 1
    if not (_same(ref, got) or (gpu == "cuda" and _close_all(ref, got, name))):
        bad[name] = (args, "differs from NumPy")
    return 1


def _undefined(name, args):
    """Calls whose answer NumPy leaves undefined: ``searchsorted`` of an unsorted array (the
    answer depends on the order a binary search visits it in)."""
    if name == "searchsorted":
        a = numpy.asarray(args[0])
        return a.ndim == 1 and bool(numpy.any(a[1:] < a[:-1]))
    return False


# answers defined only up to sign or order, compared by invariants on a real GPU: the
# differential suite's views, and an SVD's singular values (U and Vh: up to the signs of columns)
def _by_value(r, args):
    """A ``unique_*`` answer in NumPy 2's hash order or CuPy's sorted one, put in sorted order:
    (values, then the per-value fields in the same order, then values[inverse]: the input)."""
    v = numpy.asarray(r[0])
    order = numpy.argsort(v, kind="stable")
    fields = dict(r._asdict())
    out = [v[order]] + [numpy.asarray(fields[k])[order] for k in ("indices", "counts") if k in fields]
    if "inverse_indices" in fields:
        out.append(v[numpy.asarray(fields["inverse_indices"])])
    return tuple(out)


_VIEW = {**RESULT_VIEW, "linalg.svd": lambda r, args: numpy.asarray(r[1] if isinstance(r, tuple) else r),
         "unique_all": _by_value, "unique_counts": _by_value, "unique_inverse": _by_value}


def _close_all(ref, got, name=""):
    """On a real GPU: within the differential suite's tolerance for ``name`` (cuSOLVER's and
    cuFFT's algorithms: diffcases.FUNC_TOL), else 4 units in the last place (CUDA's
    transcendental functions), real and imaginary parts apart. Answers defined only up to sign
    or order (``_VIEW``) are compared by their invariants."""
    if name in _VIEW:
        view = _VIEW.pop(name)  # (once: the recursion below compares the views)
        try:
            g = got
            if isinstance(got, tuple):  # (a namedtuple stays one: _by_value reads its fields)
                g = [xpshim.asnumpy(v) for v in got]
                g = got._make(g) if hasattr(got, "_make") else tuple(g)
            else:
                g = xpshim.asnumpy(got)
            return _close_all(view(ref, None), view(g, None), name)
        finally:
            _VIEW[name] = view
    if isinstance(ref, (tuple, list)):
        return type(got) is type(ref) and len(ref) == len(got) and all(_close_all(r, g, name) for r, g in zip(ref, got))
    if not isinstance(ref, (numpy.ndarray, numpy.generic, int, float, complex, bool)):
        return True
    ref, got = numpy.asarray(ref), numpy.asarray(xpshim.asnumpy(got))
    if ref.dtype != got.dtype or ref.shape != got.shape:
        return False
    if ref.dtype.kind not in "fc":
        return numpy.array_equal(ref, got)
    tol = FUNC_TOL.get(name)
    parts = (numpy.real, numpy.imag) if ref.dtype.kind == "c" else (numpy.asarray,)
    for part in parts:
        r, g = part(ref), part(got)
        fin = numpy.isfinite(r)
        if not numpy.array_equal(r[~fin], g[~fin], equal_nan=True):
            return False
        bound = (tol.get("rtol", 0.0) * numpy.abs(r) + tol.get("atol", 0.0)) if tol else 4 * numpy.spacing(numpy.abs(r))
        if not numpy.all(numpy.abs(g[fin] - r[fin]) <= bound[fin]):
            return False
    return True


# ---------------------------------------------------------------- 1. sequences as array data

_V1, _V2, _I1 = [0.5, 1.5, 2.0, 3.0], [[2.0, 1.0], [1.0, 3.0]], [1, 0, 2, 1]
_COMBOS = [(_V1,), (_V2,), (_I1,), (_V1, _V1), (_V2, _V2), (_V2, _V1), (_I1, _I1), (_V1, 2), (_V2, 1),
           (3,), (2.5,), (3, 4), (2.5, 1.5), (_V1, 2.5, 1)]  # (Python numbers as arrays: np.dot(3, 4))
# Names whose list answer is not compared, with why
_LIST_EXEMPT = {
    "empty_like": "its values are whatever the memory held",
    "empty": "its values are whatever the memory held",
    "row_stack": "a deprecated alias of vstack (NumPy warns on each call)",
}


def _as_tuples(v):
    return tuple(_as_tuples(x) for x in v) if type(v) is list else v


def test_every_routed_name_takes_lists_and_tuples_as_numpy_does(gpu):
    """Each routed function called with lists (then tuples) of numbers, and with Python numbers, in
    the first argument shapes NumPy takes for it, gives NumPy's answer on the GPU side: its values,
    and its container (a tuple where CuPy's atleast_1d answers a list)."""
    compared, bad = 0, {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            if name in _LIST_EXEMPT:
                continue
            for combo in _COMBOS:
                for form in (lambda v: v, _as_tuples):
                    args = tuple(form(c) for c in combo)
                    compared += _compare(name, npo, xo, args, args, bad, gpu)
    assert compared > 1000, compared  # (the generator really reached the names)
    assert bad == {}


def test_a_gpu_array_beside_python_numbers_as_numpy_does(gpu):
    """Each routed function given a GPU array and Python numbers (``np.dot(x, 2)``,
    ``np.broadcast_arrays(x, 2)``, ``np.percentile(x, 50)``) answers NumPy's values and container."""
    compared, bad = 0, {}
    h1, h2 = numpy.array([0.5, 1.5, 2.0, 3.0]), numpy.array([[2.0, 1.0], [1.0, 3.0]])
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            if name in _LIST_EXEMPT:
                continue
            for h in (h1, h2):
                for numbers in ((2,), (2.5,), (1, 3), (True,)):
                    with xpshim.device("gpu"):
                        g = xpshim.asarray(h)
                    compared += _compare(name, npo, xo, (h, *numbers), (g, *numbers), bad, gpu)
    assert compared > 500, compared
    assert bad == {}


def test_where_numpy_raises_for_gpu_arrays_the_error_is_numpys(gpu):
    """Each routed function given GPU arrays at its array parameters in shapes NumPy refuses
    (mismatched, too few dimensions) raises NumPy's exception class (CuPy's own checks raise
    others: the call is run again by NumPy, which raises)."""
    from xpshim import _arguments

    h1, h2, h3 = numpy.array([0.5, 1.5, 2.0, 3.0]), numpy.array([[2.0, 1.0], [1.0, 3.0]]), numpy.array([1.0, 2.0, 3.0])
    tried, bad = 0, {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            at = {i for i, _ in _arguments.array_like_params(npo, f"xpshim.{name}")[0]}
            for hs in ((h1, h2), (h2, h1), (h1, h3), (h2, h2, h2), (h3,)):
                if not all(i in at for i in range(len(hs))):
                    continue
                try:
                    npo(*hs)
                    continue
                except Exception as e:
                    want = type(e)
                tried += 1
                with xpshim.device("gpu"):
                    gs = [xpshim.asarray(h) for h in hs]
                    try:
                        xo(*gs)
                        bad[name] = f"no error where NumPy raises {want.__name__}"
                    except Exception as e:
                        if not isinstance(e, want):
                            bad[name] = f"{type(e).__name__} where NumPy raises {want.__name__}: {e}"[:160]
    assert tried > 200, tried
    assert bad == {}


_P = doctest.DocTestParser()
# Examples in NumPy's docstrings that raise under xpshim on the GPU side, with why
_EXAMPLE_EXEMPT = {
    "copy": "sets a GPU array's WRITEABLE flag to False (docs/differences.md)",
    "unique_all": "CuPy's unique_all answers a plain tuple: no .values (docs/differences.md)",
    "unique_counts": "CuPy's unique_counts answers a plain tuple: no .values (docs/differences.md)",
    "unique_inverse": "CuPy's unique_inverse answers a plain tuple: no .values (docs/differences.md)",
    "random.choice": "a choice among strings: CuPy's choice takes numbers only",
    "polynomial.polynomial.polyvalfromroots": "CuPy's polyvalfromroots broadcasts x with r otherwise",
    # (NumPy 2.5's examples import numpy.lib.stride_tricks.as_strided itself: NumPy's own function
    # reads a GPU view as a host copy of the view alone, so check_bounds sees no base; docs/differences.md)
    "lib.stride_tricks.as_strided": "the examples call NumPy's own as_strided on GPU arrays",
}


def _examples(doc, module):
    """Run a docstring's examples with ``np`` = ``module``: (outcome, value) for each."""
    ns = {"np": module, "__name__": "__examples__"}
    for ex in _P.get_examples(doc):
        src = ex.source.replace("import numpy as np", f"import {module.__name__} as np")
        if "plt" in src or "matplotlib" in src:
            return
        try:
            try:
                code = compile(src, "<example>", "eval")
            except SyntaxError:
                exec(compile(src, "<example>", "exec"), ns)
                yield "ok", None, src
                continue
            yield "ok", eval(code, ns), src
        except Exception as e:
            yield "raised", f"{type(e).__name__}: {e}"[:160], src


def test_numpys_docstring_examples_run_on_the_gpu_side(gpu, tmp_path, monkeypatch):
    """Every routed name's examples from NumPy's own docstrings (lists, tuples, scalars, NumPy
    arrays, as NumPy's users write them) raise nothing on the GPU side that NumPy does not."""
    monkeypatch.chdir(tmp_path)  # (the examples of np.save and friends write files)
    ran, bad = 0, {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, _ in routed_callables():
            doc = getattr(npo, "__doc__", None) or ""
            if ">>>" not in doc or name in _EXAMPLE_EXEMPT:
                continue
            ref = list(_examples(doc, numpy))
            with xpshim.device("gpu"):
                got = list(_examples(doc, xpshim))
            ran += 1
            for (ka, _, src), (kb, vb, _) in zip(ref, got):
                if ka == "ok" and kb == "raised":
                    bad[name] = (src.strip(), vb)
                    break
    assert ran > 300, ran
    assert bad == {}


def test_documented_array_parameters_are_converted(gpu):
    """Structural: every parameter NumPy documents as array_like (less _docparams.NOT_DATA) is one
    xpshim's routing converts, for every routed function."""
    from xpshim import _arguments, _docparams

    missing = []
    for name, npo, _ in routed_callables():
        arrays, seqs = _docparams.documented(npo)
        try:
            params = inspect.signature(npo).parameters
        except (TypeError, ValueError):
            continue
        spec = _arguments.array_like_params(npo, f"xpshim.{name}")
        for p in (arrays | seqs) & set(params):
            if params[p].kind is params[p].VAR_POSITIONAL:
                if not spec[2]:
                    missing.append((name, p))
            elif p not in spec[1]:
                missing.append((name, p))
    assert missing == []


# ---------------------------------------------------------------- 2. an empty list

def test_an_empty_list_is_float64_except_where_numpy_reads_indices(gpu):
    """For every routed function taking two array arguments, ``f(int_array, [])`` gives NumPy's
    dtype and values: float64 data (np.append), intp indices (np.take, np.delete)."""
    from xpshim import _arguments

    compared, bad = 0, {}
    a = numpy.arange(4)
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            at = {i for i, _ in _arguments.array_like_params(npo, f"xpshim.{name}")[0]}  # array parameters
            for args in ((a, []), ([], a), (a, [], [])):
                if not all(i in at for i in range(len(args))):
                    continue
                with xpshim.device("gpu"):
                    g = xpshim.asarray(a)
                compared += _compare(name, npo, xo, args, [g if x is a else x for x in args], bad)
    assert compared > 50, compared
    assert bad == {}


# ---------------------------------------------------------------- 3. positional out

def _float_loop(uf):
    """Input and output type codes of ``uf``'s first loop over float64 (else int64, else bool)."""
    for want in "dl?":
        for t in uf.types:
            ins, outs = t.split("->")
            if set(ins) == {want}:
                return ins, outs
    return None


_UFUNCS = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and _float_loop(getattr(numpy, n))
                 and n not in ("isnat", "matvec", "vecmat", "vecdot", "matmul"))


def test_every_ufunc_returns_its_positional_out(gpu):
    """``r = np.<ufunc>(x, ..., out1[, out2])``: ``r`` is the out array (each of them), holding
    NumPy's values."""
    bad = {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (those CuPy has no loop for run on the host, warned)
        for name in _UFUNCS:
            uf = getattr(numpy, name)
            ins, outs = _float_loop(uf)
            hin = [numpy.array([0.5, 1.5, 2.5, 3.0]).astype(c) for c in ins]
            ref = uf(*hin)
            ref = ref if type(ref) is tuple else (ref,)
            with xpshim.device("gpu"):
                xin = [xpshim.asarray(h) for h in hin]
                xout = [xpshim.empty(4, dtype=c) for c in outs]
                r = getattr(xpshim, name)(*xin, *xout)
            got = r if type(r) is tuple else (r,)
            if len(got) != len(xout) or any(g is not o for g, o in zip(got, xout)):
                bad[name] = "not the out array"
            elif not all(_close(a, b, gpu, ufunc_tolerance(name)["ulp"]) for a, b in zip(ref, xout)):
                bad[name] = "values differ"
    assert len(_UFUNCS) > 80
    assert bad == {}


class _Sub(numpy.ndarray):
    pass


class _Wrapped:
    """An array-like object that survives NumPy's ufuncs through ``__array_wrap__`` (as pandas' do)."""

    def __init__(self, a):
        self.a = a

    @property
    def __array_interface__(self):
        return self.a.__array_interface__

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        return _Wrapped(arr)


_NOT_ARRAYS = {"masked": lambda h: numpy.ma.masked_array(h, mask=[0, 1, 0, 0]), "subclass": lambda h: h.view(_Sub),
               "array_interface": _Wrapped}


@pytest.mark.parametrize("kind", sorted(_NOT_ARRAYS))
def test_every_ufunc_takes_numpy_subclasses_and_array_likes_as_numpy_does(gpu, kind):
    """Each ufunc given a masked array, a NumPy subclass instance or an array-like object (beside
    GPU arrays, on the GPU device) answers NumPy's class and values: CuPy's ufuncs refuse them."""
    make, bad = _NOT_ARRAYS[kind], {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a counted, warned host run where GPU arrays are operands)
        for name in _UFUNCS:
            uf = getattr(numpy, name)
            ins, _ = _float_loop(uf)
            hin = [numpy.array([0.5, 1.5, 2.5, 3.0]).astype(c) for c in ins]
            ref = uf(make(hin[0]), *hin[1:])
            with xpshim.device("gpu"):
                try:
                    got = getattr(xpshim, name)(make(hin[0]), *[xpshim.asarray(h) for h in hin[1:]])
                except Exception as e:
                    bad[name] = f"{type(e).__name__}: {e}"[:120]
                    continue
            for r, g in zip(ref if type(ref) is tuple else (ref,), got if type(got) is tuple else (got,)):
                if type(r) is not type(g) or not (_masked_same(r, g) if kind == "masked" else
                                                  _same(getattr(r, "a", r), getattr(g, "a", g))):
                    bad[name] = f"{type(g).__name__}, not NumPy's {type(r).__name__} or its values"
    assert bad == {}


def test_every_routed_function_returns_its_positional_out(gpu):
    """Each routed function that takes ``out`` by position (np.sum(x, None, None, o), np.around,
    np.cumsum, np.clip, ...) answers the out array itself, holding NumPy's values."""
    tried, bad = 0, {}
    h = numpy.array([[0.5, 1.5], [2.5, 3.0]])
    warnings.simplefilter("ignore")  # (those CuPy has no out= for run on the host, warned; pytest restores)
    for name, npo, xo in routed_callables(skip_random=True):
        try:
            params = list(inspect.signature(npo).parameters.values())
        except (TypeError, ValueError):
            continue
        at = next((i for i, p in enumerate(params) if p.name == "out" and p.kind is p.POSITIONAL_OR_KEYWORD), None)
        if at is None:
            continue
        args = [h] + [p.default if p.default is not p.empty else h for p in params[1:at]]
        try:
            ref = npo(*args)
        except Exception:
            continue
        if not isinstance(ref, (numpy.ndarray, numpy.generic)):
            continue
        tried += 1
        ho = numpy.empty(numpy.shape(ref), dtype=numpy.asarray(ref).dtype)
        is_out = npo(*args, ho) is ho  # (NumPy's fft functions answer a new array, not out)
        with xpshim.device("gpu"):
            o = xpshim.empty(numpy.shape(ref), dtype=numpy.asarray(ref).dtype)
            r = xo(*[xpshim.asarray(a) if a is h else a for a in args], o)
        if (r is o) != is_out:
            bad[name] = "not the out array" if is_out else "the out array, where NumPy's is not"
        elif not _same(ho, o) if is_out else not _same(ref, r):
            bad[name] = "values differ"
    assert tried > 15, tried
    assert bad == {}


# ---------------------------------------------------------------- 4. foreign ufuncs

def _special_ufuncs():
    special = pytest.importorskip("scipy.special")
    return sorted(n for n in dir(special) if isinstance(getattr(special, n), numpy.ufunc)
                  and getattr(special, n).nin == 1 and "d->d" in getattr(special, n).types)


# cupyx.scipy.special's formulas are not SciPy's (Cephes on the host): on a real GPU the values
# agree to this relative tolerance, the stand-in's (SciPy's own loop on the host) exactly
_SPECIAL_RTOL = 1e-9


def test_scipy_special_ufuncs_take_gpu_arrays(gpu):
    """Every one-input SciPy special function given a GPU array answers SciPy's values, run on
    the GPU (cupyx.scipy.special) or on the host, counted and warned."""
    import scipy.special

    names = _special_ufuncs()
    assert len(names) > 40
    h = numpy.array([0.25, 0.5, 1.5, 3.0])
    bad = {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            uf = getattr(scipy.special, name)
            with xpshim.device("gpu"):
                g = xpshim.asarray(h)
                try:
                    r = uf(g)
                except Exception as e:
                    bad[name] = f"{type(e).__name__}: {e}"[:120]
                    continue
            if type(r) is numpy.ndarray or not _close(uf(h), r, gpu, rtol=_SPECIAL_RTOL):
                bad[name] = "not NumPy's values on the GPU"
    assert bad == {}
    if gpu == "fake":  # (the stand-in has no cupyx: each ran on the host, counted)
        assert set(xpshim.stats()["fallbacks"]) >= {getattr(scipy.special, n).__name__ for n in names}


def test_object_ufuncs_run_on_the_host_visibly(gpu):
    """np.frompyfunc's ufuncs (call, outer, reduce, accumulate) take GPU arrays: NumPy's answer,
    an object array on the host, with a FallbackWarning and the copies counted."""
    f = numpy.frompyfunc(oct, 1, 1)
    add = numpy.frompyfunc(lambda a, b: a + b, 2, 1)
    h = numpy.arange(5)
    with xpshim.device("gpu"):
        g = xpshim.asarray(h)
        before = transfers()
        with pytest.warns(xpshim.FallbackWarning):
            r = f(g)
        assert transfers() > before
        assert type(r) is numpy.ndarray and r.dtype == object and r.tolist() == f(h).tolist()
        warnings.simplefilter("ignore")
        for method in ("outer", "reduce", "accumulate"):
            args = (g, g) if method == "outer" else (g,)
            ref = getattr(add, method)(*[h for _ in args])
            got = getattr(add, method)(*args)
            assert numpy.asarray(got).tolist() == numpy.asarray(ref).tolist(), method


# ---------------------------------------------------------------- 5. masked arrays beside GPU arrays

def _masked_same(ref, got):
    if isinstance(ref, numpy.ma.MaskedArray):
        return type(got) is type(ref) and numpy.array_equal(numpy.ma.getmaskarray(ref), numpy.ma.getmaskarray(got)) \
            and _same(ref.filled(0), got.filled(0))  # (values under the mask are unspecified)
    return _same(ref, got)


def test_masked_arrays_beside_gpu_arrays_take_numpys_call(gpu):
    """Every routed function given a masked array and a GPU array (side by side, or in one list:
    np.concatenate([masked, gpu])) answers as NumPy does with the GPU array's data on the host,
    by a counted, warned host run."""
    m = numpy.ma.masked_array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 0])
    h = numpy.array([5.0, 6.0, 7.0, 8.0])
    compared, bad = 0, {}
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, npo, xo in routed_callables(skip_random=True):
            for make in (lambda v: ([m, v],), lambda v: (m, v)):
                try:
                    ref = npo(*make(h))
                except Exception:
                    continue
                compared += 1
                with xpshim.device("gpu"):
                    try:
                        got = xo(*make(xpshim.asarray(h)))
                    except Exception as e:
                        bad[name] = f"{type(e).__name__}: {e}"[:160]
                        continue
                if not _masked_same(ref, got):
                    bad[name] = "differs from NumPy"
    assert compared > 100, compared
    assert bad == {}
    assert xpshim.stats()["fallbacks"]  # (counted)


def test_a_masked_array_beside_a_gpu_array_warns(gpu):
    m = numpy.ma.masked_array([1.0, 2.0], mask=[0, 1])
    with xpshim.device("gpu"):
        g = xpshim.asarray(numpy.array([3.0, 4.0]))
        with pytest.warns(xpshim.FallbackWarning, match="MaskedArray"):
            r = xpshim.concatenate([m, g])
    want = numpy.concatenate([m, numpy.array([3.0, 4.0])])
    assert _masked_same(want, r)


# ---------------------------------------------------------------- 6. warnings at the user's line; version

_WARN_SCRIPT = """
import warnings
import numpy
import xpshim as np
warnings.simplefilter("default")
a = numpy.array([0.0, -1.0])
for name in {names!r}:
    for i in range(2):
        getattr(np, name)(a)   # line 9: one warning per ufunc, however often it runs
    getattr(np, name)(a)       # line 10: and one more here
"""


def test_numpys_runtime_warnings_name_the_users_lines():
    """NumPy's RuntimeWarnings from inside xpshim's wrappers (every float ufunc that warns on 0 or
    -1) are told at the user's lines, once per line as Python's default filter does for NumPy."""
    import os
    import subprocess

    names = []
    with numpy.errstate(all="warn"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in _UFUNCS:
            uf = getattr(numpy, n)
            if uf.nin == 1 and "d->d" in uf.types:
                del w[:]
                uf(numpy.array([0.0, -1.0]))
                if any(issubclass(x.category, RuntimeWarning) for x in w):
                    names.append(n)
    assert len(names) >= 8, names
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", _WARN_SCRIPT.format(names=names)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": root, "XPSHIM_DEVICE": "cpu"}, timeout=300)
    lines = [ln for ln in r.stderr.splitlines() if "RuntimeWarning" in ln]
    assert lines and all(ln.startswith("<string>:9:") or ln.startswith("<string>:10:") for ln in lines), r.stderr
    # (the same message at one line is told once: per distinct message, one at line 9, one at 10)
    assert sum(ln.startswith("<string>:9:") for ln in lines) == sum(ln.startswith("<string>:10:") for ln in lines)


def test_version_is_numpys_and_xpshims_own_is_apart():
    assert xpshim.__version__ == numpy.__version__
    assert xpshim.__xpshim_version__ and xpshim.__xpshim_version__ != numpy.__version__
    assert xpshim.version.version == numpy.version.version  # (numpy.version, the module)
    ns = {}
    exec("from xpshim import *", ns)
    assert "concatenate" in ns


# ---------------------------------------------------------------- 7. iteration copies once

def _moved():
    return transfers() + xpshim.stats()["placement"]["to_host"]["count"]


def test_iterating_a_gpu_array_copies_once(gpu):
    """for v in x, list(x), sum(x), sorted(x), matplotlib's hist(x): the data moves to the host
    once, at the loop's first step, and NumPy's scalars come out; a later loop reads it there, and
    after GPU work on the array (which moves it back) the next loop moves it once again."""
    h = numpy.linspace(0.0, 1.0, 1000)
    with xpshim.device("gpu"):
        for use in (list, sum, sorted, tuple, lambda x: [v for v in x], lambda x: max(x)):
            g = xpshim.asarray(h)
            before = _moved()
            got = use(g)
            assert _moved() - before == 1, use
            assert got == use(h)
            again = use(g)
            assert _moved() - before == 1 and again == got, use  # (still on the host: nothing moved)
            g += 0.0  # GPU work: back to the device (counted apart)
            assert use(g) == got and _moved() - before == 2, use
        assert type(next(iter(g))) is numpy.float64
        rows = list(xpshim.asarray(numpy.arange(6.0).reshape(3, 2)))
        rows[0][0] = 9.0  # rows are views, as NumPy's
        assert type(rows[0]) is xpshim.ndarray


def test_matplotlib_hist_of_a_gpu_array_copies_a_few_times(gpu):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    h = numpy.random.default_rng(0).normal(size=10_000)
    with xpshim.device("gpu"):
        g = xpshim.asarray(h)
        fig, ax = plt.subplots()
        before = transfers()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            n, _, _ = ax.hist(g, bins=20)
        copies = transfers() - before
        plt.close(fig)
    assert copies <= 5, copies  # (was one per element)
    numpy.testing.assert_array_equal(n, numpy.histogram(h, bins=20)[0])


# ---------------------------------------------------------------- 8. x.flat

_LAYOUTS = {
    "1d": lambda m: m.arange(5.0),
    "2d": lambda m: m.arange(6.0).reshape(2, 3),
    "transposed": lambda m: m.arange(6.0).reshape(2, 3).T,
    "strided": lambda m: m.arange(24.0).reshape(2, 3, 4)[:, ::2, ::-1],
    "empty": lambda m: m.zeros((0, 3)),
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_flat_is_numpys_flat_iterator(gpu, layout):
    """x.flat over every layout: iteration, next(), index, coords, base, len, indexing, and the
    assignments x.flat = scalar / shorter list (cycled) / array, as NumPy's flatiter."""
    ref = _LAYOUTS[layout](numpy)
    with xpshim.device("gpu"):
        got = xpshim.asarray(ref.base.copy()) if ref.base is not None else xpshim.asarray(ref.copy())
        got = _LAYOUTS[layout](xpshim)
        assert type(got) is xpshim.ndarray
        assert list(got.flat) == list(ref.flat)
        fr, fg = ref.flat, got.flat
        assert fg.base is got and len(fg) == len(fr)
        for _ in range(min(3, ref.size)):
            assert (fg.index, fg.coords) == (fr.index, fr.coords)
            assert next(fg) == next(fr)
        assert (fg.index, fg.coords) == (fr.index, fr.coords)
        assert list(fg) == list(fr)  # (the rest)
        assert fg.index == fr.index  # (past the end; NumPy's coords there depend on its memory layout)
        if ref.size:
            for key in (0, -1, slice(1, None, 2), [0, ref.size - 1]):
                assert _same(ref.flat[key], got.flat[key]), key
        numpy.testing.assert_array_equal(numpy.asarray(got.flat), numpy.asarray(ref.flat))
        for value in (7.0, [1.0, 2.0], numpy.arange(ref.size, dtype=float)[::-1]):
            r, g = ref.copy(), xpshim.asarray(ref.copy())
            r.flat = value
            g.flat = value
            assert _same(r, g), value
        if ref.size:
            r, g = ref.copy(), xpshim.asarray(ref.copy())
            r.flat[[0, -1]] = 9.0
            g.flat[[0, -1]] = 9.0
            assert _same(r, g)


def test_iterating_flat_copies_once(gpu):
    with xpshim.device("gpu"):
        g = xpshim.asarray(numpy.arange(100.0).reshape(10, 10))
        before = transfers()
        assert sum(g.flat) == 4950.0
        assert transfers() - before == 1


# ---------------------------------------------------------------- 8. x.resize

@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("new", [(2, 1), (3,), (3, 3), (1, 2, 2), 0])
def test_resize_as_numpys(gpu, order, new):
    """x.resize of C- and F-ordered arrays takes the data in memory order, as NumPy's."""
    ref = numpy.array(numpy.arange(6.0).reshape(2, 3), order=order)
    with xpshim.device("gpu"):
        g = xpshim.asarray(ref) if order == "C" else xpshim.asfortranarray(xpshim.asarray(ref))
        assert g.flags.f_contiguous == (order == "F")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.resize(new)
    ref.resize(new)
    assert _same(ref, g)


def test_resize_refuses_as_numpy(gpu):
    with xpshim.device("gpu"):
        a = xpshim.asarray(numpy.arange(4.0))
        v = a[:2]
        with pytest.raises(ValueError, match="referenced"):
            a.resize(6)
        with pytest.raises(ValueError, match="own its data"):
            v.resize(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a.resize(6, refcheck=False)
    assert xpshim.asnumpy(a).tolist() == [0.0, 1.0, 2.0, 3.0, 0.0, 0.0]


def _dtype_settings(m):
    """Programs that set ``x.dtype``: (name, the program, answering what it saw)."""
    def of_bytes():
        x = m.array([1, 2, 3, 4], dtype=m.uint8)
        v = x[:]
        x.dtype = "<i2"
        x[0] = 1  # (lands in the memory v reads)
        return x, v

    def same_size():
        x = m.arange(6, dtype=m.int32).reshape(2, 3)
        x.dtype = m.float32
        return x, x.strides

    def wider_rows():
        x = m.arange(8, dtype=m.int16).reshape(2, 4)
        x.dtype = m.int64
        return x, x.shape

    def transposed():
        x = m.arange(6.0).reshape(2, 3).T
        x.dtype = m.float32

    def a_strided_view():
        x = m.arange(8.0)[::2]
        x.dtype = m.int64
        return x

    def read_only():
        x = m.arange(4.0)
        x.flags.writeable = False
        x.dtype = m.int64
        return x, x.flags.writeable

    def an_element_read():
        s = m.arange(4.0)[1]
        s.dtype = m.int64

    def not_a_dtype():
        x = m.arange(4.0)
        x.dtype = "no such type"

    return [of_bytes, same_size, wider_rows, transposed, a_strided_view, read_only, an_element_read, not_a_dtype]


def test_setting_dtype_as_numpys(gpu):
    """``x.dtype = t`` is NumPy's view in place: the same memory under its names and earlier views,
    NumPy's refusals (class and message)."""
    bad = []
    for want_call, got_call in zip(_dtype_settings(numpy), _dtype_settings(xpshim)):
        try:
            want = want_call()
        except Exception as e:
            want = (type(e), str(e))
        with xpshim.device("gpu"):
            try:
                got = got_call()
            except Exception as e:
                got = (type(e), str(e))
        if not (_same(want, got) if not (type(want) is tuple and type(want[0]) is type) else want == got):
            bad.append((want_call.__name__, want, got))
    assert bad == []


@pytest.mark.parametrize("name", ["array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray"])
@pytest.mark.parametrize("subok", [None, True])
def test_numpy_subclasses_given_to_creation_stay_theirs(gpu, name, subok):
    """np.asanyarray(m), np.array(m, subok=True) of a NumPy subclass (np.matrix, a masked array, a
    record array) keep it, as NumPy's do (no GPU form: np.matrix's * stays a matrix product);
    where NumPy's answer is a plain array, a GPU array."""
    kw = {} if subok is None else {"subok": subok}
    if kw and name != "array":
        return  # (array alone takes subok)
    data = [numpy.asmatrix("1 2; 3 4"), numpy.ma.array([1.0, 2.0], mask=[0, 1]),
            numpy.rec.fromarrays([numpy.arange(2), numpy.ones(2)])]
    for h in data:
        want = getattr(numpy, name)(h, **kw)
        with xpshim.device("gpu"):
            got = getattr(xpshim, name)(h, **kw)
        if type(want) is numpy.ndarray:
            assert type(got) is (xpshim.ndarray if want.dtype.kind in "biufc" else numpy.ndarray), type(h)
        else:
            assert type(got) is type(want), type(h)
            assert (got is h) == (want is h)
        numpy.testing.assert_array_equal(xpshim.asnumpy(got) if type(got) is xpshim.ndarray else got, want)


def _masked_makers():
    """numpy.ma's functions (from the installed NumPy) that make a masked array of the array they
    are given alone."""
    import inspect

    h, out = numpy.array([1.0, 2.0, -99.0, 5.0]), []
    for name in numpy.ma.__all__:
        f = getattr(numpy.ma, name)
        try:
            params = list(inspect.signature(f).parameters.values())
        except (TypeError, ValueError):
            continue
        if not params or params[0].name not in ("a", "x", "data", "arr") or any(
                p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD for p in params[1:]):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if isinstance(f(h), numpy.ma.MaskedArray):
                    out.append(name)
        except Exception:
            pass
    return out


@pytest.mark.parametrize("name", _masked_makers())
def test_a_masked_array_of_a_gpu_array_says_it_holds_a_copy(gpu, name):
    """Masked arrays have no GPU form: one made of a GPU array holds a host copy (NumPy's would be
    a view, writes through it landing in the array), and the FallbackWarning says so at the
    user's line; its values are NumPy's."""
    h = numpy.array([1.0, 2.0, -99.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(numpy.ma, name)(h)
    with xpshim.device("gpu"), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        x = xpshim.asarray(h)
        got = getattr(numpy.ma, name)(x)
    said = [w for w in said if issubclass(w.category, xpshim.FallbackWarning)]
    if numpy.shares_memory(numpy.ma.getdata(want), h):  # (NumPy's is a view: writes through it land in h)
        assert said and said[0].filename == __file__
        assert any(m in str(said[0].message) for m in ("writes through it do not reach", "live on the host"))
    assert type(got) is type(want)
    numpy.testing.assert_array_equal(numpy.ma.filled(got, 0), numpy.ma.filled(want, 0))  # (masked: any data)
    numpy.testing.assert_array_equal(numpy.ma.getmaskarray(got), numpy.ma.getmaskarray(want))


# ---------------------------------------------------------------- 8. np.nditer

def _double(m, a):
    with m.nditer(a, op_flags=["readwrite"]) as it:
        for x in it:
            x[...] = 2 * x


def _by_index(m, a):
    it = m.nditer(a, flags=["multi_index"], op_flags=["writeonly"])
    while not it.finished:
        it[0] = it.multi_index[0] * 10 + it.multi_index[-1]
        it.iternext()


def _buffered_cast(m, a):
    with m.nditer(a, op_flags=["readwrite"], op_dtypes=["complex128"], flags=["buffered"], casting="unsafe") as it:
        for x in it:
            x[...] = x + 0.5


def _two_operands(m, a):
    b = a.copy()
    with m.nditer([a, b], op_flags=[["readonly"], ["readwrite"]]) as it:
        for x, y in it:
            y[...] = x * x + 1
    a[...] = b


@pytest.mark.parametrize("idiom", [_double, _by_index, _buffered_cast, _two_operands])
@pytest.mark.parametrize("layout", ["2d", "transposed", "strided"])
def test_nditer_writes_land_in_gpu_arrays(gpu, idiom, layout):
    """NumPy's nditer idioms that write through an operand change the GPU array as NumPy's the host one."""
    ref = _LAYOUTS[layout](numpy).copy()
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = xpshim.asarray(ref.copy())
        idiom(xpshim, g)
        assert isinstance(xpshim.nditer(g), xpshim.nditer)
    idiom(numpy, ref)
    assert _same(ref, g)


# ---------------------------------------------------------------- 8. views as host-only dtypes

@pytest.mark.parametrize("dtype", [[("x", "i4"), ("y", "i4")], "V8", "V4", "S4", [("a", "i2"), ("b", "i2")]])
def test_view_as_a_host_only_dtype_is_numpys_on_the_host(gpu, dtype):
    """x.view(structured, void or bytes dtype): NumPy's answer (a view of a host copy), warned."""
    h = numpy.arange(4, dtype="i4")
    with xpshim.device("gpu"):
        g = xpshim.asarray(h)
        with pytest.warns(xpshim.FallbackWarning, match="host"):
            r = g.view(dtype)
    want = h.view(dtype)
    assert type(r) is numpy.ndarray and r.dtype == want.dtype and r.tobytes() == want.tobytes()


# ---------------------------------------------------------------- 9. comparisons with Python objects

@pytest.mark.parametrize("make", [lambda: "abc", lambda: b"ab", lambda: numpy.dtype("float64"), lambda: object(),
                                  lambda: __import__("fractions").Fraction(1),
                                  lambda: __import__("decimal").Decimal("2")])
def test_comparing_with_a_python_object_is_numpys(gpu, make):
    """x == obj and x != obj for objects with no array form (a string, a dtype, a Fraction): NumPy
    compares element by element (all False, or the values where the object compares with
    numbers), not Python's single bool."""
    h = numpy.array([1.0, 2.0, 3.0])
    o = make()
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = xpshim.asarray(h)
        got = (g == o, g != o)
    for want, r in zip((h == o, h != o), got):
        assert _same(want, r), (o, want, r)


# ---------------------------------------------------------------- 10. memory order of results

@pytest.mark.parametrize("call", [lambda m, a: m.delete(a, 1, axis=0), lambda m, a: m.delete(a, [0, 2], axis=1),
                                  lambda m, a: m.insert(a, 1, 5.0, axis=1), lambda m, a: m.insert(a, [0, 1], 5.0, axis=0),
                                  lambda m, a: m.block([[a, a], [a, a]]), lambda m, a: m.block([a, a])])
@pytest.mark.parametrize("order", ["C", "F"])
def test_results_keep_numpys_memory_order(gpu, call, order):
    """delete, insert and block of F-ordered arrays answer F-ordered arrays, as NumPy's do."""
    h = numpy.array(numpy.arange(12.0).reshape(3, 4), order=order)
    want = call(numpy, h)
    with xpshim.device("gpu"):
        g = xpshim.asarray(h) if order == "C" else xpshim.asfortranarray(xpshim.asarray(h))
        got = call(xpshim, g)
    assert _same(want, got)
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)


_USES = [lambda m, a: numpy.asarray(a), lambda m, a: numpy.block([[a, a]]),
         lambda m, a: numpy.delete(a, 1, axis=0), lambda m, a: numpy.array(a),
         lambda m, a: m.asnumpy(a) if m is xpshim else a]


@pytest.mark.parametrize("use", _USES)
def test_host_copies_keep_memory_order(gpu, use):
    """A host copy of an F-ordered GPU array is F-ordered, as the NumPy array it stands for: NumPy's
    own functions given GPU arrays answer in NumPy's order."""
    h = numpy.asfortranarray(numpy.arange(12.0).reshape(3, 4))
    want = use(numpy, h)
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = use(xpshim, xpshim.asfortranarray(xpshim.asarray(h)))
    # (numpy.delete keeps its input's class through __array_wrap__, as for a NumPy subclass)
    assert type(got) is (xpshim.ndarray if use is _USES[2] else numpy.ndarray)
    assert _same(want, xpshim.asnumpy(got))
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)



class _Kept(numpy.ndarray):
    """A NumPy subclass: what NumPy's functions do with its class, they do with a GPU array's."""


def _wrap_cases():
    """(name, call) for every function of numpy.linalg, and NumPy's other functions that hand their
    result to ``__array_wrap__``, callable on a 3x3 matrix (and a vector beside it)."""
    out = []
    for name in sorted(numpy.linalg.__all__):
        f = getattr(numpy.linalg, name)
        if not callable(f) or isinstance(f, type):
            continue
        for n in (1, 2):
            try:
                f(*_ARGS[:n])
            except Exception:
                continue
            out.append((f"linalg.{name}", lambda a, b, f=f, n=n: f(*(a, b)[:n])))
            break
    out += [("delete", lambda a, b: numpy.delete(a, 1, axis=0)), ("insert", lambda a, b: numpy.insert(a, 1, 5.0, axis=0)),
            ("linspace", lambda a, b: numpy.linspace(b, b + 1, 4))]
    return out


_ARGS = (numpy.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]), numpy.array([1.0, 2.0, 3.0]))


def _parts(r):
    return r if isinstance(r, tuple) else (r,)


@pytest.mark.parametrize("name,call", _wrap_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_numpys_functions_keep_a_gpu_arrays_class_as_a_subclasss(gpu, name, call):
    """NumPy's own functions (code that imported NumPy itself) answer a GPU array for GPU arrays
    wherever they answer a NumPy subclass for a subclass (``__array_wrap__``, or a view), with
    NumPy's values; a view of the subclass is a view of the GPU array."""
    a, b = _ARGS
    want = call(a, b)
    ka, kb = a.copy().view(_Kept), b.copy().view(_Kept)
    sub = call(ka, kb)
    ga, gb = xpshim.asarray(a), xpshim.asarray(b)
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = call(ga, gb)
    for w, s, g in zip(*map(_parts, (want, sub, got))):
        if type(s) is _Kept:
            assert type(g) is xpshim.ndarray, name
            assert xpshim.shares_memory(g, ga) == numpy.shares_memory(s, ka), name
        else:
            assert type(g) is type(w), name
        assert numpy.allclose(w, xpshim.asnumpy(g), rtol=1e-12, atol=1e-12) and numpy.shape(w) == numpy.shape(g), name


def _one_array_views():
    """(name, NumPy's callable) for every routed name that NumPy dispatches to array-likes
    (``__array_function__``) and whose NumPy answer for one 3x3 array alone is a view of it.
    (NumPy's conversions, ``numpy.asarray`` and the like, and ``as_strided`` do not dispatch: they
    answer NumPy arrays of host copies, docs/differences.md.)"""
    out = []
    for name, npo, _ in routed_callables(skip_random=True):
        if not hasattr(npo, "_implementation"):
            continue
        h = _ARGS[0].copy()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = npo(h)
        except Exception:
            continue
        if any(isinstance(p, numpy.ndarray) and numpy.shares_memory(p, h) for p in _parts(r)):
            out.append((name, npo))
    return out


@pytest.mark.parametrize("name,npo", _one_array_views(), ids=lambda v: v if isinstance(v, str) else "")
def test_numpys_own_views_of_a_gpu_array_are_views_of_it(gpu, name, npo):
    """NumPy's own function whose answer is a view of its argument (``numpy.ravel(x)``, in code
    that imported NumPy itself) answers a view of the GPU array: a write through it lands there."""
    h = _ARGS[0].copy()
    want = npo(h)
    g = xpshim.asarray(_ARGS[0])
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = npo(g)
    for w, p in zip(_parts(want), _parts(got)):
        if isinstance(w, numpy.ndarray) and numpy.shares_memory(w, h):
            assert type(p) is xpshim.ndarray and xpshim.shares_memory(p, g), name
            assert numpy.array_equal(w, xpshim.asnumpy(p)), name


@pytest.mark.parametrize("name", ["sort", "argsort"])
@pytest.mark.parametrize("how", [dict(kind="quicksort"), dict(kind="mergesort"), dict(kind="heapsort"),
                                 dict(kind="stable"), dict(stable=True), dict(axis=0, kind="mergesort"), (0, "heapsort"),
                                 dict(kind="nope"), dict(kind="stable", stable=True)], ids=repr)
def test_sort_methods_take_numpys_kinds(gpu, name, how):
    """``x.sort``/``x.argsort`` take every kind NumPy takes (CuPy's method only "stable"), and refuse
    what NumPy refuses, with NumPy's error."""
    h = numpy.array([[5, 1, 4], [2, 8, 0]])
    args, kwargs = (how, {}) if isinstance(how, tuple) else ((), how)

    def call(a):
        r = getattr(a, name)(*args, **kwargs)
        return a if name == "sort" else r

    try:
        want = call(h.copy())
    except ValueError as e:
        with pytest.raises(ValueError, match=str(e)[:20]):
            call(xpshim.asarray(h))
        return
    with xpshim.device("gpu"):
        got = call(xpshim.asarray(h))
    assert _same(want, got)


_RAISED = object()


def _functions_and_ufuncs():
    """(name, NumPy's callable, xpshim's) of every routed function and every ufunc."""
    ufuncs = [(n, getattr(numpy, n), getattr(xpshim, n)) for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc)]
    return routed_callables(skip_random=True) + ufuncs


def _quiet_answer(npo, args):
    """NumPy's answer to ``npo(*args)``, its warnings silenced, or _RAISED."""
    try:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return npo(*args)
    except Exception:
        return _RAISED


def _scalar_calls():
    """(name, NumPy's callable, xpshim's, args) for every routed function and ufunc whose NumPy
    answer for numbers alone (one, two or three of 3.0, 2, True) is a scalar."""
    out = []
    for name, npo, xo in _functions_and_ufuncs():
        for args in ((3.0,), (2,), (True,), (3.0, 2), (2, 3), (3.0, 2.0, 1.0)):
            r = _quiet_answer(npo, args)
            if r is _RAISED:
                continue
            if isinstance(r, (numpy.generic, int, float, complex, bool)) and not isinstance(r, numpy.ndarray):
                out.append((name, npo, xo, args))
            break
    return out


@pytest.mark.parametrize("name,npo,xo,args", _scalar_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_numbers_alone_answer_numpys_scalar_on_the_gpu_device(gpu, name, npo, xo, args):
    """A call on numbers alone answers NumPy's scalar (its type and value) on the GPU device too:
    nothing there needs a GPU, and NumPy's answer is a scalar (docs/differences.md, "Scalars")."""
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = npo(*args)
        with xpshim.device("gpu"):
            got = xo(*args)
    assert type(got) is type(want), name
    assert got == want or (want != want and got != got), name


def _element_kind(v):
    """A tuple answer's element as NumPy gives it: its scalar (a value: type and dtype), or an
    array (its dimensions and dtype)."""
    if isinstance(v, numpy.generic) or (type(v) is xpshim.ndarray and v._v):
        return ("scalar", numpy.asarray(xpshim.asnumpy(v) if type(v) is xpshim.ndarray else v).dtype.str)
    if isinstance(v, (numpy.ndarray, xpshim.ndarray)):
        return ("array", v.ndim, v.dtype.str)
    return (type(v).__name__,)


def _tuple_calls():
    """(name, NumPy's, xpshim's callable, NumPy's arguments, the same as GPU arrays) of every routed
    name and ufunc that answers a tuple for numbers, 0-d or 1-d arrays (np.divmod, np.frexp,
    np.unravel_index, linalg.slogdet, ...)."""
    out = []
    for name, npo, xo in _functions_and_ufuncs():
        for shape in [(), (3,), (2, 2)]:
            for n in (1, 2):
                args = [numpy.full(shape, 3.0 + i) for i in range(n)]
                if name == "unravel_index":
                    args = [numpy.full(shape, 99), (6, 7, 8)]
                r = _quiet_answer(npo, args)
                if r is _RAISED:
                    continue
                if isinstance(r, tuple) and r and any(isinstance(v, numpy.generic) for v in r) or (
                        isinstance(r, tuple) and shape == ()):
                    out.append((f"{name}{shape}", npo, xo, args))
                break
    return out


@pytest.mark.parametrize("name,npo,xo,args", _tuple_calls(), ids=lambda v: v if isinstance(v, str) else "")
def test_tuple_answers_hold_scalars_where_numpys_do(gpu, name, npo, xo, args):
    """np.divmod(x, 2) of 0-d arrays, np.unravel_index(99, shape), np.linalg.slogdet(m): each element
    of the answer is NumPy's scalar where NumPy's is, and an array where NumPy's is."""
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = npo(*args)
        got = xo(*[xpshim.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args])
    assert [_element_kind(v) for v in got] == [_element_kind(v) for v in want], name
    assert type(got).__name__ == type(want).__name__, name


def _refusing_array_likes():
    from xpshim import _docparams

    return [(name, npo, xo, sorted(_docparams.refuses_array_likes(npo)))
            for name, npo, xo in routed_callables(skip_random=True) if _docparams.refuses_array_likes(npo)]


@pytest.mark.parametrize("name,npo,xo,params", _refusing_array_likes(), ids=lambda v: v if isinstance(v, str) else "")
def test_parameters_numpy_documents_as_arrays_only_refuse_lists(gpu, name, npo, xo, params):
    """Where NumPy's docstring says a parameter takes no array-likes (``np.astype``'s ``x``), a list
    there is NumPy's TypeError on the GPU device too, not array data."""
    assert params  # (the table is read from NumPy's docstrings: at least np.astype's x)
    with pytest.raises(TypeError) as want:
        npo([1, 2], numpy.float32)
    with xpshim.device("gpu"), pytest.raises(TypeError) as got:
        xo([1, 2], numpy.float32)
    assert str(got.value) == str(want.value)


_C_INDEX_CALLS = {  # NumPy's C methods with an index parameter, as methods and as NumPy's functions
    "a.take(i)": lambda m, a, i: a.take(i), "take(a, i)": lambda m, a, i: m.take(a, i),
    "a.repeat(i)": lambda m, a, i: a.repeat(i), "repeat(a, i)": lambda m, a, i: m.repeat(a, i),
    "a.put(i, 7)": lambda m, a, i: (a.put(i, 7), a)[1], "put(a, i, 7)": lambda m, a, i: (m.put(a, i, 7), a)[1],
}
_C_INDEX_VALUES = {"floats": [0.5, 1.7, 2.0], "tuple": (0.0, 2.0, 1.0), "bools": [True, False, True], "float": 1.0,
                   "NumPy float": numpy.float64(2.0), "strings": ["1", "0", "2"], "empty": [], "float array": numpy.array([0.0, 1.0, 2.0]),
                   "int array": numpy.array([2, 0, 1]), "uint64 array": numpy.array([2, 0, 1], dtype=numpy.uint64)}


@pytest.mark.parametrize("call", list(_C_INDEX_CALLS))
@pytest.mark.parametrize("value", list(_C_INDEX_VALUES))
def test_index_parameters_of_numpys_c_methods_read_as_numpy_reads_them(gpu, call, value):
    """``take``/``put``/``repeat``'s index parameter, as a method or NumPy's function: Python data
    cast item by item to intp as NumPy's C code does (a list of floats takes their whole parts), an
    array of floats NumPy's TypeError; on the GPU with no host run (CuPy's kernels truncate floats
    or do not compile)."""
    f, v = _C_INDEX_CALLS[call], _C_INDEX_VALUES[value]
    try:
        want = f(numpy, numpy.array([10, 20, 30]), v)
    except (TypeError, ValueError) as e:
        with xpshim.device("gpu"), pytest.raises(type(e)) as got:
            f(xpshim, xpshim.asarray([10, 20, 30]), xpshim.asarray(v) if isinstance(v, numpy.ndarray) else v)
        assert str(got.value) == str(e)
        return
    with xpshim.device("gpu"):
        got = f(xpshim, xpshim.asarray([10, 20, 30]), xpshim.asarray(v) if isinstance(v, numpy.ndarray) else v)
    assert _same(want, got)
    assert not xpshim.stats()["fallbacks"]


@pytest.mark.parametrize("how", ["method", "function"])
def test_choose_of_float_indices_is_numpys_error(gpu, how):
    """``x.choose(choices)`` with ``x`` of floats: NumPy's TypeError (CuPy's kernel truncates them)."""
    def call(m, x, c):
        return x.choose(c) if how == "method" else m.choose(x, c)

    with pytest.raises(TypeError) as want:
        call(numpy, numpy.array([0.2, 1.9]), [numpy.array([1, 2]), numpy.array([3, 4])])
    with xpshim.device("gpu"), pytest.raises(TypeError) as got:
        call(xpshim, xpshim.asarray([0.2, 1.9]), [xpshim.asarray([1, 2]), xpshim.asarray([3, 4])])
    assert str(got.value) == str(want.value)
