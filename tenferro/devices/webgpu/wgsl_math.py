"""The WGSL helper functions the WebGPU kernels may call (``f_*``, ``i_*``, ``l_*``).

``PRELUDE``: float32 and int32 helpers (bit-exact NaN/Inf tests, NumPy's max/min,
floor division and remainder, accurate log1p/expm1/erf, ...); ``PRELUDE64``: the int64
emulation on ``vec2<u32>`` (needs ``PRELUDE``).  The driver includes them in a kernel
only when its body calls one (:func:`.render.prelude_for`).
"""

# Helpers every kernel may call: bit-exact NaN/Inf tests (immune to fast-math), NaN
# propagating max/min, log1p/expm1 accurate near 0 (Kahan's tricks), floor-mode
# division for integers (NumPy's floor_divide/remainder).
PRELUDE = """
fn f_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn f_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn f_isfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u; }
fn f_nan() -> f32 { return bitcast<f32>(0x7fc00000u); }
fn f_inf() -> f32 { return bitcast<f32>(0x7f800000u); }
fn f_max(x: f32, y: f32) -> f32 { if (f_isnan(x) || f_isnan(y)) { return f_nan(); } return max(x, y); }
fn f_min(x: f32, y: f32) -> f32 { if (f_isnan(x) || f_isnan(y)) { return f_nan(); } return min(x, y); }
fn f_fmax(x: f32, y: f32) -> f32 { if (f_isnan(x)) { return y; } if (f_isnan(y)) { return x; } return max(x, y); }
fn f_fmin(x: f32, y: f32) -> f32 { if (f_isnan(x)) { return y; } if (f_isnan(y)) { return x; } return min(x, y); }
fn f_log(x: f32) -> f32 {
    if (!(x >= 0.0)) { return f_nan(); }
    if (x == 0.0) { return -f_inf(); }
    return log(x);
}
fn f_log1p(x: f32) -> f32 {
    if (!(x >= -1.0)) { return f_nan(); }
    if (abs(x) < 0.1) {
        // 2 atanh(s), s = x / (2 + x): the series to s^7 (error < 1e-10 relative)
        let s = x / (2.0 + x);
        let s2 = s * s;
        return 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (0.2 + s2 / 7.0)));
    }
    return f_log(1.0 + x);
}
fn f_expm1(x: f32) -> f32 {
    // Taylor series (7 terms, error < 1e-9 relative) where exp(x) - 1 would cancel;
    // Kahan's u - 1 scaled by x / log(u) gets folded away by some shader compilers.
    if (abs(x) < 0.1) {
        return x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 *
               (1.0 + x / 6.0 * (1.0 + x / 7.0))))));
    }
    if (x > 88.8) { return f_inf(); }
    return exp(x) - 1.0;
}
fn f_sqrt(x: f32) -> f32 { if (!(x >= 0.0)) { return f_nan(); } return sqrt(x); }
fn f_sign(x: f32) -> f32 { if (f_isnan(x)) { return x; } return sign(x); }
fn f_tanh(x: f32) -> f32 { if (abs(x) > 10.0) { return sign(x); } return tanh(x); }
// asin/acos through atan2 (lavapipe's own lose ~1e-4 relative)
fn f_asin(x: f32) -> f32 { if (!(abs(x) <= 1.0)) { return f_nan(); } return atan2(x, sqrt((1.0 - x) * (1.0 + x))); }
fn f_acos(x: f32) -> f32 { if (!(abs(x) <= 1.0)) { return f_nan(); } return 2.0 * atan2(sqrt(1.0 - x), sqrt(1.0 + x)); }
fn f_acosh(x: f32) -> f32 {
    if (!(x >= 1.0)) { return f_nan(); }
    if (x > 1e18) { return log(x) + 0.6931471805599453; }
    let t = x - 1.0;
    return f_log1p(t + sqrt(2.0 * t + t * t));
}
fn f_asinh(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1e18) { return sign(x) * (log(a) + 0.6931471805599453); }
    return sign(x) * f_log1p(a + a * a / (1.0 + sqrt(1.0 + a * a)));
}
fn f_atanh(x: f32) -> f32 {
    let a = abs(x);
    if (!(a <= 1.0)) { return f_nan(); }
    if (a == 1.0) { return sign(x) * f_inf(); }
    return sign(x) * 0.5 * f_log1p(2.0 * a / (1.0 - a));
}
fn f_fmod(x: f32, y: f32) -> f32 {
    if (f_isinf(y) && f_isfinite(x)) { return x; }
    return x - y * trunc(x / y);
}
// NumPy's npy_divmod: floor division and the remainder with the divisor's sign.
fn f_remainder(x: f32, y: f32) -> f32 {
    if (y == 0.0 || f_isinf(x) || f_isnan(x) || f_isnan(y)) { return f_nan(); }
    let m = f_fmod(x, y);
    if (m == 0.0) { return f_copysign(0.0, y); }
    if ((y < 0.0) != (m < 0.0)) { return m + y; }
    return m;
}
fn f_floor_divide(x: f32, y: f32) -> f32 {
    if (y == 0.0) { return x / y; }
    let m = f_fmod(x, y);
    var d = (x - m) / y;
    if (m != 0.0 && ((y < 0.0) != (m < 0.0))) { d = d - 1.0; }
    if (d == 0.0) { return f_copysign(0.0, x / y); }
    var fl = floor(d);
    if (d - fl > 0.5) { fl = fl + 1.0; }
    return fl;
}
fn f_power(x: f32, y: f32) -> f32 {
    if (y == 0.0) { return 1.0; }
    if (f_isnan(x) || f_isnan(y)) { return f_nan(); }
    let r = pow(abs(x), y);
    if (x >= 0.0) { return r; }
    if (floor(y) != y) { return f_nan(); }
    if (floor(y * 0.5) * 2.0 != y) { return -r; }
    return r;
}
fn f_hypot(x: f32, y: f32) -> f32 {
    if (f_isinf(x) || f_isinf(y)) { return f_inf(); }
    if (f_isnan(x) || f_isnan(y)) { return f_nan(); }
    let a = abs(x);
    let b = abs(y);
    let m = max(a, b);
    if (m == 0.0 || f_isnan(m)) { return m + min(a, b); }
    let r = min(a, b) / m;
    return m * sqrt(1.0 + r * r);
}
fn f_atan2(y: f32, x: f32) -> f32 {
    // WGSL leaves atan2 undefined at (0, 0) and (inf, inf): spell out C's values.
    if (y == 0.0 && x == 0.0) {
        if ((bitcast<u32>(x) & 0x80000000u) != 0u) { return f_copysign(3.141592653589793, y); }
        return y;
    }
    if (f_isinf(y) && f_isinf(x)) {
        return f_copysign(select(0.7853981633974483, 2.356194490192345, x < 0.0), y);
    }
    return atan2(y, x);
}
fn f_copysign(x: f32, y: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(y) & 0x80000000u));
}
fn f_logaddexp(x: f32, y: f32) -> f32 {
    if (f_isnan(x) || f_isnan(y)) { return f_nan(); }
    if (x == y) { return x + 0.6931471805599453; }
    return max(x, y) + f_log1p(exp(-abs(x - y)));
}
fn i_floor_divide(x: i32, y: i32) -> i32 {
    if (y == 0) { return 0; }
    if (y == -1) { return -x; }
    let q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) { return q - 1; }
    return q;
}
fn i_remainder(x: i32, y: i32) -> i32 {
    if (y == 0 || y == -1) { return 0; }
    let m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) { return m + y; }
    return m;
}
fn i_left_shift(x: i32, y: i32) -> i32 { if (y < 0 || y >= 32) { return 0; } return x << u32(y); }
fn i_right_shift(x: i32, y: i32) -> i32 {
    if (y < 0 || y >= 32) { return select(0, -1, x < 0); }
    return x >> u32(y);
}
// NumPy's integer power: exponentiation by squaring, i32 products wrap (two's
// complement) like NumPy's; 0 ** 0 = 1.  The driver rejects y < 0 on the host.
fn i_power(x: i32, y: i32) -> i32 {
    var r = 1;
    var p = x;
    var e = y;
    while (e > 0) {
        if ((e & 1) != 0) { r = r * p; }
        p = p * p;
        e = e >> 1u;
    }
    return r;
}
"""

# erf for float32 in three pieces, about 1 ulp over the whole line (max 1.02 ulp on
# [0, 4.2] in a float32 emulation; tests/test_webgpu_math.py measures the shader):
#   |x| < 1:     erf(x) = x + x * A(x^2)           (keeps full relative accuracy as x -> 0)
#   1 <= |x| < 2: erf(|x|) = B(|x| - 1.5)
#   2 <= |x| < 3.92: erf(|x|) = 1 - exp(C(|x| - 2.96))  (C ~ log erfc; beyond 3.92 erf
#                rounds to 1 in float32)
# Coefficients (low degree first): relative least-squares fits on 3000 Chebyshev nodes
# to scipy.special.erf / log(erfc) in float64, rounded to float32; reproduced by
# tests/test_webgpu_math.py::fit_erf_coefficients.
ERF_A = (0.12837916612625122, -0.3761262893676758, 0.11283612251281738,
         -0.026854809373617172, 0.00519005348905921, -0.0008024353883229196,
         7.898209878476337e-05)
ERF_B = (0.9661051630973816, 0.11893028765916824, -0.17839542031288147,
         0.13875220715999603, -0.04459945112466812, -0.014870810322463512,
         0.019333448261022568, -0.004701337777078152, -0.002401968464255333,
         0.0015407247701659799)
ERF_C = (-10.469744682312012, -6.227198123931885, -0.9564914107322693,
         -0.007632699329406023, 0.001402340130880475, -0.0002555522951297462,
         4.717543561127968e-05, -8.079816325334832e-06)
ERF_SPLITS = (1.0, 2.0, 3.92)   # the pieces' bounds
ERF_CENTRES = (1.5, 2.96)       # B's and C's expansion points


def _horner(coeffs, t):
    """The WGSL expression of the polynomial sum(coeffs[k] * t**k) (Horner's scheme)."""
    expr = "%.9g" % coeffs[-1]
    for c in coeffs[-2::-1]:
        expr = "(%s * %s + %.9g)" % (expr, t, c)
    return expr


PRELUDE += """
fn f_erf(x: f32) -> f32 {
    if (f_isnan(x)) { return x; }
    let a = abs(x);
    if (a < %(s0)s) {
        let t = x * x;
        return x + x * %(A)s;   // -0.0 stays -0.0, denormals stay exact
    }
    var r = 1.0;
    if (a < %(s1)s) {
        let u = a - %(c0)s;
        r = %(B)s;
    } else if (a < %(s2)s) {
        let u = a - %(c1)s;
        r = 1.0 - exp(%(C)s);
    }
    return f_copysign(r, x);
}
""" % dict(s0=ERF_SPLITS[0], s1=ERF_SPLITS[1], s2=ERF_SPLITS[2], c0=ERF_CENTRES[0],
           c1=ERF_CENTRES[1], A=_horner(ERF_A, "t"), B=_horner(ERF_B, "u"),
           C=_horner(ERF_C, "u"))

# int64 emulation: an int64 is vec2<u32>(lo, hi), two's complement, exactly NumPy's
# little-endian bytes (storage and value type alike).  Arithmetic wraps mod 2^64 as
# NumPy's does; casts follow NumPy on x86 (float -> int64 truncates, NaN and out of range
# give INT64_MIN; int64 -> float32 rounds to nearest even).  Needs PRELUDE (f_isnan).
PRELUDE64 = """
fn l_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn l_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}
fn l_neg(a: vec2<u32>) -> vec2<u32> { return l_sub(vec2<u32>(0u, 0u), a); }
// 32 x 32 -> 64-bit product from 16-bit halves (WGSL has no widening multiply)
fn l_mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);  // < 3 * 2^16
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u),
                     a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
// the low 64 bits of the product (the high words' cross terms only reach bit 32 up)
fn l_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = l_mul32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}
fn l_isneg(a: vec2<u32>) -> bool { return (a.y & 0x80000000u) != 0u; }
fn l_nz(a: vec2<u32>) -> bool { return (a.x | a.y) != 0u; }
fn l_eq(a: vec2<u32>, b: vec2<u32>) -> bool { return all(a == b); }
fn l_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
    if (a.y != b.y) { return bitcast<i32>(a.y) < bitcast<i32>(b.y); }
    return a.x < b.x;
}
fn l_le(a: vec2<u32>, b: vec2<u32>) -> bool { return !l_lt(b, a); }
fn l_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, l_lt(a, b)); }
fn l_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, l_lt(b, a)); }
fn l_abs(a: vec2<u32>) -> vec2<u32> { return select(a, l_neg(a), l_isneg(a)); }
fn l_sign(a: vec2<u32>) -> vec2<u32> {
    if (l_isneg(a)) { return vec2<u32>(0xffffffffu, 0xffffffffu); }
    return vec2<u32>(select(0u, 1u, l_nz(a)), 0u);
}
fn l_from_i32(x: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0));
}
fn l_from_bool(x: bool) -> vec2<u32> { return vec2<u32>(select(0u, 1u, x), 0u); }
// unsigned 64-bit -> f32, rounded to nearest even by hand (top 24 bits, round, sticky)
fn l_u_to_f32(a: vec2<u32>) -> f32 {
    if (!l_nz(a)) { return 0.0; }
    let lz = select(countLeadingZeros(a.y), 32u + countLeadingZeros(a.x), a.y == 0u);
    var h = a.y;
    var l = a.x;
    if (lz >= 32u) { h = a.x << (lz - 32u); l = 0u; }
    else if (lz > 0u) { h = (a.y << lz) | (a.x >> (32u - lz)); l = a.x << lz; }
    var m = h >> 8u;
    var e = 63u - lz;
    let sticky = (h & 0x7fu) != 0u || l != 0u;
    if ((h & 0x80u) != 0u && (sticky || (m & 1u) != 0u)) {
        m = m + 1u;
        if (m == 0x1000000u) { m = 0x800000u; e = e + 1u; }
    }
    return bitcast<f32>(((e + 127u) << 23u) | (m & 0x7fffffu));
}
fn l_to_f32(a: vec2<u32>) -> f32 {
    let r = l_u_to_f32(l_abs(a));  // |INT64_MIN| = 2^63 read as unsigned
    return select(r, -r, l_isneg(a));
}
fn l_from_f32(x: f32) -> vec2<u32> {
    if (f_isnan(x) || abs(x) >= 9223372036854775808.0) { return vec2<u32>(0u, 0x80000000u); }
    let a = abs(x);
    if (a < 1.0) { return vec2<u32>(0u, 0u); }
    let bits = bitcast<u32>(a);
    let e = i32((bits >> 23u) & 0xffu) - 127;       // 0 <= e <= 62
    let m = (bits & 0x7fffffu) | 0x800000u;
    var r = vec2<u32>(0u, 0u);
    if (e <= 23) { r = vec2<u32>(m >> u32(23 - e), 0u); }
    else if (e < 55) { let s = u32(e - 23); r = vec2<u32>(m << s, m >> (32u - s)); }
    else { r = vec2<u32>(0u, m << u32(e - 55)); }
    return select(r, l_neg(r), x < 0.0);
}
"""

