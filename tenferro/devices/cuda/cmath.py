"""The CUDA driver's math prelude: NumPy 2's elementwise semantics in CUDA C, for every
tenferro dtype.

:data:`PRELUDE` is CUDA C++ that NVRTC compiles (``-std=c++17``, no ``#include``) and
that the host compiler compiles after :data:`.shim.HEADER`, so the very functions a GPU
runs are tested against NumPy on a machine without one.  It defines

* ``c64`` / ``c128`` (``tf_complex<T>``: NumPy's bytes) with ``+ - * /`` (Smith's
  division, NumPy's), unary ``-``, ``==`` and ``!=``;
* one overload ``tf_<op>(T x)`` / ``tf_<op>(T x, T y)`` per op of the catalog
  (``UNARY``, ``COMPLEX_PARTS``, ``BINARY``) and input C type ``T`` the CPU driver has a
  loop for, returning the C type of :func:`OUT_DTYPE` (comparisons, ``isnan``: ``bool``;
  ``abs``/``real``/``imag``/``angle`` of complex: the real type);
* ``tf_convert<To, From>(x)``: NumPy's ``astype`` values for every pair of dtypes.

What follows NumPy where C or CUDA would not: integer arithmetic wraps (done in unsigned:
no signed-overflow UB); integer ``floor_divide``/``remainder`` by 0 give 0 and
``INT_MIN // -1`` wraps to ``INT_MIN``; shifts by a negative count or one past the width
give 0 (left) or the sign (right); integer ``power`` squares and wraps (a negative
exponent, which the host rejects beforehand, gives 0); float ``floor_divide``/
``remainder`` are NumPy's ``npy_divmod``; ``maximum``/``minimum`` propagate NaN,
``fmax``/``fmin`` ignore it, and complex ones order lexicographically as NumPy does;
float to int casts truncate and give ``INT_MIN``/``LLONG_MIN`` for NaN and out-of-range
values (x86-64's ``cvttsd2si``, hence NumPy's there; CUDA alone would saturate).
Complex products and quotients use ``__fmul_rn``/``__dmul_rn`` on the GPU so that no FMA
changes NumPy's roundings.  The complex transcendental functions follow C99 Annex G
(Kahan's formulas for the inverse functions: branch cuts and signed zeros as NumPy's libm);
complex64's are computed in double and rounded, except ``expm1``/``log1p``, which repeat
NumPy's own formulas in the input's precision.
"""
import numpy as np

from ... import _dtypes
from ..._catalog import BINARY, COMPLEX_PARTS, UNARY

CTYPE = {_dtypes.bool_: "bool", _dtypes.int32: "int", _dtypes.int64: "long long",
         _dtypes.float32: "float", _dtypes.float64: "double", _dtypes.complex64: "c64",
         _dtypes.complex128: "c128"}
_KIND = {d: {"b": "b", "i": "i", "f": "f", "c": "c"}[d.kind] for d in CTYPE}
_REAL = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}

_BASE = r"""
// ---- tenferro CUDA math prelude (tenferro/devices/cuda/cmath.py) -----------------------
template <class T> struct tf_complex { T re, im; };
typedef tf_complex<float> c64;
typedef tf_complex<double> c128;
namespace tfm {
#ifdef TF_HOST_SHIM
__device__ __forceinline__ float bits_f(int b) { float x; memcpy(&x, &b, 4); return x; }
__device__ __forceinline__ double bits_d(long long b) { double x; memcpy(&x, &b, 8); return x; }
__device__ __forceinline__ float mul_rn(float a, float b) { return a * b; }
__device__ __forceinline__ double mul_rn(double a, double b) { return a * b; }
#else
__device__ __forceinline__ float bits_f(int b) { return __int_as_float(b); }
__device__ __forceinline__ double bits_d(long long b) { return __longlong_as_double(b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
#endif
// the C math library, overloaded for float and double
#define TF_M1(F) __device__ __forceinline__ float F(float x) { return ::F##f(x); } \
    __device__ __forceinline__ double F(double x) { return ::F(x); }
#define TF_M2(F) __device__ __forceinline__ float F(float x, float y) { return ::F##f(x, y); } \
    __device__ __forceinline__ double F(double x, double y) { return ::F(x, y); }
TF_M1(sin) TF_M1(cos) TF_M1(tan) TF_M1(asin) TF_M1(acos) TF_M1(atan) TF_M1(sinh) TF_M1(cosh)
TF_M1(tanh) TF_M1(asinh) TF_M1(acosh) TF_M1(atanh) TF_M1(exp) TF_M1(exp2) TF_M1(expm1)
TF_M1(log) TF_M1(log2) TF_M1(log10) TF_M1(log1p) TF_M1(sqrt) TF_M1(erf) TF_M1(floor)
TF_M1(ceil) TF_M1(trunc) TF_M1(rint) TF_M1(fabs)
TF_M2(atan2) TF_M2(hypot) TF_M2(pow) TF_M2(fmod) TF_M2(copysign) TF_M2(fmax) TF_M2(fmin)
#undef TF_M1
#undef TF_M2
__device__ __forceinline__ float fma(float x, float y, float z) { return ::fmaf(x, y, z); }
__device__ __forceinline__ double fma(double x, double y, double z) { return ::fma(x, y, z); }
template <class T> __device__ __forceinline__ T inf();
template <> __device__ __forceinline__ float inf<float>() { return bits_f(0x7f800000); }
template <> __device__ __forceinline__ double inf<double>() { return bits_d(0x7ff0000000000000LL); }
template <class T> __device__ __forceinline__ T nan() { return inf<T>() - inf<T>(); }
template <class T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }
template <class T> __device__ __forceinline__ bool is_inf(T x) { return fabs(x) == inf<T>(); }
template <class T> __device__ __forceinline__ bool is_finite(T x) { return fabs(x) < inf<T>(); }

// ---- integers: two's complement wrap-around in unsigned arithmetic ----------------------
template <class T> struct ulim;
template <> struct ulim<int> { typedef unsigned U; enum { bits = 32 }; };
template <> struct ulim<long long> { typedef unsigned long long U; enum { bits = 64 }; };
template <class T> __device__ __forceinline__ typename ulim<T>::U u(T x) { return (typename ulim<T>::U)x; }
template <class T> __device__ __forceinline__ T imin() { return (T)(u(T(1)) << (ulim<T>::bits - 1)); }
template <class T> __device__ __forceinline__ T ineg(T x) { return (T)(0 - u(x)); }
template <class T> __device__ __forceinline__ T iadd(T x, T y) { return (T)(u(x) + u(y)); }
template <class T> __device__ __forceinline__ T isub(T x, T y) { return (T)(u(x) - u(y)); }
template <class T> __device__ __forceinline__ T imul(T x, T y) { return (T)(u(x) * u(y)); }
template <class T> __device__ __forceinline__ T iabs(T x) { return x < 0 ? ineg(x) : x; }
template <class T> __device__ __forceinline__ T ifloordiv(T x, T y) {
    if (y == 0) return 0;
    if (y == -1) return ineg(x);                    // INT_MIN // -1 wraps
    T q = x / y;
    return (((x > 0) != (y > 0)) && q * y != x) ? q - 1 : q;
}
template <class T> __device__ __forceinline__ T iremainder(T x, T y) {
    if (y == 0 || y == -1) return 0;
    T r = x % y;
    return ((x > 0) == (y > 0) || r == 0) ? r : r + y;
}
template <class T> __device__ __forceinline__ T ipower(T x, T y) {
    if (y < 0) return 0;                            // NumPy raises: the host checks first
    typename ulim<T>::U r = 1, p = u(x);
    while (y > 0) { if (y & 1) r *= p; p *= p; y >>= 1; }
    return (T)r;
}
template <class T> __device__ __forceinline__ T ilshift(T x, T y) {
    return u(y) < (unsigned)ulim<T>::bits ? (T)(u(x) << y) : 0;
}
template <class T> __device__ __forceinline__ T irshift(T x, T y) {
    return u(y) < (unsigned)ulim<T>::bits ? (T)(x >> y) : (x < 0 ? -1 : 0);
}
template <class T> __device__ __forceinline__ T ireciprocal(T x) {   // (T)(1.0 / x) on x86
    return x == 0 ? imin<T>() : (x == 1 || x == -1 ? x : 0);
}
template <class T> __device__ __forceinline__ T isign(T x) { return (T)((x > 0) - (x < 0)); }

// ---- floats ---------------------------------------------------------------------------
template <class T> __device__ __forceinline__ T sign(T x) {
    return x > 0 ? T(1) : (x < 0 ? T(-1) : (x == 0 ? T(0) : x));
}
template <class T> __device__ __forceinline__ T maximum(T x, T y) { return (x >= y || x != x) ? x : y; }
template <class T> __device__ __forceinline__ T minimum(T x, T y) { return (x <= y || x != x) ? x : y; }
template <class T> __device__ __forceinline__ T angle(T x) { return atan2(T(0), x); }
template <class T> __device__ __forceinline__ T sigmoid(T x) {
    const T e = exp(-fabs(x));          // never overflows: 1/(1+e) or e/(1+e)
    return x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
}
template <class T> __device__ __forceinline__ T logaddexp(T x, T y) {
    if (x == y) return x + T(0.693147180559945309417232121458176568);   // infinities
    const T d = x - y;
    if (d != d) return d;
    return (x > y ? x : y) + log1p(exp(-fabs(d)));
}
// npy_divmod: floor division, and the remainder with the divisor's sign
template <class T> __device__ __forceinline__ T divmod(T a, T b, T* m) {
    T mod = fmod(a, b);
    if (!b) { *m = mod; return a / b; }
    T div = (a - mod) / b;
    if (mod) {
        if ((b < 0) != (mod < 0)) { mod += b; div -= T(1); }
    } else {
        mod = copysign(T(0), b);
    }
    T fl;
    if (div) { fl = floor(div); if (div - fl > T(0.5)) fl += T(1); }
    else fl = copysign(T(0), a / b);
    *m = mod;
    return fl;
}
template <class T> __device__ __forceinline__ T floordiv(T a, T b) { T m; return divmod(a, b, &m); }
template <class T> __device__ __forceinline__ T remainder(T a, T b) {
    T m;
    if (!b) return fmod(a, b);
    divmod(a, b, &m);
    return m;
}
// float -> int: truncation; NaN and out-of-range values give INT_MIN (x86-64's result)
template <class I, class F> __device__ __forceinline__ I f2i(F x) {
    const F lim = F(u(imin<I>())) ;                  // 2^31 or 2^63, exact
    return (x >= -lim && x < lim) ? (I)x : imin<I>();
}
}  // namespace tfm

// ---- complex numbers ----------------------------------------------------------------------
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
"""

_COMPLEX = r"""
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
    if (z.re != z.re) return is_inf(z.im) ? cmk(0.0, copysign(1.5707963267948966, z.im)) : cmk(z.re, z.re);
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

// ---- casts: NumPy's astype values ---------------------------------------------------------
template <class To, class From> struct tf_cast {
    static __device__ __forceinline__ To run(From x) { return (To)x; }
};
#define TF_F2I(I, F) template <> struct tf_cast<I, F> { \
    static __device__ __forceinline__ I run(F x) { return tfm::f2i<I>(x); } };
TF_F2I(int, float) TF_F2I(int, double) TF_F2I(long long, float) TF_F2I(long long, double)
#undef TF_F2I
template <class To, class T> struct tf_cast<To, tf_complex<T> > {      // the real part
    static __device__ __forceinline__ To run(tf_complex<T> z) { return tf_cast<To, T>::run(z.re); }
};
template <class T> struct tf_cast<bool, tf_complex<T> > {
    static __device__ __forceinline__ bool run(tf_complex<T> z) { return tfm::cnz(z); }
};
template <class T, class From> struct tf_cast<tf_complex<T>, From> {
    static __device__ __forceinline__ tf_complex<T> run(From x) { return tf_cmk((T)x, T(0)); }
};
template <class T, class U> struct tf_cast<tf_complex<T>, tf_complex<U> > {
    static __device__ __forceinline__ tf_complex<T> run(tf_complex<U> z) { return tfm::ccast<T>(z); }
};
template <class To, class From> __device__ __forceinline__ To tf_convert(From x) {
    return tf_cast<To, From>::run(x);
}
"""

# ---- the ops: op -> (result rule, {dtype kind: body in x (and y)}) ---------------------
# result rules: "same" (the input's dtype), "bool", "real" (complex -> its real dtype).


def _math(f, c=None):
    """A real math function (and its complex counterpart) of tfm."""
    d = {"f": "tfm::%s(x)" % f}
    if c:
        d["c"] = "tfm::%s(x)" % c
    return d


_IDENTITY = {"b": "x", "i": "x", "f": "x", "c": "x"}
_UNARY = {
    "negative": ("same", {"i": "tfm::ineg(x)", "f": "-x", "c": "-x"}),
    "positive": ("same", {"i": "x", "f": "x", "c": "x"}),
    "abs": ("real", {"b": "x", "i": "tfm::iabs(x)", "f": "tfm::fabs(x)",
                     "c": "tfm::cabs(x)"}),
    "sign": ("same", {"i": "tfm::isign(x)", "f": "tfm::sign(x)", "c": "tfm::csign(x)"}),
    "exp": ("same", _math("exp", "cexp")), "expm1": ("same", _math("expm1", "cexpm1")),
    "exp2": ("same", _math("exp2", "cexp2")), "log": ("same", _math("log", "clog")),
    "log1p": ("same", _math("log1p", "clog1p")), "log2": ("same", _math("log2", "clog2")),
    "log10": ("same", _math("log10", "clog10")), "sqrt": ("same", _math("sqrt", "csqrt")),
    "rsqrt": ("same", {"f": "1 / tfm::sqrt(x)", "c": "tfm::crsqrt(x)"}),
    "square": ("same", {"i": "tfm::imul(x, x)", "f": "x * x", "c": "tfm::csquare(x)"}),
    "reciprocal": ("same", {"i": "tfm::ireciprocal(x)", "f": "1 / x",
                            "c": "tfm::creciprocal(x)"}),
    "sin": ("same", _math("sin", "csin")), "cos": ("same", _math("cos", "ccos")),
    "tan": ("same", _math("tan", "ctan")), "arcsin": ("same", _math("asin", "casin")),
    "arccos": ("same", _math("acos", "cacos")), "arctan": ("same", _math("atan", "catan")),
    "sinh": ("same", _math("sinh", "csinh")), "cosh": ("same", _math("cosh", "ccosh")),
    "tanh": ("same", _math("tanh", "ctanh")), "arcsinh": ("same", _math("asinh", "casinh")),
    "arccosh": ("same", _math("acosh", "cacosh")),
    "arctanh": ("same", _math("atanh", "catanh")),
    "sigmoid": ("same", _math("sigmoid", "csigmoid")), "erf": ("same", _math("erf")),
    "floor": ("same", {"b": "x", "i": "x", "f": "tfm::floor(x)"}),
    "ceil": ("same", {"b": "x", "i": "x", "f": "tfm::ceil(x)"}),
    "trunc": ("same", {"b": "x", "i": "x", "f": "tfm::trunc(x)"}),
    "round": ("same", {"f": "tfm::rint(x)",
                       "c": "tf_cmk(tfm::rint(x.re), tfm::rint(x.im))"}),
    "conj": ("same", {"i": "x", "f": "x", "c": "tf_cmk(x.re, -x.im)"}),
    "real": ("real", {"c": "x.re"}),
    "imag": ("real", {"c": "x.im"}),
    "angle": ("real", {"f": "tfm::angle(x)", "c": "tfm::atan2(x.im, x.re)"}),
    "isnan": ("bool", {"b": "false", "i": "false", "f": "x != x", "c": "tfm::cnan(x)"}),
    "isinf": ("bool", {"b": "false", "i": "false", "f": "tfm::is_inf(x)",
                       "c": "tfm::is_inf(x.re) || tfm::is_inf(x.im)"}),
    "isfinite": ("bool", {"b": "true", "i": "true", "f": "tfm::is_finite(x)",
                          "c": "tfm::is_finite(x.re) && tfm::is_finite(x.im)"}),
    "logical_not": ("bool", {"b": "!x", "i": "x == 0", "f": "x == 0", "c": "!tfm::cnz(x)"}),
    "bitwise_invert": ("same", {"b": "!x", "i": "~x"}),
}

_ALL = ("b", "i", "f", "c")
_BINARY = {
    "add": ("same", {"b": "x || y", "i": "tfm::iadd(x, y)", "f": "x + y", "c": "x + y"}),
    "subtract": ("same", {"i": "tfm::isub(x, y)", "f": "x - y", "c": "x - y"}),
    "multiply": ("same", {"b": "x && y", "i": "tfm::imul(x, y)", "f": "x * y",
                          "c": "x * y"}),
    "divide": ("same", {"f": "x / y", "c": "x / y"}),
    "floor_divide": ("same", {"i": "tfm::ifloordiv(x, y)", "f": "tfm::floordiv(x, y)"}),
    "remainder": ("same", {"i": "tfm::iremainder(x, y)", "f": "tfm::remainder(x, y)"}),
    "power": ("same", {"i": "tfm::ipower(x, y)", "f": "tfm::pow(x, y)",
                       "c": "tfm::cpow(x, y)"}),
    "maximum": ("same", {"b": "x || y", "i": "x > y ? x : y", "f": "tfm::maximum(x, y)",
                         "c": "tfm::cmax(x, y)"}),
    "minimum": ("same", {"b": "x && y", "i": "x < y ? x : y", "f": "tfm::minimum(x, y)",
                         "c": "tfm::cmin(x, y)"}),
    "fmax": ("same", {"b": "x || y", "i": "x > y ? x : y", "f": "tfm::fmax(x, y)",
                      "c": "tfm::cfmax(x, y)"}),
    "fmin": ("same", {"b": "x && y", "i": "x < y ? x : y", "f": "tfm::fmin(x, y)",
                      "c": "tfm::cfmin(x, y)"}),
    "arctan2": ("same", {"f": "tfm::atan2(x, y)"}),
    "hypot": ("same", {"f": "tfm::hypot(x, y)"}),
    "copysign": ("same", {"f": "tfm::copysign(x, y)"}),
    "logaddexp": ("same", {"f": "tfm::logaddexp(x, y)"}),
    "equal": ("bool", dict.fromkeys(_ALL, "x == y")),
    "not_equal": ("bool", dict.fromkeys(_ALL, "x != y")),
    "less": ("bool", dict(dict.fromkeys("bif", "x < y"), c="tfm::clt(x, y)")),
    "less_equal": ("bool", dict(dict.fromkeys("bif", "x <= y"), c="tfm::cle(x, y)")),
    "greater": ("bool", dict(dict.fromkeys("bif", "x > y"), c="tfm::clt(y, x)")),
    "greater_equal": ("bool", dict(dict.fromkeys("bif", "x >= y"), c="tfm::cle(y, x)")),
    "logical_and": ("bool", dict(dict.fromkeys("bif", "x != 0 && y != 0"),
                                 c="tfm::cnz(x) && tfm::cnz(y)")),
    "logical_or": ("bool", dict(dict.fromkeys("bif", "x != 0 || y != 0"),
                                c="tfm::cnz(x) || tfm::cnz(y)")),
    "logical_xor": ("bool", dict(dict.fromkeys("bif", "(x != 0) != (y != 0)"),
                                 c="tfm::cnz(x) != tfm::cnz(y)")),
    "bitwise_and": ("same", {"b": "x && y", "i": "x & y"}),
    "bitwise_or": ("same", {"b": "x || y", "i": "x | y"}),
    "bitwise_xor": ("same", {"b": "x != y", "i": "x ^ y"}),
    "left_shift": ("same", {"i": "tfm::ilshift(x, y)"}),
    "right_shift": ("same", {"i": "tfm::irshift(x, y)"}),
}
assert set(_UNARY) == set(UNARY) | set(COMPLEX_PARTS) and set(_BINARY) == set(BINARY)


def _support(table):
    return {op: frozenset(d for d in CTYPE if _KIND[d] in bodies)
            for op, (_, bodies) in table.items()}


#: op -> the input dtypes with an overload ``tf_<op>`` (the CPU driver's loops).
UNARY_SUPPORT = _support(_UNARY)
BINARY_SUPPORT = _support(_BINARY)


def OUT_DTYPE(op, dtype):   # noqa: N802 (the contract's name)
    """The dtype of what ``tf_<op>`` returns for inputs of ``dtype`` (KeyError where there
    is no overload)."""
    dtype = np.dtype(dtype)
    rule, bodies = _UNARY[op] if op in _UNARY else _BINARY[op]
    if _KIND[dtype] not in bodies:
        raise KeyError("tenferro.devices.cuda.cmath: no %s for %s" % (op, dtype))
    return {"same": dtype, "bool": _dtypes.bool_, "real": _REAL.get(dtype, dtype)}[rule]


def _overloads():
    out = ["// ---- tf_<op>: one overload per (op, input type) ----"]
    for table, params in ((_UNARY, "%s x"), (_BINARY, "%s x, %s y")):
        for op, (_, bodies) in table.items():
            for d in CTYPE:
                body = bodies.get(_KIND[d])
                if body is not None:
                    t = CTYPE[d]
                    out.append("__device__ __forceinline__ %s tf_%s(%s) { return %s; }"
                               % (CTYPE[OUT_DTYPE(op, d)], op,
                                  params % ((t,) * params.count("%s")), body))
    return "\n".join(out) + "\n"


PRELUDE = _BASE + _COMPLEX + _overloads()
