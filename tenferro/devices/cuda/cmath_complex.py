"""Complex numbers for the CUDA driver's math prelude (:mod:`.cmath`): the ``c64`` and
``c128`` types, their arithmetic and their functions, as CUDA C++ (NVRTC and the host
shim's compiler alike; nothing here is ``#include``d).

Arithmetic is NumPy's: Smith's division, the product with one FMA a part (NumPy's SIMD
loops; ``power``'s repeated products use the plain product of its scalar loop),
``reciprocal``, ``sign`` (z/|z|), lexicographic order.  The transcendental functions
follow C99 Annex G and glibc (NumPy calls glibc's on Linux): values on the branch cuts
keep the sign of a zero imaginary part, infinities and NaNs give Annex G's values (signs
glibc's where the standard leaves them open).  They compute in double; complex64 rounds
the double result.  ``exp``/``sinh``/``cosh`` scale past exp's overflow, ``log`` sums
x^2 + y^2 - 1 in double-double near |z| = 1, and the inverse functions are Kahan's
("Branch cuts for complex elementary functions", 1987), with log(2z) beyond |z| = 1e150.
``expm1`` and ``log1p`` repeat NumPy's own formulas in the input's precision (their
results near 0 are NumPy's, inaccurate ones included), and ``exp2`` scales by ln 2 in the
input's precision before its ``exp``, as NumPy; ``power`` is NumPy's (1 for a zero
exponent, 0 or NaN for a zero base, repeated products for integer exponents below 100,
else exp(y log x) with C99's product).
"""

COMPLEX = r"""
// ---- complex numbers (tenferro/devices/cuda/cmath_complex.py) ---------------------------
template <class T> struct tf_complex { T re, im; };
typedef tf_complex<float> c64;
typedef tf_complex<double> c128;
template <class T> __device__ __forceinline__ tf_complex<T> tf_cmk(T re, T im) {
    tf_complex<T> z; z.re = re; z.im = im; return z;
}
template <class T> __device__ __forceinline__ tf_complex<T> operator+(tf_complex<T> a, tf_complex<T> b) {
    return tf_cmk(a.re + b.re, a.im + b.im);
}
template <class T> __device__ __forceinline__ tf_complex<T> operator-(tf_complex<T> a, tf_complex<T> b) {
    return tf_cmk(a.re - b.re, a.im - b.im);
}
template <class T> __device__ __forceinline__ tf_complex<T> operator-(tf_complex<T> a) {
    return tf_cmk(-a.re, -a.im);
}
template <class T> __device__ __forceinline__ tf_complex<T> operator*(tf_complex<T> a, tf_complex<T> b) {
    using tfm::mul_rn;   // as NumPy's SIMD loops (FMA3, AVX-512, NEON): one FMA a part
    return tf_cmk(tfm::fma(a.re, b.re, -mul_rn(a.im, b.im)), tfm::fma(a.re, b.im, mul_rn(a.im, b.re)));
}
template <class T> __device__ __forceinline__ tf_complex<T> operator/(tf_complex<T> a, tf_complex<T> b) {
    using tfm::mul_rn;   // Smith's method, as NumPy
    const T abr = tfm::fabs(b.re), abi = tfm::fabs(b.im);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) return tf_cmk(a.re / abr, a.im / abr);
        const T rat = b.im / b.re, scl = T(1) / (b.re + mul_rn(b.im, rat));
        return tf_cmk(mul_rn(a.re + mul_rn(a.im, rat), scl), mul_rn(a.im - mul_rn(a.re, rat), scl));
    }
    const T rat = b.re / b.im, scl = T(1) / (b.im + mul_rn(b.re, rat));
    return tf_cmk(mul_rn(mul_rn(a.re, rat) + a.im, scl), mul_rn(mul_rn(a.im, rat) - a.re, scl));
}
template <class T> __device__ __forceinline__ bool operator==(tf_complex<T> a, tf_complex<T> b) {
    return a.re == b.re && a.im == b.im;
}
template <class T> __device__ __forceinline__ bool operator!=(tf_complex<T> a, tf_complex<T> b) {
    return a.re != b.re || a.im != b.im;
}

namespace tfm {
template <class T> __device__ __forceinline__ tf_complex<T> cmk(T re, T im) { return tf_cmk(re, im); }
template <class T, class U> __device__ __forceinline__ tf_complex<T> ccast(tf_complex<U> z) {
    return cmk((T)z.re, (T)z.im);
}
template <class T> __device__ __forceinline__ bool cnz(tf_complex<T> z) { return z.re != 0 || z.im != 0; }
template <class T> __device__ __forceinline__ bool cnan(tf_complex<T> z) { return z.re != z.re || z.im != z.im; }
// NumPy's lexicographic order (a NaN part makes every comparison false)
template <class T> __device__ __forceinline__ bool clt(tf_complex<T> a, tf_complex<T> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <class T> __device__ __forceinline__ bool cle(tf_complex<T> a, tf_complex<T> b) {
    return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
template <class T> __device__ __forceinline__ tf_complex<T> cmax(tf_complex<T> a, tf_complex<T> b) {
    return (cnan(a) || cle(b, a)) ? a : b;
}
template <class T> __device__ __forceinline__ tf_complex<T> cmin(tf_complex<T> a, tf_complex<T> b) {
    return (cnan(a) || cle(a, b)) ? a : b;
}
template <class T> __device__ __forceinline__ tf_complex<T> cfmax(tf_complex<T> a, tf_complex<T> b) {
    return (cnan(b) || cle(b, a)) ? a : b;
}
template <class T> __device__ __forceinline__ tf_complex<T> cfmin(tf_complex<T> a, tf_complex<T> b) {
    return (cnan(b) || cle(a, b)) ? a : b;
}
// NumPy's clip: an order that ignores NaNs but for x's and max(x, lo)'s (clip.cpp)
template <class T> __device__ __forceinline__ bool clt_plain(tf_complex<T> a, tf_complex<T> b) {
    return a.re == b.re ? a.im < b.im : a.re < b.re;
}
template <class T> __device__ __forceinline__ tf_complex<T> cclip(tf_complex<T> x, tf_complex<T> lo, tf_complex<T> hi) {
    const tf_complex<T> t = (cnan(x) || clt_plain(lo, x)) ? x : lo;
    return (cnan(t) || clt_plain(t, hi)) ? t : hi;
}
template <class T> __device__ __forceinline__ T cabs(tf_complex<T> z) { return hypot(z.re, z.im); }
template <class T> __device__ __forceinline__ tf_complex<T> csquare(tf_complex<T> z) { return z * z; }
template <class T> __device__ __forceinline__ tf_complex<T> creciprocal(tf_complex<T> z) {
    if (fabs(z.im) <= fabs(z.re)) {
        const T r = z.im / z.re, d = z.re + mul_rn(z.im, r);
        return cmk(T(1) / d, -r / d);
    }
    const T r = z.re / z.im, d = mul_rn(z.re, r) + z.im;
    return cmk(r / d, T(-1) / d);
}
template <class T> __device__ __forceinline__ tf_complex<T> csign(tf_complex<T> z) {   // NumPy 2
    const T a = hypot(z.re, z.im);
    if (a != a) return cmk(nan<T>(), nan<T>());
    if (is_inf(a)) {
        if (is_inf(z.re)) return is_inf(z.im) ? cmk(nan<T>(), nan<T>()) : cmk(z.re > 0 ? T(1) : T(-1), T(0));
        return cmk(T(0), z.im > 0 ? T(1) : T(-1));
    }
    if (a == 0) return cmk(T(0), T(0));
    return cmk(z.re / a, z.im / a);
}
// ---- transcendental functions, in double (complex64 rounds the double result) ---------
__device__ __forceinline__ double two_sum(double a, double b, double* e) {
    const double s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}
// log(hypot(a, b)) for a >= b >= 0 finite: a^2 + b^2 - 1 in double-double near 1
__device__ __forceinline__ double log_hypot(double a, double b) {
    const double h = hypot(a, b);
    if (h > 0.7 && h < 1.4) {
        const double p = a * a, q = b * b, ep = fma(a, a, -p), eq = fma(b, b, -q);
        double e1, e2;
        const double s = two_sum(two_sum(p, -1.0, &e1), q, &e2);
        return 0.5 * log1p(s + (e1 + e2 + ep + eq));
    }
    if (a > 1e300) return log(hypot(0.5 * a, 0.5 * b)) + 0.6931471805599453;
    if (a < 1e-300) return log(hypot(a * 0x1p600, b * 0x1p600)) - 415.88830833596717;
    return log(h);
}
__device__ __forceinline__ double log_abs(c128 z) {     // Re clog: +inf if a part is
    const double a = fabs(z.re), b = fabs(z.im);
    if (is_inf(a) || is_inf(b)) return inf<double>();
    if (a != a || b != b) return a + b;
    return a >= b ? log_hypot(a, b) : log_hypot(b, a);
}
__device__ __forceinline__ c128 clog(c128 z) { return cmk(log_abs(z), atan2(z.im, z.re)); }
__device__ __forceinline__ c128 cexp(c128 z) {
    const double x = z.re, y = z.im;
    if (y == 0) return cmk(exp(x), y);
    if (is_inf(x) && !is_finite(y)) return x < 0 ? cmk(0.0, copysign(0.0, y)) : cmk(x, y - y);
    const double c = cos(y), s = sin(y);
    if (x > 700) { const double h = exp(0.5 * x); return cmk(c * h * h, s * h * h); }
    const double e = exp(x);
    return cmk(e * c, e * s);
}
__device__ __forceinline__ c128 csqrt(c128 z) {
    const double x = z.re, y = z.im;
    if (is_inf(y)) return cmk(inf<double>(), y);
    if (x != x) return cmk(x, x);
    if (is_inf(x)) {
        if (x > 0) return cmk(x, y != y ? y : copysign(0.0, y));
        return cmk(y != y ? y : 0.0, copysign(inf<double>(), y));
    }
    if (y != y) return cmk(y, y);
    if (x == 0 && y == 0) return cmk(0.0, y);
    double a = fabs(x), b = fabs(y), k = 1;
    if (a > 1e300 || b > 1e300) { a *= 0.25; b *= 0.25; k = 2; }
    else if (a < 1e-300 && b < 1e-300) { a *= 0x1p600; b *= 0x1p600; k = 0x1p-300; }
    const double t = sqrt(0.5 * (a + hypot(a, b))), v = b / (2 * t);
    return x >= 0 ? cmk(k * t, copysign(k * v, y)) : cmk(k * v, copysign(k * t, y));
}
// asinh(z) ~ log(2z) for |z| > 1e150 (and the Annex G values at infinities)
__device__ __forceinline__ c128 casinh_big(c128 z) {
    const double l = log_abs(z) + 0.6931471805599453;
    return cmk(copysign(l, z.re), z.im == 0 ? z.im : copysign(atan2(fabs(z.im), fabs(z.re)), z.im));
}
__device__ __forceinline__ bool big(c128 z) { return !(fabs(z.re) <= 1e150 && fabs(z.im) <= 1e150); }
// Kahan, "Branch cuts for complex elementary functions" (1987)
__device__ __forceinline__ c128 casin(c128 z) {
    if (big(z)) { const c128 w = casinh_big(cmk(-z.im, z.re)); return cmk(w.im, -w.re); }
    const c128 s1 = csqrt(cmk(1 - z.re, -z.im)), s2 = csqrt(cmk(1 + z.re, z.im));
    return cmk(atan2(z.re, s1.re * s2.re - s1.im * s2.im), asinh(s1.re * s2.im - s1.im * s2.re));
}
__device__ __forceinline__ c128 cacos(c128 z) {
    if (z.re == 0 && z.im != z.im) return cmk(1.5707963267948966, z.im);
    if (big(z)) return cmk(atan2(fabs(z.im), z.re), copysign(log_abs(z) + 0.6931471805599453, -z.im));
    const c128 s1 = csqrt(cmk(1 - z.re, -z.im)), s2 = csqrt(cmk(1 + z.re, z.im));
    return cmk(2 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re));
}
__device__ __forceinline__ c128 cacosh(c128 z) {
    if (z.re == 0 && z.im != z.im) return cmk(z.im, 1.5707963267948966);
    if (big(z)) return cmk(log_abs(z) + 0.6931471805599453, atan2(z.im, z.re));
    const c128 s1 = csqrt(cmk(z.re - 1, z.im)), s2 = csqrt(cmk(z.re + 1, z.im));
    return cmk(asinh(s1.re * s2.re + s1.im * s2.im), 2 * atan2(s1.im, s2.re));
}
__device__ __forceinline__ c128 casinh(c128 z) {
    const c128 w = casin(cmk(-z.im, z.re));
    return cmk(w.im, -w.re);
}
__device__ __forceinline__ c128 catanh(c128 z) {
    const double theta = 3.3519519824856493e+153, rho = 2.9833362924800834e-154;
    if (z.im != z.im)
        return z.re == 0 || is_inf(z.re) ? cmk(copysign(0.0, z.re), z.im) : cmk(z.im, z.im);
    if (z.re != z.re)
        return is_inf(z.im) ? cmk(copysign(0.0, z.re), copysign(1.5707963267948966, z.im)) : cmk(z.re, z.re);
    const double beta = copysign(1.0, z.re), x = beta * z.re, y = -beta * z.im;
    double xi, eta;
    if (x > theta || fabs(y) > theta) {
        eta = copysign(1.5707963267948966, y);
        if (is_inf(x) || is_inf(y)) xi = 0;
        else if (x >= fabs(y)) { const double r = y / x; xi = 1 / (x + y * r); }
        else { const double r = x / y; xi = r / (x * r + y); }
    } else if (x == 1 && y == 0) {
        xi = inf<double>();
        eta = y;
    } else {   // (Kahan's separate x == 1 formula loses digits: this one holds there too)
        const double t = fabs(y) + rho;
        xi = log1p(4 * x / ((1 - x) * (1 - x) + t * t)) / 4;
        eta = atan2(2 * y, (1 - x) * (1 + x) - t * t) / 2;
    }
    return cmk(beta * xi, -beta * eta);
}
__device__ __forceinline__ c128 catan(c128 z) {
    if (is_inf(z.re) && z.im != z.im) return cmk(copysign(1.5707963267948966, z.re), 0.0);   // glibc's
    const c128 w = catanh(cmk(-z.im, z.re));
    return cmk(w.im, -w.re);
}
__device__ __forceinline__ c128 csinh(c128 z) {
    const double x = z.re, y = z.im;
    if (y == 0) return cmk(sinh(x), y);
    if (!is_finite(y)) return cmk(x == 0 ? x : (is_inf(x) ? fabs(x) : y - y), y - y);
    const double c = cos(y), s = sin(y);
    if (fabs(x) > 700) {
        const double h = exp(0.5 * fabs(x)), hh = 0.5 * h;
        return cmk(copysign(hh, x) * c * h, hh * s * h);
    }
    return cmk(sinh(x) * c, cosh(x) * s);
}
__device__ __forceinline__ c128 ccosh(c128 z) {
    const double x = z.re, y = z.im;
    if (y == 0) return cmk(cosh(x), x != x ? y : copysign(1.0, x) * y);
    if (!is_finite(y)) return x == 0 ? cmk(y - y, 0.0) : cmk(is_inf(x) ? fabs(x) : y - y, y - y);
    const double c = cos(y), s = sin(y);
    if (fabs(x) > 700) {
        const double h = exp(0.5 * fabs(x)), hh = 0.5 * h;
        return cmk(hh * c * h, copysign(hh, x) * s * h);
    }
    return cmk(cosh(x) * c, sinh(x) * s);
}
__device__ __forceinline__ c128 ctanh(c128 z) {
    const double x = z.re, y = z.im;
    if (y == 0) return cmk(tanh(x), y);
    if (is_inf(x)) return cmk(copysign(1.0, x), copysign(0.0, is_finite(y) ? sin(y) * cos(y) : y));
    if (!is_finite(y)) return cmk(x == 0 ? x : y - y, y - y);
    if (fabs(x) > 22) return cmk(copysign(1.0, x), 4 * sin(y) * cos(y) * exp(-2 * fabs(x)));
    const double t = tan(y), b = 1 + t * t, s = sinh(x), r = sqrt(1 + s * s), d = 1 + b * s * s;
    return cmk(b * r * s / d, t / d);
}
__device__ __forceinline__ c128 csin(c128 z) {
    if (is_inf(z.im) && !is_finite(z.re)) return cmk(z.re - z.re, fabs(z.im));   // as glibc
    const c128 w = csinh(cmk(-z.im, z.re)); return cmk(w.im, -w.re); }
__device__ __forceinline__ c128 ccos(c128 z) { return ccosh(cmk(-z.im, z.re)); }
__device__ __forceinline__ c128 ctan(c128 z) { const c128 w = ctanh(cmk(-z.im, z.re)); return cmk(w.im, -w.re); }
__device__ __forceinline__ c128 clog2(c128 z) {
    const c128 l = clog(z);
    return cmk(l.re * 1.4426950408889634, l.im * 1.4426950408889634);
}
__device__ __forceinline__ c128 clog10(c128 z) {
    const c128 l = clog(z);
    return cmk(l.re * 0.4342944819032518, l.im * 0.4342944819032518);
}
__device__ __forceinline__ c128 csigmoid(c128 z) { return cmk(1.0, 0.0) / (cmk(1.0, 0.0) + cexp(-z)); }
__device__ __forceinline__ c128 crsqrt(c128 z) { return cmk(1.0, 0.0) / csqrt(z); }
// complex64: the double result, rounded
#define TF_VIA_DOUBLE(F) __device__ __forceinline__ c64 F(c64 z) { return ccast<float>(F(ccast<double>(z))); }
TF_VIA_DOUBLE(clog) TF_VIA_DOUBLE(cexp) TF_VIA_DOUBLE(csqrt) TF_VIA_DOUBLE(casin)
TF_VIA_DOUBLE(cacos) TF_VIA_DOUBLE(cacosh) TF_VIA_DOUBLE(casinh) TF_VIA_DOUBLE(catanh)
TF_VIA_DOUBLE(catan) TF_VIA_DOUBLE(csinh) TF_VIA_DOUBLE(ccosh) TF_VIA_DOUBLE(ctanh)
TF_VIA_DOUBLE(csin) TF_VIA_DOUBLE(ccos) TF_VIA_DOUBLE(ctan)
TF_VIA_DOUBLE(clog2) TF_VIA_DOUBLE(clog10) TF_VIA_DOUBLE(csigmoid) TF_VIA_DOUBLE(crsqrt)
#undef TF_VIA_DOUBLE
// NumPy's own formulas, in the input's precision (NumPy's results near 0 included)
template <class T> __device__ __forceinline__ tf_complex<T> cexp2(tf_complex<T> z) {
    const T l = T(0.6931471805599453);
    return cexp(cmk(z.re * l, z.im * l));
}
template <class T> __device__ __forceinline__ tf_complex<T> cexpm1(tf_complex<T> z) {
    const T a = sin(z.im / 2);
    return cmk(expm1(z.re) * cos(z.im) - 2 * a * a, exp(z.re) * sin(z.im));
}
template <class T> __device__ __forceinline__ tf_complex<T> clog1p(tf_complex<T> z) {
    return cmk(log(hypot(z.re + 1, z.im)), atan2(z.im, z.re + 1));
}
// the textbook product without FMA (NumPy's scalar loops, which its power uses)
template <class T> __device__ __forceinline__ tf_complex<T> cmul_plain(tf_complex<T> a, tf_complex<T> b) {
    return cmk(mul_rn(a.re, b.re) - mul_rn(a.im, b.im), mul_rn(a.re, b.im) + mul_rn(a.im, b.re));
}
// C99's product (Annex G.5.1): infinities that the plain product makes NaN + iNaN recovered
__device__ __forceinline__ c128 cmul_inf(c128 z, c128 w) {
    double a = z.re, b = z.im, c = w.re, d = w.im;
    const double ac = a * c, bd = b * d, ad = a * d, bc = b * c, x = ac - bd, y = ad + bc;
    if (!(x != x && y != y)) return cmk(x, y);
    bool recalc = false;
    if (is_inf(a) || is_inf(b)) {       // "box" the infinity, NaNs in the other factor to 0
        a = copysign(is_inf(a) ? 1.0 : 0.0, a); b = copysign(is_inf(b) ? 1.0 : 0.0, b);
        if (c != c) c = copysign(0.0, c);
        if (d != d) d = copysign(0.0, d);
        recalc = true;
    }
    if (is_inf(c) || is_inf(d)) {
        c = copysign(is_inf(c) ? 1.0 : 0.0, c); d = copysign(is_inf(d) ? 1.0 : 0.0, d);
        if (a != a) a = copysign(0.0, a);
        if (b != b) b = copysign(0.0, b);
        recalc = true;
    }
    if (!recalc && (is_inf(ac) || is_inf(bd) || is_inf(ad) || is_inf(bc))) {
        if (a != a) a = copysign(0.0, a);
        if (b != b) b = copysign(0.0, b);
        if (c != c) c = copysign(0.0, c);
        if (d != d) d = copysign(0.0, d);
        recalc = true;
    }
    if (!recalc) return cmk(x, y);
    return cmk(inf<double>() * (a * c - b * d), inf<double>() * (a * d + b * c));
}
// NumPy's power: 1 for a zero exponent, small integer exponents by repeated products
template <class T> __device__ __forceinline__ tf_complex<T> cpow(tf_complex<T> a, tf_complex<T> b) {
    if (b.re == 0 && b.im == 0) return cmk(T(1), T(0));
    if (a.re == 0 && a.im == 0) return b.re > 0 ? cmk(T(0), T(0)) : cmk(nan<T>(), nan<T>());
    if (b.im == 0 && b.re > -100 && b.re < 100 && (T)(int)b.re == b.re) {
        int n = (int)b.re;
        if (n == 1) return a;
        if (n == 2) return cmul_plain(a, a);
        if (n == 3) return cmul_plain(a, cmul_plain(a, a));
        tf_complex<T> p = a, r = cmk(T(1), T(0));
        int mask = 1;
        if (n < 0) n = -n;
        while (1) {
            if (n & mask) r = cmul_plain(r, p);
            mask <<= 1;
            if (n < mask) break;
            p = cmul_plain(p, p);
        }
        return b.re < 0 ? cmk(T(1), T(0)) / r : r;
    }
    return ccast<T>(cexp(cmul_inf(ccast<double>(b), clog(ccast<double>(a)))));
}
}  // namespace tfm

"""
