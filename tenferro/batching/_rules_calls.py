"""Batching rules of the primitives that call sub-graphs or guard values.

* ``fused_elementwise`` (a compiled program's fused group): its sub-graph's nodes are
  batched one by one (a nested ``vmap`` of the sub-graph);
* ``checkpoint``: the sub-graph is batched into a new sub-graph (traced once per
  batching pattern and size, cached on the graph), applied by ``checkpoint`` again, so
  the batched segment is still recomputed in backward;
* ``check``: the guarded value carries the batch, the condition is checked for all
  examples at once.
"""
from .._fused import fused_p
from .._ir import Var
from .._primitive import bind
from ..autograd._check import check_p
from ..autograd._checkpoint import checkpoint_p
from ..graph.trace import trace_graph
from ._api import vmap
from ._core import def_batch_rule, materialize


def evaluate(graph, xs):
    """The outputs (a tuple) of ``graph``'s nodes bound on ``xs``, one by one."""
    env = {id(v): x for v, x in zip(graph.in_vars, xs)}
    for node in graph.nodes:
        out = bind(node.prim, tuple(env[id(i)] if isinstance(i, Var) else i
                                    for i in node.inputs), node.params)
        for v, o in zip(node.outputs, out if node.prim.multiple_results else (out,)):
            env[id(v)] = o
    return tuple(env[id(o)] if isinstance(o, Var) else o for o in graph.outs)


def _axes(batched):
    return tuple(0 if b else None for b in batched)


def _fused(args, batched, params, size):
    graph = params["graph"]
    return vmap(lambda *xs: evaluate(graph, xs), in_axes=_axes(batched),
                axis_size=size)(*args)


def _checkpoint(args, batched, params, size):
    graph = params["graph"]
    cache = graph.derived.setdefault("vmap", {})
    key = (batched, size)
    if key not in cache:
        fn = vmap(lambda *xs: evaluate(graph, xs), in_axes=_axes(batched), axis_size=size)
        bgraph, _ = trace_graph(fn, args, graph.device)
        bgraph.name = "vmap(%s)" % graph.name
        cache[key] = bgraph
    return checkpoint_p.bind(*args, graph=cache[key])


def _check(args, batched, params, size):
    x, ok = args
    return bind(check_p, (materialize(x, batched[0], size), ok), params)


def_batch_rule(fused_p, _fused)
def_batch_rule(checkpoint_p, _checkpoint)
def_batch_rule(check_p, _check)
