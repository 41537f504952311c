"""Compiler passes over traced graphs (tenferro-rs's GraphCompiler): each pass takes a
:class:`~._graph.Graph` and returns a new one (the input is never modified), and each
can be switched off by name for debugging (``tenferro.compile(graph, passes=...)``)."""
import numpy as np

from .._primitive import bind
from ._fusion import elementwise_fusion
from ._graph import Graph, Node, Var

PASSES = ("fold", "simplify", "cse", "dce", "fuse")


def _rewrite(graph, fn):
    """A new graph with every node passed through ``fn(node, inputs)``, its inputs
    already substituted: ``fn`` returns None to keep the node (with those inputs), a
    new :class:`Node` to put in its place, or the values (Vars or constant Tensors)
    that replace its outputs.  The input graph is not modified."""
    subst = {}

    def sub(v):
        return subst.get(id(v), v) if isinstance(v, Var) else v

    nodes = []
    for node in graph.nodes:
        inputs = [sub(i) for i in node.inputs]
        repl = fn(node, inputs)
        if repl is None:
            nodes.append(Node(node.prim, node.params, inputs, node.outputs))
        elif isinstance(repl, Node):
            nodes.append(repl)
        else:
            for v, r in zip(node.outputs, repl):
                subst[id(v)] = r
    return Graph(graph.in_specs, graph.in_vars, nodes, [sub(o) for o in graph.outs],
                 graph.out_tree, graph.name)


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
    v = a.flat[0]
    return v if np.all(a == v) else None


def _same(x, node):
    """Whether value ``x`` already has the node's (only) output's shape and dtype."""
    o = node.outputs[0]
    return len(node.outputs) == 1 and tuple(x.shape) == o.shape and x.dtype == o.dtype


def algebraic_simplification(graph):
    """What AD generates and the result does not need: x * 1, 1 * x, x + 0, 0 + x,
    x - 0, x / 1, and a transpose of a transpose (composed; dropped when the identity).
    Only when the kept operand already has the output's shape and dtype."""
    def fn(node, inputs):
        name = node.prim.name
        if name in ("multiply", "add", "subtract", "divide") and len(inputs) == 2:
            unit = 1 if name in ("multiply", "divide") else 0
            for keep, other in ((0, 1), (1, 0)):
                if keep == 1 and name in ("subtract", "divide"):
                    continue
                if _constant_value(inputs[other]) == unit and _same(inputs[keep], node):
                    return (inputs[keep],)
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


def dead_code_elimination(graph):
    """The graph without the nodes whose outputs reach no output."""
    live = {id(o) for o in graph.outs if isinstance(o, Var)}
    keep = []
    for node in reversed(graph.nodes):
        if any(id(v) in live for v in node.outputs):
            keep.append(node)
            live.update(id(i) for i in node.inputs if isinstance(i, Var))
    return Graph(graph.in_specs, graph.in_vars, keep[::-1], graph.outs, graph.out_tree,
                 graph.name)


_PASS_FNS = {"fold": constant_folding, "simplify": algebraic_simplification,
             "cse": common_subexpression_elimination, "dce": dead_code_elimination,
             "fuse": elementwise_fusion}
