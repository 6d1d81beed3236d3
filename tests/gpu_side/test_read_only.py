"""A GPU array's flags as NumPy's: a program makes an array read-only as NumPy lets it
(``setflags(write=False)``, ``flags.writeable = False``, ``flags["W"] = False``), and from then on
every write through it, or through a view made of it after, is refused with NumPy's error, until
it is made writeable again where NumPy allows that (the views' writes are the class of
``test_read_only_views.py``). GPU memory is always aligned: clearing that flag raises NumPy's
ValueError, saying what to do instead, and the flags keep telling the truth."""

import numpy
import pytest

import xpshim

# Every way NumPy takes to clear a flag: setflags' keywords, and the flags object's attributes and
# keys (NumPy's own names for them)
_WRITE = {"setflags(write=False)": lambda x: x.setflags(write=False),
          "flags.writeable = False": lambda x: setattr(x.flags, "writeable", False),
          **{f"flags[{k!r}] = False": (lambda x, k=k: x.flags.__setitem__(k, False)) for k in ("WRITEABLE", "W")}}
_ALIGN = {"setflags(align=False)": lambda x: x.setflags(align=False),
          "flags.aligned = False": lambda x: setattr(x.flags, "aligned", False),
          **{f"flags[{k!r}] = False": (lambda x, k=k: x.flags.__setitem__(k, False)) for k in ("ALIGNED", "A")}}


def _program(m, way):
    """A program that makes an array read-only, writes, views, makes it writeable, writes: what
    each step answers (a value, or NumPy's error class and message)."""
    out = []

    def step(f):
        try:
            r = f()
            out.append(("ok", None if r is None else repr(numpy.asarray(xpshim.asnumpy(r)).tolist())))
        except Exception as e:
            out.append((type(e).__name__, str(e)))

    x = m.asarray(numpy.arange(6.0))
    before = x[3:]  # (a view made before: it stays writeable, as NumPy's)
    _WRITE[way](x)
    step(lambda: x.flags.writeable)
    step(lambda: x.__setitem__(0, 9.0))
    step(lambda: x.__iadd__(1.0))
    step(lambda: m.multiply(x, 2.0, out=x))
    step(lambda: x.fill(7.0))
    step(lambda: before.__setitem__(0, -1.0))  # (lands in x's memory: NumPy's flag guards x alone)
    after = x[1:4]
    step(lambda: after.flags.writeable)
    step(lambda: after.__setitem__(0, 5.0))
    step(lambda: after.setflags(write=True))  # (its memory's owner is read-only: NumPy refuses)
    step(lambda: x.copy().__setitem__(0, 4.0))
    step(lambda: x * 2)
    x.flags.writeable = True
    step(lambda: x.__setitem__(1, 8.0))
    step(lambda: after.setflags(write=True))  # (now its owner is writeable)
    step(lambda: after.__setitem__(0, 6.0))
    step(lambda: x.flags.writeable)
    return out, numpy.asarray(xpshim.asnumpy(x)).tolist()


@pytest.mark.parametrize("way", list(_WRITE))
def test_a_program_makes_an_array_read_only_and_writeable_again_as_numpy(gpu, way):
    assert type(xpshim.asarray(numpy.arange(6.0))) is xpshim.ndarray
    assert _program(xpshim, way) == _program(numpy, way)


@pytest.mark.parametrize("way", list(_ALIGN))
def test_clearing_the_aligned_flag_raises_and_the_array_stays_aligned(gpu, way):
    h = numpy.arange(6.0)
    _ALIGN[way](h)  # (NumPy takes each of them)
    assert not h.flags.aligned
    x = xpshim.asarray(numpy.arange(6.0))
    assert type(x) is xpshim.ndarray
    with pytest.raises(ValueError, match="always aligned.*asnumpy"):
        _ALIGN[way](x)
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
