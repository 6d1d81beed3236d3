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
            values = numpy.round(h, 3) if h.dtype.kind in "fc" else h
            return ("answer", h.dtype.str, repr(values.tolist()))
    except Exception as e:
        return ("raised", type(e).__name__)


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
                    if got != want:
                        call = f"np.{name}({'v, x' if flip else 'x, v'})"
                        differ.append(f"{call} x {numpy.dtype(dt)}, v={v!r}: {got} != {want}"[:240])
    assert n > 3000, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:60])
