"""The WebGPU driver's reductions (sum, prod, max, min, any, all), scans (cumsum,
cumprod) and argmax/argmin.

A reduction runs one thread per output element for short reduced extents, else a
workgroup tree over chunks whose partials are reduced again (:func:`reduce_op`, which
the fused kernels of :mod:`.fused` also drive with a head of their own); a scan runs
one thread per line, sequentially along the axis; argmax/argmin reduce (value, index)
pairs.
"""
import functools

import numpy as np

from . import wgsl
from .array import BOOL, F32, I32, I64, STORE, VALUE, c_strides, kind, new, unsupported
from .render import load_value, prelude_for, store_value
from .wgsl import MAXDIM, WORKGROUP as WG

implementations = {}   # op -> the driver function


# -- reductions (one thread per output element, or a workgroup tree) ------------------------

_I64_MIN, _I64_MAX = "vec2<u32>(0u, 0x80000000u)", "vec2<u32>(0xffffffffu, 0x7fffffffu)"
_RED = {  # op -> {kind: (accumulator init, combine(acc, v))}
    "sum": {"f": ("0.0", "acc + v"), "i": ("0", "acc + v"),
            "l": ("vec2<u32>(0u, 0u)", "l_add(acc, v)")},
    "prod": {"f": ("1.0", "acc * v"), "i": ("1", "acc * v"),
             "l": ("vec2<u32>(1u, 0u)", "l_mul(acc, v)")},
    "max": {"f": ("-f_inf()", "f_max(acc, v)"), "i": ("-2147483647 - 1", "max(acc, v)"),
            "b": ("false", "acc || v"), "l": (_I64_MIN, "l_max(acc, v)")},
    "min": {"f": ("f_inf()", "f_min(acc, v)"), "i": ("2147483647", "min(acc, v)"),
            "b": ("true", "acc && v"), "l": (_I64_MAX, "l_min(acc, v)")},
    "any": {"b": ("false", "acc || v")},
    "all": {"b": ("true", "acc && v")},
}
# The loaded value converted to the accumulator's type (the workgroup tree combines
# loaded values and partials alike): NumPy sums and multiplies bool and int32 in int64;
# any/all test truth (NaN is true: !(v == 0.0), as some compilers treat v != 0.0 as
# ordered).
_WIDEN = {I32: "l_from_i32(%s)", BOOL: "l_from_bool(%s)"}
_TRUTH = {F32: "!(%s == 0.0)", I32: "(%s != 0)", I64: "l_nz(%s)"}


def red_rule(op, dtype, out_dtype, value=None):
    """(init, combine, load) of reduction ``op`` of ``dtype`` into ``out_dtype``
    (None for out_dtype: the one NumPy gives), or None where there is none here.
    ``value``: the WGSL value of element ``off`` (default: the strided input's)."""
    load = load_value(dtype, "x[off]") if value is None else value
    if op in ("sum", "prod") and dtype in _WIDEN and out_dtype in (I64, None):
        dtype, load = I64, _WIDEN[dtype] % load
    elif op in ("any", "all") and dtype in _TRUTH:
        dtype, load = BOOL, _TRUTH[dtype] % load
    rule = _RED[op].get(kind(dtype))
    if rule is None or out_dtype not in (dtype, None):
        return None
    return rule + (load,)


_TREE_MIN = 64  # reduced extents at least this long use the workgroup tree
RED_EXTRA_AT = 38   # where a reduction's layout ends: _reduce's ``extra`` starts there


def red_layout(x, axes, op):
    """(kept shape, its size, the reduced size, the REDUCE layout ``meta``) of reducing
    ``x`` over ``axes``."""
    axes = tuple(sorted(a % x.ndim for a in axes)) if x.ndim else ()
    keep = [i for i in range(x.ndim) if i not in axes]
    if len(keep) > MAXDIM or len(axes) > MAXDIM:
        raise ValueError("tenferro.%s (webgpu): at most %d dimensions" % (op, MAXDIM))
    out_shape = tuple(x.shape[i] for i in keep)
    nout = int(np.prod(out_shape, dtype=np.int64))
    nred = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    pad = lambda v, f: list(v) + [f] * (MAXDIM - len(v))  # noqa: E731
    meta = ([nout, len(keep), len(axes), x.offset]
            + pad([x.shape[i] for i in keep], 1) + pad([x.estrides[i] for i in keep], 0)
            + pad([x.shape[i] for i in axes], 1) + pad([x.estrides[i] for i in axes], 0)
            + [nred])
    return out_shape, nout, nred, meta


def _reduce(op, x, axes, fmt, new_out, store, new_part, part_store, again, head=None,
            extra=()):
    """Reduce ``x`` over ``axes`` with the kernel pieces ``fmt`` (prelude, in_store,
    out_store, acc, init, combine, load): one thread per output for short extents, else
    the workgroup tree over chunks of REDUCE_CHUNK.  ``store`` is the output's WGSL
    store expression in ``%s`` (the accumulator), ``new_out(shape)`` allocates it; with
    several chunks the partials (``new_part``; ``part_store``: their WGSL storage type
    and store expression) are reduced again by ``again(partials, axis)``.

    ``head``: (a rendered kernel head, the storages it binds before the output) in
    place of RED_HEAD's one strided ``x`` (a fused group, whose ``load`` reads element
    ``off`` itself: ``x`` then only gives the shape); ``extra``: layout words from
    ``RED_EXTRA_AT``."""
    out_shape, nout, nred, meta = red_layout(x, axes, op)
    fmt = dict(fmt, wg=WG)
    top, storages = head if head is not None else (None, [x.storage])

    def source(main, **kw):
        if top is None:
            return (wgsl.RED_HEAD + main).format(**fmt, **kw)
        return top + main.format(**fmt, **kw)

    ctx = x.storage.ctx
    if nred < _TREE_MIN or nout == 0:
        out = new_out(out_shape)
        ctx.dispatch(source(wgsl.REDUCE_MAIN, store=store % "acc"),
                     storages + [out.storage], meta + [1] + list(extra), nout)
        return out
    nchunks = -(-nred // wgsl.REDUCE_CHUNK)
    if nchunks == 1:
        part = new_out(out_shape)
    else:
        part = new_part(out_shape + (nchunks,))
        fmt["out_store"], store = part_store
    src = source(wgsl.REDUCE_TREE_MAIN, store=store % "sh[0]", chunk=wgsl.REDUCE_CHUNK,
                 half=WG // 2)
    ctx.dispatch(src, storages + [part.storage], meta + [nchunks] + list(extra),
                 nout * nchunks * WG)
    return part if nchunks == 1 else again(part, len(out_shape))


def reduce_op(op, x, axes, out_dtype, head=None, extra=()):
    """Reduction ``op`` (sum, prod, max, min, any, all) of ``x`` over ``axes`` into
    ``out_dtype``.  ``head``: (a rendered kernel head, the WGSL value of element
    ``off``, the storages it binds) reading a fused group instead of ``x``'s buffer
    (the fused kernels, :mod:`.fused`); ``extra``: its layout words."""
    dev = x.device
    if out_dtype not in STORE:
        raise unsupported(dev, op, out_dtype)
    rule = red_rule(op, x.dtype, out_dtype, None if head is None else head[1])
    if rule is None:
        raise unsupported(dev, op, x.dtype)
    init, combine, load = rule
    fmt = dict(prelude=prelude_for(init + combine + load), in_store=STORE[x.dtype],
               out_store=STORE[out_dtype], acc=VALUE[out_dtype], init=init,
               combine=combine, load=load)
    new_out = lambda shape: new(shape, out_dtype, dev, op)  # noqa: E731
    st = store_value(out_dtype, "%s")
    return _reduce(op, x, axes, fmt, new_out, st, new_out, (STORE[out_dtype], st),
                   lambda part, ax: reduce_op(op, part, (ax,), out_dtype),
                   None if head is None else (head[0], head[2]), extra)


for _n in _RED:
    implementations[_n] = functools.partial(reduce_op, _n)


# -- scans (cumsum / cumprod): one thread per line, sequential along the axis ----------------

_SCAN = {"cumsum": "sum", "cumprod": "prod"}   # the reduction whose rule a scan applies
# input dtype -> accumulator (= output) dtype: NumPy accumulates bool and int32 in int64
_SCAN_ACC = {F32: F32, I32: I64, BOOL: I64, I64: I64}


def _scan(op):
    def run(x, *, axis, out_dtype):
        dev = x.device
        acc = _SCAN_ACC.get(x.dtype)
        if acc is None or out_dtype != acc:
            raise unsupported(dev, op, x.dtype if acc is None else out_dtype)
        axis %= x.ndim
        out = new(x.shape, acc, dev, op)
        if out.size == 0:
            return out
        _, nlines, _, meta = red_layout(x, (axis,), op)
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        _, combine, load = red_rule(_SCAN[op], x.dtype, acc)   # load widens to acc
        src = wgsl.SCAN.format(prelude=prelude_for(combine + load), in_store=STORE[x.dtype],
                               out_store=STORE[acc], wg=WG, acc=VALUE[acc],
                               combine=combine, load=load, reload=load_value(acc, "out[p]"),
                               store=store_value(acc, "acc"))
        m = x.shape[axis]
        for start in range(0, m, wgsl.SCAN_CHUNK):  # segments, in order (see SCAN)
            x.storage.ctx.dispatch(src, [x.storage, out.storage],
                                   meta + [inner, start, min(start + wgsl.SCAN_CHUNK, m)],
                                   nlines)
        return out
    return run


for _n in _SCAN:
    implementations[_n] = _scan(_n)


# -- argmax / argmin: reductions of (value, index) pairs ------------------------------------

# per kind: (a strictly better than b for argmax, for argmin, a ties b) in a.v, b.v.
# A NaN beats everything (NumPy returns the first NaN); the NaN tests come first since
# some shader compilers fold ordered comparisons as if no NaN existed.
_ARG_CMP = {
    "f": ("!f_isnan(b.v) && (f_isnan(a.v) || a.v > b.v)",
          "!f_isnan(b.v) && (f_isnan(a.v) || a.v < b.v)",
          "select(a.v == b.v, f_isnan(a.v) && f_isnan(b.v), f_isnan(a.v) || f_isnan(b.v))"),
    "i": ("a.v > b.v", "a.v < b.v", "a.v == b.v"),
    "b": ("a.v && !b.v", "!a.v && b.v", "a.v == b.v"),
    "l": ("l_lt(b.v, a.v)", "l_lt(a.v, b.v)", "l_eq(a.v, b.v)"),
}
# per kind: (the worst value for argmax, for argmin): the identity of the combine
_ARG_WORST = {"f": ("-f_inf()", "f_inf()"), "i": ("-2147483647 - 1", "2147483647"),
              "b": ("false", "true"), "l": (_I64_MIN, _I64_MAX)}
# per kind: value <-> its bits as vec2<u32> (partials are vec4<u32>: value bits, index)
_ARG_BITS = {"f": ("vec2<u32>(bitcast<u32>(%s), 0u)", "bitcast<f32>(%s.x)"),
             "i": ("vec2<u32>(bitcast<u32>(%s), 0u)", "bitcast<i32>(%s.x)"),
             "b": ("vec2<u32>(select(0u, 1u, %s), 0u)", "(%s.x != 0u)"),
             "l": ("%s", "%s")}
_ARG_PRELUDE = """
struct P { v: %(val)s, i: i32 }
fn a_better(a: P, b: P) -> bool {
    if (%(better)s) { return true; }
    return (%(tie)s) && a.i < b.i;   // ties: the first index wins (any combine order)
}
fn a_comb(acc: P, v: P) -> P { if (a_better(v, acc)) { return v; } return acc; }
fn a_pack(p: P) -> vec4<u32> { return vec4<u32>(%(enc)s, bitcast<u32>(p.i), 0u); }
fn a_unpack(q: vec4<u32>) -> P { return P(%(dec)s, bitcast<i32>(q.z)); }
"""


def _argreduction(op):
    def run(x, *, axis):
        dev = x.device
        k = kind(x.dtype)
        if k is None:
            raise unsupported(dev, op, x.dtype)
        better = _ARG_CMP[k][op == "argmin"]
        enc, dec = _ARG_BITS[k]
        pre = _ARG_PRELUDE % dict(val=VALUE[x.dtype], better=better, tie=_ARG_CMP[k][2],
                                  enc=enc % "p.v", dec=dec % "q.xy")
        fmt = dict(prelude=prelude_for(pre + _ARG_WORST[k][0]) + pre, in_store=STORE[x.dtype],
                   out_store="vec2<u32>", acc="P", combine="a_comb(acc, v)",
                   init="P(%s, 2147483647)" % _ARG_WORST[k][op == "argmin"],
                   load="P(%s, r)" % load_value(x.dtype, "x[off]"))
        new_out = lambda shape: new(shape, I64, dev, op)  # noqa: E731
        index = "vec2<u32>(u32(%s.i), 0u)"

        def new_part(shape):  # 16-byte (vec4<u32>) elements: estrides count those
            return new(shape + (2,), I64, dev, op).view(shape, c_strides(shape), 0)

        def again(part, ax):  # reduce the partial pairs
            f = dict(fmt, in_store="vec4<u32>", load="a_unpack(x[off])")
            return _reduce(op, part, (ax,), f, new_out, index, new_part, packed, again)

        packed = ("vec4<u32>", "a_pack(%s)")
        return _reduce(op, x, (axis % max(x.ndim, 1),), fmt, new_out, index, new_part,
                       packed, again)
    return run


for _n in ("argmax", "argmin"):
    implementations[_n] = _argreduction(_n)


def supports(op, dtype):
    """Whether reduction, scan or arg-reduction ``op`` runs here for inputs of
    ``dtype`` (bool and int32 sums, products and scans accumulate in int64: NumPy)."""
    if dtype not in STORE:
        return False
    if op in _SCAN:
        return dtype in _SCAN_ACC
    if op in _RED:
        return red_rule(op, dtype, None) is not None
    return True
