"""WGSL shader templates of the WebGPU driver (``tenferro.devices.webgpu``).

Every kernel is one of the templates below, rendered with ``str.format`` per
(op, dtypes) and compiled once per device (the driver's pipeline cache is keyed by
the rendered source and the device).  Conventions:

* Storage: float32 -> ``f32``, int32 -> ``i32``, bool -> ``u32`` (0 or 1), int64 ->
  ``vec2<u32>`` (low word, high word; see PRELUDE64).  Values are loaded into their
  *value type* (``f32``, ``i32``, ``bool``, ``vec2<u32>``) before an op's expression
  sees them and stored back from it, so op expressions never deal with the
  bool-as-u32 storage.
* Layout: every operand carries an element offset and element strides (any sign, 0
  for broadcast axes) in the ``meta`` storage buffer of ``i32``; the output index is
  the C-order linear index over the output shape (``MAXDIM`` = 8 dimensions).
* Dispatch: 256 threads a workgroup on a 2-D grid of workgroups (``x`` at most
  65535), so more than 65535 * 256 elements still fit; the linear index is
  ``(wg.y * nwg.x + wg.x) * 256 + local``.
"""

MAXDIM = 8
WORKGROUP = 256

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

# The entry point of the one-thread-per-item kernels: thread i of the 2-D grid (see the
# module docstring), items 0 .. lay[0] - 1.
_MAIN_1D = """
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let i = i32((wg.y * nwg.x + wg.x) * {wg}u + li);
    if (i >= lay[0]) {{ return; }}
"""

# The strided elementwise kernel: NIN inputs (bindings 0..NIN-1), the output
# (binding NIN), the layout (binding NIN+1):
#   meta = [n, ndim, out_offset, shape[8], out_strides[8],
#           then per input: offset, strides[8]]
ELEMENTWISE = """
{prelude}
{bindings}
@group(0) @binding({out_binding}) var<storage, read_write> out: array<{out_store}>;
@group(0) @binding({meta_binding}) var<storage, read> lay: array<i32>;

fn op({params}) -> {out_value} {{
    {body}
}}

@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let i = i32((wg.y * nwg.x + wg.x) * {wg}u + li);
    let n = lay[0];
    if (i >= n) {{ return; }}
    let nd = lay[1];
    var rem = i;
    var o = lay[2];
{offsets_init}
    for (var d = nd - 1; d >= 0; d = d - 1) {{
        let extent = lay[3 + d];
        let c = rem % extent;
        rem = rem / extent;
        o = o + c * lay[11 + d];
{offsets_step}
    }}
{loads}
    out[o] = {store};
}}
"""

# One thread per output element, looping over the reduced elements (any axes):
#   meta = [n_out, nkeep, nred, offset, keep_shape[8], keep_strides[8],
#           red_shape[8], red_strides[8], n_red]
# The reductions' bindings, and their offset helpers: output o's first input element
# (its kept-dims multi-index) and reduced element r's offset from it.
RED_HEAD = """{prelude}
@group(0) @binding(0) var<storage, read> x: array<{in_store}>;
@group(0) @binding(1) var<storage, read_write> out: array<{out_store}>;
@group(0) @binding(2) var<storage, read> lay: array<i32>;
"""
_RED_OFFSETS = """
// element offset of output o's first input element (its kept-dims multi-index)
fn kept_base(o: i32) -> i32 {{
    var rem = o;
    var base = lay[3];
    for (var d = lay[1] - 1; d >= 0; d = d - 1) {{
        let extent = lay[4 + d];
        base = base + (rem % extent) * lay[12 + d];
        rem = rem / extent;
    }}
    return base;
}}

// element offset of reduced element r from base (its reduced-dims multi-index)
fn red_offset(base: i32, r: i32) -> i32 {{
    var rr = r;
    var off = base;
    for (var d = lay[2] - 1; d >= 0; d = d - 1) {{
        let extent = lay[20 + d];
        off = off + (rr % extent) * lay[28 + d];
        rr = rr / extent;
    }}
    return off;
}}
"""

# The reductions' mains read their input only through {load} (an expression in the
# element offset ``off``): RED_HEAD binds one strided input ``x``; a fused group's
# head (FUSED_REDUCE_HEAD) evaluates the group at ``off`` instead.
REDUCE_MAIN = _RED_OFFSETS + _MAIN_1D + """    let base = kept_base(i);
    var acc: {acc} = {init};
    let m = lay[36];
    for (var r = 0; r < m; r = r + 1) {{
        let off = red_offset(base, r);
        let v = {load};
        acc = {combine};
    }}
    out[i] = {store};
}}
"""
REDUCE = RED_HEAD + REDUCE_MAIN

# Batched matrix product out[b, m, n] = sum_k a[b, m, k] * b[b, k, n] with 16 x 16
# tiles of a and b staged in workgroup (shared) memory.  Workgroups: x over column
# tiles, y over row tiles, z over the batch, each from a base (the driver dispatches
# grids of at most 65535 workgroups a dimension, one block at a time).
#   lay = [M, N, K, nbatch_dims, batch_base, a_off, b_off, a_rs, a_cs, b_rs, b_cs,
#          batch_shape[6], a_batch_strides[6], b_batch_strides[6], row_tile_base,
#          col_tile_base, k_start, k_end, accumulate]
# A dispatch sums k in [k_start, k_end) (llvmpipe stops a loop after 65535 trips,
# LP_MAX_TGSI_LOOP_ITERATIONS, so the driver splits long K into MATMUL_KCHUNK pieces);
# with accumulate != 0 it adds to what out holds (the previous pieces' sum).
MATMUL_TILE = 16
MATMUL_KCHUNK = 1 << 19   # a multiple of 16 (both kernels' k step); 32768 trips
_MATMUL_BINDINGS = """
@group(0) @binding(0) var<storage, read> a: array<{store}>;
@group(0) @binding(1) var<storage, read> b: array<{store}>;
@group(0) @binding(2) var<storage, read_write> out: array<{store}>;
@group(0) @binding(3) var<storage, read> lay: array<i32>;

"""
# main()'s start, for {wg} x {wg} threads: the sizes and the batch element's offsets
# ao, bo into a and b
_MATMUL_ENTRY = """@compute @workgroup_size({wg}, {wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {{
    let M = lay[0];
    let N = lay[1];
    let K = lay[2];
    let bidx = i32(wg.z) + lay[4];
    var rem = bidx;
    var ao = lay[5];
    var bo = lay[6];
    for (var d = lay[3] - 1; d >= 0; d = d - 1) {{
        let extent = lay[11 + d];
        let c = rem % extent;
        rem = rem / extent;
        ao = ao + c * lay[17 + d];
        bo = bo + c * lay[23 + d];
    }}
"""
MATMUL = _MATMUL_BINDINGS + """var<workgroup> ta: array<array<{store}, {tile}>, {tile}>;
var<workgroup> tb: array<array<{store}, {tile}>, {tile}>;

""" + _MATMUL_ENTRY + """    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let row = (i32(wg.y) + lay[29]) * {tile} + ty;
    let col = (i32(wg.x) + lay[30]) * {tile} + tx;
    var acc: {store} = {zero};
    let kend = lay[32];
    for (var t = lay[31]; t < kend; t = t + {tile}) {{
        var va: {store} = {zero};
        if (row < M && t + tx < kend) {{ va = a[ao + row * lay[7] + (t + tx) * lay[8]]; }}
        ta[ty][tx] = va;
        var vb: {store} = {zero};
        if (t + ty < kend && col < N) {{ vb = b[bo + (t + ty) * lay[9] + col * lay[10]]; }}
        tb[ty][tx] = vb;
        workgroupBarrier();
        for (var k = 0; k < {tile}; k = k + 1) {{
            acc = acc + ta[ty][k] * tb[k][tx];
        }}
        workgroupBarrier();
    }}
    if (row < M && col < N) {{
        let o = (bidx * M + row) * N + col;
        if (lay[33] != 0) {{ acc = acc + out[o]; }}
        out[o] = acc;
    }}
}}
"""

# Register-blocked variant for larger matrices: each of the 16 x 16 threads computes a
# 4 x 4 block of a 64 x 64 output tile (rows 4 ty + i, columns 4 tx + j), from 64 x 16
# slices of a and b staged in workgroup memory as vec4s: per k, one vec4 of a's slice
# (sa[k][ty]: rows 4 ty..4 ty + 3) and one of b's (sb[k][tx]) feed 16 multiply-adds,
# against 2 workgroup loads per multiply-add in MATMUL.  sa is k-major (the slice is
# transposed on the way in) with rows padded to 17 vec4s, so the transposing store
# (consecutive threads, consecutive k) spreads over the banks (2-way conflicts at most,
# 16-way unpadded); 8448 bytes of workgroup memory in all for f32/i32 (the WebGPU
# default limit is 16384; 32-deep slices would need 16896).  On lavapipe this is ~6x
# faster than MATMUL from 128 x 128 up (scalar workgroup arrays with 4 x 4 outputs a
# thread: ~4x; unrolling the k loop by hand made it slower).
# lay, grid (over 64 x 64 tiles) and K pieces as MATMUL's.
MATMUL_RB_TILE = 64
MATMUL_RB = _MATMUL_BINDINGS + """var<workgroup> sa: array<array<vec4<{store}>, 17>, 16>;
var<workgroup> sb: array<array<vec4<{store}>, 16>, 16>;

// out[row, col + j] = v[j] (+ what out holds for a later K piece), inside M x N
fn put(v: vec4<{store}>, bidx: i32, row: i32, col: i32) {{
    let M = lay[0];
    let N = lay[1];
    if (row >= M) {{ return; }}
    for (var j = 0; j < 4; j = j + 1) {{
        let c = col + j;
        if (c < N) {{
            let o = (bidx * M + row) * N + c;
            var s = v[j];
            if (lay[33] != 0) {{ s = s + out[o]; }}
            out[o] = s;
        }}
    }}
}}

""" + _MATMUL_ENTRY + """    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let li = ty * 16 + tx;
    let row0 = (i32(wg.y) + lay[29]) * 64;
    let col0 = (i32(wg.x) + lay[30]) * 64;
    var acc0 = vec4<{store}>();
    var acc1 = vec4<{store}>();
    var acc2 = vec4<{store}>();
    var acc3 = vec4<{store}>();
    let kend = lay[32];
    for (var t = lay[31]; t < kend; t = t + 16) {{
        for (var p = 0; p < 4; p = p + 1) {{
            let e = li + 256 * p;
            let r = e / 16;
            let ar = row0 + r;
            let ak = t + e % 16;
            var va: {store} = {zero};
            if (ar < M && ak < kend) {{ va = a[ao + ar * lay[7] + ak * lay[8]]; }}
            sa[e % 16][r / 4][r % 4] = va;
            let bk = t + e / 64;
            let c = e % 64;
            let bc = col0 + c;
            var vb: {store} = {zero};
            if (bk < kend && bc < N) {{ vb = b[bo + bk * lay[9] + bc * lay[10]]; }}
            sb[e / 64][c / 4][c % 4] = vb;
        }}
        workgroupBarrier();
        for (var k = 0; k < 16; k = k + 1) {{
            let bv = sb[k][tx];
            let av = sa[k][ty];
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
        }}
        workgroupBarrier();
    }}
    put(acc0, bidx, row0 + 4 * ty, col0 + 4 * tx);
    put(acc1, bidx, row0 + 4 * ty + 1, col0 + 4 * tx);
    put(acc2, bidx, row0 + 4 * ty + 2, col0 + 4 * tx);
    put(acc3, bidx, row0 + 4 * ty + 3, col0 + 4 * tx);
}}
"""

# Workgroup tree reduction for long reductions: workgroup g reduces chunk g % nchunks
# (REDUCE_CHUNK elements of the reduced extent) of output g / nchunks: each thread
# accumulates a strided share, then a tree in workgroup memory halves the 256
# partials; thread 0 writes partial g (the driver reduces the partials again until
# one chunk is left).  lay as REDUCE_MAIN's, plus lay[37] = nchunks.
REDUCE_CHUNK = 4096
REDUCE_TREE_MAIN = """
var<workgroup> sh: array<{acc}, {wg}>;

fn comb(acc: {acc}, v: {acc}) -> {acc} {{ return {combine}; }}
""" + _RED_OFFSETS + """
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let g = i32(wg.y * nwg.x + wg.x);
    let nchunks = lay[37];
    if (g >= lay[0] * nchunks) {{ return; }}   // uniform: the same g for the workgroup
    let base = kept_base(g / nchunks);
    let chunk = g % nchunks;
    var acc: {acc} = {init};
    let start = chunk * {chunk};
    let end = min(start + {chunk}, lay[36]);
    for (var r = start + i32(li); r < end; r = r + {wg}) {{
        let off = red_offset(base, r);
        acc = comb(acc, {load});
    }}
    sh[li] = acc;
    workgroupBarrier();
    for (var s = {half}u; s > 0u; s = s >> 1u) {{
        if (li < s) {{ sh[li] = comb(sh[li], sh[li + s]); }}
        workgroupBarrier();
    }}
    if (li == 0u) {{ out[g] = {store}; }}
}}
"""
REDUCE_TREE = RED_HEAD + REDUCE_TREE_MAIN


# Scans (cumsum / cumprod): one thread per line, sequential along the axis, so float
# results round exactly like NumPy's sequential accumulate.  The layout is REDUCE's with
# the scanned axis as the one reduced dimension (lay[2] = 1, its stride lay[28], its
# length lay[36]), plus lay[37] = the product of the extents after the axis: the output
# is C-contiguous, so line o (kept-dims index), o = outer * inner + j, writes element r
# at (outer * L + r) * inner + j.  llvmpipe (lavapipe) ends a shader invocation's loops
# after 65535 trips in all (LP_MAX_TGSI_LOOP_ITERATIONS), so a dispatch scans only the
# segment [lay[38], lay[39]) of at most SCAN_CHUNK elements, continuing from the
# previous segment's last output; the driver dispatches the segments in order.
# {acc} is the accumulator's value type, {load} converts input element x[off] to it and
# {reload} the output element out[p] (int64 accumulators plug in here).
SCAN_CHUNK = 16384
SCAN = RED_HEAD + _RED_OFFSETS + _MAIN_1D + """    let off0 = kept_base(i);
    let step = lay[28];
    let inner = lay[37];
    let start = lay[38];
    let o0 = (i / inner) * lay[36] * inner + i % inner;
    var off = off0;
    var acc: {acc};
    if (start == 0) {{
        acc = {load};   // the first element as is (NumPy: cumsum([-0.0]) is -0.0)
        out[o0] = {store};
    }} else {{
        let p = o0 + (start - 1) * inner;
        acc = {reload};
    }}
    for (var r = max(start, 1); r < lay[39]; r = r + 1) {{
        off = off0 + r * step;
        let v = {load};
        acc = {combine};
        out[o0 + r * inner] = {store};
    }}
}}
"""

# A fused group of elementwise nodes as one kernel (tenferro.devices._wgsl_fusion):
# each distinct input buffer bound once (bindings 0..), one new C-contiguous output
# per group output (written at the linear index i), the layout last (ELEMENTWISE's,
# from lay[{at}]: its output strides unused).  {functions}: one WGSL function per
# distinct node body; {body}: the loads, the calls in graph order as let temporaries.
_FUSED_INDEX = """    let nd = lay[{at} + 1];
    var rem = i;
{offsets_init}
    for (var d = nd - 1; d >= 0; d = d - 1) {{
        let extent = lay[{at} + 3 + d];
        let c = rem % extent;
        rem = rem / extent;
{offsets_step}
    }}
{body}
"""
FUSED = """
{prelude}
{bindings}
@group(0) @binding({meta_binding}) var<storage, read> lay: array<i32>;
{functions}""" + _MAIN_1D + _FUSED_INDEX + """{stores}
}}
"""
# A fused group ending with a reduction, as the reduction's head: ev(i) evaluates the
# group at element i (C order) of its shape, which the reduction reads as a
# C-contiguous input (lay[0..37]); the group's layout follows from lay[{at}].
FUSED_REDUCE_HEAD = """{prelude}
{bindings}
@group(0) @binding({out_binding}) var<storage, read_write> out: array<{out_store}>;
@group(0) @binding({meta_binding}) var<storage, read> lay: array<i32>;
{functions}
fn ev(i: i32) -> {value} {{
""" + _FUSED_INDEX + """    return {result};
}}
"""

# Integer-array indexing (take, take_along_axis and their adjoints, the scatter-adds):
# one thread per *iterated* element (the output of a gather, the values of a scatter),
# with ELEMENTWISE's layout (webgpu._layout, its output strides unused) over the inputs
# [target, idx(, values)]: the target's strides are 0 along the index dims, so element
# i pairs with target element ``o0 + idx[o1] * axis_stride`` (the axis stride is
# appended to the layout; {body} reads it).  Indices are int64 (vec2<u32>) that the
# core has bounds-checked and made non-negative: the low word is the index.
GATHER = """
@group(0) @binding(0) var<storage, read> x: array<{store}>;
@group(0) @binding(1) var<storage, read> idx: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<{store}>;
@group(0) @binding(3) var<storage, read> lay: array<i32>;
""" + _MAIN_1D + _FUSED_INDEX + """}}
"""
# The scatter-add writes through atomics (duplicate indices accumulate): {add} is
# add_at's body, adding value v (storage type) to element t of ``out``
# (array<atomic<{atom}>>), one of SCATTER_ADD's.
SCATTER = """
@group(0) @binding(0) var<storage, read> values: array<{store}>;
@group(0) @binding(1) var<storage, read> idx: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<{atom}>>;
@group(0) @binding(3) var<storage, read> lay: array<i32>;

fn add_at(t: i32, v: {store}) {{
{add}
}}
""" + _MAIN_1D + _FUSED_INDEX + """}}
"""
# kind -> (atomic type, add_at body).  float32: WGSL has no float atomics, so a
# compare-exchange loop on the bits (each failed exchange means another thread's add
# landed, so it ends; llvmpipe's cap of 65535 trips a loop is out of reach unless as
# many adds race for one element).  int32 wraps as NumPy's.  bool: a logical or, as
# np.add.at and the CPU kernel.  int64: exact mod 2^64: the low words add atomically,
# and each add carries into the high word when its own low-word add wrapped (the old
# value atomicAdd returns says so); the high-word adds commute.
SCATTER_ADD = {
    "f": ("u32", """    var old = atomicLoad(&out[t]);
    loop {
        let r = atomicCompareExchangeWeak(&out[t], old, bitcast<u32>(bitcast<f32>(old) + v));
        if (r.exchanged) { break; }
        old = r.old_value;
    }"""),
    "i": ("i32", "    atomicAdd(&out[t], v);"),
    "b": ("u32", "    if (v != 0u) { atomicOr(&out[t], 1u); }"),
    "l": ("u32", """    let lo = atomicAdd(&out[2 * t], v.x);
    atomicAdd(&out[2 * t + 1], v.y + select(0u, 1u, lo + v.x < lo));"""),
}
# put (x[index] = values): flat positions into a C-contiguous target, NumPy's rule that
# the last of duplicate positions wins.  PUT_WINNER: win[p] = 1 + the last thread (C
# order of the positions) writing p (atomicMax); PUT: that thread alone writes
# out[target offset + p].  Layout: ELEMENTWISE's over the inputs [idx, values], then
# the target's offset.  The positions are int32 or int64 ({istore}: i32, vec2<u32>).
PUT_WINNER = """
@group(0) @binding(0) var<storage, read> idx: array<{istore}>;
@group(0) @binding(1) var<storage, read_write> win: array<atomic<i32>>;
@group(0) @binding(2) var<storage, read> lay: array<i32>;
""" + _MAIN_1D + _FUSED_INDEX + """}}
"""
PUT = """
@group(0) @binding(0) var<storage, read> idx: array<{istore}>;
@group(0) @binding(1) var<storage, read> values: array<{store}>;
@group(0) @binding(2) var<storage, read> win: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<{store}>;
@group(0) @binding(4) var<storage, read> lay: array<i32>;
""" + _MAIN_1D + _FUSED_INDEX + """}}
"""
