"""``python -m xpshim explain NAME`` tells each name's route as the tables define it: checked
over every entry of every table it reads, not name by name."""

import subprocess
import sys

import numpy
import pytest

from xpshim import _edges, _gaps, _handwritten, _hostfast
from xpshim._explain import _where, explain, explain_all
from xpshim._registry import HOST_IO, HOST_ONLY


def _short(full):
    return full[len("xpshim."):]


@pytest.mark.parametrize("name", sorted(n for n in _edges.TABLE if n.startswith("xpshim.")))
def test_every_edge_is_named(name):
    text = explain(_short(name))
    if (name.rsplit(".", 1)[0], name.rsplit(".", 1)[1]) in _handwritten.TABLE:
        assert "hand-written" in text
    else:
        assert _where(_edges.TABLE[name]) in text


def test_every_gap_implementation_is_named():
    _gaps.table()
    names = [n for n in _gaps.IMPL if n.startswith("xpshim.") and n.count(".") <= 2]
    assert len(names) > 50
    missed = []
    for n in names:
        sub_name = _short(n)
        head = sub_name.split(".")[0]
        npobj = getattr(numpy, head, None)
        if isinstance(npobj, numpy.ufunc) or ("xpshim", sub_name) in _handwritten.TABLE:
            continue  # ufunc methods and hand-written names are reported their own way
        if _where(_gaps.IMPL[n].fn) not in explain(sub_name):
            missed.append(n)
    assert missed == []


@pytest.mark.parametrize("key", sorted(HOST_ONLY) + sorted(HOST_IO))
def test_host_routes_say_host(key):
    text = explain(key)
    assert "host" in text and (HOST_ONLY.get(key) or HOST_IO.get(key) or "hand-written") in text or "hand-written" in text


@pytest.mark.parametrize("name", sorted(_hostfast.FAST))
def test_host_fast_paths_are_named(name):
    assert "host fast path" in explain(_short(name))


def test_unknown_name_says_so():
    assert "NumPy has no such name" in explain("no_such_function")


def test_dump_covers_every_routed_callable():
    dump = explain_all()
    assert dump.count("\n\nxpshim.") > 500
    assert "xpshim.linalg.norm\n" in dump and "xpshim.fft.rfft2\n" in dump


def test_command_line():
    r = subprocess.run([sys.executable, "-m", "xpshim", "explain", "np.linalg.norm"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("xpshim.linalg.norm") and "CuPy function" in r.stdout


def test_plain_calls_are_told_for_the_names_that_have_them():
    """A name that writes into its argument has no plain call (``Route.plain``); one that reads
    and answers has."""
    from xpshim._registry import WRITES_INTO

    assert "a plain call" in explain("sum") and "a plain call" in explain("concatenate")
    writers = sorted(n for n in WRITES_INTO if hasattr(numpy, n) and callable(getattr(numpy, n)))
    assert writers
    told = [n for n in writers if "a plain call" in explain(n)]
    assert not told, told
