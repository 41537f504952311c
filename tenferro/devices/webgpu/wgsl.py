"""WGSL shader templates of the WebGPU driver (``tenferro.devices.webgpu``).

Every kernel is one of the templates below (or of :mod:`.wgsl_matmul`), rendered with
``str.format`` per (op, dtypes) by the module that runs it, with the helper functions
of :mod:`.wgsl_math` its body calls, and compiled once per device (the pipeline cache
of :class:`.context.Context` is keyed by the rendered source).  Conventions:

* Storage: float32 -> ``f32``, int32 -> ``i32``, bool -> ``u32`` (0 or 1), int64 ->
  ``vec2<u32>`` (low word, high word; see ``wgsl_math.PRELUDE64``).  Values are loaded
  into their *value type* (``f32``, ``i32``, ``bool``, ``vec2<u32>``) before an op's
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

# A fused group of elementwise nodes as one kernel (:mod:`.fused`):
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
# with ELEMENTWISE's layout (render.strided_layout, its output strides unused) over
# the inputs [target, idx(, values)]: the target's strides are 0 along the index dims,
# so element i pairs with target element ``o0 + idx[o1] * axis_stride`` (the axis
# stride is appended to the layout; {body} reads it).  Indices are int64 (vec2<u32>) that the
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
