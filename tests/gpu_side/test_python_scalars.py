"""Python numbers beside arrays read as NumPy 2 reads them (NEP 50: a Python int, float or complex
takes the array's dtype where it fits, and NumPy raises OverflowError for an int that does not),
as a class: every binary ufunc of NumPy's namespace, each small dtype, each kind of Python number,
on either side. xpshim on the GPU side gives NumPy's outcome: the answer's dtype and values, or its
error's class.
"""

import warnings

import numpy

import xpshim

DTYPES = [numpy.int8, numpy.uint8, numpy.int32, numpy.uint64, numpy.float16, numpy.float32, numpy.complex64,
          numpy.bool_]
NUMBERS = [1, -1, 300, 2**63, 1.5, 1e40, 1j, True]


def _binary_ufuncs():
    return sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc) and getattr(numpy, n).nin == 2
                  and getattr(numpy, n).nout == 1)


def _outcome(f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f()
            if type(r) is xpshim.ndarray:
                r = xpshim.asnumpy(r)
            h = numpy.asarray(r)
            # (inexact values to 6 significant digits, 5 of float32, 3 of float16, -0.0 as 0.0: CUDA's
            # pow, hypot and logaddexp2 are within a few ulp, and keep another zero's sign;
            # docs/differences.md, "Last bits")
            n = {"e": 3, "f": 5, "F": 5}.get(h.dtype.char, 6)  # (significant digits of the answer's dtype)
            values = [_digits(v, n) for v in h.ravel().tolist()] if h.dtype.kind in "fc" else h.tolist()
            return ("answer", h.dtype.str, repr(values))
    except Exception as e:
        return ("raised", type(e).__name__)


def _documented(name, dt, v, want):
    """A difference docs/differences.md lists: "Undefined integer operations" (a shift by the bit
    width or more, an integer power with a negative exponent, a Python int of 2**63 beside a boolean
    array), "Complex special values" (a complex power: exp(b log a)), "float32 and complex64
    subnormals" (flushed: nextafter of float32 zero), "float16 nextafter" of an infinity."""
    if "shift" in name and type(v) is int and v >= 64:
        return True
    if dt is numpy.bool_ and type(v) is int and v >= 2**63:
        return True
    if name in ("pow", "power") and numpy.dtype(dt).kind in "biu" and type(v) is int and v < 0:
        return True
    if name in ("pow", "power", "float_power") and want[0] == "answer" and want[1] in ("<c8", "<c16"):
        return True
    return name == "nextafter" and want[0] == "answer" and (  # (a subnormal step, or float16's largest)
        (want[1] == "<f4" and "e-45" in want[2]) or (want[1] == "<f2" and "65500.0" in want[2]))


def _digits(v, n=6):
    if type(v) is complex:
        return complex(_digits(v.real, n), _digits(v.imag, n))
    return float(f"{v:.{n}g}") + 0.0


def test_python_numbers_beside_arrays_answer_as_numpy(gpu):
    differ, n = [], 0
    for name in _binary_ufuncs():
        nf, xf = getattr(numpy, name), getattr(xpshim, name)
        for dt in DTYPES:
            h = numpy.array([0, 1, 2, 3]).astype(dt)
            g = xpshim.asarray(h)
            for v in NUMBERS:
                for flip in (False, True):
                    want = _outcome(lambda: nf(v, h) if flip else nf(h, v))
                    got = _outcome(lambda: xf(v, g) if flip else xf(g, v))
                    n += 1
                    if got != want and _documented(name, dt, v, want):
                        continue
                    if got != want:
                        call = f"np.{name}({'v, x' if flip else 'x, v'})"
                        differ.append(f"{call} x {numpy.dtype(dt)}, v={v!r}: {got} != {want}"[:240])
    assert n > 3000, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
