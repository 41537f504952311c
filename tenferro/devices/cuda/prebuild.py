"""Every kernel the CUDA driver can generate, and :func:`compile_all`, which compiles
them with NVRTC alone (no GPU): the CI check that each kernel compiles for each
architecture, and a way to fill the disk cache ahead of a run.

The kernels: the elementwise kernel of every (op, dtype) :mod:`.cmath` supports (into
the dtype it computes), the casts between the 7 dtypes, copy, assign, where and clip,
the strided forms of the index walk, the fused kernels of a representative set of
groups, and what the modules written beside these export as ``all_kernels()``
(reductions, indexing, matmul's helpers) where they are present.

Kernels sharing a header (everything before their parameter struct: the math prelude)
are compiled in batches of :data:`BATCH`, one NVRTC program each, renamed apart, on a
few threads; a batch that fails is compiled kernel by kernel so the error names the
kernel and shows NVRTC's log.
"""
import concurrent.futures
import importlib
import os
import re

import numpy as np

from ... import _dtypes
from . import nvrtc
from .cmath import BINARY_SUPPORT, OUT_DTYPE, UNARY_SUPPORT
from .elementwise import TERNARY_EXPR, op_expr
from .kernels import Kernel, elementwise_kernel

BATCH = 48
DTYPES = tuple(_dtypes.DTYPES)
BOOL = np.dtype(bool)
_OTHERS = ("reduce", "scan", "index", "matmul", "linalg")   # modules exporting all_kernels()


def elementwise_kernels():
    """(label, Kernel) of every elementwise kernel: ops, casts, copy/assign, where,
    clip (contiguous), and the copy's strided walks for every dimension count the
    index code distinguishes."""
    out = []

    def add(label, name, expr, ins, res, nd=-1):
        out.append((label, elementwise_kernel(name, expr, ins, res, nd)))
    for table, nin in ((UNARY_SUPPORT, 1), (BINARY_SUPPORT, 2)):
        for op in sorted(table):
            for d in sorted(table[op], key=str):
                add("%s(%s)" % (op, d), "k_" + op, op_expr(op, nin), (d,) * nin,
                    OUT_DTYPE(op, d))
    for a in DTYPES:
        for b in DTYPES:
            add("convert(%s -> %s)" % (a, b), "k_convert", "v0", (a,), b)
            add("assign(%s -> %s)" % (a, b), "k_assign", "v0", (a,), b)
        add("copy(%s)" % a, "k_copy", "v0", (a,), a)
        add("where(%s)" % a, "k_where", TERNARY_EXPR["where"], (BOOL, a, a), a)
        if a.kind in "iuf":
            add("clip(%s)" % a, "k_clip", TERNARY_EXPR["clip"], (a, a, a), a)
    for nd in (0, 1, 2, 3):
        add("copy(float64, %d strided dims)" % nd, "k_copy", "v0", (DTYPES[4],), DTYPES[4],
            nd)
    return out


def fused_kernels():
    """(label, Kernel) of fused kernels for a representative set of groups: a chain of
    every node kind over mixed dtypes with a constant, and the reductions (a block and
    a thread per output) ending it, through the kernels' own renderers."""
    from . import fused as F
    from ..._ir import Var

    f32, f64, i64 = np.dtype("float32"), np.dtype("float64"), np.dtype("int64")

    class _Node:   # the fields of tenferro._ir.Node the renderer reads
        def __init__(self, name, params, inputs, out):
            self.prim = type("P", (), {"name": name})()
            self.params, self.inputs, self.outputs = params, inputs, [out]

    def var(d):
        return Var((4, 5), d)
    x, y, i = var(f64), var(f64), var(i64)
    nodes, value = [], x
    for op, nin in (("sin", 1), ("exp", 1), ("tanh", 1), ("sqrt", 1), ("add", 2),
                    ("multiply", 2), ("subtract", 2), ("divide", 2), ("maximum", 2)):
        if f64 in (UNARY_SUPPORT if nin == 1 else BINARY_SUPPORT).get(op, ()):
            out = var(f64)
            nodes.append(_Node(op, {"out_dtype": f64}, [value, y][:nin], out))
            value = out
    cast, mask, pick, clipped = var(f32), var(BOOL), var(f64), var(f64)
    nodes += [_Node("convert", {"dtype": f32}, [i], cast),
              _Node("greater", {"out_dtype": BOOL}, [value, y], mask),
              _Node("where", {"out_dtype": f64}, [mask, value, y], pick),
              _Node("clip", {"out_dtype": f64}, [pick, x, y], clipped)]
    graph = type("G", (), {})()
    graph.in_vars, graph.outs = (x, y, i), (clipped, cast)
    graph.nodes = nodes
    plan = F._plan(graph)
    out = [("fused chain (nd=%d)" % nd, F.elementwise_group_kernel(plan, nd))
           for nd in (-1, 2)] if plan is not None else []
    for d in (f32, f64, i64, BOOL):
        ident = F.identity_plan(d)
        for op in ("sum", "prod", "max", "min", "any", "all"):
            acc = BOOL if op in ("any", "all") else (i64 if d == BOOL and op in
                                                      ("sum", "prod") else d)
            if not F.combines(op, acc):
                continue
            for per_block in (True, False):
                out.append(("fused %s(%s)%s" % (op, d, " per block" if per_block else ""),
                            F.reduce_group_kernel(ident, op, acc, 1, 2, per_block)))
    return out


def all_kernels():
    """(label, Kernel) of every kernel this driver can generate (deduplicated)."""
    ks = elementwise_kernels() + fused_kernels()
    for name in _OTHERS:
        mod = importlib.import_module("." + name, __package__)
        ks += [(k.name if isinstance(k, Kernel) else k[0], k if isinstance(k, Kernel)
                else k[1]) for k in mod.all_kernels()]
    seen, unique = set(), []
    for label, k in ks:
        if k.source not in seen:
            seen.add(k.source)
            unique.append((label, k))
    return unique


def _split(k):
    """(header, rest) of a kernel's source: the part before its parameter struct (shared
    between kernels) and the struct and function; None when there is no such struct."""
    at = k.source.find("struct %s_params" % k.name)
    return None if at < 0 else (k.source[:at], k.source[at:])


def _batches(kernels):
    """Lists of (label, Kernel), the kernels of one header together, at most BATCH each."""
    groups = {}
    for label, k in kernels:
        parts = _split(k)
        groups.setdefault(parts[0] if parts else id(k), []).append((label, k))
    return [g[i:i + BATCH] for g in groups.values() for i in range(0, len(g), BATCH)]


def _program(batch):
    """One NVRTC program for a batch: the header once, each kernel renamed apart."""
    header = _split(batch[0][1])
    if header is None or len(batch) == 1:
        return batch[0][1].source
    parts = [header[0]]
    for j, (_, k) in enumerate(batch):
        rest = _split(k)[1]
        parts.append(re.sub(r"\b%s(_params)?\b" % re.escape(k.name),
                            lambda m, j=j, n=k.name: "%s__%d%s" % (n, j, m.group(1) or ""),
                            rest))
    return "\n".join(parts)


def _compile(batch, arch):
    try:
        nvrtc.compile_cubin(_program(batch), "%s (+%d).cu" % (batch[0][1].name, len(batch) - 1),
                            arch)
    except RuntimeError:
        if len(batch) == 1:
            label, k = batch[0]
            raise RuntimeError("tenferro.devices.cuda.compile_all: kernel %s (%s) does not "
                               "compile for %s" % (k.name, label, arch)) from None
        for one in batch:   # find the kernel(s) at fault, by name
            _compile([one], arch)
        raise
    return len(batch)


def compile_all(arch="sm_90", threads=None):
    """Render every kernel the driver can generate and compile each with NVRTC for
    ``arch`` (no GPU needed; the NVRTC caches apply); returns how many.  RuntimeError
    naming the first kernel that does not compile, with NVRTC's log."""
    batches = _batches(all_kernels())
    threads = threads or min(8, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return sum(pool.map(lambda b: _compile(b, arch), batches))
