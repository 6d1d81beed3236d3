"""NumPy's own random numbers, drawn on the GPU: ``Generator.random`` of PCG64, bit for bit.

Auto mode's generators are NumPy's (docs/placement.md, "Random numbers"), so a seeded program
prints NumPy's numbers whenever the GPU became ready. A large draw used to be made by NumPy on
the host and then copied to the GPU: a Monte-Carlo loop of large draws ran at about twice
NumPy's speed where the GPU's own generator ran hundreds of times faster, with other numbers.

NumPy's default bit generator (``default_rng``: PCG64, XSL-RR output) steps a 128-bit linear
congruential state, s' = a s + c (mod 2**128), and ``random()`` gives
``(out(s') >> 11) * 2**-53`` of each new state (numpy/random/src/pcg64/pcg64.h,
``pcg64_random_r``; numpy/random/src/distributions/distributions.c, ``next_double``). The
state k steps on is A s + c S, A = a**k and S = 1 + a + ... + a**(k - 1) (F. Brown, "Random
number generation with arbitrary strides", 1994; NumPy's ``pcg_advance_lcg_128``): one such map
per base-256 digit of k, from a table made once (``tables``). So each element of a draw is
computed by its own GPU thread from the state before the draw, and the host generator is then set to the state after it, its buffered
32-bit half (``has_uint32``) kept: the same numbers as NumPy's, and the generator where NumPy
would leave it. Anything else (other bit generators, float32, ``out=``) is NumPy's own draw.
"""

import math
import operator

import numpy

from . import _backend

MULT = 0x2360ED051FC65DA44385DF649FCCF645  # (PCG_DEFAULT_MULTIPLIER_128)
_MASK = (1 << 128) - 1
_U64 = (1 << 64) - 1

_PREAMBLE = r"""
struct xp_u128 { unsigned long long hi, lo; };
__device__ inline xp_u128 xp_u(unsigned long long hi, unsigned long long lo) {
    xp_u128 r; r.hi = hi; r.lo = lo; return r;
}
__device__ inline unsigned long long xp_mulhi(unsigned long long a, unsigned long long b) {
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
#endif
}
__device__ inline xp_u128 xp_mul(xp_u128 a, xp_u128 b) {
    return xp_u(xp_mulhi(a.lo, b.lo) + a.lo * b.hi + a.hi * b.lo, a.lo * b.lo);
}
__device__ inline xp_u128 xp_add(xp_u128 a, xp_u128 b) {
    unsigned long long lo = a.lo + b.lo;
    return xp_u(a.hi + b.hi + (lo < a.lo ? 1ULL : 0ULL), lo);
}
"""

# Element i: the state i + 1 steps after s (shi, slo) with increment c (chi, clo), its 64-bit
# XSL-RR output shifted right by 11 (the 53 bits of NumPy's double). k steps are one affine map
# s -> A s + c S per base-256 digit of k (``tbl``: A and S of d * 256**level steps, ``tables``):
# at most eight, three for a draw of 10**7, each two 128-bit products.
_OPERATION = r"""
unsigned long long k = (unsigned long long)i + 1ULL;
xp_u128 s = xp_u((unsigned long long)shi, (unsigned long long)slo);
xp_u128 c = xp_u((unsigned long long)chi, (unsigned long long)clo);
for (int level = 0; k; level++, k >>= 8) {
    const long long d = (long long)(k & 255ULL);
    if (d) {
        const long long o = (level * 256LL + d) * 4LL;
        xp_u128 a = xp_u((unsigned long long)tbl[o], (unsigned long long)tbl[o + 1]);
        xp_u128 m = xp_u((unsigned long long)tbl[o + 2], (unsigned long long)tbl[o + 3]);
        s = xp_add(xp_mul(a, s), xp_mul(c, m));
    }
}
unsigned long long x = s.hi ^ s.lo;
unsigned int r = (unsigned int)(s.hi >> 58);
z = ((x >> r) | (x << ((64U - r) & 63U))) >> 11;
"""


def tables():
    """For each base-256 digit d at each of the 8 levels, the map of k = d * 256**level steps,
    s -> A s + c S with A = a**k and S = 1 + a + ... + a**(k - 1): [level][d] -> (A, S), as the
    128-bit halves of each (hi, lo, hi, lo), a numpy uint64 array of 8 * 256 * 4."""
    out = numpy.zeros((8, 256, 4), numpy.uint64)
    step_a, step_s = MULT, 1  # (one digit's step at this level: 256**level steps of the generator)
    for level in range(8):
        a, m = 1, 0
        for d in range(256):
            out[level, d] = (a >> 64, a & _U64, m >> 64, m & _U64)
            a, m = a * step_a & _MASK, (m * step_a + step_s) & _MASK  # (one step more of this level)
        step_a, step_s = a, m  # (256 steps of this level: one of the next)
    return out.reshape(-1)


_kernels = {}  # backend module -> (its compiled kernel, the tables on its device); None: it did not build
failed = [None]  # why the kernel did not build, for ``python -m xpshim info``


def shape_of(size):
    """``size`` (an int or a tuple of ints) as a shape of Python ints, or None where NumPy's own
    reading is needed (its errors included)."""
    if isinstance(size, (int, numpy.integer)) and not isinstance(size, bool):
        size = (size,)
    elif not isinstance(size, tuple):
        return None
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        return None
    return shape if all(s >= 0 for s in shape) else None


def _kernel(xp):
    k = _kernels.get(xp, False)
    if k is False:
        k = _kernels[xp] = (xp.ElementwiseKernel("T shi, T slo, T chi, T clo, raw T tbl", "T z", _OPERATION,
                                                 "xpshim_pcg64_random", preamble=_PREAMBLE), xp.asarray(tables()))
    return k


def random(bit_generator, shape):
    """NumPy's ``Generator.random(shape)`` of ``bit_generator`` as a new array of the backend's
    (CuPy's) when it is PCG64; else None (nothing drawn, the generator untouched)."""
    if type(bit_generator) is not numpy.random.PCG64 or not all(shape):
        return None
    xp = _backend.xp
    k = _kernel(xp)
    if k is None:
        return None
    with bit_generator.lock:  # (NumPy's own draws hold it: a draw from another thread waits)
        st = bit_generator.state
        state, inc = st["state"]["state"], st["state"]["inc"]
        u = numpy.uint64
        try:
            z = xp.empty(shape, u)
            k[0](u(state >> 64), u(state & _U64), u(inc >> 64), u(inc & _U64), k[1], z)
        except MemoryError:  # (CuPy's OutOfMemoryError: NumPy's draw on the host, placed as any answer)
            return None
        except Exception as e:  # (the kernel did not build: NumPy's draw on the host, as before; info says why)
            _kernels[xp], failed[0] = None, f"{type(e).__name__}: {str(e)[:200]}"
            return None
        # (NumPy's own advance, which forgets a buffered 32-bit half that random() leaves alone)
        after = bit_generator.advance(math.prod(shape)).state
        after["has_uint32"], after["uinteger"] = st["has_uint32"], st["uinteger"]
        bit_generator.state = after
    r = z.astype(numpy.float64)
    r *= 2.0 ** -53  # ((x >> 11) * 2**-53: exact, as NumPy's next_double)
    return r
