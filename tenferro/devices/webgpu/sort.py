"""The WebGPU driver's sorting and searching: the ``argsort`` and ``searchsorted``
primitives (hence ``sort``, ``unique``, ``median``, ``quantile``, ``digitize``, ... above
them), with NumPy's order.

Both compare *keys*: each value mapped to unsigned words whose unsigned (lexicographic)
order is NumPy's sort order: float32 with every NaN last and -0.0 equal to 0.0, int32
and int64 with the sign bit flipped, bool as 0/1; ``descending`` complements them.
Values are read as their raw words (``u32``, or ``vec2<u32>`` for int64), so no float
passes through the shader's arithmetic (no denormal flushing, no NaN folding).

``argsort``: every line along ``axis`` (any strides; the others are the batch) is padded
to a power of two P and sorted as (key, index) pairs by a bitonic network.  The index
breaks ties, so the permutation is the stable sort's (ties in input order, ascending or
descending); the pads (the largest key, index 2^32 - 1) go last.  The stages whose
compare distance is within a block of ``BLOCK`` elements run in workgroup memory,
several stages a dispatch; the longer distances take one dispatch a stage over a
buffer of pairs.  Lines of at most ``BLOCK`` elements take one dispatch in all (input
to output); longer ones one to sort every block (input to pairs), then per longer
merge its global stages and one to finish it in the blocks (the last: to the output).

``searchsorted``: one thread per query, a binary search over the keys of the sorted
1-D ``a`` (any stride): ``side="left"`` finds the first position whose key is not below
the query's, ``"right"`` the first above it (NaN queries: the first NaN, or the end).
"""
import functools
import math

from ... import _caches
from . import wgsl
from .array import I64, kind, new, unsupported
from .elementwise import full
from .reduce import red_layout
from .render import contiguous_copy
from .wgsl import WORKGROUP as WG

BLOCK = 2 * WG   # elements a workgroup sorts in workgroup memory (two a thread)

# per kind: (the WGSL type of an element's raw words, the body of ``key_up(b)``: its
# ascending key, of type K)
_KEYS = {
    "f": ("u32", """    let m = b & 0x7fffffffu;
    if (m > 0x7f800000u) { return 0xffffffffu; }   // NaN: after +inf
    if (m == 0u) { return 0x80000000u; }           // -0.0 ties 0.0
    return select(b | 0x80000000u, ~b, b >= 0x80000000u);"""),
    "i": ("u32", "    return b ^ 0x80000000u;"),
    "b": ("u32", "    return min(b, 1u);"),
    "l": ("vec2<u32>", "    return vec2<u32>(b.y ^ 0x80000000u, b.x);"),  # (high, low)
}
# per key type: K, the (key, index) pair E and their helpers
_PAIRS = {
    "u32": """
alias K = u32;
alias E = vec2<u32>;
const K_MAX = 0xffffffffu;
fn k_lt(a: K, b: K) -> bool { return a < b; }
fn e_make(k: K, i: u32) -> E { return E(k, i); }
fn e_key(e: E) -> K { return e.x; }
fn e_idx(e: E) -> u32 { return e.y; }
""",
    "vec2<u32>": """
alias K = vec2<u32>;
alias E = vec4<u32>;
const K_MAX = vec2<u32>(0xffffffffu, 0xffffffffu);
fn k_lt(a: K, b: K) -> bool { return a.x < b.x || (a.x == b.x && a.y < b.y); }
fn e_make(k: K, i: u32) -> E { return E(k, i, 0u); }
fn e_key(e: E) -> K { return e.xy; }
fn e_idx(e: E) -> u32 { return e.z; }
""",
}
_COMMON = """
fn key_up(b: W) -> K {{
{key}
}}
fn key(b: W) -> K {{ return {sign}key_up(b); }}
// a strictly before b: by key, ties by index (stable); pads are equal to each other
fn before(a: E, b: E) -> bool {{
    let ka = e_key(a);
    let kb = e_key(b);
    return k_lt(ka, kb) || (!k_lt(kb, ka) && e_idx(a) < e_idx(b));
}}
fn pad() -> E {{ return e_make(K_MAX, 0xffffffffu); }}
"""
# The thread (or workgroup) number of the 2-D grid (see wgsl's module docstring).
_MAIN = """
@compute @workgroup_size({wg})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {{
    let blk = wg.y * nwg.x + wg.x;
    let g = blk * {wg}u + li;
"""
# The argsort kernels' layout: reduce.red_layout's over the sorted axis (lay[0] lines,
# the axis's stride lay[28] and length lay[36]: n), then lay[37] = P, lay[38] = the
# product of the extents after the axis, lay[39..40] = this dispatch's stages.  Element
# g of the padded lines is element j = g % P of line g / P.  A kernel reads its pairs
# through load(g) and writes them through store(g, e) (_ENDS: from the input or the
# buffer of pairs, to that buffer or the output), then ``lay`` is bound.
_ENDS = {   # name -> (its binding, load, store)
    # the input x: (key, index) of element j, or a pad past n
    "x": ("""
@group(0) @binding({b}) var<storage, read> x: array<W>;
""" + wgsl._RED_OFFSETS, """
fn load(g: u32) -> E {{
    let p = u32(lay[37]);
    let j = g % p;
    if (j >= u32(lay[36])) {{ return pad(); }}
    return e_make(key(x[kept_base(i32(g / p)) + i32(j) * lay[28]]), j);
}}
""", None),
    "pairs": ("""
@group(0) @binding({b}) var<storage, read_write> pairs: array<E>;
""", """
fn load(g: u32) -> E {{ return pairs[g]; }}
""", """
fn store(g: u32, e: E) {{ pairs[g] = e; }}
"""),
    # the output (C-contiguous, x's shape, int64): the index of sorted element j < n of
    # line = outer * inner + i at (outer * n + j) * inner + i
    "out": ("""
@group(0) @binding({b}) var<storage, read_write> out: array<vec2<u32>>;
""", None, """
fn store(g: u32, e: E) {{
    let p = u32(lay[37]);
    let n = u32(lay[36]);
    let j = g % p;
    if (j >= n) {{ return; }}
    let line = g / p;
    let inner = u32(lay[38]);
    out[((line / inner) * n + j) * inner + line % inner] = vec2<u32>(e_idx(e), 0u);
}}
"""),
}
# Compare-exchange positions l < r (ascending where up): the order of merging a run of
# length k sorts it ascending where position l's bit k is clear in its line.
_CSWAP = """
@group(0) @binding({nb}) var<storage, read> lay: array<i32>;
fn up(l: u32, k: u32) -> bool {{ return ((l & (u32(lay[37]) - 1u)) & k) == 0u; }}
fn partner(t: u32, j: u32) -> u32 {{ return ((t & ~(j - 1u)) << 1u) | (t & (j - 1u)); }}
"""
# One stage (k, j) = lay[39..40] over the buffer of pairs: thread t compares
# partner(t, j) and partner(t, j) + j.
GLOBAL = _CSWAP + _MAIN + """    if (g >= u32(lay[0]) * u32(lay[37]) / 2u) {{ return; }}
    let k = u32(lay[39]);
    let l = partner(g, u32(lay[40]));
    let r = l + u32(lay[40]);
    let a = pairs[l];
    let b = pairs[r];
    if (up(l, k) == before(b, a)) {{ pairs[l] = b; pairs[r] = a; }}
}}
"""
# Workgroup blk sorts block blk of {block} elements through the stages k = lay[39] ..
# lay[40] (doubling), each from j = min(k / 2, {wg}) down to 1: every block from scratch
# (k = 2 .. min(P, {block})), or the tail of a longer merge (k = lay[39] = lay[40]).
LOCAL = _CSWAP + """
var<workgroup> sh: array<E, {block}>;
""" + _MAIN + """    let total = u32(lay[0]) * u32(lay[37]);
    let base = blk * {block}u;
    if (base >= total) {{ return; }}   // uniform: one blk a workgroup
    for (var h = 0u; h < {block}u; h = h + {wg}u) {{
        if (base + h + li < total) {{ sh[h + li] = load(base + h + li); }}
    }}
    for (var k = u32(lay[39]); k <= u32(lay[40]); k = k << 1u) {{
        for (var j = min(k >> 1u, {wg}u); j > 0u; j = j >> 1u) {{
            workgroupBarrier();
            let l = partner(li, j);
            if (base + l < total) {{   // (a line's pairs are all in or all out)
                let a = sh[l];
                let b = sh[l + j];
                if (up(base + l, k) == before(b, a)) {{ sh[l] = b; sh[l + j] = a; }}
            }}
        }}
    }}
    workgroupBarrier();
    for (var h = 0u; h < {block}u; h = h + {wg}u) {{
        if (base + h + li < total) {{ store(base + h + li, sh[h + li]); }}
    }}
}}
"""
# out[i] = the insertion point of query v[lay[1] + i] into a (lay[4] elements from
# lay[2], stride lay[3]); lay[5] = 1 for side="right".
SEARCH = """
@group(0) @binding(0) var<storage, read> a: array<W>;
@group(0) @binding(1) var<storage, read> v: array<W>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> lay: array<i32>;
""" + _MAIN + """    if (g >= u32(lay[0])) {{ return; }}
    let q = key(v[u32(lay[1]) + g]);
    let right = lay[5] != 0;
    var lo = 0;
    var hi = lay[4];
    while (lo < hi) {{
        let mid = lo + (hi - lo) / 2;
        let km = key(a[lay[2] + mid * lay[3]]);
        if (select(k_lt(km, q), !k_lt(q, km), right)) {{ lo = mid + 1; }} else {{ hi = mid; }}
    }}
    out[g] = vec2<u32>(u32(lo), 0u);
}}
"""


@_caches.memoize("webgpu.sort_sources", maxsize=64)
def _source(template, k, descending=False, ends=()):
    """``template`` with the key and pair helpers of expression kind ``k``, after the
    bindings of ``ends`` (keys of _ENDS, bound in order; ``lay`` next)."""
    words, body = _KEYS[k]
    pre = "alias W = %s;\n%s" % (words, _PAIRS[words])
    pre += _COMMON.format(key=body, sign="~" if descending else "")
    pre += "".join(_ENDS[e][0].format(b=b) for b, e in enumerate(ends))
    if ends:   # load from the first, store to the last
        pre += _ENDS[ends[0]][1].format() + _ENDS[ends[-1]][2].format()
    return pre + template.format(wg=WG, block=BLOCK, nb=len(ends))


def _kind(op, x):
    k = kind(x.dtype)
    if k is None:
        raise unsupported(x.device, op, x.dtype)
    return k


def _argsort(x, *, axis, descending):
    """The stable sort's permutation of ``x`` along ``axis`` (int64, C-contiguous), NaN
    last (first when ``descending``), ties in input order."""
    k = _kind("argsort", x)
    n = x.shape[axis] if x.ndim else 1
    if x.size == 0 or n == 1:
        return full(x.shape, I64, 0, x.device, "argsort")
    axis %= x.ndim
    _, nlines, _, meta = red_layout(x, (axis,), "argsort")
    p = 1 << (n - 1).bit_length()
    meta = meta + [p, math.prod(x.shape[axis + 1:])]
    ctx = x.storage.ctx
    total = nlines * p
    nblocks = -(-total // BLOCK)
    src = functools.partial(_source, k=k, descending=descending)
    out = new(x.shape, I64, x.device, "argsort")
    if p <= BLOCK:   # every line within a block: one dispatch, input to output
        ctx.dispatch(src(LOCAL, ends=("x", "out")), [x.storage, out.storage],
                     meta + [2, p], nblocks * WG)
        return out
    pairs = ctx.alloc(total * (16 if k == "l" else 8), "argsort", x.device)
    ctx.dispatch(src(LOCAL, ends=("x", "pairs")), [x.storage, pairs], meta + [2, BLOCK],
                 nblocks * WG)
    stage, tail = src(GLOBAL, ends=("pairs",)), src(LOCAL, ends=("pairs",))
    kk = 2 * BLOCK
    while kk <= p:   # merges longer than a block: global stages, then the block's tail
        j = kk // 2
        while j >= BLOCK:
            ctx.dispatch(stage, [pairs], meta + [kk, j], total // 2)
            j //= 2
        if kk < p:
            ctx.dispatch(tail, [pairs], meta + [kk, kk], nblocks * WG)
        else:        # the last merge's tail writes the output
            ctx.dispatch(src(LOCAL, ends=("pairs", "out")), [pairs, out.storage],
                         meta + [kk, kk], nblocks * WG)
        kk *= 2
    return out


def _searchsorted(a, v, *, side):
    """Insertion points (int64, ``v``'s shape) of ``v`` into the sorted 1-D ``a``."""
    k = _kind("searchsorted", a)
    if v.dtype != a.dtype or a.ndim != 1 or a.device != v.device:
        raise ValueError("tenferro.searchsorted (webgpu): expected a 1-D a and v of one "
                         "dtype on one device, got a %s %s and v %s %s"
                         % (a.dtype, a.shape, v.dtype, v.shape))
    out = new(v.shape, I64, v.device, "searchsorted")
    if v.size == 0:
        return out
    if not v.c_contiguous:
        v = contiguous_copy(v)
    stride = a.estrides[0] if a.size else 0
    meta = [v.size, v.offset, a.offset, stride, a.shape[0], int(side == "right")]
    v.storage.ctx.dispatch(_source(SEARCH, k), [a.storage, v.storage, out.storage], meta,
                           v.size)
    return out


implementations = {"argsort": _argsort, "searchsorted": _searchsorted}
