"""NumPy's errors on the GPU path: NumPy's exception class and message, at the user's line (at
most one xpshim frame in the traceback), for raising calls generated over every ufunc of the
differential suite's table (diffcases.UFUNCS) and its methods, and the calls of issue reports."""

import traceback
import warnings

import numpy
import pytest
from diffcases import UFUNCS

import xpshim


def _raising_calls(mod, x, xc):
    """(label, call): calls NumPy refuses, for every ufunc."""
    out = []
    for name in UFUNCS:
        u = getattr(mod, name)
        nin = getattr(numpy, name).nin
        out.append((f"{name} too many arguments", lambda u=u, nin=nin: u(*[x] * (nin + 3))))
        out.append((f"{name} of a string", lambda u=u, nin=nin: u(*[x] * (nin - 1), "a")))
        out.append((f"{name} of a list of strings", lambda u=u, nin=nin: u(*[["a"] * 40] * nin)))
        if not any(t[0] in "FD" for t in getattr(numpy, name).types):
            out.append((f"{name} of complex numbers", lambda u=u, nin=nin: u(*[xc] * nin)))
        if nin == 2:
            out.append((f"{name}.accumulate over two axes", lambda u=u: u.accumulate(x.reshape(5, 8), axis=(0, 1))))
            out.append((f"{name}.reduce of a string", lambda u=u: u.reduce("ab")))
    out += [("item(0, 0) of 1-d", lambda: x.item(0, 0)), ("matmul of a number", lambda: mod.matmul([1, 2], 3)),
            ("choose without choices", lambda: x.choose())]
    return out


def _outcome(call):
    try:
        call()
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if "xpshim" in f.filename.replace("\\", "/").split("/")]
        return type(e), str(e), len(frames)
    return None


def test_numpys_error_at_the_users_line(gpu):
    h = numpy.arange(40.) + 1
    bad, n = [], 0
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = xpshim.asarray(h)
        for (label, want_call), (_, got_call) in zip(_raising_calls(numpy, h, h + 1j), _raising_calls(xpshim, g, g + 1j)):
            want = _outcome(want_call)
            if want is None:
                continue  # (NumPy takes it: not a raising call)
            n += 1
            got = _outcome(got_call)
            if got is None or got[:2] != want[:2] or got[2] > 1:
                bad.append((label, want[:2], got))
    assert n > 3 * len(UFUNCS)
    assert bad == []


@pytest.mark.parametrize("case", ["concatenate", "float_power"])
def test_what_numpy_takes_is_answered(gpu, case):
    """What CuPy refuses and NumPy answers (strings beside GPU integers, a range): NumPy's answer."""
    s = numpy.array(["a", "b"])
    with xpshim.device("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case == "concatenate":
            want, got = numpy.concatenate([s, numpy.arange(3)]), xpshim.concatenate([s, xpshim.arange(3)])
        else:
            want, got = numpy.float_power(numpy.arange(3.), range(3)), xpshim.float_power(xpshim.arange(3.), range(3))
    got = xpshim.asnumpy(got)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
