"""ufuncs whose CuPy loops give results other than NumPy's, computed with NumPy's formulas.

CuPy's float ``floor_divide``/``remainder``/``divmod`` do not follow Python's divmod at
infinities, signed zeros and tiny divisors (``1 % 5e-45`` comes out negative), its
``logaddexp2`` loses small terms, and its complex ``divide``, ``reciprocal`` and
``maximum``/``minimum``/``fmax``/``fmin`` differ from NumPy's loops at infinities, NaN
parts and in the last bits. For the loop types in ``TABLE`` the call runs an elementwise
kernel built from ``_exact.cuh`` (NumPy's own algorithms, the same source the tests
compile on the host and compare with NumPy). Every other loop type, and calls with
keywords other than ``out``, go to CuPy's ufunc as before.
"""

import os

import numpy

from . import _backend

FLOATS, COMPLEX = frozenset("efd"), frozenset("FD")
_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_exact.cuh")

_PARTS = "W re, im; {f}<W>(x.real(), x.imag(), y.real(), y.imag(), &re, &im); z = T(re, im)"
_PICK = "z = {f}<W>(x.real(), x.imag(), y.real(), y.imag()) ? x : y"
_REAL = "z = T({f}<W>(W(x), W(y)))"

# ufunc -> (loop type characters covered, number of outputs, the kernel's operation).
# In an operation, x and y are the inputs, z (and z2) the outputs, all of the loop's type T.
TABLE = {
    "floor_divide": (FLOATS, 1, _REAL.format(f="xp_floor_divide")),
    "remainder": (FLOATS, 1, _REAL.format(f="xp_remainder")),
    "divmod": (FLOATS, 2, "W m; z = T(xp_divmod<W>(W(x), W(y), &m)); z2 = T(m)"),
    "logaddexp": (FLOATS, 1, _REAL.format(f="xp_logaddexp")),
    "logaddexp2": (FLOATS, 1, _REAL.format(f="xp_logaddexp2")),
    "divide": (COMPLEX, 1, _PARTS.format(f="xp_cdiv")),
    "reciprocal": (COMPLEX, 1, "W re, im; xp_creciprocal<W>(x.real(), x.imag(), &re, &im); z = T(re, im)"),
    "maximum": (COMPLEX, 1, _PICK.format(f="xp_cmaximum")),
    "minimum": (COMPLEX, 1, _PICK.format(f="xp_cminimum")),
    "fmax": (COMPLEX, 1, _PICK.format(f="xp_cfmax")),
    "fmin": (COMPLEX, 1, _PICK.format(f="xp_cfmin")),
}
TABLE["true_divide"] = TABLE["divide"]
TABLE["mod"] = TABLE["remainder"]

_WEAK = (int, float, complex)  # Python numbers: NEP 50's weak scalars
_BOOL = numpy.dtype(bool)
_source = None


def _preamble():
    global _source
    if _source is None:
        with open(_SRC) as f:
            _source = f.read()
    return _source


class Exact:
    """CuPy's ufunc ``name`` with NumPy's formula for the loop types of ``TABLE[name]``."""

    def __init__(self, name, cupy_ufunc, numpy_ufunc, xp):
        self._name, self._cp, self._np, self._xp = name, cupy_ufunc, numpy_ufunc, xp
        self._kinds, self._nout, self._op = TABLE[name]
        self._kernel = None
        self._loops = {}
        self.__name__ = getattr(cupy_ufunc, "__name__", name)
        self.__wrapped__ = cupy_ufunc

    def __getattr__(self, attr):  # nin, nout, types, reduce, outer, ... are CuPy's
        return getattr(self._cp, attr)

    def _loop(self, args):
        """The loop's dtype when it is one ``TABLE`` covers, else None."""
        key = tuple(type(a) if type(a) in _WEAK else _BOOL if type(a) is bool else getattr(a, "dtype", None)
                    for a in args)
        hit = self._loops.get(key, False)
        if hit is not False:
            return hit
        dt = None
        if all(k is not None for k in key):  # (not `None in key`: dtype("float64") == None is True)
            try:
                res = self._np.resolve_dtypes(key + (None,) * self._np.nout)
            except Exception:  # no such loop: CuPy's ufunc raises its own error
                res = None
            if res is not None and len(set(res)) == 1 and res[0].char in self._kinds:
                dt = res[0]
        self._loops[key] = dt
        return dt

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        if len(args) != self._np.nin or any(v is not None for v in kwargs.values()):
            return self._fallthrough(args, out, kwargs)
        r = self.run(args, out)
        return self._fallthrough(args, out, kwargs) if r is None else r

    def run(self, args, out=None):
        """The kernel's result (or ``out``), or None where ``TABLE`` does not cover the call:
        device arrays and Python or NumPy numbers only, a covered loop, ``out`` of its dtype."""
        nd = self._xp.ndarray
        for a in args:
            if type(a) is not nd and type(a) not in _WEAK and type(a) is not bool and not isinstance(a, numpy.generic):
                return None
        dt = self._loop(args)
        outs = () if out is None else (out if type(out) is tuple else (out,))
        if dt is None or (outs and len(outs) != self._nout) or any(type(o) is not nd for o in outs):
            return None
        ins = [a.astype(dt, copy=False) if type(a) is nd else dt.type(a) for a in args]
        if all(o.dtype == dt for o in outs):
            return self._compiled()(*ins, *outs)
        if not all(numpy.can_cast(dt, o.dtype, "same_kind") for o in outs):
            return None  # (CuPy's ufunc raises NumPy's casting error)
        r = self._compiled()(*ins)  # NumPy's loop is the inputs' one; the result is cast into out
        for o, v in zip(outs, r if type(r) is tuple else (r,)):
            o[...] = v
        return out

    def _fallthrough(self, args, out, kwargs):
        if out is not None:
            kwargs["out"] = out
        return self._cp(*args, **kwargs)

    def _compiled(self):
        if self._kernel is None:
            ins = ", ".join(f"T {v}" for v in "xy"[:self._np.nin])
            outs = ", ".join(["T z", "T z2"][:self._nout])
            self._kernel = self._xp.ElementwiseKernel(
                ins, outs, "typedef xp_wide<T>::type W; " + self._op, f"xpshim_exact_{self._name}",
                preamble=_preamble(), options=("--fmad=false",))
        return self._kernel


# ufuncs CuPy has no complex loops for (TypeError 'Wrong type'); NumPy's test a complex
# number for truth as z != 0, so complex inputs become that test first
NONZERO_FIRST = ("logical_and", "logical_or", "logical_xor")


_I64 = 2 ** 63


class NonzeroFirst:
    """CuPy's ufunc ``name``, with complex inputs replaced by ``z != 0``, Python ints by their truth
    (NumPy's OverflowError for one beyond int64)."""

    def __init__(self, name, cupy_ufunc, xp):
        self._cp, self._xp = cupy_ufunc, xp
        self.__name__ = getattr(cupy_ufunc, "__name__", name)
        self.__wrapped__ = cupy_ufunc

    def __getattr__(self, attr):
        return getattr(self._cp, attr)

    def __call__(self, *args, **kwargs):
        nd = self._xp.ndarray
        for a in args:
            if type(a) is int and not -_I64 <= a < _I64:  # (NumPy reads a Python int here as int64)
                raise OverflowError("Python int too large to convert to C long")
        # (a Python int by its truth: CuPy 14 reads -1 beside uint64 as 0, and 2**63 as uint64)
        args = tuple(a != 0 if type(a) is nd and a.dtype.kind == "c" else
                     bool(a) if type(a) is complex or type(a) is int or isinstance(a, numpy.complexfloating) else a
                     for a in args)
        return self._cp(*args, **kwargs)


def wrap(name, cupy_ufunc):
    """CuPy's ufunc, or its ``Exact`` version where ``TABLE`` has ``name`` and the backend
    compiles elementwise kernels (``NonzeroFirst`` for the names of ``NONZERO_FIRST``)."""
    xp = _backend.xp
    if name in NONZERO_FIRST and cupy_ufunc is not None:
        return NonzeroFirst(name, cupy_ufunc, xp)
    if name not in TABLE or cupy_ufunc is None or not hasattr(xp, "ElementwiseKernel"):
        return cupy_ufunc
    npu = getattr(numpy, name, None)
    if not isinstance(npu, numpy.ufunc):
        return cupy_ufunc
    return Exact(name, cupy_ufunc, npu, xp)


_ops = {}  # name -> (backend module, its Exact or None)


def _for_operator(name):
    xp = _backend.xp
    hit = _ops.get(name)
    if hit is None or hit[0] is not xp:
        w = wrap(name, getattr(xp, name, None))
        hit = _ops[name] = (xp, w if type(w) is Exact else None)
    return hit[1]


def operator(name, op):
    """The operator ``op`` (``operator.floordiv``, ...) on device arrays, with NumPy's formula
    for the loop types of ``TABLE[name]``."""
    def f(a, b):
        e = _for_operator(name)
        r = None if e is None else e.run((a, b))
        return op(a, b) if r is None else r
    return f


def inplace(name, op):
    """``a op= b`` likewise (CuPy's in-place operator where the loop is not covered)."""
    def f(a, b):
        e = _for_operator(name)
        if e is None or e.run((a, b), a) is None:
            return op(a, b)
        return a
    return f
