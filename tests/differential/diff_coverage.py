"""How many routed names the differential suite exercises, out of how many are routed.

    python tests/differential/diff_coverage.py          (add -v to list the names not yet exercised)
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(os.path.dirname(_HERE), "support"),
                os.path.join(os.path.dirname(_HERE), "gpu_side")]  # (test_random_stats' cases)

import numpy  # noqa: E402

import xpshim  # noqa: E402
from xpshim import _namespace  # noqa: E402
from xpshim._ufunc import ufunc  # noqa: E402
from xpshim._registry import ROUTED_MODULES  # noqa: E402

import diffcases  # noqa: E402
import test_differential  # noqa: E402
import test_random_stats  # noqa: E402


def routed_names():
    """Every name xpshim routes (a wrapper that can run on the GPU), as 'mod.name'."""
    out = set()
    for sub in ("",) + tuple(ROUTED_MODULES):
        mod = xpshim if not sub else _namespace.routed_module(sub)
        npmod = _namespace.numpy_module(sub)
        for name in _namespace.public_names(sub):
            obj = getattr(mod, name, None)
            if obj is None or obj is getattr(npmod, name, None) or isinstance(obj, type):
                continue
            if callable(obj) and (isinstance(obj, ufunc) or hasattr(obj, "__wrapped__")):
                out.add(f"{sub}.{name}" if sub else name)
    return out


def exercised():
    names = set(diffcases.UFUNCS) | set(diffcases.REDUCTIONS) | set(diffcases.FUNCS)
    names |= set(test_differential.UFUNC_METHOD_CASES)
    names |= {f"random.{n}" for n in (*test_random_stats.LEGACY, *test_random_stats.SHAPED, "bytes", "shuffle")}
    names |= set(test_differential.IO)
    return names


# Routed names whose results cannot be compared value for value with NumPy's, and where
# they are tested instead.
ELSEWHERE = {
    "lib.array_utils.byte_bounds": "device addresses: the span and the offsets of views are compared "
                                   "(tests/gpu_side/test_gaps.py)",
    "random.get_bit_generator": "NumPy's global bit generator, the same object on both sides",
    "random.set_bit_generator": "NumPy's global bit generator, the same object on both sides",
}


def main(argv):
    routed, done = routed_names(), exercised()
    hit = routed & done
    print(f"differential suite: {len(hit)} of {len(routed)} routed names exercised "
          f"({100 * len(hit) / len(routed):.1f}%); plus indexing, operators, ufunc methods and "
          f"{len(test_random_stats.GENERATOR)} Generator methods")
    rest = routed - done
    print(f"not compared by value ({len(rest & ELSEWHERE.keys())}): "
          + "; ".join(f"{n} ({ELSEWHERE[n]})" for n in sorted(rest & ELSEWHERE.keys())))
    if rest - ELSEWHERE.keys() or "-v" in argv:
        print("not yet exercised:", ", ".join(sorted(rest - ELSEWHERE.keys())) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
