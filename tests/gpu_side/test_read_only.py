"""A GPU array's memory is always writeable and aligned: every way NumPy offers to make an array
read-only (or unaligned) raises NumPy's ValueError on a GPU array, saying what to do instead, and
its flags keep telling the truth (a write afterwards lands, as ``flags.writeable`` says)."""

import numpy
import pytest

import xpshim

# Every way NumPy takes to clear the flags a GPU array cannot clear: setflags' keywords, and the
# flags object's attributes and keys (NumPy's own names for them, read from NumPy's flags object)
_KEYS = ("WRITEABLE", "W", "ALIGNED", "A")
WAYS = {**{f"setflags({kw}=False)": (lambda x, kw=kw: x.setflags(**{kw: False})) for kw in ("write", "align")},
        **{f"flags.{n} = False": (lambda x, n=n: setattr(x.flags, n, False)) for n in ("writeable", "aligned")},
        **{f"flags[{k!r}] = False": (lambda x, k=k: x.flags.__setitem__(k, False)) for k in _KEYS}}


@pytest.mark.parametrize("way", list(WAYS))
def test_clearing_a_flag_numpy_clears_raises_and_the_array_stays_writeable(gpu, way):
    h = numpy.arange(6.0)
    WAYS[way](h)  # (NumPy takes each of them)
    assert not (h.flags.writeable and h.flags.aligned)
    x = xpshim.asarray(numpy.arange(6.0))
    assert type(x) is xpshim.ndarray
    with pytest.raises(ValueError, match="always writeable and aligned.*asnumpy"):
        WAYS[way](x)
    assert x.flags.writeable and x.flags.aligned and x.flags["W"]
    x[0] = 5.0  # (the flags tell the truth: the write lands)
    assert float(x[0]) == 5.0


def test_setting_flags_as_they_are_is_taken(gpu):
    x = xpshim.asarray(numpy.arange(6.0))
    assert x.setflags(write=True, align=True, uic=False) is None
    x.flags.writeable = True
    assert x.flags.writeable
    with pytest.raises(ValueError):
        x.setflags(uic=True)
    with pytest.raises(ValueError):
        numpy.arange(6.0).setflags(uic=True)  # (NumPy's too)
