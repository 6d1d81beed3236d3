// NumPy's own formulas for the ufunc loops whose CuPy versions give other results
// (npymath's npy_divmod and npy_logaddexp, the complex loops of NumPy's loops.c.src).
// One source for both sides: CuPy compiles it into elementwise kernels with FMA
// contraction off (NumPy's loops round every product), and the tests compile it with a
// host C++ compiler and compare it with NumPy itself.
//
// W is the type a loop computes in: float for float16 (as NumPy's half loops do),
// the part type for complex types, else the type itself.

template <typename T> struct xp_wide { typedef T type; };
template <> struct xp_wide<float16> { typedef float type; };
template <typename F> struct xp_wide<complex<F> > { typedef F type; };

// Python's divmod for floats: the quotient floored, the remainder with the divisor's sign.
template <typename F> __device__ F xp_divmod(F a, F b, F* modulus) {
    F mod = fmod(a, b);
    if (!b) {  // b == 0: fmod's NaN, and a / b
        *modulus = mod;
        return a / b;
    }
    F div = (a - mod) / b;  // very nearly an integer multiple of b
    if (mod) {
        if ((b < F(0)) != (mod < F(0))) {
            mod += b;
            div -= F(1);
        }
    } else {
        mod = copysign(F(0), b);
    }
    F floordiv;
    if (div) {
        floordiv = floor(div);
        if (div - floordiv > F(0.5)) floordiv += F(1);
    } else {
        floordiv = copysign(F(0), a / b);
    }
    *modulus = mod;
    return floordiv;
}

template <typename F> __device__ F xp_floor_divide(F a, F b) {
    if (!b) return a / b;
    F mod;
    return xp_divmod(a, b, &mod);
}

template <typename F> __device__ F xp_remainder(F a, F b) {
    if (!b) return fmod(a, b);
    F mod;
    xp_divmod(a, b, &mod);
    return mod;
}

template <typename F> __device__ F xp_logaddexp(F x, F y) {
    if (x == y) return x + F(0.693147180559945309417232121458176568);  // infinities of one sign too
    F t = x - y;
    if (t > 0) return x + log1p(exp(-t));
    if (t <= 0) return y + log1p(exp(t));
    return t;  // NaN
}

template <typename F> __device__ F xp_logaddexp2(F x, F y) {
    const F log2e = F(1.442695040888963407359924681001892137);
    if (x == y) return x + F(1);
    F t = x - y;
    if (t > 0) return x + log2e * log1p(exp2(-t));
    if (t <= 0) return y + log2e * log1p(exp2(t));
    return t;
}

// Complex division by scaling with the larger part of the divisor (Smith's method).
template <typename F> __device__ void xp_cdiv(F ar, F ai, F br, F bi, F* r, F* i) {
    F abr = fabs(br), abi = fabs(bi);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) {  // a complex infinity or NaN
            *r = ar / abr;
            *i = ai / abr;
        } else {
            F rat = bi / br;
            F scl = F(1) / (br + bi * rat);
            *r = (ar + ai * rat) * scl;
            *i = (ai - ar * rat) * scl;
        }
    } else {
        F rat = br / bi;
        F scl = F(1) / (bi + br * rat);
        *r = (ar * rat + ai) * scl;
        *i = (ai * rat - ar) * scl;
    }
}

template <typename F> __device__ void xp_creciprocal(F xr, F xi, F* r, F* i) {
    if (fabs(xi) <= fabs(xr)) {
        F q = xi / xr, d = xr + xi * q;
        *r = F(1) / d;
        *i = -q / d;
    } else {
        F q = xr / xi, d = xr * q + xi;
        *r = q / d;
        *i = F(-1) / d;
    }
}

// Lexicographic order with NaN parts, as NumPy's complex maximum/minimum/fmax/fmin.
template <typename F> __device__ bool xp_cge(F xr, F xi, F yr, F yi) {
    return (xr > yr && !isnan(xi) && !isnan(yi)) || (xr == yr && xi >= yi);
}
template <typename F> __device__ bool xp_cle(F xr, F xi, F yr, F yi) {
    return (xr < yr && !isnan(xi) && !isnan(yi)) || (xr == yr && xi <= yi);
}
// true: the result is the first argument
template <typename F> __device__ bool xp_cmaximum(F xr, F xi, F yr, F yi) {
    return isnan(xr) || isnan(xi) || xp_cge(xr, xi, yr, yi);
}
template <typename F> __device__ bool xp_cminimum(F xr, F xi, F yr, F yi) {
    return isnan(xr) || isnan(xi) || xp_cle(xr, xi, yr, yi);
}
template <typename F> __device__ bool xp_cfmax(F xr, F xi, F yr, F yi) {
    return isnan(yr) || isnan(yi) || xp_cge(xr, xi, yr, yi);
}
template <typename F> __device__ bool xp_cfmin(F xr, F xi, F yr, F yi) {
    return isnan(yr) || isnan(yi) || xp_cle(xr, xi, yr, yi);
}
