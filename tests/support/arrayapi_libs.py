"""SciPy and scikit-learn on xpshim's GPU arrays through the array API, one library per process.

    python tests/support/arrayapi_libs.py scipy|sklearn fake|cuda

SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported, so this sets it before that
and runs in a process of its own (tests/gpu_side/test_array_api.py starts it). ``fake`` runs on the
NumPy-backed CuPy stand-in (tests/support/fakecupy.py), ``cuda`` on the real GPU. Each case runs the
library on xpshim GPU arrays and on the same data as NumPy arrays, and prints one JSON object
per case: the result's type, its largest difference from NumPy's, and the copies it made
(``xpshim.stats()``: array copies each way and single values read into Python, in count and
bytes, each site with its count, and host fallbacks).
"""

import json
import os
import sys
import warnings

assert "scipy" not in sys.modules, "SCIPY_ARRAY_API must be set before SciPy is imported"
os.environ["SCIPY_ARRAY_API"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(os.path.dirname(HERE))]  # fakecupy, and this tree's xpshim

import numpy  # noqa: E402

import xpshim  # noqa: E402
from xpshim import _backend  # noqa: E402

SITE = os.path.dirname(os.path.dirname(numpy.__file__))


def _scipy_cases(rng):
    import scipy.fft
    import scipy.linalg
    import scipy.ndimage
    import scipy.signal
    import scipy.special
    import scipy.stats

    x = rng.standard_normal((64, 8))
    a, b = rng.standard_normal(50), rng.standard_normal(7)
    return {
        "scipy.special.logsumexp": (lambda x: scipy.special.logsumexp(x, axis=0), (x,)),
        "scipy.stats.zscore": (scipy.stats.zscore, (x,)),
        "scipy.fft.fft": (lambda x: scipy.fft.fft(x, axis=0), (x,)),
        "scipy.signal.convolve": (scipy.signal.convolve, (a, b)),
        "scipy.ndimage.gaussian_filter": (lambda x: scipy.ndimage.gaussian_filter(x, 1.0), (x,)),
        "scipy.special.erf": (scipy.special.erf, (x,)),
        "scipy.linalg.norm": (scipy.linalg.norm, (x,)),
    }, None


def _sklearn_cases(rng):
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge

    X = rng.standard_normal((200, 6))
    y = (X[:, 0] + 0.5 * rng.standard_normal(200) > 0).astype(numpy.float64)
    cases = {
        "sklearn PCA(2).fit_transform": (lambda X: PCA(2, svd_solver="full").fit_transform(X), (X,)),
        "sklearn PCA(2).fit_transform, assume_finite=True":
            (lambda X: _finite(sklearn, lambda: PCA(2, svd_solver="full").fit_transform(X)), (X,)),
        "sklearn LinearDiscriminantAnalysis().fit(X, y).predict_proba(X)":
            (lambda X, y: LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), (X, y)),
        "sklearn Ridge(solver='svd').fit(X, y).predict(X)":
            (lambda X, y: Ridge(solver="svd").fit(X, y).predict(X), (X, y)),
        "sklearn Ridge(solver='svd').fit(X, y).predict(X), assume_finite=True":
            (lambda X, y: _finite(sklearn, lambda: Ridge(solver="svd").fit(X, y).predict(X)), (X, y)),
        "sklearn LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), assume_finite=True":
            (lambda X, y: _finite(sklearn, lambda: LinearDiscriminantAnalysis().fit(X, y).predict_proba(X)), (X, y)),
    }
    return cases, lambda: sklearn.config_context(array_api_dispatch=True)


def _finite(sklearn, f):
    with sklearn.config_context(assume_finite=True):
        return f()


_WAY = {"host_to_device": "to GPU", "device_to_host": "to host", "values_read": "value read"}


def _short(site):
    # (SciPy vendors array-api-compat under scipy/_lib/, newer SciPy under scipy/_external/: one
    # name; NumPy reads a GPU array through its buffer protocol on Python 3.12+, through
    # __array_interface__ on 3.11: the same host copy, one name)
    return site.replace(SITE + os.sep, "").replace("scipy/_external/array_api_compat/", "scipy/_lib/array_api_compat/") \
        .replace("(buffer protocol)", "(__array_interface__)")


def run(group, backend):
    if backend == "fake":
        import fakecupy

        _backend.install(fakecupy, "NumPy-backed stand-in")
        ctx = None
    else:
        if not _backend.gpu_status().usable:
            print(json.dumps({"skip": _backend.gpu_status().reason}))
            return
        ctx = xpshim.device("gpu")
    if ctx is not None:
        ctx.__enter__()
    rng = numpy.random.default_rng(0)
    cases, dispatch = (_scipy_cases if group == "scipy" else _sklearn_cases)(rng)
    for name, (f, args) in cases.items():
        ref = f(*args)
        gpu_args = [xpshim.asarray(a) for a in args]
        assert all(type(a) is xpshim.ndarray for a in gpu_args)
        xpshim.reset_stats()
        row = {"case": name}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if dispatch is not None:
                    with dispatch():
                        r = f(*gpu_args)
                else:
                    r = f(*gpu_args)
        except Exception as e:  # reported, and the test that reads it fails
            row["error"] = f"{type(e).__name__}: {e}"[:400]
            print(json.dumps(row))
            continue
        s = xpshim.stats()
        t = s["transfers"]
        row.update({
            "type": f"{type(r).__module__}.{type(r).__name__}",
            "h2d": t["host_to_device"]["count"], "h2d_bytes": t["host_to_device"]["bytes"],
            "d2h": t["device_to_host"]["count"], "d2h_bytes": t["device_to_host"]["bytes"],
            "values": t["values_read"]["count"], "values_bytes": t["values_read"]["bytes"],
            "fallbacks": sum(v["count"] for v in s["fallbacks"].values()),
            "sites": {f"{_WAY[d]} {_short(k)}": n for d, v in t.items() for k, n in v["sites"].items()}
            | {f"fallback {k}": v["count"] for k, v in s["fallbacks"].items()}
            | {f"moved {d.replace('_', ' ')} {_short(k)}": n for d in ("to_host", "to_device")
               for k, n in s["placement"][d]["sites"].items()},
        })
        got = xpshim.asnumpy(r)
        row["max_abs_diff"] = float(numpy.max(numpy.abs(got - ref))) if numpy.size(ref) else 0.0
        row["ref_scale"] = float(numpy.max(numpy.abs(ref))) if numpy.size(ref) else 0.0
        print(json.dumps(row))


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2])
