"""The fused-group contract between the compiler and the drivers.

The compiler's fusion pass (:mod:`tenferro.graph.fusion`) replaces connected
elementwise nodes by one ``fused_elementwise`` node whose parameter ``graph`` is the
group as a sub-graph (:class:`tenferro._ir.Graph`): elementwise nodes of the kinds in
:data:`KINDS`, all of one shape, optionally ended by one reduction
(:func:`tail`).  A driver that can run such a group as one kernel registers an
implementation of ``fused_elementwise`` (``fn(*input_arrays, graph) -> output
arrays``); one that cannot gets :func:`run_unfused`, which runs the sub-graph node by
node with the driver's own implementations.
"""
from ._catalog import BINARY, COMPLEX_PARTS, REDUCTIONS, UNARY
from ._ir import Var
from ._primitive import Primitive

__all__ = ["fused_p", "KINDS", "REDUCTIONS", "tail", "run_unfused"]

#: primitive name -> the kind of instruction it is in a fused group
KINDS = dict([(n, "unary") for n in list(UNARY) + list(COMPLEX_PARTS)]
             + [(n, "binary") for n in BINARY]
             + [("convert", "cast"), ("where", "where"), ("clip", "clip")])


def _fused_aval(*avals, graph):
    return [(o.shape, o.dtype) for o in graph.outs]


fused_p = Primitive("fused_elementwise", _fused_aval, multiple_results=True,
                    doc="A group of elementwise primitives run as one kernel (param: graph, "
                        "the group as a sub-graph; outputs: its outputs).")


def tail(graph):
    """A fused sub-graph's final reduction node (one of :data:`REDUCTIONS`), or None."""
    last = graph.nodes[-1]
    return last if last.prim.name in REDUCTIONS else None


def run_unfused(dev):
    """A driver-level function running a fused node's sub-graph node by node with
    ``dev``'s implementations (for drivers without ``fused_elementwise``)."""
    lookup = dev.driver.lookup

    def run(*arrays, graph):
        env = {id(v): a for v, a in zip(graph.in_vars, arrays)}
        for n in graph.nodes:
            args = [env[id(i)] if isinstance(i, Var) else i._data for i in n.inputs]
            fn = lookup(n.prim.name, dev, n.inputs[0].dtype)
            env[id(n.outputs[0])] = fn(*args, **n.params)
        return tuple(env[id(o)] for o in graph.outs)
    return run
