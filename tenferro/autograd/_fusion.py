"""Elementwise fusion (tenferro-rs fuses elementwise chains in its GraphCompiler).

The ``fuse`` pass groups connected elementwise nodes of one output shape into single
``fused_elementwise`` nodes whose parameter ``graph`` is the group as a sub-graph.  On
the CPU a fused node runs as one kernel (``_kernels/_elementwise``: ``FusedKernel``):
the nodes' own loops, applied block by block (64 elements) to registers held in
per-thread scratch memory, so intermediates never reach main memory; on a device
whose driver has no ``fused_elementwise`` implementation, the sub-graph runs node by
node with the driver's functions.  Results are those of the unfused program: the same
loops on the same values (a transcendental function may differ by its SIMD variant's
few ulp where the unfused loop takes a scalar path: a broadcast or strided operand).

A group is convex (no path leaves it and comes back), holds at most 128 nodes and 16
inputs plus outputs; its outputs are the members' values used outside it.
"""
import heapq

import numpy as np

from .. import _threads
from .._kernels import _elementwise as _ew, _views
from .._kernels._alloc import empty as _empty
from .._ops.elementwise import BINARY, UNARY
from ..devices.cpu import _out_like, impl
from .._primitive import Primitive
from . import extend
from ._graph import Graph, Node, TensorSpec, Var
from ._tree import tree_flatten

__all__ = ["fused_p", "elementwise_fusion"]

# primitive name -> FusedKernel instruction kind
KINDS = dict([(n, "unary") for n in list(UNARY) + ["real", "imag", "angle"]]
             + [(n, "binary") for n in BINARY]
             + [("convert", "cast"), ("where", "where"), ("clip", "clip")])
# reductions that may end a group, with the elementwise op combining two partials
REDUCTIONS = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
              "any": "logical_or", "all": "logical_and"}
MAX_OPERANDS = 16
MAX_NODES = 128
CHUNK = 1 << 17    # elements computed per kernel call before a fused reduction runs


def _fused_aval(*avals, graph):
    return [(o.shape, o.dtype) for o in graph.outs]


fused_p = Primitive("fused_elementwise", _fused_aval, multiple_results=True,
                    doc="A group of elementwise primitives run as one kernel (param: graph, "
                        "the group as a sub-graph; outputs: its outputs).")


# -- autodiff: the sub-graph's own rules ------------------------------------------------
# A fused node differentiates as the nodes it stands for (a compiled Program under a
# transform runs its unfused graph anyway; these rules serve ``program.graph`` itself).

def _fused_jvp(tangents, primals, out, params):
    from ._functional import jvp
    tans = [t if t is not None else _zeros_like(p) for t, p in zip(tangents, primals)]
    return tuple(jvp(lambda *xs: tuple(params["graph"](*xs)), tuple(primals), tuple(tans))[1])


def _fused_vjp(ct, primals, out, params, needs):
    from ._functional import vjp
    g = params["graph"]
    _, pullback = vjp(lambda *xs: tuple(g(*xs)), *primals)
    ct = ct if isinstance(ct, tuple) else (ct,)     # the tape passes one output's bare
    cts = tuple(c if c is not None else _zeros_like(o) for c, o in zip(ct, out))
    grads = pullback(cts)
    return tuple(x if n else None for x, n in zip(grads, needs))


def _zeros_like(x):
    from .._ops import zeros_like
    return zeros_like(x)


extend.def_jvp_rule(fused_p, _fused_jvp)
extend.def_vjp_rule(fused_p, _fused_vjp)


def run_unfused(dev):
    """A driver-level function running a fused node's sub-graph node by node with
    ``dev``'s implementations (for drivers without ``fused_elementwise``)."""
    impls = dev.driver.implementations

    def run(*arrays, graph):
        env = {id(v): a for v, a in zip(graph.in_vars, arrays)}
        for n in graph.nodes:
            args = [env[id(i)] if isinstance(i, Var) else i._data for i in n.inputs]
            env[id(n.outputs[0])] = impls[n.prim.name](*args, **n.params)
        return tuple(env[id(o)] for o in graph.outs)
    return run


# -- the CPU kernel of a fused node -----------------------------------------------------

class _CpuFused:
    """A sub-graph ready to run on the CPU: its ``FusedKernel`` (the elementwise nodes;
    the value a final reduction reads is the last output operand), the iteration
    shape, the final reduction node (or None) and the dtypes of the other outputs."""
    __slots__ = ("kernel", "shape", "tail", "dtypes")

    def __init__(self, graph):
        tail = _tail(graph)
        nodes = graph.nodes[:-1] if tail is not None else graph.nodes
        outs = [o for o in graph.outs if tail is None or o is not tail.outputs[0]]
        self.dtypes = tuple(o.dtype for o in outs)
        if tail is not None:
            outs.append(tail.inputs[0])
        nin = len(graph.in_vars)
        reg = {id(v): i for i, v in enumerate(graph.in_vars)}
        for i, o in enumerate(outs):
            reg[id(o)] = nin + i
        code, temp = [], nin + len(outs)
        for n in nodes:
            o = n.outputs[0]
            if id(o) not in reg:
                reg[id(o)] = temp
                temp += 1
            kind = KINDS[n.prim.name]
            src = n.inputs[1] if kind == "where" else n.inputs[0]
            code.append((kind, n.prim.name if kind in ("unary", "binary") else None,
                         (src.dtype, o.dtype), tuple(reg[id(i)] for i in n.inputs), reg[id(o)]))
        self.kernel = _ew.FusedKernel(code, nin, len(outs))
        self.tail = tail
        self.shape = outs[-1].shape


def _tail(graph):
    """A sub-graph's final reduction node, or None."""
    last = graph.nodes[-1]
    return last if last.prim.name in REDUCTIONS else None


def cpu_kernel(graph):
    """``graph`` ready to run on the CPU (built once per sub-graph, kept on it)."""
    f = graph.__dict__.get("_cpu_fused")
    if f is None:
        f = graph.__dict__["_cpu_fused"] = _CpuFused(graph)
    return f


# -- the pass -----------------------------------------------------------------------------

def elementwise_fusion(graph):
    """Connected elementwise nodes of one output shape become one ``fused_elementwise``
    node (groups of two nodes or more; convex; within the kernel's operand limits)."""
    nodes = graph.nodes
    producer = {}
    for k, n in enumerate(nodes):
        for v in n.outputs:
            producer[id(v)] = k
    uses = {id(o): 1 for o in graph.outs if isinstance(o, Var)}
    for n in nodes:
        for i in n.inputs:
            uses[id(i)] = uses.get(id(i), 0) + 1
    deps = {}          # id(var) -> bitmask of the nodes it depends on (itself included)
    group = {}         # node index -> group (a list of node indices, shared)
    closed = set()     # ids of groups ended by a reduction: nothing joins them
    for k, n in enumerate(nodes):
        below = 0
        for i in n.inputs:
            if isinstance(i, Var):
                below |= deps.get(id(i), 0)
        mine = below | (1 << k)
        for v in n.outputs:
            deps[id(v)] = mine
        name = n.prim.name
        if name in REDUCTIONS:
            # a reduction ends the group of the value it reduces, if only it reads it
            i = n.inputs[0]
            g = group.get(producer.get(id(i)))
            if g is not None and id(g) not in closed and uses.get(id(i)) == 1 and \
                    0 < int(np.prod(i.shape, dtype=np.int64)) and len(g) < MAX_NODES and \
                    _drop_conflicts(nodes, n, [g], producer, deps):
                merged = sorted(g + [k])
                closed.add(id(merged))
                for j in merged:
                    group[j] = merged
            continue
        if name not in KINDS or len(n.outputs) != 1:
            continue
        shape = n.outputs[0].shape
        cands = []
        for i in n.inputs:
            p = producer.get(id(i)) if isinstance(i, Var) else None
            g = group.get(p)
            if g is not None and id(g) not in closed and \
                    nodes[p].outputs[0].shape == shape and not any(g is c for c in cands):
                cands.append(g)
        cands = _drop_conflicts(nodes, n, cands, producer, deps)
        merged = [k]
        for g in cands:
            merged.extend(g)
        merged.sort()
        if len(merged) > MAX_NODES:
            merged = [k]
        for j in merged:
            group[j] = merged
    units = {}
    for k, g in group.items():
        if len(g) > 1:
            units[id(g)] = g
    if not units:
        return graph
    return _rebuild(graph, [c for g in units.values() for c in _split(graph, g)])


def _drop_conflicts(nodes, n, cands, producer, deps):
    """The candidate groups ``n`` can join: a group is dropped when a value entering the
    merged group from outside depends on it (merging would make a cycle)."""
    while cands:
        members = set()
        for g in cands:
            members.update(g)
        entering = [i for i in n.inputs if isinstance(i, Var)
                    and producer.get(id(i)) not in members]
        for g in cands:
            for j in g:
                entering.extend(i for i in nodes[j].inputs if isinstance(i, Var)
                                and producer.get(id(i)) not in members)
        bad = None
        for g in cands:
            mask = 0
            for j in g:
                mask |= 1 << j
            if any(deps.get(id(v), 0) & mask for v in entering):
                bad = g
                break
        if bad is None:
            return cands
        cands = [g for g in cands if g is not bad]
    return cands


def _boundary(graph, members):
    """(external inputs, outputs) of a group of node indices."""
    nodes = graph.nodes
    inside = {id(v) for j in members for v in nodes[j].outputs}
    ins, seen = [], set()
    for j in members:
        for i in nodes[j].inputs:
            key = id(i)
            if key not in inside and key not in seen:
                seen.add(key)
                ins.append(i)
    used_outside = {id(o) for o in graph.outs if isinstance(o, Var)}
    mset = set(members)
    for k, n in enumerate(nodes):
        if k not in mset:
            used_outside.update(id(i) for i in n.inputs if isinstance(i, Var))
    outs = [nodes[j].outputs[0] for j in members if id(nodes[j].outputs[0]) in used_outside]
    return ins, outs


def _split(graph, members):
    """The group, cut into consecutive runs (convex, as the group is) that each fit the
    kernel's operand limit; runs of one node stay unfused."""
    ins, outs = _boundary(graph, members)
    if len(ins) + len(outs) <= MAX_OPERANDS:
        return [members]
    if len(members) < 4:
        return []
    h = len(members) // 2
    runs = _split(graph, members[:h]) + _split(graph, members[h:])
    nodes = graph.nodes
    for r in runs:   # a reduction stays with the run computing what it reduces
        last = nodes[r[-1]]
        if last.prim.name in REDUCTIONS and not any(
                last.inputs[0] is nodes[j].outputs[0] for j in r[:-1]):
            r.pop()
    return [r for r in runs if len(r) > 1]


def _rebuild(graph, groups):
    """The graph with each group replaced by a fused node, in a topological order."""
    nodes = graph.nodes
    unit_of = {}
    fused = []
    for g in groups:
        ins, outs = _boundary(graph, g)
        sub_in = [Var(i.shape, i.dtype) for i in ins]
        ren = {id(i): v for i, v in zip(ins, sub_in)}
        sub_nodes = [Node(nodes[j].prim, nodes[j].params,
                          [ren.get(id(i), i) for i in nodes[j].inputs], nodes[j].outputs)
                     for j in g]
        sub = Graph([TensorSpec(v.shape, v.dtype, graph.device) for v in sub_in], sub_in, sub_nodes,
                    outs, tree_flatten(tuple(outs))[1], "fused")
        fused.append(Node(fused_p, {"graph": sub}, list(ins), list(outs)))
        for j in g:
            unit_of[j] = len(fused) - 1
    # units: ("f", i) for fused node i, ("n", k) for an untouched node k
    unit_nodes, key, members = {}, {}, {}
    for k, n in enumerate(nodes):
        u = ("f", unit_of[k]) if k in unit_of else ("n", k)
        unit_nodes[u] = fused[u[1]] if u[0] == "f" else n
        key[u] = max(key.get(u, k), k)
        members.setdefault(u, []).append(k)
    prod_unit = {}
    for u, n in unit_nodes.items():
        for v in n.outputs:
            prod_unit[id(v)] = u
    preds = {u: {prod_unit[id(i)] for i in n.inputs if isinstance(i, Var) and id(i) in prod_unit}
             for u, n in unit_nodes.items()}
    succs = {u: [] for u in unit_nodes}
    for u, ps in preds.items():
        for p in ps:
            succs[p].append(u)
    indeg = {u: len(ps) for u, ps in preds.items()}
    ready = [(key[u], u) for u, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(unit_nodes[u])
        for s in succs[u]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (key[s], s))
    assert len(order) == len(unit_nodes), "elementwise_fusion: a cycle (a bug)"
    return Graph(graph.in_specs, graph.in_vars, order, graph.outs, graph.out_tree, graph.name)


def fused_cpu(*arrays, graph):
    """The CPU driver's ``fused_elementwise``: outputs allocated in the layout of the
    first full-shape input (as the unfused loops would), one kernel call (it broadcasts
    the inputs) -- or, with a final reduction, one per chunk of at most ``CHUNK``
    elements, each reduced by the reduction kernel while in cache."""
    f = graph.__dict__.get("_cpu_fused") or cpu_kernel(graph)
    shape = f.shape
    like = None
    for a in arrays:
        if a.shape == shape:
            like = a
            break
    if f.tail is None:
        outs = tuple(_out_like(like, d) for d in f.dtypes) if like is not None else \
            tuple(_empty(shape, d) for d in f.dtypes)
        f.kernel.run(arrays + outs, _threads.current)
        return outs
    ins = tuple(a if a.shape == shape else _views.broadcast_to(a, shape) for a in arrays)
    outs = tuple(_out_like(like, d) if like is not None else _empty(shape, d)
                 for d in f.dtypes)
    reduced = _reduce_chunks(f.kernel, ins, outs, shape, f.tail)
    res = iter(outs)
    return tuple(reduced if o is f.tail.outputs[0] else next(res) for o in graph.outs)


def _reduce_chunks(k, ins, outs, shape, tail):
    """Run kernel ``k`` chunk by chunk into a cache-sized buffer and reduce each chunk
    with ``tail``'s reduction kernel (pairwise sums within a chunk); where chunks cut a
    reduced axis, their partial results are combined pairwise.  Equal to the unfused
    program to rounding."""
    axes = tail.params["axes"]
    op = tail.prim.name
    reduce_fn, combine = impl[op], impl[REDUCTIONS[op]]
    src = tail.inputs[0]
    out_dtype = tail.outputs[0].dtype
    buf = _empty((min(CHUNK, int(np.prod(shape, dtype=np.int64))),), src.dtype)
    result = _empty(tail.outputs[0].shape, out_dtype)
    partials = {}
    kept = [d for d in range(len(shape)) if d not in axes]
    for sl in _chunks(shape):
        cshape = tuple(len(range(*s.indices(n))) for s, n in zip(sl, shape))
        view = buf[:int(np.prod(cshape, dtype=np.int64))].reshape(cshape)
        k.run(tuple(a[sl] for a in ins) + tuple(o[sl] for o in outs) + (view,),
              _threads.current)
        part = reduce_fn(view, axes=axes, out_dtype=out_dtype)
        key = tuple((sl[d].start, sl[d].stop) for d in kept)
        partials.setdefault(key, []).append(part)
    for key, parts in partials.items():
        while len(parts) > 1:          # pairwise: the error grows with log(chunks)
            parts = [combine(parts[i], parts[i + 1], out_dtype=out_dtype)
                     if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
        _ew.cast(parts[0], result[tuple(slice(a, b) for a, b in key) + (Ellipsis,)],
                 _threads.current)
    return result


def _chunks(shape):
    """Index tuples (slices, ndim kept) cutting ``shape`` into C-order blocks of at most
    ``CHUNK`` elements: the trailing dims that fit whole, the next one in runs, the
    leading ones an index at a time."""
    n, inner, d = len(shape), 1, len(shape)
    while d > 0 and inner * shape[d - 1] <= CHUNK:
        d -= 1
        inner *= shape[d]
    whole = (slice(None),) * (n - d)
    if d == 0:
        yield whole if n else (Ellipsis,)     # a 0-d array's view, not its scalar
        return
    step = max(CHUNK // inner, 1)
    for idx in np.ndindex(*shape[:d - 1]):
        head = tuple(slice(i, i + 1) for i in idx)
        for a in range(0, shape[d - 1], step):
            yield head + (slice(a, min(a + step, shape[d - 1])),) + whole


extend.def_impl(fused_p, "cpu", fused_cpu)
