"""Counted reads and warnings name the user's own line, however long the script and however often
the line runs: the line is found through one record per code object (``_callsite.Code``, hashed
by identity) and its table of instruction offsets, so these tests run the same lines many times,
deep into a long module, at module level and in a function, and compare every reported line with
the line the source text puts each read on."""

import runpy
import sys
import warnings

import pytest

import xpshim
from xpshim import _callsite, _config, _transfer

PADDING = 1500  # lines before the reads: a frame's own line lookup reads its line table that far
ROUNDS = 4


def _script(tmp_path):
    """A long script whose reads are marked ``# <name>``; returns its path and {name: line}."""
    body = ["import xpshim as np"]
    body += [f"z{i} = {i}" for i in range(PADDING)]
    body += [
        "def f(x):",
        "    a = float(x.sum())  # f_sum",
        "    b = float(x.max())  # f_max",
        "    return a + b",
        "x = np.arange(10.0)",
        f"for i in range({ROUNDS}):",
        "    v = float(x.sum())  # m_sum",
        "    w = f(x)",
        "    u = float(x.min())  # m_min",
    ]
    path = tmp_path / "long_script.py"
    path.write_text("\n".join(body) + "\n")
    marks = {line.split("# ")[1]: n for n, line in enumerate(body, 1) if "# " in line}
    return str(path), marks


def test_value_reads_are_counted_at_their_own_lines(gpu, tmp_path):
    path, marks = _script(tmp_path)
    xpshim.reset_stats()
    runpy.run_path(path, run_name="__main__")
    sites = xpshim.stats()["transfers"]["values_read"]["sites"]
    want = {f"{path}:{n} (float())": ROUNDS for n in marks.values()}
    assert sites == want


def test_warnings_name_their_own_lines(gpu, tmp_path, monkeypatch):
    path, marks = _script(tmp_path)
    monkeypatch.setattr(_config, "transfer_policy", "warn")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        runpy.run_path(path, run_name="__main__")
    lines = sorted((w.filename, w.lineno) for w in got if issubclass(w.category, xpshim.TransferWarning))
    assert lines == sorted((path, n) for n in marks.values() for _ in range(ROUNDS))


def test_one_record_per_code_object():
    code = test_one_record_per_code_object.__code__
    k = _callsite.key(code)
    assert _callsite.key(code) is k and k.code is code and not k.inside
    assert _callsite.key(_transfer._site.__code__).inside  # (xpshim's own frames are passed over)
    assert hash(k) == object.__hash__(k)  # (by identity: the code object itself is never hashed)


def _reader():
    f = sys._getframe(1)
    return _callsite.lineno(_callsite.key(f.f_code), f), f.f_lineno


def _two_reads():
    a = _reader()
    b = _reader()
    return a, b


def test_lineno_is_the_frames_own():
    for _ in range(3):  # (the second and third rounds read from the table)
        a, b = _two_reads()
        assert a[0] == a[1] and b[0] == b[1] and a[0] + 1 == b[0]
