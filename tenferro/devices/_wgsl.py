"""WGSL shader templates of the WebGPU driver (``tenferro.devices.webgpu``).

Every kernel is one of the templates below, rendered with ``str.format`` per
(op, dtypes) and compiled once per device (the driver's pipeline cache is keyed by
the rendered source and the device).  Conventions:

* Storage: float32 -> ``f32``, int32 -> ``i32``, bool -> ``u32`` (0 or 1).  Values are
  loaded into their *value type* (``f32``, ``i32``, ``bool``) before an op's
  expression sees them and stored back from it, so op expressions never deal with
  the bool-as-u32 storage.
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
_RED_HEAD = """{prelude}
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
# element offset ``off``): the head, formatted first, binds it (RED_HEAD: one strided
# input ``x``; FUSED_REDUCE_HEAD: a fused group evaluated at ``off``).
RED_HEAD = _RED_HEAD   # (the name other templates may concatenate)
REDUCE_MAIN = _RED_OFFSETS + """
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let i = i32((wg.y * nwg.x + wg.x) * {wg}u + li);
    if (i >= lay[0]) {{ return; }}
    let base = kept_base(i);
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

# Batched matrix product out[b, m, n] = sum_k a[b, m, k] * b[b, k, n] with 16 x 16
# tiles of a and b staged in workgroup (shared) memory.  Workgroups: x over column
# tiles, y over row tiles, z over (a chunk of) the batch.
#   lay = [M, N, K, nbatch_dims, batch_base, a_off, b_off, a_rs, a_cs, b_rs, b_cs,
#          batch_shape[6], a_batch_strides[6], b_batch_strides[6]]
MATMUL_TILE = 16
MATMUL = """
@group(0) @binding(0) var<storage, read> a: array<{store}>;
@group(0) @binding(1) var<storage, read> b: array<{store}>;
@group(0) @binding(2) var<storage, read_write> out: array<{store}>;
@group(0) @binding(3) var<storage, read> lay: array<i32>;

var<workgroup> ta: array<array<{store}, {tile}>, {tile}>;
var<workgroup> tb: array<array<{store}, {tile}>, {tile}>;

@compute @workgroup_size({tile}, {tile})
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
    let tx = i32(lid.x);
    let ty = i32(lid.y);
    let row = i32(wg.y) * {tile} + ty;
    let col = i32(wg.x) * {tile} + tx;
    var acc: {store} = {zero};
    for (var t = 0; t < K; t = t + {tile}) {{
        var va: {store} = {zero};
        if (row < M && t + tx < K) {{ va = a[ao + row * lay[7] + (t + tx) * lay[8]]; }}
        ta[ty][tx] = va;
        var vb: {store} = {zero};
        if (t + ty < K && col < N) {{ vb = b[bo + (t + ty) * lay[9] + col * lay[10]]; }}
        tb[ty][tx] = vb;
        workgroupBarrier();
        for (var k = 0; k < {tile}; k = k + 1) {{
            acc = acc + ta[ty][k] * tb[k][tx];
        }}
        workgroupBarrier();
    }}
    if (row < M && col < N) {{
        out[(bidx * M + row) * N + col] = acc;
    }}
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
{functions}
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let i = i32((wg.y * nwg.x + wg.x) * {wg}u + li);
    if (i >= lay[0]) {{ return; }}
""" + _FUSED_INDEX + """{stores}
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
