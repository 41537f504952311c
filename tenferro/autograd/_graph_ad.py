"""Autodiff of traced graphs: ``Graph.grad``, ``Graph.vjp`` and ``Graph.jvp``, attached
to :class:`tenferro._ir.Graph` from this layer (the compiler below knows nothing about
derivatives).  Each retraces the functional transforms over the graph: the eager rules,
applied symbolically."""
import contextlib

from .._ir import Graph
from .._ops import zeros_like
from .._tree import tree_flatten, tree_unflatten
from ..graph.trace import TensorSpec, make_graph
from ._context import AdContext
from ._functional import _split, grad, jvp, vjp


def _grad(self, argnums=0, ctx=None):
    """The graph of ``grad`` of this (scalar-valued) graph.  ``ctx``: an
    :class:`~tenferro.autograd.AdContext` whose rules override the registry's
    (default: the contexts in force, if any)."""
    with _rules(ctx, "grad"):
        return make_graph(grad(self, argnums), *self.in_specs)


def _vjp(self, ctx=None):
    """The graph ``(*inputs, cotangents) -> input cotangents``; the cotangents come in
    the outputs' structure (one per output, flattened as the graph's last inputs);
    ``ctx`` as in :meth:`grad`."""
    with _rules(ctx, "vjp"):
        return vjp_graph(self, (True,) * len(self.outs), (True,) * len(self.in_vars))


def _jvp(self, ctx=None):
    """The graph ``(*inputs, *tangents) -> (outputs, output tangents)`` (``ctx`` as in
    :meth:`grad`)."""
    k = len(self.in_specs)
    with _rules(ctx, "jvp"):
        return make_graph(lambda *a: jvp(self, tuple(a[:k]), tuple(a[k:])),
                          *self.in_specs, *self.in_specs)


Graph.grad, Graph.vjp, Graph.jvp = _grad, _vjp, _jvp


def _rules(ctx, op):
    """The rule set a graph transform applies: ``ctx`` alone, or (None) those in force."""
    if ctx is None:
        return contextlib.nullcontext()
    if not isinstance(ctx, AdContext):
        raise TypeError("tenferro.Graph.%s: ctx must be an AdContext or None, got %s"
                        % (op, type(ctx).__name__))
    return ctx.explicitly()


def vjp_graph(graph, given, wanted):
    """The graph ``(*inputs, *the cotangents of the outputs where given) -> the
    cotangents of the wanted inputs`` (missing cotangents are zeros).  It recomputes
    ``graph``'s forward pass from the inputs."""
    n = len(graph.in_vars)
    idx = [i for i in range(n) if wanted[i]]

    def f(*args):
        primals, cts = args[:n], iter(args[n:])
        g, dyn = _split(graph, primals, idx)
        out, fn = vjp(g, *dyn)
        flat, tree = tree_flatten(out)
        return fn(tree_unflatten(tree, [next(cts) if g else zeros_like(o)
                                        for g, o in zip(given, flat)]))
    cts = [TensorSpec(o.shape, o.dtype, graph.device) for o, g in zip(graph.outs, given) if g]
    return make_graph(f, *graph.in_specs, *cts)


def jvp_graph(graph, given):
    """The graph ``(*inputs, *the tangents of the inputs where given) -> the output
    tangents`` (a flat tuple; it recomputes ``graph``'s forward pass)."""
    n = len(graph.in_vars)
    idx = [i for i in range(n) if given[i]]

    def f(*args):
        primals, tangents = args[:n], args[n:]
        out = jvp(*_split(graph, primals, idx), tuple(tangents))[1]
        return tuple(tree_flatten(out)[0])
    return make_graph(f, *graph.in_specs, *[graph.in_specs[i] for i in idx])
