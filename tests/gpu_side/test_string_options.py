"""String options that NumPy checks (``side``, ``mode``, ``kind``, ``order``, ``casting``, ``method``,
``norm``, ...): a routed function given a value NumPy refuses raises NumPy's error on the GPU side
too, and one NumPy reads answers as NumPy's. Some of CuPy's functions read an option without
checking it, a value they do not know taken as the default (``cupy.searchsorted``'s side: anything
but "right" is "left"): a misspelt option would answer where NumPy raises.

Generated from the namespace: every routed function, every parameter of NumPy's signature whose
default is a string (or ``norm``'s None), a call NumPy answers with the default, then the same call
with each of a few values NumPy may refuse or read otherwise: a misspelling, the default in
other case, a number, bytes.
"""

import numpy

import xpshim
from arguments import BASES, differences, ndarray_methods, outcome, required, routed_calls

# values at each option: NumPy refuses most of them for most options (where it reads one, as
# "F" for order, xpshim must read it the same)
ODD = ["bogus", "", 0, 1, 2, b"bogus", None]
NONE_OPTIONS = {"norm", "kind", "bitorder"}  # (options whose default is None: NumPy's own choice)


def _options(params):
    return [p for p in params if (type(p.default) is str and p.kind is not p.VAR_KEYWORD)
            or (p.name in NONE_OPTIONS and p.default is None)]


def _odd_values(default):
    return ODD + ([default.upper(), default[:-1], default.encode()] if default else [])


def test_odd_string_options_answer_as_numpy(gpu):
    differ, n = [], 0
    for call in routed_calls(lambda params: bool(_options(params))):
        for p in _options(call[4]):
            d, k = differences([call], [(p.name, v) for v in _odd_values(p.default)])
            differ += d
            n += k
    assert n > 100, n  # (generated from the namespace: not vacuous)
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:40])


def _method_option_calls():
    """(method name, the array, the arguments after it, option name, its default) of every ndarray
    method whose NumPy function takes such an option."""
    for name, params in ndarray_methods(skip=("put", "fill", "resize", "setfield", "itemset")):
        for first, rest in BASES:
            args = [rest.copy() for _ in required(params)]
            if outcome(lambda *a, **k: getattr(first.copy(), name)(*a, **k), args, {})[0] == "answer":
                break
        else:
            continue
        for p in _options(params):
            yield name, first, args, p.name, p.default


def test_odd_string_options_of_methods_answer_as_numpy(gpu):
    differ, n = [], 0
    for name, first, args, opt, default in _method_option_calls():
        for v in _odd_values(default):
            want = outcome(lambda *a, **k: getattr(first.copy(), name)(*a, **k), [a.copy() for a in args], {opt: v})
            got = outcome(lambda *a, **k: getattr(xpshim.asarray(first), name)(*a, **k),
                           [xpshim.asarray(a) for a in args], {opt: v})
            n += 1
            if got != want:
                differ.append(f"x.{name}(..., {opt}={v!r}): {got} != {want}"[:300])
    assert n > 50, n
    assert not differ, f"{len(differ)} of {n} calls answer otherwise than NumPy:\n" + "\n".join(differ[:40])
