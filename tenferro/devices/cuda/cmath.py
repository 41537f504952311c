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
* ``tf_convert<To, From>(x)``: NumPy's ``astype`` values for every pair of dtypes;
* ``tf_cmk(re, im)``: a complex number of its parts.

Everything else lives in the namespace ``tfm``.

What follows NumPy where C or CUDA would not: integer arithmetic wraps (done in unsigned:
no signed-overflow UB); integer ``floor_divide``/``remainder`` by 0 give 0 and
``INT_MIN // -1`` wraps to ``INT_MIN``; shifts by a negative count or one past the width
give 0 (left) or the sign (right); integer ``power`` squares and wraps (a negative
exponent, which the host rejects beforehand, gives 0); integer ``reciprocal`` of 0 is
``INT_MIN`` (NumPy's ``(int)(1.0 / 0)`` on x86-64); float ``floor_divide``/``remainder``
are NumPy's ``npy_divmod``; ``maximum``/``minimum`` propagate NaN, ``fmax``/``fmin``
ignore it (with two zeros of either sign they return the first: NumPy's own choice
depends on its loop); float to int casts truncate and give ``INT_MIN``/``LLONG_MIN`` for
NaN and out-of-range values (x86-64's ``cvttsd2si``, hence NumPy's there; a GPU's
conversion would saturate).  Complex numbers: :mod:`.cmath_complex`.

Beyond the catalog, ``tf_clip(x, lo, hi)`` is NumPy's ``clip`` for every dtype.  Call
the overloads with arguments of their exact C types (a literal ``1`` next to a ``float``
is ambiguous).
"""
import numpy as np

from ... import _dtypes
from ..._catalog import BINARY, COMPLEX_PARTS, UNARY
from .cmath_complex import COMPLEX

CTYPE = {_dtypes.bool_: "bool", _dtypes.int32: "int", _dtypes.int64: "long long",
         _dtypes.float32: "float", _dtypes.float64: "double", _dtypes.complex64: "c64",
         _dtypes.complex128: "c128"}
_KIND = {d: d.kind for d in CTYPE}   # "b", "i", "f" or "c": the keys of the op tables
_REAL = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}

_BASE = r"""
// ---- tenferro CUDA math prelude (tenferro/devices/cuda/cmath.py) -----------------------
namespace tfm {
#ifdef TF_HOST_SHIM
__device__ __forceinline__ float bits_f(int b) { float x; memcpy(&x, &b, 4); return x; }
__device__ __forceinline__ double bits_d(long long b) { double x; memcpy(&x, &b, 8); return x; }
// a product no FMA absorbs (the stored value is the rounded one, whatever -march says)
__device__ __forceinline__ float mul_rn(float a, float b) { volatile float r = a * b; return r; }
__device__ __forceinline__ double mul_rn(double a, double b) { volatile double r = a * b; return r; }
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
template <class T> __device__ __forceinline__ T clip(T x, T lo, T hi) {   // NumPy's clip.cpp
    const T t = (x != x || x > lo) ? x : lo;
    return (t != t || t < hi) ? t : hi;
}
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

"""

_CASTS = r"""
// ---- casts: NumPy's astype values ---------------------------------------------------------
namespace tfm {
template <class To, class From> struct cast {
    static __device__ __forceinline__ To run(From x) { return (To)x; }
};
#define TF_F2I(I, F) template <> struct cast<I, F> { \
    static __device__ __forceinline__ I run(F x) { return f2i<I>(x); } };
TF_F2I(int, float) TF_F2I(int, double) TF_F2I(long long, float) TF_F2I(long long, double)
#undef TF_F2I
template <class To, class T> struct cast<To, tf_complex<T> > {      // the real part
    static __device__ __forceinline__ To run(tf_complex<T> z) { return cast<To, T>::run(z.re); }
};
template <class T> struct cast<bool, tf_complex<T> > {
    static __device__ __forceinline__ bool run(tf_complex<T> z) { return cnz(z); }
};
template <class T, class From> struct cast<tf_complex<T>, From> {
    static __device__ __forceinline__ tf_complex<T> run(From x) { return tf_cmk((T)x, T(0)); }
};
template <class T, class U> struct cast<tf_complex<T>, tf_complex<U> > {
    static __device__ __forceinline__ tf_complex<T> run(tf_complex<U> z) { return ccast<T>(z); }
};
}  // namespace tfm
template <class To, class From> __device__ __forceinline__ To tf_convert(From x) {
    return tfm::cast<To, From>::run(x);
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
# NumPy's clip(x, lo, hi) (clip.cpp: not quite minimum(maximum()), see cmath_complex)
_TERNARY = {"clip": ("same", {"b": "(x || y) && z", "i": "tfm::clip(x, y, z)",
                              "f": "tfm::clip(x, y, z)", "c": "tfm::cclip(x, y, z)"})}
assert set(_UNARY) == set(UNARY) | set(COMPLEX_PARTS) and set(_BINARY) == set(BINARY)
_OPS = dict(_UNARY, **_BINARY, **_TERNARY)


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
    rule, bodies = _OPS[op]
    if _KIND[dtype] not in bodies:
        raise KeyError("tenferro.devices.cuda.cmath: no %s for %s" % (op, dtype))
    return {"same": dtype, "bool": _dtypes.bool_, "real": _REAL.get(dtype, dtype)}[rule]


def _overloads():
    out = ["// ---- tf_<op>: one overload per (op, input type) ----"]
    for table, params in ((_UNARY, "%s x"), (_BINARY, "%s x, %s y"),
                          (_TERNARY, "%s x, %s y, %s z")):
        for op, (_, bodies) in table.items():
            for d in CTYPE:
                body = bodies.get(_KIND[d])
                if body is not None:
                    t = CTYPE[d]
                    out.append("__device__ __forceinline__ %s tf_%s(%s) { return %s; }"
                               % (CTYPE[OUT_DTYPE(op, d)], op,
                                  params % ((t,) * params.count("%s")), body))
    return "\n".join(out) + "\n"


PRELUDE = _BASE + COMPLEX + _CASTS + _overloads()
