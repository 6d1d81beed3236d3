"""Numba CUDA kernels for ufunc methods in NumPy's exact order of operations.

``ufunc.accumulate``/``reduce`` of a non-associative ufunc (subtract, divide,
power, arctan2, ...) is a left fold: its result depends on the order, so it is
computed in that order, one thread per lane (every other axis), walking the
axis. ``reduceat`` folds each segment the same way; ``at`` gets the updates sorted
by position (stably) and applies each position's run in order, one thread per
position, as NumPy's unbuffered ``at`` does.

The operation is one line of Python from ``OPS``, compiled by Numba as a
device function; a ufunc not in ``OPS`` has no kernel here.
"""

from . import cuda

nc = None  # numba.cuda, set on first use: kernels must reach it as a global (the simulator swaps it)

# ufunc name -> expression in a, b (Numba compiles it for the array's dtype).
OPS = {
    "add": "a + b", "subtract": "a - b", "multiply": "a * b",
    "true_divide": "a / b", "divide": "a / b",
    "maximum": "a if (a >= b or a != a) else b",  # NaN wins, as in NumPy
    "minimum": "a if (a <= b or a != a) else b",
    "fmax": "a if (a >= b or b != b) else b",  # NaN loses
    "fmin": "a if (a <= b or b != b) else b",
    "logical_and": "(a != 0) and (b != 0)", "logical_or": "(a != 0) or (b != 0)",
    "logical_xor": "(a != 0) != (b != 0)",
    "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a ^ b",
    "arctan2": "math.atan2(a, b)", "hypot": "math.hypot(a, b)",
    "copysign": "math.copysign(a, b)", "power": "a ** b", "float_power": "a ** b",
    "floor_divide": "a // b", "remainder": "a % b", "fmod": "math.fmod(a, b)",  # Python's rules are NumPy's
    "left_shift": "a << b", "right_shift": "a >> b",
    "logaddexp": "a + LN2 if a == b else max(a, b) + math.log1p(math.exp(-abs(a - b)))",
    "logaddexp2": "a + 1.0 if a == b else max(a, b) + math.log1p(2.0 ** (-abs(a - b))) / LN2",
    "heaviside": "a if a != a else (0.0 if a < 0 else (b if a == 0 else 1.0))",
    # comparisons fold booleans only (the gap implementation declines other dtypes)
    "equal": "a == b", "not_equal": "a != b", "less": "a < b", "less_equal": "a <= b",
    "greater": "a > b", "greater_equal": "a >= b",
}
COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"})
_compiled = {}


def _family(name):
    """(accumulate, reduce, reduceat, at) kernels for ufunc ``name``, compiled lazily."""
    fam = _compiled.get(name)
    if fam is not None:
        return fam
    global nc
    c = nc = cuda()
    env = {"math": __import__("math"), "LN2": 0.6931471805599453}
    exec(f"def op(a, b):\n    return {OPS[name]}\n", env)
    op = c.jit(device=True)(env["op"])

    @c.jit
    def accumulate(x, out, n, m):  # x, out: (n, m); lane j walks rows 0..n-1
        j = nc.grid(1)
        if j < m:
            acc = x[0, j]
            out[0, j] = acc
            for i in range(1, n):
                acc = op(acc, x[i, j])
                out[i, j] = acc

    @c.jit
    def reduce(x, out, n, m):  # x: (n, m), n >= 1; out: (m,)
        j = nc.grid(1)
        if j < m:
            acc = x[0, j]
            for i in range(1, n):
                acc = op(acc, x[i, j])
            out[j] = acc

    @c.jit
    def reduceat(x, idx, out, n, k, m):  # x: (n, m); idx: (k,); out: (k, m)
        t = nc.grid(1)
        if t < k * m:
            s, j = t // m, t % m
            lo = idx[s]
            hi = idx[s + 1] if s + 1 < k else n
            acc = x[lo, j]
            if lo < hi:
                for i in range(lo + 1, hi):
                    acc = op(acc, x[i, j])
            out[s, j] = acc

    @c.jit
    def at(a, pos, b, starts, k, n):  # pos sorted (stable), b in that order; run s: starts[s]..starts[s+1]
        s = nc.grid(1)
        if s < k:
            hi = starts[s + 1] if s + 1 < k else n
            q = pos[starts[s]]
            for i in range(starts[s], hi):
                a[q] = op(a[q], b[i])  # stored each step: a's dtype rounds each update, as NumPy's

    fam = _compiled[name] = (accumulate, reduce, reduceat, at)
    return fam


def kernels(name):
    """The kernel family for ``name``, or None if ``OPS`` has no line for it."""
    return _family(name) if name in OPS else None
