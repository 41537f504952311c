"""The CUDA driver's ``fused_elementwise``: one generated CUDA kernel per fused group.

A compiled program's fusion pass (:mod:`tenferro.graph.fusion`; the contract is
:mod:`tenferro._fused`) hands the driver each group as a sub-graph.  Every elementwise
node becomes a small ``__device__`` function holding the very expression the eager
kernel of that primitive stores (:func:`.elementwise.op_expr`, ``tf_<op>`` of
:mod:`.cmath`, ``tf_convert<OUT>`` to the node's dtype; where/clip from
:data:`.elementwise.TERNARY_EXPR`), so a fused program computes what the unfused one
does (NVRTC may contract a product and a sum of two nodes into one FMA: a rounding
closer to the exact value).  Inputs and constants are read through their own strides,
broadcast to the group's shape (:func:`.kernels.elementwise_layout` merges the
dimensions they step through together).

A group ending in a reduction (sum, prod, max, min, any, all over any axes) is one
kernel evaluating the group at each element it reduces (no temporary of the group's
shape).  The reduced axes are walked either by a block per output (a shared-memory
tree; when the reduced axes are contiguous in memory) or by a thread per output
(consecutive threads read consecutive outputs: a reduction over a leading axis reads
coalesced); where that leaves the GPU idle the reduced extent is cut into chunks whose
partial results a second pass of the same kernel (over the partials) combines.  Where
the group has other outputs besides, the elementwise kernel stores them and the
reduction's input, which the same reduction kernel then reduces.

A group the kernels cannot express (an op or dtype :mod:`.cmath` lacks, integer
``power``, whose exponents are checked on the host) runs node by node
(:func:`tenferro._fused.run_unfused`), raising the unfused program's error where the
driver lacks an op.
"""
import math
import weakref

import numpy as np

from ..._fused import KINDS, REDUCTIONS, run_unfused, tail as _tail
from ..._ir import Var
from .._layout import broadcast_view, coalesce
from .cmath import BINARY_SUPPORT, CTYPE, PRELUDE, UNARY_SUPPORT
from .elementwise import TERNARY_EXPR, op_expr
from .kernels import LOOP, MAX_WORDS, elementwise_layout, grid_for, index_lines, kernel, \
    launch
from .array import CUDAArray, new

BOOL = np.dtype(bool)
RED_BLOCK = 256        # threads of a block reducing one output (a power of two)
SIM_RED_BLOCK = 32     # in the simulator, whose barrier kernels run a thread per thread
BLOCK_CHUNK = 4096     # elements per block below which a reduction is not cut further
THREAD_CHUNK = 32      # the same, per thread of the thread-per-output kernel


def _node_expr(node):
    """The C expression (in ``v0, v1, ...``) the eager kernel of an elementwise node
    converts to the node's dtype, or None where this driver has no kernel for it."""
    name, ins, out = node.prim.name, [i.dtype for i in node.inputs], node.outputs[0].dtype
    kind = KINDS.get(name)
    if any(d not in CTYPE for d in ins + [out]):
        return None
    if kind == "cast":
        return "v0" if set(node.params) == {"dtype"} else None
    if set(node.params) != {"out_dtype"} or node.params["out_dtype"] != out:
        return None
    if kind in ("unary", "binary"):
        table = UNARY_SUPPORT if kind == "unary" else BINARY_SUPPORT
        if len(set(ins)) != 1 or ins[0] not in table.get(name, ()) or (
                name == "power" and ins[0].kind in "iu"):
            return None
        return op_expr(name, len(ins))
    if kind == "where" and ins == [BOOL, out, out]:
        return TERNARY_EXPR["where"]
    if kind == "clip" and ins == [out] * 3 and out.kind in "iuf":
        return TERNARY_EXPR["clip"]
    return None


class _Plan:
    """A group's kernel pieces: the C types of its inputs (the sub-graph's inputs, then
    its constants), the node functions, the statements computing the values from the
    loaded ``a0, a1, ...``, the C names of the values stored (``outs``: the group's
    outputs, the tail's input last), the tail node, the constants, and the kernels
    rendered so far.  It holds no reference to its graph (see :data:`_PLANS`)."""
    __slots__ = ("in_dtypes", "functions", "calls", "outs", "names", "tail", "consts",
                 "graph_outs", "kernels")

    def __init__(self, in_dtypes, functions, calls, outs, names, tail, consts, graph_outs):
        self.in_dtypes, self.functions, self.calls = in_dtypes, functions, calls
        self.outs, self.names, self.tail = outs, names, tail
        self.consts, self.graph_outs = consts, graph_outs
        self.kernels = {}

    def loads(self, at="o{k}"):
        """Statements loading input k at element offset ``at.format(k=k)`` into ``ak``."""
        return "".join("        const %s a%d = ((const %s*)p.p[%d])[%s];\n"
                       % (CTYPE[d], k, CTYPE[d], k, at.format(k=k))
                       for k, d in enumerate(self.in_dtypes))


def identity_plan(dtype):
    """The plan of a group that is its one input (reducing partial results)."""
    return _Plan((dtype,), "", "", [dtype], ["a0"], None, (), ())


def _plan(graph):
    """The group's :class:`_Plan`, or None when a node has no kernel here."""
    tail = _tail(graph)
    nodes = graph.nodes[:-1] if tail is not None else graph.nodes
    names = {id(v): "a%d" % k for k, v in enumerate(graph.in_vars)}
    consts = []
    for n in nodes:
        for i in n.inputs:
            if not isinstance(i, Var) and id(i) not in names:
                names[id(i)] = "a%d" % (len(graph.in_vars) + len(consts))
                consts.append(i)
    in_dtypes = tuple(v.dtype for v in graph.in_vars) + tuple(c.dtype for c in consts)
    if any(d not in CTYPE for d in in_dtypes):
        return None
    fns, calls = {}, []
    for k, node in enumerate(nodes):
        expr = _node_expr(node)
        if expr is None:
            return None
        ins, out = tuple(i.dtype for i in node.inputs), node.outputs[0].dtype
        key = (expr, ins, out)
        if key not in fns:
            args = ", ".join("const %s v%d" % (CTYPE[d], j) for j, d in enumerate(ins))
            fns[key] = ("tf_n%d" % len(fns),
                        "__device__ __forceinline__ %s tf_n%d(%s) { return tf_convert<%s>(%s); }\n"
                        % (CTYPE[out], len(fns), args, CTYPE[out], expr))
        names[id(node.outputs[0])] = "t%d" % k
        calls.append("        const %s t%d = %s(%s);\n" % (
            CTYPE[out], k, fns[key][0], ", ".join(names[id(i)] for i in node.inputs)))
    outs = [o for o in graph.outs if tail is None or o is not tail.outputs[0]]
    if tail is not None:
        if not combines(tail.prim.name, tail.outputs[0].dtype):
            return None
        outs.append(tail.inputs[0])
    if any(id(o) not in names for o in outs):
        return None   # an output that is a constant
    return _Plan(in_dtypes, "".join(f for _, f in fns.values()), "".join(calls),
                 [o.dtype for o in outs], [names[id(o)] for o in outs], tail,
                 tuple(consts), graph.outs)


def combines(op, dtype):
    """Whether reduction ``op`` can accumulate in ``dtype`` here (its binary op is in
    :mod:`.cmath`)."""
    return dtype in BINARY_SUPPORT.get(REDUCTIONS[op], ())


def elementwise_group_kernel(plan, nd):
    """The kernel storing the group's outputs (operands: the inputs, then the outputs,
    all laid out as :func:`.kernels.elementwise_layout` says)."""
    k = plan.kernels.get(nd)
    if k is None:
        nin, nout = len(plan.in_dtypes), len(plan.outs)
        stores = "".join("        ((%s*)p.p[%d])[o%d] = %s;\n"
                         % (CTYPE[d], nin + j, nin + j, name)
                         for j, (d, name) in enumerate(zip(plan.outs, plan.names)))
        body = LOOP + index_lines(nin + nout, nd) + plan.loads() + plan.calls + stores + \
            "    }\n"
        nmeta = 1 + (0 if nd <= 0 else nd * (nin + nout + 1))
        k = plan.kernels[nd] = kernel("k_fused", body, nin + nout, nmeta,
                                      prelude=PRELUDE + plan.functions)
    return k


# -- the reduction at the end of a group ---------------------------------------------------

RED_META = 4   # M (outputs), L (reduced extent), P (chunks per output), C (chunk length)


def reduce_group_kernel(plan, op, acc_dtype, ndk, ndr, per_block):
    """The kernel reducing the group's last value with ``op`` into ``acc_dtype``: a block
    (``per_block``) or a thread per (output, chunk) pair.  Metadata: :data:`RED_META`
    words, the kept shape and the inputs' strides along it (``ndk`` dimensions), then
    the reduced shape and strides (``ndr``)."""
    key = (op, acc_dtype, ndk, ndr, per_block)
    k = plan.kernels.get(key)
    if k is not None:
        return k
    nin, acc = len(plan.in_dtypes), CTYPE[acc_dtype]
    at_r = RED_META + ndk * (nin + 1)
    combine = "tf_convert<%s>(tf_%s(%%s, %%s))" % (acc, REDUCTIONS[op])
    # the group's value at reduced element i of the output whose inputs start at b[k]
    ev = ("__device__ __forceinline__ %s tf_ev(char* const* pp, const long long* mm, "
          "const long long* b, long long i) {\n"
          "    const struct { char* const* p; const long long* m; } p = {pp, mm};\n"
          % acc + index_lines(nin, ndr, at_r) + plan.loads("b[{k}] + o{k}") + plan.calls +
          "        return tf_convert<%s>(%s);\n}\n" % (acc, plan.names[-1]))
    bases = ("            long long b[%d];\n            { const long long i = j;\n%s"
             % (max(nin, 1), index_lines(nin, ndk, RED_META)) +
             "".join("            b[%d] = o%d;\n" % (k, k) for k in range(nin)) + "            }\n")
    head = ("    const long long M = p.m[0], L = p.m[1], P = p.m[2], C = p.m[3];\n"
            "    %s* out = (%s*)p.p[%d];\n" % (acc, acc, nin))
    if per_block:
        body = head + (
            "    alignas(16) __shared__ unsigned char tf_smem[%d * sizeof(%s)];\n"
            "    %s* sh = (%s*)tf_smem;\n"
            "    for (long long w = blockIdx.x; w < M * P; w += gridDim.x) {\n"
            "        const long long j = w / P, lo = (w %% P) * C;\n"
            "        const long long hi = lo + C < L ? lo + C : L;\n"
            "        const long long cnt = hi - lo < blockDim.x ? hi - lo : blockDim.x;\n"
            "        if (threadIdx.x < cnt) {\n" % (RED_BLOCK, acc, acc, acc) + bases +
            "            %s r = tf_ev(p.p, p.m, b, lo + threadIdx.x);\n"
            "            for (long long i = lo + threadIdx.x + blockDim.x; i < hi; "
            "i += blockDim.x)\n"
            "                r = %s;\n"
            "            sh[threadIdx.x] = r;\n"
            "        }\n"
            "        __syncthreads();\n"
            "        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
            "            if (threadIdx.x + s < cnt && threadIdx.x < s)\n"
            "                sh[threadIdx.x] = %s;\n"
            "            __syncthreads();\n"
            "        }\n"
            "        if (threadIdx.x == 0) out[w] = sh[0];\n"
            "        __syncthreads();\n"
            "    }\n" % (acc, combine % ("r", "tf_ev(p.p, p.m, b, i)"),
                         combine % ("sh[threadIdx.x]", "sh[threadIdx.x + s]")))
    else:
        body = head + (
            "    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; "
            "w < M * P;\n"
            "         w += (long long)gridDim.x * blockDim.x) {\n"
            "        const long long j = w % M, lo = (w / M) * C;\n"
            "        const long long hi = lo + C < L ? lo + C : L;\n" + bases +
            "        %s r = tf_ev(p.p, p.m, b, lo);\n"
            "        for (long long i = lo + 1; i < hi; ++i) r = %s;\n"
            "        out[w] = r;\n"
            "    }\n" % (acc, combine % ("r", "tf_ev(p.p, p.m, b, i)")))
    k = plan.kernels[key] = kernel("k_fused_reduce", body, nin + 1,
                                   at_r + ndr * (nin + 1), barrier=per_block,
                                   prelude=PRELUDE + plan.functions + ev)
    return k


def _split_layout(shape, axes, xs):
    """(kept shape, reduced shape, the inputs' kept and reduced strides), each part's
    dimensions merged where every input steps through them as one."""
    kept = [d for d in range(len(shape)) if d not in axes]
    red = [d for d in range(len(shape)) if d in axes]
    kshape, kst = coalesce([shape[d] for d in kept], [[x.estrides[d] for d in kept]
                                                      for x in xs])
    rshape, rst = coalesce([shape[d] for d in red], [[x.estrides[d] for d in red]
                                                     for x in xs])
    return kshape, rshape, kst, rst


def reduce_group(plan, xs, shape, op, axes, out_dtype, dev):
    """``op`` over ``axes`` of the group's last value, its inputs ``xs`` broadcast to
    ``shape``: a new C-contiguous array of the kept dimensions (in ``out_dtype``)."""
    out_shape = tuple(n for d, n in enumerate(shape) if d not in axes)
    kshape, rshape, kst, rst = _split_layout(shape, axes, xs)
    m = math.prod(kshape)
    n = math.prod(rshape)
    be = xs[0].storage.backend
    # a block per output when the reduced axes are contiguous in memory for an input
    # (or when the kept ones are not either: then neighbouring threads at least read
    # neighbouring elements of one output's range)
    per_block = n >= 32 and (any(st and st[-1] == 1 for st in rst) or
                             not any(st and st[-1] == 1 for st in kst))
    block = SIM_RED_BLOCK if be.simulated else RED_BLOCK
    if per_block:
        while block > n:
            block //= 2
        chunks = max(1, min(-(-be.sm_count * 4 // m), n // BLOCK_CHUNK))
        grid = min(m * chunks, be.sm_count * 16)
    else:
        block = 256
        chunks = max(1, min(-(-be.sm_count * 2048 // m), n // THREAD_CHUNK))
        grid = grid_for(be, m * chunks, block)
    clen = -(-n // chunks)
    chunks = -(-n // clen)
    final = chunks == 1
    out = new(out_shape if final else (m * chunks,), out_dtype, dev, op)
    meta = [m, n, chunks, clen] + list(kshape) + [s for st in kst for s in st] + \
        list(rshape) + [s for st in rst for s in st]
    if len(meta) + len(xs) + 1 > MAX_WORDS:
        raise ValueError("tenferro (cuda): a fused reduction over %d operands and %d "
                         "dimensions that cannot be merged exceeds a kernel's parameter space"
                         % (len(xs), len(shape)))
    k = reduce_group_kernel(plan, op, out_dtype, len(kshape), len(rshape), per_block)
    launch(be, k, 0, [x.ptr for x in xs] + [out.ptr], meta, block=block, grid=grid)
    if final:
        return out
    # the partials: out[j * chunks + q] per block, out[q * m + j] per thread
    part = out.view((m, chunks), (chunks, 1) if per_block else (1, m), 0)
    res = reduce_group(identity_plan(out_dtype), [part], (m, chunks), op, (1,), out_dtype,
                       dev)
    return res.view(out_shape, None, 0)


# -- the driver's implementation -------------------------------------------------------------

# sub-graph -> its _Plan, or None where the group runs node by node (an entry lives as
# long as its sub-graph, i.e. its program)
_PLANS = weakref.WeakKeyDictionary()
_NONE = object()


def fused_elementwise(*arrays, graph):
    """The driver's ``fused_elementwise``: ``graph``'s outputs from its inputs' device
    arrays, one kernel launch (a reduced extent cut into chunks: two)."""
    plan = _PLANS.get(graph, _NONE)
    if plan is _NONE:
        plan = _PLANS[graph] = _plan(graph)
    ins = tuple(arrays) + tuple(c._data for c in plan.consts) if plan is not None else ()
    if plan is None or not ins or not all(isinstance(a, CUDAArray) for a in ins):
        from .. import device
        dev = arrays[0].device if arrays else device("cuda")
        return run_unfused(dev)(*arrays, graph=graph)
    dev = ins[0].device
    shape = graph.nodes[-1].inputs[0].shape if plan.tail is not None else \
        graph.nodes[-1].outputs[0].shape
    if plan.tail is not None and 0 in shape:   # an empty reduction: the driver's own
        return run_unfused(dev)(*arrays, graph=graph)   # ops give its identity or error
    xs = [broadcast_view(a, shape, "fused_elementwise") for a in ins]
    tail = plan.tail
    if tail is not None and len(plan.outs) == 1:
        return (reduce_group(plan, xs, shape, tail.prim.name, tail.params["axes"],
                             tail.params["out_dtype"], dev),)
    outs = [new(shape, d, dev, "fused_elementwise") for d in plan.outs]
    n = outs[0].size
    if n:
        nd, meta = elementwise_layout(shape, outs[-1], xs + outs[:-1])
        launch(outs[0].storage.backend, elementwise_group_kernel(plan, nd), n,
               [x.ptr for x in xs + outs], meta)
    if tail is None:
        return tuple(outs)
    # other outputs besides: stored by the kernel above, the tail's input reduced after
    last = outs.pop()
    reduced = reduce_group(identity_plan(last.dtype), [last], shape, tail.prim.name,
                           tail.params["axes"], tail.params["out_dtype"], dev)
    res = iter(outs)
    return tuple(reduced if o is tail.outputs[0] else next(res) for o in plan.graph_outs)


implementations = {"fused_elementwise": fused_elementwise}
