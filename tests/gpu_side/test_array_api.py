"""The array API standard on xpshim (xpshim/_arrayapi.py): the inspection namespace, devices,
``device=`` and ``copy=``, the GPU arrays' protocol, and SciPy and scikit-learn dispatching on
it (tests/support/arrayapi_libs.py, a process per library), each checked against NumPy."""

import inspect
import json
import os
import re
import subprocess
import sys

import numpy
import pytest
from conftest import transfers

import xpshim as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _host(r):
    return np.asnumpy(r)


# ---------------------------------------------------------------- the namespace

def test_version_and_star_import_match_numpy():
    assert np.__array_api_version__ == numpy.__array_api_version__
    ns = {}
    exec("from xpshim import *", ns)  # every name of __all__ exists
    assert set(numpy.__all__) <= set(ns)


def test_inspection_namespace_answers_as_numpy_on_the_cpu():
    ours, theirs = np.__array_namespace_info__(), numpy.__array_namespace_info__()
    assert ours.capabilities() == theirs.capabilities()
    assert ours.default_dtypes() == theirs.default_dtypes()
    assert ours.default_dtypes(device="cpu") == theirs.default_dtypes(device="cpu")
    kinds = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("integral", "real floating")]
    for kind in kinds:
        assert ours.dtypes(kind=kind) == theirs.dtypes(kind=kind), kind
    assert "cpu" in ours.devices()
    assert numpy.zeros(1).device in ours.devices()
    with pytest.raises(ValueError, match="Device not understood"):
        ours.dtypes(device="tpu")


def test_inspection_namespace_lists_the_gpu(gpu):
    info = np.__array_namespace_info__()
    x = np.zeros(3)
    assert type(x) is np.ndarray
    assert x.device in info.devices()
    assert info.default_device() == x.device
    assert info.dtypes(device=x.device) == numpy.__array_namespace_info__().dtypes()


# ---------------------------------------------------------------- device= on creation functions

_PROTO = numpy.arange(6.0).reshape(2, 3)
# One call per NumPy function that takes device= (the test below checks this covers them all).
CREATION = {
    "arange": ((1, 7, 2), {}),
    "asarray": (([[1, 2], [3, 4]],), {}),
    "asanyarray": (([1.5, 2.5],), {}),
    "empty": (((2, 3),), {}),
    "empty_like": ((_PROTO,), {}),
    "eye": ((3, 4), {"k": 1}),
    "full": (((2, 2), 7.0), {}),
    "full_like": ((_PROTO, 3), {"dtype": numpy.int32}),
    "linspace": ((0, 1, 5), {}),
    "ones": ((4,), {"dtype": numpy.float32}),
    "ones_like": ((_PROTO,), {}),
    "zeros": (((3, 2),), {}),
    "zeros_like": ((_PROTO,), {}),
    "astype": ((_PROTO, numpy.float32), {}),
    "from_dlpack": ((_PROTO,), {}),
}


def test_the_table_covers_every_numpy_function_with_device():
    takes = {n for n in dir(numpy) if callable(getattr(numpy, n)) and not isinstance(getattr(numpy, n), type)
             and _has_param(getattr(numpy, n), "device")}
    assert takes == set(CREATION)


def _has_param(f, name):
    try:
        return name in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def _call(mod, name, args, kwargs, on_gpu_proto=False):
    if on_gpu_proto and args and isinstance(args[0], numpy.ndarray):
        args = (np.asarray(args[0]), *args[1:])
    return getattr(mod, name)(*args, **kwargs)


def _same(r, ref, name):
    h = _host(r)
    assert h.shape == ref.shape and h.dtype == ref.dtype, name
    if not name.startswith("empty"):
        numpy.testing.assert_array_equal(h, ref)


@pytest.mark.parametrize("name", sorted(CREATION))
def test_device_of_an_array_makes_the_result_there(gpu, name):
    args, kwargs = CREATION[name]
    ref = getattr(numpy, name)(*args, **kwargs)
    dev = np.zeros(2).device
    for proto_on_gpu in (False, True):
        r = _call(np, name, args, {**kwargs, "device": dev}, proto_on_gpu)
        assert type(r) is np.ndarray and r.device == dev, (name, proto_on_gpu)
        _same(r, ref, name)
        c = _call(np, name, args, {**kwargs, "device": "cpu"}, proto_on_gpu)
        assert type(c) is numpy.ndarray and c.device == numpy.zeros(1).device, (name, proto_on_gpu)
        _same(c, ref, name)


@pytest.mark.parametrize("name", sorted(CREATION))
def test_device_on_the_cpu_is_numpys(cpu, name):
    args, kwargs = CREATION[name]
    r = getattr(np, name)(*args, device="cpu", **kwargs)
    assert type(r) is numpy.ndarray
    _same(r, getattr(numpy, name)(*args, **kwargs), name)
    with pytest.raises(ValueError):
        getattr(np, name)(*args, device="tpu", **kwargs)


def test_small_arrays_follow_device_in_auto_mode():
    import fakecupy

    from xpshim import _backend

    undo = _backend.install(fakecupy, "stand-in, auto mode", placement=True)
    try:
        assert type(np.zeros(3)) is numpy.ndarray  # auto mode: small stays on the host
        dev = np.__array_namespace_info__().devices()[1]
        for name in ("zeros", "ones", "empty", "arange", "asarray"):
            r = getattr(np, name)(3, device=dev) if name != "asarray" else np.asarray([1, 2], device=dev)
            assert type(r) is np.ndarray, name
    finally:
        undo()


def test_gpu_device_without_a_gpu_names_the_fix(cpu):
    from xpshim import _backend

    if _backend.gpu_status().usable:
        pytest.skip("a GPU is usable here")
    with pytest.raises(np.DeviceError, match="pass device='cpu'"):
        np.zeros(3, device="gpu")


# ---------------------------------------------------------------- asarray's copy=

def _outcome(f):
    """What a call did: 'raises ValueError', 'same object', 'shares memory' or 'new array'."""
    try:
        r, a = f()
    except ValueError:
        return "raises ValueError"
    if r is a:
        return "same object"
    return "shares memory" if _shares(r, a) else "new array"


def _shares(r, a):
    if type(r) is np.ndarray and type(a) is np.ndarray:
        return r._a is a._a or r._a.data.ptr == a._a.data.ptr
    return isinstance(r, numpy.ndarray) and isinstance(a, numpy.ndarray) and numpy.shares_memory(r, a)


@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("dtype", [None, "float64", "float32"])
@pytest.mark.parametrize("fname", ["asarray", "array", "asanyarray"])
def test_copy_on_a_gpu_array_does_what_numpy_does_on_its_own(gpu, fname, dtype, copy):
    """Same device, every copy= and dtype=: the outcome NumPy gives for its array, on CuPy 13
    too (the stand-in's asarray takes no copy=, as CuPy 13's)."""
    h = numpy.arange(4.0)
    x = np.asarray(h)
    want = _outcome(lambda: (getattr(numpy, fname)(h, dtype=dtype, copy=copy), h))
    got = _outcome(lambda: (getattr(np, fname)(x, dtype=dtype, copy=copy), x))
    assert got == want
    if got != "raises ValueError":
        r = getattr(np, fname)(x, dtype=dtype, copy=copy)
        numpy.testing.assert_array_equal(_host(r), h.astype(dtype or h.dtype))


def test_copy_false_across_devices_raises_numpys_error(gpu):
    h = numpy.arange(4.0)
    x = np.asarray(h)
    dev = x.device
    with pytest.raises(ValueError) as ours:
        np.asarray(x, copy=False, device="cpu")
    with pytest.raises(ValueError) as theirs:
        numpy.asarray([1.0], copy=False)
    # NumPy's words first, then what crossed and what to write instead
    assert str(ours.value).startswith(str(theirs.value).split("\n")[0].rstrip("."))
    assert "copy=None" in str(ours.value)
    with pytest.raises(ValueError):
        np.asarray(h, copy=False, device=dev)
    with pytest.raises(ValueError):
        np.asarray(h, copy=False)  # the current device is the GPU: the data would cross
    with pytest.raises(ValueError):
        np.asarray([1.0, 2.0], copy=False)  # a list: NumPy's own refusal
    np.reset_stats()
    with np.device("cpu"):
        assert np.asarray(h, copy=False) is h  # NumPy data on the CPU device: no copy, the array itself
    assert np.asarray(x, copy=False, device=dev) is x
    assert transfers() == 0
    c = np.asarray(x, device="cpu")  # a copy allowed: one counted transfer
    assert type(c) is numpy.ndarray and transfers() == 1
    numpy.testing.assert_array_equal(c, h)


def test_copy_true_is_independent(gpu):
    x = np.asarray(numpy.arange(4.0))
    y = np.asarray(x, copy=True, device=x.device)
    y[0] = 100
    assert float(x[0]) == 0.0 and float(y[0]) == 100.0


# ---------------------------------------------------------------- scalars made on the GPU

# (value, dtype=): Python's and NumPy's scalars of every kind, the edge values among them
SCALARS = [(v, None) for v in (
    True, False, 0, 7, -3, 2**63, 1.5, 0.0, float("nan"), float("inf"), -float("inf"), 5e-324,
    complex(1, -0.0), complex(0, 0), numpy.bool_(True), numpy.int8(-5), numpy.uint64(2**64 - 1),
    numpy.float16(0.1), numpy.float32(1.1), numpy.complex64(2 - 1j), numpy.float64(7.25),
)] + [(0.1, "float32"), (1.5, "int8"), (3, "complex64"), (True, "float64"), (7, "uint16")]
SIGNED_ZEROS = [(-0.0, None), (complex(-0.0, 0.0), None), (complex(0.0, -0.0), None), (numpy.float64(-0.0), None),
                (-0.0, "float32")]


def _bitwise(got, want):
    assert type(got) is np.ndarray and got.shape == want.shape and got.dtype == want.dtype
    assert _host(got).tobytes() == want.tobytes()  # bit for bit: NaN, -0.0, the last digit


@pytest.mark.parametrize("name", ["asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray"])
@pytest.mark.parametrize("value, dtype", SCALARS + SIGNED_ZEROS, ids=repr)
def test_a_scalar_is_made_on_the_gpu_without_a_copy(gpu, name, value, dtype):
    """A Python or NumPy scalar is filled in on the GPU, as CuPy's asarray does: no counted
    copy (SciPy and scikit-learn write xp.asarray(1.0 / n, device=x.device)); a zero with its
    sign bit set is copied (counted), as a fill would lose the sign."""
    want = getattr(numpy, name)(value, dtype=dtype)
    # (CuPy's fill writes only a zero by memset: complex(1, -0.0) keeps its -0.0 through a fill)
    copies = 1 if want == 0 and (numpy.signbit(want.real) or numpy.signbit(want.imag)) else 0
    ndmin = [{"ndmin": 2}] if name == "array" else []
    for kw in [{}, {"device": np.asarray(numpy.ones(2)).device}] + ndmin:
        want = getattr(numpy, name)(value, dtype=dtype, **{k: v for k, v in kw.items() if k != "device"})
        np.reset_stats()
        r = getattr(np, name)(value, dtype=dtype, **kw)
        assert transfers() == copies, kw
        _bitwise(r, want)


def test_a_0d_host_array_is_copied(gpu):
    """A NumPy 0-d array is host memory, not a scalar: it is copied, and counted."""
    np.reset_stats()
    r = np.asarray(numpy.asarray(2.5))
    assert transfers() == 1
    _bitwise(r, numpy.asarray(2.5))


# ---------------------------------------------------------------- the GPU array's protocol

VERSIONS = [None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12", "2099.01", "2020.10", "", 2023, 2023.12]


@pytest.mark.parametrize("version", VERSIONS)
def test_array_namespace_checks_the_version_as_numpy(gpu, version):
    x = np.zeros(3)

    def outcome(a):
        try:
            a.__array_namespace__(api_version=version)
        except Exception as e:
            return type(e), str(e)
        return "ok"
    want = outcome(numpy.zeros(3))
    assert outcome(x) == want
    if want == "ok":
        assert x.__array_namespace__(api_version=version) is np


def test_dlpack_signatures_are_the_standards():
    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]
    assert params(np.ndarray.__dlpack__) == params(numpy.ndarray.__dlpack__)
    assert params(np.from_dlpack) == params(numpy.from_dlpack)
    assert list(inspect.signature(np.ndarray.to_device).parameters) == ["self", "device", "stream"]


def test_dlpack_shares_the_memory(gpu):
    x = np.asarray(numpy.arange(6.0))
    np.reset_stats()
    y = np.from_dlpack(x)
    assert type(y) is np.ndarray and y._a.data.ptr == x._a.data.ptr
    assert x.__dlpack_device__() == x._a.__dlpack_device__()
    z = np.from_dlpack(x, copy=True)
    assert transfers() == 0
    z[0] = 50
    assert float(x[0]) == 0.0
    want = np.asnumpy(x)
    np.reset_stats()
    c = numpy.from_dlpack(x, device="cpu")  # the host: one counted copy (the simulated GPU is a CUDA device too)
    assert transfers() == 1
    numpy.testing.assert_array_equal(c, want)
    c2 = np.from_dlpack(x, device="cpu")
    assert type(c2) is numpy.ndarray
    with pytest.raises(BufferError):
        np.from_dlpack(x, device="cpu", copy=False)


def test_from_dlpack_of_host_memory_is_numpys(cpu):
    h = numpy.arange(5)
    r = np.from_dlpack(h)
    assert type(r) is numpy.ndarray and numpy.shares_memory(r, h)


def test_to_device(gpu):
    h = numpy.arange(3.0)
    x = np.asarray(h)
    dev = x.device
    assert np.to_device(x, dev) is x and x.to_device(dev) is x and np.to_device(x, "gpu") is x
    for c in (np.to_device(x, "cpu"), x.to_device("cpu"), np.to_device(x, numpy.zeros(1).device)):
        assert type(c) is numpy.ndarray
        numpy.testing.assert_array_equal(c, h)
    g = np.to_device(h, dev)
    assert type(g) is np.ndarray and g.device == dev
    for bad in ("tpu", 3):
        with pytest.raises(ValueError, match="Device not understood"):
            x.to_device(bad)
        with pytest.raises(ValueError, match="Device not understood"):
            np.asarray(h, device=bad)


def test_reshape_takes_the_standards_keywords(gpu):
    x = np.asarray(numpy.arange(6.0))
    h = numpy.arange(6.0)
    for kw in ({"shape": (2, 3)}, {"shape": (3, 2), "copy": True}, {"shape": (6,), "copy": False}):
        numpy.testing.assert_array_equal(_host(np.reshape(x, **kw)), numpy.reshape(h, **kw))
    with pytest.raises(ValueError):
        np.reshape(np.reshape(x, (2, 3)).T, (6,), copy=False)
    assert np.stats()["fallbacks"] == {}


# ---------------------------------------------------------------- Hypothesis's array API strategies

def _xps():
    from hypothesis.extra.array_api import make_strategies_namespace

    return make_strategies_namespace(np, api_version=np.__array_api_version__)


UNARY = ["abs", "negative", "exp", "sin", "sqrt", "floor", "sign", "square", "isnan", "isfinite", "log1p"]
REDUCE = ["sum", "prod", "max", "min", "mean", "cumulative_sum"]


@pytest.mark.parametrize("name", UNARY + REDUCE)
def test_standard_functions_against_numpy(gpu, name):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    xps = _xps()
    arrays = xps.arrays(dtype=xps.floating_dtypes(), shape=xps.array_shapes(min_dims=1, max_side=5),
                        elements={"allow_nan": False, "allow_infinity": False, "min_value": -100, "max_value": 100})

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(x=arrays, data=st.data())
    def check(x, data):
        assert type(x) is np.ndarray  # drawn on the GPU: the strategies make arrays with xpshim
        h = np.asnumpy(x)
        kw = {} if name in UNARY else {"axis": data.draw(st.integers(0, h.ndim - 1))}
        with numpy.errstate(all="ignore"):
            want = getattr(numpy, name)(h, **kw)
            got = getattr(np, name)(x, **kw)
        assert type(got) is np.ndarray
        # (a real GPU flushes float32 subnormals to zero: docs/differences.md, "Numbers"; a product
        # that passes through subnormals rounds at each step, so its order shows there: CuPy's tree)
        tiny = numpy.finfo(h.dtype).smallest_normal \
            if gpu == "cuda" and (h.dtype == numpy.float32 or name == "prod") else 0
        numpy.testing.assert_allclose(np.asnumpy(got), want, rtol=1e-5 if h.dtype == numpy.float32 else 1e-12,
                                      atol=tiny)

    check()


# ---------------------------------------------------------------- SciPy and scikit-learn

def _library(group, backend):
    env = {**os.environ, "XPSHIM_FALLBACK": "warn"}
    env.pop("SCIPY_ARRAY_API", None)
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "support", "arrayapi_libs.py"), group, backend],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if rows and "skip" in rows[0]:
        pytest.skip(rows[0]["skip"])
    return {r["case"]: r for r in rows}


# Every copy each case makes, and every single value it reads into Python, by where it is made
# (the library's file, without its line numbers) and why (xpshim's reason): what SciPy and
# scikit-learn themselves ask for. docs/array-api.md says why each is there; a copy or a read
# more, one less, or one made elsewhere fails the test.
_COMPAT = "scipy/_lib/array_api_compat/common/_helpers.py"
_LDA = {  # LinearDiscriminantAnalysis, without its finiteness checks
    "value read sklearn/utils/multiclass.py (bool())": 1,  # type_of_target: if xp.any(y != int(y))
    "value read sklearn/discriminant_analysis.py (bool())": 2,  # if any(priors < 0), if |sum - 1| > 1e-5
    # for group in classes_: the labels move to the host at the loop's first step, NumPy's scalars
    "moved to host sklearn/discriminant_analysis.py (iteration over 2 elements)": 1,
    "value read sklearn/discriminant_analysis.py (index)": 3,  # Vt[:rank], S[:rank]: a rank from the GPU
}
EXPECTED = {
    "scipy": {
        "scipy.special.logsumexp": {},
        "scipy.stats.zscore": {
            f"value read {_COMPAT} (bool())": 4,  # is_lazy_array's bool() on a type it does not list
            "value read scipy/stats/_stats_py.py (bool())": 1,  # _demean: if precision_loss
        },
        "scipy.fft.fft": {},
        "scipy.signal.convolve": {
            "value read scipy/signal/_signaltools.py (int())": 2,  # int(xp.max(xp.abs(...))), both inputs
            "to host scipy/signal/_signaltools.py (__array_interface__)": 2,  # np.asarray of both
            "to GPU scipy/signal/_signaltools.py (asarray)": 1,  # xp.asarray(np.convolve(...))
        },
        "scipy.ndimage.gaussian_filter": {
            "to host scipy/ndimage/_filters.py (__array_interface__)": 1,
            "to GPU scipy/ndimage/_support_alternative_backends.py (asarray)": 1,
        },
        "scipy.special.erf": {
            "to host scipy/special/_support_alternative_backends.py (__array_interface__)": 1,
            "to GPU scipy/special/_support_alternative_backends.py (asarray)": 1,
        },
        "scipy.linalg.norm": {"to host scipy/linalg/_misc.py (__array_interface__)": 1},
    },
    "sklearn": {
        "sklearn PCA(2).fit_transform": {"value read sklearn/utils/validation.py (bool())": 1},
        "sklearn PCA(2).fit_transform, assume_finite=True": {},
        "sklearn LinearDiscriminantAnalysis().fit(X, y).predict_proba(X)":
            _LDA | {"value read sklearn/utils/validation.py (bool())": 3},  # X, y in fit; X in predict
        "sklearn LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), assume_finite=True": _LDA,
        "sklearn Ridge(solver='svd').fit(X, y).predict(X)": {"value read sklearn/utils/validation.py (bool())": 5},
        "sklearn Ridge(solver='svd').fit(X, y).predict(X), assume_finite=True": {},
    },
}


def _where(sites):
    # {"to host path:line (why)": n} -> {"to host path (why)": n}, summed over lines
    out = {}
    for k, n in sites.items():
        k = re.sub(r":\d+ \(", " (", k)
        out[k] = out.get(k, 0) + n
    return out


def _totals(want):
    return tuple(sum(n for k, n in want.items() if k.startswith(way)) for way in ("to GPU", "to host", "value read"))


def test_the_docs_table_states_these_counts():
    """docs/array-api.md's table, row by row in this order: the array copies each way and the
    values read into Python that the library test expects (its "to GPU", "to host" and "values
    read" columns, bytes left out), no fallbacks."""
    with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), "docs", "array-api.md")) as f:
        rows = [line.split("|")[3:7] for line in f if line.startswith("| `") or line.startswith("| the same")]
    got = [tuple(int(c.split()[0]) for c in row) for row in rows]
    want = [(*_totals(w), 0) for group in EXPECTED.values() for w in group.values()]
    assert got == want


ON_HOST = {"scipy.linalg.norm"}  # SciPy's answer is a NumPy scalar (it reads the array on the host)


@pytest.mark.parametrize("backend", ["fake", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("group", ["scipy", "sklearn"])
def test_libraries_keep_gpu_arrays_on_the_gpu(group, backend):
    rows = _library(group, backend)
    assert set(rows) == set(EXPECTED[group])
    for case, want in EXPECTED[group].items():
        r = rows[case]
        assert "error" not in r, (case, r.get("error"))
        assert r["max_abs_diff"] <= 1e-9 * max(1.0, r["ref_scale"]), case
        assert r["type"] == ("numpy.float64" if case in ON_HOST else "xpshim.ndarray"), case
        assert _where(r["sites"]) == want, case
        assert (r["h2d"], r["d2h"], r["values"]) == _totals(want), case
        assert r["fallbacks"] == 0, case
