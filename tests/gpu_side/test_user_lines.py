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
from xpshim import _callsite, _config, _placement, _transfer

PADDING = 1500  # lines before the reads: a frame's own line lookup reads its line table that far
ROUNDS = 4


def _script(tmp_path):
    """A long script whose reads are marked ``# <name>`` (and the line that makes an array
    ``# line_...``); returns its path and {name: line}."""
    body = ["import xpshim as np"]
    body += [f"z{i} = {i}" for i in range(PADDING)]
    body += [
        "def made():",
        "    return BIRTH_LINE()  # line_made",
        "def f(x):",
        "    a = float(x.sum())  # f_sum",
        "    b = float(x.max())  # f_max",
        "    return a + b",
        "x = np.arange(10.0)",
        f"for i in range({ROUNDS}):",
        "    v = float(x.sum())  # m_sum",
        "    w = f(x)",
        "    u = float(x.min())  # m_min",
        "    made_at = made()  # line_caller",
    ]
    path = tmp_path / "long_script.py"
    path.write_text("\n".join(body) + "\n")
    marks = {line.split("# ")[1]: n for n, line in enumerate(body, 1) if "# " in line}
    return str(path), marks


def _run(path):
    return runpy.run_path(path, {"BIRTH_LINE": _placement.birth_line}, run_name="__main__")


def _reads(marks):
    return {k: n for k, n in marks.items() if not k.startswith("line_")}


def test_value_reads_are_counted_at_their_own_lines(gpu, tmp_path):
    path, marks = _script(tmp_path)
    xpshim.reset_stats()
    _run(path)
    sites = xpshim.stats()["transfers"]["values_read"]["sites"]
    want = {f"{path}:{n} (float())": ROUNDS for n in _reads(marks).values()}
    assert sites == want


def test_an_arrays_line_and_its_callers(tmp_path):
    """Auto mode's line of a new array: the user's line making it and the line that called that
    function, from the line tables after the first round."""
    path, marks = _script(tmp_path)
    g = _run(path)
    k, line, caller, caller_line = g["made_at"]
    assert (k.co_filename, line, caller.co_filename, caller_line) == (path, marks["line_made"], path, marks["line_caller"])
    assert k.code is g["made"].__code__ and caller.lines  # (the module's record kept its lines)


def test_code_compiled_at_run_time_leaves_no_record():
    """Code made again and again (``exec`` of generated code) gets its line each time, and its
    record goes with it."""
    before = len(_callsite.codes)
    g = {"site": _transfer._site}
    for i in range(200):
        exec(compile("\n" * (i % 7) + "s = site(1, 'x')", "cell.py", "exec"), g)
        assert g["s"] == ("cell.py", 1 + i % 7, "x")
    assert len(_callsite.codes) <= before + 2


def test_warnings_name_their_own_lines(gpu, tmp_path, monkeypatch):
    path, marks = _script(tmp_path)
    monkeypatch.setattr(_config, "transfer_policy", "warn")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        _run(path)
    lines = sorted((w.filename, w.lineno) for w in got if issubclass(w.category, xpshim.TransferWarning))
    assert lines == sorted((path, n) for n in _reads(marks).values() for _ in range(ROUNDS))


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
