"""Compiler passes over traced graphs (tenferro-rs's GraphCompiler): each pass takes a
:class:`~tenferro._ir.Graph` and returns a new one (the input is never modified), and each
can be switched off by name for debugging (``tenferro.compile(graph, passes=...)``)."""
import collections

import numpy as np

from .._ir import AbstractArray, Graph, Node, Var
from .._primitive import bind
from .fusion import elementwise_fusion
from .trace import TensorSpec, make_graph

PASSES = ("fold", "simplify", "transpose", "plans", "cse", "dce", "fuse")


class _Splice:
    """What a rewrite puts in place of a node: the nodes of ``graph`` (a traced
    replacement) with its inputs bound to ``args``; its outputs replace the node's."""
    __slots__ = ("graph", "args")

    def __init__(self, graph, args):
        self.graph, self.args = graph, args


def _rewrite(graph, fn):
    """A new graph with every node passed through ``fn(node, inputs)``, its inputs
    already substituted: ``fn`` returns None to keep the node (with those inputs), a
    new :class:`Node` to put in its place, a :class:`_Splice` (whose nodes are passed
    through ``fn`` in turn), or the values (Vars or constant Tensors) that replace its
    outputs (none: the node is dropped).  The input graph is not modified."""
    subst = {}

    def sub(v):
        return subst.get(id(v), v) if isinstance(v, Var) else v

    nodes = []

    def visit(node):
        inputs = [sub(i) for i in node.inputs]
        repl = fn(node, inputs)
        if repl is None:
            nodes.append(Node(node.prim, node.params, inputs, node.outputs))
        elif isinstance(repl, Node):
            nodes.append(repl)
        elif isinstance(repl, _Splice):
            subst.update((id(v), a) for v, a in zip(repl.graph.in_vars, repl.args))
            for n in repl.graph.nodes:
                visit(n)
            for v, r in zip(node.outputs, repl.graph.outs):
                subst[id(v)] = sub(r)
        else:
            for v, r in zip(node.outputs, repl):
                subst[id(v)] = r

    for node in graph.nodes:
        visit(node)
    return graph.with_nodes(nodes, [sub(o) for o in graph.outs])


def _key(x):
    """A node input's identity for CSE: a variable's, a small constant's value (two
    ``2.0`` literals are the same constant), a large constant's object."""
    if isinstance(x, Var):
        return ("v", id(x))
    if x.size <= 16 and not getattr(x._data, "abstract", False):
        from .._ops import to_numpy
        a = np.asarray(to_numpy(x))
        return ("c", a.dtype.str, a.shape, a.tobytes(), x.device)
    return ("c", id(x))


def common_subexpression_elimination(graph):
    """One node for each (primitive, parameters, inputs) computed more than once (every
    primitive is pure)."""
    seen = {}

    def fn(node, inputs):
        try:
            key = (node.prim.name, tuple(sorted(node.params.items())),
                   tuple(_key(i) for i in inputs))
            hash(key)
        except TypeError:   # unhashable parameters: keep the node
            return None
        if key in seen:
            return seen[key]
        seen[key] = node.outputs
        return None
    return _rewrite(graph, fn)


# A folded constant is kept only if it holds at most this many more elements in memory
# than the node's inputs (a scalar seed broadcast to a large shape stays a stride-0 view
# and is kept; a large array computed from such views is left to run at run time).
FOLD_EXPANSION_LIMIT = 4096


def _stored(t):
    """Elements a constant holds in memory (a broadcast dimension holds one)."""
    data = t._data
    strides = getattr(data, "strides", None)
    if strides is None or len(strides) != len(data.shape):
        return t.size
    return int(np.prod([d for d, s in zip(data.shape, strides) if s != 0], dtype=np.int64))


def constant_folding(graph):
    """Nodes whose inputs are all constants, computed once at compile time -- except
    where the result would hold over ``FOLD_EXPANSION_LIMIT`` more elements than its
    inputs (the program would carry it and run no faster)."""
    def fn(node, inputs):
        if any(isinstance(i, Var) for i in inputs):
            return None
        out = bind(node.prim, tuple(inputs), node.params)
        outs = out if node.prim.multiple_results else (out,)
        if sum(_stored(o) for o in outs) - sum(_stored(i) for i in inputs) > \
                FOLD_EXPANSION_LIMIT:
            return None
        return outs
    return _rewrite(graph, fn)


def _constant_value(x):
    """The single value every element of constant ``x`` holds, or None (checked for
    constants of at most 4096 stored elements: a broadcast scalar of any size)."""
    if isinstance(x, Var) or x.size == 0 or _stored(x) > 4096:
        return None
    from .._ops import to_numpy
    a = np.asarray(to_numpy(x))
    # a broadcast constant (zero strides, as AD's ``ones`` cotangents) holds its values once
    a = a[tuple(0 if s == 0 and n else slice(None) for s, n in zip(a.strides, a.shape))]
    v = a.flat[0]
    return v if np.all(a == v) else None


def _is_unit(v, node):
    """Whether constant value ``v`` leaves the other operand of elementwise ``node``
    (multiply, divide, add, subtract) unchanged, bit for bit: 1 for a real product or
    quotient (a complex one turns ``-0-0j`` into ``0-0j``); for floating-point results
    -0.0 for a sum (``-0.0 + 0.0`` is ``+0.0``) and +0.0 for a difference (every
    component of a complex zero so)."""
    name = node.prim.name
    if v is None or v != (1 if name in ("multiply", "divide") else 0):
        return False
    kind = node.outputs[0].dtype.kind
    if name in ("multiply", "divide"):   # a complex product mixes the parts' zeros
        return kind != "c"
    if kind not in "fc":
        return True
    signs = np.signbit([np.real(v), np.imag(v)] if np.iscomplexobj(v) else [v])
    return bool(signs.all()) if name == "add" else not signs.any()


def _same(x, node):
    """Whether value ``x`` already has the node's (only) output's shape and dtype."""
    o = node.outputs[0]
    return len(node.outputs) == 1 and tuple(x.shape) == o.shape and x.dtype == o.dtype


def _sum_of_broadcast(node, x, shape, dev):
    """``sum(broadcast_to(x, shape), axes)`` as a traced replacement: ``x`` summed over
    its own reduced axes only, times the number of broadcast copies summed, reshaped
    and broadcast to the output (same shape and dtype as the node's); None when an
    axis has size 0 (the copies' sum is 0 where ``x * 0`` may be nan)."""
    from .. import _ops
    axes, out_dtype = node.params["axes"], node.params["out_dtype"]
    if 0 in shape:
        return None
    lead = len(shape) - len(x.shape)
    own = tuple(i - lead for i in axes if i >= lead and x.shape[i - lead] == shape[i])
    copies = int(np.prod([shape[i] for i in axes if i < lead or x.shape[i - lead] != shape[i]],
                         dtype=np.int64))
    kept = tuple(1 if i < lead else x.shape[i - lead] for i in range(len(shape))
                 if i not in axes)

    def replacement(x):
        r = _ops.sum(x, axis=own, dtype=out_dtype) if own else x
        r = r.astype(out_dtype) if r.dtype != out_dtype else r
        r = r * copies if copies != 1 else r
        return _ops.broadcast_to(_ops.reshape(r, kept), node.outputs[0].shape)
    return make_graph(replacement, TensorSpec(x.shape, x.dtype, dev))


def algebraic_simplification(graph):
    """What AD generates and the result does not need:

    * x * 1, 1 * x, x + (-0.0), (-0.0) + x, x - 0, x / 1 (only when the kept operand
      already has the output's shape and dtype, and the result is bit for bit the
      operand: ``x + 0.0`` stays, as it turns -0.0 into +0.0, and so does a complex
      product);
    * a transpose of a transpose, a reshape of a reshape (composed; dropped when the
      identity);
    * broadcast-then-reduce, ``sum(broadcast_to(x, shape), axes)``: ``x`` summed over
      its own reduced axes only, times the number of broadcast copies summed, then
      reshaped/broadcast to the output (no reduction at all when only broadcast axes
      are summed);
    * the sum of a constant whose elements are all equal: a constant;
    * the conjugate of a real (or integer) value: the value (AD's rules conjugate
      whatever dtype they get).

    The output of every rewritten node keeps its shape and dtype."""
    dev = graph.device

    def fn(node, inputs):
        name = node.prim.name
        if name == "conj" and inputs[0].dtype.kind != "c" and _same(inputs[0], node):
            return (inputs[0],)
        if name == "sum":
            o = node.outputs[0]
            v = _constant_value(inputs[0])
            if v is not None:
                from .._ops import full
                n = int(np.prod([inputs[0].shape[a] for a in node.params["axes"]],
                                dtype=np.int64))
                return (full(o.shape, np.asarray(v).astype(o.dtype) * n, dtype=o.dtype,
                             device=dev),)
            src = producers.get(id(inputs[0]))
            if src is not None and src.prim.name == "broadcast_to":
                sub_graph = _sum_of_broadcast(node, src.inputs[0], src.params["shape"], dev)
                if sub_graph is not None:
                    return _Splice(sub_graph, [src.inputs[0]])
        if name in ("multiply", "add", "subtract", "divide") and len(inputs) == 2:
            for keep, other in ((0, 1), (1, 0)):
                if keep == 1 and name in ("subtract", "divide"):
                    continue
                if _is_unit(_constant_value(inputs[other]), node) and _same(inputs[keep], node):
                    return (inputs[keep],)
        if name == "reshape" and not node.params["copy"]:
            src = producers.get(id(inputs[0]))
            if src is not None and src.prim.name == "reshape" and not src.params["copy"]:
                if src.inputs[0].shape == node.outputs[0].shape:
                    return (src.inputs[0],)
                node = Node(node.prim, node.params, [src.inputs[0]], node.outputs)
                producers[id(node.outputs[0])] = node
                return node
        if name == "permute_dims":
            src = producers.get(id(inputs[0]))
            if src is not None and src.prim.name == "permute_dims":
                axes = tuple(src.params["axes"][a] for a in node.params["axes"])
                if axes == tuple(range(len(axes))):
                    return (src.inputs[0],)
                node = Node(node.prim, dict(node.params, axes=axes), [src.inputs[0]],
                            node.outputs)
                producers[id(node.outputs[0])] = node
                return node
        for v in node.outputs:
            producers[id(v)] = Node(node.prim, node.params, inputs, node.outputs)
        return None
    producers = {}
    return _rewrite(graph, fn)


def _canonical(ins, out):
    """Einsum labels renumbered 0, 1, ... in order of appearance (as a plan's params)."""
    number = {}
    for l in [l for t in ins for l in t] + list(out):
        number.setdefault(l, len(number))
    return (tuple(tuple(number[l] for l in t) for t in ins),
            tuple(number[l] for l in out))


def _einsum_params(plans, ins, out, inputs, node, dev):
    """The einsum parameters (labels and plan) for labels ``ins`` of ``inputs`` ->
    ``out``, in place of einsum ``node``: one plan per signature (labels, shapes,
    dtype) in ``plans``; a new one is built with the contraction order of ``node``'s
    (relabelling an operand or the output changes no contraction's cost) for the
    strides of freshly computed values (any strides run correctly)."""
    from .._ops.einsum import build_plan
    ins, out = _canonical(ins, out)
    shapes = tuple(tuple(x.shape) for x in inputs)
    dtype = inputs[0].dtype
    key = (ins, out, shapes, dtype)
    plan = plans.get(key)
    if plan is None:
        plan = node.params["plan"]
        if key != (plan.params["ins"], plan.params["out"],
                   tuple(tuple(x.shape) for x in node.inputs), node.inputs[0].dtype):
            plan = build_plan((ins, out), shapes,
                              [AbstractArray(s, dtype).strides for s in shapes],
                              tuple(plan.path), dev.driver, dtype)
            plan.work, plan.cast = dtype, None
        plans[key] = plan
    return plan.params


# elementwise primitives of one operand that commute with a transpose
_SINK = frozenset(("conj", "negative", "real", "imag", "convert"))


def transpose_folding(graph):
    """Transposes folded into the contractions that read or produce them (tenferro-rs
    folds them into the labels of its contractions): an einsum operand that is a
    ``permute_dims`` of ``x`` (or a chain of them) becomes ``x`` with its labels
    permuted, and an einsum whose only use is a ``permute_dims`` computes the
    permuted output directly (its output labels permuted).  A transpose under a
    conj, negative, real, imag or convert that feeds an einsum (AD's conjugated
    operands) is moved after it first, so that it folds too.  Each rewritten einsum
    gets a plan for its new labels (same contraction order); the transposes left
    without a use are removed by ``dce``.

    ``matmul`` is left alone: its CPU kernel folds a transposed operand (a strided
    view) into BLAS's trans flags at no cost."""
    from .._ops.einsum import einsum_p
    dev = graph.device
    uses = collections.Counter(id(i) for n in graph.nodes for i in n.inputs
                               if isinstance(i, Var))
    uses.update(id(o) for o in graph.outs if isinstance(o, Var))
    consumer = {id(i): n for n in graph.nodes for i in n.inputs if isinstance(i, Var)}
    producers, dropped, plans = {}, set(), {}
    feeds = {id(i) for n in graph.nodes if n.prim is einsum_p for i in n.inputs}
    for n in reversed(graph.nodes):   # the values that reach an einsum through _SINK ops
        if n.prim.name in _SINK and id(n.outputs[0]) in feeds:
            feeds.add(id(n.inputs[0]))

    def folded_out(node):
        """(output labels, output var) of einsum ``node`` after the chain of transposes
        that alone use its output; the transposes are dropped."""
        out, v = node.params["out"], node.outputs[0]
        while uses[id(v)] == 1 and id(v) in consumer:
            p = consumer[id(v)]
            if p.prim.name != "permute_dims":
                break
            out = tuple(out[a] for a in p.params["axes"])
            v = p.outputs[0]
            dropped.add(id(p))
        return out, v

    def fn(node, inputs):
        if id(node) in dropped:
            return ()    # its output is computed by the einsum it followed
        src = producers.get(id(inputs[0])) if inputs else None
        if (node.prim.name in _SINK and id(node.outputs[0]) in feeds and src is not None
                and src.prim.name == "permute_dims"):   # f(x.T) as f(x).T
            x, o = src.inputs[0], node.outputs[0]
            w = Var(x.shape, o.dtype)
            return _Splice(Graph((), (), [Node(node.prim, node.params, [x], [w]),
                                          Node(src.prim, src.params, [w], [o])], [o], None),
                           [])
        if node.prim is einsum_p:
            args, ins = [], []
            for x, labels in zip(inputs, node.params["ins"]):
                src = producers.get(id(x))
                while src is not None and src.prim.name == "permute_dims":
                    relabelled = [None] * len(labels)
                    for l, a in zip(labels, src.params["axes"]):
                        relabelled[a] = l
                    labels, x = tuple(relabelled), src.inputs[0]
                    src = producers.get(id(x))
                args.append(x)
                ins.append(labels)
            out, v = folded_out(node)
            node = Node(einsum_p, _einsum_params(plans, ins, out, args, node, dev), args, [v])
        else:
            node = Node(node.prim, node.params, inputs, node.outputs)
        for v in node.outputs:
            producers[id(v)] = node
        return node
    return _rewrite(graph, fn)


def share_einsum_plans(graph):
    """One plan object for all the einsum nodes of one signature (labels, shapes,
    dtype), whatever subscripts or path options they were traced with; ``cse`` then
    also merges such nodes when they have the same operands."""
    from .._ops.einsum import einsum_p
    dev, plans = graph.device, {}

    def fn(node, inputs):
        if node.prim is not einsum_p:
            return None
        p = _einsum_params(plans, node.params["ins"], node.params["out"], inputs, node, dev)
        return Node(einsum_p, p, inputs, node.outputs)
    return _rewrite(graph, fn)


def dead_code_elimination(graph):
    """The graph without the nodes whose outputs reach no output."""
    live = {id(o) for o in graph.outs if isinstance(o, Var)}
    keep = []
    for node in reversed(graph.nodes):
        if any(id(v) in live for v in node.outputs):
            keep.append(node)
            live.update(id(i) for i in node.inputs if isinstance(i, Var))
    return graph.with_nodes(keep[::-1])


_PASS_FNS = {"fold": constant_folding, "simplify": algebraic_simplification,
             "transpose": transpose_folding, "plans": share_einsum_plans,
             "cse": common_subexpression_elimination, "dce": dead_code_elimination,
             "fuse": elementwise_fusion}
