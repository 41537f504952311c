"""The WGSL templates of the WebGPU driver's matrix products (:mod:`.matmul`).

Two kernels share one layout and grid: ``MATMUL`` (16 x 16 tiles) and ``MATMUL_RB``
(64 x 64 tiles, register-blocked); :func:`.matmul.kernel` picks one per product.
Conventions as in :mod:`.wgsl`.
"""

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

